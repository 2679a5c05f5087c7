//! NVIDIA's own tools as the oracle for tests and xtasks.
//!
//! `ptxas`, `nvdisasm` and `cuobjdump` 13.5 come from PyPI (no GPU needed) and
//! are installed by `cargo xtask oracle` into `target/oracle/`. Tests find
//! them through [`Oracle::find`]; when the tools are missing a test says so
//! and skips, unless `NV_ORACLE_REQUIRED=1` is set (as `cargo xtask test` and
//! CI do), in which case a missing oracle is a failure rather than a silent
//! pass.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The pinned PyPI packages, all of CUDA 13.5.
pub const PACKAGES: &[&str] = &[
    "nvidia-cuda-nvcc==13.5.*",
    "nvidia-cuda-nvdisasm==13.5.*",
    "nvidia-cuda-cuobjdump==13.5.*",
    "nvidia-cuda-nvrtc==13.5.*",
];

/// Environment variable that overrides where the oracle lives (the pip
/// `--target` directory, which contains `nvidia/cu13/bin`).
pub const DIR_ENV: &str = "NV_ORACLE_DIR";

/// Environment variable that turns a missing oracle into a test failure.
pub const REQUIRED_ENV: &str = "NV_ORACLE_REQUIRED";

/// An installed copy of NVIDIA's command-line tools.
#[derive(Clone, Debug)]
pub struct Oracle {
    bin: PathBuf,
}

impl Oracle {
    /// Finds the tools: `$NV_ORACLE_DIR`, else `target/oracle` of the
    /// workspace that contains the current directory or this crate.
    pub fn find() -> Option<Oracle> {
        let candidates = std::env::var_os(DIR_ENV).map(PathBuf::from).into_iter().chain(default_dir());
        candidates
            .map(|dir| dir.join("nvidia/cu13/bin"))
            .find(|bin| bin.join("ptxas").is_file())
            .map(|bin| Oracle { bin })
    }

    /// The oracle for a test: `Some` when installed; `None` (after printing
    /// why the test is skipped) when not; panics when missing although
    /// `NV_ORACLE_REQUIRED` is set.
    pub fn for_test(test: &str) -> Option<Oracle> {
        if let Some(oracle) = Oracle::find() {
            return Some(oracle);
        }
        let required = std::env::var(REQUIRED_ENV).is_ok_and(|v| v == "1");
        assert!(
            !required,
            "{test}: NVIDIA's tools are required ({REQUIRED_ENV}=1) but missing; run `cargo xtask oracle`"
        );
        eprintln!("{test}: skipped, NVIDIA's tools are not installed (run `cargo xtask oracle`)");
        None
    }

    /// Path of NVIDIA's `ptxas`.
    pub fn ptxas(&self) -> PathBuf {
        self.bin.join("ptxas")
    }

    /// Path of `nvdisasm`.
    pub fn nvdisasm(&self) -> PathBuf {
        self.bin.join("nvdisasm")
    }

    /// Path of `cuobjdump`.
    pub fn cuobjdump(&self) -> PathBuf {
        self.bin.join("cuobjdump")
    }

    /// Path of `nvlink` (from the nvcc package): links `-c` objects.
    pub fn nvlink(&self) -> PathBuf {
        self.bin.join("nvlink")
    }

    /// Runs NVIDIA's ptxas with `args` in `cwd`.
    pub fn run_ptxas(&self, args: &[&str], cwd: &Path) -> std::io::Result<Output> {
        Command::new(self.ptxas()).args(args).current_dir(cwd).output()
    }
}

/// `target/oracle` of the enclosing workspace, if one can be found.
pub fn default_dir() -> Option<PathBuf> {
    let start = std::env::current_dir().ok()?;
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [start, crate_dir]
        .into_iter()
        .flat_map(|dir| dir.ancestors().map(Path::to_path_buf).collect::<Vec<_>>())
        .find(|dir| dir.join("Cargo.toml").is_file() && dir.join("phases.ron").is_file())
        .map(|root| root.join("target/oracle"))
}

/// Installs the pinned packages with pip into `dir` unless `ptxas` is already
/// there. Returns the oracle.
pub fn install(dir: &Path) -> Result<Oracle, String> {
    let bin = dir.join("nvidia/cu13/bin");
    if !bin.join("ptxas").is_file() {
        let python = ["python3", "python"]
            .into_iter()
            .find(|p| Command::new(p).arg("--version").output().is_ok())
            .ok_or("no python3 found to run pip")?;
        let status = Command::new(python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target"])
            .arg(dir)
            .args(PACKAGES)
            .status()
            .map_err(|e| format!("cannot run pip: {e}"))?;
        if !status.success() {
            return Err(format!("pip install into {} failed ({status})", dir.display()));
        }
    }
    if bin.join("ptxas").is_file() {
        Ok(Oracle { bin })
    } else {
        Err(format!("pip finished but {} has no ptxas", bin.display()))
    }
}
