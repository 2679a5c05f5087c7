//! Functions and basic blocks.

use la_arena::{Arena, Idx};

use crate::facts::Target;
use crate::fxhash::FxHashMap;
use crate::inst::Inst;
use crate::reg::{Reg, RegFile};

/// A basic block handle.
pub type BlockId = Idx<Block>;
/// An instruction handle.
pub type InstId = Idx<Inst>;

/// A basic block: instructions in order. Control leaves through the last
/// instruction when it is a terminator, and falls through to the next block
/// of the layout otherwise.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// The instructions, in execution order.
    pub insts: Vec<InstId>,
}

/// Kernel entry or device function.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// A `.entry`: launched from the host.
    Entry,
    /// A `.func`: called from other functions.
    Func,
}

/// Added to the offset of a device function's loads of its incoming stack
/// arguments (parameters beyond the ABI's registers, at `[R1 + o]` of the
/// caller's stack pointer) until `OriSetupStackFrame` knows the function's
/// frame and rewrites `[R1 + INCOMING_ARGS + o]` to `[R1 + frame_bytes + o]`.
/// Too large for an `LDL` offset, so a load left unrewritten cannot encode.
pub const INCOMING_ARGS: i64 = 1 << 24;

/// Launch-shape and register directives of a function (`.maxntid`,
/// `.reqntid`, `.maxnreg`, `.minnctapersm`, ...).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionAttrs {
    /// `.maxntid x, y, z`.
    pub maxntid: Option<[u32; 3]>,
    /// `.reqntid x, y, z`.
    pub reqntid: Option<[u32; 3]>,
    /// `.maxnreg n`.
    pub maxnreg: Option<u32>,
    /// `.minnctapersm n`.
    pub minnctapersm: Option<u32>,
    /// `.reqnctapercluster x, y, z` (`__cluster_dims__`, sm_90+): the CTAs
    /// of a cluster, which share their shared memory.
    pub cluster_dims: Option<[u32; 3]>,
    /// Kernel parameters, in order, as laid out in constant bank 0 from the
    /// target's parameter base.
    pub params: Vec<ParamSlot>,
    /// Bytes of static shared memory (the function's `.nv.shared` section:
    /// its `.shared` variables, after the area ptxas reserves at the start
    /// on sm_90+).
    pub shared_bytes: u32,
    /// Alignment of that section.
    pub shared_align: u32,
    /// The function uses dynamic (`extern .shared`) memory, which starts
    /// after the static bytes: the section exists even when empty
    /// (`.extern_shared` in the text form).
    pub extern_shared: bool,
    /// Bytes of the local-memory stack frame below the stack pointer `R1`
    /// (the outgoing stack arguments of its calls, local arrays, then spill
    /// slots the register allocator adds).
    pub frame_bytes: u32,
    /// Its `.local` variables with their offsets in the frame (above the
    /// outgoing arguments), for `-g`'s DWARF. Not kept in the Ori text.
    pub local_vars: Vec<(String, u32)>,
    /// Bytes the register allocator's spill stores write (`-v`'s "bytes
    /// spill stores").
    pub spill_store_bytes: u32,
    /// Bytes its spill loads read.
    pub spill_load_bytes: u32,
    /// Device functions placed after this kernel's own code (whole
    /// program: every function it may call, cloned in), in placement order.
    pub subroutines: Vec<Subroutine>,
    /// The PTX uses `wmma` instructions (EIATTR_WMMA_USED; the HMMA they
    /// become look like those of `mma.sync`). Not kept in the Ori text.
    pub uses_wmma: bool,
    /// Constant bank 2 (`.nv.constant2.<fn>`, sm_8x): the 64-bit
    /// constants instructions read as `c[0x2][8 * i]`, in order
    /// (`.bank2 0dXXXXXXXXXXXXXXXX` lines in the text form).
    pub bank2: Vec<u64>,
    /// The functions whose addresses the module takes, in NVIDIA's
    /// numbering, when this kernel makes indirect calls in a module where
    /// a function address is an index (more than one kernel, or a function
    /// in a variable's initial value): `bank2` starts with `1` and then
    /// holds each one's code offset in this kernel (filled in once the code
    /// is placed), so the address of the `i`-th is `8 * (i + 1)` and a call
    /// reads its target from `c[0x2][address]` (`.function_table NAME`
    /// lines in the text form).
    pub function_table: Vec<String>,
    /// Where the function starts for the line tables: the PTX line of
    /// its body's `{` and the body's first `.loc`. Not kept in the Ori text.
    pub entry_loc: Option<crate::inst::SrcLoc>,
}

