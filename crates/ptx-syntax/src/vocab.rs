//! PTX's fixed vocabularies: data types, state spaces, rounding modes.
//! Each enum converts from and to its dotted spelling (without the dot).

macro_rules! vocab {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* #[doc = concat!("`.", $text, "`")] $variant),*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// Parses the spelling without the leading dot.
            pub fn from_name(name: &str) -> Option<$name> {
                match name {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }

            /// The spelling without the leading dot.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),*
                }
            }
        }
    };
}

vocab! {
    /// A fundamental or packed data type.
    ScalarType {
        Pred = "pred", B8 = "b8", B16 = "b16", B32 = "b32", B64 = "b64", B128 = "b128",
        U8 = "u8", U16 = "u16", U32 = "u32", U64 = "u64",
        S8 = "s8", S16 = "s16", S32 = "s32", S64 = "s64",
        F16 = "f16", F16x2 = "f16x2", F32 = "f32", F64 = "f64", Bf16 = "bf16", Bf16x2 = "bf16x2",
        Tf32 = "tf32", E4m3 = "e4m3", E5m2 = "e5m2", E4m3x2 = "e4m3x2", E5m2x2 = "e5m2x2",
        E2m3x2 = "e2m3x2", E3m2x2 = "e3m2x2", E2m1x2 = "e2m1x2", Ue8m0x2 = "ue8m0x2",
        E4m3x4 = "e4m3x4", E5m2x4 = "e5m2x4", E2m1x4 = "e2m1x4", E2m3x4 = "e2m3x4", E3m2x4 = "e3m2x4",
        S2f6x2 = "s2f6x2", F32x2 = "f32x2",
        /// Two 16-bit integers in one 32-bit register (sm_90's packed
        /// `add`/`min`/`max`).
        U16x2 = "u16x2",
        /// Two signed 16-bit integers in one 32-bit register.
        S16x2 = "s16x2",
        U4 = "u4", S4 = "s4", B1 = "b1", E2m1 = "e2m1", E2m3 = "e2m3", E3m2 = "e3m2", Ue8m0 = "ue8m0", Ue4m3 = "ue4m3",
    }
}

impl ScalarType {
    /// Size in bits (1 for `.pred`).
    pub fn bits(self) -> u32 {
        use ScalarType::*;
        match self {
            Pred | B1 => 1,
            U4 | S4 | E2m1 => 4,
            E2m3 | E3m2 | Ue8m0 | Ue4m3 => 8,
            B8 | U8 | S8 | E4m3 | E5m2 => 8,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | Ue8m0x2 | S2f6x2 => 16,
            E2m1x2 => 8,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | U16x2 | S16x2 | Tf32 | E4m3x4 | E5m2x4 | E2m3x4 | E3m2x4 => 32,
            E2m1x4 => 16,
            B64 | U64 | S64 | F64 | F32x2 => 64,
            B128 => 128,
        }
    }

    /// True for the floating-point families (including packed and 8-bit floats).
    pub fn is_float(self) -> bool {
        use ScalarType::*;
        !matches!(self, Pred | B1 | B8 | B16 | B32 | B64 | B128 | U4 | U8 | U16 | U32 | U64 | S4 | S8 | S16 | S32 | S64)
            && !self.is_packed_int()
    }

    /// True for the packed 16-bit integer pairs (`.u16x2`, `.s16x2`): no
    /// immediates, and only `.b32` registers hold them (ptxas 13.5 calls a
    /// `.u32` register or a literal an argument mismatch).
    pub fn is_packed_int(self) -> bool {
        matches!(self, ScalarType::U16x2 | ScalarType::S16x2)
    }
}

vocab! {
    /// Where a variable lives.
    StateSpace {
        Reg = "reg", Sreg = "sreg", Const = "const", Global = "global", Local = "local",
        Param = "param", Shared = "shared", Tex = "tex",
    }
}

vocab! {
    /// Rounding modifiers of arithmetic and conversions.
    Rounding {
        Rn = "rn", Rz = "rz", Rm = "rm", Rp = "rp", Rna = "rna", Rs = "rs",
        Rni = "rni", Rzi = "rzi", Rmi = "rmi", Rpi = "rpi",
    }
}

vocab! {
    /// Opaque handle types of texture, sampler and surface declarations.
    OpaqueType { Texref = "texref", Samplerref = "samplerref", Surfref = "surfref" }
}

vocab! {
    /// Linkage of a module-level symbol.
    Linkage { Visible = "visible", Extern = "extern", Weak = "weak", Common = "common" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in ScalarType::ALL {
            assert_eq!(ScalarType::from_name(t.name()), Some(*t));
        }
        assert_eq!(StateSpace::from_name("shared"), Some(StateSpace::Shared));
        assert_eq!(Rounding::from_name("rzi"), Some(Rounding::Rzi));
        assert_eq!(ScalarType::from_name("f33"), None);
        assert!(ScalarType::F16x2.is_float() && ScalarType::Bf16.is_float() && !ScalarType::S32.is_float());
        assert_eq!(ScalarType::B128.bits(), 128);
    }
}
