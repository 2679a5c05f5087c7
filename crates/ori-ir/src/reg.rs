//! Registers: the files of the SASS machine model, virtual or physical.

use std::fmt;

/// A register file of the SASS machine model.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegFile {
    /// 32-bit per-thread general registers `R0..R254`, `RZ` reads as zero.
    R,
    /// 32-bit warp-uniform registers `UR0..UR62`, `URZ` (sm_75+).
    UR,
    /// Per-thread predicates `P0..P6`, `PT` is always true.
    P,
    /// Warp-uniform predicates `UP0..UP6`, `UPT`.
    UP,
    /// Convergence barrier registers `B0..B15` (BSSY/BSYNC).
    B,
}

impl RegFile {
    /// Every file, in a fixed order used for per-file tables.
    pub const ALL: [RegFile; 5] = [RegFile::R, RegFile::UR, RegFile::P, RegFile::UP, RegFile::B];

    /// Position in [`RegFile::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Prefix of a physical register (`R`, `UR`, ...).
    pub fn physical_prefix(self) -> &'static str {
        match self {
            RegFile::R => "R",
            RegFile::UR => "UR",
            RegFile::P => "P",
            RegFile::UP => "UP",
            RegFile::B => "B",
        }
    }

    /// Prefix of a virtual register (`%r`, `%ur`, ...).
    pub fn virtual_prefix(self) -> &'static str {
        match self {
            RegFile::R => "%r",
            RegFile::UR => "%ur",
            RegFile::P => "%p",
            RegFile::UP => "%up",
            RegFile::B => "%b",
        }
    }

    /// The hardware number of the always-zero / always-true register, if
    /// the file has one (`RZ` = 255, `URZ` = 63, `PT`/`UPT` = 7).
    pub fn zero_register(self) -> Option<u32> {
        match self {
            RegFile::R => Some(255),
            RegFile::UR => Some(63),
            RegFile::P | RegFile::UP => Some(7),
            RegFile::B => None,
        }
    }

    /// Number of addressable registers in the file, the zero register
    /// included.
    pub fn physical_count(self) -> u32 {
        match self {
            RegFile::R => 256,
            RegFile::UR => 64,
            RegFile::P | RegFile::UP => 8,
            RegFile::B => 16,
        }
    }

    /// True for predicate files.
    pub fn is_predicate(self) -> bool {
        matches!(self, RegFile::P | RegFile::UP)
    }

    /// True for the warp-uniform files.
    pub fn is_uniform(self) -> bool {
        matches!(self, RegFile::UR | RegFile::UP)
    }
}

/// A register operand: one register, or an aligned tuple of `width`
/// consecutive 32-bit registers (64-bit values in even pairs, 128-bit in
/// quads), either virtual (before allocation) or physical.
///
/// An operand may also name *part* of a virtual tuple: `%r5:1` is the
/// upper word of the pair `%r5.64`, `%r5:2.64` the upper pair of the quad
/// `%r5.128`. That is how 64-bit arithmetic (`IADD3` on the low words,
/// `IADD3.X` on the high ones) and vector loads into several values are
/// written before allocation; allocation turns a part into the physical
/// registers it covers (`R4.64`'s word 1 is `R5`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    /// The register file.
    pub file: RegFile,
    /// Virtual register number, or the first physical register's number.
    pub num: u32,
    /// Number of consecutive 32-bit registers (1..=4); always 1 for
    /// predicates and barriers.
    pub width: u8,
    /// Virtual (pre-allocation) or physical.
    pub is_virtual: bool,
    /// For part of a virtual tuple, the first word it names (the part
    /// covers words `word..word + width`); `None` names the whole
    /// register. Always `None` for physical registers.
    pub word: Option<u8>,
}

impl Reg {
    /// A physical register.
    pub const fn phys(file: RegFile, num: u32) -> Reg {
        Reg { file, num, width: 1, is_virtual: false, word: None }
    }

    /// A virtual register.
    pub const fn virt(file: RegFile, num: u32) -> Reg {
        Reg { file, num, width: 1, is_virtual: true, word: None }
    }

    /// `RZ`.
    pub const RZ: Reg = Reg::phys(RegFile::R, 255);
    /// `URZ`.
    pub const URZ: Reg = Reg::phys(RegFile::UR, 63);
    /// `PT`.
    pub const PT: Reg = Reg::phys(RegFile::P, 7);
    /// `UPT`.
    pub const UPT: Reg = Reg::phys(RegFile::UP, 7);

    /// The same register as a tuple of `width` 32-bit registers.
    pub const fn wide(self, width: u8) -> Reg {
        Reg { width, ..self }
    }

    /// Words `word..word + width` of the virtual tuple `self`, counted
    /// from where `self` starts (so a part of a part is a part of the
    /// whole): `%r5.64.part(1, 1)` is `%r5:1`, `%r5:2.64.part(1, 1)` is
    /// `%r5:3`.
    pub const fn part(self, word: u8, width: u8) -> Reg {
        let first = match self.word {
            Some(w) => w + word,
            None => word,
        };
        Reg { width, word: Some(first), ..self }
    }

