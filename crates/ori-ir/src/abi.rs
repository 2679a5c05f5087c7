//! The calling convention of NVIDIA's code: which registers carry the stack
//! pointer, arguments and the return address, and which keep their values
//! across a call.
//!
//! One place for what the lowering (argument placement), the register
//! allocator (what a call clobbers), the late passes (callee saves, return
//! addresses, stack frames) and the interpreter (calls and returns) must
//! agree on. The facts were measured on NVIDIA's code (seed-digest-A §12,
//! oracle-facts §12; recursion and device_calls on sm_80 and sm_90), where
//! the convention is the same; a target found to differ gets an `Abi` of
//! its own here.

use crate::{Reg, RegFile};

/// A calling convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Abi {
    /// The stack pointer: loaded from `c[0x0][0x28]` in every kernel, the
    /// base of `[R1 + offset]` frame addresses; never handed out.
    pub stack_pointer: Reg,
    /// Where a call leaves the address to return to (its high word, the
    /// next register, is 0).
    pub return_address: Reg,
    /// First register of the argument (and result) words.
    pub first_arg: u32,
    /// How many argument words travel in registers (`R4..R15`; NVIDIA's
    /// code for 20 32-bit arguments passes 12 in registers and the rest on
    /// the stack).
    pub arg_words: u32,
    /// First uniform register a call preserves: NVIDIA's callees write
    /// `UR4` without saving it (recursion's qsort) and its callers keep the
    /// memory descriptor in `UR36` across calls.
    pub first_saved_ur: u32,
    /// First uniform register the allocator hands out: NVIDIA's ptxas uses
    /// no uniform register below `UR4` (every corpus kernel, sm_80 and
    /// sm_90; sm_80's unprinted memory descriptor is `UR4` as well).
    pub first_allocatable_ur: u32,
}

/// The convention of every target we generate code for.
pub const CUDA: Abi = Abi {
    stack_pointer: Reg::phys(RegFile::R, 1),
    return_address: Reg::phys(RegFile::R, 20),
    first_arg: 4,
    arg_words: 12,
    first_saved_ur: 36,
    first_allocatable_ur: 4,
};

impl Abi {
    /// True when register `num` of `file` keeps its value across a call:
    /// the callee saves it if it writes it.
    ///
    /// General registers (measured by forcing values live across a call on
    /// sm_90): R1 (the stack pointer), R2 and R16-R31, then the upper half
    /// of each group of eight from R32 (R36-R39, R44-R47, ...). Predicates
    /// were not measured and are taken as clobbered, which can only cost
    /// registers, never correctness. Barrier registers are preserved
    /// (callees save those they use).
    pub fn is_callee_saved(&self, file: RegFile, num: u32) -> bool {
        match file {
            RegFile::R => {
                num == self.stack_pointer.num || num == 2 || (16..32).contains(&num) || (num >= 32 && num % 8 >= 4)
            }
            RegFile::UR => num >= self.first_saved_ur,
            RegFile::B => true,
            _ => false,
        }
    }

    /// True when `num` of `file` is never handed out by the allocator: the
    /// stack pointer and the uniform registers below
    /// [`first_allocatable_ur`](Self::first_allocatable_ur).
    pub fn is_reserved(&self, file: RegFile, num: u32) -> bool {
        (file == self.stack_pointer.file && num == self.stack_pointer.num)
            || (file == RegFile::UR && num < self.first_allocatable_ur)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callee_saved_general_registers_follow_the_measured_convention() {
        let abi = CUDA;
        let saved: Vec<u32> = (0..48).filter(|&n| abi.is_callee_saved(RegFile::R, n)).collect();
        let expected: Vec<u32> = [1, 2].into_iter().chain(16..32).chain(36..40).chain(44..48).collect();
        assert_eq!(saved, expected);
        assert!(!abi.is_callee_saved(RegFile::P, 0));
        assert!(abi.is_callee_saved(RegFile::UR, 36) && !abi.is_callee_saved(RegFile::UR, 35));
    }

    #[test]
    fn arguments_end_where_callee_saved_registers_begin() {
        let abi = CUDA;
        let last_arg = abi.first_arg + abi.arg_words - 1;
        assert!(!abi.is_callee_saved(RegFile::R, last_arg) && abi.is_callee_saved(RegFile::R, last_arg + 1));
        assert!(abi.is_reserved(RegFile::R, 1) && !abi.is_reserved(RegFile::R, 0));
        assert!((0..4).all(|n| abi.is_reserved(RegFile::UR, n)) && !abi.is_reserved(RegFile::UR, 4));
    }
}
