//! Mnemonic families: sibling forms that differ from a learned form only
//! in a modifier field (comparison code, boolean combine, signedness,
//! `.FTZ`, access width, eviction priority, memory ordering) or in the
//! negation of the combine predicate.
//!
//! The generated tables only hold forms NVIDIA's ptxas emitted for the
//! corpus (`ISETP.GE.AND` but not `ISETP.LE.U32.OR`). For the families
//! below, `derived_forms` makes the encoder's missing forms from a
//! learned one with the same operand skeletons by writing the requested
//! value into the field, and `derive_for_bits` lets the decoder read
//! words whose field values no learned form has.
//!
//! Every field and word was established with nvdisasm 13.5 (`nvdisasm -b
//! SM80|SM90`, one instruction per file): a corpus word (`ISETP.GE.AND P0,
//! P0, R2, R3, P0` = opcode `0x20c`, high word `0x006270`; `FSETP.GT.AND`
//! `0x20b`/`0x004000`; `DSETP.GT.AND` `0x22a`/`0x004000`;
//! `HSETP2.GEU.AND` `0x234`/`0x00e000`; `FMNMX R4, R2, R3, !PT` `0x209`;
//! `IMNMX` `0x217`/`0x000200` (sm_80); `VIMNMX` `0x248`/`0x7e0100` (sm_90))
//! had only the field's bits varied over every value, and the printed
//! mnemonic was read off. Identical on SM80 and SM90 except where noted:
//!
//! * bits 76..79 (ISETP: 76..78; bit 79 is ignored there): the comparison,
//!   `F LT EQ LE GT NE GE T` for ISETP; `F LT EQ LE GT NE GE NUM NAN LTU
//!   EQU LEU GTU NEU GEU T` for FSETP and HSETP2; DSETP the same with `MIN`
//!   for 0 and `MAX` for 15;
//! * bits 74..75: the combine `AND OR XOR` (3 prints `INVALID3`); HSETP2
//!   has it at bits 69..70 (its bits 74..75 select the halves of `a`, bit
//!   71 prints `.H_AND`, not derived);
//! * bit 73 of ISETP and sm_80 IMNMX, bit 72 of sm_90 VIMNMX: 0 = `.U32`,
//!   1 = signed (no word);
//! * bit 80: `.FTZ` of FSETP, HSETP2 and FMNMX (after the comparison);
//!   bit 81: FMNMX `.NAN` (printed after `.FTZ`);
//! * UISETP has ISETP's fields (the Triton word `UISETP.GT.AND UP0, UPT,
//!   UR8, 0x1, UPT`, `0x788c`/`0x0bf04270`, flipped bit by bit on SM80 and
//!   SM90: comparison 76..78, `.U32` 73, combine 74..75, `.EX` 72,
//!   negation 90 of the predicate at 87..89);
//! * bit 90: negation of the predicate at bits 87..89 (the combine
//!   predicate of the SETPs, the min/max selector of FMNMX/IMNMX/VIMNMX:
//!   `PT` is the minimum, `!PT` the maximum).
//!
//! The load/store fields come from the same kind of probe, on corpus
//! words of LDG (`0x981`, high word `0x0c1e19`), STG (`0x986`), LD
//! (`0x980`), ST (`0x985`), LDL (`0x983`), STL (`0x387`), LDS (`0x984`),
//! STS (`0x388`) and LDC (`0xb82`), identical on SM80 and SM90:
//!
//! * bits 73..75: the access, `U8 S8 U16 S16` (none) `64 128` for all
//!   (7 prints `INVALID7`; LDC stops at `64`), printed after the
//!   eviction word;
//! * bits 84..86: eviction priority of LDG, STG, LD, ST, LDL and STL, `EF`
//!   (none) `EL LU EU NA`, printed right after `.E`;
//! * bits 77..80: ordering and scope of LDG/LD (`CONSTANT`, `STRONG.GPU`,
//!   `STRONG.SYS`, `MMIO.GPU`, ... 16 values) and STG/ST (the same but 4
//!   = `STRONG.SM.PRIVATE`), printed last; LDL/STL ignore these bits.
//!
//! * atomics (ATOMG `0x9a8`, ATOM `0x98a` on generic addresses, RED
//!   `0x98e`, printed REDG on sm_90): the operation at bits 87..90 (`ADD
//!   MIN MAX INC DEC AND OR XOR EXCH SAFEADD`; RED only the first eight, with bit 90 set), eviction and
//!   ordering as for stores, and the operand type at bits 73..75 (sm_80:
//!   (none) `S32 64 F32.FTZ.RN F16x2.RN S64 F64.RN`; sm_90 ATOMG: (none)
//!   `S32 64 S64 128`, REDG the first four), printed after the eviction
//!   word.
//!
//! Not derived: LDG's bits 68..69 (`LTC64B LTC128B LTC256B`, after the
//! eviction word) and LDC's 78..79 (`IL IS ISL`), which Ori has no words
//! for; bit 72 (`.E`) and 76 (the descriptor), which change the operands.
//!
//! The atomics come from probes of corpus words of `REDG`/`RED` (`0x98e`,
//! high word `0x0c10e186`) and `ATOMG` (`0x9a8`, `0x099ee1c8`): bits
//! 87..89 are the reduction's operation (`ADD MIN MAX INC DEC AND OR XOR`,
//! bit 90 set; clear it and nvdisasm reports an illegal instruction),
//! bits 87..90 the atomic's (the same, then `EXCH SAFEADD`), bits 73..75
//! the type (`S32 64 S64` on sm_90, whose float atomics are other
//! opcodes; `S32 64 F32.FTZ.RN F16x2.RN S64 F64.RN` on sm_80).
//!
//! `I2F` (`0x306`, register source; `0xb06`, constant source) of a 32-bit
//! integer, probed on `I2F R5, R0` (high word `0x201400`) and `I2F.U32 R5,
//! R0` (`0x201000`, NVIDIA's sm_80 `cvt.rn.f32.u32`), identical on SM80
//! and SM90: bit 74 is 0 = `.U32`, 1 = signed (no word), bits 78..79 the
//! rounding (none) `RM RP RZ`. Other source sizes (bits 84..85: `S16`,
//! `S64`, ...) and `.F64` results spell their types otherwise and are not
//! in the family.
//!
//! `F2I` of binary32 to a 32-bit integer (`0x305`), probed on `F2I.FTZ.TRUNC.NTZ
//! R15, R10` (high word `0x21f100`) and `F2I.U32.NTZ R15, |R10|`
//! (`0x203000`), identical on SM80 and SM90: bit 80 `.FTZ`, bit 72 0 =
//! `.U32`, 1 = signed, bits 78..79 the rounding (none) `FLOOR CEIL TRUNC`,
//! then `.NTZ`.
//!
//! `ATOMS` with a register address (`0x38c`, the probed `ATOMS.ADD R5, [R4],
//! R7` of `derive.rs`), identical on SM80 and SM90: the operation at bits
//! 87..90 (`ADD MIN MAX INC DEC AND OR XOR EXCH`; 9 prints `INVALID9`),
//! the type at bits 73..75 ((none) `S32 64`; 4 is `128` on SM90 only).
//!
//! `MEMBAR` (`0x992`), probed on `MEMBAR.SC.GPU` (high word `0x2000`),
//! identical on SM80 and SM90: bits 79..80 the ordering `SC ALL` (2: none),
//! bits 76..77 the scope `CTA SM GPU SYS` (bit 78 is `.PARTIAL` on SM90,
//! not derived).
//!
//! `FADD` and `FFMA` (probed on `FADD R4, R9, R4` and NVIDIA's `FFMA.FTZ R0,
//! R9, R0, R11` of `div.rn.ftz.f32`), identical on SM80 and SM90: bit 80
//! `.FTZ`, bits 78..79 the rounding (none) `RM RP RZ`; FADD's bit 77 is
//! `.SAT`, printed last (NVIDIA's `FADD.FTZ.SAT R73, RZ, R61` of
//! Inductor's `cvt.ftz.sat`; FFMA's is left to learned forms).
//!
//! `DADD`, `DMUL`, `DFMA` (probed on `DADD R2, R2, R0`, `DMUL.RM R2, R2,
//! R10` and `DFMA.RZ R2, R14, -R4, R2` of NVIDIA's f64 divisions),
//! identical on SM80 and SM90: bits 78..79 the rounding (none) `RM RP RZ`.
//!
//! `FMUL` (probed on NVIDIA's `FMUL.D8 R23, R24, R9` of large_unroll, high
//! word `0x100000`), identical on SM80 and SM90: bit 80 `.FTZ`, bits
//! 84..86 a power-of-two scale of the product (0 prints `INVALID0`, not
//! derived; `D8 D4 D2` (none) `M2 M4 M8`), bits 78..79 the rounding (none)
//! `RM RP RZ`, bit 77 `.SAT`, printed in that order (`FMUL.FTZ.RZ.SAT`).
//!
//! `LDGSTS` (`0xfae`, probed on NVIDIA's words for `cp.async` with every
//! size, cache operator, `.L2::` hint and source size, identical on SM80
//! and SM90): bits 71..72 the L2 prefetch (none) `LTC64B LTC128B
//! LTC256B`, bits 73..74 the size (none) `64 128`, bit 81 clear for
//! `.BYPASS` (`.cg`), bit 82 `.ZFILL`; the predicate at bits 87..89
//! (negated by bit 90) says whether the source is read at all.
//!
//! `HMMA` (`0x23c`, probed on NVIDIA's words for `mma.sync` m16n8k16 and
//! m16n8k8 with f16, bf16 and tf32 inputs, identical on SM80 and SM90):
//! bit 75 the shape `1688 16816`, bit 76 the accumulator `F16 F32`, bits
//! 82..83 the input type (f16: none) `BF16 TF32`. `LDSM` (`0x83b`,
//! ldmatrix `.x1/.x2/.x4`, `.trans`): bits 72..73 the count (none) `2 4`,
//! bit 78 `M88 MT88`; `STSM` (`0x844`, stmatrix, sm_90 only) has the same
//! two fields (nvdisasm's flips of NVIDIA's `STSM.16.M88 [R5], R8`).
//!
//! **sm_75** (`nvdisasm -b SM75`): every family above prints alike but
//! for these, which have Turing rows of their own (first in [`FAMILIES`],
//! so they win over the rows for every SM): loads, stores and atomics
//! (LDG `0x381`, STG `0x386`, RED `0x98e`, ATOMG `0x9a8`, each word with
//! bits 77..80 varied) split ordering and scope in two fields, bits 77..78
//! the scope `CTA SM GPU SYS` and bits 79..80 the ordering (loads:
//! `CONSTANT` (weak: none) `STRONG MMIO`; stores and atomics: 0 prints
//! `INVALID0`, then (none) `STRONG`, and `MMIO` (RED/ATOMG: `INVALID3`)),
//! so NVIDIA's sm_75 spellings are `LDG.E.CONSTANT.SYS`, `STG.E.SYS`,
//! `RED.E.ADD.STRONG.GPU`; the atomics' types are sm_80's; FMNMX's bit 81
//! prints nothing (no `.NAN`); HMMA's shape bit prints `16816`, which
//! ptxas never emits for sm_75 (`mma.m16n8k16` needs sm_80), and its
//! input-type bits print nothing (no bf16/tf32): Turing's row derives the
//! accumulator alone, `HMMA.1688.F16`/`.F32`. IMNMX's bit 73 is sm_80's.
//!
//! **Blackwell** (`nvdisasm -b SM100|SM120`, the same test run on the
//! forms of `tables/sm100.rs` and `sm120.rs`): every field of the sm_90
//! rows prints alike (4,465 and 4,302 words), but for these: `STG`
//! ordering 13..15 prints `SYS.ORDERED`, `STRONG.SYS.ORDERED`,
//! `MMIO.SYS.ORDERED` (`ST` prints the others' words); sm_120's `VIMNMX` spells signed
//! `.S32` (sm_100's spells nothing, and names two `PT` predicate outputs
//! besides); `LDGSTS`'s learned forms there overlap its fields with
//! operands, so it is not derived. HGMMA/QGMMA are Hopper's alone.
//!
//! `tests/families_nvdisasm.rs` encodes every word of every field for
//! each learned and derived form of the families (for the load/store
//! families each field alone and random combinations) and checks that
//! nvdisasm prints our text.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::Sm;
use crate::form::{AtomKind, Form, OPCODE_BITS, Tables};

