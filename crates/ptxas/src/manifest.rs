//! `phases.ron`: the phase order, the AdvancedPhase hook points and the
//! NvOpt recipes, loaded at start-up and checked against the registry.
//!
//! ```ron
//! (
//!     stages: [
//!         (name: "Initial setup", phases: ["OriCheckInitialProgram", "AdvancedPhaseBeforeConvUnSup"]),
//!     ],
//!     hooks: {
//!         // A hook point is a no-op unless a recipe enables it; then it runs `runs`.
//!         "AdvancedPhaseBeforeConvUnSup": (runs: []),
//!     },
//!     recipes: [
//!         // Applied in order to every (target, -O level) they match.
//!         (name: "literal -O0", when: (opt_levels: [0]), disable: ["OriCopyProp"],
//!          knobs: {"SomePhase": {"SomeKnob": 3}}),
//!     ],
//! )
//! ```
//!
//! Loading refuses unknown phases, hooks, knobs and knob types, and any
//! order in which a phase would run without the IR properties it requires,
//! for every target and -O level; each message names the file, the line
//! and the phase.

use std::collections::BTreeMap;
use std::fmt;

use ori_ir::{Knob, KnobValue, Knobs, Phase, Property, PropertySet, Sm};
use serde::Deserialize;

use crate::registry::Registry;

/// The manifest compiled into the binary (the repository's `phases.ron`).
pub const DEFAULT_SOURCE: &str = include_str!("../../../phases.ron");
/// The name messages use for the embedded manifest.
pub const DEFAULT_NAME: &str = "phases.ron";

/// What lowering hands to the first phase.
pub const INITIAL_PROPERTIES: PropertySet = PropertySet::of(&[Property::VirtualRegs]);

/// The highest -O level with its own behaviour (higher levels act like it).
pub const MAX_OPT_LEVEL: u8 = 3;

/// A manifest that failed to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    /// The manifest file.
    pub file: String,
    /// 1-based line, when the problem has one.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// What is wrong, naming the phase concerned.
    pub message: String,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ManifestError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    stages: Vec<RawStage>,
    #[serde(default)]
    hooks: BTreeMap<String, RawHook>,
    #[serde(default)]
    recipes: Vec<RawRecipe>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStage {
    name: String,
    phases: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHook {
    #[serde(default)]
    runs: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecipe {
    name: String,
    #[serde(default)]
    when: RawWhen,
    #[serde(default)]
    enable: Vec<String>,
    #[serde(default)]
    disable: Vec<String>,
    #[serde(default)]
    knobs: BTreeMap<String, BTreeMap<String, RawKnob>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawWhen {
    min_sm: Option<u16>,
    max_sm: Option<u16>,
    opt_levels: Option<Vec<u8>>,
}

#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum RawKnob {
    Bool(bool),
    Int(i64),
    Str(String),
}

impl From<RawKnob> for KnobValue {
    fn from(raw: RawKnob) -> KnobValue {
        match raw {
            RawKnob::Bool(b) => KnobValue::Bool(b),
            RawKnob::Int(i) => KnobValue::Int(i),
            RawKnob::Str(s) => KnobValue::Str(s),
        }
    }
}

/// One position of the pipeline.
#[derive(Clone, Debug)]
struct Step {
    name: String,
    stage: usize,
    line: usize,
    kind: StepKind,
}

#[derive(Clone, Debug)]
enum StepKind {
    /// A registered phase; on unless a recipe disables it.
    Phase,
    /// A hook point; off unless a recipe enables it, then runs these phases.
    Hook(Vec<String>),
}

/// When a recipe applies.
#[derive(Clone, Debug, Default)]
struct Condition {
    min_sm: Option<u16>,
    max_sm: Option<u16>,
    opt_levels: Option<Vec<u8>>,
}

impl Condition {
    fn matches(&self, sm: Sm, opt: u8) -> bool {
        self.min_sm.is_none_or(|m| sm.version >= m)
            && self.max_sm.is_none_or(|m| sm.version <= m)
            && self.opt_levels.as_ref().is_none_or(|levels| levels.contains(&opt))
    }
}

#[derive(Clone, Debug)]
struct Recipe {
    name: String,
    when: Condition,
    enable: Vec<String>,
    disable: Vec<String>,
    knobs: Vec<(String, String, KnobValue)>,
}

/// A loaded, checked manifest.
#[derive(Clone, Debug)]
pub struct Manifest {
    file: String,
    stages: Vec<String>,
    steps: Vec<Step>,
    recipes: Vec<Recipe>,
}

/// One phase to run, with the knobs the recipes gave it.
pub struct PlannedPhase<'r> {
    /// The phase.
    pub phase: &'r dyn Phase,
    /// Its knobs.
    pub knobs: Knobs,
    /// The hook point that runs it, if it runs from one.
    pub hook: Option<String>,
    /// The stage it belongs to.
    pub stage: String,
    /// Its line in the manifest.
    pub line: usize,
}

/// The phases to run for one target and -O level, in order.
pub struct Plan<'r> {
    /// The manifest file the plan comes from.
    pub file: String,
    /// The phases.
    pub phases: Vec<PlannedPhase<'r>>,
}

