//! The library API embedded in a program: no global state, so several
//! compilations can run at once and give the same results as one alone.

use ptxas::{DumpAfter, Options, Source, compile_sources};

fn source() -> Source {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/copy_chain.ori");
    Source { name: "copy_chain.ori".into(), text: std::fs::read_to_string(path).unwrap() }
}

/// The dumps and the cubin of one compilation.
fn dumps(options: &Options) -> (Vec<String>, Vec<u8>) {
    let output = compile_sources(&[source()], options).unwrap();
    let dumps = output.report.dumps.into_iter().map(|d| format!("{}\n{}", d.after, d.text)).collect();
    (dumps, output.cubin.unwrap())
}

#[test]
fn concurrent_compilations_match_a_single_one() {
    let options = Options { arch: "sm_90".parse().unwrap(), dump_after: DumpAfter::All, ..Options::default() };
    let alone = dumps(&options);
    assert_eq!(alone.0.len(), 23);
    let results: Vec<(Vec<String>, Vec<u8>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4).map(|_| scope.spawn(|| dumps(&options))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for result in results {
        assert_eq!(result, alone);
    }
}

#[test]
fn diagnostics_are_data() {
    let options = Options { arch: "sm_90".parse().unwrap(), ..Options::default() };
    let bad = Source { name: "bad.ori".into(), text: ".target sm_90\n.entry k {\nbb0:\n    FROB\n}\n".into() };
    let failure = compile_sources(&[bad], &options).unwrap_err();
    let diag = &failure.report.diagnostics[0];
    assert!(diag.is_error());
    let location = diag.location.as_ref().unwrap();
    assert_eq!((location.file.as_str(), location.line, location.column), ("bad.ori", 4, Some(5)));
    assert_eq!(diag.message, "unknown opcode `FROB`");
}
