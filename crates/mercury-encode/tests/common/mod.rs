//! Shared by the integration tests: where things are, and running NVIDIA's
//! tools.

// Each test binary uses its own subset.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use mercury_encode::Sm;

/// The corpus kernels (`../shared/corpus/kernels` next to the workspace).
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/kernels");
    dir.is_dir().then_some(dir)
}

/// A scratch directory for this test binary.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("create scratch directory");
    dir
}

/// The SM family and `-arch` of a corpus file `NAME.sm80.ptx` / `.sm90.ptx`
/// / `.sm90a.ptx`.
pub fn arch_of(path: &Path) -> Option<(Sm, &'static str)> {
    let name = path.file_name()?.to_str()?;
    if name.ends_with(".sm80.ptx") {
        Some((Sm::Sm80, "sm_80"))
    } else if name.ends_with(".sm90a.ptx") {
        Some((Sm::Sm90, "sm_90a"))
    } else if name.ends_with(".sm90.ptx") {
        Some((Sm::Sm90, "sm_90"))
    } else {
        None
    }
}

/// Runs a tool, returning stdout, or stderr as the error.
pub fn run(tool: &Path, args: &[&std::ffi::OsStr]) -> Result<String, String> {
    let out = Command::new(tool).args(args).output().map_err(|e| format!("{}: {e}", tool.display()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}