impl Manifest {
    /// The embedded default manifest.
    pub fn builtin(registry: &Registry) -> Result<Manifest, ManifestError> {
        Manifest::parse(DEFAULT_NAME, DEFAULT_SOURCE, registry)
    }

    /// The manifest given (`--phases`), or the embedded one.
    pub fn load(given: Option<&crate::ManifestSource>, registry: &Registry) -> Result<Manifest, ManifestError> {
        match given {
            Some(m) => Manifest::parse(&m.file, &m.text, registry),
            None => Manifest::builtin(registry),
        }
    }

    /// Parses and checks a manifest.
    pub fn parse(file: &str, source: &str, registry: &Registry) -> Result<Manifest, ManifestError> {
        let error = |line: Option<usize>, column: Option<usize>, message: String| ManifestError {
            file: file.to_string(),
            line,
            column,
            message,
        };
        // Implicit `Some` lets recipes say `min_sm: 90` instead of `Some(90)`.
        let ron = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        let raw: RawManifest = ron.from_str(source).map_err(|e| {
            error(Some(e.position.line), Some(e.position.col), format!("malformed manifest: {}", e.code))
        })?;
        let mut lines = LineFinder::new(source);
        let mut steps = Vec::new();
        let mut stages = Vec::new();
        for (stage_index, stage) in raw.stages.iter().enumerate() {
            stages.push(stage.name.clone());
            for name in &stage.phases {
                let line = lines.next_after_cursor(name);
                let kind = if let Some(hook) = raw.hooks.get(name) {
                    StepKind::Hook(hook.runs.clone())
                } else if registry.get(name).is_some() {
                    StepKind::Phase
                } else {
                    return Err(error(Some(line), None, unknown_phase(name, registry)));
                };
                steps.push(Step { name: name.clone(), stage: stage_index, line, kind });
            }
        }
        for (hook, body) in &raw.hooks {
            let line = lines.first(hook);
            if registry.get(hook).is_some() {
                return Err(error(Some(line), None, format!("hook '{hook}' has the name of a phase")));
            }
            if !steps.iter().any(|s| &s.name == hook) {
                return Err(error(Some(line), None, format!("hook '{hook}' is declared but placed in no stage")));
            }
            for phase in &body.runs {
                if registry.get(phase).is_none() {
                    let line = lines.first_after(phase, hook);
                    return Err(error(
                        Some(line),
                        None,
                        format!("hook '{hook}' runs {}", unknown_phase(phase, registry)),
                    ));
                }
            }
        }
        let mut recipes = Vec::new();
        for raw_recipe in raw.recipes {
            let anchor = format!("\"{}\"", raw_recipe.name);
            let recipe_line = lines.first_raw(&anchor);
            for name in raw_recipe.enable.iter().chain(&raw_recipe.disable) {
                if !steps.iter().any(|s| s.name.eq_ignore_ascii_case(name)) {
                    let line = lines.first_after(name, &anchor);
                    let what = if registry.get(name).is_some() || raw.hooks.contains_key(name) {
                        format!("phase '{name}' is not placed in any stage")
                    } else {
                        unknown_phase(name, registry)
                    };
                    return Err(error(Some(line), None, format!("recipe '{}': {what}", raw_recipe.name)));
                }
            }
            let mut knobs = Vec::new();
            for (phase_name, settings) in raw_recipe.knobs {
                let line = lines.first_after(&phase_name, &anchor);
                let phase = registry.get(&phase_name).ok_or_else(|| {
                    error(
                        Some(line),
                        None,
                        format!("recipe '{}': knobs for {}", raw_recipe.name, unknown_phase(&phase_name, registry)),
                    )
                })?;
                for (knob, value) in settings {
                    let value = KnobValue::from(value);
                    check_knob(phase, &knob, &value).map_err(|m| {
                        error(
                            Some(lines.first_after(&knob, &anchor)),
                            None,
                            format!("recipe '{}': {m}", raw_recipe.name),
                        )
                    })?;
                    knobs.push((phase.name().to_string(), knob, value));
                }
            }
            let when = Condition {
                min_sm: raw_recipe.when.min_sm,
                max_sm: raw_recipe.when.max_sm,
                opt_levels: raw_recipe.when.opt_levels,
            };
            if let Some(levels) = &when.opt_levels
                && let Some(bad) = levels.iter().find(|&&l| l > MAX_OPT_LEVEL)
            {
                return Err(error(
                    Some(recipe_line),
                    None,
                    format!("recipe '{}': no -O level {bad} (0..={MAX_OPT_LEVEL})", raw_recipe.name),
                ));
            }
            recipes.push(Recipe {
                name: raw_recipe.name,
                when,
                enable: raw_recipe.enable,
                disable: raw_recipe.disable,
                knobs,
            });
        }
        let manifest = Manifest { file: file.to_string(), stages, steps, recipes };
        for sm in Sm::all() {
            for opt in 0..=MAX_OPT_LEVEL {
                manifest
                    .plan(registry, sm, opt)
                    .check(INITIAL_PROPERTIES)
                    .map_err(|e| ManifestError { message: format!("{} (with -O{opt} for {sm})", e.message), ..e })?;
            }
        }
        Ok(manifest)
    }

