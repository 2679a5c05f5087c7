//! NVIDIA's code as data: compiles the corpus with NVIDIA's ptxas, lists
//! each cubin with `nvdisasm -hex -plr -lrm narrow`, and turns the listing
//! into the hazard checker's [`Program`]s.
//!
//! What each instruction reads and writes is not guessed from operand
//! syntax: nvdisasm's life-range columns (`-plr`, one column per register
//! in `narrow` mode) mark each register an instruction defines (`^`),
//! uses (`v`) or both (`x`), tuples and predicates included. The control
//! word comes from the high 64-bit word (oracle-facts §6).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use nv_oracle::Oracle;
use ori_ir::{Ctrl, RegFile};
use sched::hazard::{Flow, Program, Step};
use sched::units::Unit;

/// One compiled corpus kernel file.
pub struct Listing {
    /// `name.smXY`.
    #[allow(dead_code, reason = "only some test binaries name listings")]
    pub name: String,
    /// SM version it was compiled for.
    pub sm: u16,
    /// Its functions.
    pub programs: Vec<Program>,
}

/// Every corpus kernel file for sm_80 and sm_90 (the sm_90a WGMMA one
/// aside), compiled once per test binary. `None` without the oracle.
pub fn corpus(test: &str) -> Option<&'static [Listing]> {
    static CORPUS: OnceLock<Vec<Listing>> = OnceLock::new();
    let oracle = Oracle::for_test(test)?;
    Some(CORPUS.get_or_init(|| compile_corpus(&oracle)))
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/kernels")
}

/// Triton's sm_100a fixtures (tests/triton) compiled by NVIDIA's ptxas
/// with Triton's options, once per test binary: the only NVIDIA code here
/// with sm_100's packed f32 (`FADD2`, `FMUL2`, `FFMA2`: Triton's
/// `.f32x2`), which neither the corpus nor tests/targets uses. `None`
/// without the oracle.
#[allow(dead_code, reason = "only some test binaries measure Triton's code")]
pub fn triton_sm100(test: &str) -> Option<&'static [Listing]> {
    static TRITON: OnceLock<Vec<Listing>> = OnceLock::new();
    let oracle = Oracle::for_test(test)?;
    Some(TRITON.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/triton");
        let files = ptx_files(&root, &[".sm100a.ptx"]);
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nvidia-triton");
        compile_into(&oracle, &files, &out, &["--regAllocOptLevel=2"], |_| "sm_100a".to_string())
    }))
}

/// NVIDIA's code of the corpus regenerated for the targets other than
/// sm_80 and sm_90 (`tests/targets/DIR`, compiled for each architecture
/// that shares the directory's PTX: a copy with its `.target` renamed
/// where ptxas needs it), compiled once per test binary. `None` without
/// the oracle.
#[allow(dead_code, reason = "only some test binaries measure other targets")]
pub fn targets(test: &str) -> Option<&'static [Listing]> {
    static TARGETS: OnceLock<Vec<Listing>> = OnceLock::new();
    let oracle = Oracle::for_test(test)?;
    Some(TARGETS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/targets");
        let sets: [(&str, &[&str]); 5] = [
            ("sm75", &["sm_75"]),
            ("sm86", &["sm_86", "sm_87", "sm_88"]),
            ("sm89", &["sm_89"]),
            ("sm100a", &["sm_100a", "sm_103a", "sm_107a", "sm_110a"]),
            ("sm120a", &["sm_120a", "sm_121a"]),
        ];
        let mut listings = Vec::new();
        for (dir, archs) in sets {
            let files = ptx_files(&root.join(dir), &[&format!(".{dir}.ptx")]);
            for arch in archs {
                let files: Vec<PathBuf> = files.iter().map(|f| retargeted(f, dir, arch)).collect();
                listings.extend(compile_listings(&oracle, &files, |_| arch.to_string()));
            }
        }
        listings
    }))
}

/// `ptx` itself when its directory's target is `arch`'s, else a copy in
/// the target directory whose `.target` line names `arch` (ptxas compiles
/// `.target sm_100a` PTX for sm_100a only).
fn retargeted(ptx: &Path, dir: &str, arch: &str) -> PathBuf {
    let own = arch.replace('_', "");
    if own == dir || !dir.ends_with('a') {
        return ptx.to_path_buf();
    }
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nvidia-retargeted");
    std::fs::create_dir_all(&out).expect("temporary directory");
    let name = ptx.file_name().and_then(|n| n.to_str()).unwrap_or("").replace(dir, &own);
    let copy = out.join(name);
    if !is_fresh(&copy, ptx) {
        let text = std::fs::read_to_string(ptx).expect("read PTX");
        let from = format!(".target {}", dir.replace("sm", "sm_"));
        std::fs::write(&copy, text.replace(&from, &format!(".target {arch}"))).expect("write PTX");
    }
    copy
}

