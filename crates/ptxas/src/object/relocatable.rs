//! What `-c` (relocatable) output adds to a function's cubin entry when the
//! module has device functions: each function keeps its own `.text`
//! section and its calls are left to the linker (`OriLinkCallees` with
//! `Relocatable`), as in NVIDIA's `-c` objects of the corpus (recursion,
//! multi_entry, device_calls; ptxas 13.5, sm_90 and sm_80):
//!
//! * a call of another function, `CALL.ABS.NOINC `(f)`: R_CUDA_ABS55_16_34
//!   (sm_8x: R_CUDA_ABS47_34) against `f`, addend 0; a function calling itself keeps
//!   `CALL.REL.NOINC` to its own start, which needs no relocation;
//! * the absolute return address, `MOV R20, 32@lo(caller + ret)` and
//!   `MOV R21, 32@hi(caller + ret)`: R_CUDA_ABS32_LO_32 / _HI_32 against
//!   the calling function, the addend the offset after the call;
//! * device functions: LOCAL FUNC symbols, only the non-entry records, no
//!   EIATTR_CRS_STACK_SIZE, a `.debug_frame` CIE with R20 as the return
//!   register and R20/R21 unchanged;
//! * functions in the order ptxas writes them: the device functions, then
//!   the kernels, each in reverse PTX order;
//! * EIATTR_MAX_STACK_SIZE 0 for every function (nvlink works the stack
//!   out; local_array's 0x130-byte frame gives 0 too).

use ori_ir::object::{self, CodeRelocation, FunctionKind, Linkage};
use ori_ir::{Function, Inst, OpFlags, OperandKind, Reg, RegFile};

use crate::diag::Diagnostic;
use elfw::reloc::r_cuda;

/// `.debug_frame` CIE instructions of a device function in NVIDIA's `-c`
/// objects (recursion, device_calls, multi_entry; sm_90): CFA = R1, R255,
/// R1, R20 and R21 unchanged, two `DW_CFA_nop`s of padding.
const DEVICE_CIE_INSTRUCTIONS: [u8; 28] = [
    0x0c, 0x81, 0x80, 0x80, 0x28, 0x00, 0x08, 0xff, 0x81, 0x80, 0x28, 0x08, 0x81, 0x80, 0x80, 0x28, 0x08, 0x94, 0x80,
    0x80, 0x28, 0x08, 0x95, 0x80, 0x80, 0x28, 0x00, 0x00,
];

/// The return-address register of those CIEs: R20 with the register-class
/// bits ptxas's DWARF numbers carry (0x28 << 21).
const DEVICE_RETURN_REGISTER: u32 = 0x0500_0014;

/// The return-address registers.
const RETURN_LO: u32 = 20;
const RETURN_HI: u32 = 21;

/// Turns `f`, built from `func` for a whole program, into its `-c` form.
pub(super) fn adapt(f: &mut object::Function, func: &Function, target: &ori_ir::Target) -> Result<(), Diagnostic> {
    f.stack_size = 0;
    let mut callees = Vec::new();
    if func.attrs.subroutines.is_empty() {
        let calls = call_relocations(func, target)?;
        callees = calls.callees;
        f.relocations.extend(calls.relocations);
        f.relocations.sort_by_key(|r| r.offset);
    }
    f.callees.splice(0..0, callees);
    if func.kind == ori_ir::FunctionKind::Func {
        f.kind = FunctionKind::Device;
        f.linkage = Linkage::Local;
        f.params.clear();
        f.crs_stack_size = None;
        f.frame.return_register = DEVICE_RETURN_REGISTER;
        f.frame.cie_instructions = DEVICE_CIE_INSTRUCTIONS.to_vec();
        let insts: Vec<&Inst> = func.insts_in_order().map(|(_, _, i)| i).collect();
        f.frame.fde_instructions = super::frame_rows::device_function_rows(&insts, true);
        f.frame.dropped_bytes = 0;
    }
    Ok(())
}

/// A function's calls as the linker sees them.
struct Calls {
    /// The relocations, in code order.
    relocations: Vec<CodeRelocation>,
    /// Functions called directly, in order of first call.
    callees: Vec<String>,
}

/// True when `inst` writes general register `n`.
fn writes(inst: &Inst, n: u32) -> bool {
    inst.written_regs()
        .any(|r: Reg| r.file == RegFile::R && !r.is_virtual && (r.num..r.num + u32::from(r.width)).contains(&n))
}