/// A modifier field: value `v` at bits `pos..pos+len` prints
/// `words[v]` (`""`: no word; [`INVALID`]: an encoding nvdisasm prints as
/// `INVALIDn`, never derived). Values past `words` are not derived.
#[derive(Debug)]
pub struct WordField {
    /// First instruction bit.
    pub pos: u8,
    /// Number of bits.
    pub len: u8,
    /// The word of each value.
    pub words: &'static [&'static str],
}

/// A field value with no valid meaning.
pub const INVALID: &str = "?";

impl WordField {
    fn mask(&self) -> u128 {
        ((1u128 << self.len) - 1) << self.pos
    }
}

impl Slot {
    /// The word of each value of a substitutable slot; `None` for a
    /// [`Slot::Word`].
    pub fn value_words(&self) -> Option<Vec<&'static str>> {
        match self {
            Slot::Field(f) => Some(f.words.to_vec()),
            Slot::Joint(j) => Some(j.values.iter().map(|(_, w)| *w).collect()),
            Slot::Word(_) => None,
        }
    }
}

/// A modifier whose values set several fields at once (session 15):
/// `FRND.F16` is 1 in both the result format (bits 75..77) and the source
/// format (84..86), which nvdisasm accepts only equal; `F2F`'s result and
/// source types, valid in the pairs nvdisasm accepts; `HFMA2.RELU` is bit
/// 79 with the `PT` at 87..89 that nvdisasm then leaves out.
#[derive(Debug)]
pub struct JointField {
    /// The fields: (first bit, number of bits).
    pub fields: &'static [(u8, u8)],
    /// Each value: one value per field, and the word it prints (`""`:
    /// none). Values of the fields not listed are not this slot's.
    pub values: &'static [(&'static [u8], &'static str)],
}

impl JointField {
    fn mask(&self) -> u128 {
        self.fields.iter().fold(0, |m, &(pos, len)| m | (((1u128 << len) - 1) << pos))
    }

    /// `bits` with value `v` written, `None` past the values.
    fn write(&self, bits: u128, v: u8) -> Option<u128> {
        let (parts, _) = self.values.get(usize::from(v))?;
        Some(self.fields.iter().zip(*parts).fold(bits & !self.mask(), |b, (&(pos, _), &x)| b | (u128::from(x) << pos)))
    }

    /// The value `word` holds, `None` when its fields hold no listed one.
    fn read(&self, word: u128) -> Option<u8> {
        let parts: Vec<u8> =
            self.fields.iter().map(|&(pos, len)| ((word >> pos) as u8) & (((1u16 << len) - 1) as u8)).collect();
        self.values.iter().position(|(p, _)| *p == parts.as_slice()).and_then(|v| u8::try_from(v).ok())
    }
}

