//! Branch targets: between code addresses (in the bits) and Ori labels.

use std::collections::HashMap;

use ori_ir::{BlockId, Function, FunctionKind};

/// Maps branch targets between code addresses and labels.
pub trait Labels {
    /// The label of code address `addr` (created on first use).
    fn label_at(&mut self, addr: u64) -> BlockId;
    /// The code address of `label`.
    fn address_of(&self, label: BlockId) -> Option<u64>;
    /// How nvdisasm shows `label`: `` `(.L_x_3) `` in a cubin listing, the
    /// hex address in a raw (`-b`) listing.
    fn text_of(&self, label: BlockId) -> String;
}

/// Labels of one code section, one block per distinct target address.
pub struct CodeLabels {
    blocks: Function,
    by_addr: HashMap<u64, BlockId>,
    addr: HashMap<BlockId, u64>,
    names: HashMap<u64, String>,
}

impl CodeLabels {
    /// No labels yet; targets print as addresses.
    pub fn new() -> CodeLabels {
        CodeLabels {
            blocks: Function::new("", FunctionKind::Func),
            by_addr: HashMap::new(),
            addr: HashMap::new(),
            names: HashMap::new(),
        }
    }

    /// Names the label at `addr` (nvdisasm's `.L_x_N`).
    pub fn set_name(&mut self, addr: u64, name: impl Into<String>) {
        self.names.insert(addr, name.into());
    }
}

impl Default for CodeLabels {
    fn default() -> Self {
        CodeLabels::new()
    }
}

impl Labels for CodeLabels {
    fn label_at(&mut self, addr: u64) -> BlockId {
        if let Some(&b) = self.by_addr.get(&addr) {
            return b;
        }
        let b = self.blocks.add_block();
        self.by_addr.insert(addr, b);
        self.addr.insert(b, addr);
        b
    }

    fn address_of(&self, label: BlockId) -> Option<u64> {
        self.addr.get(&label).copied()
    }

    fn text_of(&self, label: BlockId) -> String {
        match self.addr.get(&label) {
            Some(a) => match self.names.get(a) {
                Some(name) => format!("`({name})"),
                // A raw listing spells a target before address 0 `-0x..`.
                None if (*a as i64) < 0 => format!("-0x{:x}", (*a as i64).unsigned_abs()),
                None => format!("0x{a:x}"),
            },
            None => "`(?)".into(),
        }
    }
}
