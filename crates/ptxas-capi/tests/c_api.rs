//! The C API from C and from Python: `tests/c/compile.c`, a program written
//! for NVIDIA's PTX Compiler API, built by `cc` against our header and
//! linked with our static and our shared library; and Python's `ctypes`
//! loading the shared library. Their cubins must equal what our command
//! line writes for the same PTX and options.

use std::path::{Path, PathBuf};
use std::process::Command;

const KERNEL: &str = "\
.version 8.0
.target sm_90
.address_size 64

.visible .entry vinc(.param .u64 p, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p, %r2, %r1;
  @%p bra DONE;
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r3, [%rd3];
  add.s32 %r3, %r3, 1;
  st.global.u32 [%rd3], %r3;
DONE:
  ret;
}
";

/// Where cargo put this package's libraries (`target/<profile>/`), after
/// building them: `cargo test` builds only the rlib its tests link, not the
/// cdylib and staticlib a C program needs. Built once per test process.
fn lib_dir() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().unwrap();
            let dir = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
            let release = dir.file_name().is_some_and(|n| n == "release");
            let mut cargo = Command::new(env!("CARGO"));
            cargo.args(["build", "--quiet", "-p", "ptxas-capi", "--lib"]).current_dir(crate_dir());
            if release {
                cargo.arg("--release");
            }
            let status = cargo.status().expect("cargo builds the C libraries");
            assert!(status.success(), "cargo build -p ptxas-capi failed: {status}");
            dir
        })
        .clone()
}

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("capi-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Our command line's cubin for `ptx` with `options`.
fn command_line_cubin(dir: &Path, ptx: &Path, options: &[&str]) -> Vec<u8> {
    let out = dir.join("cli.cubin");
    let mut args: Vec<String> = options.iter().map(|s| s.to_string()).collect();
    args.extend([ptx.display().to_string(), "-o".into(), out.display().to_string()]);
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut io = ptxas::cli::Io { stdin: &mut std::io::empty(), stdout: &mut stdout, stderr: &mut stderr };
    assert_eq!(ptxas::cli::run(&args, &mut io, None), 0, "{}", String::from_utf8_lossy(&stderr));
    std::fs::read(out).unwrap()
}

/// Builds `tests/c/compile.c` with `cc`, linked as `link` says.
fn build_c(dir: &Path, name: &str, link: &[&str]) -> PathBuf {
    let exe = dir.join(name);
    let status = Command::new("cc")
        .arg(crate_dir().join("tests/c/compile.c"))
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg("-o")
        .arg(&exe)
        .args(link)
        .status()
        .expect("a C compiler `cc` (the C API is tested from C)");
    assert!(status.success(), "cc failed: {status}");
    exe
}

fn check_c_program(exe: &Path, dir: &Path, env: &[(&str, &Path)]) {
    let ptx = dir.join("vinc.ptx");
    std::fs::write(&ptx, KERNEL).unwrap();
    let cubin = dir.join("c.cubin");
    let options = ["--gpu-name=sm_90", "-O3", "-v"];
    let mut command = Command::new(exe);
    command.arg(&ptx).arg(&cubin).args(options);
    for (k, v) in env {
        command.env(k, v);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.starts_with("version 13.5\ncompile 0\ninfo log:\nptxas info    : 0 bytes gmem\n"), "{stdout}");
    assert!(stdout.contains("ptxas info    : Compiling entry function 'vinc' for 'sm_90'\n"), "{stdout}");
    assert_eq!(std::fs::read(&cubin).unwrap(), command_line_cubin(dir, &ptx, &options));

    // A failure: the error log, NVIDIA's result code, no cubin.
    let bad = dir.join("bad.ptx");
    std::fs::write(&bad, KERNEL.replace("add.s32", "add.bogus")).unwrap();
    let mut command = Command::new(exe);
    command.arg(&bad).arg(dir.join("bad.cubin")).arg("--gpu-name=sm_90");
    for (k, v) in env {
        command.env(k, v);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("error log:\nptxas application ptx input, line 19; error   : "), "{stdout}");
    assert!(stdout.contains("ptxas fatal   : Ptx assembly aborted due to errors\n"), "{stdout}");
    assert!(!dir.join("bad.cubin").exists());
}

#[test]
fn a_c_program_linked_with_the_static_library_gets_the_command_lines_cubin() {
    let dir = scratch("static");
    let lib = lib_dir().join("libnvptxcompiler.a");
    assert!(lib.is_file(), "{} missing", lib.display());
    let exe = build_c(&dir, "compile-static", &[lib.to_str().unwrap(), "-lpthread", "-ldl", "-lm"]);
    check_c_program(&exe, &dir, &[]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_c_program_linked_with_the_shared_library_gets_the_command_lines_cubin() {
    let dir = scratch("shared");
    let lib_dir = lib_dir();
    assert!(lib_dir.join("libnvptxcompiler.so").is_file());
    let exe = build_c(&dir, "compile-shared", &["-L", lib_dir.to_str().unwrap(), "-lnvptxcompiler"]);
    check_c_program(&exe, &dir, &[("LD_LIBRARY_PATH", &lib_dir)]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn python_ctypes_compiles_through_the_shared_library() {
    let dir = scratch("python");
    let ptx = dir.join("vinc.ptx");
    std::fs::write(&ptx, KERNEL).unwrap();
    let script = r#"
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
ptx = open(sys.argv[2], 'rb').read()
h = ctypes.c_void_p()
assert lib.nvPTXCompilerCreate(ctypes.byref(h), ctypes.c_size_t(len(ptx)), ptx) == 0
opts = (ctypes.c_char_p * 2)(b"--gpu-name=sm_90", b"-O3")
assert lib.nvPTXCompilerCompile(h, 2, opts) == 0
size = ctypes.c_size_t()
assert lib.nvPTXCompilerGetCompiledProgramSize(h, ctypes.byref(size)) == 0
image = ctypes.create_string_buffer(size.value)
assert lib.nvPTXCompilerGetCompiledProgram(h, image) == 0
open(sys.argv[3], 'wb').write(image.raw)
assert lib.nvPTXCompilerDestroy(ctypes.byref(h)) == 0 and h.value is None
# A null handle, and a handle asked for a program before compiling.
assert lib.nvPTXCompilerCompile(None, 0, None) == 1
assert lib.nvPTXCompilerCreate(ctypes.byref(h), ctypes.c_size_t(len(ptx)), ptx) == 0
assert lib.nvPTXCompilerGetCompiledProgramSize(h, ctypes.byref(size)) == 6
assert lib.nvPTXCompilerDestroy(ctypes.byref(h)) == 0
"#;
    let cubin = dir.join("py.cubin");
    let output = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(lib_dir().join("libnvptxcompiler.so"))
        .arg(&ptx)
        .arg(&cubin)
        .output()
        .expect("python3 (the C API is tested from Python's ctypes)");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(std::fs::read(&cubin).unwrap(), command_line_cubin(&dir, &ptx, &["--gpu-name=sm_90", "-O3"]));
    let _ = std::fs::remove_dir_all(&dir);
}