/// One place in a family's mnemonic, in print order.
#[derive(Debug)]
pub enum Slot {
    /// A modifier field whose value can be substituted.
    Field(WordField),
    /// Fields whose values are substituted together.
    Joint(JointField),
    /// A word taken as it is from the learned form (`.EX` changes the
    /// operands, so it is never substituted).
    Word(&'static str),
}

/// The negation bit of a predicate source.
#[derive(Debug)]
pub struct Negate {
    /// First bit of the predicate's number (its atom field).
    pub pred_pos: u8,
    /// The bit that prints it with `!`.
    pub bit: u8,
}

/// A mnemonic family.
#[derive(Debug)]
pub struct Family {
    /// The opcode (first word of the mnemonic).
    pub opcode: &'static str,
    /// The forms it holds for: opcode bits (0..11) and operand skeletons
    /// without marks (`-|~!`); empty: every form of the opcode.
    pub forms: &'static [(u16, &'static [&'static str])],
    /// The encoder families ([`Sm::base`]) it was probed on and is for;
    /// the first row of an opcode that lists an SM is that SM's.
    pub sms: &'static [Sm],
    /// The modifier words after the opcode, in print order.
    pub slots: &'static [Slot],
    /// A predicate source whose negation may be substituted.
    pub negate: Option<Negate>,
}

const INT_CMP: Slot =
    Slot::Field(WordField { pos: 76, len: 3, words: &["F", "LT", "EQ", "LE", "GT", "NE", "GE", "T"] });
const FLOAT_CMP: Slot = Slot::Field(WordField {
    pos: 76,
    len: 4,
    words: &["F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "T"],
});
const DOUBLE_CMP: Slot = Slot::Field(WordField {
    pos: 76,
    len: 4,
    words: &["MIN", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "MAX"],
});
const COMBINE: Slot = Slot::Field(WordField { pos: 74, len: 2, words: &["AND", "OR", "XOR"] });
const HALF_COMBINE: Slot = Slot::Field(WordField { pos: 69, len: 2, words: &["AND", "OR", "XOR"] });
const U32_AT_73: Slot = Slot::Field(WordField { pos: 73, len: 1, words: &["U32", ""] });
const U32_AT_72: Slot = Slot::Field(WordField { pos: 72, len: 1, words: &["U32", ""] });
/// sm_120's VIMNMX spells its signedness both ways (`VIMNMX.S32`).
const SIGN_AT_72_120: Slot = Slot::Field(WordField { pos: 72, len: 1, words: &["U32", "S32"] });
const FTZ: Slot = Slot::Field(WordField { pos: 80, len: 1, words: &["", "FTZ"] });
const NAN: Slot = Slot::Field(WordField { pos: 81, len: 1, words: &["", "NAN"] });
const U32_AT_74: Slot = Slot::Field(WordField { pos: 74, len: 1, words: &["U32", ""] });
/// Rounding of I2F (bits 78..79).
const ROUND_78: Slot = Slot::Field(WordField { pos: 78, len: 2, words: &["", "RM", "RP", "RZ"] });
/// Rounding of F2I (bits 78..79).
const F2I_ROUND: Slot = Slot::Field(WordField { pos: 78, len: 2, words: &["", "FLOOR", "CEIL", "TRUNC"] });
/// The operation of ATOMS (bits 87..90).
const ATOMS_OP: Slot =
    Slot::Field(WordField { pos: 87, len: 4, words: &["ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH"] });
/// The operand type of ATOMS (bits 73..75).
const ATOMS_TYPE: Slot = Slot::Field(WordField { pos: 73, len: 3, words: &["", "S32", "64"] });
/// The ordering of MEMBAR (bits 79..80).
const MEMBAR_SEM: Slot = Slot::Field(WordField { pos: 79, len: 2, words: &["SC", "ALL", ""] });
/// The scope of MEMBAR (bits 76..77).
const MEMBAR_SCOPE: Slot = Slot::Field(WordField { pos: 76, len: 2, words: &["CTA", "SM", "GPU", "SYS"] });
/// Rounding of DADD, DMUL and DFMA (bits 78..79).
const DOUBLE_ROUND: Slot = Slot::Field(WordField { pos: 78, len: 2, words: &["", "RM", "RP", "RZ"] });
/// `.SAT` of FMUL (bit 77, printed last: `FMUL.FTZ.RZ.SAT`).
const SAT_77: Slot = Slot::Field(WordField { pos: 77, len: 1, words: &["", "SAT"] });
/// The product scale of FMUL (bits 84..86).
const FMUL_SCALE: Slot =
    Slot::Field(WordField { pos: 84, len: 3, words: &[INVALID, "D8", "D4", "D2", "", "M2", "M4", "M8"] });
const NOT_90: Option<Negate> = Some(Negate { pred_pos: 87, bit: 90 });

/// `.E` (64-bit address; bit 72), never substituted.
const E: Slot = Slot::Word("E");
/// Access width and type of loads and stores (bits 73..75; 7 prints
/// `INVALID7`, LDS `???7`).
const WIDTH: Slot = Slot::Field(WordField { pos: 73, len: 3, words: &["U8", "S8", "U16", "S16", "", "64", "128"] });
/// LDC's width: 6 and 7 print `INVALID6`/`INVALID7`.
const LDC_WIDTH: Slot = Slot::Field(WordField { pos: 73, len: 3, words: &["U8", "S8", "U16", "S16", "", "64"] });
/// Eviction priority (bits 84..86; 6 and 7 print `INVALID6`/`INVALID7`).
const EVICT: Slot = Slot::Field(WordField { pos: 84, len: 3, words: &["EF", "", "EL", "LU", "EU", "NA"] });
/// Memory ordering and scope of loads (bits 77..80).
const LOAD_SEM_WORDS: [&str; 16] = [
    "",
    "CONSTANT.PRIVATE",
    "CONSTANT.CTA",
    "CONSTANT.CTA.PRIVATE",
    "CONSTANT",
    "STRONG.SM",
    "STRONG.GPU.PRIVATE",
    "STRONG.GPU",
    "MMIO.GPU",
    "CONSTANT.SM",
    "STRONG.SYS",
    "CONSTANT.SM.PRIVATE",
    "MMIO.SYS",
    "CONSTANT.VC",
    "CONSTANT.VC.PRIVATE",
    "CONSTANT.GPU",
];
const LOAD_SEM: Slot = Slot::Field(WordField { pos: 77, len: 4, words: &LOAD_SEM_WORDS });
/// Memory ordering and scope of stores (bits 77..80): the loads' words
/// but 4, which is `STRONG.SM.PRIVATE` (a store is never `.CONSTANT`).
const STORE_SEM_WORDS: [&str; 16] = {
    let mut words = LOAD_SEM_WORDS;
    words[4] = "STRONG.SM.PRIVATE";
    words
};
const STORE_SEM: Slot = Slot::Field(WordField { pos: 77, len: 4, words: &STORE_SEM_WORDS });

/// Blackwell's ordering and scope of `STG`: the others' but 13..15, which
/// are `SYS.ORDERED`, `STRONG.SYS.ORDERED` and `MMIO.SYS.ORDERED` (nvdisasm
/// -b SM100/SM120; generic `ST` keeps `CONSTANT.VC[.PRIVATE]`,
/// `CONSTANT.GPU` there).
const STORE_SEM_100: Slot = Slot::Field(WordField {
    pos: 77,
    len: 4,
    words: &{
        let mut words = STORE_SEM_WORDS;
        words[13] = "SYS.ORDERED";
        words[14] = "STRONG.SYS.ORDERED";
        words[15] = "MMIO.SYS.ORDERED";
        words
    },
});

/// sm_75's ordering and scope of loads: bits 77..78 the scope, bits
/// 79..80 the ordering (weak: no word).
const LOAD_SEM_75: Slot = Slot::Field(WordField {
    pos: 77,
    len: 4,
    words: &[
        "CONSTANT.CTA",
        "CONSTANT.SM",
        "CONSTANT.GPU",
        "CONSTANT.SYS",
        "CTA",
        "SM",
        "GPU",
        "SYS",
        "STRONG.CTA",
        "STRONG.SM",
        "STRONG.GPU",
        "STRONG.SYS",
        "MMIO.CTA",
        "MMIO.SM",
        "MMIO.GPU",
        "MMIO.SYS",
    ],
});
/// sm_75's ordering and scope of stores: the loads' but ordering 0
/// (`INVALID0`).
const STORE_SEM_75: Slot = Slot::Field(WordField {
    pos: 77,
    len: 4,
    words: &[
        INVALID,
        INVALID,
        INVALID,
        INVALID,
        "CTA",
        "SM",
        "GPU",
        "SYS",
        "STRONG.CTA",
        "STRONG.SM",
        "STRONG.GPU",
        "STRONG.SYS",
        "MMIO.CTA",
        "MMIO.SM",
        "MMIO.GPU",
        "MMIO.SYS",
    ],
});
/// sm_75's ordering and scope of atomics: the stores' without `MMIO`
/// (`INVALID3`).
const ATOM_SEM_75: Slot = Slot::Field(WordField {
    pos: 77,
    len: 4,
    words: &[
        INVALID,
        INVALID,
        INVALID,
        INVALID,
        "CTA",
        "SM",
        "GPU",
        "SYS",
        "STRONG.CTA",
        "STRONG.SM",
        "STRONG.GPU",
        "STRONG.SYS",
    ],
});

/// The operation of ATOMG (bits 87..90; 10..15 print `INVALID10`..).
const ATOM_OP: Slot = Slot::Field(WordField {
    pos: 87,
    len: 4,
    words: &["ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH", "SAFEADD"],
});
/// The operation of RED/REDG: bits 87..89, with bit 90 set (nvdisasm
/// rejects it clear).
const RED_OP: Slot =
    Slot::Field(WordField { pos: 87, len: 3, words: &["ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR"] });
/// The operand type of sm_80 atomics (bits 73..75; 7 is `INVALID7`).
const ATOM_TYPE_80: Slot =
    Slot::Field(WordField { pos: 73, len: 3, words: &["", "S32", "64", "F32.FTZ.RN", "F16x2.RN", "S64", "F64.RN"] });
/// The operand type of sm_90 ATOMG: its floating-point atomics have
/// other opcodes (5..7 print `INVALID5`..).
const ATOM_TYPE_90: Slot = Slot::Field(WordField { pos: 73, len: 3, words: &["", "S32", "64", "S64", "128"] });
/// The operand type of sm_90 REDG (4..7 print `INVALID4`..).
const RED_TYPE_90: Slot = Slot::Field(WordField { pos: 73, len: 3, words: &["", "S32", "64", "S64"] });

/// `.BYPASS` of LDGSTS (bit 81 clear: `cp.async.cg`).
const LDGSTS_BYPASS: Slot = Slot::Field(WordField { pos: 81, len: 1, words: &["BYPASS", ""] });
/// The L2 prefetch of LDGSTS (bits 71..72, `cp.async`'s `.L2::NB`).
const LDGSTS_LTC: Slot = Slot::Field(WordField { pos: 71, len: 2, words: &["", "LTC64B", "LTC128B", "LTC256B"] });
/// The size of LDGSTS (bits 73..74; 3 is not derived).
const LDGSTS_WIDTH: Slot = Slot::Field(WordField { pos: 73, len: 2, words: &["", "64", "128"] });
/// `.ZFILL` of LDGSTS (bit 82): the low address bits count the bytes to
/// fill with zeros.
const ZFILL: Slot = Slot::Field(WordField { pos: 82, len: 1, words: &["", "ZFILL"] });

/// The shape of HMMA (bit 75).
const HMMA_SHAPE: Slot = Slot::Field(WordField { pos: 75, len: 1, words: &["1688", "16816"] });
/// sm_75's HMMA shape: `16816` prints, but only sm_80 executes it.
const HMMA_SHAPE_75: Slot = Slot::Field(WordField { pos: 75, len: 1, words: &["1688", INVALID] });
/// The accumulator type of HMMA (bit 76).
const HMMA_ACC: Slot = Slot::Field(WordField { pos: 76, len: 1, words: &["F16", "F32"] });
/// The input type of HMMA (bits 82..83; binary16 has no word).
const HMMA_INPUT: Slot = Slot::Field(WordField { pos: 82, len: 2, words: &["", "BF16", "TF32"] });
/// Transposition of LDSM (bit 78).
const LDSM_TRANS: Slot = Slot::Field(WordField { pos: 78, len: 1, words: &["M88", "MT88"] });
/// The matrix count of LDSM (bits 72..73).
const LDSM_COUNT: Slot = Slot::Field(WordField { pos: 72, len: 2, words: &["", "2", "4"] });

/// The shape of HGMMA (bits 53..58, nvdisasm probes of NVIDIA's words for
/// Triton's matmuls): N / 8 - 1 in bits 53..57, K = 8 with bit 58 (the
/// tf32 shapes) and 16 without; bit 59 prints `INVALID`.
const HGMMA_SHAPE: Slot = Slot::Field(WordField {
    pos: 53,
    len: 6,
    words: &[
        "64x8x16",
        "64x16x16",
        "64x24x16",
        "64x32x16",
        "64x40x16",
        "64x48x16",
        "64x56x16",
        "64x64x16",
        "64x72x16",
        "64x80x16",
        "64x88x16",
        "64x96x16",
        "64x104x16",
        "64x112x16",
        "64x120x16",
        "64x128x16",
        "64x136x16",
        "64x144x16",
        "64x152x16",
        "64x160x16",
        "64x168x16",
        "64x176x16",
        "64x184x16",
        "64x192x16",
        "64x200x16",
        "64x208x16",
        "64x216x16",
        "64x224x16",
        "64x232x16",
        "64x240x16",
        "64x248x16",
        "64x256x16",
        "64x8x8",
        "64x16x8",
        "64x24x8",
        "64x32x8",
        "64x40x8",
        "64x48x8",
        "64x56x8",
        "64x64x8",
        "64x72x8",
        "64x80x8",
        "64x88x8",
        "64x96x8",
        "64x104x8",
        "64x112x8",
        "64x120x8",
        "64x128x8",
        "64x136x8",
        "64x144x8",
        "64x152x8",
        "64x160x8",
        "64x168x8",
        "64x176x8",
        "64x184x8",
        "64x192x8",
        "64x200x8",
        "64x208x8",
        "64x216x8",
        "64x224x8",
        "64x232x8",
        "64x240x8",
        "64x248x8",
        "64x256x8",
    ],
});
/// The accumulator type of HGMMA (bit 75).
const HGMMA_ACC: Slot = Slot::Field(WordField { pos: 75, len: 1, words: &["F16", "F32"] });
/// The input type of HGMMA (bits 76..77; binary16 has no word).
const HGMMA_INPUT: Slot = Slot::Field(WordField { pos: 76, len: 2, words: &["", "BF16", "TF32"] });

/// The shape of QGMMA (bits 53..57: N / 8 - 1; K is 32; bit 58 prints
/// `INVALID32`).
const QGMMA_SHAPE: Slot = Slot::Field(WordField {
    pos: 53,
    len: 5,
    words: &[
        "64x8x32",
        "64x16x32",
        "64x24x32",
        "64x32x32",
        "64x40x32",
        "64x48x32",
        "64x56x32",
        "64x64x32",
        "64x72x32",
        "64x80x32",
        "64x88x32",
        "64x96x32",
        "64x104x32",
        "64x112x32",
        "64x120x32",
        "64x128x32",
        "64x136x32",
        "64x144x32",
        "64x152x32",
        "64x160x32",
        "64x168x32",
        "64x176x32",
        "64x184x32",
        "64x192x32",
        "64x200x32",
        "64x208x32",
        "64x216x32",
        "64x224x32",
        "64x232x32",
        "64x240x32",
        "64x248x32",
        "64x256x32",
    ],
});
/// The type of QGMMA's A (bit 76).
const QGMMA_A: Slot = Slot::Field(WordField { pos: 76, len: 1, words: &["E4M3", "E5M2"] });
/// The type of QGMMA's B (bit 77).
const QGMMA_B: Slot = Slot::Field(WordField { pos: 77, len: 1, words: &["E4M3", "E5M2"] });

const TURING: &[Sm] = &[Sm::Sm75];
const AMPERE: &[Sm] = &[Sm::Sm80];
const HOPPER: &[Sm] = &[Sm::Sm90];
/// Hopper's rows hold on Blackwell too (probed alike on SM100 and SM120).
const HOPPER_ON: &[Sm] = &[Sm::Sm90, Sm::Sm100, Sm::Sm120];
const BLACKWELL: &[Sm] = &[Sm::Sm100, Sm::Sm120];
const SM120: &[Sm] = &[Sm::Sm120];
const BEFORE_BLACKWELL: &[Sm] = &[Sm::Sm75, Sm::Sm80, Sm::Sm90];
const EVERY: &[Sm] = &[Sm::Sm75, Sm::Sm80, Sm::Sm90, Sm::Sm100, Sm::Sm120];

/// The conversion rows for the operand skeletons `{R}, {R}` (session 14):
/// nvdisasm 13.5's flips of the solver's and NVIDIA's words, identical on
/// SM80 and SM90. `F2I.U8.NTZ R1, R2` (0x305, high word `0x202000`): bit
/// 72 signed, bits 75..76 the width (8 16 32; 3 prints `???6`/`???7`;
/// bits 73..74 are ignored), bits 84..85 the source format (1 `.F16`, 2
/// none; 0 and 3 are rejected); NVIDIA's `F2I.U8.F16.NTZ R8, R0`
/// (`0x102000`) and `F2I.U64.F16.CEIL R4, R0.H1` (0x311, `0x109800`: 3 in
/// 75..76, `F64` = 3 in 84..85 as in the learned `F2I.U64.F64`). `I2F.F16
/// R1, R2` (0x306, `0x200c00`): bits 75..76 the result format (1 `.F16`,
/// 2 none; 0/3 print `???0`/`???3`), bit 74 signed, bits 84..85 the
/// source width (0 8-bit, 1 16-bit, 2 32-bit), which the rows take from
/// the learned form (`I2F.U8`, `I2F.S16`, `I2F.U32`); NVIDIA's
/// `I2F.F16.U32 R6, R6` (`0x200800`) and `I2F.F16.U8.RM R10, R0.B2`
/// (`0x004800`). On 0x312 (64-bit sources) 75..76 = 3 is `.F64`. A zero
/// halves or byte selector prints nothing: these rows are for `{R}`.
const F2I_DEST_32: Slot = Slot::Field(WordField {
    pos: 72,
    len: 5,
    words: &[
        "U8", "S8", INVALID, INVALID, INVALID, INVALID, INVALID, INVALID, "U16", "S16", INVALID, INVALID, INVALID,
        INVALID, INVALID, INVALID, "U32", "",
    ],
});
const F2I_DEST_64: Slot = Slot::Field(WordField { pos: 72, len: 1, words: &["U64", "S64"] });
const F2I_SOURCE_32: Slot = Slot::Field(WordField { pos: 84, len: 2, words: &[INVALID, "F16", ""] });
const F2I_SOURCE_64: Slot = Slot::Field(WordField { pos: 84, len: 2, words: &[INVALID, "F16", "", "F64"] });
const NTZ_77: Slot = Slot::Field(WordField { pos: 77, len: 1, words: &["", "NTZ"] });
const I2F_RESULT_32: Slot = Slot::Field(WordField { pos: 75, len: 2, words: &[INVALID, "F16", ""] });
const I2F_RESULT_64: Slot = Slot::Field(WordField { pos: 75, len: 2, words: &[INVALID, "F16", "", "F64"] });
const SIGN_74_8: Slot = Slot::Field(WordField { pos: 74, len: 1, words: &["U8", "S8"] });
const SIGN_74_16: Slot = Slot::Field(WordField { pos: 74, len: 1, words: &["U16", "S16"] });
const SIGN_74_32: Slot = Slot::Field(WordField { pos: 74, len: 1, words: &["U32", ""] });
const SIGN_74_64: Slot = Slot::Field(WordField { pos: 74, len: 1, words: &["U64", "S64"] });
/// The SMs the conversion rows were probed on.
const AMPERE_HOPPER: &[Sm] = &[Sm::Sm80, Sm::Sm90];
const R_R: &[(u16, &[&str])] = &[(0x305, &["{R}", "{R}"])];
const R_R_311: &[(u16, &[&str])] = &[(0x311, &["{R}", "{R}"])];
const R_R_306: &[(u16, &[&str])] = &[(0x306, &["{R}", "{R}"])];
const R_R_312: &[(u16, &[&str])] = &[(0x312, &["{R}", "{R}"])];

/// sm_90's `HSET2` on registers (0x233; session 15): nvdisasm 13.5's flips
/// of `HSET2.LT.AND R0, R0, R0, P0` (`0x233`, high word `0x1000`) on SM90
/// print bits 64..65 `BF16_V2` (2; 1 prints `INVALID1`), 71 `.BF` (a 1.0
/// result), 76..79 the comparison, 80 `.FTZ`, 69..70 the combine (the
/// HSETP2 family's), 90 the negation of the predicate at 87..89, and 72..75
/// / 60..63 the marks and halves of `a` / `b`; printed
/// `HSET2.BF16_V2.BF.NAN.FTZ.AND` (SM80 ignores 64..65 and has the learned
/// family). No learned family of sm_90 holds for `{R}, {R}, {R}` or
/// `.H0_H0` sources; the immediate and constant forms (0x433, 0x633) are
/// left to theirs (`.BF16_V2` changes an immediate's type).
const HSET2_BF16: Slot = Slot::Field(WordField { pos: 64, len: 2, words: &["", INVALID, "BF16_V2"] });
const HSET2_BF: Slot = Slot::Field(WordField { pos: 71, len: 1, words: &["", "BF"] });
const HSET2_R_R_90: &[(u16, &[&str])] = &[
    (0x233, &["{R}", "{R}", "{R}", "{P}"]),
    (0x233, &["{R}", "{R}", "{R}.H0_H0", "{P}"]),
    (0x233, &["{R}", "{R}", "{R}.H1_H1", "{P}"]),
    (0x233, &["{R}", "{R}.H0_H0", "{R}", "{P}"]),
    (0x233, &["{R}", "{R}.H0_H0", "{R}.H0_H0", "{P}"]),
    (0x233, &["{R}", "{R}.H0_H0", "{R}.H1_H1", "{P}"]),
    (0x233, &["{R}", "{R}.H1_H1", "{R}", "{P}"]),
    (0x233, &["{R}", "{R}.H1_H1", "{R}.H0_H0", "{P}"]),
    (0x233, &["{R}", "{R}.H1_H1", "{R}.H1_H1", "{P}"]),
];

/// The half-precision arithmetic on registers, sm_80 and sm_90 (session
/// 15): nvdisasm 13.5's flips of `HADD2 R1, R2, R3` (0x230), `HFMA2 R1, R2,
/// R3, R4` (0x231) and NVIDIA's `HMNMX2.BF16_V2 R7, R0.H0_H0, R5.H0_H0,
/// !PT` (0x240, high word `0x07a00800`), every combination of the fields
/// below listed and accepted: bit 85 `.BF16_V2` (HADD2: sm_90 only; sm_80
/// ignores it there), 80 `.FTZ`, 77 `.SAT`, HMNMX2's 81 `.NAN`; HFMA2's
/// 79 `.RELU`, which adds a predicate operand that nvdisasm leaves out at
/// `PT` (87..89 = 7: NVIDIA's `HFMA2.RELU R6, R0.H0_H0, R5.H0_H0,
/// R0.H1_H1`, `0x03868800`), and which nvdisasm rejects with `.SAT`. The
/// sources' halves (`a` 74..75, `b` 60..61, HFMA2's `c` 81..82) and marks
/// are operand bits, so the rows hold for every halves of the registers;
/// `.F32` (78) and `.FMZ` (76), which change the operands or exclude
/// `.FTZ`, are left to the learned forms.
const BF16_V2_85: Slot = Slot::Field(WordField { pos: 85, len: 1, words: &["", "BF16_V2"] });
/// HFMA2's `.SAT` (77) or `.RELU` (79 with `PT` at 87..89).
const SAT_OR_RELU: Slot = Slot::Joint(JointField {
    fields: &[(77, 1), (79, 1), (87, 3)],
    values: &[(&[0, 0, 0], ""), (&[1, 0, 0], "SAT"), (&[0, 1, 7], "RELU")],
});
const HADD2_R: &[(u16, &[&str])] = &[
    (0x230, &["{R}", "{R}", "{R}"]),
    (0x230, &["{R}", "{R}", "{R}.H0_H0"]),
    (0x230, &["{R}", "{R}", "{R}.H1_H1"]),
    (0x230, &["{R}", "{R}.H0_H0", "{R}"]),
    (0x230, &["{R}", "{R}.H0_H0", "{R}.H0_H0"]),
    (0x230, &["{R}", "{R}.H0_H0", "{R}.H1_H1"]),
    (0x230, &["{R}", "{R}.H1_H1", "{R}"]),
    (0x230, &["{R}", "{R}.H1_H1", "{R}.H0_H0"]),
    (0x230, &["{R}", "{R}.H1_H1", "{R}.H1_H1"]),
];
const HMNMX2_R: &[(u16, &[&str])] = &[
    (0x240, &["{R}", "{R}", "{R}", "{P}"]),
    (0x240, &["{R}", "{R}", "{R}.H0_H0", "{P}"]),
    (0x240, &["{R}", "{R}", "{R}.H1_H1", "{P}"]),
    (0x240, &["{R}", "{R}.H0_H0", "{R}", "{P}"]),
    (0x240, &["{R}", "{R}.H0_H0", "{R}.H0_H0", "{P}"]),
    (0x240, &["{R}", "{R}.H0_H0", "{R}.H1_H1", "{P}"]),
    (0x240, &["{R}", "{R}.H1_H1", "{R}", "{P}"]),
    (0x240, &["{R}", "{R}.H1_H1", "{R}.H0_H0", "{P}"]),
    (0x240, &["{R}", "{R}.H1_H1", "{R}.H1_H1", "{P}"]),
];
const HFMA2_R: &[(u16, &[&str])] = &[
    (0x231, &["{R}", "{R}", "{R}", "{R}"]),
    (0x231, &["{R}", "{R}", "{R}", "{R}.H0_H0"]),
    (0x231, &["{R}", "{R}", "{R}", "{R}.H1_H1"]),
    (0x231, &["{R}", "{R}", "{R}.H0_H0", "{R}"]),
    (0x231, &["{R}", "{R}", "{R}.H0_H0", "{R}.H0_H0"]),
    (0x231, &["{R}", "{R}", "{R}.H0_H0", "{R}.H1_H1"]),
    (0x231, &["{R}", "{R}", "{R}.H1_H1", "{R}"]),
    (0x231, &["{R}", "{R}", "{R}.H1_H1", "{R}.H0_H0"]),
    (0x231, &["{R}", "{R}", "{R}.H1_H1", "{R}.H1_H1"]),
    (0x231, &["{R}", "{R}.H0_H0", "{R}", "{R}"]),
    (0x231, &["{R}", "{R}.H0_H0", "{R}", "{R}.H0_H0"]),
    (0x231, &["{R}", "{R}.H0_H0", "{R}", "{R}.H1_H1"]),
    (0x231, &["{R}", "{R}.H0_H0", "{R}.H0_H0", "{R}"]),
    (0x231, &["{R}", "{R}.H0_H0", "{R}.H0_H0", "{R}.H0_H0"]),
    (0x231, &["{R}", "{R}.H0_H0", "{R}.H0_H0", "{R}.H1_H1"]),
    (0x231, &["{R}", "{R}.H0_H0", "{R}.H1_H1", "{R}"]),
    (0x231, &["{R}", "{R}.H0_H0", "{R}.H1_H1", "{R}.H0_H0"]),
    (0x231, &["{R}", "{R}.H0_H0", "{R}.H1_H1", "{R}.H1_H1"]),
    (0x231, &["{R}", "{R}.H1_H1", "{R}", "{R}"]),
    (0x231, &["{R}", "{R}.H1_H1", "{R}", "{R}.H0_H0"]),
    (0x231, &["{R}", "{R}.H1_H1", "{R}", "{R}.H1_H1"]),
    (0x231, &["{R}", "{R}.H1_H1", "{R}.H0_H0", "{R}"]),
    (0x231, &["{R}", "{R}.H1_H1", "{R}.H0_H0", "{R}.H0_H0"]),
    (0x231, &["{R}", "{R}.H1_H1", "{R}.H0_H0", "{R}.H1_H1"]),
    (0x231, &["{R}", "{R}.H1_H1", "{R}.H1_H1", "{R}"]),
    (0x231, &["{R}", "{R}.H1_H1", "{R}.H1_H1", "{R}.H0_H0"]),
    (0x231, &["{R}", "{R}.H1_H1", "{R}.H1_H1", "{R}.H1_H1"]),
];

/// `IDP` on registers (0x226, session 15): nvdisasm's flips of NVIDIA's
/// `IDP.4A.U8.S8 R23, R0, R5, R4` (high word `0x0404`) and
/// `IDP.2A.LO.U16.S8` (`0x1404`), identical on SM80 and SM90: bit 73 the
/// signedness of `a`, 74 of `b`, 76 `.2A` (else `.4A`), 77 `.HI` of `.2A`
/// (rejected on `.4A`).
const IDP_R: &[(u16, &[&str])] = &[(0x226, &["{R}", "{R}", "{R}", "{R}"])];
const SIGN_73_8: Slot = Slot::Field(WordField { pos: 73, len: 1, words: &["U8", "S8"] });
const SIGN_73_16: Slot = Slot::Field(WordField { pos: 73, len: 1, words: &["U16", "S16"] });
const SIGN_74_B: Slot = Slot::Field(WordField { pos: 74, len: 1, words: &["U8", "S8"] });
const IDP_HALF: Slot = Slot::Field(WordField { pos: 77, len: 1, words: &["LO", "HI"] });

/// Conversions between float formats on registers (session 15):
/// nvdisasm 13.5 listed every result format (bits 75..77) against every
/// source format (84..86) of `F2F R1, R2` (0x304: 32-bit or narrower
/// both; 0x310: a 64-bit one) and `FRND R1, R2` (0x307): 1 `F16`, 2
/// `F32`, 3 `F64`, 4 `BF16` (sm_90; sm_80 ignores bits 77 and 86 but on
/// 0x304's result, where 4 is `BF16`), accepted only in the pairs below
/// (FRND: equal formats). NVIDIA's words agree: `FRND.F16.FLOOR R11, R0`
/// (`0x104800`), `F2F.F16.F64.RZ R9, R4` (`0x30c800`), `F2F.FTZ.BF16.F32
/// R15, R6` (`0x212000`). `.FTZ` (80) and the rounding (78..79) compose
/// with every pair.
const F2F_304_80: Slot = Slot::Joint(JointField {
    fields: &[(75, 3), (84, 3)],
    values: &[(&[1, 2], "F16.F32"), (&[2, 1], "F32.F16"), (&[4, 2], "BF16.F32")],
});
const F2F_304_90: Slot = Slot::Joint(JointField {
    fields: &[(75, 3), (84, 3)],
    values: &[
        (&[1, 2], "F16.F32"),
        (&[1, 4], "F16.BF16"),
        (&[2, 1], "F32.F16"),
        (&[2, 4], "F32.BF16"),
        (&[4, 1], "BF16.F16"),
        (&[4, 2], "BF16.F32"),
    ],
});
const F2F_310_80: Slot = Slot::Joint(JointField {
    fields: &[(75, 3), (84, 3)],
    values: &[(&[1, 3], "F16.F64"), (&[2, 3], "F32.F64"), (&[3, 1], "F64.F16"), (&[3, 2], "F64.F32")],
});
const F2F_310_90: Slot = Slot::Joint(JointField {
    fields: &[(75, 3), (84, 3)],
    values: &[
        (&[1, 3], "F16.F64"),
        (&[2, 3], "F32.F64"),
        (&[3, 1], "F64.F16"),
        (&[3, 2], "F64.F32"),
        (&[3, 4], "F64.BF16"),
        (&[4, 3], "BF16.F64"),
    ],
});
const FRND_80: Slot =
    Slot::Joint(JointField { fields: &[(75, 3), (84, 3)], values: &[(&[1, 1], "F16"), (&[2, 2], "")] });
const FRND_90: Slot = Slot::Joint(JointField {
    fields: &[(75, 3), (84, 3)],
    values: &[(&[1, 1], "F16"), (&[2, 2], ""), (&[4, 4], "BF16")],
});
const R_R_304: &[(u16, &[&str])] = &[(0x304, &["{R}", "{R}"])];
const R_R_310: &[(u16, &[&str])] = &[(0x310, &["{R}", "{R}"])];
const R_R_307: &[(u16, &[&str])] = &[(0x307, &["{R}", "{R}"])];

/// sm_90's `BF16` conversions (session 15): NVIDIA's `F2I.U16.BF16.NTZ R11,
/// R0` (0x305, high word `0x402800`), `F2I.U64.BF16.TRUNC R6, R0` (0x311,
/// `0x40d800`), `I2F.BF16.S64 R4, R4` (0x312, `0x302400`) and
/// `I2F.BF16.U16 R8, R11` (0x306, `0x102000`): F2I's source format is
/// bits 84..86 and I2F's result format 75..77, 4 = `BF16` (sm_80 rejects
/// it); nvdisasm accepts every combination with the other fields.
const F2I_SOURCE_32_90: Slot =
    Slot::Field(WordField { pos: 84, len: 3, words: &[INVALID, "F16", "", INVALID, "BF16"] });
const F2I_SOURCE_64_90: Slot = Slot::Field(WordField { pos: 84, len: 3, words: &[INVALID, "F16", "", "F64", "BF16"] });
const I2F_RESULT_32_90: Slot =
    Slot::Field(WordField { pos: 75, len: 3, words: &[INVALID, "F16", "", INVALID, "BF16"] });
const I2F_RESULT_64_90: Slot = Slot::Field(WordField { pos: 75, len: 3, words: &[INVALID, "F16", "", "F64", "BF16"] });

/// The families, from the nvdisasm probes above. An SM's own row for an
/// opcode comes before the row for every SM.
pub static FAMILIES: &[Family] = &[
    // Rows for some forms only: they add to the opcode's row
    // (`families_for`).
    Family {
        opcode: "F2I",
        forms: R_R,
        sms: HOPPER,
        slots: &[FTZ, F2I_DEST_32, F2I_SOURCE_32_90, F2I_ROUND, NTZ_77],
        negate: None,
    },
    Family {
        opcode: "F2I",
        forms: R_R_311,
        sms: HOPPER,
        slots: &[FTZ, F2I_DEST_64, F2I_SOURCE_64_90, F2I_ROUND, NTZ_77],
        negate: None,
    },
    Family {
        opcode: "I2F",
        forms: R_R_306,
        sms: HOPPER,
        slots: &[I2F_RESULT_32_90, SIGN_74_8, ROUND_78],
        negate: None,
    },
    Family {
        opcode: "I2F",
        forms: R_R_306,
        sms: HOPPER,
        slots: &[I2F_RESULT_32_90, SIGN_74_16, ROUND_78],
        negate: None,
    },
    Family {
        opcode: "I2F",
        forms: R_R_306,
        sms: HOPPER,
        slots: &[I2F_RESULT_32_90, SIGN_74_32, ROUND_78],
        negate: None,
    },
    Family {
        opcode: "I2F",
        forms: R_R_312,
        sms: HOPPER,
        slots: &[I2F_RESULT_64_90, SIGN_74_64, ROUND_78],
        negate: None,
    },
    Family {
        opcode: "F2I",
        forms: R_R,
        sms: AMPERE,
        slots: &[FTZ, F2I_DEST_32, F2I_SOURCE_32, F2I_ROUND, NTZ_77],
        negate: None,
    },
    Family {
        opcode: "F2I",
        forms: R_R_311,
        sms: AMPERE,
        slots: &[FTZ, F2I_DEST_64, F2I_SOURCE_64, F2I_ROUND, NTZ_77],
        negate: None,
    },
    Family { opcode: "I2F", forms: R_R_306, sms: AMPERE, slots: &[I2F_RESULT_32, SIGN_74_8, ROUND_78], negate: None },
    Family { opcode: "I2F", forms: R_R_306, sms: AMPERE, slots: &[I2F_RESULT_32, SIGN_74_16, ROUND_78], negate: None },
    Family { opcode: "I2F", forms: R_R_306, sms: AMPERE, slots: &[I2F_RESULT_32, SIGN_74_32, ROUND_78], negate: None },
    Family { opcode: "I2F", forms: R_R_312, sms: AMPERE, slots: &[I2F_RESULT_64, SIGN_74_64, ROUND_78], negate: None },
    Family {
        opcode: "HSET2",
        forms: HSET2_R_R_90,
        sms: HOPPER,
        slots: &[HSET2_BF16, HSET2_BF, FLOAT_CMP, FTZ, HALF_COMBINE],
        negate: NOT_90,
    },
    Family { opcode: "F2F", forms: R_R_304, sms: AMPERE, slots: &[FTZ, F2F_304_80, ROUND_78], negate: None },
    Family { opcode: "F2F", forms: R_R_304, sms: HOPPER, slots: &[FTZ, F2F_304_90, ROUND_78], negate: None },
    Family { opcode: "F2F", forms: R_R_310, sms: AMPERE, slots: &[FTZ, F2F_310_80, ROUND_78], negate: None },
    Family { opcode: "F2F", forms: R_R_310, sms: HOPPER, slots: &[FTZ, F2F_310_90, ROUND_78], negate: None },
    Family { opcode: "FRND", forms: R_R_307, sms: AMPERE, slots: &[FTZ, FRND_80, F2I_ROUND], negate: None },
    Family { opcode: "FRND", forms: R_R_307, sms: HOPPER, slots: &[FTZ, FRND_90, F2I_ROUND], negate: None },
    Family { opcode: "HADD2", forms: HADD2_R, sms: HOPPER, slots: &[BF16_V2_85, FTZ, SAT_77], negate: None },
    Family {
        opcode: "HFMA2",
        forms: HFMA2_R,
        sms: AMPERE_HOPPER,
        slots: &[BF16_V2_85, FTZ, SAT_OR_RELU],
        negate: None,
    },
    Family { opcode: "HMNMX2", forms: HMNMX2_R, sms: AMPERE_HOPPER, slots: &[BF16_V2_85, FTZ, NAN], negate: NOT_90 },
    Family {
        opcode: "IDP",
        forms: IDP_R,
        sms: AMPERE_HOPPER,
        slots: &[Slot::Word("4A"), SIGN_73_8, SIGN_74_B],
        negate: None,
    },
    Family {
        opcode: "IDP",
        forms: IDP_R,
        sms: AMPERE_HOPPER,
        slots: &[Slot::Word("2A"), IDP_HALF, SIGN_73_16, SIGN_74_B],
        negate: None,
    },
    // sm_75's own rows.
    Family { opcode: "FMNMX", forms: &[], sms: TURING, slots: &[FTZ], negate: NOT_90 },
    Family { opcode: "IMNMX", forms: &[], sms: TURING, slots: &[U32_AT_73], negate: NOT_90 },
    Family { opcode: "LDG", forms: &[], sms: TURING, slots: &[E, EVICT, WIDTH, LOAD_SEM_75], negate: None },
    Family { opcode: "LD", forms: &[], sms: TURING, slots: &[E, EVICT, WIDTH, LOAD_SEM_75], negate: None },
    Family { opcode: "STG", forms: &[], sms: TURING, slots: &[E, EVICT, WIDTH, STORE_SEM_75], negate: None },
    Family { opcode: "ST", forms: &[], sms: TURING, slots: &[E, EVICT, WIDTH, STORE_SEM_75], negate: None },
    Family {
        opcode: "ATOMG",
        forms: &[],
        sms: TURING,
        slots: &[E, ATOM_OP, EVICT, ATOM_TYPE_80, ATOM_SEM_75],
        negate: None,
    },
    Family {
        opcode: "ATOM",
        forms: &[],
        sms: TURING,
        slots: &[E, ATOM_OP, EVICT, ATOM_TYPE_80, ATOM_SEM_75],
        negate: None,
    },
    Family {
        opcode: "RED",
        forms: &[],
        sms: TURING,
        slots: &[E, RED_OP, EVICT, ATOM_TYPE_80, ATOM_SEM_75],
        negate: None,
    },
    Family { opcode: "HMMA", forms: &[], sms: TURING, slots: &[HMMA_SHAPE_75, HMMA_ACC], negate: None },
    // Blackwell's `IADD3.X` negates its second carry-in (bits 77..79) with
    // bit 80 (`IADD3.X R16, PT, PT, RZ, R16, RZ, P2, !PT`).
    Family {
        opcode: "IADD3",
        forms: &[],
        sms: BLACKWELL,
        slots: &[Slot::Word("X")],
        negate: Some(Negate { pred_pos: 77, bit: 80 }),
    },
    Family {
        opcode: "ISETP",
        forms: &[],
        sms: EVERY,
        slots: &[INT_CMP, U32_AT_73, COMBINE, Slot::Word("EX")],
        negate: NOT_90,
    },
    Family {
        opcode: "UISETP",
        forms: &[],
        sms: EVERY,
        slots: &[INT_CMP, U32_AT_73, COMBINE, Slot::Word("EX")],
        negate: NOT_90,
    },
    Family { opcode: "FSETP", forms: &[], sms: EVERY, slots: &[FLOAT_CMP, FTZ, COMBINE], negate: NOT_90 },
    Family { opcode: "HSETP2", forms: &[], sms: EVERY, slots: &[FLOAT_CMP, FTZ, HALF_COMBINE], negate: NOT_90 },
    Family { opcode: "DSETP", forms: &[], sms: EVERY, slots: &[DOUBLE_CMP, COMBINE], negate: NOT_90 },
    Family { opcode: "FMNMX", forms: &[], sms: EVERY, slots: &[FTZ, NAN], negate: NOT_90 },
    Family { opcode: "IMNMX", forms: &[], sms: AMPERE, slots: &[U32_AT_73], negate: NOT_90 },
    Family { opcode: "VIMNMX", forms: &[], sms: SM120, slots: &[SIGN_AT_72_120], negate: NOT_90 },
    Family { opcode: "VIMNMX", forms: &[], sms: HOPPER_ON, slots: &[U32_AT_72], negate: NOT_90 },
    Family { opcode: "I2F", forms: &[], sms: EVERY, slots: &[U32_AT_74, ROUND_78], negate: None },
    Family {
        opcode: "F2I",
        forms: &[],
        sms: EVERY,
        slots: &[FTZ, U32_AT_72, F2I_ROUND, Slot::Word("NTZ")],
        negate: None,
    },
    // NVIDIA's `FRND.F64 R2, R24` / `.FLOOR` / `.TRUNC` (math_double on
    // sm_80: bits 78..79 as F2I's, 0 / 1 / 3); bit 80 `.FTZ` (NVIDIA's
    // `FRND.FTZ.FLOOR R14, R2`, 0x000fe20000215000_00000002000e7307, of
    // Triton's `tl.math.floor`).
    Family { opcode: "FRND", forms: &[], sms: EVERY, slots: &[FTZ, Slot::Word("F64"), F2I_ROUND], negate: None },
    // NVIDIA's `F2F.F32.F64` and `.RP` (bits 78..79 as FADD's rounding).
    Family {
        opcode: "F2F",
        forms: &[],
        sms: EVERY,
        slots: &[Slot::Word("F32"), Slot::Word("F64"), ROUND_78],
        negate: None,
    },
    Family { opcode: "ATOMS", forms: &[], sms: EVERY, slots: &[ATOMS_OP, ATOMS_TYPE], negate: None },
    Family { opcode: "MEMBAR", forms: &[], sms: EVERY, slots: &[MEMBAR_SEM, MEMBAR_SCOPE], negate: None },
    Family { opcode: "FADD", forms: &[], sms: EVERY, slots: &[FTZ, ROUND_78, SAT_77], negate: None },
    Family { opcode: "FFMA", forms: &[], sms: EVERY, slots: &[FTZ, ROUND_78], negate: None },
    Family { opcode: "FMUL", forms: &[], sms: EVERY, slots: &[FTZ, FMUL_SCALE, ROUND_78, SAT_77], negate: None },
    // sm_100's packed pairs (tables/sm100_probed.rs): FADD's `.FTZ` and
    // rounding.
    Family { opcode: "FADD2", forms: &[], sms: &[Sm::Sm100], slots: &[FTZ, ROUND_78], negate: None },
    Family { opcode: "FMUL2", forms: &[], sms: &[Sm::Sm100], slots: &[FTZ, ROUND_78], negate: None },
    Family { opcode: "FFMA2", forms: &[], sms: &[Sm::Sm100], slots: &[FTZ, ROUND_78], negate: None },
    Family { opcode: "DADD", forms: &[], sms: EVERY, slots: &[DOUBLE_ROUND], negate: None },
    Family { opcode: "DMUL", forms: &[], sms: EVERY, slots: &[DOUBLE_ROUND], negate: None },
    Family { opcode: "DFMA", forms: &[], sms: EVERY, slots: &[DOUBLE_ROUND], negate: None },
    Family { opcode: "STG", forms: &[], sms: BLACKWELL, slots: &[E, EVICT, WIDTH, STORE_SEM_100], negate: None },
    Family { opcode: "LDG", forms: &[], sms: EVERY, slots: &[E, EVICT, WIDTH, LOAD_SEM], negate: None },
    Family { opcode: "LD", forms: &[], sms: EVERY, slots: &[E, EVICT, WIDTH, LOAD_SEM], negate: None },
    Family { opcode: "STG", forms: &[], sms: EVERY, slots: &[E, EVICT, WIDTH, STORE_SEM], negate: None },
    Family { opcode: "ST", forms: &[], sms: EVERY, slots: &[E, EVICT, WIDTH, STORE_SEM], negate: None },
    Family { opcode: "LDL", forms: &[], sms: EVERY, slots: &[EVICT, WIDTH], negate: None },
    Family { opcode: "STL", forms: &[], sms: EVERY, slots: &[EVICT, WIDTH], negate: None },
    Family { opcode: "LDS", forms: &[], sms: EVERY, slots: &[WIDTH], negate: None },
    Family { opcode: "STS", forms: &[], sms: EVERY, slots: &[WIDTH], negate: None },
    Family { opcode: "LDC", forms: &[], sms: EVERY, slots: &[LDC_WIDTH], negate: None },
    Family {
        opcode: "ATOMG",
        forms: &[],
        sms: AMPERE,
        slots: &[E, ATOM_OP, EVICT, ATOM_TYPE_80, STORE_SEM],
        negate: None,
    },
    Family {
        opcode: "ATOMG",
        forms: &[],
        sms: HOPPER_ON,
        slots: &[E, ATOM_OP, EVICT, ATOM_TYPE_90, STORE_SEM],
        negate: None,
    },
    Family {
        opcode: "ATOM",
        forms: &[],
        sms: AMPERE,
        slots: &[E, ATOM_OP, EVICT, ATOM_TYPE_80, STORE_SEM],
        negate: None,
    },
    Family {
        opcode: "ATOM",
        forms: &[],
        sms: HOPPER_ON,
        slots: &[E, ATOM_OP, EVICT, ATOM_TYPE_90, STORE_SEM],
        negate: None,
    },
    Family {
        opcode: "RED",
        forms: &[],
        sms: AMPERE,
        slots: &[E, RED_OP, EVICT, ATOM_TYPE_80, STORE_SEM],
        negate: None,
    },
    Family {
        opcode: "REDG",
        forms: &[],
        sms: HOPPER_ON,
        slots: &[E, RED_OP, EVICT, RED_TYPE_90, STORE_SEM],
        negate: None,
    },
    Family { opcode: "HMMA", forms: &[], sms: EVERY, slots: &[HMMA_SHAPE, HMMA_ACC, HMMA_INPUT], negate: None },
    Family { opcode: "HGMMA", forms: &[], sms: HOPPER, slots: &[HGMMA_SHAPE, HGMMA_ACC, HGMMA_INPUT], negate: None },
    Family {
        opcode: "QGMMA",
        forms: &[],
        sms: HOPPER,
        slots: &[QGMMA_SHAPE, HGMMA_ACC, QGMMA_A, QGMMA_B],
        negate: None,
    },
    crate::tables::igmma16_probed::IGMMA_FAMILY,
    Family { opcode: "LDSM", forms: &[], sms: EVERY, slots: &[Slot::Word("16"), LDSM_TRANS, LDSM_COUNT], negate: None },
    Family {
        opcode: "STSM",
        forms: &[],
        sms: HOPPER_ON,
        slots: &[Slot::Word("16"), LDSM_TRANS, LDSM_COUNT],
        negate: None,
    },
    Family {
        opcode: "LDGSTS",
        forms: &[],
        sms: BEFORE_BLACKWELL,
        slots: &[E, LDGSTS_BYPASS, LDGSTS_LTC, LDGSTS_WIDTH, ZFILL],
        negate: NOT_90,
    },
];

/// The probed family of `opcode` on `sm` ([`FAMILIES`]).
pub fn family(sm: Sm, opcode: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.opcode == opcode && f.sms.contains(&sm.base()) && f.forms.is_empty())
}

/// The probed rows of `opcode` that `sm` uses: those for some forms only
/// (`Family::forms` not empty), then its row for every form ([`family`]).
pub fn probed_rows(sm: Sm, opcode: &str) -> impl Iterator<Item = &'static Family> + '_ {
    FAMILIES
        .iter()
        .filter(move |f| f.opcode == opcode && f.sms.contains(&sm.base()) && !f.forms.is_empty())
        .chain(family(sm, opcode))
}

/// The families `form` of `opcode` may belong to on `sm`: the probed one,
/// then those the solver's flips gave (`tables/fields.rs`,
/// `tools/learn_fields.py`), which cover modifier combinations no probe
/// did (`HADD2.FTZ.SAT`, `MUFU.TANH`, `PRMT.F4E`).
fn families_for<'a>(sm: Sm, opcode: &'a str, form: &'a Form) -> impl Iterator<Item = &'static Family> + 'a {
    let learned = learned(sm).get(opcode).map_or(&[][..], Vec::as_slice);
    probed_rows(sm, opcode).chain(learned.iter().copied()).filter(move |f| f.holds_for(form))
}

/// An operand skeleton without its marks (`-|{R}|` -> `{R}`).
fn without_marks(skeleton: &str) -> impl Iterator<Item = char> + '_ {
    skeleton.chars().filter(|c| !matches!(c, '-' | '|' | '~' | '!'))
}

