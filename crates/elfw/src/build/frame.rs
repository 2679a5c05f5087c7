//! `.debug_frame`: per function a CIE and an FDE (64-bit DWARF format, code
//! alignment 4, data alignment -4), then one pair per cloned callee; each
//! entry padded with zeros to 8 bytes. The FDE's location is relocated
//! against the function's symbol; with `-c` its CIE pointer is relocated
//! against `.debug_frame` and its range gets R_CUDA_UNUSED_CLEAR64.

use super::Builder;
use crate::arch::RelocForm;
use crate::bytes::{Put, align_up};
use crate::error::Result;
use crate::reloc::r_cuda;
use ori_ir::object::{FrameInfo, Function};

/// A relocation `.debug_frame` needs, before it is sorted into REL or RELA.
pub(super) struct Fixup {
    pub(super) offset: u64,
    pub(super) symbol: String,
    pub(super) kind: u32,
    pub(super) addend: i64,
}

fn pad8(out: &mut Vec<u8>, start: usize) {
    let len = out.len() - start;
    out.resize(start + align_up(len as u64, 8) as usize, 0);
}

/// Writes the 64-bit length of the entry that starts at `start`.
fn patch_length(out: &mut [u8], start: usize) {
    let len = (out.len() - start - 12) as u64;
    out[start + 4..start + 12].copy_from_slice(&len.to_le_bytes());
}

/// Writes a CIE; returns its offset and where its code addresses lie.
fn cie(out: &mut Vec<u8>, frame: &FrameInfo, code_align: u64, rel_form: bool) -> (u64, Vec<(u64, u64)>) {
    let start = out.len();
    out.put_u32(0xffff_ffff);
    out.put_u64(0);
    out.put_u64(u64::MAX);
    out.put_u8(3);
    out.put_u8(0);
    out.put_uleb(code_align);
    out.put_u8(0x7c);
    out.put_uleb(frame.return_register.into());
    let base = out.len();
    out.extend_from_slice(&frame.cie_instructions);
    let mut fields = Vec::new();
    for r in &frame.cie_relocations {
        let at = base + r.offset as usize;
        if let Some(field) = out.get_mut(at..at + 8) {
            // REL keeps the addend in the field; with RELA ptxas leaves it 0.
            field.copy_from_slice(&(if rel_form { r.addend } else { 0 }).to_le_bytes());
            fields.push((at as u64, r.addend));
        }
    }
    pad8(out, start);
    patch_length(out, start);
    (start as u64, fields)
}

/// Builds `.debug_frame` and its relocations.
pub(super) fn fill(b: &mut Builder<'_>) -> Result<()> {
    let rel = b.rel();
    let rel_form = b.arch.relocs == RelocForm::Rel;
    let sized: Vec<(&Function, u64)> = b.m.functions.iter().map(|f| (f, f.code.len() as u64)).collect();
    let (out, fixups) = entries(b, &sized, 4, rel_form);
    b.set(".debug_frame", crate::section::SectionData::Bytes(out));
    // ptxas writes each relocation list last-first.
    for x in fixups.into_iter().rev() {
        let sym = b.sym(&x.symbol)?;
        // sm_7x/sm_8x: REL, except `-c` relocations that need an addend.
        let rela = !rel_form || (rel && (x.addend != 0 || x.kind == r_cuda::UNUSED_CLEAR64));
        let section = if rela { ".rela.debug_frame" } else { ".rel.debug_frame" };
        let addend = if rela { x.addend } else { 0 };
        b.push_reloc(section, x.offset, sym, x.kind, addend)?;
    }
    Ok(())
}

/// The `.debug_frame` bytes for `functions` (each with the size of its
/// code), code alignment `code_align`, and the relocations they need in
/// creation order.
pub(super) fn entries(
    b: &Builder<'_>,
    functions: &[(&Function, u64)],
    code_align: u64,
    rel_form: bool,
) -> (Vec<u8>, Vec<Fixup>) {
    let rel = b.rel();
    let mut out = Vec::new();
    let mut fixups = Vec::new();
    let mut dropped = 0u64;
    for &(f, code_len) in functions {
        // The function's FDE ends where its first cloned callee starts.
        let own = f.subroutines.iter().map(|s| s.offset).min().unwrap_or(code_len);
        // (offset, size, frame, value of the location field)
        let mut items = vec![(0u64, own, &f.frame, 0u64)];
        for s in &f.subroutines {
            // REL keeps the addend in the field; RELA targets get the
            // pre-finalization offset ptxas computed the frame data on.
            let field = if rel_form { s.offset } else { s.mercury_offset.unwrap_or(s.offset) };
            items.push((s.offset, s.size, &s.frame, field));
        }
        // ptxas makes the CIE relocations of a function before its FDE ones.
        let mut cie_fixups = Vec::new();
        let mut fde_fixups = Vec::new();
        for (at, size, frame, field_value) in items {
            let (cie_at, fields) = cie(&mut out, frame, code_align, rel_form);
            for (offset, addend) in fields {
                cie_fixups.push(Fixup { offset, symbol: f.name.clone(), kind: r_cuda::R_64, addend: addend as i64 });
            }
            let start = out.len();
            out.put_u32(0xffff_ffff);
            out.put_u64(0);
            let field = out.len() as u64;
            if rel {
                let addend = (cie_at + dropped) as i64;
                fde_fixups.push(Fixup { offset: field, symbol: ".debug_frame".into(), kind: r_cuda::R_64, addend });
                out.put_u64(0);
            } else {
                out.put_u64(cie_at);
            }
            let location = out.len() as u64;
            fde_fixups.push(Fixup { offset: location, symbol: f.name.clone(), kind: r_cuda::R_64, addend: at as i64 });
            out.put_u64(field_value);
            if rel {
                fde_fixups.push(Fixup {
                    offset: out.len() as u64,
                    symbol: f.name.clone(),
                    kind: r_cuda::UNUSED_CLEAR64,
                    addend: 0,
                });
            }
            out.put_u64(size);
            out.extend_from_slice(&frame.fde_instructions);
            dropped += u64::from(frame.dropped_bytes);
            pad8(&mut out, start);
            patch_length(&mut out, start);
        }
        fixups.extend(cie_fixups);
        fixups.extend(fde_fixups);
    }
    (out, fixups)
}
