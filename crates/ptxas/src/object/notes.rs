//! Instruction lists the driver reads from `.nv.info.<fn>` that the code
//! itself determines: warp-synchronous instructions
//! (EIATTR_COOP_GROUP_INSTR_OFFSETS / _MASK_REGIDS) and, on sm_90+, the
//! shared-memory addresses ptxas relocates and then resolves itself (they
//! leave an empty `.rela.text.<fn>`).

use ori_ir::object::CodeRelocation;
use ori_ir::{Function, Imm, Inst, Opcode, OperandKind, RegFile, SpecialReg};

/// The mask word NVIDIA's ptxas 13.5 records for an immediate full member
/// mask (`-1`). A partial or register mask gets `0x05000000 | R` of the
/// register holding it (probe: `shfl.sync ..., %r` with the mask in R9 ->
/// 0x05000009; mask 0xffff materialised in R7 -> 0x05000007); the lowering
/// accepts full masks only, so every entry here is this one.
const FULL_MASK: u32 = 0xffff_ffff;

/// Opcodes of PTX's `.sync` warp instructions that take a member mask
/// (`shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`): NVIDIA lists
/// every one (warp_vote: all SHFL, VOTE and MATCH; probe: REDUX), but not
/// the `WARPSYNC.ALL`/`BSYNC` it adds to reconverge, nor `VOTEU`.
const MASKED_WARP_OPS: &[Opcode] = &[Opcode::SHFL, Opcode::VOTE, Opcode::MATCH, Opcode::REDUX];

/// R_CUDA_ABS32_32: a 32-bit absolute shared-memory address in an
/// instruction (oracle-facts 5.2).
const R_CUDA_ABS32_32: u32 = 55;

/// The byte offset and member-mask word of each warp-synchronous
/// instruction of `func`, in code order.
pub(super) fn coop_group(func: &Function) -> Vec<(u32, u32)> {
    func.insts_in_order()
        .enumerate()
        .filter(|(_, (_, _, inst))| MASKED_WARP_OPS.contains(&inst.op) && !is_activemask(inst))
        .map(|(index, _)| (16 * index as u32, FULL_MASK))
        .collect()
}

/// `activemask` lowers to a ballot of `PT` (ptx-lower ops/warp.rs); it has
/// no member mask and NVIDIA does not list it (probe: its `VOTEU.ANY`).
fn is_activemask(inst: &Inst) -> bool {
    inst.op == Opcode::VOTE && matches!(inst.uses.as_slice(), [u] if u.as_reg().is_some_and(|r| r.is_zero()))
}

/// The shared-memory addresses in `func`'s sm_90+ code, as relocations of
/// the instruction holding the offset against the function's
/// `.nv.shared.<fn>` section. The lowering forms each address as
/// `S2UR a, SR_CgaCtaId; UMOV b, offset; ULEA c, a, b, 0x18` (ptx-lower
/// `shared_address`); NVIDIA relocates the `UMOV` (R_CUDA_ABS32_32
/// against the variable, with `-c`) and keeps an empty `.rela.text.<fn>`
/// in whole programs. Before sm_90 the offset sits in the memory
/// instruction itself and whole programs keep no trace of it, so nothing
/// is looked for there.
pub(super) fn shared_address_relocations(func: &Function) -> Vec<CodeRelocation> {
    let mut out = Vec::new();
    // What last wrote each uniform register in the current block.
    let mut last: std::collections::HashMap<u32, Written> = Default::default();
    let mut block = None;
    for (index, (b, _, inst)) in func.insts_in_order().enumerate() {
        if block != Some(b) {
            last.clear();
            block = Some(b);
        }
        if inst.op == Opcode::ULEA
            && let [a, off, shift] = inst.uses.as_slice()
            && shift.kind == OperandKind::Imm(Imm::Int(0x18))
            && let (Some(a), Some(off)) = (a.as_reg(), off.as_reg())
            && last.get(&a.num) == Some(&Written::CgaCtaId)
            && let Some(&Written::Offset { at, value }) = last.get(&off.num)
        {
            out.push(CodeRelocation {
                offset: at,
                kind: R_CUDA_ABS32_32,
                symbol: format!(".nv.shared.{}", func.name),
                addend: value,
            });
        }
        for reg in inst.written_regs().filter(|r| r.file == RegFile::UR) {
            let written = match (inst.op, inst.uses.first().map(|u| &u.kind)) {
                (Opcode::S2UR, Some(OperandKind::Special(SpecialReg::CgaCtaId))) => Written::CgaCtaId,
                (Opcode::UMOV, Some(OperandKind::Imm(Imm::Int(v)))) if inst.guard.is_none() => {
                    Written::Offset { at: 16 * index as u64, value: *v }
                }
                _ => Written::Other,
            };
            for k in 0..u32::from(reg.width) {
                last.insert(reg.num + k, if k == 0 { written } else { Written::Other });
            }
        }
    }
    out
}

/// What an instruction wrote to a uniform register.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Written {
    /// The CTA's id in its cluster.
    CgaCtaId,
    /// An immediate, by the instruction at byte offset `at`.
    Offset { at: u64, value: i64 },
    /// Anything else.
    Other,
}