/// The learned families of `sm`'s encoder family, by opcode.
fn learned(sm: Sm) -> &'static HashMap<&'static str, Vec<&'static Family>> {
    static CELLS: [OnceLock<HashMap<&str, Vec<&Family>>>; Sm::ALL.len()] = [const { OnceLock::new() }; Sm::ALL.len()];
    CELLS[sm.index()].get_or_init(|| {
        use crate::tables::fields;
        let rows = match sm.base() {
            Sm::Sm75 => fields::SM75,
            Sm::Sm90 => fields::SM90,
            Sm::Sm100 => fields::SM100,
            Sm::Sm120 => fields::SM120,
            _ => fields::SM80,
        };
        let mut by_opcode: HashMap<&str, Vec<&Family>> = HashMap::new();
        for f in rows {
            by_opcode.entry(f.opcode).or_default().push(f);
        }
        by_opcode
    })
}

impl Family {
    /// Whether the family holds for `form`: a learned family's fields were
    /// checked on its own forms only (on others a field may change what an
    /// operand means: `.E` the address width, `.U64` an immediate's sign).
    pub fn holds_for(&self, form: &Form) -> bool {
        let encoding = form.bits as u16 & OPCODE_BITS;
        self.forms.is_empty()
            || self.forms.iter().any(|(e, operands)| {
                *e == encoding
                    && operands.len() == form.operands.len()
                    && operands.iter().zip(form.operands).all(|(a, b)| without_marks(b).eq(a.chars()))
            })
    }

