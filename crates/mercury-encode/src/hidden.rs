//! Operands nvdisasm leaves out when they are zero: the thread count of
//! `BAR.SYNC R93` (`BAR.SYNC R93, 0x2` otherwise), the offset of `CALL.ABS
//! R4`, `BPT.TRAP`'s code, an adder's `PT` carry-out. The generated
//! `HIDDEN` tables (`tools/learn_hidden.py`: each bare immediate and
//! predicate operand of every probed form set to zero, `PT`, `UPT` and
//! listed again) say where, by opcode and operand skeletons.

use std::collections::HashSet;
use std::sync::OnceLock;

use crate::Sm;

/// An operand of an opcode's operand shape that nvdisasm leaves out at
/// its zero value (`0x0` for `{X}`, `PT`/`UPT` for `{P}`/`{UP}`).
#[derive(Copy, Clone, Debug)]
pub struct Hidden {
    /// The opcode (first word of the mnemonic).
    pub opcode: &'static str,
    /// The operand skeletons without marks, hidden operand included.
    pub operands: &'static [&'static str],
    /// Index of the hidden operand in `operands`.
    pub operand: u8,
}

fn rows(sm: Sm) -> &'static [Hidden] {
    match sm.base() {
        Sm::Sm75 => crate::tables::sm75::HIDDEN,
        Sm::Sm80 => crate::tables::sm80::HIDDEN,
        Sm::Sm90 => crate::tables::sm90::HIDDEN,
        Sm::Sm100 => crate::tables::sm100::HIDDEN,
        _ => crate::tables::sm120::HIDDEN,
    }
}

/// Whether operand `k` of an instruction of `opcode` whose operands have
/// these unmarked skeletons is left out when it is zero.
pub(crate) fn is_hidden(sm: Sm, opcode: &str, skeletons: &[&str], k: usize) -> bool {
    static CELLS: [OnceLock<HashSet<(&str, Vec<&str>, u8)>>; Sm::ALL.len()] =
        [const { OnceLock::new() }; Sm::ALL.len()];
    let set =
        CELLS[sm.index()].get_or_init(|| rows(sm).iter().map(|h| (h.opcode, h.operands.to_vec(), h.operand)).collect());
    u8::try_from(k).is_ok_and(|k| set.contains(&(opcode, skeletons.to_vec(), k)))
}