/// The `.ptx` files of `dir` whose names end with one of `suffixes`, sorted.
fn ptx_files(dir: &Path, suffixes: &[&str]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            suffixes.iter().any(|s| name.ends_with(s))
        })
        .collect();
    files.sort();
    files
}

fn compile_corpus(oracle: &Oracle) -> Vec<Listing> {
    let files = ptx_files(&corpus_dir(), &[".sm80.ptx", ".sm90.ptx"]);
    compile_listings(oracle, &files, |stem| if stem.ends_with("sm80") { "sm_80" } else { "sm_90" }.to_string())
}

/// The Triton fixtures (`tests/triton`: sm_80 and sm_90a) compiled by NVIDIA's ptxas with the options Triton passes,
/// once per test binary. `None` without the oracle.
#[allow(dead_code, reason = "only some test binaries measure Triton's code")]
pub fn triton(test: &str) -> Option<&'static [Listing]> {
    static TRITON: OnceLock<Vec<Listing>> = OnceLock::new();
    let oracle = Oracle::for_test(test)?;
    Some(TRITON.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/triton");
        let files = ptx_files(&root, &[".sm80.ptx", ".sm90a.ptx"]);
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nvidia-triton");
        let arch = |stem: &str| if stem.ends_with("sm80") { "sm_80" } else { "sm_90a" }.to_string();
        compile_into(&oracle, &files, &out, &["--regAllocOptLevel=2"], arch)
    }))
}

/// Compiles each file with NVIDIA's ptxas for the target `arch` gives its
/// stem (`sm_XY` or `sm_XYa`) and lists it.
fn compile_listings(oracle: &Oracle, files: &[PathBuf], arch: impl Fn(&str) -> String + Sync) -> Vec<Listing> {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nvidia-corpus");
    compile_into(oracle, files, &out, &[], arch)
}

/// [`compile_listings`] into `out` with further ptxas `options`.
/// Files are compiled on every CPU (each thread a contiguous share, in
/// order): hundreds of ptxas runs make up most of the test's time.
fn compile_into(
    oracle: &Oracle,
    files: &[PathBuf],
    out: &Path,
    options: &[&str],
    arch: impl Fn(&str) -> String + Sync,
) -> Vec<Listing> {
    std::fs::create_dir_all(out).expect("temporary directory");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let share = files.len().div_ceil(threads).max(1);
    let arch = &arch;
    std::thread::scope(|scope| {
        let workers: Vec<_> = files
            .chunks(share)
            .map(|chunk| scope.spawn(move || compile_share(oracle, chunk, out, options, arch)))
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a compile thread panicked")).collect()
    })
}

fn compile_share(
    oracle: &Oracle,
    files: &[PathBuf],
    out: &Path,
    options: &[&str],
    arch: &dyn Fn(&str) -> String,
) -> Vec<Listing> {
    files
        .iter()
        .map(|ptx| {
            let stem = ptx.file_name().and_then(|n| n.to_str()).unwrap_or("").trim_end_matches(".ptx").to_string();
            let arch = arch(&stem);
            let sm: u16 = arch[3..].trim_end_matches(['a', 'f']).parse().expect("sm_XY");
            let cubin = out.join(format!("{stem}.{arch}.cubin"));
            let listing = out.join(format!("{stem}.{arch}.sass"));
            if !is_fresh(&listing, ptx) {
                let status = Command::new(oracle.ptxas())
                    .arg(format!("-arch={arch}"))
                    .args(options)
                    .arg(ptx)
                    .arg("-o")
                    .arg(&cubin)
                    .status()
                    .expect("run NVIDIA ptxas");
                assert!(status.success(), "NVIDIA ptxas failed on {}", ptx.display());
                let sass = Command::new(oracle.nvdisasm())
                    .args(["-hex", "-plr", "-lrm", "narrow"])
                    .arg(&cubin)
                    .output()
                    .expect("run nvdisasm");
                assert!(sass.status.success(), "nvdisasm failed on {}", cubin.display());
                std::fs::write(&listing, &sass.stdout).expect("write listing");
            }
            let text = std::fs::read_to_string(&listing).expect("read listing");
            Listing { name: stem, sm, programs: parse_listing(&text) }
        })
        .collect()
}