    /// The slot values of `mnemonic` (field value, or 1/0 for a present /
    /// absent word), or `None` when it is not spelled as this family.
    pub fn parse(&self, mnemonic: &str) -> Option<Vec<u8>> {
        // Most callers try every form; reject other opcodes before splitting.
        if mnemonic.split('.').next() != Some(self.opcode) {
            return None;
        }
        let words: Vec<&str> = mnemonic.split('.').collect();
        // A field word may span several mnemonic words (`STRONG.GPU`); the
        // longest that follows wins.
        let starts = |at: usize, word: &str| {
            let n = word.split('.').count();
            (!word.is_empty() && words.get(at..at + n).is_some_and(|w| w.join(".") == word)).then_some(n)
        };
        let mut at = 1;
        let mut values = Vec::with_capacity(self.slots.len());
        for slot in self.slots {
            match slot {
                Slot::Field(_) | Slot::Joint(_) => {
                    let words = slot.value_words().unwrap_or_default();
                    let found =
                        words.iter().enumerate().filter_map(|(v, w)| Some((v, starts(at, w)?))).max_by_key(|x| x.1);
                    let v = match found {
                        Some((v, n)) => {
                            at += n;
                            v
                        }
                        None => words.iter().position(|x| x.is_empty())?,
                    };
                    values.push(v as u8);
                }
                Slot::Word(w) => {
                    let present = starts(at, w).is_some();
                    if present {
                        at += 1;
                    }
                    values.push(u8::from(present));
                }
            }
        }
        (at == words.len()).then_some(values)
    }

