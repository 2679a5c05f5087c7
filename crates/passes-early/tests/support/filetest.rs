//! The file-test runner shared by the pass crates (`passes-late` includes
//! this file by path).
//!
//! A test is `tests/filetests/<PhaseName>/<case>.ori`: an Ori module (with
//! `.target` and `.props`; `//` comments on top say what the case checks),
//! then the line `// ---- expected`, then the module as the printer writes
//! it after running that one phase. The runner checks that the input
//! verifies and has the properties the phase requires, runs the phase,
//! applies its declared property changes, verifies the result, checks that
//! a second run changes nothing (every phase here runs to its own fixed
//! point), and compares the text.
//!
//! `BLESS=1 cargo test ...` rewrites every expectation with what the phase
//! printed; read each rewritten file before committing it.

use std::fs;
use std::path::{Path, PathBuf};

use ori_ir::text::{parse_module, print_module};
use ori_ir::{Forms, Knobs, Phase, PhaseContext, verify_module};
use pretty_assertions::StrComparison;

/// The line between input and expected output.
const SEPARATOR: &str = "// ---- expected\n";

/// What the encoder can encode on a target, for phases that ask.
pub type FormsFor = fn(ori_ir::Sm) -> Box<dyn Forms>;

/// Runs every file test of the crate at `manifest_dir` for `phases`.
pub fn run(manifest_dir: &str, phases: Vec<Box<dyn Phase>>, forms: FormsFor) {
    let root = Path::new(manifest_dir).join("tests").join("filetests");
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    let mut count = 0;
    for phase in &phases {
        let files = ori_files(&root.join(phase.name()));
        if files.is_empty() {
            failures.push(format!("phase {} has no file tests in {}", phase.name(), root.display()));
        }
        for path in files {
            count += 1;
            if let Err(message) = run_file(phase.as_ref(), &path, bless, forms) {
                let shown = path.strip_prefix(manifest_dir).unwrap_or(&path);
                failures.push(format!("{}: {message}", shown.display()));
            }
        }
    }
    // A directory that names no phase would be skipped silently.
    for entry in fs::read_dir(&root).expect("tests/filetests exists") {
        let name = entry.expect("readable directory").file_name();
        let name = name.to_string_lossy();
        if !phases.iter().any(|p| p.name() == name) {
            failures.push(format!("tests/filetests/{name} names no phase of this crate"));
        }
    }
    assert!(failures.is_empty(), "{} problem(s) in {count} file tests:\n\n{}", failures.len(), failures.join("\n\n"));
}

fn ori_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("readable directory").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ori"))
        .collect();
    files.sort();
    files
}

fn run_file(phase: &dyn Phase, path: &Path, bless: bool, forms: FormsFor) -> Result<(), String> {
    let text = fs::read_to_string(path).map_err(|e| e.to_string())?;
    let (input, expected) = match text.split_once(SEPARATOR) {
        Some((input, expected)) => (input, Some(expected)),
        None => (text.as_str(), None),
    };
    let mut module = parse_module(input).map_err(|e| format!("input: {e}"))?;
    verify_module(&module).map_err(|e| format!("input does not verify: {e:#?}"))?;
    let missing = phase.requires().minus(module.props);
    if !missing.is_empty() {
        return Err(format!("input lacks {missing}, which {} requires", phase.name()));
    }
    let knobs = Knobs::defaults(phase.knobs());
    let forms = forms(module.target);
    let cx = PhaseContext { target: module.target.target(), opt_level: 3, knobs: &knobs, forms: forms.as_ref() };
    ori_ir::phase::run_on_module(phase, &mut module, &cx).map_err(|e| format!("phase failed: {e}"))?;
    module.props = module.props.minus(phase.invalidates()).union(phase.establishes());
    let actual = print_module(&module);
    verify_module(&module).map_err(|e| format!("output does not verify: {e:#?}\n{actual}"))?;
    let mut again = module.clone();
    ori_ir::phase::run_on_module(phase, &mut again, &cx).map_err(|e| format!("second run failed: {e}"))?;
    let second = print_module(&again);
    if second != actual {
        return Err(format!("a second run changed the output:\n{}", StrComparison::new(&actual, &second)));
    }
    if bless {
        return fs::write(path, format!("{input}{SEPARATOR}{actual}")).map_err(|e| e.to_string());
    }
    match expected {
        Some(expected) if expected == actual => Ok(()),
        Some(expected) => {
            Err(format!("output differs (< expected, > actual):\n{}", StrComparison::new(expected, &actual)))
        }
        None => Err(format!("no `{}` line; run with BLESS=1 to write the expectation", SEPARATOR.trim_end())),
    }
}
