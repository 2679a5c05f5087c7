//! `fns.b32 d, mask, base, offset`: the position of the `offset`-th set bit
//! of `mask` counted from bit `base` (upwards for a positive offset,
//! downwards for a negative one; offset 0 asks whether bit `base` itself is
//! set), or `0xffffffff`. NVIDIA's sequence, without its branches: a
//! downward search runs upwards on `BREV mask` from `31 - base` and maps
//! the position back; the bits below the start are cleared, and a binary
//! search by `POPC` of the low 16, 8, 4, 2 and 1 bits finds the bit. As in
//! NVIDIA's code the steps compare unsigned and the final count check
//! signed, so `offset = INT_MIN` gives what NVIDIA's gives.

use ori_ir::{Opcode, Operand, Reg, RegFile};
use ptx_syntax::ast::{Instruction, ScalarType};

use super::seq::{Seq, rz, when};
use super::{dst, src};
use crate::error::Lowered;
use crate::func::Lowerer;

/// Lowers `fns.b32`.
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let d = dst(cx, inst, 0)?;
    let mask = src(cx, inst, 1, ScalarType::B32)?;
    let base = src(cx, inst, 2, ScalarType::U32)?;
    let offset = src(cx, inst, 3, ScalarType::S32)?;
    let seq = Seq::start(cx, inst.span);
    let result = (|| {
        let mask = seq.in_reg(cx, mask)?;
        let base = seq.in_reg(cx, base)?;
        let offset = seq.in_reg(cx, offset)?;
        let sel = |cx: &mut Lowerer<'_>, p: Reg, x: Operand, y: Operand| -> Lowered<Operand> {
            let x = seq.in_reg(cx, x)?;
            Ok(seq.value(cx, Opcode::SEL, &[], vec![x, y, p.into()])?.into())
        };
        let zero = seq.isetp(cx, &["EQ", "AND"], offset.clone(), rz())?;
        let down = seq.isetp(cx, &["LT", "AND"], offset.clone(), rz())?;
        // Downwards: the reversed mask from bit 31 - base, by -offset.
        let reversed = seq.value(cx, Opcode::BREV, &[], vec![mask.clone()])?;
        let m = sel(cx, down, reversed.into(), mask.clone())?;
        let mirrored = seq.value(cx, Opcode::IADD3, &[], vec![base.clone().negated(), Operand::int(31), rz()])?;
        let start = sel(cx, down, mirrored.into(), base.clone())?;
        let minus = seq.value(cx, Opcode::IADD3, &[], vec![rz(), offset.clone().negated(), rz()])?;
        let n = sel(cx, down, minus.into(), offset.clone())?;
        // Offset 0: bit `base` alone, as the first set bit.
        let one = seq.in_reg(cx, Operand::int(1))?;
        let bit = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![one.clone(), base, rz()])?;
        let only = seq.lop3_value(cx, [mask, bit.into(), rz()], 0xc0)?;
        let m = sel(cx, zero, only.into(), m)?;
        let n = sel(cx, zero, one, n)?;
        let ones = seq.in_reg(cx, Operand::int(-1))?;
        let above = seq.value(cx, Opcode::SHF, &["L", "U32"], vec![ones, start, rz()])?;
        let m = seq.lop3_value(cx, [m, above.into(), rz()], 0xc0)?;
        let total = seq.value(cx, Opcode::POPC, &[], vec![m.into()])?;
        // Binary search: skip the low `w` bits while they hold fewer than
        // the set bits still wanted.
        let x = cx.temp(RegFile::R, 1);
        let k = cx.temp(RegFile::R, 1);
        let pos = cx.temp(RegFile::R, 1);
        seq.op(cx, Opcode::MOV, &[], vec![x.into()], vec![m.into()])?;
        let wanted = n.clone();
        seq.op(cx, Opcode::MOV, &[], vec![k.into()], vec![n])?;
        seq.op(cx, Opcode::MOV, &[], vec![pos.into()], vec![rz()])?;
        for w in [16, 8, 4, 2, 1] {
            let low = seq.value(cx, Opcode::SGXT, &["U32"], vec![x.into(), Operand::int(w)])?;
            let count = seq.value(cx, Opcode::POPC, &[], vec![low.into()])?;
            let skip = seq.isetp(cx, &["LT", "U32", "AND"], count.into(), k.into())?;
            let g = when(skip);
            seq.op_if(cx, g, Opcode::SHF, &["R", "U32", "HI"], vec![x.into()], vec![rz(), Operand::int(w), x.into()])?;
            let uses = vec![k.into(), Operand::from(count).negated(), rz()];
            seq.op_if(cx, g, Opcode::IADD3, &[], vec![k.into()], uses)?;
            seq.op_if(cx, g, Opcode::IADD3, &[], vec![pos.into()], vec![pos.into(), Operand::int(w), rz()])?;
        }
        let back = seq.value(cx, Opcode::IADD3, &[], vec![Operand::from(pos).negated(), Operand::int(31), rz()])?;
        let pos = sel(cx, down, back.into(), pos.into())?;
        let found = seq.isetp(cx, &["GE", "AND"], total.into(), wanted)?;
        seq.op_if(cx, seq.guard, Opcode::SEL, &[], vec![d.into()], vec![pos, Operand::int(-1), found.into()])
    })();
    seq.finish(cx);
    result
}