    /// [`Family::parse`] of a mnemonic the compiler built, whose modifier
    /// words may stand in another order than nvdisasm prints them (the
    /// lowering writes `FADD.SAT.FTZ.RZ` for nvdisasm's `FADD.FTZ.RZ.SAT`):
    /// the same slot values when the order does not matter, that is when
    /// every word belongs to one slot's words only and the fixed words
    /// (`Slot::Word`, such as the types of `F2F.F16.F32`, whose order is
    /// their meaning) stand in the family's order; else `None`.
    pub fn parse_in_any_order(&self, mnemonic: &str) -> Option<Vec<u8>> {
        if let Some(values) = self.parse(mnemonic) {
            return Some(values);
        }
        let mut words = mnemonic.split('.');
        if words.next() != Some(self.opcode) {
            return None;
        }
        let words: Vec<&str> = words.collect();
        let spellings = |slot: &Slot| -> Vec<(u8, &'static str)> {
            match slot {
                Slot::Field(_) | Slot::Joint(_) => (0..)
                    .zip(slot.value_words().unwrap_or_default())
                    .filter(|(_, w)| !w.is_empty() && *w != INVALID)
                    .collect(),
                Slot::Word(w) => vec![(1, *w)],
            }
        };
        // A word two slots could hold makes the order meaningful.
        for w in &words {
            let holders =
                self.slots.iter().filter(|s| spellings(s).iter().any(|(_, sp)| sp.split('.').any(|x| x == *w))).count();
            if holders != 1 {
                return None;
            }
        }
        let mut used = vec![false; words.len()];
        let mut values = Vec::with_capacity(self.slots.len());
        let mut last_word_at = None;
        for slot in self.slots {
            // The longest spelling of the slot that stands somewhere among
            // the words not taken yet.
            let mut found: Option<(u8, usize, usize)> = None;
            for (v, sp) in spellings(slot) {
                let n = sp.split('.').count();
                for at in 0..words.len().saturating_sub(n - 1) {
                    let here = words[at..at + n].join(".") == sp && used[at..at + n].iter().all(|u| !u);
                    if here && found.is_none_or(|(_, _, m)| n > m) {
                        found = Some((v, at, n));
                    }
                }
            }
            let v = match (found, slot) {
                (Some((v, at, n)), _) => {
                    if let Slot::Word(_) = slot {
                        if last_word_at.is_some_and(|l| l > at) {
                            return None;
                        }
                        last_word_at = Some(at);
                    }
                    used[at..at + n].iter_mut().for_each(|u| *u = true);
                    v
                }
                (None, Slot::Word(_)) => 0,
                (None, _) => slot.value_words().unwrap_or_default().iter().position(|x| x.is_empty())? as u8,
            };
            values.push(v);
        }
        used.iter().all(|u| *u).then_some(values)
    }

