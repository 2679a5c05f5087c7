//! The `AllocateRegisters` phase (the seed's name for the allocator the
//! `AdvancedPhaseAllocReg` hook reaches).

use ori_ir::{Function, Knob, KnobValue, Phase, PhaseContext, PhaseError, Property, PropertySet};

use crate::check::check_allocation;
use crate::driver::{Options, allocate};
use crate::limits::register_limit;
use crate::rewrite::rewrite;

/// Fat-point register allocation with spilling to local memory.
pub struct AllocateRegisters;

static KNOBS: &[Knob] = &[
    Knob {
        name: "MaxRegs",
        default: KnobValue::Int(0),
        doc: "register limit of --maxrregcount (0: none); .maxnreg and launch bounds override it",
    },
    Knob {
        name: "RegAllocNumNonSpillTrials",
        default: KnobValue::Int(2),
        doc: "assignment orders tried before spilling: 2 (definition, then priority order) or 1 (priority only)",
    },
];

impl Phase for AllocateRegisters {
    fn name(&self) -> &'static str {
        "AllocateRegisters"
    }

    fn description(&self) -> &'static str {
        "fat-point register allocation: virtual to physical registers, spilling to local memory"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs])
    }

    fn establishes(&self) -> PropertySet {
        PropertySet::of(&[Property::PhysicalRegs])
    }

    /// Spill code is plain `STL`/`LDL` at `[R1+imm]` and renaming keeps
    /// every form, so `Legalized` survives; inserted and removed
    /// instructions have no control word and no encoding.
    fn invalidates(&self) -> PropertySet {
        PropertySet::of(&[Property::VirtualRegs, Property::Scheduled, Property::Encoded])
    }

    fn knobs(&self) -> &'static [Knob] {
        KNOBS
    }

    fn run(&self, func: &mut Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let has_virtual =
            func.insts_in_order().any(|(_, _, i)| i.read_regs().chain(i.written_regs()).any(|r| r.is_virtual));
        if !has_virtual {
            return Ok(());
        }
        let knob = |name| cx.knobs.int(name).unwrap_or(0).clamp(0, i64::from(u32::MAX)) as u32;
        let options = Options {
            limit: register_limit(func, &cx.target, knob("MaxRegs")),
            no_spill_trials: knob("RegAllocNumNonSpillTrials").max(1),
        };
        let alloc = allocate(func, &cx.target, options)?;
        // The independent check costs a liveness computation; debug builds
        // (and every test) pay it, release builds trust the allocator.
        if cfg!(debug_assertions) {
            check_allocation(func, &alloc)
                .map_err(|e| PhaseError::in_function(func, format!("internal error: bad allocation: {e}")))?;
        }
        rewrite(func, &alloc);
        Ok(())
    }
}