    /// The register as a whole, `width` words wide: `%r5:1.whole(2)` is
    /// `%r5.64`.
    pub const fn whole(self, width: u8) -> Reg {
        Reg { width, word: None, ..self }
    }

    /// The words of the tuple this operand covers: `0..width` for a whole
    /// register.
    pub fn words(self) -> std::ops::Range<u8> {
        let first = self.word.unwrap_or(0);
        first..first + self.width
    }

    /// True for `RZ`, `URZ`, `PT` and `UPT`.
    pub fn is_zero(self) -> bool {
        !self.is_virtual && self.file.zero_register() == Some(self.num)
    }

    /// Width in bits.
    pub fn bits(self) -> u32 {
        u32::from(self.width) * 32
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_virtual {
            write!(f, "{}{}", self.file.virtual_prefix(), self.num)?;
            if let Some(word) = self.word {
                write!(f, ":{word}")?;
            }
        } else if self.is_zero() {
            let name = match self.file {
                RegFile::R => "RZ",
                RegFile::UR => "URZ",
                RegFile::P => "PT",
                RegFile::UP => "UPT",
                RegFile::B => unreachable!("barrier registers have no zero register"),
            };
            f.write_str(name)?;
        } else {
            write!(f, "{}{}", self.file.physical_prefix(), self.num)?;
        }
        if self.width > 1 {
            write!(f, ".{}", self.bits())?;
        }
        Ok(())
    }
}

macro_rules! special_registers {
    ($($variant:ident = $name:literal,)*) => {
        /// A special (system) register read by `S2R`/`S2UR`/`CS2R`, named as
        /// nvdisasm names it. Its hardware number is an encoding fact and
        /// lives in the encoder's tables.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum SpecialReg { $($variant,)* }

        impl SpecialReg {
            /// Every special register.
            pub const ALL: &'static [SpecialReg] = &[$(SpecialReg::$variant,)*];

            /// nvdisasm's name, e.g. `SR_TID.X`.
            pub fn name(self) -> &'static str {
                match self { $(SpecialReg::$variant => $name,)* }
            }

            /// Looks a register up by nvdisasm's name.
            pub fn from_name(name: &str) -> Option<SpecialReg> {
                match name { $($name => Some(SpecialReg::$variant),)* _ => None }
            }
        }
    };
}

// Names seen in nvdisasm listings of NVIDIA's cubins for the corpus, plus the
// lane masks and clocks that PTX special registers map to.
special_registers! {
    LaneId = "SR_LANEID",
    TidX = "SR_TID.X",
    TidY = "SR_TID.Y",
    TidZ = "SR_TID.Z",
    CtaidX = "SR_CTAID.X",
    CtaidY = "SR_CTAID.Y",
    CtaidZ = "SR_CTAID.Z",
    CgaCtaId = "SR_CgaCtaId",
    SwinHi = "SR_SWINHI",
    ClockLo = "SR_CLOCKLO",
    ClockHi = "SR_CLOCKHI",
    GlobalTimerLo = "SR_GLOBALTIMERLO",
    GlobalTimerHi = "SR_GLOBALTIMERHI",
    LtMask = "SR_LTMASK",
    LeMask = "SR_LEMASK",
    GtMask = "SR_GTMASK",
    GeMask = "SR_GEMASK",
    EqMask = "SR_EQMASK",
    SmId = "SR_SMID",
    VirtualSmId = "SR_VIRTUALSMID",
    VirtId = "SR_VIRTID",
    VirtCfg = "SR_VIRTCFG",
    // The zero special register (`CS2R R4, SRZ` zeroes a register pair).
    Zero = "SRZ",
    // The CTA's shared memory bytes, the driver's reserve included
    // (NVIDIA's `%total_smem_size` and `%aggr_smem_size` read it).
    SmemSz = "SR_SMEMSZ",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names() {
        assert_eq!(Reg::RZ.to_string(), "RZ");
        assert_eq!(Reg::PT.to_string(), "PT");
        assert_eq!(Reg::phys(RegFile::UR, 4).wide(2).to_string(), "UR4.64");
        assert_eq!(Reg::virt(RegFile::R, 12).wide(4).to_string(), "%r12.128");
        assert_eq!(Reg::virt(RegFile::UP, 0).to_string(), "%up0");
        assert_eq!(Reg::virt(RegFile::R, 5).part(1, 1).to_string(), "%r5:1");
        assert_eq!(Reg::virt(RegFile::R, 5).part(2, 2).to_string(), "%r5:2.64");
    }

    #[test]
    fn special_register_names_round_trip() {
        for &sr in SpecialReg::ALL {
            assert_eq!(SpecialReg::from_name(sr.name()), Some(sr));
        }
    }
}
