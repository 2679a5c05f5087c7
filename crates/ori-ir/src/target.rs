//! Which targets there are: the SMs ptxas 13.5 accepts (`--list-arch`,
//! the accepted `-arch` values) and their names. What each is like is
//! [`crate::facts`].

use std::fmt;
use std::str::FromStr;

use crate::facts::Target;

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

    /// The facts for this architecture ([`crate::facts`]).
    pub const fn target(self) -> Target {
        crate::facts::target(self)
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
}
