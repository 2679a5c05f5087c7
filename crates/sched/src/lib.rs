//! Scheduling of Ori: the latency table, the hazard checker, and the
//! phases that order instructions and give them control words.
//!
//! - [`latency`]: per SM family, what each opcode needs before a dependent
//!   instruction may issue, measured from NVIDIA's cubins.
//! - [`hazard`]: the checker that proves scheduled code covers every
//!   dependency (used by the tests on every phase output and on NVIDIA's
//!   own code).
//! - Phases (see [`phases`]): `ScheduleBeforeAllocation` (list scheduling
//!   of virtual registers under a register budget), `ScheduleInstructions`
//!   (list scheduling within blocks), `ComputeScoreboards` (control words for -O1 and up),
//!   `ProcessO0WaitsAndSBs` (conservative control words for -O0).
//!
//! See `docs/sched.md`.

mod control;
pub mod hazard;
pub mod latency;
mod list;
pub mod units;

pub use control::advanced::ComputeScoreboards;
pub use control::o0::ProcessO0WaitsAndSBs;
pub use control::yield_bit;
pub use list::{ScheduleBeforeAllocation, ScheduleInstructions};

use ori_ir::Phase;

/// Every phase of this crate, for the driver's registry.
pub fn phases() -> Vec<Box<dyn Phase>> {
    vec![
        Box::new(ScheduleBeforeAllocation),
        Box::new(ScheduleInstructions),
        Box::new(ComputeScoreboards),
        Box::new(ProcessO0WaitsAndSBs),
    ]
}
