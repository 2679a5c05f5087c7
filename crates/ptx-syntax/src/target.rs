//! Targets (`sm_90a`) and PTX ISA versions, with the tables that say which
//! PTX version introduced which target.

use std::fmt;

/// A PTX ISA version such as 9.5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PtxVersion {
    /// Major number.
    pub major: u32,
    /// Minor number.
    pub minor: u32,
}

impl PtxVersion {
    /// `major.minor`.
    pub const fn new(major: u32, minor: u32) -> PtxVersion {
        PtxVersion { major, minor }
    }

    /// The newest version ptxas 13.5 accepts.
    pub const LATEST: PtxVersion = PtxVersion::new(9, 5);

    /// True for the versions ptxas 13.5 lists with `--list-version`.
    pub fn is_known(self) -> bool {
        let last_minor = match self.major {
            1 => 5,
            2 => 3,
            3 => 2,
            4 => 3,
            5 => 1,
            6 => 5,
            7 => 8,
            8 => 8,
            9 => 5,
            _ => return false,
        };
        self.minor <= last_minor
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A GPU architecture: `sm_90` is number 90; `sm_90a` adds suffix `a`
/// (architecture-specific), `sm_100f` suffix `f` (family-specific).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sm {
    /// 80, 90, 100...
    pub number: u32,
    /// `Some('a')`, `Some('f')` or `None`.
    pub suffix: Option<char>,
}

/// Known targets: number, PTX version that introduced it, and the PTX version
/// that introduced its `a` and `f` variants where they exist.
const TARGETS: &[(u32, PtxVersion, Option<PtxVersion>, Option<PtxVersion>)] = {
    const fn v(major: u32, minor: u32) -> PtxVersion {
        PtxVersion::new(major, minor)
    }
    &[
        (10, v(1, 0), None, None),
        (11, v(1, 0), None, None),
        (12, v(1, 2), None, None),
        (13, v(1, 2), None, None),
        (20, v(2, 0), None, None),
        (21, v(2, 0), None, None),
        (30, v(2, 0), None, None),
        (32, v(4, 0), None, None),
        (35, v(3, 1), None, None),
        (37, v(4, 1), None, None),
        (50, v(4, 0), None, None),
        (52, v(4, 1), None, None),
        (53, v(4, 2), None, None),
        (60, v(5, 0), None, None),
        (61, v(5, 0), None, None),
        (62, v(5, 0), None, None),
        (70, v(6, 0), None, None),
        (72, v(6, 1), None, None),
        (75, v(6, 3), None, None),
        (80, v(7, 0), None, None),
        (86, v(7, 1), None, None),
        (87, v(7, 4), None, None),
        (88, v(9, 0), None, None),
        (89, v(7, 8), None, None),
        (90, v(7, 8), Some(v(8, 0)), None),
        (100, v(8, 6), Some(v(8, 6)), Some(v(8, 8))),
        (101, v(8, 6), Some(v(8, 6)), Some(v(8, 8))),
        (103, v(8, 8), Some(v(8, 8)), Some(v(8, 8))),
        (107, v(9, 1), Some(v(9, 1)), Some(v(9, 1))),
        (110, v(9, 0), Some(v(9, 0)), Some(v(9, 0))),
        (120, v(8, 7), Some(v(8, 7)), Some(v(8, 8))),
        (121, v(8, 8), Some(v(8, 8)), Some(v(8, 8))),
    ]
};

impl Sm {
    /// Parses `sm_90a` or `compute_90a`; `None` for anything else,
    /// including unknown numbers and suffixes a target does not have.
    pub fn parse(name: &str) -> Option<Sm> {
        let rest = name.strip_prefix("sm_").or_else(|| name.strip_prefix("compute_"))?;
        let (digits, suffix) = match rest.strip_suffix(['a', 'f']) {
            Some(digits) => (digits, rest.chars().last()),
            None => (rest, None),
        };
        let number: u32 = digits.parse().ok().filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))?;
        let sm = Sm { number, suffix };
        sm.min_ptx().map(|_| sm)
    }

    /// The PTX version that introduced this target, `None` when unknown.
    pub fn min_ptx(self) -> Option<PtxVersion> {
        let &(_, base, a, f) = TARGETS.iter().find(|t| t.0 == self.number)?;
        match self.suffix {
            None => Some(base),
            Some('a') => a,
            Some('f') => f,
            Some(_) => None,
        }
    }
}

impl fmt::Display for Sm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.number)?;
        if let Some(suffix) = self.suffix {
            write!(f, "{suffix}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        assert_eq!(Sm::parse("sm_90a"), Some(Sm { number: 90, suffix: Some('a') }));
        assert_eq!(Sm::parse("compute_80"), Some(Sm { number: 80, suffix: None }));
        assert_eq!(Sm::parse("sm_95"), None);
        assert_eq!(Sm::parse("sm_80a"), None);
        assert_eq!(Sm::parse("sm_90f"), None);
        assert_eq!(Sm::parse("sm_+80"), None);
        assert_eq!(Sm::parse("sm_100f").map(|s| s.to_string()), Some("sm_100f".to_owned()));
        assert_eq!(Sm::parse("sm_90").and_then(Sm::min_ptx), Some(PtxVersion::new(7, 8)));
    }

    #[test]
    fn versions() {
        assert!(PtxVersion::new(9, 5).is_known());
        assert!(!PtxVersion::new(9, 9).is_known());
        assert!(!PtxVersion::new(1, 6).is_known());
        assert!(PtxVersion::new(7, 8) < PtxVersion::new(8, 0));
    }
}
