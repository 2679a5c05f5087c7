//! IEEE-correct f32/f64 division, reciprocal and square root (and the f32
//! `div.approx`/`div.full` forms), and 64-bit integer division and
//! remainder (NVIDIA's `__cuda_sm20_{div,rem}_{u,s}64` routines, whole), as
//! NVIDIA's ptxas expands them: a fast
//! path (`MUFU.RCP`/`RSQ`/`RCP64H` and Newton steps in `FFMA`/`DFMA`, a range
//! check by `FCHK`, an exponent test or `DSETP`) and a slow path for the
//! inputs the fast path cannot take (subnormals, infinities, NaNs, zeros,
//! results near overflow or underflow, and the directed roundings).
//!
//! NVIDIA places the slow path in a local subroutine (`CALL.REL.NOINC` /
//! `RET.REL.NODEC`, e.g. `__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath`);
//! here it is inline: blocks of the same function that the fast path
//! branches to and that branch back. The sequences are templates in Ori
//! text (`ieee/*.ori`), made from NVIDIA's code by `tools/ieee_templates.py`
//! (compile a one-instruction kernel, decode it with our decoder, keep what
//! computes the result, physical registers renamed to virtual ones), one per
//! form and SM, so that every input gives NVIDIA's bits. In a template,
//! `%r0` and `%r1` are the sources (read only by copies at the start), `%r2`
//! is the result (written only at the end); the other registers become
//! fresh ones, the blocks fresh blocks after the current one, the last of
//! which is where the code after the instruction continues.

use std::collections::HashMap;

use ori_ir::{BlockId, Function, Guard, Imm, Operand, OperandKind, Reg, RegFile};
use ptx_syntax::ast::{Instruction, ScalarType};

use super::{dst, src, ty, unsupported};
use crate::error::{Lowered, at};
use crate::func::Lowerer;

/// `FORM => FILE [SM...]`: the template of PTX form FORM (opcode and
/// modifiers) made from NVIDIA's code for each SM listed,
/// `ieee/FILE.smNN.ori`.
macro_rules! templates {
    ($($form:literal => $file:literal [$($sm:literal),*];)*) => {
        &[$($(($form, $sm, include_str!(concat!("ieee/", $file, ".sm", $sm, ".ori"))),)*)*]
    };
}

/// The templates: PTX form, the SM whose code it was made from
/// ([`ori_ir::Isa::template_sm`]: sm_75, sm_80 for sm_80 to sm_89, sm_90,
/// sm_100, sm_110 and sm_120), Ori text. sm_75 lacks the `.ftz` divisions, whose
/// NVIDIA code its decoder does not read yet.
const TEMPLATES: &[(&str, u16, &str)] = templates! {
    "div.rn.f32" => "div_rn_f32" [75, 80, 90, 100, 110, 120];
    "div.rz.f32" => "div_rz_f32" [75, 80, 90, 100, 110, 120];
    "div.rm.f32" => "div_rm_f32" [75, 80, 90, 100, 110, 120];
    "div.rp.f32" => "div_rp_f32" [75, 80, 90, 100, 110, 120];
    "div.full.f32" => "div_full_f32" [75, 80, 90, 100, 110, 120];
    "div.approx.f32" => "div_approx_f32" [75, 80, 90, 100, 110, 120];
    "rcp.rn.f32" => "rcp_rn_f32" [75, 80, 90, 100, 110, 120];
    "rcp.rz.f32" => "rcp_rz_f32" [75, 80, 90, 100, 110, 120];
    "rcp.rm.f32" => "rcp_rm_f32" [75, 80, 90, 100, 110, 120];
    "rcp.rp.f32" => "rcp_rp_f32" [75, 80, 90, 100, 110, 120];
    "sqrt.rn.f32" => "sqrt_rn_f32" [75, 80, 90, 100, 110, 120];
    "sqrt.rz.f32" => "sqrt_rz_f32" [75, 80, 90, 100, 110, 120];
    "sqrt.rm.f32" => "sqrt_rm_f32" [75, 80, 90, 100, 110, 120];
    "sqrt.rp.f32" => "sqrt_rp_f32" [75, 80, 90, 100, 110, 120];
    "rcp.rn.f64" => "rcp_rn_f64" [75, 80, 90, 100, 110, 120];
    "sqrt.rn.f64" => "sqrt_rn_f64" [75, 80, 90, 100, 110, 120];
    "div.rp.f64" => "div_rp_f64" [75, 80, 90, 100, 110, 120];
    "div.rn.f64" => "div_rn_f64" [75, 80, 90, 100, 110, 120];
    "div.rz.f64" => "div_rz_f64" [75, 80, 90, 100, 110, 120];
    "div.rm.f64" => "div_rm_f64" [75, 80, 90, 100, 110, 120];
    "div.rn.ftz.f32" => "div_rn_ftz_f32" [80, 90, 100, 110, 120];
    "div.rz.ftz.f32" => "div_rz_ftz_f32" [80, 90, 100, 110, 120];
    "div.rm.ftz.f32" => "div_rm_ftz_f32" [80, 90, 100, 110, 120];
    "div.rp.ftz.f32" => "div_rp_ftz_f32" [80, 90, 100, 110, 120];
    "div.full.ftz.f32" => "div_full_ftz_f32" [80, 90];
    "rcp.rz.ftz.f32" => "rcp_rz_ftz_f32" [75, 80, 90, 100, 110, 120];
    "rcp.rm.ftz.f32" => "rcp_rm_ftz_f32" [75, 80, 90, 100, 110, 120];
    "rcp.rp.ftz.f32" => "rcp_rp_ftz_f32" [75, 80, 90, 100, 110, 120];
    "sqrt.rz.ftz.f32" => "sqrt_rz_ftz_f32" [75, 80, 90, 100, 110, 120];
    "sqrt.rm.ftz.f32" => "sqrt_rm_ftz_f32" [75, 80, 90, 100, 110, 120];
    "sqrt.rp.ftz.f32" => "sqrt_rp_ftz_f32" [75, 80, 90, 100, 110, 120];
    "rcp.rn.ftz.f32" => "rcp_rn_ftz_f32" [75, 80, 90, 100, 110, 120];
    "sqrt.rn.ftz.f32" => "sqrt_rn_ftz_f32" [75, 80, 90, 100, 110, 120];
    "rcp.rz.f64" => "rcp_rz_f64" [75, 80, 90, 100, 110, 120];
    "rcp.rm.f64" => "rcp_rm_f64" [75, 80, 90, 100, 110, 120];
    "rcp.rp.f64" => "rcp_rp_f64" [75, 80, 90, 100, 110, 120];
    "sqrt.rz.f64" => "sqrt_rz_f64" [75, 80, 90, 100, 110, 120];
    "sqrt.rm.f64" => "sqrt_rm_f64" [75, 80, 90, 100, 110, 120];
    "sqrt.rp.f64" => "sqrt_rp_f64" [75, 80, 90, 100, 110, 120];
    "rsqrt.approx.f64" => "rsqrt_approx_f64" [75, 80, 90, 100, 110, 120];
    // sm_80's code of these (the same routines) gives 0 rather than all
    // ones for a zero divisor on the interpreter: not used until that is
    // understood (sm_80 keeps `divide::div64`).
    "div.u64" => "div_u64" [90, 100, 110, 120];
    "div.s64" => "div_s64" [90, 100, 110, 120];
    "rem.u64" => "rem_u64" [75, 80, 90, 100, 110, 120];
    "rem.s64" => "rem_s64" [75, 80, 90, 100, 110, 120];
};

