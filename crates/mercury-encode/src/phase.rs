//! The encoding phase, and a function's code as ptxas lays it out.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use la_arena::Arena;
use ori_ir::{
    BlockId, Ctrl, Function, Inst, InstId, Opcode, Operand, OperandKind, Phase, PhaseContext, PhaseError, Property,
    PropertySet,
};

use crate::{Labels, Sm, decode, encode};

/// Every phase of this crate, for the driver's registry.
pub fn phases() -> Vec<Box<dyn Phase>> {
    vec![Box::new(MercEncodeAndDecode)]
}

/// Encodes every instruction and decodes each word back, re-encoding the
/// result: a word that does not survive the round trip is a bug in the
/// tables, caught here instead of on the GPU.
pub struct MercEncodeAndDecode;

impl Phase for MercEncodeAndDecode {
    fn name(&self) -> &'static str {
        "MercEncodeAndDecode"
    }

    fn description(&self) -> &'static str {
        "encode every instruction to SASS, checking that each word decodes and re-encodes to itself"
    }

    fn requires(&self) -> PropertySet {
        PropertySet::of(&[Property::PhysicalRegs, Property::Scheduled])
    }

    fn establishes(&self) -> PropertySet {
        PropertySet::of(&[Property::Encoded])
    }

    fn run(&self, func: &mut Function, cx: &PhaseContext<'_>) -> Result<(), PhaseError> {
        let sm = Sm::from_number(cx.target.sm.version.into()).ok_or_else(|| {
            PhaseError::in_function(
                func,
                format!(
                    "no SASS encoding for {} yet (sm_75 to sm_90, sm_100, sm_103, sm_107, sm_110, sm_120, sm_121)",
                    cx.target.sm
                ),
            )
        })?;
        let mut addresses = BlockAddresses::of(func);
        let order: Vec<_> = func.insts_in_order().map(|(_, id, _)| id).collect();
        let mut done = SameWords::default();
        for (index, id) in order.into_iter().enumerate() {
            let addr = 16 * index as u64;
            let inst = &func.insts[id];
            let key = SameWords::key(inst);
            if let Some(bits) = key.and_then(|k| done.find(k, inst, &func.insts)) {
                func.insts[id].encoding = Some(bits);
                continue;
            }
            let bits = encode(sm, inst, addr, &addresses).map_err(|e| PhaseError::in_function(func, e.to_string()))?;
            let again = decode(sm, bits, addr, &mut addresses)
                .and_then(|decoded| encode(sm, &decoded, addr, &addresses))
                .map_err(|e| PhaseError::in_function(func, format!("{e} (decoding our own word at 0x{addr:x})")))?;
            if again != bits {
                return Err(PhaseError::in_function(
                    func,
                    format!("the word at 0x{addr:x} does not survive decode and re-encode"),
                ));
            }
            func.insts[id].encoding = Some(bits);
            if let Some(k) = key {
                done.insert(k, id, bits);
            }
        }
        Ok(())
    }
}

/// The instructions of a function already encoded and checked, by a hash
/// of everything their word depends on. Unrolled code repeats a few
/// instructions many times (21,552 instructions, 1,307 distinct words in
/// large_unroll), and encoding plus the decode round trip is a pure
/// function of the instruction where it names no block: only a label's
/// word depends on the address (a relative offset) and on the layout. An
/// instruction equal to an earlier one in opcode, modifiers, guard,
/// operands and control word gets that one's word without encoding it
/// again, and so without checking again what was checked already.
#[derive(Default)]
struct SameWords {
    by_hash: ori_ir::FxHashMap<u64, Vec<(InstId, [u64; 2])>>,
}

impl SameWords {
    /// The hash of what `inst`'s word depends on; `None` for an
    /// instruction naming a block, whose word depends on its address.
    fn key(inst: &Inst) -> Option<u64> {
        let names_block = |o: &Operand| matches!(o.kind, OperandKind::Label(_));
        if inst.uses.iter().chain(&inst.defs).any(names_block) {
            return None;
        }
        let mut h = ori_ir::FxHasher::default();
        (inst.op, &inst.mods, inst.guard, &inst.defs, &inst.uses, inst.ctrl).hash(&mut h);
        Some(h.finish())
    }

    fn same_word(a: &Inst, b: &Inst) -> bool {
        a.op == b.op
            && a.mods == b.mods
            && a.guard == b.guard
            && a.defs == b.defs
            && a.uses == b.uses
            && a.ctrl == b.ctrl
    }

    fn find(&self, key: u64, inst: &Inst, insts: &Arena<Inst>) -> Option<[u64; 2]> {
        let earlier = self.by_hash.get(&key)?;
        earlier.iter().find(|(id, _)| Self::same_word(&insts[*id], inst)).map(|&(_, bits)| bits)
    }

