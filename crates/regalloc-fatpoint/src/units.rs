//! Physical register units: every 32-bit register (and every predicate
//! and barrier register) of every file numbered in one space, so that one
//! bitset says which physical registers are live or taken.
//!
//! Also the facts about units the allocator must respect whatever the
//! code: tuple alignment, and (from the ABI, `ori_ir::abi`) the stack
//! pointer, reserved registers and what a call clobbers.

pub(crate) use ori_ir::abi::CUDA as ABI;
use ori_ir::{Reg, RegFile};

/// Index of a unit: files in [`RegFile::ALL`] order, each file's registers
/// in number order (zero registers included, so a unit is `start + num`).
pub(crate) type Unit = usize;

/// Number of units of all files together.
pub(crate) const UNIT_COUNT: usize = 256 + 64 + 8 + 8 + 16;

/// The stack pointer, reserved in every function.
pub(crate) const STACK_POINTER: Reg = ABI.stack_pointer;

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

/// True when a call may change unit `unit`: every register the ABI does
/// not make callee-saved ([`ori_ir::abi::Abi::is_callee_saved`]), zero
/// registers and `PT`/`UPT` excepted.
pub(crate) fn clobbered_by_call(unit: Unit) -> bool {
    let file = *RegFile::ALL.iter().rfind(|&&f| file_start(f) <= unit).expect("unit 0 is R0");
    let num = (unit - file_start(file)) as u32;
    !Reg::phys(file, num).is_zero() && !ABI.is_callee_saved(file, num)
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
    }
}
