//! Small builders for the multi-instruction sequences (division, bit
//! operations, conversions): instructions with a guard of their own,
//! registers that must not be immediates, and the common ALU shapes.

use ori_ir::{Guard, Opcode, Operand, OperandFlags, Reg, RegFile};
use ptx_syntax::Span;

use crate::error::Lowered;
use crate::func::Lowerer;

/// A sequence being emitted for one PTX instruction: its span, and the PTX
/// guard, which only the final write of the destination carries (the
/// temporaries are computed unconditionally, which is harmless).
pub(super) struct Seq {
    pub span: Span,
    pub guard: Option<Guard>,
}

impl Seq {
    /// Starts a sequence: takes the PTX guard off the lowerer.
    pub fn start(cx: &mut Lowerer<'_>, span: Span) -> Seq {
        Seq { span, guard: cx.guard.take() }
    }

    /// Puts the PTX guard back (call once the sequence is emitted).
    pub fn finish(self, cx: &mut Lowerer<'_>) {
        cx.guard = self.guard;
    }

    /// Emits `op` unguarded.
    pub fn op(
        &self,
        cx: &mut Lowerer<'_>,
        op: Opcode,
        mods: &[&str],
        defs: Vec<Operand>,
        uses: Vec<Operand>,
    ) -> Lowered {
        self.op_if(cx, None, op, mods, defs, uses)
    }

    /// Emits `op` under `guard`.
    pub fn op_if(
        &self,
        cx: &mut Lowerer<'_>,
        guard: Option<Guard>,
        op: Opcode,
        mods: &[&str],
        defs: Vec<Operand>,
        uses: Vec<Operand>,
    ) -> Lowered {
        let saved = std::mem::replace(&mut cx.guard, guard);
        let result = cx.emit(op, mods, defs, uses, self.span);
        cx.guard = saved;
        result
    }

    /// A fresh 32-bit register written by `op`.
    pub fn value(&self, cx: &mut Lowerer<'_>, op: Opcode, mods: &[&str], uses: Vec<Operand>) -> Lowered<Reg> {
        let t = cx.temp(RegFile::R, 1);
        self.op(cx, op, mods, vec![t.into()], uses)?;
        Ok(t)
    }

    /// A fresh predicate: `ISETP.CMP[.U32].AND p, PT, a, b, PT`.
    pub fn isetp(&self, cx: &mut Lowerer<'_>, mods: &[&str], a: Operand, b: Operand) -> Lowered<Reg> {
        let p = cx.temp(RegFile::P, 1);
        let pt = Operand::reg(Reg::PT);
        self.op(cx, Opcode::ISETP, mods, vec![p.into(), pt.clone()], vec![a, b, pt])?;
        Ok(p)
    }

    /// `a` in a register: an immediate is moved into a fresh one by
    /// `IMAD.MOV.U32` (not a plain `MOV`, which copy propagation would fold
    /// back into an operand slot that cannot take it).
    pub fn in_reg(&self, cx: &mut Lowerer<'_>, a: Operand) -> Lowered<Operand> {
        if a.as_reg().is_some() {
            return Ok(a);
        }
        let rz = Operand::reg(Reg::RZ);
        Ok(self.value(cx, Opcode::IMAD, &["MOV", "U32"], vec![rz.clone(), rz, a])?.into())
    }

    /// `LOP3.LUT d, a, b, c, lut, !PT`.
    pub fn lop3(&self, cx: &mut Lowerer<'_>, d: Reg, abc: [Operand; 3], lut: i64, guard: Option<Guard>) -> Lowered {
        let [a, b, c] = abc;
        let uses = vec![a, b, c, Operand::int(lut), Operand::reg(Reg::PT).inverted()];
        self.op_if(cx, guard, Opcode::LOP3, &["LUT"], vec![d.into()], uses)
    }

    /// `LOP3.LUT t, a, b, c, lut, !PT` into a fresh register `t`.
    pub fn lop3_value(&self, cx: &mut Lowerer<'_>, abc: [Operand; 3], lut: i64) -> Lowered<Reg> {
        let t = cx.temp(RegFile::R, 1);
        self.lop3(cx, t, abc, lut, None)?;
        Ok(t)
    }

    /// Writes the sequence's result `value` to the PTX destination `d`
    /// under the PTX guard, unless the sequence computed it there already.
    pub fn result(&self, cx: &mut Lowerer<'_>, d: Reg, value: Reg) -> Lowered {
        if d == value {
            return Ok(());
        }
        self.op_if(cx, self.guard, Opcode::MOV, &[], vec![d.into()], vec![value.into()])
    }

    /// Where a sequence reading `sources` should build its result for PTX
    /// destination `d`: `d` itself when it is unguarded and not a source
    /// (the sequence reads its sources after its first write), else a
    /// fresh register.
    pub fn out(&self, cx: &mut Lowerer<'_>, d: Reg, sources: &[&Operand]) -> Reg {
        let aliased = sources.iter().any(|s| s.regs().any(|r| r.num == d.num && r.file == d.file));
        if self.guard.is_none() && !aliased { d } else { cx.temp(d.file, d.width) }
    }
}

/// `!p` as a guard.
pub(super) fn unless(p: Reg) -> Option<Guard> {
    Some(Guard { pred: p, negated: true })
}

/// `p` as a guard.
pub(super) fn when(p: Reg) -> Option<Guard> {
    Some(Guard { pred: p, negated: false })
}

/// `reg` as the first write of a value built part by part.
pub(super) fn undef(reg: Reg) -> Operand {
    Operand { flags: OperandFlags { undef: true, ..OperandFlags::default() }, ..Operand::reg(reg) }
}

/// `RZ`.
pub(super) fn rz() -> Operand {
    Operand::reg(Reg::RZ)
}
