//! Throughput of the front end on `../shared/corpus/large/*.ptx`:
//! `cargo bench -p ptx-syntax`. Prints the median of several timed rounds for
//! lexing, lexing+parsing, and lexing+parsing+validation, in MB/s.
//!
//! A plain `harness = false` bench rather than criterion: criterion would be
//! built for every `cargo test` of this crate (dev-dependencies are shared),
//! and a median over rounds is all these numbers need.

use ptx_syntax::{FileId, ValidateOptions, lex, parse, validate};
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

const ROUNDS: usize = 15;

fn main() {
    let Some(root) = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().find(|d| d.join("phases.ron").is_file()) else {
        eprintln!("front_end bench: workspace root not found, skipped");
        return;
    };
    let dir = root.join("../shared/corpus/large");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("front_end bench: {} not found, skipped", dir.display());
        return;
    };
    let sources: Vec<String> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    let bytes: usize = sources.iter().map(String::len).sum();
    println!("front_end: {} files, {bytes} bytes, median of {ROUNDS} rounds", sources.len());
    measure("lex", bytes, || {
        for s in &sources {
            black_box(lex(s, FileId(0)));
        }
    });
    measure("lex+parse", bytes, || {
        for s in &sources {
            black_box(parse(s, FileId(0)));
        }
    });
    measure("lex+parse+validate", bytes, || {
        for s in &sources {
            let (module, _) = parse(s, FileId(0));
            black_box(validate(&module, &ValidateOptions::default()));
        }
    });
}

fn measure(name: &str, bytes: usize, mut run: impl FnMut()) {
    run();
    let mut seconds: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_secs_f64()
        })
        .collect();
    seconds.sort_by(f64::total_cmp);
    let median = seconds[ROUNDS / 2];
    println!("{name:>20}: {:8.1} MB/s ({:.2} ms per round)", bytes as f64 / median / 1e6, median * 1e3);
}