    fn insert(&mut self, key: u64, id: InstId, bits: [u64; 2]) {
        self.by_hash.entry(key).or_default().push((id, bits));
    }
}

/// Block start addresses of a function, its instructions 16 bytes apart in
/// layout order.
struct BlockAddresses {
    addr: HashMap<BlockId, u64>,
    by_addr: HashMap<u64, BlockId>,
    /// Arena size of the function: labels made while decoding start here.
    blocks: usize,
}

impl BlockAddresses {
    fn of(func: &Function) -> BlockAddresses {
        let mut addr = HashMap::new();
        let mut by_addr = HashMap::new();
        let mut next = 0;
        for &block in &func.layout {
            addr.insert(block, next);
            by_addr.entry(next).or_insert(block);
            next += 16 * func.blocks[block].insts.len() as u64;
        }
        BlockAddresses { addr, by_addr, blocks: func.blocks.len() }
    }
}

impl Labels for BlockAddresses {
    fn label_at(&mut self, addr: u64) -> BlockId {
        if let Some(&b) = self.by_addr.get(&addr) {
            return b;
        }
        // A target that starts no block (a bad encoding): a fresh label
        // past the function's blocks, so it cannot alias one of them.
        let b = BlockId::from_raw(la_arena::RawIdx::from((self.blocks + self.by_addr.len()) as u32));
        self.by_addr.insert(addr, b);
        self.addr.insert(b, addr);
        b
    }

    fn address_of(&self, label: BlockId) -> Option<u64> {
        self.addr.get(&label).copied()
    }

    fn text_of(&self, label: BlockId) -> String {
        self.addr.get(&label).map_or_else(|| "`(?)".into(), |a| format!("0x{a:x}"))
    }
}

/// ptxas aligns every function's code to 128 bytes.
const CODE_ALIGN: usize = 128;

/// The control word ptxas gives its padding (`BRA` to itself, `NOP`s):
/// stall 0, nothing else (hi word 0x000fc000... in its cubins).
const PADDING_CTRL: Ctrl = Ctrl { stall: 0, yield_: false, write_sb: None, read_sb: None, wait: 0 };

/// The code of an encoded function as ptxas lays it out: the instructions,
/// then a branch to itself (so that a warp running past the end spins
/// instead of executing garbage) unless the code already ends with one,
/// then `NOP`s up to a multiple of 128 bytes.
pub fn code_bytes(sm: Sm, func: &Function) -> Result<Vec<u8>, crate::Error> {
    let mut code = Vec::with_capacity(16 * func.inst_count() + CODE_ALIGN);
    let mut last = None;
    for (block, _, inst) in func.insts_in_order() {
        let [lo, hi] =
            inst.encoding.ok_or_else(|| crate::Error::Unsupported("an instruction without encoding".into()))?;
        code.extend_from_slice(&lo.to_le_bytes());
        code.extend_from_slice(&hi.to_le_bytes());
        last = Some((block, inst));
    }
    let ends_in_self_loop = last.is_some_and(|(block, inst)| {
        inst.op == Opcode::BRA
            && inst.guard.is_none()
            && inst.uses.first() == Some(&Operand::label(block))
            && func.blocks[block].insts.len() == 1
    });
    let mut padding = Function::new("", ori_ir::FunctionKind::Func);
    let here = padding.add_block();
    let labels = SelfLabel { block: here, addr: code.len() as u64 };
    if !ends_in_self_loop {
        let mut bra = Inst::new(Opcode::BRA, Vec::new(), vec![Operand::label(here)]);
        bra.ctrl = Some(PADDING_CTRL);
        push(&mut code, encode(sm, &bra, labels.addr, &labels)?);
    }
    let mut nop = Inst::new(Opcode::NOP, Vec::new(), Vec::new());
    nop.ctrl = Some(PADDING_CTRL);
    while !code.len().is_multiple_of(CODE_ALIGN) {
        let addr = code.len() as u64;
        push(&mut code, encode(sm, &nop, addr, &labels)?);
    }
    Ok(code)
}

fn push(code: &mut Vec<u8>, [lo, hi]: [u64; 2]) {
    code.extend_from_slice(&lo.to_le_bytes());
    code.extend_from_slice(&hi.to_le_bytes());
}

/// The one label of the padding: the self-branch's own address.
struct SelfLabel {
    block: BlockId,
    addr: u64,
}

impl Labels for SelfLabel {
    fn label_at(&mut self, _addr: u64) -> BlockId {
        self.block
    }

    fn address_of(&self, label: BlockId) -> Option<u64> {
        (label == self.block).then_some(self.addr)
    }

    fn text_of(&self, _label: BlockId) -> String {
        format!("0x{:x}", self.addr)
    }
}
