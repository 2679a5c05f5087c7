//! The hazard checker: proves that every register and predicate
//! dependency of scheduled code is covered by stall counts or scoreboard
//! waits, per the latency table.
//!
//! The model: an instruction issues `stall` cycles after the one before it
//! (only the stall counts are trusted; a wait may only add time). A
//! fixed-latency result may be read once its latency has passed (more for
//! a predicate read as a guard); a variable-latency result only after a
//! wait on the scoreboard it signals; a register read by an instruction
//! with a read scoreboard may be overwritten only after a wait on that
//! scoreboard; a wait must come late enough for the scoreboard's set to be
//! visible. Control flow joins what may be in flight on every path.
//! Instructions without a read scoreboard read their sources at issue (in
//! NVIDIA's code sources of loads, MUFU and double-precision operations are
//! overwritten one cycle later).

mod check;
mod program;
mod state;

pub use check::{Kind, Violation, check_program};
pub use program::{Flow, Program, Step};
pub use state::{Pending, State};

pub(crate) use check::apply;

use ori_ir::{Function, Sm};

use crate::latency::LatencyTable;

/// Checks a scheduled Ori function for `sm`.
pub fn check_function(func: &Function, sm: Sm) -> Vec<Violation> {
    check_program(&Program::from_function(func), LatencyTable::for_sm(sm))
}