    /// The phases that run for `sm` at -O`opt`, after applying the
    /// recipes.
    pub fn plan<'r>(&self, registry: &'r Registry, sm: Sm, opt: u8) -> Plan<'r> {
        let opt = opt.min(MAX_OPT_LEVEL);
        let mut enabled: Vec<bool> = self.steps.iter().map(|s| matches!(s.kind, StepKind::Phase)).collect();
        let mut knob_settings: Vec<&(String, String, KnobValue)> = Vec::new();
        for recipe in self.recipes.iter().filter(|r| r.when.matches(sm, opt)) {
            for (step, on) in self.steps.iter().zip(enabled.iter_mut()) {
                if recipe.enable.iter().any(|n| n.eq_ignore_ascii_case(&step.name)) {
                    *on = true;
                }
                if recipe.disable.iter().any(|n| n.eq_ignore_ascii_case(&step.name)) {
                    *on = false;
                }
            }
            knob_settings.extend(&recipe.knobs);
        }
        let planned = |name: &str, hook: Option<&Step>, step: &Step| {
            let phase = registry.get(name).expect("manifest phases were checked against the registry");
            let mut knobs = Knobs::defaults(phase.knobs());
            for (_, knob, value) in knob_settings.iter().filter(|(p, _, _)| p == phase.name()) {
                knobs.set(knob, value.clone());
            }
            PlannedPhase {
                phase,
                knobs,
                hook: hook.map(|h| h.name.clone()),
                stage: self.stages[step.stage].clone(),
                line: step.line,
            }
        };
        let mut phases = Vec::new();
        for (step, _) in self.steps.iter().zip(&enabled).filter(|(_, on)| **on) {
            match &step.kind {
                StepKind::Phase => phases.push(planned(&step.name, None, step)),
                StepKind::Hook(runs) => phases.extend(runs.iter().map(|name| planned(name, Some(step), step))),
            }
        }
        Plan { file: self.file.clone(), phases }
    }

    /// The recipes, by name, for listings.
    pub fn recipe_names(&self) -> impl Iterator<Item = &str> {
        self.recipes.iter().map(|r| r.name.as_str())
    }
}

impl Plan<'_> {
    /// Sets `knob` of every planned phase that declares it: how command-line
    /// options (`--maxrregcount` → `MaxRegs`) reach the phases.
    pub fn override_knob(&mut self, knob: &str, value: KnobValue) {
        for planned in &mut self.phases {
            if planned.phase.knobs().iter().any(|k| k.name == knob && k.default.type_name() == value.type_name()) {
                planned.knobs.set(knob, value.clone());
            }
        }
    }

    /// Checks that every phase finds the properties it requires when the
    /// pipeline starts from `initial`.
    pub fn check(&self, initial: PropertySet) -> Result<(), ManifestError> {
        let mut current = initial;
        // Who last removed each property, to explain a missing one.
        let mut removed_by: BTreeMap<&'static str, (&str, usize)> = BTreeMap::new();
        for planned in &self.phases {
            let phase = planned.phase;
            if let Some(missing) = phase.requires().minus(current).iter().next() {
                let why = match removed_by.get(missing.name()) {
                    Some((by, line)) => format!("which phase '{by}' (line {line}) invalidated"),
                    None if initial.contains(missing) => unreachable!("an initial property was never removed"),
                    None => "which no earlier phase establishes".to_string(),
                };
                return Err(ManifestError {
                    file: self.file.clone(),
                    line: Some(planned.line),
                    column: None,
                    message: format!("phase '{}' requires {missing}, {why}", phase.name()),
                });
            }
            for lost in phase.invalidates().minus(phase.establishes()).iter() {
                if current.contains(lost) {
                    removed_by.insert(lost.name(), (phase.name(), planned.line));
                }
            }
            current = current.minus(phase.invalidates()).union(phase.establishes());
        }
        Ok(())
    }
}

