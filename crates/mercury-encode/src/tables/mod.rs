//! The form tables, one module per SM family (generated, see
//! `tools/learn_*.py`). sm_80 and sm_90 are learned separately: most forms
//! agree bit for bit, but sm_90 moved some fields (e.g. branch offsets
//! also use bits 16..24) and added opcodes. `sm*_derived` hold the forms
//! `derive.rs` derives from them.

pub(crate) mod sm80;
pub(crate) mod sm90;
pub(crate) mod sm80_derived;
pub(crate) mod sm90_derived;
