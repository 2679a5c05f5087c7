//! The line tables: `.debug_line` (code to the source lines of the PTX's
//! `.loc`s), `.nv_debug_line_sass` (code to lines of the PTX text) and
//! `.nv_debug_ptx_txt` (that text).
//!
//! Both tables are DWARF 2-style line programs (version 3 header), laid
//! out as ptxas 13.5 writes them (measured on the Triton fixtures and
//! NVRTC `-lineinfo` kernels, sm_80 and sm_90; docs/elfw.md "Line
//! tables"): `line_base` -5, `line_range` 14, `opcode_base` 13; one
//! sequence per function in section order, opened by `DW_LNE_set_address`
//! (relocated against the function's symbol) and `DW_LNS_set_file`;
//! a row becomes a special opcode when its line and address both change
//! and the steps fit one, else `advance_line`/`advance_pc` and `copy`; the sequence ends
//! with an `advance_pc` to the end of the code and `DW_LNE_end_sequence`.
//! ptxas encodes `advance_pc`'s operand as a *signed* LEB128 (0x40 takes
//! two bytes), which is kept here so that the bytes are NVIDIA's.

use super::Builder;
use crate::arch::RelocForm;
use crate::bytes::Put;
use crate::error::Result;
use crate::reloc::r_cuda;
use crate::section::{SectionData, sht};
use ori_ir::object::{LineInfo, LineRow};

/// The name of the PTX text section.
pub(super) fn ptx_text_name(relocatable: bool, info: &LineInfo) -> String {
    if relocatable { format!(".nv_debug_ptx_txt.{}", info.ptx_checksum) } else { ".nv_debug_ptx_txt".into() }
}

/// The sections, in ptxas's order (right after `.debug_frame`):
/// `.debug_str` comes right after `.debug_line` when the inlining
/// extension refers to it, else last.
pub(super) fn sections(relocatable: bool, info: &LineInfo) -> Vec<String> {
    let strings = info.debug_str.is_some();
    let mut names = vec![".debug_line".to_string()];
    if strings && info.inline_extension {
        names.push(".debug_str".into());
    }
    names.push(".nv_debug_line_sass".into());
    names.push(ptx_text_name(relocatable, info));
    if strings && !info.inline_extension {
        names.push(".debug_str".into());
    }
    names
}

const LINE_BASE: i64 = -5;
const LINE_RANGE: i64 = 14;
const OPCODE_BASE: u8 = 13;
/// Operands of the standard opcodes 1..=12.
const STANDARD_OPCODE_LENGTHS: [u8; 12] = [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1];

const DW_LNS_COPY: u8 = 1;
const DW_LNS_ADVANCE_PC: u8 = 2;
const DW_LNS_ADVANCE_LINE: u8 = 3;
const DW_LNS_SET_FILE: u8 = 4;
const DW_LNS_SET_PROLOGUE_END: u8 = 10;
const DW_LNE_END_SEQUENCE: u8 = 1;
const DW_LNE_SET_ADDRESS: u8 = 2;
/// NVIDIA's extended opcode carrying the inlining context of a row.
const DW_LNE_NV_INLINE: u8 = 0x90;

/// The header: unit length, version 3, header length, the fixed fields,
/// then the directory and file tables.
fn header(directories: &[String], files: &[(String, u32, u64, u64)], padding: usize) -> Vec<u8> {
    let mut rest = vec![1, 1, LINE_BASE as u8, LINE_RANGE as u8, OPCODE_BASE];
    rest.extend_from_slice(&STANDARD_OPCODE_LENGTHS);
    for d in directories {
        rest.extend_from_slice(d.as_bytes());
        rest.push(0);
    }
    rest.push(0);
    for (name, dir, mtime, size) in files {
        rest.extend_from_slice(name.as_bytes());
        rest.push(0);
        rest.put_uleb((*dir).into());
        rest.put_uleb(*mtime);
        rest.put_uleb(*size);
    }
    rest.push(0);
    rest.resize(rest.len() + padding, 0);
    let mut out = Vec::with_capacity(rest.len() + 10);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&3u16.to_le_bytes());
    out.extend_from_slice(&(rest.len() as u32).to_le_bytes());
    out.extend_from_slice(&rest);
    out
}

