//! Spill code: a virtual register that gets no register lives in a slot of
//! the local-memory stack frame, addressed from the stack pointer as
//! NVIDIA's ptxas does (`STL [R1+0x8], R5` / `LDL R5, [R1+0x8]`,
//! oracle-facts, seed-digest §11).
//!
//! Every instruction that reads the register is preceded by a load into a
//! fresh temporary, and every instruction that writes it is followed by a
//! store from the temporary; the temporaries live only around their
//! instruction and are never spilled again. A guarded write, or a write of
//! part of a tuple, first loads the old value, so that the store after it
//! keeps what the instruction did not replace. Slots come after what the frame already holds
//! (`FunctionAttrs::frame_bytes`, e.g. local arrays), each aligned to its
//! size.

use cfg::VReg;
use ori_ir::{Address, Function, Inst, Modifier, Opcode, Operand, OperandKind, Reg, RegFile};

use crate::rewrite::map_regs;
use crate::units::STACK_POINTER;

/// Byte counts of spill code, as ptxas's `-v` reports them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SpillStats {
    /// Virtual registers spilled.
    pub spilled: u32,
    /// Bytes stored by spill stores (summed over the instructions).
    pub store_bytes: u32,
    /// Bytes loaded by spill loads.
    pub load_bytes: u32,
}

/// True when the spiller can put a value of `file` and `width` in memory:
/// general registers of one, two or four words (there is no 96-bit local
/// access to reload a triple without touching a fourth register).
pub(crate) fn spillable(file: RegFile, width: u8) -> bool {
    file == RegFile::R && matches!(width, 1 | 2 | 4)
}

/// Moves `spilled` (virtual registers with their widths) to the frame,
/// returns the temporaries created.
pub(crate) fn spill(func: &mut Function, spilled: &[(VReg, u8)], stats: &mut SpillStats) -> Vec<VReg> {
    let mut order: Vec<(VReg, u8)> = spilled.to_vec();
    // Widest first, so that alignment wastes nothing after the first slot.
    order.sort_by_key(|&(v, w)| (std::cmp::Reverse(w), v));
    let mut slots: Vec<(VReg, u8, i64)> = Vec::with_capacity(order.len());
    let mut frame = func.attrs.frame_bytes;
    for &(v, width) in &order {
        let size = 4 * u32::from(width);
        let offset = frame.next_multiple_of(size);
        slots.push((v, width, i64::from(offset)));
        frame = offset + size;
    }
    let align = order.first().map_or(8, |&(_, w)| (4 * u32::from(w)).max(8));
    func.attrs.frame_bytes = frame.next_multiple_of(align);
    stats.spilled += spilled.len() as u32;
    let slot_of = |v: VReg| slots.iter().find(|s| s.0 == v).map(|&(_, w, off)| (w, off));

    let mut temps = Vec::new();
    for bi in 0..func.layout.len() {
        let block = func.layout[bi];
        let old = std::mem::take(&mut func.blocks[block].insts);
        let mut new = Vec::with_capacity(old.len());
        for id in old {
            let inst = &func.insts[id];
            let touched = touched(inst, |v| slot_of(v).is_some());
            let killed: Vec<VReg> = inst.killed_regs().filter_map(VReg::of).collect();
            let mut after = Vec::new();
            let mut renames = Vec::new();
            for (v, read, written) in touched {
                let (width, offset) = slot_of(v).expect("filtered above");
                let temp = func.new_vreg(RegFile::R, width);
                temps.push(VReg::of(temp).expect("a new virtual register"));
                renames.push((v, temp));
                let addr = Operand::from(OperandKind::Mem(Address {
                    base: Some(STACK_POINTER),
                    offset,
                    ..Address::default()
                }));
                let mods = width_modifier(width);
                // A write that may leave part of the value alone (guarded,
                // or of one part) stores what it kept too, so it loads it.
                if read || (written && !killed.contains(&v)) {
                    let mut load = Inst::new(Opcode::LDL, vec![Operand::reg(temp)], vec![addr.clone()]);
                    load.mods = mods.clone();
                    new.push(func.insts.alloc(load));
                    stats.load_bytes += 4 * u32::from(width);
                }
                if written {
                    let mut store = Inst::new(Opcode::STL, vec![], vec![addr, Operand::reg(temp)]);
                    store.mods = mods;
                    after.push(func.insts.alloc(store));
                    stats.store_bytes += 4 * u32::from(width);
                }
            }
            if !renames.is_empty() {
                map_regs(&mut func.insts[id], |r| {
                    let renamed = renames.iter().find(|(v, _)| r.is_virtual && r.file == v.file && r.num == v.num);
                    // A part of the spilled tuple is the same part of the temporary.
                    renamed.map_or(r, |t| Reg { num: t.1.num, ..r })
                });
            }
            new.push(id);
            new.extend(after);
        }
        func.blocks[block].insts = new;
    }
    temps
}

