//! The verifier: checks the structural invariants every function must keep,
//! and the invariants behind each property the module claims.

use std::fmt;

use crate::function::{BlockId, Function};
use crate::inst::{Ctrl, Inst};
use crate::module::Module;
use crate::opcode::OpFlags;
use crate::operand::{Imm, OperandFlags, OperandKind};
use crate::props::{Property, PropertySet};
use crate::reg::{Reg, RegFile};
use crate::text::print_inst;

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The function.
    pub function: String,
    /// The block, as its layout position (`bbN`), when the error is local.
    pub block: Option<usize>,
    /// The instruction in text form, when the error concerns one.
    pub inst: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "function '{}'", self.function)?;
        if let Some(block) = self.block {
            write!(f, ", bb{block}")?;
        }
        if let Some(inst) = &self.inst {
            write!(f, ", `{inst}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for VerifyError {}

/// Verifies every function of the module against the module's properties.
pub fn verify_module(module: &Module) -> Result<(), Vec<VerifyError>> {
    let errors: Vec<_> = module.functions.iter().flat_map(|f| check_function(f, module.props)).collect();
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}

/// Verifies one function against `props`.
pub fn verify_function(func: &Function, props: PropertySet) -> Result<(), Vec<VerifyError>> {
    let errors = check_function(func, props);
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}

struct Checker<'f> {
    func: &'f Function,
    props: PropertySet,
    errors: Vec<VerifyError>,
    /// Width each virtual register was first seen with as a whole.
    vreg_widths: crate::FxHashMap<(RegFile, u32), u8>,
    /// Widths the virtual registers' whole uses have, for parts to fit in.
    whole_widths: crate::FxHashMap<(RegFile, u32), u8>,
}

fn check_function(func: &Function, props: PropertySet) -> Vec<VerifyError> {
    let whole_widths = func.vreg_widths();
    let mut c = Checker { func, props, errors: Vec::new(), vreg_widths: crate::FxHashMap::default(), whole_widths };
    c.check_layout();
    for (pos, &block) in func.layout.iter().enumerate() {
        c.check_block(pos, block);
    }
    c.errors
}

/// Registers a tuple of `width` words must start at a multiple of: pairs
/// on even registers, 96- and 128-bit tuples on multiples of four, the
/// wider accumulators of HGMMA on multiples of eight (NVIDIA's code puts
/// 64-register ones at R24 and R88, so eight is the most the hardware can
/// ask for).
fn alignment(width: u8) -> u32 {
    match width {
        3 => 4,
        5.. => 8,
        _ => u32::from(width),
    }
}

/// Virtual registers read but written nowhere in the function. Legal (PTX
/// allows it, the value is undefined, and the pipeline compiles it), so not
/// part of [`verify_function`]; a lint for lowerings of PTX that reads
/// nothing undefined, where such a read is a bug (typically a missing
/// `undef` flag on the first write of a tuple, which makes the tuple live
/// from the entry).
pub fn undefined_reads(func: &Function) -> Vec<VerifyError> {
    let written: std::collections::HashSet<(RegFile, u32)> = func
        .insts_in_order()
        .flat_map(|(_, _, i)| i.written_regs())
        .filter(|r| r.is_virtual)
        .map(|r| (r.file, r.num))
        .collect();
    let mut reported = std::collections::HashSet::new();
    let mut errors = Vec::new();
    for (block, _, inst) in func.insts_in_order() {
        for reg in inst.read_regs().filter(|r| r.is_virtual) {
            if !written.contains(&(reg.file, reg.num)) && reported.insert((reg.file, reg.num)) {
                errors.push(VerifyError {
                    function: func.name.clone(),
                    block: func.layout_index(block),
                    inst: Some(print_inst(func, inst)),
                    message: format!("{reg} is read but never written"),
                });
            }
        }
    }
    errors
}

impl Checker<'_> {
    fn error(&mut self, block: Option<usize>, inst: Option<&Inst>, message: impl Into<String>) {
        self.errors.push(VerifyError {
            function: self.func.name.clone(),
            block,
            inst: inst.map(|i| print_inst(self.func, i)),
            message: message.into(),
        });
    }

    fn check_layout(&mut self) {
        let func = self.func;
        if func.layout.is_empty() {
            self.error(None, None, "function has no blocks");
            return;
        }
        let mut seen = crate::FxHashMap::default();
        for (pos, &b) in func.layout.iter().enumerate() {
            if let Some(first) = seen.insert(b, pos) {
                self.error(Some(pos), None, format!("block placed twice in the layout (also at bb{first})"));
            }
        }
        let mut owner = crate::FxHashMap::default();
        for (pos, &b) in func.layout.iter().enumerate() {
            for &i in &func.blocks[b].insts {
                if owner.insert(i, pos).is_some() {
                    self.error(Some(pos), Some(&func.insts[i]), "instruction placed in two blocks");
                }
            }
        }
        let last = *func.layout.last().expect("checked non-empty");
        let falls_off = func.blocks[last].insts.last().is_none_or(|&i| !ends_flow(&func.insts[i]));
        if falls_off {
            self.error(Some(func.layout.len() - 1), None, "control falls off the end of the function");
        }
    }

    fn check_block(&mut self, pos: usize, block: BlockId) {
        let insts = &self.func.blocks[block].insts;
        for (k, &id) in insts.iter().enumerate() {
            let inst = &self.func.insts[id];
            if ends_flow(inst) && k + 1 != insts.len() {
                self.error(Some(pos), Some(inst), "unconditional terminator in the middle of a block");
            }
            self.check_inst(pos, inst);
        }
    }

    fn check_inst(&mut self, pos: usize, inst: &Inst) {
        let at = Some(pos);
        let info = inst.op.info();
        let count = |n: usize| u8::try_from(n).unwrap_or(u8::MAX);
        let (ndefs, nuses) = (inst.defs.len(), inst.uses.len());
        if !info.defs.contains(&count(ndefs)) {
            self.error(
                at,
                Some(inst),
                format!("{} writes {}..={} operands, not {ndefs}", info.name, info.defs.start(), info.defs.end()),
            );
        }
        if !info.uses.contains(&count(nuses)) {
            self.error(
                at,
                Some(inst),
                format!("{} reads {}..={} operands, not {nuses}", info.name, info.uses.start(), info.uses.end()),
            );
        }
        if let Some(guard) = inst.guard
            && !guard.pred.file.is_predicate()
        {
            self.error(at, Some(inst), "guard is not a predicate register");
        }
        for def in &inst.defs {
            // `undef` is the one flag a destination may carry: on a part,
            // or on a guarded write of a whole register.
            let undef_ok = matches!(def.kind, OperandKind::Reg(r) if r.word.is_some() || inst.guard.is_some());
            let flags = OperandFlags { undef: def.flags.undef && !undef_ok, ..def.flags };
            let ok = matches!(def.kind, OperandKind::Reg(_) | OperandKind::PredFile { .. })
                && flags == OperandFlags::default();
            if !ok {
                self.error(at, Some(inst), "a destination must be a plain register");
            }
        }
        for op in &inst.uses {
            if let OperandKind::Label(target) = op.kind
                && self.func.layout_index(target).is_none()
            {
                self.error(at, Some(inst), "branch to a block that is not in the layout");
            }
        }
        let regs: Vec<Reg> = inst.read_regs().chain(inst.defs.iter().filter_map(|d| d.as_reg())).collect();
        for reg in regs {
            self.check_reg(pos, inst, reg);
        }
        if self.props.contains(Property::Legalized) {
            self.check_legal(pos, inst);
        }
        if self.props.contains(Property::Scheduled) {
            match inst.ctrl {
                None => self.error(at, Some(inst), "scheduled code without a control word"),
                Some(ctrl) => self.check_ctrl(pos, inst, ctrl),
            }
        }
        if self.props.contains(Property::Encoded) && inst.encoding.is_none() {
            self.error(at, Some(inst), "encoded code without a machine word");
        }
    }

    fn check_reg(&mut self, pos: usize, inst: &Inst, reg: Reg) {
        let at = Some(pos);
        let max_width = if reg.file.is_predicate() || reg.file == RegFile::B {
            1
        } else if inst.op.is_warpgroup_mma() && reg.file == RegFile::R {
            // m64n256 with f32 accumulators: 128 per thread.
            128
        } else {
            4
        };
        if reg.width == 0 || reg.width > max_width {
            self.error(at, Some(inst), format!("{reg}: a {:?} register cannot be {} words wide", reg.file, reg.width));
            return;
        }
        if reg.is_virtual {
            if self.props.contains(Property::PhysicalRegs) {
                self.error(at, Some(inst), format!("virtual register {reg} after register allocation"));
            }
            match reg.word {
                None => match self.vreg_widths.insert((reg.file, reg.num), reg.width) {
                    Some(w) if w != reg.width => {
                        self.error(at, Some(inst), format!("{reg} is also used {} bits wide", u32::from(w) * 32));
                    }
                    _ => {}
                },
                Some(word) => {
                    let whole = self.whole_widths.get(&(reg.file, reg.num)).copied().unwrap_or(0);
                    if reg.words().end > whole {
                        self.error(
                            at,
                            Some(inst),
                            format!("{reg} lies outside its {}-bit register", u32::from(whole) * 32),
                        );
                    } else if u32::from(word) % alignment(reg.width) != 0 {
                        self.error(at, Some(inst), format!("{reg} is not aligned within its register"));
                    }
                }
            }
        } else if reg.word.is_some() {
            self.error(at, Some(inst), format!("physical register {reg} names a part of a register"));
        } else if !reg.is_zero() {
            let align = alignment(reg.width);
            if !reg.num.is_multiple_of(align) {
                self.error(at, Some(inst), format!("{reg} is not aligned to {align} registers"));
            }
            let zero = reg.file.zero_register().unwrap_or(reg.file.physical_count());
            if reg.num + u32::from(reg.width) > zero {
                self.error(at, Some(inst), format!("{reg} runs past the last register of its file"));
            }
        }
    }

    /// Encodability rules that hold for every SASS form: at most one
    /// constant-bank source (there is one bank port), and integer
    /// immediates within 32 bits.
    fn check_legal(&mut self, pos: usize, inst: &Inst) {
        let at = Some(pos);
        let cbanks = inst.uses.iter().filter(|u| matches!(u.kind, OperandKind::CBank(_))).count();
        if cbanks > 1 {
            self.error(at, Some(inst), "more than one constant-bank source");
        }
        for op in &inst.uses {
            if let OperandKind::Imm(Imm::Int(v)) = op.kind
                && (v < i64::from(i32::MIN) || v > i64::from(u32::MAX))
            {
                self.error(at, Some(inst), format!("immediate {v:#x} does not fit in 32 bits"));
            }
        }
    }

    fn check_ctrl(&mut self, pos: usize, inst: &Inst, ctrl: Ctrl) {
        let at = Some(pos);
        if ctrl.stall > Ctrl::MAX_STALL {
            self.error(at, Some(inst), format!("stall {} exceeds {}", ctrl.stall, Ctrl::MAX_STALL));
        }
        for sb in [ctrl.write_sb, ctrl.read_sb].into_iter().flatten() {
            if sb >= Ctrl::SCOREBOARDS {
                self.error(at, Some(inst), format!("scoreboard {sb} does not exist"));
            }
        }
        if ctrl.wait >> Ctrl::SCOREBOARDS != 0 {
            self.error(at, Some(inst), format!("wait mask {:#x} names scoreboards that do not exist", ctrl.wait));
        }
    }
}

/// True for an instruction after which control never falls through.
fn ends_flow(inst: &Inst) -> bool {
    inst.guard.is_none() && inst.op.has(OpFlags::TERMINATOR)
}

#[cfg(test)]
mod tests {
    use crate::text::parse_function;

    /// A register read before any write is legal, as in PTX (NVIDIA's ptxas
    /// compiles such kernels silently): its value is undefined.
    #[test]
    fn undefined_reads_are_legal() {
        let func = parse_function(
            ".entry k {\nbb0:\n    %r1 = IADD3 %r0, %r0, RZ\n    %r2 = IADD3 %r1, %r0, RZ\n    @%p0 EXIT\n    EXIT\n}\n",
        )
        .unwrap();
        assert_eq!(super::verify_function(&func, crate::PropertySet::EMPTY), Ok(()));
        let found: Vec<String> = super::undefined_reads(&func).iter().map(|e| e.message.clone()).collect();
        assert_eq!(found, ["%r0 is read but never written", "%p0 is read but never written"]);
    }
}
