//! Shared by the integration tests: where things are, and running NVIDIA's
//! tools.

// Each test binary uses its own subset.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use mercury_encode::form::{AtomKind, Form, Tables};
use mercury_encode::listing::parse_listing;
use mercury_encode::{CodeLabels, decode, encode, print};

use mercury_encode::Sm;

/// The corpus kernels (`../shared/corpus/kernels` next to the workspace).
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/kernels");
    dir.is_dir().then_some(dir)
}

/// A scratch directory for this test binary.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("create scratch directory");
    dir
}

/// The corpus regenerated for another target (`tests/targets/smXY`).
pub fn targets_dir(sm: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/targets").join(sm)
}

/// The SM family and `-arch` of a corpus file `NAME.sm75.ptx` / `.sm80.ptx`
/// / `.sm90.ptx` / `.sm90a.ptx`.
pub fn arch_of(path: &Path) -> Option<(Sm, &'static str)> {
    let name = path.file_name()?.to_str()?;
    if name.ends_with(".sm75.ptx") {
        Some((Sm::Sm75, "sm_75"))
    } else if name.ends_with(".sm80.ptx") {
        Some((Sm::Sm80, "sm_80"))
    } else if name.ends_with(".sm90a.ptx") {
        Some((Sm::Sm90, "sm_90a"))
    } else if name.ends_with(".sm90.ptx") {
        Some((Sm::Sm90, "sm_90"))
    } else {
        None
    }
}

