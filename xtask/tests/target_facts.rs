//! Target decisions live in one table, `ori_ir::facts`: no other source
//! file of the compiler compares an SM number against a family boundary
//! (`version >= 90`, `sm < 90`); it asks the target for a named fact.
//!
//! `ptx-syntax` is exempt: it checks which SMs the PTX language allows an
//! instruction on (the PTX ISA's own requirements, in its table), cannot
//! depend on `ori-ir` (xtask/tests/layering.rs), and decides nothing about
//! the code generated.

use std::path::{Path, PathBuf};

/// SM numbers that begin or end a family.
const BOUNDARIES: &[&str] = &["75", "80", "86", "87", "88", "89", "90", "100", "103", "110", "120", "121"];

/// Where SM comparisons belong.
const FACTS: &str = "crates/ori-ir/src/facts.rs";

/// Crates outside the rule (see the module comment).
const EXEMPT: &[&str] = &["crates/ptx-syntax/"];

/// The `.rs` files under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// True when `code` compares something with one of [`BOUNDARIES`]:
/// `<`, `<=`, `>`, `>=` or `==`, then blanks, then the number alone.
fn compares_with_boundary(code: &str) -> bool {
    let bytes = code.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        // A shift (`1 << 75`, a bit position) is not a comparison.
        let shift = |j: usize| bytes.get(j) == Some(&b);
        let is_op = match b {
            b'<' => !shift(i + 1) && (i == 0 || !shift(i - 1)),
            // Not `=>`, `->` or a shift.
            b'>' => i == 0 || !matches!(bytes[i - 1], b'=' | b'-' | b'>') && !shift(i + 1),
            b'=' => bytes.get(i + 1) == Some(&b'=') || (i > 0 && bytes[i - 1] == b'='),
            _ => false,
        };
        if !is_op {
            continue;
        }
        let rest = code[i + 1..].trim_start_matches('=').trim_start();
        for n in BOUNDARIES {
            if let Some(after) = rest.strip_prefix(n)
                && !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            {
                return true;
            }
        }
    }
    false
}

#[test]
fn the_detector_sees_what_it_must() {
    for hit in ["if sm.version >= 90 {", "v < 90", "sm == 89", "x<=100)", "if sm > 75 {"] {
        assert!(compares_with_boundary(hit), "{hit}");
    }
    for miss in ["let a = b >= 900;", "x < 8", "a >= 90u32", "Family::Hopper => 90,", "fn f() -> 90", "v = 90", "1 << 75", "w >> 90"] {
        assert!(!compares_with_boundary(miss), "{miss}");
    }
}

#[test]
fn no_target_decision_outside_the_facts_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    sources(&root.join("crates"), &mut files);
    let mut found = Vec::new();
    for file in files {
        let rel = file.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if rel == FACTS || rel.contains("/tests/") || EXEMPT.iter().any(|e| rel.starts_with(e)) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        // Unit tests may name targets as they like.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in code.lines().enumerate() {
            let line = line.split("//").next().unwrap_or_default();
            if compares_with_boundary(line) {
                found.push(format!("{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "target decisions outside {FACTS} (ask ori_ir::Target for a named fact):\n{}",
        found.join("\n")
    );
}