/// A device function cloned into a kernel's code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subroutine {
    /// The device function's name.
    pub name: String,
    /// Its first block in the kernel.
    pub entry: BlockId,
    /// Its own stack frame in bytes (what its prologue takes off `R1`).
    pub frame_bytes: u32,
    /// It may call itself, directly or through others: the stack the
    /// kernel needs cannot be bounded.
    pub recursive: bool,
    /// Bytes its spill stores and loads move (callee saves included, as
    /// ptxas counts them in `-v`); not kept in the Ori text.
    pub spill_bytes: (u32, u32),
    /// The device function's [`FunctionAttrs::entry_loc`].
    pub entry_loc: Option<crate::inst::SrcLoc>,
}

/// One kernel parameter's place in the parameter block.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ParamSlot {
    /// Byte offset from the start of the parameters.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// What the parameter points to, when declared `.ptr` (the driver
    /// reads it from EIATTR_KPARAM_INFO). Not kept in the Ori text.
    pub pointee: Option<Pointee>,
}

/// The target of a `.ptr` kernel parameter: `.ptr [.space] [.align N]`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pointee {
    /// The state space it points into.
    pub space: PointeeSpace,
    /// `.align N`; 1 when not given.
    pub align: u32,
}

/// The state space of a [`Pointee`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum PointeeSpace {
    /// No space given: a generic address.
    #[default]
    Generic,
    /// `.global`.
    Global,
    /// `.shared`.
    Shared,
    /// `.const`.
    Const,
    /// `.local`.
    Local,
}

/// Registers of the SM's register file, shared by the threads of the
/// resident CTAs (64K on every target ptxas 13.5 supports).
const REGISTER_FILE: u32 = 65536;

/// Per-thread registers are handed out in blocks of this many.
const REGISTER_GRANULE: u32 = 8;

/// The registers per thread an SM sets aside for a function reporting
/// `regs`: whole granules, so counts within one granule cost the same
/// occupancy.
pub fn allocated_registers(regs: u32) -> u32 {
    regs.div_ceil(REGISTER_GRANULE) * REGISTER_GRANULE
}

/// Threads of a warp; CTAs occupy whole warps.
const WARP: u32 = 32;

impl FunctionAttrs {
    /// Bytes the parameters take (the end of the last one).
    pub fn param_bytes(&self) -> u32 {
        self.params.iter().map(|p| p.offset + p.size).max().unwrap_or(0)
    }

    /// The register limit: the count ptxas would report at most.
    /// `max_regs_knob` is `--maxrregcount` (0: not given).
    ///
    /// As NVIDIA's ptxas 13.5 resolves it (measured with `-v`): a limit
    /// derived from the launch bounds (`.maxntid`/`.reqntid` with
    /// `.minnctapersm`) and `.maxnreg` override `--maxrregcount` (ptxas
    /// prints "Overriding global maxrregcount 24 with entry-specific value
    /// 64 computed using thread count"); the smaller of the two applies when
    /// both are given; the result is clamped to the target's range (values
    /// below the ABI minimum are raised to it).
    pub fn register_limit(&self, target: &Target, max_regs_knob: u32) -> u32 {
        let by_threads = self.maxntid.or(self.reqntid).map(|[x, y, z]| {
            let threads = x.saturating_mul(y).saturating_mul(z).max(1).div_ceil(WARP) * WARP;
            let ctas = self.minnctapersm.unwrap_or(1).max(1);
            let regs = REGISTER_FILE / threads.saturating_mul(ctas);
            regs / REGISTER_GRANULE * REGISTER_GRANULE
        });
        let limit = match (self.maxnreg, by_threads) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) if max_regs_knob > 0 => max_regs_knob,
            (None, None) => target.max_regs,
        };
        limit.clamp(target.min_regs, target.max_regs)
    }
}

