//! Capsule records from the finalized code: which instructions get one and
//! its bytes, for the instruction forms measured so far (ptxas 13.5,
//! `docs/capmerc.md`). Anything else is [`Unknown::CapsuleRecords`]: the
//! generator never guesses a record.
//!
//! Records name what the finalizer must re-target: the constant-bank reads
//! of the ABI (`c[0x0][0x360]` is "ntid.x"), of parameters (offset from the
//! parameter base), of banks 3 and 4, special registers, global stores
//! (their memory descriptor), and the closing `BRA` self-loop. Operands are
//! 16-bit fields `register << 6 | width code`.

use super::Unknown;
use super::capsule::{Capsule, Header, Record, instructions};

/// SASS opcode fields (bits 0..11) that never carry a record in ptxas
/// 13.5's capsules (measured on the corpus and probes for sm_100a; six
/// more, the last row, on the corpus for sm_100a, 103a, 110a, 120a and
/// 121a: 0 records in 338 instructions of 70 kernels). Session 16 took out
/// `ULOP3` with an immediate (0x892: XOR has a record) and `MOV` (0x202:
/// sm_120's `MOV.64` has one). A form missing here makes the capsule
/// unknown, not plain.
const PLAIN: &[u16] = &[
    0x207, 0x208, 0x209, 0x20b, 0x210, 0x213, 0x219, 0x220, 0x221, 0x223, 0x224, 0x225, 0x227, 0x228, 0x229, 0x22a,
    0x22b, 0x230, 0x232, 0x23e, 0x245, 0x248, 0x276, 0x2a4, 0x2a5, 0x2bd, 0x2ca, 0x300, 0x301, 0x302, 0x305, 0x306,
    0x307, 0x308, 0x309, 0x310, 0x312, 0x313, 0x343, 0x344, 0x388, 0x421, 0x423, 0x424, 0x430, 0x431, 0x446, 0x547,
    0x589, 0x802, 0x803, 0x804, 0x806, 0x807, 0x808, 0x80b, 0x80c, 0x810, 0x811, 0x816, 0x819, 0x820, 0x823, 0x824,
    0x827, 0x836, 0x83b, 0x848, 0x882, 0x886, 0x88c, 0x890, 0x891, 0x899, 0x8a5, 0x902, 0x908, 0x942, 0x944, 0x945,
    0x946, 0x94d, 0x94e, 0x950, 0x981, 0x984, 0x988, 0x989, 0xc02, 0xc07, 0xc08, 0xc11, 0xc19, 0xc20, 0xc23, 0xc24,
    0xc25, 0xc28, 0xc2b, 0xc36, 0xc45, 0xc82, 0xd08, 0xd09, 0xd10, 0xe21, 0xe24, 0xe25, 0xe29, 0xe2a, 0xe2b,
    0xf89, //
    0x28c, 0x846, 0x896, 0x987, 0xc10, 0xc48,
];

/// Forms that are plain only with one modifier bit so: (opcode field, bit,
/// value).
const PLAIN_IF: &[(u16, u32, bool)] = &[
    (0x825, 74, false), // IMAD.WIDE R, imm: without .X
];

/// Unsigned 32-bit `ISETP` (not `.EX`): the low half of a 64-bit compare,
/// whose predicate an `ISETP.*.EX` chains, carries a record, any other is
/// plain (session 16, the five SMs' corpus: 54 of 54 and 0 of 1,834); signed
/// and `.EX` compares are plain (1,983 seen): (opcode field, record).
const ISETP_LOW_HALF: &[(u16, [u8; 4])] = &[(0x20c, [0x42, 0x10, 0x2e, 0x14]), (0xc0c, [0x42, 0x10, 0x32, 0x14])];

/// sm_120's 64-bit `ISETP` (bit 80): (opcode field, signed, record). The
/// signed R, UR form carries `41 10 76 0a` in some places and `42 10 62
/// 14` in others (2 and 2 seen), so it stays unknown.
const ISETP_64: &[(u16, bool, [u8; 4])] = &[
    (0x20c, false, [0x41, 0x10, 0x72, 0x0a]),
    (0x20c, true, [0x41, 0x10, 0x72, 0x0a]),
    (0xc0c, false, [0x41, 0x10, 0x76, 0x0a]),
];

/// Opcode fields of `ISETP` (R, R / R, imm / R, UR): the instructions that
/// chain or redefine a compare's predicate in [`feeds_extended_compare`].
const ISETP: &[u16] = &[0x20c, ISETP_IMM, 0xc0c];
const ISETP_IMM: u16 = 0x80c;

/// Opcode fields that end the straight-line stretch
/// [`feeds_extended_compare`] looks in: `BRA`, `BRA.U`, `EXIT`, `RET`,
/// `CALL`.
const STRETCH_END: &[u16] = &[0x947, 0x547, 0x94d, 0x950, 0x944];

