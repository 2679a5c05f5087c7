//! Modules: the unit the compiler works on.

use crate::function::Function;
use crate::props::PropertySet;
use crate::target::Sm;

/// A compilation unit: the functions of one PTX module for one target, and
/// the properties every function has reached so far in the pipeline.
#[derive(Clone, Debug)]
pub struct Module {
    /// The SM the code is generated for.
    pub target: Sm,
    /// Functions, in PTX order.
    pub functions: Vec<Function>,
    /// Properties established by the phases that ran so far.
    pub props: PropertySet,
}

impl Module {
    /// An empty module for `target` with the given starting properties.
    pub fn new(target: Sm, props: PropertySet) -> Module {
        Module { target, functions: Vec::new(), props }
    }

    /// The function called `name`.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
}
