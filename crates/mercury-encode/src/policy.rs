//! sm_80's cache-policy descriptors. Every global access of sm_80 names
//! its 64-bit memory descriptor (`UR4`, from `c[0x0][0x118]`, at bits
//! 32..37), but one that takes an L2 cache policy of its own
//! (`.L2::cache_hint`) has bit 101 set as well, and nvdisasm prints the
//! descriptor only then: `LDG.E.EL R5, desc[UR4][R2.64]` (NVIDIA's words
//! `0x000ea2200c2e1900_0000000402057981` against `0x000ea8000c2e1900_...`
//! without a policy, for LDG, LD, STG, ST, ATOMG, ATOM, RED and LDGSTS;
//! nvdisasm 13.5). sm_90 prints every descriptor and has no such bit.
//! Ori keeps it as [`Address::policy`]; the forms are those without it.

use ori_ir::{Address, Inst, OperandKind};

use crate::Sm;

/// Bit 101 in the high word.
const MARK: u64 = 1 << (101 - 64);

/// The opcodes (bits 0..11) whose words carry the mark: LD, LDG, ST, STG,
/// ATOM, RED, ATOMG, LDGSTS.
const OPCODES: [u16; 8] = [0x980, 0x981, 0x985, 0x986, 0x98a, 0x98e, 0x9a8, 0xfae];

/// True when `sm` has the mark at all.
fn marks(sm: Sm) -> bool {
    sm.base() == Sm::Sm80
}

/// The address of `inst` whose descriptor is a cache policy.
fn policy_address(inst: &Inst) -> Option<&Address> {
    inst.uses.iter().find_map(|u| match &u.kind {
        OperandKind::Mem(a) if a.policy && a.desc.is_some() => Some(a),
        _ => None,
    })
}

/// `bits` of `inst` with the mark set where `inst` takes a policy.
pub(crate) fn with_mark(sm: Sm, inst: &Inst, mut bits: [u64; 2]) -> [u64; 2] {
    if marks(sm) && policy_address(inst).is_some() {
        bits[1] |= MARK;
    }
    bits
}

/// `bits` without the mark, when it is set on an access that has it.
pub(crate) fn without_mark(sm: Sm, bits: [u64; 2]) -> Option<[u64; 2]> {
    let opcode = (bits[0] & 0xfff) as u16;
    (marks(sm) && bits[1] & MARK != 0 && OPCODES.contains(&opcode)).then_some([bits[0], bits[1] & !MARK])
}

/// Marks the descriptor of `inst`'s address as a cache policy (a word
/// decoded [`without_mark`]); `false` when it has none.
pub(crate) fn mark(inst: &mut Inst) -> bool {
    let addr = inst.uses.iter_mut().find_map(|u| match &mut u.kind {
        OperandKind::Mem(a) if a.desc.is_some() => Some(a),
        _ => None,
    });
    addr.map(|a| a.policy = true).is_some()
}

/// True when the descriptor of address operand `op` prints on `sm`.
pub(crate) fn prints_desc(sm: Sm, op: &ori_ir::Operand) -> bool {
    !marks(sm) || matches!(&op.kind, OperandKind::Mem(a) if a.policy)
}