const LDC: u16 = 0xb82;
const LDCU: u16 = 0x7ac;
const S2R: u16 = 0x919;
const S2UR: u16 = 0x9c3;
const STG: u16 = 0x986;
const BSYNC: u16 = 0x941;
const LOP3: u16 = 0x212;
const LOP3_IMM: u16 = 0x812;
const ULOP3_IMM: u16 = 0x892;
const STL: u16 = 0x387;
const LDL: u16 = 0x983;
/// `BAR` with an immediate barrier and count, a register barrier, a
/// register count.
const BAR: u16 = 0xb1d;
const BAR_R: u16 = 0x51d;
const BAR_COUNT_R: u16 = 0x91d;
const CS2R: u16 = 0x805;
const LEA: u16 = 0x211;
const UIADD3: u16 = 0x290;
const ULEA: u16 = 0x291;
const PLOP3: u16 = 0x81c;
const REDG: u16 = 0x98e;
/// `REDG` of floats and its one measured form (bits 72..104).
const REDG_F32: u16 = 0x9a6;
const REDG_ADD_F32: u32 = 0xc_12f3;
const MEMBAR: u16 = 0x992;
/// `MOV R, R` (bits 64..104 0xf00) is plain (1,238 seen); sm_120's
/// `MOV.64 R, R` (0x1_0f00) carries `41 0b 20 0a` (22 of 22; session 11's
/// "0x202 carries a record in a few places").
const MOV: u16 = 0x202;
/// `F2I` (bits 64..104, record; the record names no operand): to 64 bits
/// from F32 (`.S64.FLOOR`, `.U64.TRUNC`) `41 12 24 45`, from F64 `41 12 2a
/// 45`; `F2I.F64` to 32 bits plain (15 seen; 50 in all).
const F2I: u16 = 0x311;
const F2I_FORMS: &[(u32, Option<[u8; 4]>)] = &[
    (0x20_5900, Some([0x41, 0x12, 0x24, 0x45])),
    (0x20_d800, Some([0x41, 0x12, 0x24, 0x45])),
    (0x30_d800, Some([0x41, 0x12, 0x2a, 0x45])),
    (0x30_d900, Some([0x41, 0x12, 0x2a, 0x45])),
    (0x30_1100, None),
];
/// `DEPBAR.LE SB0, n` (bits 32..63 `0x8000 | n << 6`), unguarded: `01 23 40
/// 0a f8 00 08 0 0 0 0 n 0 0 0 0`; measured for n 0 and 1 (10 seen).
const DEPBAR: u16 = 0x91a;
/// `LD.E Rd, desc[URd][Ra.64]` (generic 32-bit load, bits 64..104
/// 0xc10_1900), unguarded and without offset as measured (10): `02 22 32 32
/// f8 00 14 08 0 0 0 0 d:u16 a:u16 00 0a 00 URd:u16 00 f8 0...`.
const LD: u16 = 0x980;
const LD_E: u32 = 0xc10_1900;
const MOV_FORMS: &[(u32, Option<[u8; 4]>)] = &[(0xf00, None), (0x1_0f00, Some([0x41, 0x0b, 0x20, 0x0a]))];

/// `MEMBAR` (bits 64..104, record), unguarded, as measured (probe
/// `fences.ptx` and the corpus: `.SC.GPU` 16 times): a prefix `51 0n`
/// and a 16-byte body.
const MEMBARS: &[(u32, [u8; 18])] = &[
    (0x2000, [0x51, 0x02, 0x01, 0x49, 0x10, 0x0a, 0xf8, 0, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0]), // .SC.GPU
    (0x3000, [0x51, 0x02, 0x01, 0x49, 0x10, 0x0a, 0xf8, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0]), // .SC.SYS
    (0x8000, [0x51, 0x01, 0x01, 0x49, 0x10, 0x0a, 0xf8, 0, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0]), // .ALL.CTA
    (0xa000, [0x51, 0x01, 0x01, 0x49, 0x04, 0x0a, 0xf8, 0, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0]), // .ALL.GPU
];

/// Opcodes whose record names no operand and no guard: (opcode field,
/// record). sm_120's 64-bit moves of an immediate: `UMOV.64` (218 seen)
/// and `MOV.64` (38, guarded ones included).
const CONSTANT_RECORDS: &[(u16, [u8; 4])] = &[(0x482, [0x42, 0x0b, 0x26, 0x0e]), (0x402, [0x42, 0x0b, 0x22, 0x0e])];

/// `REDG.E.<op>.STRONG.GPU desc[URd][Ra.64+imm], Rb` as measured on the
/// five SMs' corpus (60): (bits 72..104, record bytes 6 and 7, width code of
/// `Rb`). ADD, ADD.64, MIN.S32, MAX.S32, INC, AND, OR.
const REDG_FORMS: &[(u32, u8, u8, u16)] = &[
    (0xc_12e1, 0x00, 0xa0, 0),
    (0xc_12e5, 0x00, 0xa3, 2),
    (0xc_92e3, 0x10, 0xa2, 0),
    (0xd_12e3, 0x20, 0xa2, 0),
    (0xd_92e1, 0x30, 0xa0, 0),
    (0xe_92e1, 0x50, 0xa0, 0),
    (0xf_12e1, 0x60, 0xa0, 0),
];

/// `PLOP3.LUT P0, PT, a, b, c, lut, lut2` with no source negated, as
/// measured on the five SMs' corpus (75): (lut, lut2, b is `PT`, c is `PT`,
/// record bytes 6 and 7, or `None` for a plain form). With `b` and `c` `PT`
/// the function is one of `a` (0x80: `a`, 0x08: not `a`), with `c` `PT`
/// one of `a` and `b` (0xf8: or, 0x2f: nand); the three-source 0xe0 is
/// plain.
const PLOP3_FORMS: &[PlopForm] = &[
    PlopForm { lut: 0x80, lut2: 0x08, b_pt: true, c_pt: true, record: Some([0x00, 0x00]) },
    PlopForm { lut: 0x08, lut2: 0x80, b_pt: true, c_pt: true, record: Some([0x00, 0x01]) },
    PlopForm { lut: 0xf8, lut2: 0x8f, b_pt: false, c_pt: true, record: Some([0x20, 0x00]) },
    PlopForm { lut: 0x2f, lut2: 0xf2, b_pt: false, c_pt: true, record: Some([0x20, 0x03]) },
    PlopForm { lut: 0xe0, lut2: 0x00, b_pt: false, c_pt: false, record: None },
];

/// One measured `PLOP3.LUT` form: the two tables, whether the second and
/// third sources are `PT`, record bytes 6 and 7 (`None`: plain).
struct PlopForm {
    lut: u32,
    lut2: u32,
    b_pt: bool,
    c_pt: bool,
    record: Option<[u8; 2]>,
}