/// Appends one function's sequence; returns the offset of its address
/// field (for the relocation).
fn sequence(out: &mut Vec<u8>, rows: &[LineRow], code_len: u64) -> u64 {
    out.extend_from_slice(&[0, 9, DW_LNE_SET_ADDRESS]);
    let address_field = out.len() as u64;
    out.extend_from_slice(&[0; 8]);
    let (mut address, mut file, mut line) = (0i64, None, 1i64);
    for (k, row) in rows.iter().enumerate() {
        if file != Some(row.file) {
            out.push(DW_LNS_SET_FILE);
            out.put_uleb(row.file.into());
            file = Some(row.file);
        }
        if let Some([context, name]) = row.inline {
            let mut operands = vec![DW_LNE_NV_INLINE];
            operands.put_uleb(context.into());
            operands.put_uleb(name.into());
            out.push(0);
            out.put_uleb(operands.len() as u64);
            out.extend_from_slice(&operands);
        }
        if row.prologue_end {
            out.push(DW_LNS_SET_PROLOGUE_END);
        }
        let (dl, da) = (i64::from(row.line) - line, i64::from(row.offset) - address);
        let special = (dl - LINE_BASE) + LINE_RANGE * da + i64::from(OPCODE_BASE);
        // ptxas spells out the first row, and every row that keeps the
        // line or the address, even where a special opcode would do.
        let fits = (LINE_BASE..LINE_BASE + LINE_RANGE).contains(&dl) && da > 0 && special <= 255;
        if k > 0 && dl != 0 && fits {
            out.push(special as u8);
        } else {
            // The first row advances the line even by 0 (a function at
            // line 1 of its file, measured with -c).
            if dl != 0 || k == 0 {
                out.push(DW_LNS_ADVANCE_LINE);
                out.put_sleb(dl);
            }
            if da != 0 {
                out.push(DW_LNS_ADVANCE_PC);
                out.put_sleb(da);
            }
            out.push(DW_LNS_COPY);
        }
        (address, line) = (row.offset.into(), row.line.into());
    }
    let rest = code_len as i64 - address;
    if rest != 0 {
        out.push(DW_LNS_ADVANCE_PC);
        out.put_sleb(rest);
    }
    out.extend_from_slice(&[0, 1, DW_LNE_END_SEQUENCE]);
    address_field
}

