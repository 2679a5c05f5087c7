//! From an encoded Ori module to what the cubin builder takes
//! ([`ori_ir::object::ObjectModule`]): code bytes and the metadata the CUDA
//! driver reads.

use ori_ir::object::{self, FrameInfo, LaunchBounds, ObjectModule, OutputMode, Param};
use ori_ir::{Function, FunctionKind, Imm, Module, OpFlags, Opcode, OperandKind, SpecialReg, VarSpace, Variant};

use crate::Options;
use crate::diag::Diagnostic;

mod calls;
mod dwarf;
mod frame_rows;
mod lines;
mod mbarrier;
mod notes;
mod relocatable;

pub(crate) use relocatable::ptx_facts;

/// The `.debug_frame` CIE instructions of every kernel NVIDIA's ptxas 13.5
/// wrote for the corpus (86 cubins, sm_80 and sm_90, all identical): the
/// CFA rule and the registers kept across the kernel.
const KERNEL_CIE_INSTRUCTIONS: &[u8] =
    &[0x0c, 0x81, 0x80, 0x80, 0x28, 0x00, 0x08, 0xff, 0x81, 0x80, 0x28, 0x08, 0x81, 0x80, 0x80, 0x28, 0x00, 0x00, 0x00];

/// `DW_CFA_def_cfa` with the CIE's register and offset 0.
const DEF_CFA: &[u8] = &[0x0c, 0x81, 0x80, 0x80, 0x28, 0x00];

/// `DW_CFA_advance_loc4`; the code alignment is 4 bytes.
const ADVANCE_LOC4: u8 = 0x04;

/// The FDE rows of a kernel without calls, as NVIDIA's ptxas 13.5 writes
/// them (docs/elfw.md, measured on the corpus): a `DW_CFA_def_cfa` row just
/// after the first control transfer (`@P0 EXIT`, `BRA`) and an empty row at
/// the last `EXIT`, in address order; and a leading empty row at 0x10,
/// which ptxas keeps where `entry_row` ([`ori_ir::Isa::fde_entry_row`]) and
/// drops after laying out the section elsewhere: the builder then counts
/// those 5 bytes in later CIE-pointer addends.
fn kernel_fde(func: &Function, entry_row: bool) -> (Vec<u8>, u32) {
    let mut first_transfer = None;
    let mut last_exit = None;
    for (index, (_, _, inst)) in func.insts_in_order().enumerate() {
        let at = 16 * index as u32;
        if matches!(inst.op, Opcode::BRA | Opcode::EXIT) && first_transfer.is_none() {
            first_transfer = Some(at + 16);
        }
        if inst.op == Opcode::EXIT {
            last_exit = Some(at);
        }
    }
    let (Some(cfa), Some(exit)) = (first_transfer, last_exit) else { return (Vec::new(), 0) };
    // A kernel with a frame has its row after making it (object/frame_rows.rs).
    let own = func.insts_in_order().take_while(|(b, _, _)| !func.attrs.subroutines.iter().any(|s| s.entry == *b));
    let cfa_row = frame_rows::kernel_frame_row(own.map(|(_, _, i)| i)).unwrap_or((cfa, DEF_CFA.to_vec()));
    let mut rows: Vec<(u32, Vec<u8>)> = vec![cfa_row, (exit, Vec::new())];
    if entry_row {
        rows.push((0x10, Vec::new()));
    }
    rows.sort_by_key(|r| r.0);
    let mut out = Vec::new();
    let mut at = 0;
    for (row, rules) in rows {
        out.push(ADVANCE_LOC4);
        out.extend_from_slice(&((row - at) / 4).to_le_bytes());
        out.extend_from_slice(&rules);
        at = row;
    }
    // ADVANCE_LOC4 and its operand.
    (out, if entry_row { 0 } else { 5 })
}

/// Puts `functions` (kernels, then device functions, each in PTX order, as
/// ptx-lower makes them) in the order NVIDIA's ptxas writes their sections:
/// device functions (`-c` only) before kernels, each in reverse PTX order
/// (every multi-kernel corpus file, whole program and `-c`).
fn nvidia_order(functions: &mut [object::Function]) {
    functions.reverse();
    functions.sort_by_key(|f| f.kind == object::FunctionKind::Entry);
}

