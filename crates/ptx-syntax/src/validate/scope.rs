//! Symbol tables: one per scope, with `%r<N>` ranges stored compactly.

use crate::ast::{DeclType, ScalarType, StateSpace};
use crate::hash::FxHashMap;

/// What a name denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    /// A register or variable of a state space.
    Variable(StateSpace, DeclType),
    /// A vector register, `.reg .v4 .u32 %v`: element type and count.
    VectorReg(ScalarType, u32),
    /// A function; `defined` once its body has been seen.
    Function {
        /// Whether a definition (not only a declaration) exists.
        defined: bool,
    },
    /// A label, prototype or target list.
    Label,
}

/// Names declared in one scope.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    names: FxHashMap<String, SymbolKind>,
    /// `%r<N>`: (prefix, N, kind). A function declares a handful of ranges,
    /// so a linear scan beats hashing the prefix on every lookup.
    ranges: Vec<(Box<str>, u32, SymbolKind)>,
}

impl Scope {
    /// Declares `name`; false when it was already declared here.
    pub fn add(&mut self, name: &str, kind: SymbolKind) -> bool {
        if self.get(name).is_some() {
            return false;
        }
        self.names.insert(name.to_owned(), kind);
        true
    }

    /// Redefines `name`.
    pub fn replace(&mut self, name: &str, kind: SymbolKind) {
        self.names.insert(name.to_owned(), kind);
    }

    /// Declares `prefix0` .. `prefix{count-1}`; false when the range was
    /// already declared here.
    pub fn add_range(&mut self, prefix: &str, count: u32, kind: SymbolKind) -> bool {
        if self.ranges.iter().any(|(p, _, _)| &**p == prefix) {
            return false;
        }
        self.ranges.push((prefix.into(), count, kind));
        true
    }

    /// What `name` denotes in this scope.
    pub fn get(&self, name: &str) -> Option<SymbolKind> {
        // Most scopes on a lookup chain are empty or hold no ranges; skip hashing for them.
        if !self.names.is_empty()
            && let Some(kind) = self.names.get(name)
        {
            return Some(*kind);
        }
        if self.ranges.is_empty() {
            return None;
        }
        let digits = name.bytes().rev().take_while(u8::is_ascii_digit).count();
        let (prefix, number) = name.split_at(name.len() - digits);
        // ptxas reads the number in decimal, leading zeros and all: `%r05`
        // is among `%r<8>`'s names, `%r08` is not.
        if digits == 0 {
            return None;
        }
        let (_, count, kind) = self.ranges.iter().find(|(p, _, _)| &**p == prefix)?;
        number.parse::<u32>().ok().filter(|n| n < count).map(|_| *kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_names() {
        let reg = SymbolKind::Variable(StateSpace::Reg, DeclType::Scalar(ScalarType::B32));
        let mut scope = Scope::default();
        assert!(scope.add_range("%r", 6, reg));
        assert!(scope.add("%f1", reg));
        assert!(!scope.add("%f1", reg));
        assert_eq!(scope.get("%r5"), Some(reg));
        assert_eq!(scope.get("%r6"), None);
        assert_eq!(scope.get("%r05"), Some(reg));
        assert_eq!(scope.get("%r06"), None);
        assert_eq!(scope.get("%rd1"), None);
        assert!(!scope.add("%r2", reg));
    }
}