/// The registers of `inst` that `wanted` selects, each once, with whether
/// the instruction reads it (guard included) and whether it writes it.
fn touched(inst: &Inst, wanted: impl Fn(VReg) -> bool) -> Vec<(VReg, bool, bool)> {
    let mut touched: Vec<(VReg, bool, bool)> = Vec::new();
    for (reg, is_def) in inst.read_regs().map(|r| (r, false)).chain(inst.written_regs().map(|r| (r, true))) {
        let Some(v) = VReg::of(reg).filter(|&v| wanted(v)) else { continue };
        match touched.iter_mut().find(|t| t.0 == v) {
            Some(t) => (t.1, t.2) = (t.1 || !is_def, t.2 || is_def),
            None => touched.push((v, !is_def, is_def)),
        }
    }
    touched
}

/// Moves the predicates `spilled` to general registers, returns the
/// temporaries created (predicates, never spilled again).
///
/// A spilled predicate's home is a fresh virtual R register holding 1 or 0:
/// after every write `home = SEL RZ, 0x1, !t` (NVIDIA's idiom for a
/// predicate as an integer), before every read (and before a guarded
/// write, which must keep the old value when its guard is false) a fresh
/// `t, PT = ISETP.NE.U32.AND home, RZ, PT`. Predicates cost nothing in
/// memory this way, and the home is an ordinary register that a later
/// round may spill to the frame like any other.
pub(crate) fn spill_predicates(func: &mut Function, spilled: &[VReg]) -> Vec<VReg> {
    let homes: Vec<(VReg, Reg)> = spilled.iter().map(|&v| (v, func.new_vreg(RegFile::R, 1))).collect();
    let home_of = |v: VReg| homes.iter().find(|h| h.0 == v).map(|h| h.1);
    let mut temps = Vec::new();
    for bi in 0..func.layout.len() {
        let block = func.layout[bi];
        let old = std::mem::take(&mut func.blocks[block].insts);
        let mut new = Vec::with_capacity(old.len());
        for id in old {
            let inst = &func.insts[id];
            let touched = touched(inst, |v| home_of(v).is_some());
            let killed: Vec<VReg> = inst.killed_regs().filter_map(VReg::of).collect();
            let mut after = Vec::new();
            let mut renames = Vec::new();
            for (v, read, written) in touched {
                let home = home_of(v).expect("filtered above");
                let temp = func.new_vreg(v.file, 1);
                temps.push(VReg::of(temp).expect("a new virtual register"));
                renames.push((v, temp));
                if read || (written && !killed.contains(&v)) {
                    let mut load = Inst::new(
                        Opcode::ISETP,
                        vec![Operand::reg(temp), Operand::reg(Reg::PT)],
                        vec![Operand::reg(home), Operand::reg(Reg::RZ), Operand::reg(Reg::PT)],
                    );
                    load.mods = Modifier::list(&["NE", "U32", "AND"]);
                    new.push(func.insts.alloc(load));
                }
                if written {
                    let store = Inst::new(
                        Opcode::SEL,
                        vec![Operand::reg(home)],
                        vec![Operand::reg(Reg::RZ), Operand::int(1), Operand::reg(temp).inverted()],
                    );
                    after.push(func.insts.alloc(store));
                }
            }
            if !renames.is_empty() {
                map_regs(&mut func.insts[id], |r| {
                    let renamed = renames.iter().find(|(v, _)| r.is_virtual && r.file == v.file && r.num == v.num);
                    renamed.map_or(r, |t| t.1)
                });
            }
            new.push(id);
            new.extend(after);
        }
        func.blocks[block].insts = new;
    }
    temps
}

