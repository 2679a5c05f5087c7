//! From an encoded Ori module to what the cubin builder takes
//! ([`ori_ir::object::ObjectModule`]): code bytes and the metadata the CUDA
//! driver reads.

use ori_ir::object::{self, FrameInfo, LaunchBounds, ObjectModule, OutputMode, Param};
use ori_ir::{Function, FunctionKind, Imm, Module, Opcode, OperandKind, SpecialReg, Variant};

use crate::Options;
use crate::diag::Diagnostic;

/// The `.debug_frame` CIE instructions of every kernel NVIDIA's ptxas 13.5
/// wrote for the corpus (86 cubins, sm_80 and sm_90, all identical): the
/// CFA rule and the registers kept across the kernel. Kernels get no FDE
/// instructions from us: NVIDIA's mark two code points whose meaning is not
/// established yet (docs/status.md), and without them the CIE's rules
/// apply to the whole kernel, which holds for code without a stack frame.
const KERNEL_CIE_INSTRUCTIONS: &[u8] =
    &[0x0c, 0x81, 0x80, 0x80, 0x28, 0x00, 0x08, 0xff, 0x81, 0x80, 0x28, 0x08, 0x81, 0x80, 0x80, 0x28, 0x00, 0x00, 0x00];

/// The object description of `module`, whose functions must all be
/// encoded.
pub fn object_module(module: &Module, options: &Options) -> Result<ObjectModule, Diagnostic> {
    let target = module.target.target();
    let mut functions = Vec::new();
    for func in &module.functions {
        if func.kind == FunctionKind::Func {
            return Err(Diagnostic::fatal(format!(
                "device function '{}': writing .func code into a cubin is not implemented yet",
                func.name
            )));
        }
        functions.push(function(func, &target)?);
    }
    let mut command_line = format!("-arch {} ", module.target);
    if options.opt_level != 3 {
        command_line = format!("-O {} {command_line}", options.opt_level);
    }
    Ok(ObjectModule {
        target: object::Target {
            sm: module.target.version.into(),
            accelerated: module.target.variant == Variant::Arch,
        },
        ptx_target: module.target.version.into(),
        mode: if options.compile_only { OutputMode::Relocatable } else { OutputMode::WholeProgram },
        command_line,
        functions,
        isa_class: 1,
        ..ObjectModule::default()
    })
}

fn function(func: &Function, target: &ori_ir::Target) -> Result<object::Function, Diagnostic> {
    let sm = mercury_encode::Sm::from_number(target.sm.version.into())
        .ok_or_else(|| Diagnostic::fatal(format!("no SASS encoding for {} yet", target.sm)))?;
    let code = mercury_encode::code_bytes(sm, func)
        .map_err(|e| Diagnostic::fatal(format!("function '{}': {e}", func.name)))?;
    let usage = Usage::of(func, target);
    let attrs = &func.attrs;
    Ok(object::Function {
        name: func.name.clone(),
        kind: object::FunctionKind::Entry,
        code,
        registers: usage.registers,
        barriers: usage.barriers,
        frame_size: attrs.frame_bytes,
        stack_size: attrs.frame_bytes,
        params: attrs.params.iter().map(|p| Param { offset: p.offset, size: p.size }).collect(),
        exit_offsets: usage.exit_offsets,
        launch: LaunchBounds {
            max_threads: attrs.maxntid,
            req_threads: attrs.reqntid,
            max_registers: attrs.maxnreg,
            min_ctas_per_sm: attrs.minnctapersm,
            cluster_dims: None,
        },
        notes: object::CodeNotes { uses_ctaid_z: usage.uses_ctaid_z, ..Default::default() },
        shared: object::SharedMemory {
            size: attrs.shared_bytes.into(),
            align: attrs.shared_align.into(),
            declared: attrs.shared_bytes > 0,
            ..Default::default()
        },
        frame: FrameInfo {
            return_register: u32::MAX,
            cie_instructions: KERNEL_CIE_INSTRUCTIONS.to_vec(),
            ..FrameInfo::default()
        },
        ..object::Function::default()
    })
}

/// What a function's final code uses, for the cubin and for `-v`.
pub struct Usage {
    /// Registers per thread as ptxas counts them.
    pub registers: u32,
    /// Named barriers: highest `BAR` id + 1.
    pub barriers: u32,
    /// Byte offsets of the `EXIT`s.
    pub exit_offsets: Vec<u32>,
    /// Reads `%ctaid.z`.
    pub uses_ctaid_z: bool,
}

impl Usage {
    /// Scans `func`'s (allocated) code.
    pub fn of(func: &Function, target: &ori_ir::Target) -> Usage {
        let mut usage = Usage {
            registers: regalloc_fatpoint::registers_used(func, target),
            barriers: 0,
            exit_offsets: Vec::new(),
            uses_ctaid_z: false,
        };
        for (index, (_, _, inst)) in func.insts_in_order().enumerate() {
            if inst.op == Opcode::EXIT {
                usage.exit_offsets.push(16 * index as u32);
            }
            if inst.op == Opcode::BAR
                && let Some(OperandKind::Imm(Imm::Int(id))) = inst.uses.first().map(|u| &u.kind)
            {
                usage.barriers = usage.barriers.max(*id as u32 + 1);
            }
            usage.uses_ctaid_z |= inst.uses.iter().any(|u| u.kind == OperandKind::Special(SpecialReg::CtaidZ));
        }
        usage
    }
}
