//! The operand types of the form table: how a kernel declares, loads and
//! stores a register of each, and the values that hit its edges.

use std::fmt;

/// A PTX operand type as the form table names it (`s32`, `f16x2`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    F32,
    F64,
    Tf32,
    E4m3x2,
    E5m2x2,
}

/// What a type's bits mean, for choosing edge values.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Int { signed: bool },
    Float,
    Half,
    Brain,
    Eight,
}

const NAMES: &[(&str, Ty)] = &[
    ("pred", Ty::Pred),
    ("b8", Ty::B8),
    ("b16", Ty::B16),
    ("b32", Ty::B32),
    ("b64", Ty::B64),
    ("b128", Ty::B128),
    ("u8", Ty::U8),
    ("u16", Ty::U16),
    ("u32", Ty::U32),
    ("u64", Ty::U64),
    ("s8", Ty::S8),
    ("s16", Ty::S16),
    ("s32", Ty::S32),
    ("s64", Ty::S64),
    ("f16", Ty::F16),
    ("f16x2", Ty::F16x2),
    ("bf16", Ty::Bf16),
    ("bf16x2", Ty::Bf16x2),
    ("f32", Ty::F32),
    ("f64", Ty::F64),
    ("tf32", Ty::Tf32),
    ("e4m3x2", Ty::E4m3x2),
    ("e5m2x2", Ty::E5m2x2),
];

impl Ty {
    /// The type named `name` in the table.
    pub fn parse(name: &str) -> Option<Ty> {
        NAMES.iter().find(|(n, _)| *n == name).map(|&(_, t)| t)
    }

