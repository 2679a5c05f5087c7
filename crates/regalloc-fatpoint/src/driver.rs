//! The allocation driver: the seed's NOSPILL attempts, then spill rounds.
//!
//! Each round computes live ranges from scratch and tries the assignment
//! orders in turn; the first that fits every file within its limit wins
//! (the definition order first, as it usually needs the fewest registers).
//! When none fits, the registers the priority order could not place are
//! spilled (being the cheapest per point, they are what the seed's spill
//! guidance would pick), and the round starts again on the new code. Spill
//! temporaries are never spilled again, so each round spills registers of
//! the original code and the rounds end.

use cfg::{VReg, VRegSpace};
use fixedbitset::FixedBitSet;
use ori_ir::{Function, PhaseError, Reg, RegFile, Target};

use crate::assign::{Assignment, Order, assign};
use crate::limits::allocatable;
use crate::points::LiveRanges;
use crate::spill::{SpillStats, spill, spillable};

/// How the allocator may proceed.
#[derive(Copy, Clone, Debug)]
pub struct Options {
    /// The register limit (the count ptxas would report at most), see
    /// [`crate::register_limit`].
    pub limit: u32,
    /// Assignment orders tried before spilling (1 or 2; the seed's
    /// `RegAllocNumNonSpillTrials`).
    pub no_spill_trials: u32,
}

/// A virtual register's physical register: the result of [`allocate`].
#[derive(Clone, Debug)]
pub struct Allocation {
    space: VRegSpace,
    /// First physical register, by bit of `space`.
    first: Vec<Option<u32>>,
    /// Registers handed out per file (one past the highest).
    pub used: [u32; RegFile::ALL.len()],
    /// Spill code inserted.
    pub spill: SpillStats,
    /// Rounds of spilling that were needed.
    pub spill_rounds: u32,
}

impl Allocation {
    /// An allocation given register by register, for tests of the
    /// checker.
    #[cfg(test)]
    pub(crate) fn from_pairs(func: &Function, pairs: &[(Reg, u32)]) -> Allocation {
        let space = VRegSpace::of(func);
        let mut first = vec![None; space.len()];
        for &(reg, num) in pairs {
            first[space.bit(VReg::of(reg).expect("virtual")).expect("of the function")] = Some(num);
        }
        Allocation { space, first, used: [0; RegFile::ALL.len()], spill: SpillStats::default(), spill_rounds: 0 }
    }

    /// The physical register for `reg` when it is virtual (same file and
    /// width), `None` for a physical register or one the allocation does
    /// not cover.
    pub fn physical(&self, reg: Reg) -> Option<Reg> {
        let bit = self.space.bit(VReg::of(reg)?)?;
        self.first[bit].map(|num| Reg::phys(reg.file, num).wide(reg.width))
    }
}

/// Rounds of spilling before giving up; each spills at least one register
/// of the original code, and real functions need one or two.
const MAX_SPILL_ROUNDS: u32 = 64;

/// Finds a physical register for every virtual register of `func`,
/// inserting spill code into `func` where the limit requires it. `func`
/// keeps its virtual registers; [`crate::rewrite`] applies the result.
pub fn allocate(func: &mut Function, target: &Target, options: Options) -> Result<Allocation, PhaseError> {
    if cfg::Cfg::compute(func).has_unknown_targets() {
        return Err(PhaseError::in_function(func, "cannot allocate registers: an indirect branch has unknown targets"));
    }
    let limits = RegFile::ALL.map(|f| allocatable(f, target, options.limit));
    let mut stats = SpillStats::default();
    let mut temps: Vec<VReg> = Vec::new();
    for round in 0..=MAX_SPILL_ROUNDS {
        let lr = LiveRanges::compute(func);
        let mut temp_bits = FixedBitSet::with_capacity(lr.vregs.len());
        for &t in &temps {
            temp_bits.extend(lr.space.bit(t));
        }
        let orders: &[Order] =
            if options.no_spill_trials >= 2 { &[Order::Definition, Order::Priority] } else { &[Order::Priority] };
        let mut last = None;
        for &order in orders {
            let a = assign(&lr, &limits, order, &temp_bits);
            if a.failed.is_empty() {
                return Ok(finish(lr.space, a, stats, round));
            }
            last = Some(a);
        }
        let a = last.expect("at least one order");
        let mut to_spill = Vec::new();
        for &bit in &a.failed {
            let v = lr.space.vreg(bit);
            let width = lr.vregs[bit].width;
            if temp_bits.contains(bit) || !spillable(v.file, width) {
                return Err(failure(func, options.limit, v, width));
            }
            to_spill.push((v, width));
        }
        temps.extend(spill(func, &to_spill, &mut stats));
    }
    Err(PhaseError::in_function(
        func,
        format!("Register allocation failed with register count of '{}': spilling did not converge", options.limit),
    ))
}

fn finish(space: VRegSpace, a: Assignment, spill: SpillStats, rounds: u32) -> Allocation {
    Allocation { space, first: a.first, used: a.used, spill, spill_rounds: rounds }
}

/// ptxas's message when allocation fails, with the register that could
/// not be placed and why nothing could be done about it.
fn failure(func: &Function, limit: u32, v: VReg, width: u8) -> PhaseError {
    let why = match v.file {
        RegFile::R if width == 3 => "96-bit values are not spilled".to_string(),
        RegFile::R => "even its spill temporaries do not fit".to_string(),
        file => format!("{file:?} registers are not spilled"),
    };
    PhaseError::in_function(
        func,
        format!(
            "Register allocation failed with register count of '{limit}'. Compile the program with a higher register target ({v}: {why})"
        ),
    )
}