/// True when `derived` exists and is newer than `source` (listings are
/// kept between runs in the target directory).
fn is_fresh(derived: &Path, source: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    matches!((modified(derived), modified(source)), (Some(d), Some(s)) if d > s)
}

/// Life-range columns of one `.text` section: absolute character position
/// of each register's column.
#[derive(Default)]
struct Columns(Vec<(usize, Unit)>);

impl Columns {
    /// Reads the header block: the row naming the sections (`| GPR | PRED
    /// |`), then digit rows whose characters, top to bottom, spell each
    /// column's register number; the last has `#` before the digits.
    fn parse(names: &str, digit_rows: &[&str]) -> Columns {
        let bars: Vec<usize> = names.char_indices().filter(|&(_, c)| c == '|').map(|(i, _)| i).collect();
        let mut cols = Vec::new();
        for w in bars.windows(2) {
            let file = match names[w[0] + 1..w[1]].trim() {
                "GPR" => RegFile::R,
                "PRED" => RegFile::P,
                "UGPR" => RegFile::UR,
                "UPRED" => RegFile::UP,
                other => panic!("unknown life-range section {other:?}"),
            };
            let Some(last) = digit_rows.last() else { continue };
            let hash = last[w[0]..w[1]].find('#').map(|h| h + w[0]).unwrap_or(w[0]);
            for pos in hash + 1..w[1] {
                let digits: String =
                    digit_rows.iter().filter_map(|r| r.as_bytes().get(pos)).map(|&b| b as char).collect();
                let digits = digits.trim();
                if let Some(unit) = digits.parse::<u32>().ok().and_then(|num| Unit::new(file, num)) {
                    cols.push((pos, unit));
                }
            }
        }
        Columns(cols)
    }

    /// Units defined and used on a data row.
    fn marks(&self, row: &str) -> (Vec<Unit>, Vec<Unit>) {
        let bytes = row.as_bytes();
        let (mut defs, mut uses) = (Vec::new(), Vec::new());
        for &(pos, unit) in &self.0 {
            match bytes.get(pos) {
                Some(b'^') => defs.push(unit),
                Some(b'v') => uses.push(unit),
                Some(b'x') => {
                    defs.push(unit);
                    uses.push(unit);
                }
                _ => {}
            }
        }
        (defs, uses)
    }
}

/// One instruction as read from the listing, before blocks are cut.
struct Raw {
    step: Step,
    targets: Vec<String>,
    guarded: bool,
}

/// Parses a whole `nvdisasm -hex -plr -lrm narrow` listing.
pub fn parse_listing(text: &str) -> Vec<Program> {
    let lines: Vec<&str> = text.lines().collect();
    let mut programs = Vec::new();
    let mut columns = Columns::default();
    let mut func: Option<String> = None;
    let mut raws: Vec<Raw> = Vec::new();
    let mut labels: HashMap<String, usize> = HashMap::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let code = line.split("//").next().unwrap_or("").trim();
        if line.contains("// |") && line.contains(" GPR ") {
            let digit_rows: Vec<&str> = lines[i + 1..].iter().take_while(|l| !l.contains("// +")).copied().collect();
            columns = Columns::parse(line, &digit_rows);
            i += 1 + digit_rows.len();
            continue;
        }
        if let Some(name) = code.strip_prefix(".text.").and_then(|n| n.strip_suffix(':')) {
            finish(&mut programs, func.take(), &mut raws, &mut labels);
            func = Some(name.to_string());
        } else if let Some(label) = code.strip_suffix(':').filter(|l| l.starts_with(".L")) {
            labels.insert(label.to_string(), raws.len());
        } else if func.is_some() && code.starts_with("/*") && code.contains(';') {
            let hi_line = lines.get(i + 1).copied().unwrap_or("");
            if let Some(raw) = parse_inst(code, hi_line, &columns) {
                raws.push(raw);
                i += 2;
                continue;
            }
        } else if code.starts_with(".section") {
            finish(&mut programs, func.take(), &mut raws, &mut labels);
        }
        i += 1;
    }
    finish(&mut programs, func.take(), &mut raws, &mut labels);
    programs
}