/// The object description of `module`, whose functions must all be
/// encoded; `ptx` is the PTX text it was compiled from (for the line
/// tables), `None` for an Ori module.
pub fn object_module(module: &Module, options: &Options, ptx: Option<&str>) -> Result<ObjectModule, Diagnostic> {
    let target = module.target.target();
    let line_tables = ptx.filter(|_| lines::wanted(module, options.line_info));
    let mut functions = Vec::new();
    for func in &module.functions {
        // Whole programs clone device functions into their callers
        // (OriLinkCallees); `-c` keeps them (object/relocatable.rs).
        if func.kind == FunctionKind::Func && !options.compile_only {
            return Err(Diagnostic::fatal(format!("device function '{}' was not placed in a kernel", func.name)));
        }
        let mut f = function(func, &target)?;
        if line_tables.is_some() {
            // With -c the PTX text is file 1 of `.nv_debug_line_sass`.
            (f.source_lines, f.ptx_lines) = lines::rows(func, &module.debug, u32::from(options.compile_only));
        }
        if !f.notes.syscalls.is_empty() {
            // The external functions the kernel may call (EIATTR_EXTERNS);
            // `CALL.ABS` goes through a register, so every one counts.
            f.callees = module.externals.clone();
        }
        if options.compile_only {
            relocatable::adapt(&mut f, func, &target)?;
        }
        functions.push(f);
    }
    let dwarf = if options.device_debug {
        let placed: Vec<_> =
            module.functions.iter().zip(&functions).map(|(func, f)| (func, f.code.len() as u64)).collect();
        dwarf::sections(module, &placed)
    } else {
        Vec::new()
    };
    if options.compile_only && !module.variables.is_empty() {
        return Err(Diagnostic::fatal(
            "module-scope variables in relocatable (-c) output are not implemented yet".to_string(),
        ));
    }
    nvidia_order(&mut functions);
    let variables = module.variables.iter().map(variable).collect();
    // The address table of constant bank 4: every external function, then
    // every `.global` variable, in declaration order
    // (ori_ir::Module::address_slot).
    let globals = module.variables.iter().filter(|v| v.space == VarSpace::Global).map(|v| v.name.clone());
    let address_table = module.externals.iter().cloned().chain(globals).collect();
    let mut command_line = format!("-arch {} ", module.target);
    if options.opt_level != 3 {
        command_line = format!("-O {} {command_line}", options.opt_level);
    }
    if options.compile_only {
        // Measured: "-arch sm_90 -c  " (two spaces), also after "-O 2 ".
        command_line.push_str("-c  ");
    }
    if options.line_info {
        // Measured: "-lineinfo  -O 2 -arch sm_80 -c  ".
        command_line.insert_str(0, "-lineinfo  ");
    }
    let line_info = line_tables.map(|ptx| {
        let mut info = lines::line_info(module, ptx);
        info.inline_extension = functions.iter().flat_map(|f| &f.source_lines).any(|r| r.inline.is_some());
        info
    });
    Ok(ObjectModule {
        target: object::Target {
            sm: module.target.version.into(),
            accelerated: module.target.variant == Variant::Arch,
        },
        ptx_target: module.target.version.into(),
        mode: if options.compile_only { OutputMode::Relocatable } else { OutputMode::WholeProgram },
        command_line,
        functions,
        variables,
        address_table,
        externals: module.externals.clone(),
        isa_class: 1,
        line_info,
        dwarf,
        ..ObjectModule::default()
    })
}

/// The sizes `-v` reports for `module`'s data, measured with NVIDIA's
/// ptxas 13.5: `gmem` is the size of `.nv.global.init` plus that of
/// `.nv.global` (alignment gaps included: two `.align 8 .b8 x[3]` make an
/// 11-byte section); before sm_90 it also gives the sizes of constant
/// bank 3 (`.const` data) and bank 4 (8 bytes per address-table entry),
/// when not empty.
pub fn module_data(module: &Module) -> crate::ModuleData {
    let section_end = |keep: &dyn Fn(&ori_ir::Variable) -> bool| {
        module.variables.iter().filter(|v| keep(v)).map(|v| v.offset + v.size).max().unwrap_or(0)
    };
    let global = |v: &ori_ir::Variable| v.space == VarSpace::Global;
    let gmem = section_end(&|v| global(v) && v.init.is_some()) + section_end(&|v| global(v) && v.init.is_none());
    let mut cmem = Vec::new();
    // The same targets that report cmem[0] per kernel.
    if module.target.target().verbose_reports_cmem0 {
        let bank3 = section_end(&|v| v.space == VarSpace::Const);
        let addresses = module.externals.len() + module.variables.iter().filter(|v| global(v)).count();
        cmem = [(3, bank3), (4, 8 * addresses as u64)].into_iter().filter(|&(_, bytes)| bytes != 0).collect();
    }
    crate::ModuleData { gmem, cmem }
}