/// sm_120's two-source `IADD` (opcode field, 64-bit bit 73, record): the
/// record names neither operands nor guard (negated sources and guards
/// alike, the corpus for sm_120a and 121a): R, R `41 0c 40 04`; R, imm
/// `42 0c 42 06`; R, UR `41 0c 44 04`, `.64` `41 0c 54 04`.
const IADD: &[(u16, bool, [u8; 4])] = &[
    (0x235, false, [0x41, 0x0c, 0x40, 0x04]),
    (0x835, false, [0x42, 0x0c, 0x42, 0x06]),
    (0xc35, false, [0x41, 0x0c, 0x44, 0x04]),
    (0xc35, true, [0x41, 0x0c, 0x54, 0x04]),
];
/// Bits 64..104 of the measured `IADD` forms with the negated-first-source
/// bit (72) and the 64-bit bit (73) cleared: (opcode field, form).
const IADD_FORMS: &[(u16, u32)] = &[(0x235, 0x078e_0000), (0x835, 0x078e_0000), (0xc35, 0x0f8e_0000)];

/// `LEA Rd, Ra, Rb, 0x18` (bits 64..104 with the shift, bits 75..79,
/// cleared): no `.HI`, `.X`, negation or predicate output.
const LEA_PLAIN_FORM: u32 = 0x078e_00ff;
/// The shift of the shared-window `LEA` (`SR_CgaCtaId << 24 | offset`,
/// the generic address of shared memory), whose record is `41 00 00 0a`.
const SHARED_WINDOW_SHIFT: u32 = 0x18;

/// `@!UPT UIADD3 URZ, UPT, UPT, URZ, URZ, URZ` (bits 0..104): a uniform
/// no-op ptxas leaves for the finalizer; its record is `d0 00` (kind 0x50,
/// payload 1).
const UNIFORM_NOP: u128 = 0x0000_0000_0fff_e0ff_0000_00ff_ffff_f290;
/// `BRA` (the direct form): plain (every one in the corpus), but for the
/// closing self-loop.
const BRA: u16 = 0x947;

/// ABI values in constant bank 0 below the parameters: (offset, 64-bit,
/// capsule id). Measured with `%ntid`, `%nctaid`, `%nsmid`, `%gridid`,
/// `%total_smem_size`, the stack pointer and the global memory descriptor.
const ABI_CONSTANTS: &[(u32, bool, u8)] = &[
    (0x37c, false, 0x00), // stack pointer
    (0x360, false, 0x01), // ntid.x
    (0x364, false, 0x02), // ntid.y
    (0x368, false, 0x03), // ntid.z
    (0x370, false, 0x04), // nctaid.x
    (0x374, false, 0x05), // nctaid.y
    (0x378, false, 0x06), // nctaid.z
    (0x140, true, 0x0f),  // gridid
    (0x2d0, false, 0x32), // nsmid
    (0x16c, false, 0x33), // total_smem_size
    (0x358, true, 0x39),  // global memory descriptor
    (0x2f8, false, 0x44),
    (0x2fc, false, 0x45),
];

/// Special registers: (SASS SR number, capsule id).
const SPECIAL_REGISTERS: &[(u8, u8)] = &[
    (0x00, 0x00), // SR_LANEID
    (0x21, 0x01), // SR_TID.X
    (0x22, 0x02), // SR_TID.Y
    (0x23, 0x03), // SR_TID.Z
    (0x25, 0x04), // SR_CTAID.X
    (0x26, 0x05), // SR_CTAID.Y
    (0x27, 0x06), // SR_CTAID.Z
    (0x38, 0x07), // SR_EQMASK
    (0x39, 0x08), // SR_LTMASK
    (0x3a, 0x09), // SR_LEMASK
    (0x3b, 0x0a), // SR_GTMASK
    (0x3c, 0x0b), // SR_GEMASK
    (0x32, 0x2a), // SR_SMEMSZ
    (0x43, 0x2b), // SR_VIRTUALSMID
    (0x88, 0x2c), // SR_CgaCtaId
];

/// Constant banks of parameter-style records: (bank, capsule code).
const BANKS: &[(u32, u8)] = &[(0, 0x40), (3, 0x42), (4, 0x47)];

/// Memory access sizes (SASS size field): (field, capsule size code, register
/// code of a loaded value, register code of a stored value).
const SIZES: &[(u32, u8, u16, u16)] = &[(0, 0x0, 1, 0), (2, 0x2, 1, 0), (4, 0x4, 1, 0), (5, 0x5, 3, 2), (6, 0x6, 7, 6)];

/// The `STG` form (bits 73..104 with the size field cleared) that has the
/// record layout below: `STG.E` without cache or ordering qualifiers.
const STG_E: u32 = 0xc1011;

/// The capsule ptxas writes for code `text` (section `text_section`).
pub(super) fn capsule(text_section: u32, text: &[u8], param_base: u32) -> Result<Capsule, Unknown> {
    let header = Header::of_text(text_section, text);
    let n = header.instructions as usize;
    let mut plain = vec![0u32; n.div_ceil(32)];
    let mut records = Vec::new();
    let all: Vec<(usize, u128)> = instructions(text).collect();
    for (i, &(offset, w)) in all.iter().enumerate() {
        let bytes = if i + 1 == n && opcode(w) == BRA {
            closing_branch(text.len() - offset)?
        } else if let Some(&(_, r)) = ISETP_LOW_HALF.iter().find(|l| l.0 == opcode(w)) {
            match compare(w, r, &all[i + 1..])? {
                Some(r) => r,
                None => {
                    plain[i / 32] |= 1 << (i % 32);
                    continue;
                }
            }
        } else {
            match record(w, param_base)? {
                Some(bytes) => bytes,
                None => {
                    plain[i / 32] |= 1 << (i % 32);
                    continue;
                }
            }
        };
        records.push(Record { instruction: i as u32, bytes });
    }
    Ok(Capsule { header, plain, records })
}