/// A function: blocks in layout order, instructions in an arena.
#[derive(Clone, Debug)]
pub struct Function {
    /// The (mangled) name.
    pub name: String,
    /// Entry or device function.
    pub kind: FunctionKind,
    /// Directives.
    pub attrs: FunctionAttrs,
    /// Block storage.
    pub blocks: Arena<Block>,
    /// Instruction storage.
    pub insts: Arena<Inst>,
    /// Blocks in layout (emission) order; the first is the entry block.
    pub layout: Vec<BlockId>,
    /// Next unused virtual register number, per file.
    next_vreg: [u32; RegFile::ALL.len()],
}

impl Function {
    /// An empty function.
    pub fn new(name: impl Into<String>, kind: FunctionKind) -> Function {
        Function {
            name: name.into(),
            kind,
            attrs: FunctionAttrs::default(),
            blocks: Arena::new(),
            insts: Arena::new(),
            layout: Vec::new(),
            next_vreg: [0; RegFile::ALL.len()],
        }
    }

    /// Appends a new empty block to the layout.
    pub fn add_block(&mut self) -> BlockId {
        let id = self.blocks.alloc(Block::default());
        self.layout.push(id);
        id
    }

    /// Appends `inst` to `block`.
    pub fn push_inst(&mut self, block: BlockId, inst: Inst) -> InstId {
        let id = self.insts.alloc(inst);
        self.blocks[block].insts.push(id);
        id
    }

    /// A fresh virtual register of `file`, `width` 32-bit words wide.
    pub fn new_vreg(&mut self, file: RegFile, width: u8) -> Reg {
        let slot = &mut self.next_vreg[file.index()];
        let reg = Reg::virt(file, *slot).wide(width);
        *slot += 1;
        reg
    }

    /// Makes sure later [`Function::new_vreg`] calls do not hand out `reg`
    /// again (used when registers are created by number, as the text
    /// parser does).
    pub fn reserve_vreg(&mut self, reg: Reg) {
        if reg.is_virtual {
            let slot = &mut self.next_vreg[reg.file.index()];
            *slot = (*slot).max(reg.num + 1);
        }
    }

    /// The width of every virtual register the function names, in words:
    /// that of its whole uses, or (named only in parts) enough to hold
    /// every part. The verifier checks that whole uses agree and parts fit.
    pub fn vreg_widths(&self) -> FxHashMap<(RegFile, u32), u8> {
        self.vreg_widths_dense().unwrap_or_else(|| self.vreg_widths_hashed())
    }

