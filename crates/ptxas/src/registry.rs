//! The phase registry: every phase the compiler has, by name.

use ori_ir::Phase;

use crate::builtin;

/// Maps phase names to the code that runs them.
pub struct Registry {
    phases: Vec<Box<dyn Phase>>,
}

impl Registry {
    /// Every phase of the compiler.
    pub fn standard() -> Registry {
        let mut phases = builtin::phases();
        phases.extend(passes_early::phases());
        phases.extend(passes_late::phases());
        phases.extend(regalloc_fatpoint::phases());
        phases.extend(sched::phases());
        phases.extend(mercury_encode::phases());
        phases.sort_by_key(|p| p.name().to_ascii_lowercase());
        Registry { phases }
    }

    /// A registry of the given phases (for tests and embedders that add
    /// their own).
    pub fn with_phases(phases: Vec<Box<dyn Phase>>) -> Registry {
        Registry { phases }
    }

    /// Looks a phase up by name, ignoring case as ptxas does.
    pub fn get(&self, name: &str) -> Option<&dyn Phase> {
        self.phases.iter().find(|p| p.name().eq_ignore_ascii_case(name)).map(|p| p.as_ref())
    }

    /// Every registered phase.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Phase> {
        self.phases.iter().map(|p| p.as_ref())
    }
}
