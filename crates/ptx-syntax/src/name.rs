//! [`Name`]: an immutable string that stores short texts inline. Register
//! names, opcodes and modifiers are nearly all short, and allocating each
//! one was the largest cost of parsing.

use std::fmt;
use std::ops::Deref;

/// Longest text stored without a heap allocation.
const INLINE: usize = 22;

/// An immutable string; texts up to 22 bytes live inline.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(Repr);

// Every text has exactly one representation (inline iff short enough), so
// the derived comparisons and hash agree with the text's.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<str>),
}

impl Name {
    /// A name holding `text`.
    pub fn new(text: &str) -> Name {
        if text.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..text.len()].copy_from_slice(text.as_bytes());
            // `text.len() <= 22` fits in a u8.
            Name(Repr::Inline { len: text.len() as u8, bytes })
        } else {
            Name(Repr::Heap(text.into()))
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                let bytes = &bytes[..usize::from(*len)];
                // SAFETY: `Inline` is only built by `Name::new`, which copies
                // all of a `&str` (so whole UTF-8 characters) into `bytes`
                // and records its length in `len`; the fields are private
                // and never changed afterwards. Checking again on every read
                // was a measurable part of validation.
                unsafe { std::str::from_utf8_unchecked(bytes) }
            }
            Repr::Heap(text) => text,
        }
    }
}

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::new(text)
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_names() {
        let short = Name::new("%rd12");
        let long = Name::new("_ZN2ns5applyINS_7FunctorEEEvPKfPfT_i");
        assert_eq!(short, "%rd12");
        assert_eq!(long.as_str(), "_ZN2ns5applyINS_7FunctorEEEvPKfPfT_i");
        assert_eq!(Name::new("é".repeat(11).as_str()).len(), 22);
        assert_eq!(Name::new(""), "");
        assert_ne!(Name::new("a"), Name::new("a\0"));
        assert_eq!(format!("{short} {long:?}"), "%rd12 \"_ZN2ns5applyINS_7FunctorEEEvPKfPfT_i\"");
    }
}
