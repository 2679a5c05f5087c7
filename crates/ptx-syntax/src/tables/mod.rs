//! Instruction knowledge as data: one [`InstrSpec`] row per opcode family
//! (see [`instructions`]) and the vocabulary of known modifiers ([`modifiers`]).

mod instructions;
mod modifiers;

pub use instructions::INSTRUCTIONS;
pub use modifiers::is_known_modifier;

use crate::ast::Instruction;
use crate::hash::FxHashMap;
use crate::target::PtxVersion;
use std::sync::OnceLock;

/// What the validator knows about one instruction family.
#[derive(Clone, Copy, Debug)]
pub struct InstrSpec {
    /// The opcode and the leading modifiers that select the family, dotted
    /// (`cp.async.bulk`); ptxas names the family this way in messages.
    pub name: &'static str,
    /// Operand signature, one code per operand: `d` result register of the
    /// instruction type, `U` 32-bit integer result register whatever the
    /// instruction type (`popc.b64`), `s` source of that type
    /// (register or immediate), `P` predicate result (`p` or `p|q`), `p`
    /// predicate source, `a` address `[...]`, `l` label or function name,
    /// `u` 32-bit integer source whatever the instruction type (a `.b32`,
    /// `.u32` or `.s32` register or an integer immediate: shift amounts,
    /// bit-field positions, lane and mask operands),
    /// `x` anything; `?` makes the code before it optional and `*` allows any
    /// number of further operands (`*` alone: any operands at all).
    pub operands: &'static str,
    /// How many data-type modifiers are allowed.
    pub types: (u8, u8),
    /// Lowest `sm_` number that has the family.
    pub min_sm: u32,
    /// Needs an architecture-specific target (`sm_90a`).
    pub arch_specific: bool,
    /// First PTX version with the family.
    pub min_ptx: PtxVersion,
    /// The only non-type modifiers allowed, when the row restricts them.
    pub modifiers: Option<&'static [&'static str]>,
}

impl InstrSpec {
    const fn new(name: &'static str, operands: &'static str) -> InstrSpec {
        InstrSpec {
            name,
            operands,
            types: (0, 4),
            min_sm: 0,
            arch_specific: false,
            min_ptx: PtxVersion::new(1, 0),
            modifiers: None,
        }
    }

    const fn sm(self, min_sm: u32) -> InstrSpec {
        InstrSpec { min_sm, ..self }
    }

    const fn arch(self, min_sm: u32) -> InstrSpec {
        InstrSpec { min_sm, arch_specific: true, ..self }
    }

    const fn ptx(self, major: u32, minor: u32) -> InstrSpec {
        InstrSpec { min_ptx: PtxVersion::new(major, minor), ..self }
    }

    const fn ty(self, min: u8, max: u8) -> InstrSpec {
        InstrSpec { types: (min, max), ..self }
    }

    const fn mods(self, modifiers: &'static [&'static str]) -> InstrSpec {
        InstrSpec { modifiers: Some(modifiers), ..self }
    }

    /// The operand codes, each with whether it is optional.
    pub fn operand_codes(&self) -> impl Iterator<Item = (u8, bool)> + Clone + '_ {
        let bytes = self.operands.as_bytes();
        bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| !matches!(b, b'?' | b'*'))
            .map(|(i, &b)| (b, bytes.get(i + 1) == Some(&b'?')))
    }

    /// Whether any number of further operands may follow the listed ones.
    pub fn variadic(&self) -> bool {
        self.operands.ends_with('*')
    }
}

/// The row for `inst`: the longest family name whose words are the opcode
/// followed by a prefix of the modifiers.
pub fn lookup(inst: &Instruction) -> Option<&'static InstrSpec> {
    // Rows grouped by opcode, each with its family words after the opcode,
    // longest family first, so that a lookup scans only its own rows and
    // stops at the first match.
    type Rows = Vec<(&'static InstrSpec, Vec<&'static str>)>;
    static BY_OPCODE: OnceLock<FxHashMap<&'static str, Rows>> = OnceLock::new();
    let by_opcode = BY_OPCODE.get_or_init(|| {
        let mut map: FxHashMap<&'static str, Rows> = FxHashMap::default();
        for spec in INSTRUCTIONS {
            let mut words = spec.name.split('.');
            let opcode = words.next().unwrap_or(spec.name);
            map.entry(opcode).or_default().push((spec, words.collect()));
        }
        for rows in map.values_mut() {
            rows.sort_by_key(|(_, words)| std::cmp::Reverse(words.len()));
        }
        map
    });
    let modifiers = &inst.modifiers;
    by_opcode.get(inst.opcode.name.as_str())?.iter().find_map(|(spec, words)| {
        let matches = words.len() <= modifiers.len() && words.iter().zip(modifiers).all(|(w, m)| m.name == *w);
        matches.then_some(*spec)
    })
}

/// How many leading modifiers name the family (`cp.async.bulk` has two).
pub fn family_word_count(spec: &InstrSpec) -> usize {
    spec.name.split('.').count() - 1
}
