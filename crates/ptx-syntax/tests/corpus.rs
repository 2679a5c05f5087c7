//! Every PTX file of the shared corpus parses without diagnostics, validates
//! for its own `.target`, and round-trips through the printer.

use ptx_syntax::{FileId, ValidateOptions, parse, print, render_ptxas_all, validate};
use std::path::{Path, PathBuf};

/// `../shared/corpus` next to the workspace root (the directory with `phases.ron`).
fn corpus_dir() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().find(|d| d.join("phases.ron").is_file())?;
    let dir = root.join("../shared/corpus");
    dir.is_dir().then_some(dir)
}

fn corpus_files() -> Option<Vec<PathBuf>> {
    let dir = corpus_dir()?;
    let mut files = Vec::new();
    for sub in ["kernels", "large"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else { continue };
        files.extend(entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "ptx")));
    }
    files.sort();
    Some(files)
}

#[test]
fn corpus_parses_validates_and_round_trips() {
    let Some(files) = corpus_files() else {
        eprintln!("corpus_parses_validates_and_round_trips: skipped, ../shared/corpus not found");
        return;
    };
    assert!(!files.is_empty(), "corpus directory has no .ptx files");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let source = std::fs::read_to_string(path).expect("readable corpus file");
        let (module, diags) = parse(&source, FileId(0));
        if !diags.is_empty() {
            failures.push(render_ptxas_all(&diags, &name, &source));
            continue;
        }
        let options = ValidateOptions { file_name: Some(name.clone()), ..ValidateOptions::default() };
        let diags = validate(&module, &options);
        if !diags.is_empty() {
            failures.push(render_ptxas_all(&diags, &name, &source));
        }
        let printed = print(&module);
        let (reparsed, diags) = parse(&printed, FileId(1));
        if !diags.is_empty() || reparsed != module {
            failures.push(format!("{name}: print -> parse differs ({} diagnostics)\n", diags.len()));
        }
    }
    eprintln!("corpus: {} files, {} failures", files.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.concat());
}

#[test]
fn truncated_and_garbled_corpus_text_never_panics() {
    let Some(files) = corpus_files() else { return };
    for path in files.iter().take(12) {
        let source = std::fs::read_to_string(path).expect("readable corpus file");
        let bytes = source.as_bytes();
        for step in 1..40 {
            let cut = bytes.len() * step / 40;
            let cut = (cut..bytes.len()).find(|&i| source.is_char_boundary(i)).unwrap_or(bytes.len());
            let (module, _) = parse(&source[..cut], FileId(0));
            let _ = validate(&module, &ValidateOptions::default());
            // Swap a few characters for punctuation that opens or closes things.
            let garbled: String = source
                .chars()
                .enumerate()
                .map(
                    |(i, c)| {
                        if (i * 7919 + step) % 97 == 0 { ['{', '}', '[', ';', '(', '"', '.', '-'][i % 8] } else { c }
                    },
                )
                .collect();
            let (module, _) = parse(&garbled, FileId(0));
            let _ = validate(&module, &ValidateOptions::default());
            let _ = print(&module);
        }
    }
}
