//! The hazard checker: proves that every register and predicate
//! dependency of scheduled code is covered by stall counts or scoreboard
//! waits.

mod program;

pub use program::{Flow, Program, Step};
