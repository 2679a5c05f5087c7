//! Target descriptions: the per-SM facts passes consult, as one table.
//!
//! Facts here were read off NVIDIA's ptxas 13.5 (`--list-arch`, the
//! accepted `-arch` values, the register lower bound it warns about, the
//! parameter offsets in its cubins; see oracle-facts.md §1, §2.2, §5.6).

use std::fmt;
use std::str::FromStr;

/// Architecture-specific (`a`) or family-portable (`f`) feature sets.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// Plain `sm_XY`.
    Base,
    /// `sm_XYa`: architecture-specific features (e.g. WGMMA on sm_90a).
    Arch,
    /// `sm_XYf`: family-specific features.
    Family,
}

/// A real GPU architecture, e.g. `sm_90a`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sm {
    /// `major * 10 + minor`, e.g. 90.
    pub version: u16,
    /// Suffix.
    pub variant: Variant,
}

/// Feature flags of an architecture.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Features {
    /// Asynchronous global→shared copies (LDGSTS, `cp.async`).
    pub async_copy: bool,
    /// Thread-block clusters, distributed shared memory, TMA, SYNCS.
    pub clusters: bool,
    /// Warpgroup MMA (only with the `a` variant of sm_90).
    pub wgmma: bool,
    /// Fifth-generation tensor cores (`tcgen05`, sm_100a/sm_100f family).
    pub tcgen05: bool,
}

/// Everything a pass needs to know about the target.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The architecture.
    pub sm: Sm,
    /// Highest number of general registers a thread may use.
    pub max_regs: u32,
    /// Lower bound ptxas raises `--maxrregcount`/`.maxnreg` to.
    pub min_regs: u32,
    /// Registers ptxas adds to the highest one used when it reports a count.
    pub reserved_regs: u32,
    /// Number of uniform registers (URZ excluded).
    pub uniform_regs: u32,
    /// Byte offset of the first kernel parameter in constant bank 0.
    pub param_base: u32,
    /// Bytes at the start of every function's shared-memory section that
    /// ptxas keeps for itself: variables start after them, and `-v`'s
    /// `bytes smem` leaves them out (measured: reduce_smem's 1 KiB array
    /// makes a 0x400-byte section on sm_80-89 and 0x800 on sm_90-120, with
    /// `1024 bytes smem` on all).
    pub reserved_shared: u32,
    /// Whether `-v` reports `bytes cmem[0]`.
    pub verbose_reports_cmem0: bool,
    /// Feature flags.
    pub features: Features,
}

/// Base architectures ptxas 13.5 compiles for, in `--list-arch` order, and
/// which suffixes each takes.
const BASES: &[(u16, bool, bool)] = &[
    // (version, has `a`, has `f`)
    (75, false, false),
    (80, false, false),
    (86, false, false),
    (87, false, false),
    (88, false, false),
    (89, false, false),
    (90, true, false),
    (100, true, true),
    (110, true, true),
    (103, true, true),
    (120, true, true),
    (121, true, true),
    (107, true, true),
];

impl Sm {
    /// ptxas's default target.
    pub const DEFAULT: Sm = Sm { version: 75, variant: Variant::Base };

    /// A plain `sm_XY`.
    pub const fn new(version: u16) -> Sm {
        Sm { version, variant: Variant::Base }
    }

    /// Every architecture ptxas 13.5 accepts, suffixed variants included.
    pub fn all() -> impl Iterator<Item = Sm> {
        BASES.iter().flat_map(|&(version, a, f)| {
            let variants = [(Variant::Base, true), (Variant::Arch, a), (Variant::Family, f)];
            variants.into_iter().filter(|v| v.1).map(move |(variant, _)| Sm { version, variant })
        })
    }

    /// Base versions in `--list-arch` order.
    pub fn list_arch() -> impl Iterator<Item = u16> {
        BASES.iter().map(|b| b.0)
    }

    /// The facts for this architecture.
    pub fn target(self) -> Target {
        let v = self.version;
        let family_or_arch = self.variant != Variant::Base;
        Target {
            sm: self,
            max_regs: 255,
            min_regs: 24,
            reserved_regs: 2,
            uniform_regs: 63,
            param_base: match v {
                ..90 => 0x160,
                90..100 => 0x210,
                _ => 0x380,
            },
            reserved_shared: if v >= 90 { 0x400 } else { 0 },
            verbose_reports_cmem0: v < 90,
            features: Features {
                async_copy: v >= 80,
                clusters: v >= 90,
                wgmma: v == 90 && self.variant == Variant::Arch,
                tcgen05: matches!(v, 100 | 103 | 110) && family_or_arch,
            },
        }
    }
}

impl fmt::Display for Sm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.variant {
            Variant::Base => "",
            Variant::Arch => "a",
            Variant::Family => "f",
        };
        write!(f, "sm_{}{}", self.version, suffix)
    }
}

/// `sm_XY[a|f]` that ptxas 13.5 does not support.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownSm(pub String);

impl FromStr for Sm {
    type Err = UnknownSm;

    fn from_str(s: &str) -> Result<Sm, UnknownSm> {
        let err = || UnknownSm(s.to_string());
        let rest = s.strip_prefix("sm_").ok_or_else(err)?;
        let (digits, variant) = match rest.as_bytes().last() {
            Some(b'a') => (&rest[..rest.len() - 1], Variant::Arch),
            Some(b'f') => (&rest[..rest.len() - 1], Variant::Family),
            _ => (rest, Variant::Base),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err());
        }
        let version: u16 = digits.parse().map_err(|_| err())?;
        let sm = Sm { version, variant };
        Sm::all().any(|known| known == sm).then_some(sm).ok_or_else(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_ptxas_accepts() {
        assert_eq!("sm_90a".parse::<Sm>().unwrap(), Sm { version: 90, variant: Variant::Arch });
        assert_eq!("sm_121f".parse::<Sm>().unwrap().to_string(), "sm_121f");
        for bad in ["sm_70", "sm_80a", "sm_99", "sm_", "sm_9O", "compute_90", "sm_75f"] {
            assert!(bad.parse::<Sm>().is_err(), "{bad} must be rejected");
        }
        assert_eq!(Sm::all().count(), 13 + 7 + 6);
    }

    #[test]
    fn parameter_base_per_family() {
        assert_eq!(Sm::new(80).target().param_base, 0x160);
        assert_eq!(Sm::new(89).target().param_base, 0x160);
        assert_eq!("sm_90a".parse::<Sm>().unwrap().target().param_base, 0x210);
        assert_eq!(Sm::new(100).target().param_base, 0x380);
        assert_eq!(Sm::new(120).target().param_base, 0x380);
    }
}