    fn name(self) -> &'static str {
        NAMES.iter().find(|(_, t)| *t == self).map_or("?", |(n, _)| n)
    }

    /// Bits of the value.
    pub fn bits(self) -> u32 {
        match self {
            Ty::Pred => 1,
            Ty::B8 | Ty::U8 | Ty::S8 => 8,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 | Ty::Bf16 | Ty::E4m3x2 | Ty::E5m2x2 => 16,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 | Ty::F16x2 | Ty::Bf16x2 | Ty::Tf32 => 32,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 64,
            Ty::B128 => 128,
        }
    }

    /// Bits of the register that holds it: 8-bit values live in 16-bit
    /// registers, as NVVM declares them.
    pub fn reg_bits(self) -> u32 {
        self.bits().max(16)
    }

    /// Bytes of its slot in the input and output buffers.
    pub fn slot_bytes(self) -> usize {
        if self.bits() > 64 { 16 } else { 8 }
    }

    fn class(self) -> Class {
        match self {
            Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64 => Class::Int { signed: true },
            Ty::F32 | Ty::F64 | Ty::Tf32 => Class::Float,
            Ty::F16 | Ty::F16x2 => Class::Half,
            Ty::Bf16 | Ty::Bf16x2 => Class::Brain,
            Ty::E4m3x2 | Ty::E5m2x2 => Class::Eight,
            _ => Class::Int { signed: false },
        }
    }

    /// Values at the edges of the type, as the low bits of a word (the
    /// bits above the type's width are garbage on purpose where the
    /// register is wider).
    pub fn edges(self) -> Vec<u128> {
        match (self.class(), self.bits()) {
            (_, 1) => vec![0, 1],
            (Class::Int { .. }, 8) => vec![0, 1, 0x7f, 0x80, 0xff, 0x17f, 0xfe80, 0x7, 0x8, 0x9, 0x55, 0xaa01],
            (Class::Int { .. } | Class::Eight, 16) => {
                vec![0, 1, 2, 0x7fff, 0x8000, 0xffff, 0xfffe, 0xf, 0x10, 0x11, 0x1f, 0x20, 0x21, 0x3c38, 0x7e01, 0xc0ff]
            }
            (Class::Int { .. }, 32) => vec![
                0,
                1,
                2,
                0xffff_ffff,
                0xffff_fffe,
                0x7fff_ffff,
                0x8000_0000,
                0x8000_0001,
                31,
                32,
                33,
                64,
                0xff,
                0x100,
                0xffff,
                0x1_0000,
                0x00ff_ffff,
                0x0080_0000,
                0x1234_5678,
                0xdead_beef,
                0x7,
                0x8,
                0x0302_0100,
                0xf0f0_f0f0,
            ],
            (Class::Int { .. }, 64) => vec![
                0,
                1,
                2,
                u64::MAX as u128,
                u64::MAX as u128 - 1,
                i64::MAX as u128,
                i64::MIN as u64 as u128,
                0xffff_ffff,
                0x1_0000_0000,
                0x7fff_ffff,
                0x8000_0000,
                63,
                64,
                65,
                31,
                32,
                0x1234_5678_9abc_def0,
                0xfedc_ba98_7654_3210,
                0x0000_0001_ffff_ffff,
                0xffff_ffff_0000_0001,
            ],
            (Class::Int { .. }, _) => {
                vec![0, 1, u128::MAX, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210, 0xffff_ffff_ffff_ffff, 1 << 64]
            }
            (Class::Float, 32) => [
                0u32,
                0x8000_0000,
                0x3f80_0000,
                0xbf80_0000,
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_1234,
                0xffc0_0001,
                0x7f80_1234,
                0xff80_0001,
                0x0000_0001,
                0x807f_ffff,
                0x0080_0000,
                0x3fc0_0000,
                0xc020_0000,
                0x3f00_0000,
                0x3f80_0001,
                0x7f7f_ffff,
                0x4f00_0000,
                0xcf00_0000,
                0x4f80_0000,
                0x477f_e000,
                0x477f_f000,
                0x3eaa_aaab,
                0x5f00_0000,
                0xdf00_0001,
                0x3fff_ffff,
                0x4b80_0001,
            ]
            .iter()
            .map(|&w| w as u128)
            .collect(),
            (Class::Float, _) => [
                0u64,
                0x8000_0000_0000_0000,
                0x3ff0_0000_0000_0000,
                0xbff0_0000_0000_0000,
                0x7ff0_0000_0000_0000,
                0xfff0_0000_0000_0000,
                0x7ff8_0000_0000_1234,
                0xfff8_0000_0000_0001,
                0x7ff0_0000_0000_1234,
                0x0000_0000_0000_0001,
                0x800f_ffff_ffff_ffff,
                0x0010_0000_0000_0000,
                0x3ff8_0000_0000_0000,
                0xc004_0000_0000_0000,
                0x3fe0_0000_0000_0000,
                0x3ff0_0000_0000_0001,
                0x7fef_ffff_ffff_ffff,
                0x41e0_0000_0000_0000,
                0xc1e0_0000_0000_0000,
                0x41f0_0000_0000_0000,
                0x43e0_0000_0000_0000,
                0x47ef_ffff_e000_0000,
                0x3690_0000_0000_0000,
                0x3fd5_5555_5555_5555,
                0x4330_0000_0000_0001,
            ]
            .iter()
            .map(|&w| w as u128)
            .collect(),
            (Class::Half | Class::Brain, 16) => self.halves(),
            (Class::Half | Class::Brain, _) => {
                let h = self.halves();
                let n = h.len();
                (0..n * 2).map(|i| h[i % n] | h[(i * 7 + 3) % n] << 16).collect()
            }
            (Class::Eight, _) => unreachable!("8-bit float pairs are 16 bits"),
        }
    }

    fn halves(self) -> Vec<u128> {
        let words: &[u16] = if self.class() == Class::Half {
            &[
                0, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e01, 0xfe00, 0x7c01, 0x0001, 0x83ff, 0x0400, 0x3e00,
                0xc100, 0x7bff, 0x3c01, 0x3555,
            ]
        } else {
            &[
                0, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc1, 0xffc0, 0x7f81, 0x0001, 0x807f, 0x0080, 0x3fc0,
                0xc020, 0x7f7f, 0x3f81, 0x3eab,
            ]
        };
        words.iter().map(|&w| w as u128).collect()
    }

    /// Immediate operands of this type, each as PTX spells it, covering
    /// its notations (decimal, hexadecimal, octal, binary, negative;
    /// `0f`/`0d` and decimal floats).
    pub fn immediates(self) -> Vec<String> {
        let v: &[&str] = match (self.class(), self.bits()) {
            (_, 1) => &["1", "0"],
            (Class::Int { .. }, 8 | 16) => &["0", "1", "-1", "0x7f", "0xff", "017", "0b101", "31"],
            (Class::Int { .. }, 32) => &[
                "0",
                "1",
                "-1",
                "0x7fffffff",
                "0x80000000",
                "0xFFFFFFFF",
                "017",
                "0b1011",
                "31",
                "32",
                "-2147483648",
                "65537U",
            ],
            (Class::Int { .. }, _) => &[
                "0",
                "1",
                "-1",
                "0x7fffffffffffffff",
                "0x8000000000000000",
                "0xffffffff",
                "0x100000000",
                "017",
                "0b11",
                "63",
                "64",
            ],
            (Class::Float, 32) => &[
                "0f00000000",
                "0f80000000",
                "0f3F800000",
                "0fFF800000",
                "0f7FC01234",
                "0f00000001",
                "1.5",
                "-2.5",
                "0d3FF8000000000000",
            ],
            (Class::Float, _) => &[
                "0d0000000000000000",
                "0d8000000000000000",
                "0d3FF0000000000000",
                "0dFFF0000000000000",
                "0d7FF8000000001234",
                "0d0000000000000001",
                "1.5",
                "-2.5",
                "0f3FC00000",
            ],
            (Class::Half | Class::Brain, 16) => &["0x3C00", "0f3F800000", "1.0"],
            (Class::Half | Class::Brain, _) => &["0x3C003C00", "0f3F800000"],
            (Class::Eight, _) => &["0x3C00"],
        };
        v.iter().map(|s| s.to_string()).collect()
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
