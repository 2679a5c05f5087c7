//! Pre-allocation phases: the clean-ups that run on virtual-register Ori
//! right after lowering and between the early optimisations. One module
//! per phase, named as in the seed's phase table; the driver collects them
//! through [`phases`].
//!
//! See `docs/passes.md` for how to add a phase and its file tests.

mod branch_opt;
mod const_operands;
mod copy_prop;
mod gvn_cse;
mod live_dead;
mod predication;
mod pure;
mod reconverge;
mod remat_constants;
mod sink_remat;
mod sync_opt;
mod undef_parts;
mod uniform_pairs;
mod uniform_regs;

pub use branch_opt::OriBranchOpt;
pub use const_operands::FoldConstantOperands;
pub use copy_prop::OriCopyProp;
pub use gvn_cse::GvnCse;
pub use live_dead::EarlyOriSimpleLiveDead;
pub use predication::OriDoPredication;
pub use reconverge::LateExpandSyncInstructions;
pub use remat_constants::RematConstantLoads;
pub use sink_remat::SinkRemat;
pub use sync_opt::OptimizeSyncInstructions;
pub use undef_parts::OriMarkUndefParts;
pub use uniform_pairs::UniformConstantPairs;
pub use uniform_regs::ConvertToUniformReg;

use fixedbitset::FixedBitSet;
use ori_ir::{Function, InstId, Phase, RegFile};

/// Every phase of this crate, for the driver's registry.
pub fn phases() -> Vec<Box<dyn Phase>> {
    vec![
        Box::new(EarlyOriSimpleLiveDead),
        Box::new(OriCopyProp),
        Box::new(GvnCse),
        Box::new(FoldConstantOperands),
        Box::new(RematConstantLoads),
        Box::new(UniformConstantPairs),
        Box::new(ConvertToUniformReg),
        Box::new(OriBranchOpt),
        Box::new(SinkRemat),
        Box::new(OriMarkUndefParts),
        Box::new(OriDoPredication),
        Box::new(LateExpandSyncInstructions),
        Box::new(OptimizeSyncInstructions),
    ]
}

/// Writes of each virtual register (file and number). Fx-hashed: the
/// phases ask it for every register they look at, and SipHash with its
/// growth was 2 % of large_unroll's instructions.
type WriteCounts = ori_ir::FxHashMap<(RegFile, u32), u32>;

/// How many instructions write each virtual register (any part of it),
/// by file and number.
fn write_counts(func: &Function) -> WriteCounts {
    let mut counts = WriteCounts::default();
    for (_, _, inst) in func.insts_in_order() {
        for r in inst.written_regs().filter(|r| r.is_virtual) {
            *counts.entry((r.file, r.num)).or_insert(0) += 1;
        }
    }
    counts
}

/// A set of instructions of one function, by arena index.
struct InstSet(FixedBitSet);

impl InstSet {
    fn new(func: &Function) -> InstSet {
        InstSet(FixedBitSet::with_capacity(func.insts.len()))
    }

    fn insert(&mut self, inst: InstId) {
        self.0.insert(u32::from(inst.into_raw()) as usize);
    }

    fn contains(&self, inst: InstId) -> bool {
        self.0.contains(u32::from(inst.into_raw()) as usize)
    }

    fn is_empty(&self) -> bool {
        self.0.is_clear()
    }
}

/// Takes the instructions in `dead` out of their blocks. They stay in the
/// arena, unreachable: Ori has no way to free an instruction.
fn unlink(func: &mut Function, dead: &InstSet) {
    for &block in &func.layout {
        func.blocks[block].insts.retain(|&i| !dead.contains(i));
    }
}
