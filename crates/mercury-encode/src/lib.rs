//! SASS encoder, decoder and printer for sm_75, sm_80, sm_86, sm_89 and sm_90,
//! and a decoder and re-encoder of NVIDIA's sm_100 / sm_120 code.
//!
//! An instruction is 128 bits (low word first). Its fixed part (opcode,
//! modifiers, operands nvdisasm does not show) and the places of its
//! variable parts are data: one [`form::Form`] per text shape, per SM
//! family, learned from NVIDIA's cubins and from nvdisasm probes of
//! single-bit changes (`tools/learn_*.py`, docs/mercury-encode.md). The
//! control bits 105..=125 are handled by [`ctrl`].
//!
//! - [`decode()`]: bits → [`Inst`](ori_ir::Inst), with [`Ctrl`](ori_ir::Ctrl);
//! - [`print()`]: `Inst` → nvdisasm's text;
//! - [`encode()`]: `Inst` → bits.
//!
//! Branch targets are [`Label`](ori_ir::OperandKind::Label)s; a
//! [`Labels`] implementation maps them to code addresses and names.

mod alias;
pub mod ctrl;
mod decode;
#[cfg(test)]
mod derive;
mod encode;
pub mod families;
pub mod float;
pub mod form;
mod forms;
mod hidden;
mod labels;
pub mod listing;
mod marks;
mod phase;
mod policy;
mod print;
pub mod syntax;
mod tables;
mod widths;

pub use decode::decode;
pub use encode::{UNSCHEDULED, encode};
pub use forms::EncoderForms;
pub use labels::{CodeLabels, Labels};
pub use phase::{MercEncodeAndDecode, code_bytes, phases};
pub use print::print;

use std::fmt;

/// The SM family an encoding belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sm {
    /// sm_75 (Turing).
    Sm75,
    /// sm_80 .. sm_85 (Ampere GA100).
    Sm80,
    /// sm_90 / sm_90a (Hopper).
    Sm90,
    /// sm_86 .. sm_88 (Ampere GA10x, Orin, Thor): sm_80's encodings plus
    /// their own opcodes (`I2FP`, ...); nvdisasm's SM86, SM87 and SM88
    /// print every word alike.
    Sm86,
    /// sm_89 (Ada): sm_86's plus its own spellings (`F2FP.F16.F32.PACK_AB`).
    Sm89,
    /// sm_100, sm_103 and their `a`/`f` variants (Blackwell B200,
    /// GB300): the forms of NVIDIA's code and the solver's.
    Sm100,
    /// sm_120, sm_121 (Blackwell RTX, DGX Spark): as [`Sm::Sm100`].
    Sm120,
    /// sm_110 (Thor): sm_100's encodings without the forms nvdisasm's
    /// SM110 refuses or reads otherwise (`VIADD`, `VIMNMX`, `CREDUX`,
    /// `.XOR` adds and shifts; `tables::sm110`).
    Sm110,
    /// sm_107: sm_120's encodings (nvdisasm's SM107 reads NVIDIA's sm_107a
    /// code of the corpus as SM120 does but for 26 of 14,472 words) without
    /// the forms SM107 refuses or reads otherwise (sm_120's uniform float,
    /// 64-bit uniform and `UIMAD.HI` forms; `tables::sm107`).
    Sm107,
}

impl Sm {
    /// Every family, in the order of [`Sm::index`].
    pub const ALL: [Sm; 9] =
        [Sm::Sm75, Sm::Sm80, Sm::Sm90, Sm::Sm86, Sm::Sm89, Sm::Sm100, Sm::Sm120, Sm::Sm110, Sm::Sm107];

    /// The family the compiler generates code with for an `sm_XY` number
    /// (75, 80, 86, 90, 100, ...); `None` for SMs without tables.
    pub fn from_number(sm: u32) -> Option<Sm> {
        match sm {
            75 => Some(Sm::Sm75),
            80..=85 => Some(Sm::Sm80),
            86..=88 => Some(Sm::Sm86),
            89 => Some(Sm::Sm89),
            90 => Some(Sm::Sm90),
            // nvdisasm reads NVIDIA's sm_103a code of the corpus as SM100a
            // does, word for word, and sm_121a's as SM120a. sm_110a's too,
            // but SM110 refuses some of sm_100's opcodes (`Sm::Sm110`);
            // sm_107a's as SM120a but for forms SM107 refuses (`Sm::Sm107`).
            100 | 103 => Some(Sm::Sm100),
            107 => Some(Sm::Sm107),
            110 => Some(Sm::Sm110),
            120 | 121 => Some(Sm::Sm120),
            _ => None,
        }
    }

    /// The family whose tables read and write code of `sm_XY`: the same
    /// as [`Sm::from_number`] now that Blackwell generates code.
    pub fn with_tables(sm: u32) -> Option<Sm> {
        Sm::from_number(sm)
    }

    /// The name `nvdisasm -b` takes.
    pub fn nvdisasm_name(self) -> &'static str {
        match self {
            Sm::Sm75 => "SM75",
            Sm::Sm80 => "SM80",
            Sm::Sm90 => "SM90",
            Sm::Sm86 => "SM86",
            Sm::Sm89 => "SM89",
            Sm::Sm100 => "SM100",
            Sm::Sm120 => "SM120",
            Sm::Sm110 => "SM110",
            Sm::Sm107 => "SM107",
        }
    }

    /// The family whose derived and solver forms, operand marks and probed
    /// modifier fields this one shares: sm_86 and sm_89 are sm_80's
    /// encodings with forms of their own added (`tables::sm86`, `sm89`),
    /// sm_110 sm_100's with some left out (`tables::sm110`), sm_107
    /// sm_120's likewise (`tables::sm107`).
    pub(crate) fn base(self) -> Sm {
        match self {
            Sm::Sm86 | Sm::Sm89 => Sm::Sm80,
            Sm::Sm110 => Sm::Sm100,
            Sm::Sm107 => Sm::Sm120,
            sm => sm,
        }
    }

    /// sm_100 and later: nvdisasm prints `PT` carry-outs, uniform
    /// registers are 8-bit fields (`URZ` = 255).
    pub(crate) fn is_blackwell(self) -> bool {
        matches!(self.base(), Sm::Sm100 | Sm::Sm120)
    }

    /// Position in [`Sm::ALL`], for per-family caches.
    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// Why an instruction could not be decoded, encoded or printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// No form matches these bits.
    UnknownEncoding([u64; 2]),
    /// No form prints this way.
    UnknownForm(String),
    /// A value does not fit its field.
    OutOfRange(String),
    /// Syntax or operand kinds this crate cannot represent yet.
    Unsupported(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownEncoding([lo, hi]) => write!(f, "unknown encoding 0x{hi:016x}{lo:016x}"),
            Error::UnknownForm(text) => write!(f, "no encoding known for `{text}`"),
            Error::OutOfRange(what) => write!(f, "out of range: {what}"),
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
        }
    }
}

impl std::error::Error for Error {}

fn word(bits: [u64; 2]) -> u128 {
    u128::from(bits[0]) | (u128::from(bits[1]) << 64)
}

fn halves(word: u128) -> [u64; 2] {
    [word as u64, (word >> 64) as u64]
}
