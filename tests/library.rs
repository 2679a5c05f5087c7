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
    assert_eq!(alone.0.len(), 29);
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

/// `--split-compile`: the functions of a module compiled on several
/// threads give the bytes one thread gives (multi_entry: six kernels;
/// device_calls: kernels and out-of-line callees).
#[test]
fn split_compile_gives_the_same_cubin_for_any_thread_count() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/kernels");
    for kernel in ["multi_entry", "device_calls"] {
        for sm in [80, 90] {
            let name = format!("{kernel}.sm{sm}.ptx");
            let source = Source { name: name.clone(), text: std::fs::read_to_string(corpus.join(&name)).unwrap() };
            let cubin = |threads| {
                let options = Options { arch: format!("sm_{sm}").parse().unwrap(), threads, ..Options::default() };
                compile_sources(std::slice::from_ref(&source), &options).unwrap().cubin.unwrap()
            };
            let one = cubin(1);
            assert_eq!(cubin(2), one, "{name}: 2 threads");
            assert_eq!(cubin(5), one, "{name}: 5 threads");
        }
    }
}
