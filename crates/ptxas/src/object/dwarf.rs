//! `-g`: the PTX's DWARF sections as ptxas copies them into the cubin
//! (docs/elfw.md "DWARF"). The bytes are the PTX's; a label of a function
//! body becomes a 64-bit relocation against the function that holds its
//! code, a section name becomes that section's offset (0: every section
//! is the module's own).

use elfw::Put;
use ori_ir::object::{DebugRelocation, DebugSection};
use ori_ir::{CodeLabel, Function, Module};

/// The section ptxas writes first; the others follow in PTX order
/// (measured: `.debug_loc` written before `.debug_abbrev` in the PTX still
/// comes after it).
const FIRST: &str = ".debug_abbrev";

const DW_OP_ADDR: u8 = 0x03;
const DW_OP_FBREG: u8 = 0x91;
const DW_OP_NOP: u8 = 0x96;

/// Where `.local` variable `name` (NVVM's `__local_depot`) is, relative to
/// the frame base (the stack pointer on entry, above the frame).
fn frame_offset(name: &str, placed: &[(&Function, u64)]) -> Option<i64> {
    placed.iter().find_map(|(f, _)| {
        let &(_, at) = f.attrs.local_vars.iter().find(|(n, _)| n == name)?;
        Some(i64::from(at) - i64::from(f.attrs.frame_bytes))
    })
}

/// Rewrites `DW_OP_addr <local variable>` (9 bytes) as ptxas does: the
/// variable lives in the stack frame, so its location becomes
/// `DW_OP_fbreg <offset>`, padded with `DW_OP_nop` (measured: NVRTC `-G`
/// `local_array`, `03 <8 bytes>` becomes `91 d8 7d 96 96 96 96 96 96`).
fn at_frame_base(field: &mut [u8], offset: i64) {
    let mut op = vec![DW_OP_FBREG];
    op.put_sleb(offset);
    op.resize(field.len(), DW_OP_NOP);
    field.copy_from_slice(&op[..field.len()]);
}

/// A function's code as the labels see it: the PTX line of each
/// instruction, by address.
struct Code<'f> {
    name: &'f str,
    size: u64,
    lines: Vec<(u64, u32)>,
}

impl<'f> Code<'f> {
    fn of(func: &'f Function, size: u64) -> Self {
        let lines = func
            .insts_in_order()
            .enumerate()
            .filter_map(|(index, (_, _, inst))| inst.loc.map(|loc| (16 * index as u64, loc.ptx_line)))
            .collect();
        Code { name: &func.name, size, lines }
    }

    /// Addresses of the instructions written on PTX lines `from..=to`.
    fn within(&self, from: u32, to: u32) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.lines.iter().copied().filter(move |&(_, line)| (from..=to).contains(&line))
    }
}

/// Where `label`'s code is: the function, and an address in its code.
/// The function is the label's own when it has its own code, else the
/// first whose code holds the label's function's (a device function
/// placed in a kernel). The address, as ptxas 13.5 gives it (measured on
/// NVRTC `-G` kernels: 48 of 50 labels of `local_array` by NVIDIA's own
/// line table, the rest within one instruction):
/// * a label before the body's first instruction: the start of the code;
/// * a label with code after it: the lowest address of that code (a
///   region's code starts there even when the scheduler moved some of it);
/// * the body's last statement (`$L__func_end`): the end of the code;
/// * another label after the last instruction: the end of the first run
///   of the code of the statement before it.
fn locate<'c>(label: &CodeLabel, code: &'c [Code<'_>]) -> Option<(&'c str, u64)> {
    let own = code.iter().find(|c| c.name == label.function);
    let holder = own.or_else(|| code.iter().find(|c| c.within(label.body_start, label.body_end).next().is_some()))?;
    let before = holder.within(label.body_start, label.line).map(|(_, line)| line).max();
    let after = holder.within(label.line + 1, label.body_end).map(|(address, _)| address).min();
    let address = match (before, after) {
        (None, _) if own.is_some() => 0,
        (_, Some(address)) => address,
        (_, None) if label.ends_body && own.is_some() => holder.size,
        (None, None) => 0,
        (Some(line), None) => {
            let mut run = holder.lines.iter().skip_while(|&&(_, l)| l != line);
            let start = run.next().map_or(0, |&(address, _)| address);
            run.take_while(|&&(_, l)| l == line).fold(start, |_, &(address, _)| address) + 16
        }
    };
    Some((holder.name, address))
}

/// The DWARF sections of `module`, whose functions in the cubin are
/// `placed` (each with its code size).
pub(crate) fn sections(module: &Module, placed: &[(&Function, u64)]) -> Vec<DebugSection> {
    let (debug, variables) = (&module.debug, &module.variables);
    let code: Vec<Code<'_>> = placed.iter().map(|&(f, size)| Code::of(f, size)).collect();
    let mut out: Vec<DebugSection> = Vec::new();
    for section in &debug.dwarf {
        let mut bytes = section.bytes.clone();
        let mut relocations = Vec::new();
        for r in &section.refs {
            let value = if r.name.starts_with('.') {
                r.addend
            } else if let Some((symbol, address)) = debug.code_labels.get(&r.name).and_then(|l| locate(l, &code)) {
                let addend = address as i64 + r.addend;
                // Only a 64-bit field holds an address (NVVM writes `.b64`).
                if r.width == 8 {
                    relocations.push(DebugRelocation { offset: r.offset.into(), symbol: symbol.to_string(), addend });
                }
                addend
            } else if variables.iter().any(|v| v.name == r.name) {
                // A `.global`/`.const` variable's address (measured: a
                // relocation against its symbol).
                if r.width == 8 {
                    relocations.push(DebugRelocation {
                        offset: r.offset.into(),
                        symbol: r.name.clone(),
                        addend: r.addend,
                    });
                }
                r.addend
            } else if let Some(at) = frame_offset(&r.name, placed) {
                if r.width == 8 && r.offset > 0 && bytes[r.offset as usize - 1] == DW_OP_ADDR {
                    at_frame_base(&mut bytes[r.offset as usize - 1..][..9], at + r.addend);
                    continue;
                }
                0
            } else {
                // A label whose code is gone, or a name ptxas does not know.
                0
            };
            let at = r.offset as usize;
            let width = usize::from(r.width);
            if let Some(field) = bytes.get_mut(at..at + width) {
                field.copy_from_slice(&value.to_le_bytes()[..width]);
            }
        }
        out.push(DebugSection { name: section.name.clone(), bytes, relocations });
    }
    if let Some(at) = out.iter().position(|s| s.name == FIRST) {
        let first = out.remove(at);
        out.insert(0, first);
    }
    out
}
