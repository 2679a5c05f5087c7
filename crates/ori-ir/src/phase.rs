//! What a phase is: a named transformation of Ori with declared
//! requirements, effects on IR properties, and knobs.

use std::collections::BTreeMap;
use std::fmt;

use crate::facts::Target;
use crate::function::Function;
use crate::inst::Inst;
use crate::module::Module;
use crate::props::PropertySet;

/// The value of a knob, as written in `phases.ron`.
#[derive(Clone, Debug, PartialEq)]
pub enum KnobValue {
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A string.
    Str(String),
}

impl KnobValue {
    /// `bool`, `int` or `string`: for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            KnobValue::Bool(_) => "bool",
            KnobValue::Int(_) => "int",
            KnobValue::Str(_) => "string",
        }
    }
}

impl fmt::Display for KnobValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KnobValue::Bool(b) => write!(f, "{b}"),
            KnobValue::Int(i) => write!(f, "{i}"),
            KnobValue::Str(s) => write!(f, "{s:?}"),
        }
    }
}

/// A knob a phase understands: its name, default and meaning.
#[derive(Clone, Debug)]
pub struct Knob {
    /// Name as written in `phases.ron`.
    pub name: &'static str,
    /// Value when no recipe sets it (also fixes the knob's type).
    pub default: KnobValue,
    /// What it does.
    pub doc: &'static str,
}

/// The knob values a phase runs with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Knobs(BTreeMap<String, KnobValue>);

impl Knobs {
    /// Knobs set to the declared defaults.
    pub fn defaults(knobs: &[Knob]) -> Knobs {
        Knobs(knobs.iter().map(|k| (k.name.to_string(), k.default.clone())).collect())
    }

    /// Sets a knob.
    pub fn set(&mut self, name: &str, value: KnobValue) {
        self.0.insert(name.to_string(), value);
    }

    /// A knob's value.
    pub fn get(&self, name: &str) -> Option<&KnobValue> {
        self.0.get(name)
    }

    /// A boolean knob (false when unset or of another type).
    pub fn bool(&self, name: &str) -> bool {
        matches!(self.get(name), Some(KnobValue::Bool(true)))
    }

    /// An integer knob.
    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name) {
            Some(KnobValue::Int(i)) => Some(*i),
            _ => None,
        }
    }

    /// All knobs, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &KnobValue)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// Which instructions the target's encoder has a form for: asked by
/// phases that choose between equivalent operand shapes (a register or
/// the constant it was loaded from), so that they only make what the
/// encoder can write. The encoder implements it; passes see only this.
pub trait Forms: Send + Sync {
    /// True when `inst` (virtual registers allowed; only operand kinds,
    /// modifiers and widths matter) has an encoding on this target.
    fn encodes(&self, inst: &Inst) -> bool;
}

/// The answer for contexts without an encoder (tools that run single
/// phases): nothing encodes, so phases that ask make no change.
#[derive(Copy, Clone, Debug, Default)]
pub struct NoForms;

impl Forms for NoForms {
    fn encodes(&self, _inst: &Inst) -> bool {
        false
    }
}

/// What a phase sees besides the IR.
#[derive(Clone)]
pub struct PhaseContext<'a> {
    /// The target description.
    pub target: Target,
    /// `-O` level, 0..=3 (higher values act as 3).
    pub opt_level: u8,
    /// This phase's knobs.
    pub knobs: &'a Knobs,
    /// The encoder's forms.
    pub forms: &'a dyn Forms,
}

impl fmt::Debug for PhaseContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PhaseContext")
            .field("target", &self.target)
            .field("opt_level", &self.opt_level)
            .field("knobs", &self.knobs)
            .finish_non_exhaustive()
    }
}

/// A phase failed on some function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhaseError {
    /// The function being transformed, if the error concerns one.
    pub function: Option<String>,
    /// What went wrong.
    pub message: String,
}

impl PhaseError {
    /// An error about `func`.
    pub fn in_function(func: &Function, message: impl Into<String>) -> PhaseError {
        PhaseError { function: Some(func.name.clone()), message: message.into() }
    }
}

impl fmt::Display for PhaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.function {
            Some(func) => write!(f, "in function '{func}': {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for PhaseError {}

/// A transformation of Ori, registered under a name in the phase registry
/// and placed in the pipeline by `phases.ron`.
pub trait Phase: Send + Sync {
    /// The name used in `phases.ron`, dumps and statistics (the seed's
    /// phase name where the phase exists there).
    fn name(&self) -> &'static str;

    /// One line saying what the phase does.
    fn description(&self) -> &'static str;

    /// Properties the module must have for the phase to run.
    fn requires(&self) -> PropertySet {
        PropertySet::EMPTY
    }

    /// Properties the phase establishes.
    fn establishes(&self) -> PropertySet {
        PropertySet::EMPTY
    }

    /// Properties the phase may destroy.
    fn invalidates(&self) -> PropertySet {
        PropertySet::EMPTY
    }

    /// Knobs the phase understands.
    fn knobs(&self) -> &'static [Knob] {
        &[]
    }

    /// Transforms one function. Phases see one function at a time: the
    /// phase manager runs them function by function (and times each).
    fn run(&self, func: &mut Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError>;

    /// Transforms the whole module at once, for the few phases that need
    /// several functions (placing callees into their callers): `None`, the
    /// default, means the phase works function by function through
    /// [`Phase::run`].
    fn run_module(&self, _module: &mut Module, _cx: &PhaseContext<'_>) -> Option<Result<(), PhaseError>> {
        None
    }
}

/// Runs `phase` over `module`: as a whole when it works on modules,
/// otherwise over every function (for tests and tools that run a phase
/// outside the phase manager).
pub fn run_on_module(phase: &dyn Phase, module: &mut Module, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
    if let Some(result) = phase.run_module(module, cx) {
        return result;
    }
    module.functions.iter_mut().try_for_each(|f| phase.run(f, cx))
}
