//! `cargo xtask triton [--update] [KERNEL...]`: Triton through our ptxas.
//!
//! Installs the pinned Triton from PyPI into `target/triton` (as the
//! oracle is installed: pip, nothing by hand), has it generate the PTX of
//! the kernels of `tests/triton/gen.py` for sm_80, sm_90a, sm_100a and sm_120a (no GPU
//! needed; Triton runs NVIDIA's ptxas as its last stage), then compiles
//! each PTX with NVIDIA's ptxas and with ours on Triton's own command line
//! ([`triton_args`]) and prints, per kernel and target, whether ours
//! compiles and registers, spill bytes and SASS instructions, ours /
//! NVIDIA's. `--update` writes the generated PTX over the fixtures in
//! `tests/triton/` (which the test command compiles without Triton);
//! without it the PTX goes to `target/triton/ptx` and fixtures that
//! differ from it are named.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::corpus_report::{Figures, compile};

/// The Triton release the fixtures come from (the newest on PyPI for the
/// Python 3.11 here, November 2026).
pub const TRITON: &str = "triton==3.9.0";

/// The targets Triton compiles for, as the fixture names spell them, and
/// the `--gpu-name` Triton passes (it compiles sm_90, sm_100 and sm_120 as
/// their `a` targets; the Blackwell ones through `TRITON_PTXAS_BLACKWELL_PATH`).
pub const TARGETS: &[(&str, &str)] =
    &[("sm80", "sm_80"), ("sm90a", "sm_90a"), ("sm100a", "sm_100a"), ("sm120a", "sm_120a")];

/// Triton 3.x's ptxas arguments before `FILE -o CUBIN` (`make_cubin` in
/// `third_party/nvidia/backend/compiler.py`, default knobs: line info,
/// fused multiply-adds, `-v`, its register-allocation workaround).
pub fn triton_args(gpu_name: &str) -> Vec<String> {
    ["-lineinfo", "-v", "--regAllocOptLevel=2"]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("--gpu-name={gpu_name}")])
        .collect()
}

pub fn run(args: &[String]) -> Result<(), String> {
    let update = args.iter().any(|a| a == "--update");
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let root = crate::workspace_root();
    let fixtures = root.join("tests/triton");
    let oracle = crate::oracle::ensure()?;
    let triton = root.join("target/triton");
    install(&triton)?;
    let out = if update { fixtures.clone() } else { triton.join("ptx") };
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let status = Command::new(python()?)
        .arg(fixtures.join("gen.py"))
        .arg(&out)
        .args(&names)
        .env("PYTHONPATH", &triton)
        .env("TRITON_PTXAS_PATH", oracle.ptxas())
        .env("TRITON_PTXAS_BLACKWELL_PATH", oracle.ptxas())
        .env("TRITON_CACHE_DIR", triton.join("cache"))
        // Triton 3.9 warns that the default of fused multiply-adds is
        // about to change; this keeps 3.9's default and quiets it.
        .env("TRITON_DEFAULT_FP_FUSION", "1")
        .status()
        .map_err(|e| format!("cannot run gen.py: {e}"))?;
    if !status.success() {
        return Err("tests/triton/gen.py failed".into());
    }
    let ours = crate::compile::release_ptxas()?;
    let scratch = triton.join("cubins");
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let mut ptx: Vec<PathBuf> = std::fs::read_dir(&out)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .filter(|p| names.is_empty() || names.iter().any(|n| kernel_of(p).is_some_and(|(k, _)| k == n.as_str())))
        .collect();
    ptx.sort();
    let mut stale = Vec::new();
    let mut rows = Vec::new();
    for file in &ptx {
        let Some((kernel, gpu_name)) = kernel_of(file) else { continue };
        if !update {
            let fixture = fixtures.join(file.file_name().expect("a file"));
            if std::fs::read(&fixture).ok() != std::fs::read(file).ok() {
                stale.push(fixture.display().to_string());
            }
        }
        let args = triton_args(gpu_name);
        let theirs = compile(&oracle.ptxas(), &oracle, file, &args, &scratch.join("nvidia.cubin"))?;
        let mine = compile(&ours, &oracle, file, &args, &scratch.join("ours.cubin"));
        rows.push((format!("{kernel} {gpu_name}"), mine.map(first), first(theirs)));
    }
    print!("{}", render(&rows));
    if !stale.is_empty() {
        println!("\nfixtures that differ from what {TRITON} generates now (`cargo xtask triton --update`):");
        for f in &stale {
            println!("  {f}");
        }
    }
    Ok(())
}

