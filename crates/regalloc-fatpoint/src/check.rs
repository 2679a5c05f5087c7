//! An independent check of an allocation: no two values live at the same
//! point share a physical register.
//!
//! It recomputes liveness with `cfg::Liveness::transfer`, instruction by
//! instruction (not the allocator's ranges), on the code the allocation
//! is for, and at every instruction claims the physical registers of what
//! is live after it together with what it writes (a result must not
//! overwrite a value still needed, even when the result itself is dead).
//! A value claims nothing where no write of it reaches ([`crate::defined`]:
//! its register holds nothing anyone may rely on there).
//! Physical registers named by the code, with the effects of calls, claim
//! their registers too. The phase runs it in debug builds; the tests run
//! it on every case.

use cfg::{Cfg, Liveness, VReg};
use ori_ir::{Function, Reg};

use crate::defined::Defined;
use crate::driver::Allocation;
use crate::phys_live::{PhysEffects, PhysLiveness};
use crate::points::early_clobber;
use crate::units::{ABI, UNIT_COUNT, Unit, alignment, units_of};

/// Who holds a unit at the point being checked.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Holder {
    Free,
    Virtual(VReg),
    Physical,
}

/// Checks `alloc` against `func` (the virtual code it was computed for,
/// spill code included). The error names the function, the block, the
/// instruction and the two values.
pub fn check_allocation(func: &Function, alloc: &Allocation) -> Result<(), String> {
    let cfg = Cfg::compute(func);
    let live = Liveness::compute(func, &cfg);
    let effects = PhysEffects::of(func);
    let phys = PhysLiveness::compute(func, &cfg, &effects);
    let defined = Defined::compute(func, &cfg, &live);
    for (_, _, inst) in func.insts_in_order() {
        for reg in inst.read_regs().chain(inst.written_regs()).filter(|r| r.is_virtual) {
            check_register(alloc, reg)?;
        }
    }
    let mut holders = vec![Holder::Free; UNIT_COUNT];
    let widths = func.vreg_widths();
    for (pos, &block) in func.layout.iter().enumerate() {
        let mut vlive = live.live_out(block).clone();
        let mut plive = phys.live_out(block).clone();
        // Where each register is first written in the block: it may hold
        // a value after that instruction, or throughout when a write
        // reaches the block's start.
        let mut first_write = std::collections::HashMap::new();
        for (j, &id) in func.blocks[block].insts.iter().enumerate() {
            for v in func.insts[id].written_regs().filter_map(VReg::of) {
                first_write.entry(v).or_insert(j);
            }
        }
        for (j, &id) in func.blocks[block].insts.iter().enumerate().rev() {
            let inst = &func.insts[id];
            for target in cfg::branch_targets(inst) {
                vlive.union_with(live.live_in(target));
                plive.union_with(phys.live_in(target));
            }
            holders.fill(Holder::Free);
            let mut claim = |holder: Holder, units: std::ops::Range<Unit>| -> Result<(), String> {
                for u in units {
                    match holders[u] {
                        Holder::Free => holders[u] = holder,
                        h if h == holder => {}
                        other => {
                            let name = |h: Holder| match h {
                                Holder::Virtual(v) => v.to_string(),
                                _ => "a physical register of the code".to_string(),
                            };
                            return Err(format!(
                                "function '{}', bb{pos}, `{}`: {} and {} share unit {u} there",
                                func.name,
                                ori_ir::text::print_inst(func, inst),
                                name(other),
                                name(holder),
                            ));
                        }
                    }
                }
                Ok(())
            };
            for u in plive.ones() {
                claim(Holder::Physical, u..u + 1)?;
            }
            let mut phys_defs = Vec::new();
            effects.defs(inst, |u| phys_defs.push(u));
            for u in phys_defs {
                claim(Holder::Physical, u..u + 1)?;
            }
            let after = vlive
                .iter()
                .filter(|&v| defined.may_hold(block, v) || first_write.get(&v).is_some_and(|&w| w <= j))
                .map(|v| Reg::virt(v.file, v.num).wide(widths.get(&(v.file, v.num)).copied().unwrap_or(1)));
            for reg in after.chain(inst.written_regs().filter(|r| r.is_virtual)) {
                let v = VReg::of(reg).expect("virtual");
                claim(Holder::Virtual(v), units_of(alloc.physical(reg).expect("checked above")))?;
            }
            for def in inst.written_regs().filter(|&d| early_clobber(inst, d)) {
                let def_units = units_of(alloc.physical(def).unwrap_or(def));
                for src in
                    inst.uses.iter().flat_map(|op| op.regs()).filter(|r| r.file == def.file && r.width != def.width)
                {
                    let src_units = units_of(alloc.physical(src).unwrap_or(src));
                    if def_units.start < src_units.end && src_units.start < def_units.end {
                        return Err(format!(
                            "function '{}', bb{pos}: matrix result {def} partly overlaps its source {src}",
                            func.name
                        ));
                    }
                }
            }
            live.transfer(inst, &mut vlive);
            phys.transfer(id, inst, &effects, &mut plive);
        }
    }
    Ok(())
}

