//! Ori IR.

pub mod object;