fn unknown_phase(name: &str, registry: &Registry) -> String {
    let mut known: Vec<&str> = registry.iter().map(|p| p.name()).collect();
    known.sort_unstable();
    format!("unknown phase '{name}' (registered phases: {})", known.join(", "))
}

fn check_knob(phase: &dyn Phase, knob: &str, value: &KnobValue) -> Result<(), String> {
    let declared: &[Knob] = phase.knobs();
    let spec = declared.iter().find(|k| k.name == knob).ok_or_else(|| {
        let names: Vec<&str> = declared.iter().map(|k| k.name).collect();
        format!(
            "phase '{}' has no knob '{knob}' (its knobs: {})",
            phase.name(),
            if names.is_empty() { "none".into() } else { names.join(", ") }
        )
    })?;
    if spec.default.type_name() != value.type_name() {
        return Err(format!(
            "knob '{knob}' of phase '{}' takes a {}, not the {} {value}",
            phase.name(),
            spec.default.type_name(),
            value.type_name()
        ));
    }
    Ok(())
}

/// Finds the lines where quoted names occur, so that messages about
/// entries of the (already deserialised) manifest can point at them.
struct LineFinder<'s> {
    source: &'s str,
    cursor: usize,
}

impl<'s> LineFinder<'s> {
    fn new(source: &'s str) -> LineFinder<'s> {
        LineFinder { source, cursor: 0 }
    }

    fn line_of(&self, offset: usize) -> usize {
        self.source[..offset].bytes().filter(|&b| b == b'\n').count() + 1
    }

    /// The next occurrence of `"name"` after the previous one found this
    /// way: stage lists are walked in file order.
    fn next_after_cursor(&mut self, name: &str) -> usize {
        let needle = format!("\"{name}\"");
        match self.source[self.cursor..].find(&needle) {
            Some(i) => {
                self.cursor += i + needle.len();
                self.line_of(self.cursor)
            }
            None => self.line_of(self.cursor),
        }
    }

    fn first_raw(&self, needle: &str) -> usize {
        self.source.find(needle).map_or(1, |i| self.line_of(i))
    }

    fn first(&self, name: &str) -> usize {
        self.first_raw(&format!("\"{name}\""))
    }

    /// The first occurrence of `"name"` after `anchor`.
    fn first_after(&self, name: &str, anchor: &str) -> usize {
        let start = self.source.find(anchor).unwrap_or(0);
        let needle = format!("\"{name}\"");
        self.source[start..].find(&needle).map_or(self.line_of(start), |i| self.line_of(start + i))
    }
}

#[cfg(test)]
mod tests {
    use ori_ir::{Function, Knob, KnobValue, PhaseContext, PhaseError, Property, PropertySet};

    use super::*;

    /// A phase with declared properties and a knob, doing nothing.
    struct Fake {
        name: &'static str,
        requires: PropertySet,
        establishes: PropertySet,
        invalidates: PropertySet,
    }

    static KNOBS: &[Knob] = &[Knob { name: "Depth", default: KnobValue::Int(2), doc: "how deep" }];