/// A whole table: the header, then a sequence for each function with rows.
/// Returns the bytes and, per sequence, the function and address field.
fn table<'f>(
    header_bytes: Vec<u8>,
    functions: impl Iterator<Item = (&'f str, &'f [LineRow], u64)>,
) -> (Vec<u8>, Vec<(&'f str, u64)>) {
    let mut out = header_bytes;
    let mut fields = Vec::new();
    for (name, rows, code_len) in functions {
        if !rows.is_empty() {
            fields.push((name, sequence(&mut out, rows, code_len)));
        }
    }
    let unit = (out.len() - 4) as u32;
    out[..4].copy_from_slice(&unit.to_le_bytes());
    (out, fields)
}

impl Builder<'_> {
    /// Adds the line-table sections (after `.debug_frame`).
    pub(super) fn plan_line_sections(&mut self) {
        let Some(info) = &self.m.line_info else { return };
        for name in sections(self.rel(), info) {
            self.add(name, sht::PROGBITS, 0, 1, 0, SectionData::Bytes(vec![]));
        }
    }

    /// Adds the relocation sections of the line tables (before
    /// `.debug_frame`'s); `.debug_line` has one only when it has a sequence.
    pub(super) fn plan_line_relocations(&mut self) {
        if self.m.line_info.is_none() {
            return;
        }
        let prefix = match self.arch.relocs {
            RelocForm::Rel => ".rel",
            RelocForm::Rela => ".rela",
        };
        let rela = self.arch.relocs == RelocForm::Rela;
        if self.functions().any(|f| !f.source_lines.is_empty()) {
            self.add_reloc_section(format!("{prefix}.debug_line"), rela);
        }
        if self.functions().any(|f| !f.ptx_lines.is_empty()) {
            self.add_reloc_section(format!("{prefix}.nv_debug_line_sass"), rela);
        }
    }

    /// Writes the three sections and their relocations.
    pub(super) fn fill_lines(&mut self) -> Result<()> {
        let Some(info) = self.m.line_info.as_ref() else { return Ok(()) };
        let LineInfo { ptx_text, directories, files, debug_str, inline_extension, .. } = info;
        let text_name = ptx_text_name(self.rel(), info);
        let files: Vec<_> = files.iter().map(|f| (f.name.clone(), f.directory, f.mtime, f.size)).collect();
        let padding = if *inline_extension { 4 } else { 0 };
        let functions: Vec<_> = self.functions().collect();
        let (source, source_fields) = table(
            header(directories, &files, padding),
            functions.iter().map(|f| (f.name.as_str(), f.source_lines.as_slice(), f.code.len() as u64)),
        );
        // With -c the PTX text is named in the table (rows then use file
        // 1); whole programs leave the file table empty (file 0).
        let text_file = if self.rel() { vec![(text_name.clone(), 0, 0, 0)] } else { vec![] };
        let (sass, sass_fields) = table(
            header(&[], &text_file, 0),
            functions.iter().map(|f| (f.name.as_str(), f.ptx_lines.as_slice(), f.code.len() as u64)),
        );
        self.set(".debug_line", SectionData::Bytes(source));
        self.set(".nv_debug_line_sass", SectionData::Bytes(sass));
        self.set(&text_name, SectionData::Bytes(ptx_text.clone()));
        if let Some(strings) = debug_str {
            self.set(".debug_str", SectionData::Bytes(strings.clone()));
        }
        let prefix = match self.arch.relocs {
            RelocForm::Rel => ".rel",
            RelocForm::Rela => ".rela",
        };
        // ptxas writes each relocation list last-first.
        for (section, fields) in [(".debug_line", source_fields), (".nv_debug_line_sass", sass_fields)] {
            for (function, offset) in fields.into_iter().rev() {
                let sym = self.sym(function)?;
                self.push_reloc(&format!("{prefix}{section}"), offset, sym, r_cuda::R_64, 0)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advance_pc_takes_a_signed_leb128() {
        let mut out = Vec::new();
        out.put_sleb(0x40);
        assert_eq!(out, [0xc0, 0x00]);
        out.clear();
        out.put_sleb(0x3f);
        assert_eq!(out, [0x3f]);
        out.clear();
        out.put_sleb(-3);
        assert_eq!(out, [0x7d]);
    }

    #[test]
    fn rows_become_special_opcodes_where_they_fit() {
        let row = |offset, line| LineRow { offset, file: 1, line, ..LineRow::default() };
        let mut out = Vec::new();
        sequence(&mut out, &[row(0, 30), LineRow { prologue_end: true, ..row(16, 32) }, row(0x50, 31)], 0x60);
        let program = &out[11..];
        // set_file 1; advance_line 29; copy; prologue_end; special
        // (16, +2) = 7 + 14 * 16 + 13; advance_line -1; advance_pc 64 (two
        // bytes as a signed LEB128); copy; advance_pc 16; end_sequence.
        assert_eq!(program, [4, 1, 3, 29, 1, 10, 244, 3, 0x7f, 2, 0xc0, 0, 1, 2, 16, 0, 1, 1]);
    }
}