/// The relocations of `func`'s direct calls: the callee and the two halves
/// of the return address, whose `MOV`s are the last writers of R20 and
/// R21 before the call.
fn call_relocations(func: &Function, target: &ori_ir::Target) -> Result<Calls, Diagnostic> {
    // sm_8x's R_CUDA_ABS47_34 is written in `.rel.text` as its addend is 0
    // (recursion -c on sm_80).
    let target_kind = super::calls::call_target_kind(target.isa.call_target);
    let mut relocations = Vec::new();
    let mut callees: Vec<String> = Vec::new();
    let (mut lo, mut hi) = (None, None);
    for (index, (_, _, inst)) in func.insts_in_order().enumerate() {
        let at = 16 * index as u64;
        let direct = match inst.uses.as_slice() {
            [u] if inst.op.has(OpFlags::CALL) => match &u.kind {
                OperandKind::Symbol(name) => Some(Some(name.clone())),
                OperandKind::Label(_) if !inst.has_mod("ABS") => Some(None),
                _ => None,
            },
            _ => None,
        };
        if let Some(target) = direct {
            let (Some(lo_at), Some(hi_at)) = (lo, hi) else {
                return Err(Diagnostic::fatal(format!(
                    "function '{}': a call at {at:#x} without its return address",
                    func.name
                )));
            };
            let callee = target.clone().unwrap_or_else(|| func.name.clone());
            if !callees.contains(&callee) {
                callees.push(callee);
            }
            let ret = (at + 16) as i64;
            let own = |offset, kind| CodeRelocation { offset, kind, symbol: func.name.clone(), addend: ret };
            relocations.push(own(lo_at, r_cuda::ABS32_LO_32));
            relocations.push(own(hi_at, r_cuda::ABS32_HI_32));
            if let Some(symbol) = target {
                relocations.push(CodeRelocation { offset: at, kind: target_kind, symbol, addend: 0 });
            }
        }
        if writes(inst, RETURN_LO) {
            lo = is_zero_mov(inst).then_some(at);
        }
        if writes(inst, RETURN_HI) {
            hi = is_zero_mov(inst).then_some(at);
        }
    }
    Ok(Calls { relocations, callees })
}

/// `MOV R, 0`: a return-address half the linker fills in.
fn is_zero_mov(inst: &Inst) -> bool {
    inst.op == ori_ir::Opcode::MOV
        && matches!(inst.uses.as_slice(), [u] if u.kind == OperandKind::Imm(ori_ir::Imm::Int(0)))
}

/// What a `-c` object takes from the PTX that Ori does not keep: the
/// binding of `.visible`/`.weak` device functions (GLOBAL/WEAK symbols)
/// and, in `.nv.prototype`, the signature of each of them and of each
/// external function the code calls (NVIDIA's: `ext_mix` of `.extern .func (.param .b32 r)
/// ext_mix(.param .b32, .param .b32)` has `#iii`).
pub(crate) fn ptx_facts<'a>(
    object: &mut object::ObjectModule,
    modules: impl IntoIterator<Item = &'a ptx_syntax::ast::Module>,
) -> Result<(), Diagnostic> {
    use ptx_syntax::ast::{Item, Linkage as PtxLinkage};
    let called: Vec<String> = object.functions.iter().flat_map(|f| f.callees.iter().cloned()).collect();
    let mut prototypes = Vec::new();
    for module in modules {
        for item in &module.items {
            let Item::Function(f) = item else { continue };
            let name = f.name.name.as_str();
            match (f.linkage, &f.body) {
                (Some(PtxLinkage::Extern), None) if called.iter().any(|c| c == name) => {
                    prototypes.push(object::Prototype { function: name.to_string(), signature: signature(f)? });
                }
                (Some(linkage @ (PtxLinkage::Visible | PtxLinkage::Weak)), Some(_)) => {
                    let Some(g) = object.functions.iter_mut().find(|g| g.name == name) else { continue };
                    if g.kind == FunctionKind::Device {
                        g.linkage = if linkage == PtxLinkage::Weak { Linkage::Weak } else { Linkage::Global };
                        // Exported device functions get a prototype too.
                        prototypes.push(object::Prototype { function: name.to_string(), signature: signature(f)? });
                    }
                }
                _ => {}
            }
        }
    }
    object.prototypes = prototypes;
    Ok(())
}

/// ptxas's signature string of a function: `#`, the result (`v` for none),
/// then each parameter; measured with probes (ptxas 13.5, sm_90): `i` 32-bit
/// integer, `l` 64-bit integer, `h` 16-bit, `f` `.f32`, `d` `.f64`, `bN` a
/// byte array of N (`#vli`, `#lf`, `#ihdb12`, `#v`).
fn signature(f: &ptx_syntax::ast::Function) -> Result<String, Diagnostic> {
    use ptx_syntax::ast::{DeclType, ScalarType};
    let mut out = String::from("#");
    let code = |d: &ptx_syntax::ast::VarDecl| -> Option<Vec<String>> {
        let DeclType::Scalar(ty) = d.ty else { return None };
        d.names
            .iter()
            .map(|n| match (n.dims.as_slice(), ty) {
                ([Some(len)], ScalarType::B8 | ScalarType::U8 | ScalarType::S8) => Some(format!("b{len}")),
                ([], ScalarType::F32) => Some("f".into()),
                ([], ScalarType::F64) => Some("d".into()),
                ([], t) if d.vector().is_none() && !t.is_float() => match t.bits() {
                    16 => Some("h".into()),
                    32 => Some("i".into()),
                    64 => Some("l".into()),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    };
    let unknown =
        || Diagnostic::fatal(format!("the prototype of '{}' has a parameter type not measured yet", f.name.name));
    match &f.returns {
        Some(returns) if !returns.is_empty() => {
            for d in returns {
                out.extend(code(d).ok_or_else(unknown)?);
            }
        }
        _ => out.push('v'),
    }
    for d in f.params.iter().flatten() {
        out.extend(code(d).ok_or_else(unknown)?);
    }
    Ok(out)
}