/// The register itself: assigned, same shape, aligned, inside its file,
/// not reserved.
fn check_register(alloc: &Allocation, reg: Reg) -> Result<(), String> {
    let p = alloc.physical(reg).ok_or_else(|| format!("{reg} has no register"))?;
    let end = p.num + u32::from(p.width);
    let file_end = reg.file.zero_register().unwrap_or(reg.file.physical_count());
    if !p.num.is_multiple_of(alignment(p.width)) || end > file_end {
        return Err(format!("{reg} got {p}, misaligned or outside {:?}", reg.file));
    }
    if (p.num..end).any(|n| ABI.is_reserved(reg.file, n)) {
        return Err(format!("{reg} got {p}, which covers a reserved register"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::RegFile;

    const CODE: &str = "
.func f {
bb0:
    %r0 = S2R SR_TID.X
    %r1 = IADD3 %r0, 0x1, RZ
    %r2.64 = IMAD.WIDE %r1, 0x4, %r4.64
    %r3 = MOV 0x0
    R6 = MOV %r3
    STG.E [%r2.64], %r0
    RET.REL.NODEC R20.64
}
";

    fn check(pairs: &[(u32, u8, u32)]) -> Result<(), String> {
        let func = ori_ir::text::parse_function(CODE).unwrap();
        let pairs: Vec<(Reg, u32)> = pairs.iter().map(|&(v, w, p)| (Reg::virt(RegFile::R, v).wide(w), p)).collect();
        check_allocation(&func, &Allocation::from_pairs(&func, &pairs))
    }

    #[test]
    fn accepts_a_correct_allocation() {
        assert_eq!(check(&[(0, 1, 0), (1, 1, 2), (2, 2, 2), (3, 1, 4), (4, 2, 4)]), Ok(()));
    }

    #[test]
    fn rejects_values_live_together_in_one_register() {
        let err = check(&[(0, 1, 0), (1, 1, 0), (2, 2, 2), (3, 1, 4), (4, 2, 4)]).unwrap_err();
        assert!(err.contains("%r0 and %r1 share unit 0") || err.contains("%r1 and %r0 share unit 0"), "{err}");
    }

    #[test]
    fn rejects_a_dead_result_over_a_live_value() {
        let err = check(&[(0, 1, 0), (1, 1, 2), (2, 2, 2), (3, 1, 0), (4, 2, 4)]).unwrap_err();
        assert!(err.contains("%r0 and %r3 share unit 0") || err.contains("%r3 and %r0 share unit 0"), "{err}");
    }

    #[test]
    fn rejects_physical_registers_of_the_code() {
        let err = check(&[(0, 1, 20), (1, 1, 2), (2, 2, 2), (3, 1, 4), (4, 2, 4)]).unwrap_err();
        assert!(err.contains("physical register of the code"), "{err}");
    }

    #[test]
    fn rejects_misaligned_reserved_and_missing_registers() {
        assert!(check(&[(0, 1, 0), (1, 1, 2), (2, 2, 3), (3, 1, 4), (4, 2, 4)]).unwrap_err().contains("misaligned"));
        assert!(check(&[(0, 1, 1), (1, 1, 2), (2, 2, 2), (3, 1, 4), (4, 2, 4)]).unwrap_err().contains("reserved"));
        assert!(check(&[(0, 1, 0), (1, 1, 2), (2, 2, 2), (4, 2, 4)]).unwrap_err().contains("has no register"));
    }
}
