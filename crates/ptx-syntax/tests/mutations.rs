//! Mutated corpus PTX against NVIDIA's ptxas: truncations, deleted,
//! duplicated and swapped lines, flipped bytes, huge constants and deep
//! brace nesting, made from the corpus kernels with a fixed seed. The front
//! end must not panic (on a 2 MiB stack) and must accept or reject each
//! mutant as ptxas 13.5 does with `-arch=compute_90` (its front end alone).
//!
//! `PTX_MUTANTS=N` sets how many mutants are made (default 48, a sample that
//! keeps the test quick); `PTX_MUTANTS_SEED` changes the seed.

use ptx_syntax::{FileId, Sm, ValidateOptions, parse, validate};
use std::path::{Path, PathBuf};

fn kernel_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|d| d.join("phases.ron").is_file())
        .expect("the workspace root holds phases.ron");
    let dir = root.join("../shared/corpus/kernels");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    files
}

/// xorshift64*: small, fixed, and the same on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The kinds of mutation, one per mutant in turn.
const KINDS: &[&str] =
    &["truncate", "delete_line", "duplicate_line", "swap_lines", "flip_byte", "huge_constant", "deep_braces"];

fn mutate(source: &[u8], kind: &str, rng: &mut Rng) -> Vec<u8> {
    let lines: Vec<&[u8]> = source.split_inclusive(|&b| b == b'\n').collect();
    let pick = |rng: &mut Rng| rng.below(lines.len());
    let join = |lines: &[&[u8]]| lines.concat();
    match kind {
        "truncate" => source[..rng.below(source.len())].to_vec(),
        "delete_line" => {
            let mut lines = lines.clone();
            lines.remove(pick(rng));
            join(&lines)
        }
        "duplicate_line" => {
            let mut lines = lines.clone();
            let at = pick(rng);
            lines.insert(at, lines[at]);
            join(&lines)
        }
        "swap_lines" => {
            let mut lines = lines.clone();
            let at = pick(rng).min(lines.len().saturating_sub(2));
            lines.swap(at, at + 1);
            join(&lines)
        }
        "flip_byte" => {
            let mut bytes = source.to_vec();
            let at = rng.below(bytes.len());
            bytes[at] ^= 1 << rng.below(8);
            bytes
        }
        "huge_constant" => {
            // Replace one integer literal by a value near or past ptxas's overflow.
            let huge = [
                "99999999999999999999",
                "18446744073709551620",
                "0x100000000000000000000",
                "0777777777777777777777777",
            ];
            let text = String::from_utf8_lossy(source);
            let starts: Vec<usize> = text
                .char_indices()
                .filter(|&(i, c)| {
                    c.is_ascii_digit()
                        && !text[..i].ends_with(|p: char| p.is_ascii_alphanumeric() || p == '_' || p == '.')
                })
                .map(|(i, _)| i)
                .collect();
            let Some(&at) = starts.get(rng.below(starts.len())) else { return source.to_vec() };
            let end = at + text[at..].find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(text.len() - at);
            format!("{}{}{}", &text[..at], huge[rng.below(huge.len())], &text[end..]).into_bytes()
        }
        "deep_braces" => {
            // Wrap one instruction line in braces, well inside ptxas's limit
            // or past it. (Within two levels of the limit the verdict depends
            // on the instruction: ptxas expands some, `cvt` and `bar.sync`
            // among them, from built-in macros that need 12 more entries of
            // its parser stack; we model the others.)
            let candidates: Vec<usize> = (0..lines.len())
                .filter(|&i| lines[i].starts_with(b"\t") && lines[i].trim_ascii_end().ends_with(b";"))
                .filter(|&i| !lines[i].trim_ascii_start().starts_with(b"."))
                .collect();
            let Some(&at) = candidates.get(rng.below(candidates.len())) else { return source.to_vec() };
            let depth = [10, 1_000, 1_600, 1_700, 12_000][rng.below(5)];
            let mut out = join(&lines[..at]);
            out.extend(std::iter::repeat_n(b'{', depth));
            out.extend_from_slice(lines[at].trim_ascii_end());
            out.extend(std::iter::repeat_n(b'}', depth));
            out.push(b'\n');
            out.extend(join(&lines[at + 1..]));
            out
        }
        _ => unreachable!("unknown mutation {kind}"),
    }
}

/// Whether our front end accepts `bytes` (read as the driver reads input),
/// decided on a thread with a 2 MiB stack.
fn we_accept(bytes: Vec<u8>) -> bool {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let text = String::from_utf8_lossy(&bytes);
            let (module, syntax) = parse(&text, FileId(0));
            if syntax.iter().any(|d| d.is_error()) {
                return false;
            }
            let options = ValidateOptions { arch: Sm::parse("sm_90"), ..ValidateOptions::default() };
            !validate(&module, &options).iter().any(|d| d.is_error())
        })
        .expect("spawn")
        .join()
        .expect("the front end panicked")
}

#[test]
fn mutated_corpus_gets_nvidias_verdict() {
    let Some(oracle) = nv_oracle::Oracle::for_test("mutated_corpus_gets_nvidias_verdict") else { return };
    let count: usize = std::env::var("PTX_MUTANTS").ok().and_then(|n| n.parse().ok()).unwrap_or(48);
    let seed: u64 = std::env::var("PTX_MUTANTS_SEED").ok().and_then(|n| n.parse().ok()).unwrap_or(0x5eed_f00d);
    let files = kernel_files();
    assert!(!files.is_empty(), "no corpus kernels");
    let dir = std::env::temp_dir().join(format!("ptx-syntax-mutants-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut rng = Rng(seed);
    let mut disagreements = Vec::new();
    let mut rejected_by_them = 0;
    for i in 0..count {
        let path = &files[rng.below(files.len())];
        let kind = KINDS[i % KINDS.len()];
        let mutant = mutate(&std::fs::read(path).expect("readable kernel"), kind, &mut rng);
        let file = format!("m{i}.ptx");
        std::fs::write(dir.join(&file), &mutant).expect("write mutant");
        let output = oracle.run_ptxas(&["-arch=compute_90", &file, "-o", "/dev/null"], &dir).expect("run ptxas");
        let theirs = output.status.success();
        rejected_by_them += usize::from(!theirs);
        if we_accept(mutant) != theirs {
            let first = String::from_utf8_lossy(&output.stderr).lines().next().unwrap_or("").to_owned();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            disagreements.push(format!(
                "m{i} ({kind} of {name}): ptxas {}: {first}",
                if theirs { "accepts" } else { "rejects" }
            ));
        } else {
            let _ = std::fs::remove_file(dir.join(&file));
        }
    }
    eprintln!(
        "mutants: {count} (seed {seed:#x}), ptxas rejects {rejected_by_them}, same verdict {}",
        count - disagreements.len()
    );
    if disagreements.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(disagreements.is_empty(), "kept in {}:\n{}", dir.display(), disagreements.join("\n"));
}