/// Installs Triton with pip into `dir` unless it is there.
pub fn install(dir: &Path) -> Result<(), String> {
    if dir.join("triton/__init__.py").is_file() {
        return Ok(());
    }
    // Triton 3.9's only requirement is for Pythons before 3.10.
    let status = Command::new(python()?)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--target"])
        .arg(dir)
        .arg(TRITON)
        .status()
        .map_err(|e| format!("cannot run pip: {e}"))?;
    if status.success() && dir.join("triton/__init__.py").is_file() {
        Ok(())
    } else {
        Err(format!("pip install {TRITON} into {} failed ({status})", dir.display()))
    }
}

fn python() -> Result<&'static str, String> {
    ["python3", "python"]
        .into_iter()
        .find(|p| Command::new(p).arg("--version").output().is_ok())
        .ok_or_else(|| "no python3 found".to_string())
}

/// `NAME.sm80.ptx` -> (`NAME`, `sm_80`).
pub fn kernel_of(file: &Path) -> Option<(&str, &'static str)> {
    let stem = file.file_stem()?.to_str()?;
    let (kernel, tag) = stem.rsplit_once('.')?;
    TARGETS.iter().find(|(t, _)| *t == tag).map(|&(_, gpu)| (kernel, gpu))
}

/// A Triton PTX file has one entry.
fn first(entries: Vec<(String, Figures)>) -> Figures {
    entries.into_iter().next().map(|(_, f)| f).unwrap_or_default()
}

fn render(rows: &[(String, Result<Figures, String>, Figures)]) -> String {
    let mut out = String::from(
        "| kernel | ours compiles | registers | spill bytes | SASS instructions |\n|---|---|---|---|---|\n",
    );
    let mut compiled = 0;
    for (name, mine, theirs) in rows {
        match mine {
            Ok(m) => {
                compiled += 1;
                out += &format!(
                    "| {name} | yes | {} / {} | {} / {} | {} / {} |\n",
                    m.registers,
                    theirs.registers,
                    m.spill_bytes,
                    theirs.spill_bytes,
                    m.instructions,
                    theirs.instructions
                );
            }
            Err(e) => {
                // The first error, without ptxas's file and line prefix.
                let why: String = e.split_once("; ").map_or(e.as_str(), |(_, m)| m).chars().take(90).collect();
                out += &format!(
                    "| {name} | no: {} | - / {} | - / {} | - / {} |\n",
                    why.replace('|', "\\|"),
                    theirs.registers,
                    theirs.spill_bytes,
                    theirs.instructions
                );
            }
        }
    }
    out += &format!("\n{compiled} of {} compile with our ptxas.\n", rows.len());
    out
}

#[cfg(test)]
mod tests {
    use crate::difftest::manifest::{Failure, known_problems, run_launches};

    /// Launches that cannot be compared yet: how each fails and the first
    /// thing that stops it. The test fails once one passes or fails
    /// otherwise, so the list only shrinks. Empty in session 14; session
    /// 15's libdevice kernel (libm) brought four launches whose NVIDIA
    /// words the decoder could not read (`FFMA.FTZ R, |R|, R, +INF`,
    /// `FMNMX.FTZ R, |R|, |R|, !PT`), read since session 16.
    const KNOWN: &[(&str, Failure, &str)] = &[];

    /// tests/triton/manifest.toml on the interpreter: NVIDIA's cubin and
    /// ours (compiled in process) give the same outputs, but for [`KNOWN`].
    #[test]
    fn the_triton_manifest_passes() {
        let Some(oracle) = nv_oracle::Oracle::for_test("the_triton_manifest_passes") else { return };
        let manifest = crate::workspace_root().join("tests/triton/manifest.toml");
        let dir = std::env::temp_dir().join(format!("difftest-triton-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let outcomes = run_launches(&manifest, None, &[], &oracle.ptxas(), &dir, false).unwrap();
        let problems = known_problems(&outcomes, KNOWN, "KNOWN");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
