//! `.debug_frame` FDE rows that follow a function's stack frame, as NVIDIA's
//! ptxas 13.5 writes them (sm_90, measured on recursion, device_calls,
//! local_array, printf_kernel, whole program and `-c`). A row sits at the
//! offset just after the instruction that changes the rule (code alignment
//! 4, so `DW_CFA_advance_loc4` counts words):
//!
//! * a kernel with a frame: `DW_CFA_def_cfa R1, F` after `R1 = R1 - F`
//!   (local_array: `VIADD R1, R1, -0x130` at 0x40, the row at 0x50);
//! * a device function without a frame: one empty row at its `RET`
//!   (device_calls' many_args: 0x150), after `DW_CFA_def_cfa R1, 0` at 0
//!   in `-c` objects (after the opening `BMOV.32.CLEAR` saves of
//!   convergence barriers, if any: multi_entry's smoothstep);
//! * copies of the return address into other registers and back
//!   (`MOV R32, R20`): `DW_CFA_register R20, R32` (source, destination);
//! * a device function with a frame F: `DW_CFA_def_cfa R1, F` after the
//!   frame is made; `DW_CFA_offset_extended Rk, (F - o) / 4` after each
//!   `STL [R1+o], Rk` that saves a register (restored later from the same
//!   slot); after its restore `LDL Rk, [R1+o]`, `DW_CFA_restore_extended Rk`
//!   for the return address R20/R21 and `DW_CFA_expression Rk, DW_OP_bregx
//!   R1, o - F` for the others; `DW_CFA_def_cfa R1, 0` after `R1 = R1 + F`
//!   (recursion's fib: rows at 0x10, 0x20 ... 0x180).
//!
//! Registers are numbered as ptxas's DWARF numbers them: the register
//! number with the class bits 0x28 << 21.

use ori_ir::{Imm, Inst, Opcode, OperandKind, Reg, RegFile};

/// `DW_CFA_advance_loc4`.
const ADVANCE_LOC4: u8 = 0x04;
/// `DW_CFA_offset_extended`.
const OFFSET_EXTENDED: u8 = 0x05;
/// `DW_CFA_restore_extended`.
const RESTORE_EXTENDED: u8 = 0x06;
/// `DW_CFA_register`.
const REGISTER: u8 = 0x09;
/// `DW_CFA_def_cfa`.
const DEF_CFA: u8 = 0x0c;
/// `DW_CFA_expression`.
const EXPRESSION: u8 = 0x10;
/// `DW_OP_bregx`.
const OP_BREGX: u8 = 0x92;
/// The class bits of a general register's DWARF number.
const R_CLASS: u32 = 0x28 << 21;
/// The stack pointer.
const SP: u32 = 1;
/// The return-address registers, which get `DW_CFA_restore_extended`.
const RETURN_ADDRESS: [u32; 2] = [20, 21];

/// `n` as unsigned LEB128.
fn uleb(out: &mut Vec<u8>, mut n: u64) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// `n` as signed LEB128.
fn sleb(out: &mut Vec<u8>, mut n: i64) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        let done = (n == 0 && byte & 0x40 == 0) || (n == -1 && byte & 0x40 != 0);
        out.push(if done { byte } else { byte | 0x80 });
        if done {
            return;
        }
    }
}

/// The DWARF number of general register `n`.
fn reg(out: &mut Vec<u8>, n: u32) {
    uleb(out, u64::from(R_CLASS | n));
}

/// `DW_CFA_def_cfa R1, offset`.
fn def_cfa(offset: u32) -> Vec<u8> {
    let mut out = vec![DEF_CFA];
    reg(&mut out, SP);
    uleb(&mut out, offset.into());
    out
}

