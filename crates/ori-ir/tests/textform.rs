//! The textual form round-trips, and the verifier rejects each invariant it
//! claims to check (one file per broken invariant under `tests/verify/`,
//! whose first line says which error it must produce).

use std::fs;
use std::path::Path;

use ori_ir::text::{parse_module, print_module};
use ori_ir::verify_module;
use pretty_assertions::assert_eq;

fn files(dir: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(dir);
    let mut files: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty(), "no test files in {}", dir.display());
    files
}

#[test]
fn text_round_trips_exactly() {
    for path in files("text") {
        let text = fs::read_to_string(&path).unwrap();
        let module = parse_module(&text).unwrap_or_else(|e| panic!("{}:{e}", path.display()));
        assert_eq!(print_module(&module), text, "{}", path.display());
        let reparsed = parse_module(&print_module(&module)).unwrap();
        assert_eq!(print_module(&reparsed), text);
        verify_module(&module).unwrap_or_else(|e| panic!("{}: {:#?}", path.display(), e));
    }
}

#[test]
fn verifier_rejects_each_broken_invariant() {
    for path in files("verify") {
        let text = fs::read_to_string(&path).unwrap();
        let expected =
            text.lines().next().and_then(|l| l.strip_prefix("// error: ")).expect("first line names the error");
        let module = parse_module(&text).unwrap_or_else(|e| panic!("{}:{e}", path.display()));
        let errors = verify_module(&module).expect_err(&format!("{} must not verify", path.display()));
        let rendered: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(
            rendered.iter().any(|e| e.contains(expected)),
            "{}: expected `{expected}`, got {rendered:#?}",
            path.display()
        );
    }
}

#[test]
fn parse_errors_point_at_the_problem() {
    let cases = [
        (".target sm_90\n.entry k {\nbb0:\n    %r0 = FOO %r1\n}\n", "4:11: unknown opcode `FOO`"),
        (".target sm_91\n", "1:9: unknown target `sm_91`"),
        (
            ".target sm_90\n.entry k {\nbb0:\n    BRA nowhere\n    EXIT\n}\n",
            "4:1: label `nowhere` is used but never defined",
        ),
        (
            ".target sm_90\n.entry k {\nbb0:\n    %r0 = IMAD.BOGUS %r1, %r2, %r3\n}\n",
            "4:11: unknown modifier `.BOGUS` on IMAD",
        ),
        (".target sm_90\n.entry k {\nbb0:\n    R255 = MOV R1\n}\n", "4:5: no register R255"),
        (".target sm_90\n.entry k {\nbb0:\n    [B------:R-:W9:Y:S04] EXIT\n}\n", "4:5: bad control word"),
    ];
    for (text, expected) in cases {
        let err = parse_module(text).expect_err(text);
        assert!(err.to_string().starts_with(expected), "got `{err}`, expected `{expected}`");
    }
}