/// The record of one instruction, `None` for a plain one.
fn record(w: u128, param_base: u32) -> Result<Option<Vec<u8>>, Unknown> {
    let op = opcode(w);
    // ISETP R, imm is plain in every form seen, none of them 64-bit.
    if op == ISETP_IMM && field(w, 80, 1) == 1 {
        return Err(Unknown::CapsuleRecords);
    }
    if PLAIN.contains(&op) || PLAIN_IF.iter().any(|&(o, bit, set)| o == op && (field(w, bit, 1) == 1) == set) {
        return Ok(None);
    }
    match op {
        BRA => Ok(None),
        LDC | LDCU => constant_load(w, op == LDCU, param_base).map(Some),
        S2R | S2UR => special_register(w, op == S2UR).map(Some),
        STG => global_store(w).map(Some),
        BSYNC => convergence_sync(w),
        LOP3 | LOP3_IMM => logic(w, op == LOP3_IMM),
        ULOP3_IMM => uniform_logic(w),
        STL | LDL => local_access(w, op == STL),
        BAR | BAR_R | BAR_COUNT_R => barrier(w, op).map(Some),
        CS2R => zero_pair(w).map(Some),
        LEA => shared_window(w),
        // Every other UIADD3 R, R seen (13: plain, negated, .X) is plain.
        UIADD3 => Ok((w & ((1 << 105) - 1) == UNIFORM_NOP).then(|| vec![0xd0, 0x00])),
        ULEA => uniform_lea(w),
        PLOP3 if field(w, 12, 4) == 7 => predicate_logic(w),
        REDG => reduction(w).map(Some),
        REDG_F32 if field(w, 72, 33) == REDG_ADD_F32 => Ok(Some(float_reduction(w)?)),
        F2I => {
            let (_, r) = F2I_FORMS.iter().find(|m| m.0 == field(w, 64, 41)).ok_or(Unknown::CapsuleRecords)?;
            Ok(r.map(|r| r.to_vec()))
        }
        DEPBAR if field(w, 12, 20) == 0x7 && field(w, 64, 41) == 0 && matches!(field(w, 32, 32), 0x8000 | 0x8040) => {
            let n = field(w, 38, 6) as u8;
            Ok(Some(vec![0x01, 0x23, 0x40, 0x0a, 0xf8, 0, 0x08, 0, 0, 0, 0, n, 0, 0, 0, 0]))
        }
        LD if field(w, 64, 41) == LD_E && field(w, 12, 4) == 7 && field(w, 40, 24) == 0 => {
            let mut r = vec![0x02, 0x22, 0x32, 0x32, 0xf8, 0, 0x14, 0x08, 0, 0, 0, 0];
            r.extend_from_slice(&operand(field(w, 16, 8), 1).to_le_bytes());
            r.extend_from_slice(&operand(field(w, 24, 8), 2).to_le_bytes());
            r.extend_from_slice(&[0, 0x0a, 0]);
            r.extend_from_slice(&operand(field(w, 32, 8), 2).to_le_bytes());
            r.extend_from_slice(&[0, 0xf8]);
            r.resize(32, 0);
            Ok(Some(r))
        }
        MOV => {
            let (_, r) = MOV_FORMS.iter().find(|m| m.0 == field(w, 64, 41)).ok_or(Unknown::CapsuleRecords)?;
            Ok(r.map(|r| r.to_vec()))
        }
        MEMBAR if w as u64 == u64::from(MEMBAR) | 0x7000 => {
            let (_, r) = MEMBARS.iter().find(|m| m.0 == field(w, 64, 41)).ok_or(Unknown::CapsuleRecords)?;
            Ok(Some(r.to_vec()))
        }
        _ if CONSTANT_RECORDS.iter().any(|c| c.0 == op) => {
            Ok(CONSTANT_RECORDS.iter().find(|c| c.0 == op).map(|c| c.1.to_vec()))
        }
        _ => {
            let form = field(w, 64, 41) & !0x300;
            let wide = field(w, 73, 1) == 1;
            match IADD.iter().find(|i| i.0 == op && i.1 == wide) {
                Some((_, _, r)) if IADD_FORMS.contains(&(op, form)) => Ok(Some(r.to_vec())),
                _ => Err(Unknown::CapsuleRecords),
            }
        }
    }
}

/// `ISETP` R, R / R, UR: 64-bit ([`ISETP_64`]), `.EX` or signed (plain),
/// or unsigned 32-bit (`low_half` when it feeds an `.EX`, else plain).
fn compare(w: u128, low_half: [u8; 4], after: &[(usize, u128)]) -> Result<Option<Vec<u8>>, Unknown> {
    let signed = field(w, 73, 1) == 1;
    if field(w, 80, 1) == 1 {
        let (.., r) = ISETP_64.iter().find(|f| f.0 == opcode(w) && f.1 == signed).ok_or(Unknown::CapsuleRecords)?;
        return Ok(Some(r.to_vec()));
    }
    if field(w, 72, 1) == 1 || signed {
        return Ok(None);
    }
    Ok(feeds_extended_compare(w, after).then(|| low_half.to_vec()))
}

/// Whether the predicate compare `w` writes is the chain input (bits
/// 68..70) of an `ISETP.*.EX` among the instructions after it, before an
/// `ISETP` redefines it or the straight-line code ends.
fn feeds_extended_compare(w: u128, after: &[(usize, u128)]) -> bool {
    let p = field(w, 81, 3);
    for &(_, v) in after {
        let op = opcode(v);
        if STRETCH_END.contains(&op) {
            return false;
        }
        if ISETP.contains(&op) {
            if field(v, 72, 1) == 1 && field(v, 68, 3) == p {
                return true;
            }
            if field(v, 81, 3) == p || field(v, 84, 3) == p {
                return false;
            }
        }
    }
    false
}

