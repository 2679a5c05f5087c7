//! Fat-point register allocation of Ori.
//!
//! The allocator the seed describes for ptxas: not graph colouring but a
//! greedy assignment over program points. Every virtual register's live
//! ranges are computed over the points of the function ([`points`]); the
//! registers taken at each point are kept as bitsets ([`interference`]);
//! virtual registers then pick, one by one in a priority order, the lowest
//! register free over all their points ([`assign`]). A no-spill attempt in
//! two orders comes first; when a file does not fit its limit, the
//! registers that found no place are spilled to the local-memory frame
//! ([`spill`]) and allocation starts again ([`driver`]). Finally the code
//! is rewritten ([`rewrite`]). [`check_allocation`] proves the result
//! independently.
//!
//! Register files R, UR, P, UP and B are allocated alike; tuples are
//! aligned; `R1` (the stack pointer), the zero registers and physical
//! registers already in the code (ABI registers) are respected. Uniform
//! registers keep their register over every divergent region they touch
//! ([`uniform`]). Only R values are spilled. See `docs/regalloc.md`.

mod assign;
mod check;
mod constants;
mod defined;
mod divergence;
mod driver;
mod interference;
mod limits;
mod phase;
mod phys_live;
mod points;
mod remat;
mod rewrite;
mod spill;
mod uniform;
mod units;

pub use check::check_allocation;
pub use driver::{Allocation, Options, allocate};
pub use limits::{register_limit, registers_used};
pub use phase::AllocateRegisters;
pub use spill::SpillStats;

use ori_ir::{Function, Phase};

/// Every phase of this crate, for the driver's registry.
pub fn phases() -> Vec<Box<dyn Phase>> {
    vec![Box::new(AllocateRegisters)]
}

/// Applies an [`Allocation`] computed by [`allocate`] for `func`: every
/// virtual register becomes its physical register, and copies that became
/// `Rn = MOV Rn` go.
pub fn rewrite(func: &mut Function, alloc: &Allocation) {
    rewrite::rewrite(func, alloc);
}