/// The template for `form` made from SM `sm`'s code.
fn template(form: &str, sm: u16) -> Option<&'static str> {
    TEMPLATES.iter().find(|t| t.0 == form && t.1 == sm).map(|t| t.2)
}

/// True when `inst` is a form this module expands for targets whose
/// templates come from SM `sm`.
pub(super) fn has_template(inst: &Instruction, sm: u16) -> bool {
    template(&form(inst), sm).is_some()
}

/// True when `inst` is a form this module expands (on sm_90, which has
/// them all).
pub(super) fn handles(inst: &Instruction) -> bool {
    template(&form(inst), 90).is_some()
}

/// `div`, `rcp`, `sqrt` of a form in [`TEMPLATES`].
pub(super) fn lower(cx: &mut Lowerer<'_>, inst: &Instruction) -> Lowered {
    let form = form(inst);
    let text = template(&form, cx.target.isa.template_sm).ok_or_else(|| unsupported(inst))?;
    let tmpl = ori_ir::text::parse_function(text).map_err(|e| at(inst.span, format!("internal: {form}: {e}")))?;
    let ty = ty(inst)?;
    if !matches!(ty, ScalarType::F32 | ScalarType::F64 | ScalarType::U64 | ScalarType::S64) {
        return Err(unsupported(inst));
    }
    let arity = if matches!(inst.opcode.name.as_str(), "div" | "rem") { 2 } else { 1 };
    if inst.operands.len() != arity + 1 {
        return Err(unsupported(inst));
    }
    let d = dst(cx, inst, 0)?;
    let mut sources = Vec::new();
    for i in 1..=arity {
        sources.push(match ty {
            // A 64-bit integer immediate, whole (the template copies it word by word).
            ScalarType::U64 | ScalarType::S64 => match super::wide::src64(cx, inst, i)? {
                super::wide::Src64::Reg(r) => Operand::reg(r),
                super::wide::Src64::Imm(v) => Operand::int(v as i64),
            },
            _ => src(cx, inst, i, ty)?,
        });
    }
    let guard = cx.guard.take();
    let result = splice(cx, &tmpl, &sources, d, guard, inst);
    cx.guard = guard;
    result
}

/// `div.rn.f32`: the opcode and the modifiers as written.
fn form(inst: &Instruction) -> String {
    let mut name = inst.opcode.name.as_str().to_string();
    for m in &inst.modifiers {
        name.push('.');
        name.push_str(m.name.as_str());
    }
    name
}

