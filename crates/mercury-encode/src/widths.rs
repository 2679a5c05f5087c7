//! Register tuple widths that nvdisasm's text leaves implicit.
//!
//! `IMAD.WIDE R2, R4, R6, R8` writes R2:R3 and reads R8:R9, `LDG.E.64 R4`
//! loads into R4:R5, `DADD R2, R4, R6` works on pairs: Ori carries these
//! as `R2.64`. The printer does not show widths (nvdisasm does not), so
//! they only matter to the phases reading the decoded code.

use ori_ir::{Inst, Opcode, Operand, OperandKind, RegFile};

use crate::Sm;

/// True for the accesses whose 64-bit address nvdisasm prints as one
/// register: `ATOMG.E.CAS PT, R3, [R6], R12, R13` and generic `LD.E R6,
/// [R6]` / `ST.E [R2], R5` without a descriptor, generic `ATOM.E.CAS` (cluster_dsmem's
/// distributed shared memory load); the address is the pair R6:R7 as in
/// every `.E` access. sm_75 listings print every `.E` address that way
/// (`LDG.E.SYS R4, [R4]`, `RED.E.ADD.STRONG.GPU [R2], R5`).
pub fn implicit_pair_address(sm: Sm, inst: &Inst) -> bool {
    use Opcode::*;
    match inst.op {
        LDG | STG | ATOMG | ATOM | RED | LD | ST if sm == Sm::Sm75 => inst.has_mod("E"),
        ATOMG | ATOM => inst.has_mod("CAS"),
        LD | ST => inst.has_mod("E"),
        // `CCTL.E.PF1 [R2]`, `QSPC.E.G P1, RZ, [R2]` (tables/sweep15_probed.rs).
        CCTL | QSPC => inst.has_mod("E"),
        _ => false,
    }
}

/// True when the address skeleton `skeleton` of `inst` (`[{R}.64+{X}]`,
/// as Ori's operand reads) prints without its `.64`: the
/// [`implicit_pair_address`]es, but for those with a uniform register
/// (sm_75's `LDG.E.SYS R0, [R2.64+UR4]`, sm_80's `LD.E.U8 R203,
/// [R117.64+UR44+-0x7c49ad]`: every table's form of such an address
/// shows the pair).
pub fn hides_pair(sm: Sm, inst: &Inst, skeleton: &str) -> bool {
    implicit_pair_address(sm, inst) && skeleton.starts_with("[{R}.64") && !skeleton.contains("+{U}")
}

/// Widens the base of an [`implicit_pair_address`] without a descriptor
/// (not a zero-extended one, `[R8.U32+UR4]`), and its uniform base: a
/// 64-bit address's uniform part is a pair (sm_75's `[UR4]`,
/// `[R2.64+UR8]`, loaded by `ULDC.64`).
fn widen_address(sm: Sm, inst: &mut Inst) {
    if !implicit_pair_address(sm, inst) {
        return;
    }
    let first = inst.uses.iter_mut().find(|u| matches!(u.kind, OperandKind::Mem(_)));
    if let Some(OperandKind::Mem(addr)) = first.map(|u| &mut u.kind)
        && addr.desc.is_none()
    {
        if let Some(base) = addr.base.as_mut().filter(|b| b.file == RegFile::R && !addr.base_u32) {
            *base = base.wide(2);
        }
        if let Some(ubase) = addr.ubase.as_mut().filter(|u| !u.is_zero()) {
            *ubase = ubase.wide(2);
        }
    }
}

