//! IR properties: what a stage of the pipeline guarantees about the code.
//!
//! Each phase declares the properties it requires, establishes and
//! invalidates; the phase manager refuses an order in which a phase runs
//! without what it requires, and the verifier checks the invariants behind
//! every property the module claims.

use std::fmt;

macro_rules! properties {
    ($($variant:ident = $bit:literal, $name:literal, $doc:literal;)*) => {
        /// One IR property.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Property { $(#[doc = $doc] $variant = $bit,)* }

        impl Property {
            /// Every property.
            pub const ALL: &'static [Property] = &[$(Property::$variant,)*];

            /// The name used in `phases.ron` and in messages.
            pub fn name(self) -> &'static str {
                match self { $(Property::$variant => $name,)* }
            }
        }
    };
}

properties! {
    VirtualRegs = 0, "VirtualRegs", "Registers are virtual; allocation has not run.";
    PhysicalRegs = 1, "PhysicalRegs", "Every register is physical.";
    Legalized = 2, "Legalized", "Every instruction is a form the target can encode.";
    Scheduled = 3, "Scheduled", "Every instruction carries a valid control word.";
    Encoded = 4, "Encoded", "Every instruction carries its machine word.";
}

impl Property {
    /// Looks a property up by name.
    pub fn from_name(name: &str) -> Option<Property> {
        Property::ALL.iter().copied().find(|p| p.name() == name)
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of [`Property`] values.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct PropertySet(u32);

impl PropertySet {
    /// The empty set.
    pub const EMPTY: PropertySet = PropertySet(0);

    /// A set of the given properties.
    pub const fn of(props: &[Property]) -> PropertySet {
        let mut bits = 0;
        let mut i = 0;
        while i < props.len() {
            bits |= 1 << props[i] as u32;
            i += 1;
        }
        PropertySet(bits)
    }

    /// True when `p` is in the set.
    pub fn contains(self, p: Property) -> bool {
        self.0 & (1 << p as u32) != 0
    }

    /// Union.
    pub fn union(self, other: PropertySet) -> PropertySet {
        PropertySet(self.0 | other.0)
    }

    /// Difference.
    pub fn minus(self, other: PropertySet) -> PropertySet {
        PropertySet(self.0 & !other.0)
    }

    /// The properties in the set.
    pub fn iter(self) -> impl Iterator<Item = Property> {
        Property::ALL.iter().copied().filter(move |&p| self.contains(p))
    }

    /// True when the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Display for PropertySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<_> = self.iter().map(Property::name).collect();
        write!(f, "{{{}}}", names.join(", "))
    }
}
