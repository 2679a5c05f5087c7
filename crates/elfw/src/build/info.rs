//! `.nv.info`, `.nv.info.<fn>` and `.nv.compat` records in ptxas's order.

use super::{Builder, TOOLKIT_VERSION};
use crate::error::Result;
use crate::nvinfo::{Attribute, KParamInfo, Value, code};
use ori_ir::object::{Function, FunctionKind};

/// EIATTR_LANGUAGE value for PTX.
const LANGUAGE_PTX: u32 = 3;
/// KPARAM_INFO packed word without the size: constant bank 0x1f (the kernel's
/// parameter bank), space 0, alignment 0 (the only form ptxas 13.5 writes).
const KPARAM_CBANK: u32 = 0x1f << 12;

/// One slot of the record order: which record, written by which function.
type Slot = (u8, fn(&Builder<'_>, &Function) -> Result<Option<Vec<Attribute>>>);

fn one(code: u8, value: Value) -> Option<Vec<Attribute>> {
    Some(vec![Attribute { code, value }])
}

fn words(code: u8, w: &[u32]) -> Option<Vec<Attribute>> {
    (!w.is_empty()).then(|| vec![Attribute::words(code, w)])
}

fn is_entry(f: &Function) -> bool {
    f.kind == FunctionKind::Entry
}

fn language(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok((!f.builtin).then(|| vec![Attribute::words(code::LANGUAGE, &[LANGUAGE_PTX])]))
}

fn sw_war(b: &Builder<'_>, _: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(b.arch.sw_war.and_then(|w| words(code::SW_WAR, &[w])))
}

fn api_version(_: &Builder<'_>, _: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(words(code::CUDA_API_VERSION, &[TOOLKIT_VERSION.into()]))
}

fn sw2861232(b: &Builder<'_>, _: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(b.arch.sw2861232_war.then(|| vec![Attribute { code: code::SW2861232_WAR, value: Value::Flag }]))
}

fn param_bytes(f: &Function) -> u32 {
    f.params.iter().map(|p| p.offset + p.size).max().unwrap_or(0)
}

fn param_cbank(b: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    if !is_entry(f) || f.params.is_empty() {
        return Ok(None);
    }
    let sym = b.sym(&format!(".nv.constant0.{}", f.name))?;
    Ok(words(code::PARAM_CBANK, &[sym, (param_bytes(f) << 16) | b.arch.param_base()]))
}

fn cbank_param_size(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    if !is_entry(f) || f.params.is_empty() {
        return Ok(None);
    }
    Ok(one(code::CBANK_PARAM_SIZE, Value::Half(param_bytes(f) as u16)))
}

fn kparam_info(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    if !is_entry(f) {
        return Ok(None);
    }
    // Last parameter first, as ptxas writes them.
    let recs = f
        .params
        .iter()
        .enumerate()
        .rev()
        .map(|(i, p)| {
            let k = KParamInfo {
                index: 0,
                ordinal: i as u16,
                offset: p.offset as u16,
                packed: (p.size << 18) | KPARAM_CBANK | p.pointee.map_or(0, kparam_pointee),
            };
            Attribute { code: code::KPARAM_INFO, value: Value::Block(k.encode()) }
        })
        .collect::<Vec<_>>();
    Ok((!recs.is_empty()).then_some(recs))
}

fn cluster(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(f.launch
        .cluster_dims
        .map(|d| vec![Attribute { code: EXPLICIT_CLUSTER, value: Value::Flag }, Attribute::words(CTA_PER_CLUSTER, &d)]))
}

fn sparse_mma(_: &Builder<'_>, _: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(one(code::SPARSE_MMA_MASK, Value::Half(0)))
}

fn wmma(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(f.notes.uses_wmma.then(|| vec![Attribute { code: WMMA_USED, value: Value::Flag }]))
}

fn maxreg(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    if !is_entry(f) {
        return Ok(None);
    }
    let n = f.launch.max_registers.unwrap_or(0xff);
    Ok(one(code::MAXREG_COUNT, Value::Half(n as u16)))
}

fn externs(b: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    let mut syms = Vec::new();
    for c in f.callees.iter().filter(|c| b.m.externals.contains(c)) {
        syms.push(b.sym(c)?);
    }
    Ok(words(code::EXTERNS, &syms))
}

fn barriers(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok((f.barriers > 0).then(|| vec![Attribute { code: code::NUM_BARRIERS, value: Value::Byte(f.barriers as u8) }]))
}

fn annotations(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(f.notes.annotations.clone().map(|a| vec![Attribute { code: ANNOTATIONS, value: Value::Block(a) }]))
}

fn isa_version(b: &Builder<'_>, _: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(one(code::MERCURY_ISA_VERSION, Value::Half(b.arch.mercury_isa_version)))
}

fn int_warp_wide(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(words(INT_WARP_WIDE_INSTR_OFFSETS, &f.notes.int_warp_wide))
}

fn coop_masks(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    let w: Vec<u32> = f.notes.coop_group.iter().map(|c| c.1).collect();
    Ok(words(COOP_GROUP_MASK_REGIDS, &w))
}

fn coop_offsets(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    let w: Vec<u32> = f.notes.coop_group.iter().map(|c| c.0).collect();
    Ok(words(COOP_GROUP_INSTR_OFFSETS, &w))
}

fn vrc(b: &Builder<'_>, _: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(b.arch.vrc_cta_init.then(|| vec![Attribute { code: code::VRC_CTA_INIT_COUNT, value: Value::Byte(0) }]))
}

fn mbarrier_instrs(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(words(MBARRIER_INSTR_OFFSETS, &f.notes.mbarrier_instrs))
}

fn mbarriers(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(f.notes.mbarriers.and_then(|n| one(NUM_MBARRIERS, Value::Half(n))))
}

fn syscalls(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(words(SYSCALL_OFFSETS, &f.notes.syscalls))
}

fn exits(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    if !is_entry(f) {
        return Ok(None);
    }
    Ok(Some(vec![Attribute::words(code::EXIT_INSTR_OFFSETS, &f.exit_offsets)]))
}

fn ctaid_z(b: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok((f.notes.uses_ctaid_z && !b.arch.compat)
        .then(|| vec![Attribute { code: code::CTAIDZ_USED, value: Value::Flag }]))
}

fn threads(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    let mut v = Vec::new();
    if let Some(d) = f.launch.max_threads {
        v.push(Attribute::words(code::MAX_THREADS, &d));
    }
    if let Some(d) = f.launch.req_threads {
        v.push(Attribute::words(code::REQNTID, &d));
    }
    Ok((!v.is_empty()).then_some(v))
}

fn crs(_: &Builder<'_>, f: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(f.crs_stack_size.and_then(|c| words(code::CRS_STACK_SIZE, &[c])))
}

fn nvsal(_: &Builder<'_>, _: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(one(code::NVSAL_SW_WAR, Value::Half(1)))
}

fn preexit(_: &Builder<'_>, _: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(one(code::PREEXIT_USED, Value::Byte(0)))
}

fn attr_0x67(b: &Builder<'_>, _: &Function) -> Result<Option<Vec<Attribute>>> {
    Ok(if b.arch.attr_0x67 { one(code::ATTR_0X67, Value::Byte(0)) } else { None })
}

const EXPLICIT_CLUSTER: u8 = 0x3e;
const CTA_PER_CLUSTER: u8 = 0x3d;
const WMMA_USED: u8 = 0x2b;
const ANNOTATIONS: u8 = 0x55;
const INT_WARP_WIDE_INSTR_OFFSETS: u8 = 0x31;
const COOP_GROUP_MASK_REGIDS: u8 = 0x29;
const COOP_GROUP_INSTR_OFFSETS: u8 = 0x28;
const MBARRIER_INSTR_OFFSETS: u8 = 0x39;
const NUM_MBARRIERS: u8 = 0x38;
const SYSCALL_OFFSETS: u8 = 0x46;

/// Record order of `.nv.info.<fn>` on sm_7x/sm_8x (measured).
const ORDER_SM7X_8X: &[Slot] = &[
    (code::LANGUAGE, language),
    (code::SW_WAR, sw_war),
    (code::CUDA_API_VERSION, api_version),
    (code::SW2861232_WAR, sw2861232),
    (code::PARAM_CBANK, param_cbank),
    (code::CBANK_PARAM_SIZE, cbank_param_size),
    (code::KPARAM_INFO, kparam_info),
    (WMMA_USED, wmma),
    (code::MAXREG_COUNT, maxreg),
    (code::EXTERNS, externs),
    (code::NUM_BARRIERS, barriers),
    (code::MERCURY_ISA_VERSION, isa_version),
    (INT_WARP_WIDE_INSTR_OFFSETS, int_warp_wide),
    (COOP_GROUP_MASK_REGIDS, coop_masks),
    (COOP_GROUP_INSTR_OFFSETS, coop_offsets),
    (SYSCALL_OFFSETS, syscalls),
    (code::EXIT_INSTR_OFFSETS, exits),
    (code::CTAIDZ_USED, ctaid_z),
    (code::MAX_THREADS, threads),
    (code::CRS_STACK_SIZE, crs),
];

/// Record order of `.nv.info.<fn>` on sm_90+ (measured).
const ORDER_SM90: &[Slot] = &[
    (code::LANGUAGE, language),
    (code::CUDA_API_VERSION, api_version),
    (code::KPARAM_INFO, kparam_info),
    (EXPLICIT_CLUSTER, cluster),
    (code::SPARSE_MMA_MASK, sparse_mma),
    (WMMA_USED, wmma),
    (code::MAXREG_COUNT, maxreg),
    // One corpus kernel has both (sm_120): barriers first.
    (code::NUM_BARRIERS, barriers),
    (code::EXTERNS, externs),
    (ANNOTATIONS, annotations),
    (code::MERCURY_ISA_VERSION, isa_version),
    (INT_WARP_WIDE_INSTR_OFFSETS, int_warp_wide),
    (COOP_GROUP_MASK_REGIDS, coop_masks),
    (COOP_GROUP_INSTR_OFFSETS, coop_offsets),
    (code::VRC_CTA_INIT_COUNT, vrc),
    // One corpus kernel has syscalls and mbarriers (sm_120): syscalls first.
    (SYSCALL_OFFSETS, syscalls),
    (MBARRIER_INSTR_OFFSETS, mbarrier_instrs),
    (NUM_MBARRIERS, mbarriers),
    (code::EXIT_INSTR_OFFSETS, exits),
    (code::MAX_THREADS, threads),
    (code::CRS_STACK_SIZE, crs),
    (code::CBANK_PARAM_SIZE, cbank_param_size),
    (code::PARAM_CBANK, param_cbank),
    (code::SW_WAR, sw_war),
    (code::NVSAL_SW_WAR, nvsal),
    (code::PREEXIT_USED, preexit),
    (code::ATTR_0X67, attr_0x67),
];

/// The records of `.nv.info.<fn>`.
pub(super) fn function_records(b: &Builder<'_>, f: &Function) -> Result<Vec<Attribute>> {
    let order = if b.arch.compat { ORDER_SM90 } else { ORDER_SM7X_8X };
    let mut out = Vec::new();
    for (_, slot) in order {
        if let Some(recs) = slot(b, f)? {
            out.extend(recs);
        }
    }
    Ok(out)
}

fn sym_value(code: u8, sym: u32, value: u32) -> Attribute {
    Attribute::words(code, &[sym, value])
}

/// The records of `.nv.info`: per function, last function first, its
/// register count and frame sizes (with `-c` also its stack size); whole
/// programs end with every entry's minimum stack size.
pub(super) fn module_records(b: &Builder<'_>, functions: &[Function]) -> Result<Vec<Attribute>> {
    let mut out = Vec::new();
    let rel = b.rel();
    for f in functions.iter().rev() {
        let sym = b.sym(&f.name)?;
        out.push(sym_value(code::REGCOUNT, sym, f.registers));
        if rel {
            out.push(sym_value(code::MAX_STACK_SIZE, sym, f.stack_size));
        }
        for s in f.subroutines.iter().rev() {
            out.push(sym_value(code::FRAME_SIZE, b.sym(&s.name)?, s.frame_size));
        }
        out.push(sym_value(code::FRAME_SIZE, sym, f.frame_size));
    }
    if !rel {
        for f in functions.iter().filter(|f| is_entry(f)) {
            out.push(sym_value(code::MIN_STACK_SIZE, b.sym(&f.name)?, f.stack_size));
        }
    }
    Ok(out)
}

/// `.nv.compat` (sm_90+).
pub(super) fn compat_records(b: &Builder<'_>) -> Vec<Attribute> {
    let accel = b.m.target.accelerated;
    let mut out = vec![
        Attribute { code: 0x09, value: Value::Byte(accel.into()) },
        Attribute { code: 0x0c, value: Value::Byte(0) },
        Attribute { code: 0x02, value: Value::Byte(b.m.isa_class) },
        Attribute { code: 0x0d, value: Value::Half(b.arch.mercury_isa_version) },
    ];
    if b.arch.compat_attr_07 {
        out.push(Attribute { code: 0x07, value: Value::Half(0x101) });
    }
    let fastpath = b.arch.fastpath_finalize[usize::from(accel)];
    out.push(Attribute { code: 0x03, value: Value::Byte(0) });
    out.push(Attribute { code: 0x0b, value: Value::Block(fastpath.to_le_bytes().to_vec()) });
    out.push(Attribute { code: 0x0e, value: Value::Half(0x440) });
    out
}

/// The pointee bits of EIATTR_KPARAM_INFO's packed word for a `.ptr`
/// parameter: the space [11:8] and log2 of the alignment [7:0] (measured
/// with ptxas 13.5 on `.ptr` parameters of every space; cuobjdump names
/// them "Space" and "Pointee's logAlignment").
fn kparam_pointee(p: ori_ir::Pointee) -> u32 {
    use ori_ir::PointeeSpace;
    let space = match p.space {
        PointeeSpace::Local => 1,
        PointeeSpace::Shared => 2,
        PointeeSpace::Const => 3,
        PointeeSpace::Global => 4,
        PointeeSpace::Generic => 5,
    };
    (space << 8) | p.align.max(1).ilog2()
}