    /// The mnemonic of these slot values.
    pub fn render(&self, values: &[u8]) -> Option<String> {
        let mut s = self.opcode.to_string();
        for (slot, &v) in self.slots.iter().zip(values) {
            let word = match slot {
                Slot::Field(f) => *f.words.get(usize::from(v)).filter(|w| **w != INVALID)?,
                Slot::Joint(j) => j.values.get(usize::from(v)).map(|(_, w)| *w).filter(|w| *w != INVALID)?,
                Slot::Word(w) => {
                    if v != 0 {
                        *w
                    } else {
                        ""
                    }
                }
            };
            if !word.is_empty() {
                s.push('.');
                s.push_str(word);
            }
        }
        Some(s)
    }

    /// Whether slot values `a` and `b` agree in the words that are not
    /// fields (`.EX`), which are never substituted.
    fn words_agree(&self, a: &[u8], b: &[u8]) -> bool {
        self.slots.iter().zip(a.iter().zip(b)).all(|(slot, (x, y))| !matches!(slot, Slot::Word(_)) || x == y)
    }

    /// `bits` with the fields set to `values`.
    fn with_values(&self, bits: u128, values: &[u8]) -> u128 {
        self.slots.iter().zip(values).fold(bits, |bits, (slot, &v)| match slot {
            Slot::Field(f) => (bits & !f.mask()) | (u128::from(v) << f.pos),
            Slot::Joint(j) => j.write(bits, v).unwrap_or(bits),
            Slot::Word(_) => bits,
        })
    }

    /// The bits of all substitutable fields.
    fn field_mask(&self) -> u128 {
        self.slots.iter().fold(0, |m, s| match s {
            Slot::Field(f) => m | f.mask(),
            Slot::Joint(j) => m | j.mask(),
            Slot::Word(_) => m,
        })
    }

    /// The negation bit when `form`'s last operand is the predicate it
    /// negates.
    fn negate_bit(&self, form: &Form) -> Option<u8> {
        let n = self.negate.as_ref()?;
        let last = form.operands.last()?;
        let atom = form.atoms.last()?;
        let is_pred = matches!(*last, "{P}" | "!{P}")
            && atom.kind == AtomKind::P
            && atom.fields.first().is_some_and(|f| f.pos == n.pred_pos);
        is_pred.then_some(n.bit)
    }
}

/// How a learned form's operands must match the skeletons asked for.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Operands {
    /// As written, marks included.
    Exact,
    /// Up to operand marks, which the caller sets or clears afterwards
    /// (`marks::marked_forms`): sm_120's only `ISETP.GE.AND.EX` of two
    /// registers reads `!P4`, and `ISETP.NE.AND.EX .., P0, P1` is its
    /// sibling with that mark cleared.
    Unmarked,
}

impl Operands {
    fn agree(self, learned: &str, wanted: &str) -> bool {
        match self {
            Operands::Exact => learned == wanted,
            Operands::Unmarked => crate::marks::unmark(learned).1 == crate::marks::unmark(wanted).1,
        }
    }
}

/// Forms for `mnemonic` with these operand skeletons derived from
/// learned forms of its families (empty when it has none).
pub(crate) fn derived_forms(
    tables: &Tables,
    sm: Sm,
    mnemonic: &str,
    skeletons: &[String],
    operands: Operands,
) -> Vec<Form> {
    let Some(opcode) = mnemonic.split('.').next() else { return Vec::new() };
    let mut out = Vec::new();
    for form in tables.forms {
        if form.operands.len() != skeletons.len() || form.mnemonic.split('.').next() != Some(opcode) {
            continue;
        }
        for fam in families_for(sm, opcode, form) {
            if let Some(bits) = fam.sibling_bits(form, mnemonic, skeletons, operands) {
                out.push(Form { bits, ..copy(form) });
                break;
            }
        }
    }
    out
}

impl Family {
    /// The bits of `form`'s sibling spelled `mnemonic` with operands
    /// `skeletons`, when `form` is one of the family's and the sibling
    /// differs from it in field values (and the negated predicate) only.
    fn sibling_bits(&self, form: &Form, mnemonic: &str, skeletons: &[String], operands: Operands) -> Option<u128> {
        let target = self.parse_in_any_order(mnemonic)?;
        let values = self.parse(form.mnemonic)?;
        let negate = self.negate_bit(form);
        let free = self.field_mask() | negate.map_or(0, |b| 1u128 << b);
        if !self.words_agree(&values, &target) || form.atom_bits() & free != 0 {
            return None;
        }
        // An instruction without operands (`MEMBAR.SC.GPU`) matches as it is.
        if let Some(n) = skeletons.len().checked_sub(1) {
            let same_but_last = form.operands[..n].iter().zip(skeletons).all(|(a, b)| operands.agree(a, b));
            let last_ok = form.operands.last().is_some_and(|l| {
                operands.agree(l, &skeletons[n])
                    || (negate.is_some() && l.trim_start_matches('!') == skeletons[n].trim_start_matches('!'))
            });
            if !same_but_last || !last_ok {
                return None;
            }
        }
        let mut bits = self.with_values(form.bits, &target);
        if let (Some(bit), Some(last)) = (negate, skeletons.last()) {
            let not = last.starts_with('!');
            bits = (bits & !(1u128 << bit)) | (u128::from(not) << bit);
        }
        Some(bits)
    }
}

