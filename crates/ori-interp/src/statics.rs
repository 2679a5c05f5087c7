//! Module-scope variables at run time: `.global` ones placed in global
//! memory (their initial bytes, with pointer words patched to the
//! addresses they name), `.const` ones as constant bank 3, and the table of
//! global addresses that whole-program code reads from constant bank 4.
//!
//! Works for an Ori module (its `variables`, slots by
//! `Module::address_slot`) and for a cubin (the same description read back
//! from `.nv.global[.init]`, `.nv.constant4` and their relocations).

use ori_ir::{VarSpace, Variable};

use crate::memory::{Global, PlacedModule};

/// What a module's variables need at launch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Statics {
    /// The module's variables.
    pub variables: Vec<Variable>,
    /// Constant bank 4: byte offset of each 64-bit address, and whose.
    pub address_slots: Vec<(u32, String)>,
    /// Which module: a hash of the cubin's bytes for a cubin's variables,
    /// 0 for an Ori module's (there the variables tell modules apart).
    pub origin: u64,
}

impl Statics {
    /// The variables of `module` and its address table.
    pub fn of_module(module: &ori_ir::Module) -> Statics {
        let names = module.externals.iter().chain(module.variables.iter().map(|v| &v.name));
        let address_slots = names.filter_map(|n| Some((module.address_slot(n)?, n.clone()))).collect();
        Statics { variables: module.variables.clone(), address_slots, origin: 0 }
    }

    /// True when there is nothing to place.
    pub fn is_empty(&self) -> bool {
        self.variables.is_empty()
    }

    /// Places the `.global` variables in `global`, the first time this
    /// module runs there, and returns the constant banks they and the
    /// `.const` ones fill: bank 3 (when a `.const` variable exists) and
    /// bank 4 (when the table has slots). Later launches of the module's
    /// kernels (equal `Statics`) on the same `global` get the same
    /// variables, with the values earlier launches left, as on CUDA.
    pub fn place(&self, global: &mut Global) -> Vec<(u8, Vec<u8>)> {
        if let Some(placed) = global.modules.iter().find(|m| m.statics == *self) {
            return placed.banks.clone();
        }
        let banks = self.place_fresh(global);
        global.modules.push(PlacedModule { statics: self.clone(), banks: banks.clone() });
        banks
    }

    /// Allocates and initialises the variables; the banks they need.
    fn place_fresh(&self, global: &mut Global) -> Vec<(u8, Vec<u8>)> {
        let mut addresses: Vec<(&str, u64)> = Vec::new();
        for v in self.variables.iter().filter(|v| v.space == VarSpace::Global) {
            let bytes = v.init.clone().unwrap_or_else(|| vec![0; v.size as usize]);
            addresses.push((&v.name, global.alloc(bytes)));
        }
        let address_of =
            |name: &str| addresses.iter().find(|a| a.0 == name).map(|a| a.1).or_else(|| crate::external_address(name));
        for v in self.variables.iter().filter(|v| v.space == VarSpace::Global) {
            let Some(at) = address_of(&v.name) else { continue };
            for p in &v.pointers {
                let Some(target) = address_of(&p.target) else { continue };
                if let Some(word) = global.slice_mut(at + p.offset, 8) {
                    word.copy_from_slice(&target.wrapping_add_signed(p.addend).to_le_bytes());
                }
            }
        }
        let mut banks = Vec::new();
        let consts: Vec<&Variable> = self.variables.iter().filter(|v| v.space == VarSpace::Const).collect();
        if !consts.is_empty() {
            let size = consts.iter().map(|v| v.offset + v.size).max().unwrap_or(0) as usize;
            let mut bank = vec![0u8; size];
            for v in consts {
                if let Some(init) = &v.init {
                    bank[v.offset as usize..(v.offset + v.size) as usize].copy_from_slice(init);
                }
            }
            banks.push((3, bank));
        }
        if !self.address_slots.is_empty() {
            let size = self.address_slots.iter().map(|s| s.0 as usize + 8).max().unwrap_or(0);
            let mut bank = vec![0u8; size];
            for (slot, name) in &self.address_slots {
                let at = address_of(name).unwrap_or(0);
                bank[*slot as usize..*slot as usize + 8].copy_from_slice(&at.to_le_bytes());
            }
            banks.push((4, bank));
        }
        banks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globals_get_addresses_and_pointers_are_patched() {
        let module = ori_ir::text::parse_module(
            ".target sm_90\n.props VirtualRegs\n\
             .const c @0x4, 4, 4 = 0x07000000\n\
             .global table @0x0, 8, 4 = 0x0100000002000000\n\
             .global ptr @0x8, 8, 8 = 0x0000000000000000 ptr 0x0 table+0x4\n",
        )
        .unwrap();
        let statics = Statics::of_module(&module);
        let mut global = Global::new();
        let banks = statics.place(&mut global);
        assert_eq!(banks[0], (3, vec![0, 0, 0, 0, 7, 0, 0, 0]));
        let (4, table) = &banks[1] else { panic!("bank 4 expected") };
        let table_at = u64::from_le_bytes(table[0..8].try_into().unwrap());
        let ptr_at = u64::from_le_bytes(table[8..16].try_into().unwrap());
        assert_eq!(global.buffer(table_at).unwrap(), &[1, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(global.buffer(ptr_at).unwrap(), &(table_at + 4).to_le_bytes());
    }

    #[test]
    fn a_module_is_placed_once_per_global() {
        let module =
            ori_ir::text::parse_module(".target sm_90\n.props VirtualRegs\n.global n @0x0, 4, 4 = 0x05000000\n")
                .unwrap();
        let statics = Statics::of_module(&module);
        let mut global = Global::new();
        let banks = statics.place(&mut global);
        let at = u64::from_le_bytes(banks[0].1[0..8].try_into().unwrap());
        global.slice_mut(at, 4).unwrap().copy_from_slice(&[9, 0, 0, 0]);
        assert_eq!(statics.place(&mut global), banks, "the same variables again");
        assert_eq!(global.buffer(at).unwrap(), &[9, 0, 0, 0], "with the value the last launch left");
        let other = Statics { origin: 1, ..statics.clone() };
        let other_banks = other.place(&mut global);
        assert_ne!(other_banks, banks, "another module with the same variables gets its own");
    }
}
