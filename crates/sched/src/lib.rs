//! Scheduling of Ori: the latency table, the hazard checker, and the
//! phases that order instructions and give them control words.

pub mod hazard;
pub mod latency;
pub mod units;