/// The closing `BRA` self-loop: kind 0x50 with the instructions from it to
/// the end of the section (padding included) in the upper 9 bits.
fn closing_branch(bytes_to_end: usize) -> Result<Vec<u8>, Unknown> {
    let k = u16::try_from(bytes_to_end / 16).ok().filter(|&k| k < 1 << 9).ok_or(Unknown::CapsuleRecords)?;
    Ok((0x50 | k << 7).to_le_bytes().to_vec())
}

/// `LDC`/`LDCU`: an ABI value (kind 1, class 0x0b) or a parameter / bank
/// 3 / bank 4 read (kind 2, class 0x22).
fn constant_load(w: u128, uniform: bool, param_base: u32) -> Result<Vec<u8>, Unknown> {
    let hi = field(w, 64, 41);
    let size = field(w, 73, 3);
    let form = (hi >> 8) & !0xe;
    if form != if uniform { 0x80000 } else { 0 } || field(w, 59, 5) != 0 {
        return Err(Unknown::CapsuleRecords);
    }
    let (_, code, dest_code, _) = *SIZES.iter().find(|s| s.0 == size).ok_or(Unknown::CapsuleRecords)?;
    let dest = operand(field(w, 16, 8), dest_code);
    let guard = guard(w, uniform)?;
    let address = field(w, 24, 8);
    let bank = field(w, 54, 5);
    let offset = if uniform { field(w, 37, 17) } else { field(w, 38, 16) };
    if bank == 0 && address == 0xff && offset < param_base {
        let &(_, wide, id) = ABI_CONSTANTS
            .iter()
            .find(|c| c.0 == offset && (size == 4 || size == 5) && c.1 == (size == 5))
            .ok_or(Unknown::CapsuleRecords)?;
        let shape = 0x04 | if wide { 0x08 } else { 0 } | if uniform { 0x02 } else { 0 };
        let mut r = vec![0x01, 0x0b, shape, 0x0a, guard, 0, 0x04 | u8::from(wide), 0, 0, 0];
        r.extend_from_slice(&dest.to_le_bytes());
        r.extend_from_slice(&[id, 0x04, 0, 0]);
        return Ok(r);
    }
    let &(_, bank_code) = BANKS.iter().find(|b| b.0 == bank).ok_or(Unknown::CapsuleRecords)?;
    let register = address != 0xff;
    let shape = match (uniform, register) {
        (false, false) => 0x0e,
        (false, true) => 0x0c,
        (true, false) => 0x08,
        (true, true) => 0x0a,
    };
    // Bank 0 past the ABI area is the parameters: offsets from their base.
    let relative = match bank {
        0 => offset.checked_sub(param_base).ok_or(Unknown::CapsuleRecords)?,
        _ => offset,
    };
    let mut r = vec![0x02, 0x22, shape, 0x06, guard, 0, code << 4 | 2, 0, 0, 0];
    r.extend_from_slice(&dest.to_le_bytes());
    r.extend_from_slice(&[bank_code, 0]);
    r.extend_from_slice(&if register { operand(address, 0) } else { 2 }.to_le_bytes());
    r.extend_from_slice(&[0, if register { 0x0a } else { 0 }]);
    r.resize(28, 0);
    r.extend_from_slice(&relative.to_le_bytes());
    Ok(r)
}

/// `S2R`/`S2UR` of a special register the finalizer maps.
fn special_register(w: u128, uniform: bool) -> Result<Vec<u8>, Unknown> {
    if field(w, 24, 40) != 0 || field(w, 80, 25) != 0 {
        return Err(Unknown::CapsuleRecords);
    }
    let sr = field(w, 72, 8) as u8;
    let &(_, id) = SPECIAL_REGISTERS.iter().find(|s| s.0 == sr).ok_or(Unknown::CapsuleRecords)?;
    let shape = 0x04 | if uniform { 0x02 } else { 0 };
    let mut r = vec![0x01, 0x0b, shape, 0x0a, guard(w, uniform)?, 0, 0x04, 0, 0, 0];
    r.extend_from_slice(&operand(field(w, 16, 8), 1).to_le_bytes());
    r.extend_from_slice(&[id, 0x02, 0, 0]);
    Ok(r)
}

/// `STG.E desc[URd][Ra.64+imm], Rb`.
fn global_store(w: u128) -> Result<Vec<u8>, Unknown> {
    let size = field(w, 73, 3);
    if (field(w, 64, 41) >> 8) & !0xe != STG_E {
        return Err(Unknown::CapsuleRecords);
    }
    let &(_, code, _, data_code) = SIZES.iter().find(|s| s.0 == size).ok_or(Unknown::CapsuleRecords)?;
    reduction_with(w, [0x02, 0x38, 0x0e, 0x32], [code << 4, 0x11, 0], data_code)
}

/// `REDG` ([`REDG_FORMS`]): `STG`'s layout with `02 4d 24 32`, the
/// operation and type in bytes 6 and 7, byte 8 1.
fn reduction(w: u128) -> Result<Vec<u8>, Unknown> {
    let &(_, op, ty, data_code) = REDG_FORMS.iter().find(|f| f.0 == field(w, 72, 33)).ok_or(Unknown::CapsuleRecords)?;
    reduction_with(w, [0x02, 0x4d, 0x24, 0x32], [op, ty, 1], data_code)
}

/// The global store and reduction layout: `head`, guard, 0, `kind`
/// (bytes 6-8), 0 0 0, `Ra:u16` (64-bit address), `0a 00 00`, `URd:u16`, `Rb:u16`, the
/// offset at byte 28.
fn reduction_with(w: u128, head: [u8; 4], kind: [u8; 3], data_code: u16) -> Result<Vec<u8>, Unknown> {
    let offset = ((field(w, 40, 24) << 8) as i32) >> 8;
    let mut r = head.to_vec();
    r.extend_from_slice(&[guard(w, false)?, 0, kind[0], kind[1], kind[2], 0, 0, 0]);
    r.extend_from_slice(&operand(field(w, 24, 8), 2).to_le_bytes());
    r.extend_from_slice(&[0x0a, 0, 0]);
    r.extend_from_slice(&operand(field(w, 64, 8), 2).to_le_bytes());
    r.extend_from_slice(&operand(field(w, 32, 8), data_code).to_le_bytes());
    r.resize(28, 0);
    r.extend_from_slice(&offset.to_le_bytes());
    Ok(r)
}

