//! Virtual registers as small integers ([`VRegSpace`]) and sets of them
//! ([`RegSet`]), the currency of liveness and of the passes that walk it.

use std::fmt;
use std::ops::Range;

use ori_ir::{Function, Reg, RegFile};

use crate::HybridBitSet;

/// A virtual register, width aside: `%r4` and `%r4.64` are the same one.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg {
    /// Its file.
    pub file: RegFile,
    /// Its number.
    pub num: u32,
}

impl VReg {
    /// The virtual register `reg` names, if it is virtual.
    pub fn of(reg: Reg) -> Option<VReg> {
        reg.is_virtual.then_some(VReg { file: reg.file, num: reg.num })
    }
}

impl fmt::Display for VReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file.virtual_prefix(), self.num)
    }
}

/// The numbering of a function's virtual registers as bits: each file's
/// registers in one run, files in [`RegFile::ALL`] order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct VRegSpace {
    start: [u32; RegFile::ALL.len() + 1],
}

impl VRegSpace {
    /// The space of `func`: every register it hands out or mentions.
    pub fn of(func: &Function) -> VRegSpace {
        let mut counts = RegFile::ALL.map(|f| func.vreg_count(f));
        // Registers built by number without `reserve_vreg` still get a bit.
        for (_, _, inst) in func.insts_in_order() {
            for reg in inst.read_regs().chain(inst.written_regs()).filter(|r| r.is_virtual) {
                let count = &mut counts[reg.file.index()];
                *count = (*count).max(reg.num + 1);
            }
        }
        let mut start = [0; RegFile::ALL.len() + 1];
        for (i, count) in counts.iter().enumerate() {
            start[i + 1] = start[i] + count;
        }
        VRegSpace { start }
    }

    /// Number of bits.
    pub fn len(&self) -> usize {
        self.start[RegFile::ALL.len()] as usize
    }

    /// True when the function has no virtual register.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bit of `vreg`; `None` for a register outside the function.
    pub fn bit(&self, vreg: VReg) -> Option<usize> {
        let f = vreg.file.index();
        let bit = self.start[f].checked_add(vreg.num)?;
        (bit < self.start[f + 1]).then_some(bit as usize)
    }

    /// The register of bit `bit`.
    pub fn vreg(&self, bit: usize) -> VReg {
        let bit = bit as u32;
        let f = (0..RegFile::ALL.len()).rfind(|&f| self.start[f] <= bit && bit < self.start[f + 1]).unwrap_or(0);
        VReg { file: RegFile::ALL[f], num: bit - self.start[f] }
    }

    /// The bits of `file`.
    pub fn file_bits(&self, file: RegFile) -> Range<usize> {
        self.start[file.index()] as usize..self.start[file.index() + 1] as usize
    }
}

/// A set of virtual registers of one function: a sorted list while small,
/// a bitset over the function's [`VRegSpace`] once larger
/// ([`HybridBitSet`]), so a set costs what it holds.
#[derive(Debug, PartialEq, Eq)]
pub struct RegSet {
    space: VRegSpace,
    bits: HybridBitSet,
}

impl RegSet {
    /// The empty set (allocates nothing).
    pub fn new(space: VRegSpace) -> RegSet {
        RegSet { space, bits: HybridBitSet::new(space.len()) }
    }

    /// True when `vreg` is in the set.
    pub fn contains(&self, vreg: VReg) -> bool {
        self.space.bit(vreg).is_some_and(|b| self.bits.contains(b))
    }

    /// True when the register `reg` names is virtual and in the set.
    pub fn contains_reg(&self, reg: Reg) -> bool {
        VReg::of(reg).is_some_and(|v| self.contains(v))
    }

    /// Adds `vreg` (ignored when it is outside the function's space).
    pub fn insert(&mut self, vreg: VReg) {
        if let Some(b) = self.space.bit(vreg) {
            self.bits.insert(b);
        }
    }

    /// Removes `vreg`.
    pub fn remove(&mut self, vreg: VReg) {
        if let Some(b) = self.space.bit(vreg) {
            self.bits.remove(b);
        }
    }

    /// Adds every register of `other` (of the same function).
    pub fn union_with(&mut self, other: &RegSet) {
        self.bits.union_with(&other.bits);
    }

    /// Adds the set's bits (numbered by its [`VRegSpace`]) to `out`, a
    /// dense bitset of at least [`VRegSpace::len`] bits: a walk that
    /// changes one register per step is cheaper on one than on a list.
    pub fn union_into(&self, out: &mut fixedbitset::FixedBitSet) {
        self.bits.union_into(out);
    }

    /// Removes every register of `other` (of the same function).
    pub fn difference_with(&mut self, other: &RegSet) {
        self.bits.difference_with(&other.bits);
    }

    /// Removes every register (the set is then as small as a new one).
    pub fn clear(&mut self) {
        self.bits.clear();
    }

    /// The registers, file by file in number order.
    pub fn iter(&self) -> impl Iterator<Item = VReg> + '_ {
        self.bits.iter().map(|b| self.space.vreg(b))
    }

    /// Number of registers of `file` in the set.
    pub fn count(&self, file: RegFile) -> usize {
        self.bits.count_range(self.space.file_bits(file))
    }

    /// Number of registers in the set.
    pub fn len(&self) -> usize {
        self.bits.len()
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }
}

impl Clone for RegSet {
    fn clone(&self) -> RegSet {
        RegSet { space: self.space, bits: self.bits.clone() }
    }

    fn clone_from(&mut self, source: &RegSet) {
        self.space = source.space;
        self.bits.clone_from(&source.bits);
    }
}

impl fmt::Display for RegSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, v) in self.iter().enumerate() {
            write!(f, "{}{v}", if i == 0 { "" } else { ", " })?;
        }
        f.write_str("}")
    }
}
