//! Physical register units: every 32-bit register (and every predicate
//! and barrier register) of every file numbered in one space, so that one
//! bitset says which physical registers are live or taken.
//!
//! Also the facts about units the allocator must respect whatever the
//! code: the stack pointer, the zero registers, tuple alignment, and what
//! a call clobbers.

use ori_ir::{Reg, RegFile};

/// Index of a unit: files in [`RegFile::ALL`] order, each file's registers
/// in number order (zero registers included, so a unit is `start + num`).
pub(crate) type Unit = usize;

/// Number of units of all files together.
pub(crate) const UNIT_COUNT: usize = 256 + 64 + 8 + 8 + 16;

/// The stack pointer, reserved in every function (oracle-facts: `R1` is
/// loaded from `c[0x0][0x28]` in every kernel and addresses the frame).
pub(crate) const STACK_POINTER: Reg = Reg::phys(RegFile::R, 1);

/// First unit of `file`.
pub(crate) fn file_start(file: RegFile) -> Unit {
    RegFile::ALL[..file.index()].iter().map(|f| f.physical_count() as usize).sum()
}

/// The units a physical register covers (none for zero registers, whose
/// writes are discarded and whose reads are constants).
pub(crate) fn units_of(reg: Reg) -> std::ops::Range<Unit> {
    if reg.is_virtual || reg.is_zero() {
        return 0..0;
    }
    let start = file_start(reg.file) + reg.num as usize;
    start..start + usize::from(reg.width)
}

/// Alignment of a tuple of `width` registers: pairs on even registers,
/// 96- and 128-bit tuples on multiples of four, wider ones (HGMMA's
/// accumulators) on multiples of eight (the verifier's rule).
pub(crate) fn alignment(width: u8) -> u32 {
    match width {
        0 | 1 => 1,
        2 => 2,
        3 | 4 => 4,
        _ => 8,
    }
}

/// True when `num` of `file` is never handed out: the stack pointer, and
/// `UR0`-`UR3`, which NVIDIA's ptxas never uses (no uniform register below
/// `UR4` in its code for any corpus kernel, sm_80 and sm_90; the memory
/// descriptor of sm_80 loads and stores, which nvdisasm does not print,
/// is `UR4` in the encoding too). Zero registers are outside every file's
/// allocatable range already.
pub(crate) fn is_reserved(file: RegFile, num: u32) -> bool {
    (file == STACK_POINTER.file && num == STACK_POINTER.num) || (file == RegFile::UR && num < FIRST_UR)
}

/// First uniform register handed out.
const FIRST_UR: u32 = 4;

/// True when a call may change unit `unit`: the general registers the ABI
/// makes caller-saved, and every predicate.
///
/// The R set is measured (oracle-facts §12, forcing values live across a
/// call on sm_90): R2 and R16-R31 are callee-saved, then the upper half of
/// each group of eight from R32 (R36-R39, R44-R47, ...); the rest is
/// caller-saved. Predicates were not measured and are taken as clobbered,
/// which can only cost registers, never correctness. Uniform registers:
/// NVIDIA's callees write `UR4` without saving it (recursion's qsort) and
/// its callers keep the memory descriptor in `UR36` across calls, so
/// `UR0-UR35` are taken as clobbered and `UR36` up as preserved. Barrier
/// registers are taken as preserved (callees save those they use).
pub(crate) fn clobbered_by_call(unit: Unit) -> bool {
    let r = file_start(RegFile::R);
    let ur = file_start(RegFile::UR);
    let p = file_start(RegFile::P);
    let up = file_start(RegFile::UP);
    if (r..r + 255).contains(&unit) {
        let n = unit - r;
        !is_callee_saved(RegFile::R, n as u32)
    } else {
        (ur..ur + FIRST_SAVED_UR as usize).contains(&unit) || (p..p + 7).contains(&unit) || (up..up + 7).contains(&unit)
    }
}

/// First uniform register a call preserves.
const FIRST_SAVED_UR: u32 = 36;

/// True when register `num` of `file` keeps its value across a call: the
/// callee saves it if it writes it (`R1`, the stack pointer, included).
pub fn is_callee_saved(file: RegFile, num: u32) -> bool {
    match file {
        RegFile::R => num == 1 || num == 2 || (16..32).contains(&num) || (num >= 32 && num % 8 >= 4),
        RegFile::UR => num >= FIRST_SAVED_UR,
        RegFile::B => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_dense_per_file() {
        assert_eq!(file_start(RegFile::R), 0);
        assert_eq!(file_start(RegFile::UR), 256);
        assert_eq!(file_start(RegFile::B) + 16, UNIT_COUNT);
        assert_eq!(units_of(Reg::phys(RegFile::UR, 4).wide(2)), 260..262);
        assert_eq!(units_of(Reg::RZ), 0..0);
        assert_eq!(units_of(Reg::PT), 0..0);
        assert_eq!(units_of(Reg::virt(RegFile::R, 3)), 0..0);
    }

    #[test]
    fn call_clobbers_follow_the_measured_convention() {
        let saved: Vec<usize> = (0..48).filter(|&n| !clobbered_by_call(n)).collect();
        let expected: Vec<usize> = [1, 2].into_iter().chain(16..32).chain(36..40).chain(44..48).collect();
        assert_eq!(saved, expected);
        assert!(clobbered_by_call(file_start(RegFile::P)));
        assert!(!clobbered_by_call(file_start(RegFile::UR) + 36));
        assert!(clobbered_by_call(file_start(RegFile::UR) + 4));
    }

    #[test]
    fn tuple_alignment() {
        assert_eq!([1, 2, 3, 4].map(alignment), [1, 2, 4, 4]);
        assert!(is_reserved(RegFile::R, 1) && !is_reserved(RegFile::R, 0));
        assert!((0..4).all(|n| is_reserved(RegFile::UR, n)) && !is_reserved(RegFile::UR, 4));
    }
}
