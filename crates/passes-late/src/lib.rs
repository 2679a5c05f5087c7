//! Late phases: what runs after register allocation and around
//! scheduling. One module per phase, named as in the seed's phase table;
//! the driver collects them through [`phases`].
//!
//! See `docs/passes.md` for how to add a phase and its file tests.

mod barrier_prologue;
mod call_addresses;
mod callee_saves;
mod clear_barriers;
mod link;
mod remove_nop;
mod stack_frame;

pub use barrier_prologue::OriResetBarriersPrologue;
pub use call_addresses::OriResolveCallAddresses;
pub use callee_saves::OriSaveCalleeRegisters;
pub use clear_barriers::OriClearConvergenceBarriers;
pub use link::OriLinkCallees;
pub use remove_nop::OriRemoveNopCode;
pub use stack_frame::OriSetupStackFrame;

use ori_ir::Phase;

/// Every phase of this crate, for the driver's registry.
pub fn phases() -> Vec<Box<dyn Phase>> {
    vec![
        Box::new(OriRemoveNopCode),
        Box::new(OriSaveCalleeRegisters),
        Box::new(OriSetupStackFrame),
        Box::new(OriLinkCallees),
        Box::new(OriClearConvergenceBarriers),
        Box::new(OriResetBarriersPrologue),
        Box::new(OriResolveCallAddresses),
    ]
}