/// `REDG.E.ADD.F32.FTZ.RN.STRONG.GPU` ([`REDG_ADD_F32`], 15 of 15 on the
/// corpus): [`reduction`]'s layout with `02 4d 0e 32` and bytes 6-8 `80 44
/// 03`.
fn float_reduction(w: u128) -> Result<Vec<u8>, Unknown> {
    reduction_with(w, [0x02, 0x4d, 0x0e, 0x32], [0x80, 0x44, 0x03], 0)
}

/// `BSYNC[.RECONVERGENT] Bn`, unguarded (the only forms seen: 770 on the
/// corpus for sm_100a, 103a, 110a, 120a, 121a): a prefix `51 01` and a
/// 16-byte record `01 09 shape 0a f8 00 r 0 0 0 2n:u16 0...`, shape 2 and
/// r 1 for `.RECONVERGENT` (bit 73), shape 4 and r 0 for bit 72; with
/// neither bit (10 seen) the instruction is plain.
fn convergence_sync(w: u128) -> Result<Option<Vec<u8>>, Unknown> {
    if field(w, 12, 4) != 7 || field(w, 20, 44) != 0 {
        return Err(Unknown::CapsuleRecords);
    }
    let (shape, reconvergent) = match field(w, 64, 41) {
        0x380_0000 => return Ok(None),
        0x380_0100 => (0x04, 0),
        0x380_0200 => (0x02, 1),
        _ => return Err(Unknown::CapsuleRecords),
    };
    let barrier = field(w, 16, 4) as u16 * 2;
    let mut r = vec![0x51, 0x01, 0x01, 0x09, shape, 0x0a, 0xf8, 0, reconvergent, 0, 0, 0];
    r.extend_from_slice(&barrier.to_le_bytes());
    r.resize(18, 0);
    Ok(Some(r))
}

/// `LOP3.LUT d, a, b, c, lut, !PT` as measured on the corpus for sm_100a,
/// 103a, 110a, 120a and 121a (1,821 instructions): with a `PT` predicate
/// output, XOR (`0x3c`) of registers is a 16-byte record `01 29 00 04 guard
/// 00 04 00 01 f8 d:u16 a:u16 b:u16`, NOT (`0x33`, of `b`) `01 2b 00 0a
/// guard 00 04 00 00 00 01 f8 d:u16 b:u16`; XOR with an immediate is
/// [`xor_immediate`]'s record; AND with an immediate and a predicate
/// output `42 2a 02 06` unless the register result is `RZ` (session 16:
/// the "some places only" of session 11 was that); the tables below are
/// plain; anything else is unknown.
fn logic(w: u128, immediate: bool) -> Result<Option<Vec<u8>>, Unknown> {
    /// Plain tables with a `PT` output: registers, immediate.
    const PLAIN_REG: &[u32] = &[0x30, 0xc0, 0xfc];
    const PLAIN_IMM: &[u32] = &[0x0c, 0x48, 0xb8, 0xc0, 0xf8, 0xfc];
    let lut = field(w, 72, 8);
    let pt_output = field(w, 81, 3) == 7;
    // Register form: c is RZ and the predicate input !PT (bits 64..71 and
    // 87..90), the only shape seen.
    let plain_c = field(w, 64, 8) == 0xff && field(w, 87, 4) == 0xf;
    let dest = field(w, 16, 8);
    let unguarded = field(w, 12, 4) == 7;
    match (immediate, pt_output, lut) {
        (false, false, 0xf8) => Ok(None),
        // AND with an immediate and a predicate output: plain when the
        // register result is discarded (RZ, 123 seen), `42 2a 02 06` when
        // it is kept (80 seen), unguarded only.
        (true, false, 0xc0) if plain_c && unguarded => {
            Ok(if dest == 0xff { None } else { Some(vec![0x42, 0x2a, 0x02, 0x06]) })
        }
        (true, true, 0x3c) if plain_c && dest != 0xff => xor_immediate(w, false).map(Some),
        (false, true, _) if PLAIN_REG.contains(&lut) => Ok(None),
        (true, true, _) if PLAIN_IMM.contains(&lut) => Ok(None),
        (false, true, 0x3c | 0x33) if plain_c => {
            let guard = guard(w, false)?;
            let (d, a, b) = (operand(field(w, 16, 8), 1), operand(field(w, 24, 8), 0), operand(field(w, 32, 8), 0));
            let mut r = if lut == 0x3c {
                vec![0x01, 0x29, 0x00, 0x04, guard, 0, 0x04, 0, 0x01, 0xf8]
            } else {
                vec![0x01, 0x2b, 0x00, 0x0a, guard, 0, 0x04, 0, 0, 0, 0x01, 0xf8]
            };
            r.extend_from_slice(&d.to_le_bytes());
            if lut == 0x3c {
                r.extend_from_slice(&a.to_le_bytes());
            }
            r.extend_from_slice(&b.to_le_bytes());
            Ok(Some(r))
        }
        _ => Err(Unknown::CapsuleRecords),
    }
}

/// `[U]LOP3.LUT d, a, imm, RZ, 0x3c, !PT` (XOR with an immediate): a
/// 32-byte record `02 29 shape 06 guard 00 04 0 0 0 01 f8 d:u16 a:u16 00
/// 02 0... imm:u32` (byte 28), shape 0x04 (R) / 0x0c (UR); 0x0002 is the
/// operand slot of an immediate, as in constant loads.
fn xor_immediate(w: u128, uniform: bool) -> Result<Vec<u8>, Unknown> {
    let shape = if uniform { 0x0c } else { 0x04 };
    let mut r = vec![0x02, 0x29, shape, 0x06, guard(w, uniform)?, 0, 0x04, 0, 0, 0, 0x01, 0xf8];
    r.extend_from_slice(&operand(field(w, 16, 8), 1).to_le_bytes());
    r.extend_from_slice(&operand(field(w, 24, 8), 0).to_le_bytes());
    r.extend_from_slice(&[0x00, 0x02]);
    r.resize(28, 0);
    r.extend_from_slice(&field(w, 32, 32).to_le_bytes());
    Ok(r)
}

