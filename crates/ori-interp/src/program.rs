//! An Ori function prepared for execution: instructions in layout order,
//! branch targets as instruction indices, registers as slots of dense
//! per-file arrays, and each instruction's operation decoded once.

use std::collections::HashMap;

use ori_ir::{Bank, Function, Inst, InstId, OperandFlags, OperandKind, Reg, RegFile, SpecialReg};

use crate::kind::{Kind, decode_kind};

/// A register file slot; the zero registers have no slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Loc {
    /// `RZ`, `URZ`: read zero, writes vanish; `PT`, `UPT`: read true.
    Zero(RegFile),
    /// Slot `n` of a file.
    Slot(RegFile, u32),
}

/// A source operand with its slots resolved.
#[derive(Clone, Debug)]
pub enum Src {
    /// A register or tuple (`width` 32-bit words).
    Reg(Loc, u8),
    /// An immediate's raw bits (sign-extended integers, f32/f64 bits).
    Imm(u64),
    /// `c[bank][reg + offset]`.
    CBank { bank: u8, reg: Option<Loc>, offset: i64 },
    /// An address `[base + ubase + offset]`, `base` scaled (`base_u32`:
    /// one register, zero-extended; [`ori_ir::Address::base_u32`]).
    Mem { base: Option<(Loc, u8)>, ubase: Option<Loc>, offset: i64, scale: u64, base_u32: bool },
    /// A special register.
    Special(SpecialReg),
    /// The predicate file as a bit mask (`PR`; P0 is bit 0).
    PredFile,
    /// A branch target: an instruction index.
    Label(usize),
    /// Something no instruction the interpreter runs reads.
    Other,
}

/// One prepared instruction.
#[derive(Clone, Debug)]
pub struct Step {
    /// The instruction in the function (for error messages).
    pub id: InstId,
    /// What it does.
    pub kind: Kind,
    /// Guard predicate and whether it is negated.
    pub guard: Option<(Loc, bool)>,
    /// Destinations in order.
    pub defs: Vec<(Loc, u8)>,
    /// Sources in order, with their operand flags.
    pub uses: Vec<(Src, OperandFlags)>,
    /// True when every destination is warp-uniform: run once per warp.
    pub uniform: bool,
    /// The control word as the warp's clock reads it (one cycle without
    /// a control word).
    pub timing: crate::timing::Timing,
}

/// A function ready to run.
#[derive(Clone, Debug)]
pub struct Program {
    /// Instructions in layout order.
    pub steps: Vec<Step>,
    /// Slots per register file (indexed by `RegFile::index`).
    pub slots: [u32; 5],
    /// True when it has warpgroup MMA instructions: every other
    /// instruction is then watched for accesses to their accumulators
    /// (`sem/wgmma.rs`).
    pub has_wgmma: bool,
}

/// Assigns slots: physical registers keep their numbers; virtual ones
/// follow, each with room for the widest tuple it appears as.
struct Slots {
    virt: HashMap<(RegFile, u32), u32>,
    next: [u32; 5],
}

impl Slots {
    fn new(func: &Function) -> Slots {
        let width = func.vreg_widths();
        let mut next = [0u32; 5];
        for (_, _, inst) in func.insts_in_order() {
            for r in inst.written_regs().chain(inst.read_regs()) {
                if !r.is_virtual && !r.is_zero() {
                    let n = &mut next[r.file.index()];
                    *n = (*n).max(r.num + u32::from(r.width));
                }
            }
        }
        let mut keys: Vec<_> = width.keys().copied().collect();
        keys.sort();
        let mut virt = HashMap::new();
        for k in keys {
            let n = &mut next[k.0.index()];
            virt.insert(k, *n);
            *n += u32::from(width[&k]);
        }
        Slots { virt, next }
    }

