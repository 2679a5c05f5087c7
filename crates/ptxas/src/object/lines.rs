//! The line tables' contents: which rows each function's code gets, the
//! PTX text ptxas keeps, and the file table (docs/elfw.md "Line tables").
//!
//! ptxas writes them with `-lineinfo` and whenever the PTX has a `.loc`
//! (measured: Triton's PTX gets them without the option). Each function
//! (and each device function placed in a kernel's code) opens with a row
//! for its body's `{` line and first `.loc`; its next row is marked
//! `prologue_end`; after that a row starts wherever the line changes.
//! Code the compiler adds without a PTX statement of its own keeps the
//! line before it.

use ori_ir::object::{LineFile, LineInfo, LineRow};
use ori_ir::{Function, Module, SrcLoc};

/// Whether ptxas writes line tables for `module`.
pub(crate) fn wanted(module: &Module, line_info_option: bool) -> bool {
    line_info_option
        || module.functions.iter().any(|f| {
            f.attrs.entry_loc.is_some_and(|l| l.file != 0) || f.insts.iter().any(|(_, i)| i.loc.is_some_and(|l| l.file != 0))
        })
}

/// The module-level part: the PTX text and the `.debug_line` file table.
pub(crate) fn line_info(module: &Module, ptx: &str) -> LineInfo {
    let mut directories: Vec<String> = Vec::new();
    let mut files = Vec::new();
    let mut sorted: Vec<_> = module.source_files.iter().collect();
    sorted.sort_by_key(|f| f.index);
    for f in sorted {
        // "/a/b/c.cu" is file "c.cu" in directory "/a/b".
        let (directory, name) = match f.name.rfind('/') {
            Some(at) if at > 0 => (Some(&f.name[..at]), &f.name[at + 1..]),
            _ => (None, f.name.as_str()),
        };
        let directory = directory.map_or(0, |d| {
            let at = directories.iter().position(|x| x == d).unwrap_or_else(|| {
                directories.push(d.to_string());
                directories.len() - 1
            });
            at as u32 + 1
        });
        files.push(LineFile { name: name.to_string(), directory, mtime: f.mtime, size: f.size });
    }
    LineInfo {
        ptx_text: ptx_text(ptx),
        ptx_checksum: adler32(ptx.as_bytes()),
        directories,
        files,
        debug_str: None,
        inline_extension: false,
    }
}

/// `.nv_debug_ptx_txt`: every line of the PTX, NUL-terminated, with its
/// leading blanks removed; comment lines, `.loc` and `.file` directives
/// and the data of `.section` bodies become empty lines (so line numbers
/// stay those of the file); empty lines at the end are dropped. Comments
/// after code stay (measured with ptxas 13.5).
fn ptx_text(ptx: &str) -> Vec<u8> {
    let mut lines = Vec::new();
    let mut in_section = false;
    for raw in ptx.split('\n') {
        let line = raw.trim_start_matches([' ', '\t']);
        let word = line.split([' ', '\t']).next().unwrap_or("");
        if word == ".section" {
            in_section = true;
        } else if in_section && line.starts_with('}') {
            in_section = false;
        }
        let data = in_section && matches!(word, ".b8" | ".b16" | ".b32" | ".b64");
        let dropped = line.starts_with("//") || word == ".loc" || word == ".file" || data;
        lines.push(if dropped { "" } else { line });
    }
    while lines.last() == Some(&"") {
        lines.pop();
    }
    let mut out = Vec::with_capacity(ptx.len());
    for line in lines {
        out.extend_from_slice(line.as_bytes());
        out.push(0);
    }
    out
}

/// Adler-32 of `bytes` (RFC 1950).
fn adler32(bytes: &[u8]) -> u32 {
    const MOD: u32 = 65521;
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in bytes.chunks(5552) {
        for &byte in chunk {
            a += u32::from(byte);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

/// The rows of `func`'s two tables: `.debug_line` (source lines of the
/// `.loc`s; empty when the function has none) and `.nv_debug_line_sass`
/// (PTX lines, in file `ptx_file`).
pub(crate) fn rows(func: &Function, ptx_file: u32) -> (Vec<LineRow>, Vec<LineRow>) {
    // Where each function placed in this code starts, with its entry.
    let mut starts: Vec<(ori_ir::BlockId, Option<SrcLoc>)> = Vec::new();
    if let Some(&first) = func.layout.first() {
        starts.push((first, func.attrs.entry_loc));
    }
    starts.extend(func.attrs.subroutines.iter().map(|s| (s.entry, s.entry_loc)));
    let mut source = Table::default();
    let mut ptx = Table::default();
    let mut block_seen = None;
    for (index, (block, _, inst)) in func.insts_in_order().enumerate() {
        let offset = 16 * index as u32;
        if block_seen != Some(block) {
            block_seen = Some(block);
            if let Some((_, entry)) = starts.iter().find(|(b, _)| *b == block) {
                let entry = entry.unwrap_or_default();
                source.entry(offset, entry.source());
                ptx.entry(offset, (entry.ptx_line != 0).then_some((ptx_file, entry.ptx_line)));
            }
        }
        if let Some(loc) = inst.loc {
            source.row(offset, loc.source());
            ptx.row(offset, (loc.ptx_line != 0).then_some((ptx_file, loc.ptx_line)));
        }
    }
    (source.rows, ptx.rows)
}

/// One table being built.
#[derive(Default)]
struct Table {
    rows: Vec<LineRow>,
    /// The next row opens a function's body.
    prologue_end: bool,
}

impl Table {
    /// A function's first row.
    fn entry(&mut self, offset: u32, at: Option<(u32, u32)>) {
        let Some((file, line)) = at else { return };
        self.rows.push(LineRow { offset, file, line, prologue_end: false, inline: None });
        self.prologue_end = true;
    }

    /// A row at `offset`, when the position changes.
    fn row(&mut self, offset: u32, at: Option<(u32, u32)>) {
        let Some((file, line)) = at else { return };
        if self.rows.last().is_some_and(|r| (r.file, r.line) == (file, line)) {
            return;
        }
        let prologue_end = std::mem::take(&mut self.prologue_end);
        self.rows.push(LineRow { offset, file, line, prologue_end, inline: None });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_text_keeps_line_numbers() {
        let ptx = "//\n.version 8.0   \n  ld.param.u64 %rd1, [p];   // load\n\t.loc 1 3 4\n\
                   .section .debug_str\n{\n$L__s:\n.b8 115\n}\n}\n\n\t.file 1 \"x.cu\"\n";
        let text = ptx_text(ptx);
        let lines: Vec<&[u8]> = text.split(|&b| b == 0).collect();
        let expected: [&[u8]; 11] = [
            b"",
            b".version 8.0   ",
            b"ld.param.u64 %rd1, [p];   // load",
            b"",
            b".section .debug_str",
            b"{",
            b"$L__s:",
            b"",
            b"}",
            b"}",
            b"",
        ];
        assert_eq!(lines, expected);
    }

    #[test]
    fn adler32_is_zlibs() {
        // zlib.adler32(b"Wikipedia") == 0x11E60398.
        assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
    }
}