/// `ULOP3.LUT` with an immediate (`URZ` third source, `!UPT` input, no
/// predicate output): AND (`0xc0`) is plain (the corpus), XOR (`0x3c`,
/// probe `xor.ptx`) has [`xor_immediate`]'s record (session 11 had the
/// opcode in `PLAIN` from the AND alone).
fn uniform_logic(w: u128) -> Result<Option<Vec<u8>>, Unknown> {
    let plain_c = field(w, 64, 8) == 0xff && field(w, 87, 4) == 0xf && field(w, 81, 3) == 7;
    match field(w, 72, 8) {
        0xc0 if plain_c => Ok(None),
        0x3c if plain_c && field(w, 16, 8) != 0xff => xor_immediate(w, true).map(Some),
        _ => Err(Unknown::CapsuleRecords),
    }
}

/// `STL`/`LDL` forms (bits 72..104, size field cleared) as measured on
/// the five SMs' corpus and probe `local.ptx`: (store, form, byte 7 of the
/// record, `None` for plain). 0x1000 is the plain `[Ra+imm]` form, 0x3000
/// `LDL.LU` (spill reloads), 0x8_1000 sm_120's `LDL [Ra+URb]`, plain in all
/// 36 seen.
const LOCAL_FORMS: &[(bool, u32, Option<u8>)] =
    &[(true, 0x1000, Some(1)), (false, 0x1000, Some(1)), (false, 0x3000, Some(3)), (false, 0x8_1000, None)];

/// `STL [Ra+imm], Rb` / `LDL Rd, [Ra+imm]` ([`LOCAL_FORMS`]): 32 bytes,
/// `02 38 20 06` (store) / `02 22 28 06` (load), guard, 0, size<<4|1, byte
/// 7, 0, 0, then the store's address (32-bit, code 0), `0a 00` and value,
/// or the load's destination, address and `0a 00`; the offset at byte 28.
fn local_access(w: u128, store: bool) -> Result<Option<Vec<u8>>, Unknown> {
    let form = (field(w, 64, 41) >> 8) & !0xe;
    let &(.., byte7) = LOCAL_FORMS.iter().find(|f| f.0 == store && f.1 == form).ok_or(Unknown::CapsuleRecords)?;
    let Some(byte7) = byte7 else { return Ok(None) };
    if field(w, 64, 8) != 0 {
        return Err(Unknown::CapsuleRecords);
    }
    let size = field(w, 73, 3);
    let &(_, code, load_code, store_code) = SIZES.iter().find(|s| s.0 == size).ok_or(Unknown::CapsuleRecords)?;
    let address = operand(field(w, 24, 8), 0);
    let offset = ((field(w, 40, 24) << 8) as i32) >> 8;
    let head: [u8; 4] = if store { [0x02, 0x38, 0x20, 0x06] } else { [0x02, 0x22, 0x28, 0x06] };
    let mut r = head.to_vec();
    r.extend_from_slice(&[guard(w, false)?, 0, code << 4 | 1, byte7, 0, 0]);
    let operands = if store {
        [address, 0x0a, operand(field(w, 32, 8), store_code)]
    } else {
        [operand(field(w, 16, 8), load_code), address, 0x0a]
    };
    for o in operands {
        r.extend_from_slice(&o.to_le_bytes());
    }
    r.resize(28, 0);
    r.extend_from_slice(&offset.to_le_bytes());
    Ok(Some(r))
}

/// `BAR.SYNC.DEFER_BLOCKING` and `BAR.ARV` (probes `bar.ptx`, `bar2.ptx`,
/// five SMs). `BAR.SYNC`: 16 bytes `01 47 shape kind guard 00 04 0 0 0
/// id:u16 count:u16 n:u16`, the barrier an immediate `id << 8` or a
/// register (code 0), the count a register or 0x0001 with the immediate in
/// `n` (0 without a count); (shape, kind) (0x5a, 0x16) immediate / immediate,
/// (0x56, 0x16) register barrier, (0x58, 0x0a) register count. `BAR.ARV`,
/// unguarded: 4 bytes `41 47 12 16` (immediate count), `41 47 10 0a`
/// (register count), the operands not in the record.
fn barrier(w: u128, op: u16) -> Result<Vec<u8>, Unknown> {
    /// Bits 64..104: the `.SYNC.DEFER_BLOCKING` and `.ARV` forms.
    const SYNC: u32 = 0x1_0000;
    const ARRIVE: u32 = 0x2000;
    let form = field(w, 64, 41);
    let (id, count_reg, count) = (field(w, 54, 4) as u16, field(w, 32, 8), field(w, 42, 12) as u16);
    // Fields that are zero in every measured form: 16..31, and 32..41
    // unless they hold a register operand.
    if field(w, 16, 16) != 0 || (op == BAR && field(w, 32, 10) != 0) || field(w, 58, 6) != 0 {
        return Err(Unknown::CapsuleRecords);
    }
    match (form, op) {
        (ARRIVE, BAR | BAR_COUNT_R) if field(w, 12, 4) == 7 => {
            Ok(if op == BAR { vec![0x41, 0x47, 0x12, 0x16] } else { vec![0x41, 0x47, 0x10, 0x0a] })
        }
        (SYNC, _) => {
            let (shape, kind, barrier, count_operand, count) = match op {
                BAR => (0x5a, 0x16, id << 8, 1, count),
                BAR_R if id == 0 => (0x56, 0x16, operand(count_reg, 0), 1, count),
                BAR_COUNT_R if count == 0 => (0x58, 0x0a, id << 8, operand(count_reg, 0), 0),
                _ => return Err(Unknown::CapsuleRecords),
            };
            let mut r = vec![0x01, 0x47, shape, kind, guard(w, false)?, 0, 0x04, 0, 0, 0];
            for o in [barrier, count_operand, count] {
                r.extend_from_slice(&o.to_le_bytes());
            }
            Ok(r)
        }
        _ => Err(Unknown::CapsuleRecords),
    }
}

