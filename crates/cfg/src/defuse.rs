//! Def-use chains of virtual registers, from reaching definitions.
//!
//! A definition is one virtual register written by one instruction; a use
//! is one virtual register read by one instruction (read twice by it, it is
//! still one use). A definition reaches a use when some path leads from it
//! to the use without an unguarded redefinition; guarded definitions reach
//! on but do not stop the earlier ones. The entry of the function counts as
//! a definition of every register, so [`DefUse::may_be_undefined`] tells
//! which uses can read a register nothing wrote.

use std::ops::Range;

use fixedbitset::FixedBitSet;
use la_arena::ArenaMap;
use ori_ir::{BlockId, Function, InstId};

use crate::{Cfg, VReg, VRegSpace, branch_targets, index};

/// A definition's number.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DefId(u32);

/// A use's number.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UseId(u32);

/// One register written by one instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Def {
    /// The instruction.
    pub inst: InstId,
    /// The register.
    pub reg: VReg,
    /// True when the write surely replaces the whole register (unguarded,
    /// not a plain partial write), so earlier definitions stop here.
    pub kills: bool,
}

/// One register read by one instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Use {
    /// The instruction.
    pub inst: InstId,
    /// The register.
    pub reg: VReg,
}

/// Def-use and use-def chains of a function.
#[derive(Clone, Debug)]
pub struct DefUse {
    defs: Vec<Def>,
    uses: Vec<Use>,
    /// Per use, its reaching definitions (`use_defs[use_def_start[u]..]`).
    use_def_start: Vec<u32>,
    use_defs: Vec<DefId>,
    undefined: FixedBitSet,
    /// Per definition, the uses it reaches.
    def_use_start: Vec<u32>,
    def_uses: Vec<UseId>,
    inst_defs: ArenaMap<InstId, Range<u32>>,
    inst_uses: ArenaMap<InstId, Range<u32>>,
}

/// Per-register lists used while solving.
struct Numbering {
    space: VRegSpace,
    /// Definitions of each register bit.
    defs_of: Vec<Vec<u32>>,
    /// Bit of the entry pseudo-definition of register bit `r`:
    /// `entry_bit + r`.
    entry_bit: usize,
}

impl Numbering {
    fn kill(&self, state: &mut FixedBitSet, reg: VReg) {
        if let Some(r) = self.space.bit(reg) {
            for &d in &self.defs_of[r] {
                state.remove(d as usize);
            }
            state.remove(self.entry_bit + r);
        }
    }
}

impl DefUse {
    /// Computes the chains of `func`.
    pub fn compute(func: &Function, cfg: &Cfg) -> DefUse {
        let space = VRegSpace::of(func);
        let mut du = DefUse {
            defs: Vec::new(),
            uses: Vec::new(),
            use_def_start: Vec::new(),
            use_defs: Vec::new(),
            undefined: FixedBitSet::new(),
            def_use_start: Vec::new(),
            def_uses: Vec::new(),
            inst_defs: ArenaMap::default(),
            inst_uses: ArenaMap::default(),
        };
        let mut defs_of = vec![Vec::new(); space.len()];
        for (_, id, inst) in func.insts_in_order() {
            let start = du.defs.len() as u32;
            let mut regs: Vec<VReg> = inst.written_regs().filter_map(VReg::of).collect();
            regs.sort();
            regs.dedup();
            let killed: Vec<VReg> = inst.killed_regs().filter_map(VReg::of).collect();
            for reg in regs {
                if let Some(r) = space.bit(reg) {
                    defs_of[r].push(du.defs.len() as u32);
                }
                du.defs.push(Def { inst: id, reg, kills: killed.contains(&reg) });
            }
            du.inst_defs.insert(id, start..du.defs.len() as u32);
        }
        let num = Numbering { space, defs_of, entry_bit: du.defs.len() };
        let ins = reaching_in(func, cfg, &du, &num);

        // Walk every block once more with the solution to record, per use,
        // the definitions that reach it. Uses in unreachable blocks get
        // none.
        let mut undefined = Vec::new();
        for &block in &func.layout {
            let mut state = ins[index(block)].clone();
            for &id in &func.blocks[block].insts {
                let inst = &func.insts[id];
                let start = du.uses.len() as u32;
                let mut regs: Vec<VReg> = inst.read_regs().filter_map(VReg::of).collect();
                regs.sort();
                regs.dedup();
                for reg in regs {
                    du.use_def_start.push(du.use_defs.len() as u32);
                    if let Some(r) = space.bit(reg) {
                        let reaching = num.defs_of[r].iter().filter(|&&d| state.contains(d as usize));
                        du.use_defs.extend(reaching.map(|&d| DefId(d)));
                        undefined.push(state.contains(num.entry_bit + r));
                    } else {
                        undefined.push(true);
                    }
                    du.uses.push(Use { inst: id, reg });
                }
                du.inst_uses.insert(id, start..du.uses.len() as u32);
                step(&du, &num, id, &mut state);
            }
        }
        du.use_def_start.push(du.use_defs.len() as u32);
        du.undefined = FixedBitSet::with_capacity(undefined.len());
        du.undefined.extend(undefined.iter().enumerate().filter(|(_, u)| **u).map(|(i, _)| i));
        du.invert();
        du
    }