/// A module variable as the cubin describes it.
fn variable(v: &ori_ir::Variable) -> object::Variable {
    object::Variable {
        name: v.name.clone(),
        space: match v.space {
            VarSpace::Global => object::VariableSpace::Global,
            VarSpace::Const => object::VariableSpace::Const,
        },
        linkage: if v.visible { object::Linkage::Global } else { object::Linkage::Local },
        offset: v.offset,
        size: v.size,
        align: v.align,
        init: v.init.clone(),
        pointers: v
            .pointers
            .iter()
            .map(|p| object::PointerInit { offset: p.offset, target: p.target.clone(), addend: p.addend })
            .collect(),
    }
}

fn function(func: &Function, target: &ori_ir::Target) -> Result<object::Function, Diagnostic> {
    let sm = mercury_encode::Sm::from_number(target.sm.version.into())
        .ok_or_else(|| Diagnostic::fatal(format!("no SASS encoding for {} yet", target.sm)))?;
    let code = mercury_encode::code_bytes(sm, func)
        .map_err(|e| Diagnostic::fatal(format!("function '{}': {e}", func.name)))?;
    let usage = Usage::of(func, target);
    let attrs = &func.attrs;
    let (fde_instructions, dropped_bytes) = kernel_fde(func, target.isa.fde_entry_row);
    let calls = calls::of(func, target, code.len() as u64);
    let (mbarrier_instrs, mbarriers) = mbarrier::records(func);
    let mut resolved_relocations = calls.resolved;
    if target.shared_window {
        resolved_relocations.extend(notes::shared_address_relocations(func));
        resolved_relocations.sort_by_key(|r| r.offset);
    }
    Ok(object::Function {
        name: func.name.clone(),
        kind: object::FunctionKind::Entry,
        code,
        registers: usage.registers,
        barriers: usage.barriers,
        frame_size: attrs.frame_bytes,
        stack_size: calls.stack_size,
        subroutines: calls.subroutines,
        resolved_relocations,
        params: attrs.params.iter().map(|p| Param { offset: p.offset, size: p.size, pointee: p.pointee }).collect(),
        exit_offsets: usage.exit_offsets,
        launch: LaunchBounds {
            max_threads: attrs.maxntid,
            req_threads: attrs.reqntid,
            max_registers: attrs.maxnreg,
            min_ctas_per_sm: attrs.minnctapersm,
            cluster_dims: attrs.cluster_dims,
        },
        // NVIDIA records a call/return/sync stack size (always 0 since
        // Volta) exactly when the final code calls a function (k_hash,
        // printf_kernel) or keeps a branch that may split a warp
        // (fill_iota; docs/elfw.md).
        crs_stack_size: (usage.calls || !cfg::divergent_branches(func).is_empty()).then_some(0),
        notes: object::CodeNotes {
            uses_ctaid_z: usage.uses_ctaid_z,
            syscalls: calls.syscalls,
            coop_group: notes::coop_group(func),
            uses_wmma: attrs.uses_wmma,
            mbarrier_instrs,
            mbarriers,
            ..Default::default()
        },
        shared: object::SharedMemory {
            size: attrs.shared_bytes.into(),
            align: attrs.shared_align.into(),
            // Own variables lie past ptxas's reserved area; a section holding
            // only that area (for dynamic shared memory) is not "declared".
            declared: attrs.shared_bytes > target.reserved_shared,
            uses_extern: attrs.extern_shared,
            ..Default::default()
        },
        // NVIDIA's `.nv.constant2.<fn>`: the literal pool, 4-aligned.
        bank2: (!attrs.bank2.is_empty()).then(|| object::ConstantBank {
            bytes: attrs.bank2.iter().flat_map(|v| v.to_le_bytes()).collect(),
            align: 4,
            symbols: Vec::new(),
        }),
        frame: FrameInfo {
            return_register: u32::MAX,
            cie_instructions: KERNEL_CIE_INSTRUCTIONS.to_vec(),
            fde_instructions,
            dropped_bytes,
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
    /// Calls a function (a cloned callee or an external one).
    pub calls: bool,
}

impl Usage {
    /// Scans `func`'s (allocated) code.
    pub fn of(func: &Function, target: &ori_ir::Target) -> Usage {
        let mut usage = Usage {
            registers: regalloc_fatpoint::registers_used(func, target),
            barriers: 0,
            exit_offsets: Vec::new(),
            uses_ctaid_z: false,
            calls: false,
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
            usage.calls |= inst.op.has(OpFlags::CALL);
            usage.uses_ctaid_z |= inst.uses.iter().any(|u| u.kind == OperandKind::Special(SpecialReg::CtaidZ));
        }
        usage
    }
}