/// Runs a tool, returning stdout, or stderr as the error.
pub fn run(tool: &Path, args: &[&std::ffi::OsStr]) -> Result<String, String> {
    let out = Command::new(tool).args(args).output().map_err(|e| format!("{}: {e}", tool.display()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// xorshift64*: deterministic, dependency-free.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random word of `form`, or `None` when the form has atoms the
/// generator cannot fill meaningfully (special registers it does not know).
pub fn generate(rng: &mut Rng, tables: &Tables, form: &Form, tame: bool) -> Option<u128> {
    let mut atoms = 0u128;
    // `tame`: values nvdisasm accepts for any form of the opcode (no RZ
    // tuples, address offsets aligned for 128-bit accesses), so that a
    // rejected word means a wrong form.
    let offsets = offset_atoms(form);
    for (index, atom) in form.atoms.iter().enumerate() {
        let value: i64 = match atom.kind {
            AtomKind::R if tame => 4 * rng.below(63) as i64,
            AtomKind::U if tame => 4 * rng.below(15) as i64,
            AtomKind::X if tame && offsets.contains(&index) => {
                // Multiples of 16 that fit the field (LDGSTS's global
                // offset has 12 bits).
                let room = (1u64 << (atom.width() - u32::from(atom.signed))) / 16 - 1;
                let v = 16 * (1 + rng.below(room.min(0x7ff) - 1)) as i64;
                if atom.signed && rng.below(2) == 0 { -v } else { v }
            }
            // nvdisasm prints `BPT.TRAP 0x0` as `BPT.TRAP`, another form.
            AtomKind::X if tame && form.mnemonic == "BPT.TRAP" => 1 + rng.below(7) as i64,
            AtomKind::SR => {
                let known: Vec<u16> = tables
                    .special_regs
                    .iter()
                    .filter(|(_, name)| ori_ir::SpecialReg::from_name(name).is_some())
                    .map(|(n, _)| *n)
                    .collect();
                i64::from(*known.get(rng.below(known.len().max(1) as u64) as usize)?)
            }
            // Keep targets inside the listing's address range so that
            // nvdisasm prints them as plain addresses.
            AtomKind::L => 16 * rng.below(64) as i64,
            // nvdisasm leaves out a trailing `PT` operand of some forms
            // (`LDGSTS ..., PT`, `BREAK PT, B2`): their text is then
            // another form's.
            AtomKind::P if tame => rng.below(7) as i64,
            // Register tuples must be aligned (R4.64, R8.128); multiples of
            // four suit every width, RZ stays possible.
            AtomKind::R => [255, 4 * rng.below(63) as i64][usize::from(rng.below(4) != 0)],
            AtomKind::U => [63, 4 * rng.below(15) as i64][usize::from(rng.below(4) != 0)],
            AtomKind::SB => rng.below(u64::from(ori_ir::Ctrl::SCOREBOARDS)) as i64,
            _ => {
                let mut v = 0u64;
                for f in atom.fields {
                    v |= (rng.next() & ((1u64 << f.len) - 1)) << f.shift;
                }
                let width = atom.width();
                if atom.signed && width < 64 && (v >> (width - 1)) & 1 == 1 {
                    (v | !((1u64 << width) - 1)) as i64
                } else {
                    v as i64
                }
            }
        };
        atoms |= atom.place(value)?;
    }
    // Operand bits an alias mnemonic fixes keep their value.
    let pinned = form.atom_bits() & form.mask;
    let w = (form.bits & !form.atom_bits()) | (atoms & !pinned) | (form.bits & pinned);
    let guard: u128 = if rng.below(3) == 0 { u128::from(rng.below(16)) } else { 7 };
    // nvdisasm checks the scoreboard fields against per-opcode tables
    // ("undefined value 0x1d for table 'TABLES_opex_6'" for an FFMA that
    // sets a write scoreboard), so only stall, yield and wait are random.
    // Yield with a stall of 0 or 12+ is rejected too (ptxas never emits it).
    let ctrl = ori_ir::Ctrl {
        stall: 1 + rng.below(11) as u8,
        yield_: rng.below(2) == 1,
        write_sb: None,
        read_sb: None,
        wait: rng.below(64) as u8,
    };
    let hi = mercury_encode::ctrl::encode_ctrl((w >> 64) as u64, &ctrl);
    Some((u128::from(hi) << 64 | (w & u128::from(u64::MAX))) | (guard << 12))
}

/// The atoms that are address offsets (`[R2+0x10]`, `c[0x0][R1+0x8]`,
/// `c[0x0][0x160]`).
pub fn offset_atoms(form: &Form) -> Vec<usize> {
    let mut out = Vec::new();
    let mut index = 0;
    for op in form.operands {
        index += op.matches('{').count();
        if op.ends_with("+{X}]") || op.ends_with("[{X}]") {
            out.push(index - 1);
        }
    }
    out
}

/// Disassembles `words` with nvdisasm and compares. Returns (instructions,
/// rejected by nvdisasm, not representable in Ori, matching).
pub fn check(
    oracle: &nv_oracle::Oracle,
    sm: Sm,
    dir: &std::path::Path,
    words: &[u128],
    failures: &mut Vec<String>,
) -> (usize, usize, usize, usize) {
    let mut live: Vec<u128> = words.to_vec();
    let mut rejected = 0;
    let file = dir.join(format!("{sm:?}.bin"));
    let listing = loop {
        let bytes: Vec<u8> = live.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&file, bytes).expect("write raw code");
        match run(&oracle.nvdisasm(), &[OsStr::new("-b"), OsStr::new(sm.nvdisasm_name()), file.as_os_str()]) {
            Ok(listing) => break listing,
            Err(stderr) => {
                let at = stderr.split("at address 0x").nth(1).and_then(|s| {
                    u64::from_str_radix(&s[..s.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(s.len())], 16).ok()
                });
                let Some(at) = at else { panic!("nvdisasm rejected the file without naming an address: {stderr}") };
                let w = live.remove((at / 16) as usize);
                let mut labels = CodeLabels::new();
                let ours =
                    decode(sm, [w as u64, (w >> 64) as u64], at, &mut labels).and_then(|i| print(sm, &i, &labels));
                eprintln!("{sm:?}: nvdisasm rejects 0x{w:032x} (ours: {ours:?})");
                rejected += 1;
            }
        }
    };
    let listed = parse_listing(&listing).remove("").unwrap_or_default();
    let by_addr: std::collections::HashMap<u64, &str> =
        listed.insts.iter().map(|l| (l.addr, l.text.trim_end_matches(';').trim_end())).collect();
    let mut matched = 0;
    let mut unsupported = 0;
    for (i, &w) in live.iter().enumerate() {
        let addr = 16 * i as u64;
        let bits = [w as u64, (w >> 64) as u64];
        let mut labels = CodeLabels::new();
        let ours = decode(sm, bits, addr, &mut labels).and_then(|inst| {
            let text = print(sm, &inst, &labels)?;
            let again = encode(sm, &inst, addr, &labels)?;
            Ok((text, again))
        });
        let theirs = by_addr.get(&addr).copied();
        match (&ours, theirs) {
            (Ok((text, again)), Some(t)) if text.trim_end() == t && *again == bits => matched += 1,
            // Syntax Ori cannot represent yet (docs/mercury-encode.md, gaps).
            (Err(mercury_encode::Error::Unsupported(_)), _) => unsupported += 1,
            _ => failures.push(format!("{sm:?} 0x{w:032x}: ours {ours:?}, nvdisasm {theirs:?}")),
        }
    }
    (live.len(), rejected, unsupported, matched)
}