/// Emits template `tmpl` with `sources` for `%r0`, `%r1` and `d` for `%r2`
/// (its writes under the PTX `guard`).
fn splice(
    cx: &mut Lowerer<'_>,
    tmpl: &Function,
    sources: &[Operand],
    d: Reg,
    guard: Option<Guard>,
    inst: &Instruction,
) -> Lowered {
    let internal = |what: &str| at(inst.span, format!("internal: template of {}: {what}", form(inst)));
    // Each template register's full width, from its widest mention.
    let mut widths: HashMap<(RegFile, u32), u8> = HashMap::new();
    for (_, i) in tmpl.insts.iter() {
        let regs = i.defs.iter().chain(&i.uses).flat_map(|o| o.regs()).chain(i.guard.map(|g| g.pred));
        for r in regs.filter(|r| r.is_virtual) {
            let w = widths.entry((r.file, r.num)).or_insert(0);
            *w = (*w).max(r.word.unwrap_or(0) + r.width);
        }
    }
    let mut regs: HashMap<(RegFile, u32), Reg> = HashMap::new();
    for (&(file, num), &width) in &widths {
        let reg = match (file, num) {
            (RegFile::R, 2) => d,
            (RegFile::R, 0 | 1) => continue,
            _ => cx.temp(file, width),
        };
        regs.insert((file, num), reg);
    }
    let mut blocks: HashMap<BlockId, BlockId> = HashMap::new();
    for &b in &tmpl.layout[1..] {
        let fresh = cx.func.add_block();
        cx.func.layout.pop();
        blocks.insert(b, fresh);
    }
    let rename = |r: Reg, regs: &HashMap<(RegFile, u32), Reg>| -> Option<Reg> {
        if !r.is_virtual {
            return Some(r);
        }
        let base = *regs.get(&(r.file, r.num))?;
        Some(if r.word.is_none() { base } else { base.part(r.word.unwrap_or(0), r.width) })
    };
    for (k, &b) in tmpl.layout.iter().enumerate() {
        if k > 0 {
            cx.place_block(blocks[&b]);
        }
        for &id in &tmpl.blocks[b].insts {
            let i = &tmpl.insts[id];
            let mut defs = Vec::new();
            let mut result = false;
            for o in &i.defs {
                let r = o.as_reg().ok_or_else(|| internal("a definition that is not a register"))?;
                result |= r.is_virtual && r.file == RegFile::R && r.num == 2;
                let reg = rename(r, &regs).ok_or_else(|| internal("a source written"))?;
                defs.push(Operand { kind: OperandKind::Reg(reg), flags: o.flags });
            }
            let mut uses = Vec::new();
            for o in &i.uses {
                let kind = match &o.kind {
                    OperandKind::Reg(r) if r.is_virtual && r.file == RegFile::R && r.num < 2 => {
                        source(&sources[r.num as usize], *r).ok_or_else(|| unsupported(inst))?
                    }
                    OperandKind::Reg(r) => OperandKind::Reg(rename(*r, &regs).ok_or_else(|| internal("no register"))?),
                    OperandKind::Label(l) => {
                        OperandKind::Label(*blocks.get(l).ok_or_else(|| internal("a branch out"))?)
                    }
                    other => other.clone(),
                };
                uses.push(Operand { kind, flags: o.flags });
            }
            cx.guard = match i.guard {
                Some(g) => Some(Guard { pred: rename(g.pred, &regs).ok_or_else(|| internal("no guard"))?, ..g }),
                None if result => guard,
                None => None,
            };
            let mods: Vec<&str> = i.mods.iter().map(|m| m.name()).collect();
            cx.emit(i.op, &mods, defs, uses.clone(), inst.span)?;
            // The template's immediates are as our decoder read them, the
            // encoder's own convention (`VIADD` takes `0xffffffff`, which
            // `emit` would have made `-0x1`).
            if let Some((_, emitted)) = cx.func.insts.iter_mut().next_back() {
                emitted.uses = uses;
            }
        }
    }
    Ok(())
}

/// What template source register `r` (`%r0`, `%r1`, or a word of them)
/// reads of PTX source `s`: its register or word, or the immediate's bits
/// as an integer (the templates only copy their sources).
fn source(s: &Operand, r: Reg) -> Option<OperandKind> {
    match &s.kind {
        OperandKind::Reg(reg) if r.word.is_none() => Some(OperandKind::Reg(*reg)),
        OperandKind::Reg(reg) => Some(OperandKind::Reg(reg.part(r.word.unwrap_or(0), r.width))),
        OperandKind::Imm(Imm::F32(bits)) if r.word.is_none() => Some(OperandKind::Imm(Imm::Int(i64::from(*bits)))),
        OperandKind::Imm(Imm::Int(value)) if r.word.is_some() => {
            let word = if r.word == Some(0) { *value as u32 } else { (*value as u64 >> 32) as u32 };
            Some(OperandKind::Imm(Imm::Int(i64::from(word))))
        }
        OperandKind::Imm(Imm::F64(bits)) => {
            let word = match r.word? {
                0 => *bits as u32,
                _ => (*bits >> 32) as u32,
            };
            Some(OperandKind::Imm(Imm::Int(i64::from(word))))
        }
        _ => None,
    }
}
