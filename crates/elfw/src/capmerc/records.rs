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
/// 13.5's capsules (measured on the corpus and probes for sm_100a: 114
/// forms; six more, the last row, on the corpus for sm_100a, 103a, 110a,
/// 120a and 121a: 0 records in 338 instructions of 70 kernels). A form
/// missing here makes the capsule unknown, not plain.
const PLAIN: &[u16] = &[
    0x202, 0x207, 0x208, 0x209, 0x20b, 0x210, 0x213, 0x219, 0x220, 0x221, 0x223, 0x224, 0x225, 0x227, 0x228, 0x229,
    0x22a, 0x22b, 0x230, 0x232, 0x23e, 0x245, 0x248, 0x276, 0x2a4, 0x2a5, 0x2bd, 0x2ca, 0x300, 0x301, 0x302, 0x305,
    0x306, 0x307, 0x308, 0x309, 0x310, 0x312, 0x313, 0x343, 0x344, 0x388, 0x421, 0x423, 0x424, 0x430, 0x431, 0x446,
    0x547, 0x589, 0x802, 0x803, 0x804, 0x806, 0x807, 0x808, 0x80b, 0x80c, 0x810, 0x811, 0x816, 0x819, 0x820, 0x823,
    0x824, 0x827, 0x836, 0x83b, 0x848, 0x882, 0x886, 0x88c, 0x890, 0x891, 0x892, 0x899, 0x8a5, 0x902, 0x908, 0x942,
    0x944, 0x945, 0x946, 0x94d, 0x94e, 0x950, 0x981, 0x984, 0x988, 0x989, 0xc02, 0xc07, 0xc08, 0xc11, 0xc19, 0xc20,
    0xc23, 0xc24, 0xc25, 0xc28, 0xc2b, 0xc36, 0xc45, 0xc82, 0xd08, 0xd09, 0xd10, 0xe21, 0xe24, 0xe25, 0xe29, 0xe2a,
    0xe2b, 0xf89, //
    0x28c, 0x846, 0x896, 0x987, 0xc10, 0xc48,
];

/// Forms that are plain only with one modifier bit so: (opcode field, bit,
/// value). Their other variant carries a record in some places and not in
/// others (`ISETP.*.U32` in 64-bit compares: `42 10 2e 14`), so it stays
/// unknown.
const PLAIN_IF: &[(u16, u32, bool)] = &[
    (0x20c, 73, true),  // ISETP R, R: signed
    (0xc0c, 73, true),  // ISETP R, UR: signed
    (0x825, 74, false), // IMAD.WIDE R, imm: without .X
];

const LDC: u16 = 0xb82;
const LDCU: u16 = 0x7ac;
const S2R: u16 = 0x919;
const S2UR: u16 = 0x9c3;
const STG: u16 = 0x986;
const BSYNC: u16 = 0x941;
const LOP3: u16 = 0x212;
const LOP3_IMM: u16 = 0x812;
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
    for (i, (offset, w)) in instructions(text).enumerate() {
        let bytes = if i + 1 == n && opcode(w) == BRA {
            closing_branch(text.len() - offset)?
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
        _ => Err(Unknown::CapsuleRecords),
    }
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
    let offset = ((field(w, 40, 24) << 8) as i32) >> 8;
    let mut r = vec![0x02, 0x38, 0x0e, 0x32, guard(w, false)?, 0, code << 4, 0x11, 0, 0, 0, 0];
    r.extend_from_slice(&operand(field(w, 24, 8), 2).to_le_bytes());
    r.extend_from_slice(&[0x0a, 0, 0]);
    r.extend_from_slice(&operand(field(w, 64, 8), 2).to_le_bytes());
    r.extend_from_slice(&operand(field(w, 32, 8), data_code).to_le_bytes());
    r.resize(28, 0);
    r.extend_from_slice(&offset.to_le_bytes());
    Ok(r)
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
/// guard 00 04 00 00 00 01 f8 d:u16 b:u16`; the tables below are plain;
/// anything else is unknown (AND with a predicate output carries `42 2a 02
/// 06` in some places and not in others, XOR with an immediate a 32-byte
/// record not decoded yet).
fn logic(w: u128, immediate: bool) -> Result<Option<Vec<u8>>, Unknown> {
    /// Plain tables with a `PT` output: registers, immediate.
    const PLAIN_REG: &[u32] = &[0x30, 0xc0, 0xfc];
    const PLAIN_IMM: &[u32] = &[0x0c, 0x48, 0xb8, 0xc0, 0xf8, 0xfc];
    let lut = field(w, 72, 8);
    let pt_output = field(w, 81, 3) == 7;
    // Register form: c is RZ and the predicate input !PT (bits 64..71 and
    // 87..90), the only shape seen.
    let plain_c = field(w, 64, 8) == 0xff && field(w, 87, 4) == 0xf;
    match (immediate, pt_output, lut) {
        (false, false, 0xf8) => Ok(None),
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
