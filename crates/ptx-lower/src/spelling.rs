//! Per-generation spellings of the same instruction: the modifiers a SASS
//! generation writes where another writes none (Turing's `LDG.E.SYS` for
//! Ampere's `LDG.E`, `LDS.U`, `NANOSLEEP.WARP`, Ampere's
//! `BAR.SYNC.DEFER_BLOCKING` for Turing's `BAR.SYNC`, Blackwell's `LDCU`
//! for `ULDC`, sm_120's `VIMNMX.S32` for `VIMNMX`). The lowering writes
//! the Ampere-and-later spelling; this pass rewrites a function into its
//! target's, as the ISA facts ([`ori_ir::Isa`]) say.

use ori_ir::{Function, Isa, Modifier, Opcode};

/// Rewrites every instruction of `func` into `isa`'s spelling.
pub(crate) fn respell(func: &mut Function, isa: &Isa) {
    let word = |name: &str| Modifier::from_name(name).expect("a modifier the table has");
    let (sys, u, warp, defer) = (word("SYS"), word("U"), word("WARP"), word("DEFER_BLOCKING"));
    let strong = word("STRONG");
    let (u32, s32) = (word("U32"), word("S32"));
    for (_, inst) in func.insts.iter_mut() {
        match inst.op {
            Opcode::LDG | Opcode::STG | Opcode::LD | Opcode::ST
                if isa.weak_sys && !inst.mods.contains(&strong) && !inst.mods.contains(&sys) =>
            {
                inst.mods.push(sys);
            }
            Opcode::LDS if isa.lds_u && !inst.mods.contains(&u) => inst.mods.insert(0, u),
            Opcode::BAR if !isa.bar_defer_blocking => inst.mods.retain(|&m| m != defer),
            Opcode::ULDC => inst.op = isa.uniform_const_load,
            Opcode::VIMNMX if isa.minmax_s32 && !inst.mods.contains(&u32) && !inst.mods.contains(&s32) => {
                inst.mods.insert(0, s32)
            }
            Opcode::NANOSLEEP if isa.nanosleep_warp && !inst.mods.contains(&warp) => inst.mods.push(warp),
            _ => {}
        }
    }
}
