//! Phases that belong to the driver rather than to a pass crate.

use ori_ir::{Function, Phase, PhaseContext, PhaseError, PropertySet, verify_function};

/// The driver's own phases.
pub fn phases() -> Vec<Box<dyn Phase>> {
    vec![Box::new(OriCheckInitialProgram)]
}

/// Checks the IR handed to the pipeline before any transformation, so that
/// a bad input (a lowering bug, a hand-written `.ori` file) is reported as
/// such instead of surfacing as a failure of some later phase.
struct OriCheckInitialProgram;

impl Phase for OriCheckInitialProgram {
    fn name(&self) -> &'static str {
        "OriCheckInitialProgram"
    }

    fn description(&self) -> &'static str {
        "verify the IR the pipeline starts from"
    }

    fn run(&self, func: &mut Function, _cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        // Structural invariants only: the stage properties are checked by
        // the phase manager against the module. A register read before any
        // write is legal, as in PTX (NVIDIA's ptxas compiles such code
        // without a word, even with -v): its value is undefined.
        let Err(errors) = verify_function(func, PropertySet::EMPTY) else { return Ok(()) };
        let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
        Err(PhaseError::in_function(func, format!("invalid initial program:\n  {}", lines.join("\n  "))))
    }
}
