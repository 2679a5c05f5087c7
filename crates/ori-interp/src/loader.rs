//! Turns a kernel of a cubin into a runnable Ori function.

use std::collections::BTreeMap;

use elfw::nvinfo::{KParamInfo, Value, code};
use mercury_encode::Labels;
use ori_ir::{BlockId, Function, FunctionKind, Inst, ParamSlot};

use crate::Error;

/// A kernel read from a cubin: its code as one Ori function (blocks start at
/// branch targets) plus what a launch needs to know of the cubin.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The decoded function; `attrs.params` come from `EIATTR_KPARAM_INFO`.
    pub func: Function,
    /// The SM number of the cubin (80, 90, ...).
    pub sm: u32,
    /// Bytes of static shared memory (`.nv.shared.<kernel>`).
    pub static_shared: u32,
    /// Initial contents of the module's constant banks other than the
    /// parameter bank (`.nv.constant3`: `__constant__` data).
    pub banks: Vec<(u8, Vec<u8>)>,
    /// `__constant__` symbols: name, bank, byte offset.
    pub constant_symbols: Vec<(String, u8, u32)>,
    /// `__device__` variables and the address table of constant bank 4.
    pub statics: crate::Statics,
}

impl Kernel {
    /// The bank and offset of `__constant__` symbol `name`.
    pub fn constant_symbol(&self, name: &str) -> Option<(u8, u32)> {
        self.constant_symbols.iter().find(|s| s.0 == name).map(|s| (s.1, s.2))
    }
}

/// The bank number of a constant section the kernel `entry` sees: module
/// wide (`.nv.constant3`) or its own (`.nv.constant2.<entry>`: ptxas's
/// literal pool on sm_8x); bank 0 is built per launch.
fn bank_of(section: &str, entry: &str) -> Option<u8> {
    let rest = section.strip_prefix(".nv.constant")?;
    let (num, owner) = rest.split_once('.').map_or((rest, None), |(n, o)| (n, Some(o)));
    let bank: u8 = num.parse().ok()?;
    (bank != 0 && owner.is_none_or(|o| o == entry)).then_some(bank)
}

/// Loads kernel `name` from the cubin `bytes`.
pub fn load_kernel(bytes: &[u8], name: &str) -> Result<Kernel, Error> {
    let cubin = elfw::read(bytes).map_err(|e| Error::Load(format!("reading the cubin: {e}")))?;
    let sm = cubin.header.eflags().sm();
    let family = mercury_encode::Sm::with_tables(sm).ok_or_else(|| Error::Load(format!("sm_{sm} has no decoder")))?;
    let (text, _) = cubin
        .section(&format!(".text.{name}"))
        .filter(|(_, s)| s.bytes().is_some())
        .ok_or_else(|| Error::Load(format!("no .text.{name} in the cubin")))?;
    // With its callees when the driver would link them (crate::link).
    let text = crate::link::image(&cubin, text)?;
    let mut func = decode_code(family, &text, name)?;
    if let Some(attrs) = cubin.section(&format!(".nv.info.{name}")).and_then(|(_, s)| s.attributes()) {
        func.attrs.params = params(attrs);
        func.attrs.cluster_dims = cluster_dims(attrs);
    }
    let static_shared = cubin.section(&format!(".nv.shared.{name}")).map_or(0, |(_, s)| s.size() as u32);
    let banks: Vec<(u8, Vec<u8>)> = cubin
        .sections
        .iter()
        .filter_map(|s| {
            Some((bank_of(&s.name, name)?, s.bytes().map_or_else(|| vec![0; s.size() as usize], <[u8]>::to_vec)))
        })
        .collect();
    let constant_symbols = cubin
        .symbols()
        .iter()
        .filter_map(|sym| {
            let bank = bank_of(&cubin.sections.get(usize::from(sym.shndx))?.name, name)?;
            // STT_OBJECT: the variables, not the section symbol.
            (sym.kind() == 1).then(|| (sym.name.clone(), bank, sym.value as u32))
        })
        .collect();
    let statics = statics(&cubin, bytes);
    Ok(Kernel { func, sm, static_shared, banks, constant_symbols, statics })
}