/// `.64`/`.128` for wide local accesses.
fn width_modifier(width: u8) -> Vec<Modifier> {
    match width {
        2 => Modifier::list(&["64"]),
        4 => Modifier::list(&["128"]),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::text::{parse_function, print_function};
    use pretty_assertions::assert_eq;

    #[test]
    fn loads_before_reads_stores_after_writes() {
        let mut func = parse_function(
            "
.entry k {
    .frame_bytes 4
bb0:
    %r0 = S2R SR_TID.X
    %r2.64 = IMAD.WIDE %r0, 0x4, %r4.64
    @%p0 %r0 = IADD3 %r0, 0x1, RZ
    STG.E [%r2.64], %r0
    EXIT
}
",
        )
        .unwrap();
        let mut stats = SpillStats::default();
        let temps = spill(
            &mut func,
            &[(VReg { file: RegFile::R, num: 0 }, 1), (VReg { file: RegFile::R, num: 2 }, 2)],
            &mut stats,
        );
        assert_eq!(temps.len(), 6);
        assert_eq!(
            print_function(&func),
            "\
.entry k {
    .frame_bytes 24
bb0:
    %r5 = S2R SR_TID.X
    STL [R1+0x10], %r5
    %r6 = LDL [R1+0x10]
    %r7.64 = IMAD.WIDE %r6, 0x4, %r4.64
    STL.64 [R1+0x8], %r7.64
    %r8 = LDL [R1+0x10]
    @%p0 %r8 = IADD3 %r8, 0x1, RZ
    STL [R1+0x10], %r8
    %r9.64 = LDL.64 [R1+0x8]
    %r10 = LDL [R1+0x10]
    STG.E [%r9.64], %r10
    EXIT
}
"
        );
        assert_eq!(stats, SpillStats { spilled: 2, store_bytes: 4 + 8 + 4, load_bytes: 4 + 4 + 8 + 4 });
    }

    #[test]
    fn a_plain_partial_write_keeps_the_rest_of_the_slot() {
        let mut func = parse_function(
            "
.entry k {
bb0:
    undef %r0:0 = S2R SR_TID.X
    %r0:1 = S2R SR_TID.Y
    STG.E.64 [%r4.64], %r0.64
    EXIT
}
",
        )
        .unwrap();
        let mut stats = SpillStats::default();
        spill(&mut func, &[(VReg { file: RegFile::R, num: 0 }, 2)], &mut stats);
        assert_eq!(
            print_function(&func),
            "\
.entry k {
    .frame_bytes 8
bb0:
    undef %r5:0 = S2R SR_TID.X
    STL.64 [R1], %r5.64
    %r6.64 = LDL.64 [R1]
    %r6:1 = S2R SR_TID.Y
    STL.64 [R1], %r6.64
    %r7.64 = LDL.64 [R1]
    STG.E.64 [%r4.64], %r7.64
    EXIT
}
"
        );
    }
    #[test]
    fn predicates_live_in_general_registers() {
        let mut func = parse_function(
            "
.entry k {
bb0:
    %r0 = S2R SR_TID.X
    %p0, PT = ISETP.GT.AND %r0, 0x1, PT
    @%p1 %p0, PT = ISETP.GT.AND %r0, 0x2, PT
    %p2, PT = PLOP3.LUT %p0, PT, PT, 0x80, 0x0
    @!%p0 STG.E [%r2.64], %r0
    EXIT
}
",
        )
        .unwrap();
        let temps = spill_predicates(&mut func, &[VReg { file: RegFile::P, num: 0 }]);
        assert_eq!(temps.len(), 4);
        assert_eq!(
            print_function(&func),
            "\
.entry k {
bb0:
    %r0 = S2R SR_TID.X
    %p3, PT = ISETP.GT.AND %r0, 0x1, PT
    %r3 = SEL RZ, 0x1, !%p3
    %p4, PT = ISETP.NE.U32.AND %r3, RZ, PT
    @%p1 %p4, PT = ISETP.GT.AND %r0, 0x2, PT
    %r3 = SEL RZ, 0x1, !%p4
    %p5, PT = ISETP.NE.U32.AND %r3, RZ, PT
    %p2, PT = PLOP3.LUT %p5, PT, PT, 0x80, 0x0
    %p6, PT = ISETP.NE.U32.AND %r3, RZ, PT
    @!%p6 STG.E [%r2.64], %r0
    EXIT
}
"
        );
    }
}