    fn loc(&self, r: Reg) -> Loc {
        if r.is_zero() {
            Loc::Zero(r.file)
        } else if r.is_virtual {
            // Every register of the function was numbered in `new`; a part
            // of a tuple starts at its word.
            let base = self.virt.get(&(r.file, r.num)).copied().unwrap_or(u32::MAX);
            Loc::Slot(r.file, base.saturating_add(u32::from(r.word.unwrap_or(0))))
        } else {
            Loc::Slot(r.file, r.num)
        }
    }
}

impl Program {
    /// Prepares `func`. Errors name the instruction whose operands cannot
    /// be resolved.
    pub fn new(func: &Function) -> Result<Program, crate::Error> {
        let slots = Slots::new(func);
        let mut block_pc = HashMap::new();
        let mut pc = 0;
        for &b in &func.layout {
            block_pc.insert(b, pc);
            pc += func.blocks[b].insts.len();
        }
        let mut steps = Vec::with_capacity(pc);
        for (_, id, inst) in func.insts_in_order() {
            steps.push(prepare(func, id, inst, &slots, &block_pc)?);
        }
        let has_wgmma = steps.iter().any(|s| matches!(s.kind, Kind::Wgmma(_)));
        Ok(Program { steps, slots: slots.next, has_wgmma })
    }
}

fn prepare(
    func: &Function,
    id: InstId,
    inst: &Inst,
    slots: &Slots,
    block_pc: &HashMap<ori_ir::BlockId, usize>,
) -> Result<Step, crate::Error> {
    let mut uses = Vec::with_capacity(inst.uses.len());
    for u in &inst.uses {
        let src = match &u.kind {
            OperandKind::Reg(r) | OperandKind::MatrixDesc(r) => Src::Reg(slots.loc(*r), r.width),
            OperandKind::Imm(ori_ir::Imm::Int(v)) => Src::Imm(*v as u64),
            OperandKind::Imm(ori_ir::Imm::F32(v)) => Src::Imm(u64::from(*v)),
            OperandKind::Imm(ori_ir::Imm::F64(v)) => Src::Imm(*v),
            OperandKind::CBank(cb) => match cb.bank {
                Bank::Fixed(bank) => {
                    Src::CBank { bank, reg: cb.reg.map(|r| slots.loc(r)), offset: i64::from(cb.offset) }
                }
                Bank::Indexed(_) => Src::Other,
            },
            OperandKind::Mem(a) => Src::Mem {
                base: a.base.map(|r| (slots.loc(r), r.width)),
                ubase: a.ubase.map(|r| slots.loc(r)),
                offset: a.offset,
                scale: match a.scale {
                    ori_ir::Scale::X1 => 1,
                    ori_ir::Scale::X4 => 4,
                    ori_ir::Scale::X8 => 8,
                    ori_ir::Scale::X16 => 16,
                },
                base_u32: a.base_u32,
            },
            OperandKind::Special(sr) => Src::Special(*sr),
            OperandKind::PredFile { uniform: false } => Src::PredFile,
            OperandKind::Label(b) => match block_pc.get(b) {
                Some(&pc) => Src::Label(pc),
                None => {
                    return Err(crate::Error::Unsupported {
                        inst: ori_ir::text::print_inst(func, inst),
                        what: "a branch target outside the layout".into(),
                    });
                }
            },
            _ => Src::Other,
        };
        uses.push((src, u.flags));
    }
    let defs: Vec<(Loc, u8)> = inst.defs.iter().filter_map(|d| d.as_reg()).map(|r| (slots.loc(r), r.width)).collect();
    let uniform = !defs.is_empty()
        && defs.iter().all(|(l, _)| match l {
            Loc::Zero(f) | Loc::Slot(f, _) => f.is_uniform(),
        });
    Ok(Step {
        id,
        kind: decode_kind(inst),
        guard: inst.guard.map(|g| (slots.loc(g.pred), g.negated)),
        defs,
        uses,
        uniform,
        timing: crate::timing::Timing::new(inst.op, inst.ctrl),
    })
}
