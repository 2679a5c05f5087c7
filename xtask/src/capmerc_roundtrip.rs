//! `cargo xtask capmerc-roundtrip CUBIN_OR_DIR...`: regenerate the Capsule
//! Mercury sections of each sm_100+ cubin from its other sections
//! (`elfw::capmerc`) and compare them with NVIDIA's, per section kind.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use elfw::capmerc::{self, Unknown, capsule};

/// Per section kind: (identical, total), and why the others could not be made.
#[derive(Default)]
struct Tally {
    identical: usize,
    total: usize,
    differ: usize,
    unknown: BTreeMap<Unknown, usize>,
}

/// Runs the command; `Err` when a file cannot be read or is not a cubin.
/// Sections that differ or cannot be made yet are counted, not errors:
/// the figures are the point.
pub fn run(args: &[String]) -> Result<(), String> {
    if args.is_empty() {
        return Err("usage: cargo xtask capmerc-roundtrip CUBIN_OR_DIR...".into());
    }
    let mut files = Vec::new();
    for a in args {
        collect(Path::new(a), &mut files)?;
    }
    files.sort();
    let mut kinds: BTreeMap<String, Tally> = BTreeMap::new();
    let (mut cubins, mut identical) = (0, 0);
    let (mut capsules, mut parsed, mut headers) = (0, 0, 0);
    for f in &files {
        let bytes = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let cubin = elfw::read(&bytes).map_err(|e| format!("{}: {e}", f.display()))?;
        if cubin.header.eflags().sm() < 100 {
            continue;
        }
        cubins += 1;
        let mut all = true;
        for r in capmerc::regenerate(&cubin) {
            let theirs = &cubin.sections[r.index];
            let t = kinds.entry(kind_of(&r.name)).or_default();
            t.total += 1;
            match &r.data {
                Ok(data) => {
                    let same = elfw::section_bytes(theirs).ok()
                        == elfw::section_bytes(&elfw::Section { data: data.clone(), ..theirs.clone() }).ok()
                        && data.size() == theirs.size();
                    if same {
                        t.identical += 1;
                    } else {
                        t.differ += 1;
                        all = false;
                        println!("{}: {} differs", f.display(), r.name);
                    }
                }
                Err(why) => {
                    *t.unknown.entry(*why).or_default() += 1;
                    all = false;
                }
            }
            if let Some(function) = r.name.strip_prefix(".nv.capmerc.text.") {
                capsules += 1;
                let (ok, header) = check_capsule(&cubin, function, theirs.bytes().unwrap_or_default());
                parsed += usize::from(ok);
                headers += usize::from(header);
            }
        }
        identical += usize::from(all);
    }
    for (kind, t) in &kinds {
        let unknown: Vec<String> = t.unknown.iter().map(|(why, n)| format!("{n} need {why:?}")).collect();
        let differ = if t.differ > 0 { format!(", {} differ", t.differ) } else { String::new() };
        println!("{kind:34} identical {}/{}{differ}{}", t.identical, t.total, suffix(&unknown));
    }
    println!(
        "capsules: {parsed}/{capsules} parse and re-encode identically, header from .text identical {headers}/{capsules}"
    );
    println!("{cubins} cubins: identical {identical}");
    Ok(())
}

/// Whether NVIDIA's capsule of `function` parses and re-encodes to the same
/// bytes, and whether its header equals the one derived from `.text`.
fn check_capsule(cubin: &elfw::Cubin, function: &str, bytes: &[u8]) -> (bool, bool) {
    let Ok(c) = capsule::Capsule::parse(bytes) else { return (false, false) };
    let header = cubin
        .section(&format!(".text.{function}"))
        .and_then(|(i, s)| Some(capsule::Header::of_text(u32::try_from(i).ok()?, s.bytes()?)));
    (c.encode() == bytes, header == Some(c.header))
}

fn suffix(parts: &[String]) -> String {
    if parts.is_empty() { String::new() } else { format!(" ({})", parts.join(", ")) }
}

/// The section name with the function name replaced by `<fn>`.
fn kind_of(name: &str) -> String {
    for p in [".nv.capmerc.text.", ".nv.merc.nv.info.", ".nv.merc.rela.text."] {
        if name.starts_with(p) {
            return format!("{p}<fn>");
        }
    }
    name.to_string()
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if path.is_dir() {
        let entries = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
        for entry in entries {
            let p = entry.map_err(|e| format!("{}: {e}", path.display()))?.path();
            if p.is_dir() || p.extension().is_some_and(|x| x == "cubin") {
                collect(&p, out)?;
            }
        }
    } else if path.is_file() {
        out.push(path.to_path_buf());
    } else {
        return Err(format!("{}: no such file or directory", path.display()));
    }
    Ok(())
}
