//! The form tables, one module per SM family (generated, see
//! `tools/learn_*.py`). sm_80 and sm_90 are learned separately: most forms
//! agree bit for bit, but sm_90 moved some fields (e.g. branch offsets
//! also use bits 16..24) and added opcodes. `sm*_derived` hold the forms
//! `derive.rs` derives from them.

pub(crate) mod fields;
pub(crate) mod igmma16_probed;
pub(crate) mod isa16_probed;
pub(crate) mod sm100;
pub(crate) mod sm100_probed;
pub(crate) mod sm107;
pub(crate) mod sm110;
pub(crate) mod sm120;
pub(crate) mod sm120_probed;
pub(crate) mod sm75;
pub(crate) mod sm75_derived;
pub(crate) mod sm80;
pub(crate) mod sm80_derived;
pub(crate) mod sm86;
pub(crate) mod sm89;
pub(crate) mod sm90;
pub(crate) mod sm90_derived;
pub(crate) mod sweep15_probed;
pub(crate) mod lead16_probed;
pub(crate) mod sweep16_probed;
pub(crate) mod unseen15_probed;
pub(crate) mod unseen16_probed;

/// Special registers that no corpus cubin reads, numbered from NVIDIA's
/// words for small PTX probes (bits 72..79 of `S2R`/`CS2R`, the same on
/// sm_80 and sm_90): `%tid.z`, `%warpid` (SR_VIRTID), `%smid`
/// (SR_VIRTUALSMID), `%clock`/`%clock64`, `%globaltimer`, the lane masks.
pub(crate) static PROBED_SPECIAL_REGS: &[(u16, &str)] = &[
    (3, "SR_VIRTID"),
    (35, "SR_TID.Z"),
    (50, "SR_SMEMSZ"),
    (56, "SR_EQMASK"),
    (57, "SR_LTMASK"),
    (58, "SR_LEMASK"),
    (59, "SR_GTMASK"),
    (60, "SR_GEMASK"),
    (67, "SR_VIRTUALSMID"),
    (80, "SR_CLOCKLO"),
    (82, "SR_GLOBALTIMERLO"),
];