fn finish(programs: &mut Vec<Program>, func: Option<String>, raws: &mut Vec<Raw>, labels: &mut HashMap<String, usize>) {
    let Some(name) = func else { return };
    let steps = raws
        .drain(..)
        .map(|raw| {
            let op = raw.step.opcode();
            let targets: Vec<usize> = if op == "BSSY" || op == "CALL" {
                Vec::new()
            } else {
                raw.targets.iter().filter_map(|t| labels.get(t).copied()).collect()
            };
            let branchy = matches!(op, "BRA" | "BRX" | "JMP" | "JMX" | "EXIT" | "RET" | "KILL");
            let ends = branchy && !raw.guarded;
            let unknown = matches!(op, "BRX" | "JMX") && targets.is_empty();
            (raw.step, Flow { targets, ends, unknown })
        })
        .collect();
    labels.clear();
    programs.push(Program::build(name, steps));
}

fn hex_word(s: &str) -> Option<u64> {
    let start = s.find("/* 0x")? + 5;
    u64::from_str_radix(s.get(start..start + 16)?, 16).ok()
}

/// `/*0080*/  @!P0 IMAD R0, R0, UR5, R11 ;  /* 0x... */` plus the next
/// line (high word and life-range row).
fn parse_inst(code: &str, hi_line: &str, columns: &Columns) -> Option<Raw> {
    let body = code.split_once("*/")?.1;
    let (text, _) = body.split_once(';')?;
    let text = text.trim();
    let hi = hex_word(hi_line)?;
    let (guard, rest) = match text.strip_prefix('@') {
        Some(r) => {
            let (guard, rest) = r.split_once(' ')?;
            (Some(guard.trim_start_matches('!')), rest.trim())
        }
        None => (None, text),
    };
    let guarded = guard.is_some_and(|g| g != "PT");
    let guard = guard.and_then(pred_unit);
    let (mnemonic, operands) = rest.split_once(' ').unwrap_or((rest, ""));
    let bar = |v: u64| (v != 7).then_some(v as u8);
    let ctrl = Ctrl {
        stall: ((hi >> 41) & 0xf) as u8,
        yield_: (hi >> 45) & 1 == 1,
        write_sb: bar((hi >> 46) & 7),
        read_sb: bar((hi >> 49) & 7),
        wait: ((hi >> 52) & 0x3f) as u8,
    };
    let depbar = mnemonic.starts_with("DEPBAR").then(|| parse_depbar(operands)).flatten();
    let targets = operands.split("`(").skip(1).filter_map(|t| t.split(')').next()).map(str::to_string).collect();
    let (mut writes, mut reads) = columns.marks(hi_line);
    barrier_operands(mnemonic, operands, &mut writes, &mut reads);
    let step = Step::new(mnemonic.to_string(), reads, guard, writes, ctrl, depbar, text.to_string());
    Some(Raw { step, targets, guarded })
}

/// The convergence barriers a `BMOV` writes (its first operand) and reads
/// (the others): nvdisasm's life-range columns have no barrier registers,
/// and a barrier `BMOV`'s latency (sm_87's barrier-reset prologue,
/// `BMOV.32.CLEAR B1, B0`) is measured from them.
fn barrier_operands(mnemonic: &str, operands: &str, writes: &mut Vec<Unit>, reads: &mut Vec<Unit>) {
    if mnemonic.split('.').next() != Some("BMOV") {
        return;
    }
    let barrier = |op: &str| op.trim().strip_prefix('B')?.parse().ok().and_then(|n| Unit::new(RegFile::B, n));
    for (k, op) in operands.split(',').enumerate() {
        if let Some(unit) = barrier(op) {
            if k == 0 { writes.push(unit) } else { reads.push(unit) }
        }
    }
}

/// `P3` or `UP1` as a unit (`None` for `PT`/`UPT`).
fn pred_unit(name: &str) -> Option<Unit> {
    let (file, num) = match name.strip_prefix("UP") {
        Some(n) => (RegFile::UP, n),
        None => (RegFile::P, name.strip_prefix('P')?),
    };
    Unit::new(file, num.parse().ok()?)
}

/// `SB0, 0x1` (and an optional `{...}` list, which only waits for more
/// and is ignored: ignoring a wait can only make the checker stricter).
fn parse_depbar(operands: &str) -> Option<(u8, u8)> {
    let mut parts = operands.split(',').map(str::trim);
    let sb = parts.next()?.strip_prefix("SB")?.parse().ok()?;
    let count = parts.next().and_then(|c| u8::from_str_radix(c.trim_start_matches("0x"), 16).ok()).unwrap_or(0);
    Some((sb, count))
}