/// `ULEA URd, URa, URb, shift` (plain form only): the shared-window shift
/// 0x18 is plain (76 seen), the one other shift seen, 2, carries `42 25 42
/// 14` (dyn_smem, the five SMs); other shifts are not measured.
fn uniform_lea(w: u128) -> Result<Option<Vec<u8>>, Unknown> {
    /// Bits 64..104 with the shift (75..79) cleared.
    const FORM: u32 = 0x0f8e_00ff;
    if field(w, 64, 41) & !(0x1f << 11) != FORM || field(w, 12, 4) != 7 {
        return Err(Unknown::CapsuleRecords);
    }
    match field(w, 75, 5) {
        SHARED_WINDOW_SHIFT => Ok(None),
        2 => Ok(Some(vec![0x42, 0x25, 0x42, 0x14])),
        _ => Err(Unknown::CapsuleRecords),
    }
}

/// `PLOP3.LUT` ([`PLOP3_FORMS`]): 16 bytes `01 10 06 0a guard 00 k o 0 0 01
/// 00 00 a 00 b`, the sources as guard bytes (`p << 3`, `PT` 0xf8). The
/// destination is `P0` in every one measured, so other destinations are
/// unknown.
fn predicate_logic(w: u128) -> Result<Option<Vec<u8>>, Unknown> {
    let lut = field(w, 72, 5) << 3 | field(w, 64, 3);
    let lut2 = field(w, 16, 8);
    let (a, b, c) = (field(w, 87, 4), field(w, 77, 4), field(w, 68, 4));
    // Destinations P0 and PT; no negated source (bit 3 of each field).
    if field(w, 81, 6) != 0x38 || (a | b | c) & 8 != 0 || field(w, 24, 40) != 0 || field(w, 67, 1) != 0 {
        return Err(Unknown::CapsuleRecords);
    }
    let form = PLOP3_FORMS.iter().find(|f| f.lut == lut && f.lut2 == lut2 && f.b_pt == (b == 7) && f.c_pt == (c == 7));
    let Some(&PlopForm { record, .. }) = form else { return Err(Unknown::CapsuleRecords) };
    let Some([k, o]) = record else { return Ok(None) };
    let source = |p: u32| if p == 7 { 0xf8 } else { (p as u8) << 3 };
    Ok(Some(vec![0x01, 0x10, 0x06, 0x0a, guard(w, false)?, 0, k, o, 0, 0, 0x01, 0, 0, source(a), 0, source(b)]))
}

/// `CS2R Rd, SRZ` (zeroing a register pair; 24 seen on sm_100a): a
/// 16-byte record like a 64-bit ABI read, `01 0b 0c 0a guard 00 05 0 0 0
/// d:u16 ff 0f 00 00`. Other special registers are not measured.
fn zero_pair(w: u128) -> Result<Vec<u8>, Unknown> {
    /// Bits 64..104: `SRZ` (bits 72..79) and the 64-bit bit 80.
    const SRZ_PAIR: u32 = 0x1_ff00;
    if field(w, 64, 41) != SRZ_PAIR || field(w, 24, 40) != 0 {
        return Err(Unknown::CapsuleRecords);
    }
    let mut r = vec![0x01, 0x0b, 0x0c, 0x0a, guard(w, false)?, 0, 0x05, 0, 0, 0];
    r.extend_from_slice(&operand(field(w, 16, 8), 3).to_le_bytes());
    r.extend_from_slice(&[0xff, 0x0f, 0, 0]);
    Ok(r)
}

/// `LEA` (register form): the shared-window `LEA ..., 0x18` carries `41
/// 00 00 0a`, guarded or not (every one of the five SMs' corpus); every
/// other `LEA` seen (other shifts, `.HI`, `.HI.X`, `.HI.SX32`, predicate
/// outputs) is plain; a shift of 0x18 in another form is unknown.
fn shared_window(w: u128) -> Result<Option<Vec<u8>>, Unknown> {
    let shift = field(w, 75, 5);
    let plain_form = field(w, 64, 41) & !(0x1f << 11) == LEA_PLAIN_FORM;
    match (shift == SHARED_WINDOW_SHIFT, plain_form) {
        (false, _) => Ok(None),
        (true, true) => Ok(Some(vec![0x41, 0x00, 0x00, 0x0a])),
        (true, false) => Err(Unknown::CapsuleRecords),
    }
}

/// The guard byte: predicate << 3 | negated, 0x1f for none; bit 1 marks a
/// uniform destination. Guarded uniform instructions are not measured.
fn guard(w: u128, uniform: bool) -> Result<u8, Unknown> {
    let (p, negated) = (field(w, 12, 3) as u8, field(w, 15, 1) as u8);
    match (p, negated, uniform) {
        (7, 0, _) => Ok(0xf8 | u8::from(uniform) << 1),
        (_, _, false) => Ok(p << 3 | negated),
        _ => Err(Unknown::CapsuleRecords),
    }
}

/// An operand field: register << 6 | width code (RZ/URZ is 0xff).
fn operand(register: u32, code: u16) -> u16 {
    (register as u16) << 6 | code
}

fn opcode(w: u128) -> u16 {
    field(w, 0, 12) as u16
}

/// Bits `at..at + len` of an instruction.
fn field(w: u128, at: u32, len: u32) -> u32 {
    ((w >> at) & ((1u128 << len) - 1)) as u32
}