/// The cubin's `.global` variables (symbols of `.nv.global[.init]`, their
/// initial bytes and pointer relocations) and the address table its
/// `.nv.constant4` relocations describe.
fn statics(cubin: &elfw::Cubin, bytes: &[u8]) -> crate::Statics {
    use elfw::section::SectionData;
    let symbols = cubin.symbols();
    let relocations = |section: &str| -> Vec<(u64, String, i64)> {
        let Some((_, s)) = [".rela", ".rel"].iter().find_map(|p| cubin.section(&format!("{p}{section}"))) else {
            return Vec::new();
        };
        let name = |sym: u32| symbols.get(sym as usize).map_or(String::new(), |s| s.name.clone());
        match &s.data {
            SectionData::Rela(list) => list.iter().map(|r| (r.offset, name(r.sym), r.addend)).collect(),
            SectionData::Rel(list) => list.iter().map(|r| (r.offset, name(r.sym), 0)).collect(),
            _ => Vec::new(),
        }
    };
    let init = cubin.section(".nv.global.init");
    let zeroed = cubin.section(".nv.global");
    let pointers = relocations(".nv.global.init");
    let mut variables = Vec::new();
    for sym in symbols.iter().filter(|s| s.kind() == 1) {
        let section = usize::from(sym.shndx);
        let bytes = match (init, zeroed) {
            (Some((i, s)), _) if i == section => {
                s.bytes().map(|b| b[sym.value as usize..(sym.value + sym.size) as usize].to_vec())
            }
            (_, Some((z, _))) if z == section => None,
            _ => continue,
        };
        let in_init = bytes.is_some();
        let inside = |off: u64| off >= sym.value && off < sym.value + sym.size;
        variables.push(ori_ir::Variable {
            name: sym.name.clone(),
            space: ori_ir::VarSpace::Global,
            visible: sym.bind() != 0,
            offset: sym.value,
            size: sym.size,
            align: 1,
            init: bytes,
            pointers: pointers
                .iter()
                .filter(|p| in_init && inside(p.0))
                .map(|p| ori_ir::PointerInit { offset: p.0 - sym.value, target: p.1.clone(), addend: p.2 })
                .collect(),
        });
    }
    let address_slots = relocations(".nv.constant4").into_iter().map(|(off, name, _)| (off as u32, name)).collect();
    // Kernels loaded from the same cubin share its variables.
    let mut hasher = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(bytes, &mut hasher);
    crate::Statics { variables, address_slots, origin: std::hash::Hasher::finish(&hasher) }
}

/// Parameter slots from `EIATTR_KPARAM_INFO` records (listed last to first).
fn params(attrs: &[elfw::nvinfo::Attribute]) -> Vec<ParamSlot> {
    let mut slots: Vec<(u16, ParamSlot)> = attrs
        .iter()
        .filter(|a| a.code == code::KPARAM_INFO)
        .filter_map(|a| match &a.value {
            Value::Block(b) => KParamInfo::decode(b),
            _ => None,
        })
        .map(|p| (p.ordinal, ParamSlot { offset: u32::from(p.offset), size: p.size(), pointee: None }))
        .collect();
    slots.sort_by_key(|s| s.0);
    slots.into_iter().map(|s| s.1).collect()
}

/// The cluster shape of `EIATTR_CTA_PER_CLUSTER` (`.reqnctapercluster`).
fn cluster_dims(attrs: &[elfw::nvinfo::Attribute]) -> Option<[u32; 3]> {
    const CTA_PER_CLUSTER: u8 = 0x3d;
    attrs.iter().find(|a| a.code == CTA_PER_CLUSTER).and_then(|a| match &a.value {
        Value::Block(b) if b.len() == 12 => {
            let w = |i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
            Some([w(0), w(1), w(2)])
        }
        _ => None,
    })
}

/// Branch targets as blocks of the function being built.
struct Targets<'a> {
    func: &'a mut Function,
    at: BTreeMap<u64, BlockId>,
}

impl Labels for Targets<'_> {
    fn label_at(&mut self, addr: u64) -> BlockId {
        let func = &mut *self.func;
        *self.at.entry(addr).or_insert_with(|| func.blocks.alloc(Default::default()))
    }

    fn address_of(&self, label: BlockId) -> Option<u64> {
        self.at.iter().find(|e| *e.1 == label).map(|e| *e.0)
    }

    fn text_of(&self, label: BlockId) -> String {
        self.address_of(label).map_or_else(|| "?".into(), |a| format!("{a:#x}"))
    }
}

/// Decodes a code section into one function, a block per branch target
/// (and one at address 0), in address order.
pub fn decode_code(sm: mercury_encode::Sm, text: &[u8], name: &str) -> Result<Function, Error> {
    let mut func = Function::new(name, FunctionKind::Entry);
    let mut insts: Vec<(u64, Inst)> = Vec::with_capacity(text.len() / 16);
    let mut targets = Targets { func: &mut func, at: BTreeMap::new() };
    targets.label_at(0);
    for (i, word) in text.chunks_exact(16).enumerate() {
        let lo = crate::memory::load_le(&word[..8]);
        let hi = crate::memory::load_le(&word[8..]);
        let addr = i as u64 * 16;
        let inst = mercury_encode::decode(sm, [lo, hi], addr, &mut targets)
            .map_err(|e| Error::Load(format!("{name}+{addr:#x}: {e}")))?;
        insts.push((addr, inst));
    }
    let starts: Vec<(u64, BlockId)> = targets.at.into_iter().collect();
    for (k, &(start, block)) in starts.iter().enumerate() {
        func.layout.push(block);
        let end = starts.get(k + 1).map_or(u64::MAX, |s| s.0);
        for (addr, inst) in insts.iter().filter(|(a, _)| (start..end).contains(a)) {
            debug_assert!(*addr >= start);
            let id = func.insts.alloc(inst.clone());
            func.blocks[block].insts.push(id);
        }
    }
    Ok(func)
}