    impl Phase for Fake {
        fn name(&self) -> &'static str {
            self.name
        }
        fn description(&self) -> &'static str {
            "test phase"
        }
        fn requires(&self) -> PropertySet {
            self.requires
        }
        fn establishes(&self) -> PropertySet {
            self.establishes
        }
        fn invalidates(&self) -> PropertySet {
            self.invalidates
        }
        fn knobs(&self) -> &'static [Knob] {
            KNOBS
        }
        fn run(&self, _: &mut Function, _: &PhaseContext<'_>) -> Result<(), PhaseError> {
            Ok(())
        }
    }

    fn registry() -> Registry {
        let set = |p: &[Property]| PropertySet::of(p);
        let fake = |name, requires, establishes, invalidates| -> Box<dyn Phase> {
            Box::new(Fake { name, requires, establishes, invalidates })
        };
        Registry::with_phases(vec![
            fake("Simplify", set(&[Property::VirtualRegs]), set(&[]), set(&[])),
            fake(
                "Allocate",
                set(&[Property::VirtualRegs]),
                set(&[Property::PhysicalRegs]),
                set(&[Property::VirtualRegs]),
            ),
            fake("Schedule", set(&[Property::PhysicalRegs]), set(&[Property::Scheduled]), set(&[])),
        ])
    }

    fn load(text: &str) -> Result<Manifest, ManifestError> {
        Manifest::parse("t.ron", text, &registry())
    }

    fn names(plan: &Plan<'_>) -> Vec<&'static str> {
        plan.phases.iter().map(|p| p.phase.name()).collect()
    }

    #[test]
    fn good_order_loads_and_plans() {
        let m = load(r#"(stages: [(name: "all", phases: ["Simplify", "Allocate", "Schedule"])])"#).unwrap();
        assert_eq!(names(&m.plan(&registry(), Sm::new(90), 3)), ["Simplify", "Allocate", "Schedule"]);
    }

    #[test]
    fn missing_requirement_names_the_phase_and_line() {
        let e = load("(stages: [(name: \"all\", phases: [\n\"Schedule\",\n])])").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(
            e.message.starts_with("phase 'Schedule' requires PhysicalRegs, which no earlier phase establishes"),
            "{e}"
        );
    }

    #[test]
    fn invalidated_requirement_names_both_phases() {
        let e = load("(stages: [(name: \"all\", phases: [\n\"Allocate\",\n\"Simplify\",\n])])").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(
            e.message.starts_with("phase 'Simplify' requires VirtualRegs, which phase 'Allocate' (line 2) invalidated"),
            "{e}"
        );
    }

    #[test]
    fn recipes_break_requirements_only_where_they_apply() {
        let text = r#"(
            stages: [(name: "all", phases: ["Allocate", "Schedule"])],
            recipes: [(name: "no RA at O0", when: (opt_levels: [0]), disable: ["Allocate"])],
        )"#;
        let e = load(text).unwrap_err();
        assert!(e.message.contains("requires PhysicalRegs") && e.message.contains("(with -O0 for sm_75)"), "{e}");
    }

    #[test]
    fn hooks_are_off_until_a_recipe_enables_them() {
        let text = r#"(
            stages: [(name: "all", phases: ["Simplify", "AdvancedPhaseX", "Allocate"])],
            hooks: {"AdvancedPhaseX": (runs: ["Simplify"])},
            recipes: [(name: "hook on sm_90+", when: (min_sm: 90), enable: ["AdvancedPhaseX"],
                       knobs: {"Simplify": {"Depth": 5}})],
        )"#;
        let m = load(text).unwrap();
        let r = registry();
        assert_eq!(names(&m.plan(&r, Sm::new(80), 3)), ["Simplify", "Allocate"]);
        let plan = m.plan(&r, Sm::new(90), 3);
        assert_eq!(names(&plan), ["Simplify", "Simplify", "Allocate"]);
        assert_eq!(plan.phases[1].hook.as_deref(), Some("AdvancedPhaseX"));
        assert_eq!(plan.phases[0].knobs.int("Depth"), Some(5));
        assert_eq!(m.plan(&r, Sm::new(80), 3).phases[0].knobs.int("Depth"), Some(2));
    }

    #[test]
    fn bad_entries_are_refused() {
        let cases = [
            (r#"(stages: [(name: "a", phases: ["Nope"])])"#, "unknown phase 'Nope'"),
            (
                r#"(stages: [(name: "a", phases: ["Simplify"])], recipes: [(name: "r", disable: ["Nope"])])"#,
                "recipe 'r': unknown phase 'Nope'",
            ),
            (
                r#"(stages: [(name: "a", phases: ["Simplify"])], recipes: [(name: "r", knobs: {"Simplify": {"Width": 1}})])"#,
                "phase 'Simplify' has no knob 'Width' (its knobs: Depth)",
            ),
            (
                r#"(stages: [(name: "a", phases: ["Simplify"])], recipes: [(name: "r", knobs: {"Simplify": {"Depth": true}})])"#,
                "knob 'Depth' of phase 'Simplify' takes a int, not the bool true",
            ),
            (
                r#"(stages: [(name: "a", phases: ["Simplify"])], hooks: {"H": (runs: [])})"#,
                "hook 'H' is declared but placed in no stage",
            ),
            (r#"(stages: [(name: "a", phases: ["Simplify"])], extra: 1)"#, "malformed manifest"),
        ];
        for (text, expected) in cases {
            let e = load(text).unwrap_err();
            assert!(e.to_string().contains(expected), "`{e}` should contain `{expected}`");
        }
    }

    #[test]
    fn the_embedded_manifest_loads() {
        Manifest::builtin(&Registry::standard()).unwrap();
    }
}
