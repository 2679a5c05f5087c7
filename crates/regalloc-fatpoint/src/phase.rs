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
        func.attrs.spill_store_bytes += alloc.spill.store_bytes;
        func.attrs.spill_load_bytes += alloc.spill.load_bytes;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::{Knobs, Sm};

    /// 30 values and a pair live at once: R0, R2.64, R4-R32 (35 reported).
    fn wide_function(attrs: &str) -> Function {
        let mut text = format!(".entry k {{\n{attrs}\nbb0:\n    %r0.64 = LDC.64 c[0x0][0x210]\n");
        for i in 0..30 {
            text += &format!("    %r{} = LDG.E [%r0.64+{:#x}]\n", 10 + i, 4 * i);
        }
        for i in 0..30 {
            text += &format!("    STG.E [%r0.64], %r{}\n", 10 + i);
        }
        text += "    EXIT\n}\n";
        ori_ir::text::parse_function(&text).unwrap()
    }

    fn run(func: &mut Function, max_regs: i64) {
        let mut knobs = Knobs::defaults(AllocateRegisters.knobs());
        knobs.set("MaxRegs", KnobValue::Int(max_regs));
        let cx = PhaseContext { target: Sm::new(90).target(), opt_level: 3, knobs: &knobs, forms: &ori_ir::NoForms };
        AllocateRegisters.run(func, &cx).unwrap();
    }

    #[test]
    fn the_knob_limits_registers_and_maxnreg_overrides_it() {
        let target = Sm::new(90).target();
        let mut free = wide_function("");
        run(&mut free, 0);
        assert_eq!((crate::registers_used(&free, &target), free.attrs.frame_bytes), (35, 0));
        let mut capped = wide_function("");
        run(&mut capped, 24);
        assert_eq!(crate::registers_used(&capped, &target), 24);
        assert!(capped.attrs.frame_bytes > 0);
        let mut overridden = wide_function("    .maxnreg 40");
        run(&mut overridden, 24);
        assert_eq!((crate::registers_used(&overridden, &target), overridden.attrs.frame_bytes), (35, 0));
    }

    #[test]
    fn physical_code_is_left_alone() {
        let text = ".entry k {\nbb0:\n    R0 = MOV R0\n    R2 = S2R SR_TID.X\n    EXIT\n}\n";
        let mut func = ori_ir::text::parse_function(text).unwrap();
        run(&mut func, 0);
        assert_eq!(ori_ir::text::print_function(&func), text);
    }
}