    /// Builds def → uses from use → defs.
    fn invert(&mut self) {
        let mut count = vec![0u32; self.defs.len() + 1];
        for d in &self.use_defs {
            count[d.0 as usize + 1] += 1;
        }
        for i in 1..count.len() {
            count[i] += count[i - 1];
        }
        self.def_use_start = count.clone();
        self.def_uses = vec![UseId(0); self.use_defs.len()];
        for u in 0..self.uses.len() {
            let range = self.use_def_start[u] as usize..self.use_def_start[u + 1] as usize;
            for d in &self.use_defs[range] {
                let slot = &mut count[d.0 as usize];
                self.def_uses[*slot as usize] = UseId(u as u32);
                *slot += 1;
            }
        }
    }

    /// The definition `id`.
    pub fn def(&self, id: DefId) -> Def {
        self.defs[id.0 as usize]
    }

    /// The use `id`.
    pub fn use_(&self, id: UseId) -> Use {
        self.uses[id.0 as usize]
    }

    /// Every definition, in layout order.
    pub fn defs(&self) -> impl Iterator<Item = (DefId, Def)> + '_ {
        self.defs.iter().enumerate().map(|(i, &d)| (DefId(i as u32), d))
    }

    /// The definitions `inst` makes.
    pub fn defs_of_inst(&self, inst: InstId) -> impl Iterator<Item = DefId> + '_ {
        self.inst_defs.get(inst).cloned().unwrap_or(0..0).map(DefId)
    }

    /// The uses `inst` makes.
    pub fn uses_of_inst(&self, inst: InstId) -> impl Iterator<Item = UseId> + '_ {
        self.inst_uses.get(inst).cloned().unwrap_or(0..0).map(UseId)
    }

    /// The use of `reg` by `inst`, if `inst` reads it.
    pub fn use_at(&self, inst: InstId, reg: VReg) -> Option<UseId> {
        self.uses_of_inst(inst).find(|&u| self.use_(u).reg == reg)
    }

    /// Definitions that reach the use `id`.
    pub fn reaching_defs(&self, id: UseId) -> &[DefId] {
        let u = id.0 as usize;
        &self.use_defs[self.use_def_start[u] as usize..self.use_def_start[u + 1] as usize]
    }

    /// True when the use `id` may read a value no instruction wrote (some
    /// path from the entry reaches it without a definition).
    pub fn may_be_undefined(&self, id: UseId) -> bool {
        self.undefined.contains(id.0 as usize)
    }

    /// Uses the definition `id` reaches.
    pub fn uses_of(&self, id: DefId) -> &[UseId] {
        let d = id.0 as usize;
        &self.def_uses[self.def_use_start[d] as usize..self.def_use_start[d + 1] as usize]
    }
}

/// Applies one instruction to the set of reaching definitions.
fn step(du: &DefUse, num: &Numbering, id: InstId, state: &mut FixedBitSet) {
    let range = du.inst_defs.get(id).cloned().unwrap_or(0..0);
    for d in range {
        let def = du.defs[d as usize];
        if def.kills {
            num.kill(state, def.reg);
        }
        state.insert(d as usize);
    }
}

