//! gpu-check without a GPU: the Python runner's own tests, the runner's
//! results read by the Rust compare step (fake kernels), and prepare →
//! simulate → compare on a real corpus kernel.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::compare::{self, Verdict};
use super::job::{Buffer, Cubin, Job, Jobs, Param, Results};
use super::{interp, prepare};

fn has_python() -> bool {
    Command::new(super::python()).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xtask-gpu-check-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn python_runner_unit_tests_pass() {
    if !has_python() {
        eprintln!("skipped: no python3");
        return;
    }
    let root = crate::workspace_root();
    let out = Command::new(super::python())
        .args(["-m", "unittest", "xtask/gpu/test_run_jobs.py"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A job of the Python tests' fake backend: the "cubin" names the kernel
/// (`addK`: dst = src + K over n bytes, params src, dst, n).
fn fake_job(dir: &Path, i: usize, nvidia: Option<&str>, ours: Option<&str>) -> Job {
    let params = vec![
        Param { offset: 0, size: 8, buffer: Some(0), hex: None },
        Param { offset: 8, size: 8, buffer: Some(1), hex: None },
        Param { offset: 16, size: 4, buffer: None, hex: Some("e8030000".into()) },
    ];
    let cubin = |which: &str, word: Option<&str>| match word {
        Some(word) => {
            let rel = format!("cubins/{i}.{which}.cubin");
            std::fs::write(dir.join(&rel), word).unwrap();
            Cubin { path: Some(rel), error: None, param_bytes: 20, params: params.clone() }
        }
        None => Cubin { error: Some("lowering of 'x' is not supported yet".into()), ..Cubin::default() },
    };
    Job {
        id: format!("{i:03}-k{i}-sm_90"),
        kernel: format!("k{i}"),
        entry: "k".into(),
        arch: "sm_90".into(),
        grid: [4, 1, 1],
        block: [256, 1, 1],
        shared_bytes: 0,
        compare: "exact".into(),
        skip: None,
        buffers: vec![
            Buffer {
                name: "src".into(),
                ty: "u8".into(),
                bytes: 1000,
                output: false,
                input: Some("inputs/in.bin".into()),
            },
            Buffer { name: "dst".into(), ty: "u8".into(), bytes: 1000, output: true, input: None },
        ],
        nvidia: cubin("nvidia", nvidia),
        ours: cubin("ours", ours),
    }
}

#[test]
fn compare_reads_what_the_python_runner_writes() {
    if !has_python() {
        eprintln!("skipped: no python3");
        return;
    }
    let dir = temp("runner");
    for sub in ["cubins", "inputs"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("inputs/in.bin"), (0..1000u32).map(|i| (i * 7 % 256) as u8).collect::<Vec<_>>()).unwrap();
    let jobs = Jobs {
        format: super::job::FORMAT,
        manifest: "test".into(),
        warmup: 1,
        reps: 3,
        timeout_s: 10,
        jobs: vec![
            fake_job(&dir, 0, Some("add1"), Some("add1")),
            fake_job(&dir, 1, Some("add1"), Some("add2")),
            fake_job(&dir, 2, Some("add1"), Some("fault")),
            fake_job(&dir, 3, Some("add1"), None),
            fake_job(&dir, 4, Some("fault"), Some("add1")),
            fake_job(&dir, 5, None, Some("add1")),
        ],
    };
    super::job::write_json(&dir.join("jobs.json"), &jobs).unwrap();
    let root = crate::workspace_root();
    let run = Command::new(super::python())
        .arg(root.join(super::RUNNER))
        .arg(&dir)
        .arg("--keep")
        .arg("0")
        .arg("--backend")
        .arg(root.join("xtask/gpu/test_run_jobs.py"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report = compare::compare(&dir, false).unwrap();
    let verdicts: Vec<&Verdict> = report.rows.iter().map(|r| &r.verdict).collect();
    assert_eq!(verdicts[0], &Verdict::Same);
    // dst[0] = src[0] + K = 0 + K.
    assert!(
        matches!(verdicts[1], Verdict::Differ(e) if e.starts_with("dst[0]: nvidia [01], ours [02] (1000 of 1000")),
        "{verdicts:?}"
    );
    assert!(matches!(verdicts[2], Verdict::OursFailed(e) if e.contains("ILLEGAL_ADDRESS")), "{verdicts:?}");
    assert!(matches!(verdicts[3], Verdict::NoCubin(e) if e.contains("not supported")), "{verdicts:?}");
    assert!(matches!(verdicts[4], Verdict::NvidiaFailed(e) if e.contains("ILLEGAL_ADDRESS")), "{verdicts:?}");
    assert!(matches!(verdicts[5], Verdict::NvidiaFailed(e) if e.starts_with("no cubin")), "{verdicts:?}");
    assert_eq!(report.counts(), (2, 4));
    // The fake times addK at K microseconds.
    assert_eq!(report.rows[1].nvidia_ms, Some(0.001));
    assert_eq!(report.rows[1].ours_ms, Some(0.002));
    assert!(report.text().ends_with("6 kernels: pass 2, fail 4"), "{}", report.text());
    assert!(report.markdown().contains("| k1 | `k` | sm_90 | FAIL (outputs differ): dst[0]"), "{}", report.markdown());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A one-kernel manifest: vadd at a small size, twice (the second launch's
/// buffers are described identically, so they share input files).
fn small_manifest(dir: &Path) -> PathBuf {
    let kernels = crate::workspace_root().join("../shared/corpus/kernels");
    let launch = |n: u32| {
        format!(
            "[[kernel.launch]]\nentry = \"vadd\"\ngrid = [{}, 1, 1]\nblock = [256, 1, 1]\n\
             args = [\"a: f32[{n}] in uniform(-1,1)\", \"b: f32[{n}] in uniform(-1,1)\", \"c: f32[{n}] out zeros\", \
             \"n: i32 = {n}\"]\ncompare = \"exact\"\n",
            n.div_ceil(256)
        )
    };
    let text = format!(
        "format = 1\n[[kernel]]\nname = \"vadd\"\ndir = \"{}\"\nentries = [\"vadd\"]\n{}{}",
        kernels.display(),
        launch(1000),
        launch(1000)
    );
    let path = dir.join("manifest.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn prepare_simulate_compare_on_vadd() {
    let Some(oracle) = nv_oracle::Oracle::for_test("prepare_simulate_compare_on_vadd") else { return };
    let dir = temp("vadd");
    let manifest = small_manifest(&dir);
    let jobs_dir = dir.join("jobs");
    let p = prepare::Prepare {
        manifest: &manifest,
        names: &[],
        sms: &[90],
        nvidia_ptxas: &oracle.ptxas(),
        warmup: 1,
        reps: 2,
        timeout_s: 10,
    };
    let summary = prepare::prepare(&jobs_dir, &p).unwrap();
    assert_eq!((summary.jobs, summary.ours_missing), (2, 0));
    // a and b: two distinct files, shared by both launches.
    assert_eq!(summary.input_bytes, 2 * 4000);
    let jobs = Jobs::read(&jobs_dir).unwrap();
    let job = &jobs.jobs[0];
    assert_eq!(job.buffers.iter().map(|b| b.input.is_some()).collect::<Vec<_>>(), [true, true, false]);
    assert_eq!(job.buffers[0].input, jobs.jobs[1].buffers[0].input);
    assert_ne!(job.buffers[0].input, job.buffers[1].input);
    // vadd(a, b, c, n): three pointers, then n = 1000 at offset 24.
    let nv = &job.nvidia;
    assert_eq!(
        nv.params.iter().map(|p| (p.offset, p.buffer)).collect::<Vec<_>>(),
        [(0, Some(0)), (8, Some(1)), (16, Some(2)), (24, None)]
    );
    assert_eq!(nv.params[3].hex.as_deref(), Some("e8030000"));
    assert_eq!(nv.param_bytes, 28);
    assert_eq!(job.ours.params, nv.params);

    assert_eq!(interp::simulate(&jobs_dir).unwrap(), 2);
    let report = compare::compare(&jobs_dir, true).unwrap();
    assert!(report.rows.iter().all(|r| r.verdict == Verdict::Same), "{}", report.text());
    assert!(report.rows.iter().all(|r| r.interp.as_deref() == Some("same")), "{}", report.text());
    // The simulated outputs really are a + b.
    let read = |rel: &str| -> Vec<f32> {
        std::fs::read(jobs_dir.join(rel))
            .unwrap()
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (a, b) = (read(job.buffers[0].input.as_ref().unwrap()), read(job.buffers[1].input.as_ref().unwrap()));
    let c = read(&interp::output_file(job, "nvidia", 2));
    assert!(c.iter().zip(a.iter().zip(&b)).all(|(c, (a, b))| c.to_bits() == (a + b).to_bits()));

    // Break our output of the second launch (consistently with its digest):
    // the compare step must name the element.
    let mut results = Results::read(&jobs_dir).unwrap();
    let second = jobs.jobs[1].id.clone();
    let out = &mut results.jobs.get_mut(&second).unwrap().ours.outputs[0];
    let path = jobs_dir.join(out.file.as_ref().unwrap());
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[4 * 17] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    out.sha256 = super::sha256::hex(&bytes);
    super::job::write_json(&jobs_dir.join("results/results.json"), &results).unwrap();
    let report = compare::compare(&jobs_dir, false).unwrap();
    assert_eq!(report.rows[0].verdict, Verdict::Same);
    assert!(
        matches!(&report.rows[1].verdict, Verdict::Differ(e) if e.starts_with("c[17]: nvidia")),
        "{:?}",
        report.rows[1].verdict
    );
    assert_eq!(report.summary(), "2 kernels: pass 1, fail 1");
    // A kept file that does not match its digest is an error, not a verdict.
    bytes[0] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let e = compare::compare(&jobs_dir, false).err().unwrap();
    assert!(e.contains("does not match its size and digest"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The runner's real CUDA backend (ctypes) against a fake libcuda that
/// runs vadd on the host: checks every driver call's signature and the
/// parameter-buffer launch, end to end from prepare to compare.
#[test]
fn the_cuda_backend_drives_a_fake_driver() {
    let Some(oracle) = nv_oracle::Oracle::for_test("the_cuda_backend_drives_a_fake_driver") else { return };
    if !has_python() {
        eprintln!("skipped: no python3");
        return;
    }
    let dir = temp("fake-driver");
    let root = crate::workspace_root();
    let lib = dir.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = Command::new(&cc)
        .args(["-shared", "-fPIC", "-o"])
        .arg(lib.join("libcuda.so.1"))
        .arg(root.join("xtask/gpu/fake_libcuda.c"))
        .output();
    match built {
        Ok(o) if o.status.success() => {}
        other => {
            eprintln!("skipped: cannot build the fake driver with {cc}: {other:?}");
            return;
        }
    }
    let manifest = small_manifest(&dir);
    let jobs_dir = dir.join("jobs");
    let p = prepare::Prepare {
        manifest: &manifest,
        names: &[],
        sms: &[90],
        nvidia_ptxas: &oracle.ptxas(),
        warmup: 1,
        reps: 4,
        timeout_s: 20,
    };
    prepare::prepare(&jobs_dir, &p).unwrap();
    let out = dir.join("out");
    let run = Command::new(super::python())
        .arg(root.join(super::RUNNER))
        .arg(&jobs_dir)
        .arg("--pack")
        .arg(&out)
        .env("LD_LIBRARY_PATH", &lib)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{log}{}", String::from_utf8_lossy(&run.stderr));
    assert!(log.contains("device: Fake H100 (compute capability 9.0, driver 13000)"), "{log}");
    // Unpack as a session would after fetching the parts from a GPU machine.
    std::fs::remove_dir_all(jobs_dir.join("results")).unwrap();
    let unpack = Command::new("sh")
        .arg("-c")
        .arg(format!("cat {}/gpu-results.tar.gz.* | tar -xz -C {}", out.display(), jobs_dir.display()))
        .status()
        .unwrap();
    assert!(unpack.success());
    let report = compare::compare(&jobs_dir, true).unwrap();
    for row in &report.rows {
        assert_eq!(row.verdict, Verdict::Same, "{}", report.text());
        // The fake computes a + b as the interpreter does: bit for bit.
        assert_eq!(row.interp.as_deref(), Some("same"), "{}", report.text());
        // The fake's events report 0.0125 ms (a C float, through JSON).
        for t in [row.nvidia_ms, row.ours_ms] {
            assert!((t.unwrap() - 0.0125).abs() < 1e-9, "{t:?}");
        }
        assert_eq!(row.registers, (Some(12), Some(12)));
    }
    assert_eq!(report.summary(), "2 kernels: pass 2, fail 0");
    let _ = std::fs::remove_dir_all(&dir);
}