/// The frame change `R1 = R1 + delta` (`VIADD`/`IADD3`/`IADD`), if `inst` is one.
fn stack_change(inst: &Inst) -> Option<i32> {
    let sp = Reg::phys(RegFile::R, SP);
    if !matches!(inst.op, Opcode::VIADD | Opcode::IADD3 | Opcode::IADD)
        || inst.defs.first().and_then(|d| d.as_reg()) != Some(sp)
    {
        return None;
    }
    match inst.uses.as_slice() {
        [a, b, rest @ ..] if a.as_reg() == Some(sp) && rest.iter().all(|r| r.as_reg() == Some(Reg::RZ)) => {
            match b.kind {
                // Immediates may be held as unsigned 32-bit words.
                OperandKind::Imm(Imm::Int(v)) => Some(v as i32),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `[R1+o]` of a local access.
fn stack_slot(op: &ori_ir::Operand) -> Option<i64> {
    match &op.kind {
        OperandKind::Mem(a) if a.base == Some(Reg::phys(RegFile::R, SP)) && a.ubase.is_none() && a.desc.is_none() => {
            Some(a.offset)
        }
        _ => None,
    }
}

/// A 32-bit physical general register.
fn word(r: Reg) -> Option<u32> {
    (r.file == RegFile::R && !r.is_virtual && r.width == 1).then_some(r.num)
}

/// `STL [R1+o], Rk` as (k, o).
fn save(inst: &Inst) -> Option<(u32, i64)> {
    match inst.uses.as_slice() {
        [addr, value] if inst.op == Opcode::STL && inst.mods.is_empty() => {
            Some((word(value.as_reg()?)?, stack_slot(addr)?))
        }
        _ => None,
    }
}

/// `LDL Rk, [R1+o]` as (k, o).
fn restore(inst: &Inst) -> Option<(u32, i64)> {
    match (inst.defs.as_slice(), inst.uses.as_slice()) {
        ([d], [addr]) if inst.op == Opcode::LDL && inst.mods.is_empty() => {
            Some((word(d.as_reg()?)?, stack_slot(addr)?))
        }
        _ => None,
    }
}

/// Rows at byte offsets, written as advances from 0.
fn encode(rows: &[(u32, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut at = 0;
    for (row, rules) in rows {
        // Rules at the current location need no advance (`-c` leaves start
        // with `DW_CFA_def_cfa R1, 0` at 0).
        if *row != at || rules.is_empty() {
            out.push(ADVANCE_LOC4);
            out.extend_from_slice(&((row - at) / 4).to_le_bytes());
        }
        out.extend_from_slice(rules);
        at = *row;
    }
    out
}

/// The offset just after a kernel's frame is made and the frame's size,
/// when it has one.
pub(super) fn kernel_frame_row<'a>(insts: impl IntoIterator<Item = &'a Inst>) -> Option<(u32, Vec<u8>)> {
    insts.into_iter().enumerate().find_map(|(i, inst)| {
        let delta = stack_change(inst).filter(|&d| d < 0)?;
        Some((16 * (i as u32 + 1), def_cfa(delta.unsigned_abs())))
    })
}

/// `MOV d, s` / `IMAD.MOV.U32 d, RZ, RZ, s` between 32-bit registers, as
/// (d, s).
fn copy(inst: &Inst) -> Option<(u32, u32)> {
    let d = word(inst.defs.first()?.as_reg()?)?;
    let s = match (inst.op, inst.uses.as_slice()) {
        (Opcode::MOV, [s]) => s.as_reg()?,
        (Opcode::IMAD, [a, b, s])
            if inst.has_mod("MOV") && a.as_reg() == Some(Reg::RZ) && b.as_reg() == Some(Reg::RZ) =>
        {
            s.as_reg()?
        }
        _ => return None,
    };
    Some((d, word(s)?))
}

/// The FDE instructions of a device function whose code is `insts`, in
/// order from its first instruction. `-c` objects (`relocatable`) start a
/// function without a frame with `DW_CFA_def_cfa R1, 0` at 0; whole-program
/// clones do not. Copies of the return address (`MOV R32, R20` around a
/// call; multi_entry's smoothstep) are `DW_CFA_register s, d` rows.
pub(super) fn device_function_rows(insts: &[&Inst], relocatable: bool) -> Vec<u8> {
    let frame = insts.iter().find_map(|i| stack_change(i).filter(|&d| d < 0)).map_or(0, i32::unsigned_abs);
    let saves: Vec<(u32, i64)> = insts.iter().filter_map(|i| save(i)).collect();
    let restores: Vec<(u32, i64)> = insts.iter().filter_map(|i| restore(i)).collect();
    let mut rows = Vec::new();
    if frame == 0 && relocatable {
        // After the saves of convergence-barrier registers that open the
        // function (`BMOV.32.CLEAR R34, B6`, smoothstep), else at 0.
        let saves = insts.iter().take_while(|i| i.op == Opcode::BMOV && i.has_mod("CLEAR")).count();
        rows.push((16 * saves as u32, def_cfa(0)));
    }
    // Registers holding a word of the return address.
    let mut holds: Vec<u32> = RETURN_ADDRESS.to_vec();
    for (k, inst) in insts.iter().enumerate() {
        let after = 16 * (k as u32 + 1);
        if let Some(delta) = stack_change(inst) {
            rows.push((after, def_cfa(if delta < 0 { frame } else { 0 })));
        } else if let Some((r, o)) = save(inst).filter(|s| restores.contains(s)) {
            let mut rule = vec![OFFSET_EXTENDED];
            reg(&mut rule, r);
            uleb(&mut rule, ((i64::from(frame) - o) / 4) as u64);
            rows.push((after, rule));
        } else if let Some((r, o)) = restore(inst).filter(|s| saves.contains(s)) {
            let mut rule = vec![if RETURN_ADDRESS.contains(&r) { RESTORE_EXTENDED } else { EXPRESSION }];
            reg(&mut rule, r);
            if !RETURN_ADDRESS.contains(&r) {
                let mut expr = vec![OP_BREGX];
                reg(&mut expr, SP);
                sleb(&mut expr, o - i64::from(frame));
                uleb(&mut rule, expr.len() as u64);
                rule.extend(expr);
            }
            rows.push((after, rule));
            holds.retain(|&h| h != r);
            if RETURN_ADDRESS.contains(&r) {
                holds.push(r);
            }
            continue;
        } else if let Some((d, s)) = copy(inst).filter(|&(d, s)| d != s && holds.contains(&s)) {
            let mut rule = vec![REGISTER];
            reg(&mut rule, s);
            reg(&mut rule, d);
            rows.push((after, rule));
            holds.push(d);
            continue;
        }
        let written: Vec<u32> = inst.written_regs().filter_map(word).collect();
        holds.retain(|h| !written.contains(h));
    }
    // An empty row at the last RET unless a rule already sits there.
    if let Some(ret) = insts.iter().rposition(|i| i.op == Opcode::RET).map(|r| 16 * r as u32)
        && rows.last().is_none_or(|r| r.0 < ret)
    {
        rows.push((ret, Vec::new()));
    }
    encode(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `.debug_frame` FDEs as (address range, instructions with their
    /// padding), in section order.
    fn fdes(bytes: &[u8]) -> Vec<(u64, Vec<u8>)> {
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        let mut out = Vec::new();
        let mut pos = 0;
        while pos + 12 <= bytes.len() {
            let end = pos + 12 + u64_at(pos + 4) as usize;
            if u64_at(pos + 12) != u64::MAX {
                out.push((u64_at(pos + 28), bytes[pos + 36..end].to_vec()));
            }
            pos = end;
        }
        out
    }

    /// The rows we derive from NVIDIA's own code equal NVIDIA's rows, for
    /// every device function of its `-c` objects of recursion (frames,
    /// saves, restores) and device_calls (leaves without frames).
    #[test]
    fn rows_of_nvidias_code_are_nvidias() {
        let Some(oracle) = nv_oracle::Oracle::for_test("rows_of_nvidias_code_are_nvidias") else { return };
        let dir = std::env::temp_dir().join(format!("frame-rows-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut checked = 0;
        for file in ["recursion", "device_calls", "multi_entry"] {
            let ptx = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("../../../shared/corpus/kernels/{file}.sm90.ptx"));
            let obj = dir.join(format!("{file}.o"));
            let ok = oracle.run_ptxas(&["-c", "-arch=sm_90", ptx.to_str().unwrap(), "-o", obj.to_str().unwrap()], &dir);
            assert!(ok.unwrap().status.success());
            let cubin = elfw::read(&std::fs::read(&obj).unwrap()).unwrap();
            let frame = cubin.section(".debug_frame").and_then(|(_, s)| s.bytes()).unwrap();
            let texts = cubin.sections.iter().filter(|s| s.name.starts_with(".text."));
            for (text, (range, want)) in texts.zip(fdes(frame)) {
                let code = text.bytes().unwrap();
                assert_eq!(code.len() as u64, range, "{}", text.name);
                let func = ori_interp::decode_code(mercury_encode::Sm::Sm90, code, &text.name).unwrap();
                let insts: Vec<&Inst> = func.insts_in_order().map(|(_, _, i)| i).collect();
                // Kernels, and ptxas's own library routines (their own conventions).
                if insts.iter().any(|i| i.op == Opcode::EXIT) || text.name.contains("__cuda") {
                    continue;
                }
                // NVIDIA's rows, then DW_CFA_nop padding.
                let ours = device_function_rows(&insts, true);
                let padding = want.get(ours.len()..).unwrap_or(&[1]);
                assert!(
                    want.starts_with(&ours) && padding.iter().all(|&b| b == 0),
                    "{file} {}: {ours:x?} {want:x?}",
                    text.name
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 10, "device functions checked");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Whole programs: the rows of the cloned callees of recursion (frames,
    /// saves) and device_calls (`op_*` leaves; its other clones follow
    /// NVIDIA's private per-call-site conventions), and the kernels' rows of
    /// recursion, device_calls and local_array (frames), from NVIDIA's code.
    #[test]
    fn whole_program_rows_of_nvidias_code_are_nvidias() {
        let Some(oracle) = nv_oracle::Oracle::for_test("whole_program_rows_of_nvidias_code_are_nvidias") else {
            return;
        };
        let dir = std::env::temp_dir().join(format!("frame-rows-whole-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (mut clones, mut kernels) = (0, 0);
        for file in ["recursion", "device_calls", "local_array"] {
            let ptx = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("../../../shared/corpus/kernels/{file}.sm90.ptx"));
            let out = dir.join(format!("{file}.cubin"));
            let ok = oracle.run_ptxas(&["-arch=sm_90", ptx.to_str().unwrap(), "-o", out.to_str().unwrap()], &dir);
            assert!(ok.unwrap().status.success());
            let cubin = elfw::read(&std::fs::read(&out).unwrap()).unwrap();
            let frame = cubin.section(".debug_frame").and_then(|(_, s)| s.bytes()).unwrap();
            let (_, text) = cubin.section(&format!(".text.{file}")).unwrap();
            let code = text.bytes().unwrap();
            let func = ori_interp::decode_code(mercury_encode::Sm::Sm90, code, file).unwrap();
            let insts: Vec<&Inst> = func.insts_in_order().map(|(_, _, i)| i).collect();
            let mut fdes = fdes(frame).into_iter();
            let (_, want) = fdes.next().unwrap();
            let (ours, _) = super::super::kernel_fde(&func, false);
            assert!(
                want.starts_with(&ours) && want[ours.len()..].iter().all(|&b| b == 0),
                "{file}: {ours:x?} {want:x?}"
            );
            kernels += 1;
            let mut subs: Vec<_> = cubin.symbols().iter().filter(|y| y.name.starts_with('$')).cloned().collect();
            subs.sort_by_key(|y| y.value);
            // The FDEs follow ptxas's clone order, not addresses: the first
            // unused one of the clone's size (the sizes tell them apart here).
            let mut fdes: Vec<_> = fdes.collect();
            for sym in &subs {
                let k = fdes.iter().position(|f| f.0 == sym.size).unwrap_or_else(|| panic!("no FDE for {}", sym.name));
                let (_, want) = fdes.remove(k);
                if file == "device_calls" && !sym.name.contains("op_") {
                    continue;
                }
                let at = (sym.value / 16) as usize;
                let ours = device_function_rows(&insts[at..at + (sym.size / 16) as usize], false);
                let padding = want.get(ours.len()..).unwrap_or(&[1]);
                assert!(
                    want.starts_with(&ours) && padding.iter().all(|&b| b == 0),
                    "{}: {ours:x?} {want:x?}",
                    sym.name
                );
                clones += 1;
            }
        }
        assert_eq!((kernels, clones), (3, 5), "kernels and clones checked");
        std::fs::remove_dir_all(&dir).ok();
    }
}