/// Reaching definitions at the start of every block (forward, union over
/// incoming edges, including those that leave a block mid-way).
fn reaching_in(func: &Function, cfg: &Cfg, du: &DefUse, num: &Numbering) -> Vec<FixedBitSet> {
    let bits = num.entry_bit + num.space.len();
    let mut ins = vec![FixedBitSet::with_capacity(bits); cfg.capacity()];
    let Some(entry) = cfg.entry() else { return ins };
    ins[index(entry)].insert_range(num.entry_bit..bits);
    let mut dirty = vec![false; cfg.capacity()];
    dirty[index(entry)] = true;
    let mut changed = true;
    while changed {
        changed = false;
        for &block in cfg.rpo() {
            if !std::mem::take(&mut dirty[index(block)]) {
                continue;
            }
            let mut state = ins[index(block)].clone();
            let mut send = |state: &FixedBitSet, target: BlockId, ins: &mut Vec<FixedBitSet>| {
                let t = &mut ins[index(target)];
                if !t.is_superset(state) {
                    t.union_with(state);
                    dirty[index(target)] = true;
                    changed = true;
                }
            };
            for &id in &func.blocks[block].insts {
                let inst = &func.insts[id];
                step(du, num, id, &mut state);
                for target in branch_targets(inst) {
                    send(&state, target, &mut ins);
                }
            }
            if let Some(next) = cfg.fallthrough(block) {
                send(&state, next, &mut ins);
            }
        }
    }
    ins
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::*;
    use ori_ir::RegFile;
    use pretty_assertions::assert_eq;

    fn r(num: u32) -> VReg {
        VReg { file: RegFile::R, num }
    }

    /// `(block, position)` of each instruction defining what reaches the
    /// use of `reg` by instruction `k` of `bbN`.
    fn reaching(f: &Function, du: &DefUse, n: usize, k: usize, reg: VReg) -> Vec<String> {
        let u = du.use_at(inst(f, n, k), reg).expect("instruction reads the register");
        du.reaching_defs(u)
            .iter()
            .map(|&d| {
                let def = du.def(d);
                let (b, _, _) = f.insts_in_order().find(|&(_, i, _)| i == def.inst).unwrap();
                let k = f.blocks[b].insts.iter().position(|&i| i == def.inst).unwrap();
                format!("{}:{k}", name(f, b))
            })
            .collect()
    }

    #[test]
    fn diamond_merges_both_definitions() {
        let f = parse(DIAMOND);
        let du = DefUse::compute(&f, &Cfg::compute(&f));
        assert_eq!(reaching(&f, &du, 3, 1, r(1)), ["bb1:0", "bb2:0"]);
        assert_eq!(reaching(&f, &du, 3, 1, r(2)), ["bb3:0"]);
        let u = du.use_at(inst(&f, 3, 1), r(1)).unwrap();
        assert!(!du.may_be_undefined(u));
        let def = du.defs_of_inst(inst(&f, 1, 0)).next().unwrap();
        assert_eq!(du.uses_of(def), [u]);
        assert_eq!(du.use_(u).inst, inst(&f, 3, 1));
        assert_eq!(du.defs().count(), 5, "S2R, ISETP, two MOVs, LDC; PT is no register");
    }

    #[test]
    fn loops_reach_around_and_guards_let_earlier_definitions_through() {
        let f = parse(NESTED);
        let du = DefUse::compute(&f, &Cfg::compute(&f));
        assert_eq!(reaching(&f, &du, 2, 0, r(1)), ["bb1:0", "bb2:0"]);
        assert_eq!(reaching(&f, &du, 3, 0, r(0)), ["bb0:0", "bb3:0"]);

        let f = parse(
            "
.entry k {
bb0:
    %r0 = MOV 0x1
    @%p0 %r0 = MOV 0x2
    STG.E [%r2.64], %r0
    EXIT
}
",
        );
        let du = DefUse::compute(&f, &Cfg::compute(&f));
        assert_eq!(reaching(&f, &du, 0, 2, r(0)), ["bb0:0", "bb0:1"]);
        let u = du.use_at(inst(&f, 0, 2), r(2)).unwrap();
        assert!(du.may_be_undefined(u), "%r2 is never written");
        let p = du.use_at(inst(&f, 0, 1), VReg { file: RegFile::P, num: 0 }).unwrap();
        assert!(du.may_be_undefined(p), "a guard is a use");
    }

    #[test]
    fn partial_definitions_and_mid_block_exits() {
        let f = parse(
            "
.entry k {
bb0:
    @%p0 BRA bb2
    %r0 = MOV 0x1
    @%p1 BRA bb2
bb1:
    %r0 = MOV 0x2
bb2:
    STG.E [%r2.64], %r0
    EXIT
bb3:
    STG.E [%r2.64], %r0
    EXIT
}
",
        );
        let du = DefUse::compute(&f, &Cfg::compute(&f));
        assert_eq!(reaching(&f, &du, 2, 0, r(0)), ["bb0:1", "bb1:0"]);
        let u = du.use_at(inst(&f, 2, 0), r(0)).unwrap();
        assert!(du.may_be_undefined(u), "the first branch leaves before %r0 is written");
        assert!(reaching(&f, &du, 3, 0, r(0)).is_empty(), "unreachable uses have no definitions");
    }
}