/// Gives the register operands of a decoded instruction their widths.
pub fn apply(sm: Sm, inst: &mut Inst) {
    let size = |inst: &Inst| {
        if inst.has_mod("128") {
            4
        } else if inst.has_mod("64") {
            2
        } else {
            1
        }
    };
    use Opcode::*;
    match inst.op {
        LDG | LDS | LDL | LD | LDC | ULDC | LDCU => {
            let w = size(inst);
            widen(inst.defs.iter_mut().take(1), w);
            widen_address(sm, inst);
        }
        STG | STS | STL | ST => {
            let w = size(inst);
            widen(inst.uses.iter_mut().skip(1), w);
            widen_address(sm, inst);
        }
        ATOMG | ATOMS | ATOM | RED | REDG => {
            // `.S64` (64-bit min/max) and `.F64.RN` work on pairs too.
            let w = if inst.has_mod("S64") || inst.has_mod("F64") { 2 } else { size(inst) };
            widen(inst.defs.iter_mut().filter(|d| !is_pred(d)), w);
            widen(inst.uses.iter_mut().skip(1), w);
            widen_address(sm, inst);
        }
        IMAD | UIMAD if inst.has_mod("WIDE") => {
            widen(inst.defs.iter_mut().take(1), 2);
            widen(inst.uses.iter_mut().skip(2).take(1), 2);
        }
        // Blackwell's 64-bit adds and moves work on pairs (carry-outs are
        // predicates).
        IADD | IADD3 | UIADD3 | MOV | UMOV | SEL if inst.has_mod("64") => {
            widen(inst.defs.iter_mut().filter(|d| !is_pred(d)), 2);
            widen(inst.uses.iter_mut().filter(|u| !is_pred(u)), 2);
        }
        // sm_120's 64-bit minimum and maximum (`IMNMX.U64 PT, PT, R8, R4,
        // R6, !PT, !PT`).
        IMNMX | VIMNMX if inst.has_mod("U64") || inst.has_mod("S64") => {
            widen(inst.defs.iter_mut().filter(|d| !is_pred(d)), 2);
            widen(inst.uses.iter_mut().filter(|u| !is_pred(u)), 2);
        }
        // sm_120's 64-bit comparisons (`ISETP.GE.U64.AND P0, PT, R4, R6, PT`).
        ISETP | UISETP if inst.has_mod("U64") || inst.has_mod("S64") => {
            widen(inst.uses.iter_mut().filter(|u| !is_pred(u)), 2);
        }
        DADD | DMUL | DFMA => {
            widen(inst.defs.iter_mut(), 2);
            widen(inst.uses.iter_mut(), 2);
        }
        // A packed f32 source read for both words (`-R2.F32`) is one
        // register.
        FADD2 | FMUL2 | FFMA2 => {
            widen(inst.defs.iter_mut(), 2);
            widen(inst.uses.iter_mut().filter(|u| u.flags.halves != Some(ori_ir::Halves::F32)), 2);
        }
        DSETP => widen(inst.uses.iter_mut(), 2),
        CS2R if !inst.has_mod("32") => widen(inst.defs.iter_mut(), 2),
        F2F | F2I | I2F | FRND => {
            let (dst, src) = conversion_widths(inst);
            widen(inst.defs.iter_mut().take(1), dst);
            widen(inst.uses.iter_mut().take(1), src);
        }
        // sm_90 uniform pairs printed as one register: the mbarrier word
        // `SYNCS.EXCH.64` writes, `UBLKCP`'s global address and the
        // (shared destination, mbarrier) pair of `UBLKCP.S.G`.
        SYNCS if inst.has_mod("EXCH") && inst.has_mod("64") => widen(inst.uses.iter_mut().skip(1).take(1), 2),
        UBLKCP => {
            let pairs = if inst.mods.first().is_some_and(|m| m.name() == "S") { 2 } else { 1 };
            for op in inst.uses.iter_mut().take(pairs) {
                if let OperandKind::Mem(addr) = &mut op.kind {
                    addr.ubase = addr.ubase.map(|u| u.wide(2));
                }
            }
        }
        // `LDSM.16.M88.4 R4, [R3]` loads four registers, `STSM.16.M88.4
        // [R72], R24` stores four.
        LDSM | STSM => {
            let w = if inst.has_mod("4") {
                4
            } else if inst.has_mod("2") {
                2
            } else {
                1
            };
            match inst.op {
                LDSM => widen(inst.defs.iter_mut(), w),
                _ => widen(inst.uses.iter_mut().skip(1).take(1), w),
            }
        }
        // m16n8k16 (and m16n8k8 of tf32): A is four registers, B two;
        // m16n8k8 of 16-bit inputs: A two, B one. C and D are four
        // registers for F32 accumulators and two for F16 ones.
        HMMA => {
            let acc = if inst.has_mod("F32") { 4 } else { 2 };
            let (a, b) = if inst.has_mod("16816") || inst.has_mod("TF32") { (4, 2) } else { (2, 1) };
            widen(inst.defs.iter_mut(), acc);
            for (i, w) in [a, b, acc].into_iter().enumerate() {
                widen(inst.uses.iter_mut().skip(i).take(1), w);
            }
        }
        // `IMMA.16832.S8.S8 R8, R12.ROW, R16.COL, R8`: four 32-bit
        // accumulators; A four registers and B two (k = 32) or two and one.
        IMMA => {
            let (a, b) = if inst.has_mod("16832") { (4, 2) } else { (2, 1) };
            widen(inst.defs.iter_mut(), 4);
            for (i, w) in [a, b, 4].into_iter().enumerate() {
                widen(inst.uses.iter_mut().skip(i).take(1), w);
            }
        }
        // `HGMMA.64xNxK.F32 R24, gdesc[UR4], R24`: N / 2 accumulators per
        // thread (N / 4 for F16 ones); with A in shared memory `gdesc[UR4]`
        // names two descriptors, A's in UR4:UR5 and B's in UR6:UR7. The
        // accumulators read are the last R source (`RZ` when the product
        // replaces them).
        HGMMA | QGMMA | IGMMA => {
            // N reaches 256: parsed wider than the accumulator count.
            let n =
                inst.mods.first().and_then(|m| m.name().strip_prefix("64x")?.split('x').next()?.parse::<u16>().ok());
            // IGMMA's accumulators are s32, one to a register.
            let words32 = inst.has_mod("F32") || inst.op == IGMMA;
            if let Some(acc) = n.and_then(|n| u8::try_from(if words32 { n / 2 } else { n / 4 }).ok()) {
                widen(inst.defs.iter_mut(), acc);
                widen(
                    inst.uses
                        .iter_mut()
                        .filter(|u| matches!(u.kind, OperandKind::Reg(r) if r.file == RegFile::R))
                        .last()
                        .into_iter(),
                    acc,
                );
            }
            // With A in registers (`HGMMA R24, R88, gdesc[UR8], R24`) the
            // four words of A's fragment come first; the descriptor operand
            // still names four registers, B's descriptor in the last two
            // (NVIDIA loads B's into UR10:UR11 there, UR8:UR9 unused).
            let a_in_regs = matches!(inst.uses.get(1).map(|u| &u.kind), Some(OperandKind::MatrixDesc(_)));
            for u in inst.uses.iter_mut().take(if a_in_regs { 2 } else { 1 }) {
                match &mut u.kind {
                    OperandKind::MatrixDesc(r) => *r = r.wide(4),
                    OperandKind::Reg(r) if r.file == RegFile::R && !r.is_zero() => *r = r.wide(4),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// Widths of a conversion's result and source. nvdisasm names only the
/// types that are not the default (F32 for floats, S32 for integers): both
/// in `F2F.F32.F64` (result first); for F2I an integer type is the
/// result's and a float type the source's, for I2F the other way round;
/// `FRND.F64` rounds a pair.
fn conversion_widths(inst: &Inst) -> (u8, u8) {
    let types: Vec<&str> = inst.mods.iter().map(|m| m.name()).filter(|m| is_type(m)).collect();
    let wide = |t: &&str| t.ends_with("64");
    let float = |t: &&str| t.starts_with('F');
    let pick = |pred: &dyn Fn(&&str) -> bool| u8::from(types.iter().filter(|t| pred(t)).any(wide)) + 1;
    match inst.op {
        Opcode::F2F => {
            (types.first().map_or(1, |t| u8::from(wide(t)) + 1), types.get(1).map_or(1, |t| u8::from(wide(t)) + 1))
        }
        Opcode::F2I => (pick(&|t| !float(t)), pick(&|t| float(t))),
        Opcode::I2F => (pick(&|t| float(t)), pick(&|t| !float(t))),
        _ => {
            let w = pick(&|_| true);
            (w, w)
        }
    }
}

fn is_type(m: &str) -> bool {
    matches!(m, "F16" | "F32" | "F64" | "S8" | "S16" | "S32" | "S64" | "U8" | "U16" | "U32" | "U64")
}

fn is_pred(op: &Operand) -> bool {
    op.as_reg().is_some_and(|r| r.file.is_predicate())
}

/// Widens the general or uniform registers among `ops` (not predicates,
/// immediates or memory operands).
fn widen<'a>(ops: impl Iterator<Item = &'a mut Operand>, width: u8) {
    for op in ops {
        if let OperandKind::Reg(r) = &mut op.kind
            && matches!(r.file, RegFile::R | RegFile::UR)
        {
            *r = r.wide(width);
        }
    }
}