    /// [`vreg_widths`](Self::vreg_widths) gathered in a table per file
    /// indexed by register number (six phases ask, and a hash lookup per
    /// operand was most of their cost); `None` when some number is too
    /// large for a table (hand-written IR), where
    /// [`vreg_widths_hashed`](Self::vreg_widths_hashed) answers.
    fn vreg_widths_dense(&self) -> Option<FxHashMap<(RegFile, u32), u8>> {
        /// Largest register number a table is made for.
        const MAX_DENSE: u32 = 1 << 20;
        // Per file and number: (0: not named, else 1 + words to its end;
        // 0: no whole use, else 1 + the last whole use's width).
        let mut tables: [Vec<(u16, u16)>; RegFile::ALL.len()] = Default::default();
        for (_, _, inst) in self.insts_in_order() {
            for reg in inst.read_regs().chain(inst.written_regs()).filter(|r| r.is_virtual) {
                if reg.num >= MAX_DENSE {
                    return None;
                }
                let table = &mut tables[reg.file.index()];
                let n = reg.num as usize;
                if table.len() <= n {
                    table.resize(n + 1, (0, 0));
                }
                let (end, whole) = &mut table[n];
                *end = (*end).max(u16::from(reg.words().end) + 1);
                if reg.word.is_none() {
                    *whole = u16::from(reg.width) + 1;
                }
            }
        }
        let named = tables.iter().flatten().filter(|&&(end, _)| end > 0).count();
        let mut widths = FxHashMap::default();
        widths.reserve(named);
        for (file, table) in RegFile::ALL.into_iter().zip(&tables) {
            for (num, &(end, whole)) in table.iter().enumerate() {
                if end > 0 {
                    let width = if whole > 0 { whole - 1 } else { end - 1 };
                    widths.insert((file, num as u32), width as u8);
                }
            }
        }
        Some(widths)
    }

    /// [`vreg_widths`](Self::vreg_widths) by hashing every operand.
    fn vreg_widths_hashed(&self) -> FxHashMap<(RegFile, u32), u8> {
        let mut widths: FxHashMap<(RegFile, u32), u8> = FxHashMap::default();
        let mut whole: FxHashMap<(RegFile, u32), u8> = FxHashMap::default();
        for (_, _, inst) in self.insts_in_order() {
            for reg in inst.read_regs().chain(inst.written_regs()).filter(|r| r.is_virtual) {
                let key = (reg.file, reg.num);
                let end = widths.entry(key).or_insert(0);
                *end = (*end).max(reg.words().end);
                if reg.word.is_none() {
                    whole.insert(key, reg.width);
                }
            }
        }
        widths.extend(whole);
        widths
    }

    /// Number of virtual registers handed out in `file`.
    pub fn vreg_count(&self, file: RegFile) -> u32 {
        self.next_vreg[file.index()]
    }

    /// Instructions of the function in layout order.
    pub fn insts_in_order(&self) -> impl Iterator<Item = (BlockId, InstId, &Inst)> + '_ {
        self.layout.iter().flat_map(move |&b| self.blocks[b].insts.iter().map(move |&i| (b, i, &self.insts[i])))
    }

    /// Number of instructions placed in blocks.
    pub fn inst_count(&self) -> usize {
        self.layout.iter().map(|&b| self.blocks[b].insts.len()).sum()
    }

    /// Position of `block` in the layout.
    pub fn layout_index(&self, block: BlockId) -> Option<usize> {
        self.layout.iter().position(|&b| b == block)
    }
}

#[cfg(test)]
mod widths_tests {
    use crate::reg::RegFile;
    use crate::text::parse_function;

    /// The table and the hashed walk agree: whole uses give the width
    /// (the last one), registers named only in parts the end of the
    /// furthest part.
    #[test]
    fn dense_and_hashed_widths_agree() {
        let func = parse_function(
            ".entry k {\nbb0:\n    %r0.128 = LDG.E.128 desc[%ur0.64][%r9.64]\n    %r2:3 = MOV %r0:1\n    \
             %r5:1 = MOV 0x0\n    %p1 = ISETP.GE.AND %r2:3, %r5:1, PT\n    EXIT\n}\n",
        )
        .expect("parses");
        let dense = func.vreg_widths_dense().expect("small numbers");
        assert_eq!(dense, func.vreg_widths_hashed());
        assert_eq!(dense.get(&(RegFile::R, 0)), Some(&4));
        assert_eq!(dense.get(&(RegFile::R, 2)), Some(&4));
        assert_eq!(dense.get(&(RegFile::R, 5)), Some(&2));
        assert_eq!(dense.get(&(RegFile::R, 9)), Some(&2));
        assert_eq!(dense.get(&(RegFile::UR, 0)), Some(&2));
        assert_eq!(dense.get(&(RegFile::P, 1)), Some(&1));
    }
}
