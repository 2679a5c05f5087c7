//! The mbarrier records of `.nv.info.<fn>` (sm_90+):
//! EIATTR_MBARRIER_INSTR_OFFSETS lists the instructions that operate on an
//! mbarrier, EIATTR_NUM_MBARRIERS counts the initialisations.
//!
//! Each entry is four words, as NVIDIA's ptxas 13.5 writes them (probes
//! with constant and per-thread addresses, offsets 0, 8 and 16, and
//! tma_bulk_copy; cuobjdump prints them as `0x130 : Instruction Kind :
//! MBARRIER_TRY_WAIT_PARITY (R0 + UR63 + 8) Stride : MBARRIER_STRIDE_X4`):
//! the instruction's byte offset, the address's register (`RZ` = 0xff when
//! it has none), the address's immediate offset, and the bytes `[kind,
//! stride, uniform register (URZ = 0x3f), 0]`. NUM_MBARRIERS is the number
//! of `mbarrier.init` instructions, not of variables (three inits of one
//! array give 3).

use ori_ir::{Function, Inst, Opcode, OperandKind, Reg};

/// The instructions listed and their kinds: (modifiers of `SYNCS`, kind).
/// NVIDIA's kinds: init 0, arrive 1, arrive_drop 3, test_wait 5,
/// test_wait.parity 6, inval 8, try_wait.parity 0xa; `arrive.expect_tx`
/// (`SYNCS.ARRIVE.TRANS64`) is not listed. The lowering emits these two
/// (ptx-lower ops/mbarrier.rs).
const KINDS: &[(&[&str], u8)] = &[(&["EXCH", "64"], INIT), (&["PHASECHK", "TRANS64", "TRYWAIT"], 0xa)];

/// The kind of `mbarrier.init`.
const INIT: u8 = 0;

/// The stride byte: MBARRIER_STRIDE_X4, the only value NVIDIA's code has
/// shown.
const STRIDE_X4: u32 = 1;

/// The EIATTR_MBARRIER_INSTR_OFFSETS words of `func`'s final code and its
/// EIATTR_NUM_MBARRIERS (`None` without any `mbarrier.init`).
pub(super) fn records(func: &Function) -> (Vec<u32>, Option<u16>) {
    let mut words = Vec::new();
    let mut inits = 0u16;
    for (index, (_, _, inst)) in func.insts_in_order().enumerate() {
        let Some(kind) = kind(inst) else { continue };
        let Some(OperandKind::Mem(addr)) = inst.uses.first().map(|u| &u.kind) else { continue };
        let reg = |r: Option<Reg>, zero: Reg| r.unwrap_or(zero).num;
        words.extend([
            16 * index as u32,
            reg(addr.base, Reg::RZ),
            addr.offset as u32,
            u32::from(kind) | STRIDE_X4 << 8 | reg(addr.ubase, Reg::URZ) << 16,
        ]);
        inits += u16::from(kind == INIT);
    }
    (words, (inits > 0).then_some(inits))
}

/// The mbarrier kind of `inst`, if it operates on an mbarrier.
fn kind(inst: &Inst) -> Option<u8> {
    if inst.op != Opcode::SYNCS {
        return None;
    }
    let names: Vec<&str> = inst.mods.iter().map(|m| m.name()).collect();
    KINDS.iter().find(|(mods, _)| names == *mods).map(|&(_, kind)| kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::{Address, Modifier, Operand, RegFile};

    fn syncs(mods: &[&str], addr: Address) -> Inst {
        let mut inst = Inst::new(Opcode::SYNCS, vec![Reg::URZ.into()], vec![OperandKind::Mem(addr).into()]);
        inst.mods = mods.iter().map(|m| Modifier::from_name(m).unwrap()).collect();
        inst
    }

    /// NVIDIA's words for its probe: `SYNCS.EXCH.64 URZ, [UR6+0x8]` at
    /// 0x100, `SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R0+URZ+0x8]` at 0x130
    /// (an arrive between them, not listed).
    #[test]
    fn probe_words() {
        let mut f = Function::new("mb", ori_ir::FunctionKind::Entry);
        let b = f.add_block();
        let ur6 = Reg::phys(RegFile::UR, 6);
        let r0 = Reg::phys(RegFile::R, 0);
        for _ in 0..16 {
            f.push_inst(b, Inst::new(Opcode::NOP, vec![], vec![]));
        }
        f.push_inst(b, syncs(&["EXCH", "64"], Address { ubase: Some(ur6), offset: 8, ..Address::default() }));
        f.push_inst(b, Inst::new(Opcode::NOP, vec![], vec![]));
        f.push_inst(b, syncs(&["ARRIVE", "TRANS64"], Address { ubase: Some(ur6), offset: 8, ..Address::default() }));
        let wait = Address { base: Some(r0), ubase: Some(Reg::URZ), offset: 8, ..Address::default() };
        let mut wait = syncs(&["PHASECHK", "TRANS64", "TRYWAIT"], wait);
        wait.defs = vec![Operand::reg(Reg::phys(RegFile::P, 0))];
        f.push_inst(b, wait);
        let (words, count) = records(&f);
        assert_eq!(words, [0x100, 0xff, 0x8, 0x60100, 0x130, 0x0, 0x8, 0x3f010a]);
        assert_eq!(count, Some(1));
    }
}