/// Forms for `mnemonic` with operands `split` (each skeleton's marks and
/// unmarked skeleton, `marks::unmark`) made from learned forms of its
/// families with other field values and the same operands but for their
/// marks, whose bits are set as the sibling's mnemonic has them
/// (`marks::sibling_mark_bits`): the encoder's half of
/// [`derive_for_bits`].
pub(crate) fn marked_siblings(
    tables: &Tables,
    sm: Sm,
    mnemonic: &str,
    split: &[(Vec<crate::marks::MarkKind>, String)],
) -> Vec<Form> {
    use crate::marks::{MarkKind, unmark};
    let Some(opcode) = mnemonic.split('.').next() else { return Vec::new() };
    let mut out = Vec::new();
    for form in tables.forms.iter().chain(Tables::solved(sm).forms) {
        if form.operands.len() != split.len()
            || form.mnemonic == mnemonic
            || form.mnemonic.split('.').next() != Some(opcode)
            || !form.operands.iter().zip(split).all(|(op, (_, plain))| unmark(op).1 == *plain)
        {
            continue;
        }
        for fam in families_for(sm, opcode, form) {
            let (Some(target), Some(values)) = (fam.parse_in_any_order(mnemonic), fam.parse(form.mnemonic)) else {
                continue;
            };
            if fam.negate.is_some() || form.atom_bits() & fam.field_mask() != 0 {
                continue;
            }
            if !fam.words_agree(&values, &target) {
                continue;
            }
            let marks = crate::marks::sibling_mark_bits(tables, sm, form, mnemonic);
            let mut bits = fam.with_values(form.bits, &target);
            let mut ok = true;
            for (k, (want, _)) in split.iter().enumerate() {
                let have = unmark(form.operands[k]).0;
                for kind in MarkKind::ALL {
                    match marks.iter().find(|(at, kd, _)| *at == k && *kd == kind) {
                        Some(&(_, _, b)) => {
                            bits = (bits & !(1u128 << b)) | (u128::from(want.contains(&kind)) << b);
                        }
                        None => ok &= want.contains(&kind) == have.contains(&kind),
                    }
                }
            }
            if ok {
                let mask = marks.iter().fold(form.mask | fam.field_mask(), |m, &(_, _, b)| m | 1u128 << b);
                out.push(Form { bits, mask, ..copy(form) });
                break;
            }
        }
    }
    out
}

/// A form derived for `word`, with its mnemonic and operand skeletons,
/// when no learned form matches it but a family sibling does. The
/// sibling's operand marks are read too where the sibling has other field
/// values than the form (`HADD2 R5, |R0|, -RZ.H0_H0` from the solver's
/// `HADD2.F32.SAT {R}, {R}, -{R}.H0_H0`, whose bit 73 nvdisasm ignores).
pub(crate) fn derive_for_bits(tables: &Tables, sm: Sm, word: u128) -> Option<(Form, String, Vec<Cow<'static, str>>)> {
    type Marks = Vec<(usize, crate::marks::MarkKind, u8)>;
    let mut best: Option<(&Form, &Family, Option<u8>, String, Marks)> = None;
    for form in tables.forms_with_opcode_of(word) {
        let Some(opcode) = form.mnemonic.split('.').next() else { continue };
        for fam in families_for(sm, opcode, form) {
            let Some(mut values) = fam.parse(form.mnemonic) else { continue };
            let negate = fam.negate_bit(form);
            let fields = fam.field_mask() | negate.map_or(0, |b| 1u128 << b);
            if form.atom_bits() & fields != 0 {
                continue;
            }
            let mut listed = true;
            for (slot, v) in fam.slots.iter().zip(values.iter_mut()) {
                match slot {
                    Slot::Field(f) => *v = ((word >> f.pos) as u8) & ((1u8 << f.len) - 1),
                    Slot::Joint(j) => match j.read(word) {
                        Some(x) => *v = x,
                        None => listed = false,
                    },
                    Slot::Word(_) => {}
                }
            }
            let Some(mnemonic) = fam.render(&values).filter(|_| listed) else { continue };
            // Marks on the form's own mnemonic are `marks.rs`'s to read.
            let marks = if mnemonic == form.mnemonic {
                Vec::new()
            } else {
                crate::marks::sibling_mark_bits(tables, sm, form, &mnemonic)
            };
            let free = marks.iter().fold(fields, |m, &(_, _, b)| m | 1u128 << b);
            if !form.matches(word, free) || !ignored_bits_agree(tables, sm, fam, form, &mnemonic, word, free) {
                continue;
            }
            if best.as_ref().is_none_or(|(b, ..)| form.mask.count_ones() > b.mask.count_ones()) {
                best = Some((form, fam, negate, mnemonic, marks));
            }
            break;
        }
    }
    let (form, fam, negate, mnemonic, marks) = best?;
    let mut operands = Vec::with_capacity(form.operands.len());
    for (k, op) in form.operands.iter().enumerate() {
        operands.push(crate::marks::remark(op, k, &marks, word)?);
    }
    if let (Some(bit), Some(last)) = (negate, operands.last_mut()) {
        let plain = last.trim_start_matches('!').to_string();
        *last = Cow::Owned(if (word >> bit) & 1 == 1 { format!("!{plain}") } else { plain });
    }
    let fields = fam.field_mask() | negate.map_or(0, |b| 1u128 << b);
    let free = marks.iter().fold(fields, |m, &(_, _, b)| m | 1u128 << b);
    let mask = form.mask | free;
    Some((Form { bits: (form.bits & !free) | (word & free & mask), mask, ..copy(form) }, mnemonic, operands))
}

/// The instruction bits below the control bits, but for the opcode and
/// the guard (bits 16..105).
const OPERATION_BITS: u128 = ((1 << 105) - 1) & !0xffff;

/// Whether `word` reads as `fam`'s sibling of `form`, spelled `mnemonic`,
/// in the bits nvdisasm ignores in `form` (outside its mask, its atoms
/// and `free`): those were found ignored at `form`'s field values only,
/// and at the sibling's they may mean something. Where forms spelled
/// `mnemonic` or other forms of the family fix such a bit, the word must
/// have `form`'s value there (sm_90's bit 73 is nothing to `HADD2.F32`
/// and the `|..|` of the first source to `HADD2`; bit 88 is nothing to
/// `ATOM.CAS` and the `.SPIN` of `ATOM.CAST`), and no word reads as a
/// sibling of `form` when a form of the family fixes it at another value
/// (sm_120's `ATOMS.CAS` has NVIDIA's 1 in bit 88, its `ATOMS.CAST` 0);
/// where only forms outside the family fix it, not the value they fix it
/// at (sm_100's `ATOMS.CAST.SPIN.64`, which the CAS/CAST field does not
/// spell). sm_86/sm_89 read sm_80's forms, whose ignored bits may be
/// theirs (sm_86's `.XORSIGN` of HMNMX2 and FMNMX): every one must hold
/// `form`'s value.
fn ignored_bits_agree(
    tables: &Tables,
    sm: Sm,
    fam: &Family,
    form: &Form,
    mnemonic: &str,
    word: u128,
    free: u128,
) -> bool {
    let ignored = OPERATION_BITS & !form.mask & !form.atom_bits() & !free;
    if sm != sm.base() {
        return (word ^ form.bits) & ignored == 0;
    }
    let own = crate::marks::fixed_bits_of(tables, sm, form, mnemonic) & ignored;
    // Per bit: the values forms of the family, and forms outside it, fix.
    let (mut family, mut other) = ([0u128; 2], [0u128; 2]);
    let n = form.operands.len();
    for g in tables.forms_with_opcode_of(form.bits).chain(Tables::solved(sm).forms_with_opcode_of(form.bits)) {
        if g.operands.len() != n {
            continue;
        }
        let fixed = g.mask & !g.atom_bits() & ignored;
        let values = if fam.parse(g.mnemonic).is_some() { &mut family } else { &mut other };
        values[0] |= !g.bits & fixed;
        values[1] |= g.bits & fixed;
    }
    let in_family = family[0] | family[1];
    let outside = !in_family & !own;
    let other_than_form = (family[0] & form.bits) | (family[1] & !form.bits);
    other_than_form == 0
        && (word ^ form.bits) & (own | in_family) == 0
        && ((!word & other[0]) | (word & other[1])) & outside == 0
}

fn copy(form: &Form) -> Form {
    Form {
        mnemonic: form.mnemonic,
        operands: form.operands,
        atoms: form.atoms,
        bits: form.bits,
        mask: form.mask,
        uniform_guard: form.uniform_guard,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_render() {
        let isetp = family(Sm::Sm90, "ISETP").unwrap();
        let v = isetp.parse("ISETP.GT.U32.AND.EX").unwrap();
        assert_eq!(v, vec![4, 0, 0, 1]);
        assert_eq!(isetp.render(&v).unwrap(), "ISETP.GT.U32.AND.EX");
        assert_eq!(isetp.render(&[3, 1, 1, 0]).unwrap(), "ISETP.LE.OR");
        assert!(isetp.parse("ISETP.GT.FTZ.AND").is_none());
        let fmnmx = family(Sm::Sm80, "FMNMX").unwrap();
        assert_eq!(fmnmx.parse("FMNMX").unwrap(), vec![0, 0]);
        assert_eq!(fmnmx.render(&[1, 1]).unwrap(), "FMNMX.FTZ.NAN");
        assert!(family(Sm::Sm90, "IMNMX").is_none());
        // Field words of several mnemonic words, longest first.
        let ldg = family(Sm::Sm80, "LDG").unwrap();
        let v = ldg.parse("LDG.E.EF.64.STRONG.GPU").unwrap();
        assert_eq!(v, vec![1, 0, 5, 7]);
        assert_eq!(ldg.render(&v).unwrap(), "LDG.E.EF.64.STRONG.GPU");
        assert_eq!(ldg.parse("LDG.E.CONSTANT.CTA").unwrap(), vec![1, 1, 4, 2]);
        assert_eq!(ldg.parse("LDG.E").unwrap(), vec![1, 1, 4, 0]);
        assert!(ldg.parse("LDG.E.STRONG").is_none());
        assert!(ldg.parse("LDG.E.64.EF").is_none());
    }

    /// The lowering's order of modifier words is accepted where the
    /// order carries no meaning, and refused where it does.
    #[test]
    fn parse_in_any_order() {
        let fadd = learned(Sm::Sm80)["FADD"][0];
        let canonical = fadd.parse("FADD.FTZ.RZ.SAT").unwrap();
        assert_eq!(fadd.parse_in_any_order("FADD.SAT.FTZ.RZ").unwrap(), canonical);
        assert_eq!(fadd.parse_in_any_order("FADD.RZ.SAT.FTZ").unwrap(), canonical);
        assert!(fadd.parse("FADD.SAT.FTZ.RZ").is_none());
        assert!(fadd.parse_in_any_order("FADD.SAT.FTZ.RZ.RM").is_none());
        assert!(fadd.parse_in_any_order("FADD.SAT.SAT").is_none());
        // Two fixed type words: `F2F.F32.F16` is another conversion.
        let f2f = Family {
            opcode: "F2F",
            forms: &[],
            sms: &[Sm::Sm80],
            slots: &[FTZ, Slot::Word("F16"), Slot::Word("F32"), ROUND_78],
            negate: None,
        };
        assert_eq!(f2f.parse_in_any_order("F2F.RM.FTZ.F16.F32").unwrap(), vec![1, 1, 1, 1]);
        assert!(f2f.parse_in_any_order("F2F.F32.F16").is_none());
        // A word two fields could hold.
        let two = Family {
            opcode: "X",
            forms: &[],
            sms: &[Sm::Sm80],
            slots: &[FTZ, Slot::Field(WordField { pos: 81, len: 1, words: &["", "FTZ.RM"] })],
            negate: None,
        };
        assert!(two.parse_in_any_order("X.RM.FTZ").is_none());
    }
}
