//! Semantics of SASS operations as pure functions of their inputs, one
//! module per family, so that constant folding can share them.

pub mod async_mem;
pub mod cmp;
pub mod dround;
pub mod float;
pub mod half;
pub mod imma;
pub mod int;
pub mod minifloat;
pub mod mma;
pub mod mufu;
pub mod wgmma;
