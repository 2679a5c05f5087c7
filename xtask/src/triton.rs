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

    /// tests/triton/manifest.toml on the interpreter, sampled
    /// ([`sample_manifest`]): NVIDIA's cubin and ours (compiled in
    /// process) give the same outputs, but for [`KNOWN`], whose launches
    /// always run. `TRITON_MANIFEST_SAMPLE=all` runs every launch (as
    /// `cargo xtask difftest --manifest tests/triton/manifest.toml` does),
    /// `=N` rotates the sample by N targets.
    #[test]
    fn the_triton_manifest_passes() {
        let Some(oracle) = nv_oracle::Oracle::for_test("the_triton_manifest_passes") else { return };
        let manifest = crate::workspace_root().join("tests/triton/manifest.toml");
        let dir = std::env::temp_dir().join(format!("difftest-triton-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = std::fs::read_to_string(&manifest).unwrap();
        let all = launch_labels(&text);
        for (k, ..) in KNOWN {
            assert!(all.iter().any(|l| l == k), "KNOWN names {k}, which the manifest does not launch");
        }
        let rotation = match std::env::var("TRITON_MANIFEST_SAMPLE").as_deref() {
            Ok("all") => None,
            Ok(n) => Some(n.parse::<usize>().expect("TRITON_MANIFEST_SAMPLE: `all` or a number")),
            Err(_) => Some(0),
        };
        let outcomes = match rotation {
            None => run_launches(&manifest, None, &[], &oracle.ptxas(), &dir, false).unwrap(),
            Some(r) => {
                let root = manifest.parent().unwrap();
                let sampled = dir.join("sampled.toml");
                std::fs::write(&sampled, sample_manifest(&text, root, r, &|l| KNOWN.iter().any(|(k, ..)| *k == l)))
                    .unwrap();
                run_launches(&sampled, None, &[], &oracle.ptxas(), &dir, false).unwrap()
            }
        };
        let ran: Vec<&str> = outcomes.iter().map(|(l, _)| l.as_str()).collect();
        println!("ran {} of the manifest's {} launches", ran.len(), all.len());
        // The sample keeps every kernel, every target and every KNOWN launch.
        for (k, ..) in KNOWN {
            assert!(ran.contains(k), "the sample left out KNOWN's {k}");
        }
        for label in &all {
            let (launch, arch) = label.rsplit_once(' ').unwrap();
            let kernel = launch.split('/').next().unwrap();
            assert!(ran.iter().any(|l| l.starts_with(&format!("{kernel}/"))), "the sample left out {kernel}");
            assert!(ran.iter().any(|l| l.ends_with(&format!(" {arch}"))), "the sample left out {arch}");
        }
        let problems = known_problems(&outcomes, KNOWN, "KNOWN");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// Every launch label of the manifest (`kernel/entry arch`), in order.
    fn launch_labels(text: &str) -> Vec<String> {
        let cases = crate::difftest::manifest::parse_manifest(text).unwrap();
        cases.iter().flat_map(|c| c.archs.iter().map(move |a| format!("{}/{} {a}", c.kernel, c.entry))).collect()
    }

    /// The manifest with each kernel kept on one of its targets: the
    /// `(i + rotation) % targets`-th for the `i`-th kernel, so that every
    /// kernel runs once and each target about as often (all 88 launches
    /// took 21 minutes of the test command on two loaded cores in session
    /// 16, most of it compiling ours of the big kernels four times over;
    /// the sample: 40 of 94 in 5 minutes); targets with a launch `keep` names stay
    /// too. Every launch of a kept target runs. Folders become absolute,
    /// for the copy is written elsewhere.
    fn sample_manifest(text: &str, root: &std::path::Path, rotation: usize, keep: &dyn Fn(&str) -> bool) -> String {
        let mut doc: toml::Table = text.parse().unwrap();
        let kernels = doc.get_mut("kernel").and_then(|k| k.as_array_mut()).unwrap();
        for (i, k) in kernels.iter_mut().enumerate() {
            let k = k.as_table_mut().unwrap();
            let name = k["name"].as_str().unwrap().to_string();
            let entries: Vec<String> = k
                .get("launch")
                .and_then(|l| l.as_array())
                .into_iter()
                .flatten()
                .filter_map(|l| l.get("entry")?.as_str().map(str::to_string))
                .collect();
            let archs: Vec<String> = k
                .get("archs")
                .and_then(|a| a.as_array())
                .expect("every Triton kernel names its targets")
                .iter()
                .filter_map(|a| a.as_str().map(str::to_string))
                .collect();
            let chosen = (i + rotation) % archs.len().max(1);
            let kept: Vec<toml::Value> = archs
                .iter()
                .enumerate()
                .filter(|&(j, a)| j == chosen || entries.iter().any(|e| keep(&format!("{name}/{e} {a}"))))
                .map(|(_, a)| toml::Value::String(a.clone()))
                .collect();
            k.insert("archs".into(), toml::Value::Array(kept));
            let dir = root.join(k.get("dir").and_then(|d| d.as_str()).unwrap_or("kernels"));
            k.insert("dir".into(), toml::Value::String(dir.display().to_string()));
        }
        toml::to_string(&doc).unwrap()
    }
}
