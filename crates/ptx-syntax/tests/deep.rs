//! Input whose size drives nesting: 12,000 braces, 100,000-term constant
//! expressions, 70,000-term addresses, parentheses and prefix operators up
//! to ptxas's parser stack limit. Parsing, validation, printing,
//! normalization and dropping the tree must not overflow a 2 MiB stack (a
//! test thread's default; the `ptxas` binary's main thread has 8 MiB), and
//! the verdict and messages must be NVIDIA's.

use ptx_syntax::{FileId, Sm, ValidateOptions, normalize, parse, print, validate};

const HEAD: &str = ".version 8.5\n.target sm_90\n.address_size 64\n";

fn kernel(body: &str) -> String {
    format!("{HEAD}.visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n{body}\nret;\n}}\n")
}

fn braces(n: usize) -> String {
    format!("{HEAD}.visible .entry k()\n{}ret;{}\n", "{".repeat(n), "}".repeat(n))
}

fn terms(first: &str, op: &str, n: usize) -> String {
    let mut text = first.to_owned();
    for _ in 1..n {
        text.push_str(op);
        text.push_str(first);
    }
    text
}

/// Each case: name and source. The `_ok` cases sit at ptxas's limit, the
/// others one past it.
fn cases() -> Vec<(&'static str, String)> {
    vec![
        ("braces_12000", braces(12_000)),
        ("braces_1664_ok", braces(1_664)),
        ("braces_1665", braces(1_665)),
        ("product_100000_ok", kernel(&format!("mov.u32 %r1, {};", terms("1", "*", 100_000)))),
        ("logical_or_100000_ok", kernel(&format!("mov.u32 %r1, {};", terms("1", "||", 100_000)))),
        ("shift_100000_ok", kernel(&format!("mov.u32 %r1, {};", terms("1", "<<", 100_000)))),
        ("address_70000_ok", kernel(&format!("ld.param.u64 %rd1, [p{}];", "+0".repeat(70_000)))),
        ("parens_9978_ok", kernel(&format!("mov.u32 %r1, {}1{};", "(".repeat(9_978), ")".repeat(9_978)))),
        ("parens_9979", kernel(&format!("mov.u32 %r1, {}1{};", "(".repeat(9_979), ")".repeat(9_979)))),
        ("minus_4989_ok", kernel(&format!("mov.u32 %r1, {}1;", "- ".repeat(4_989)))),
        ("minus_4990", kernel(&format!("mov.u32 %r1, {}1;", "- ".repeat(4_990)))),
        ("complement_100000", kernel(&format!("mov.u32 %r1, {}1;", "~".repeat(100_000)))),
        ("ternary_5000", kernel(&format!("mov.u32 %r1, {}1{};", "1?".repeat(5_000), ":1".repeat(5_000)))),
        ("right_nested_3326_ok", kernel(&format!("mov.u32 %r1, {}1{};", "1+(".repeat(3_326), ")".repeat(3_326)))),
        ("right_nested_3327", kernel(&format!("mov.u32 %r1, {}1{};", "1+(".repeat(3_327), ")".repeat(3_327)))),
        ("vector_braces_300", kernel(&format!("mov.u32 %r1, {}1{};", "{".repeat(300), "}".repeat(300)))),
    ]
}

/// Our errors in ptxas's format, one a line (empty when accepted), worked
/// out on a thread with a 2 MiB stack.
fn errors(name: &'static str, source: String) -> String {
    std::thread::Builder::new()
        .name(name.to_owned())
        .stack_size(2 << 20)
        .spawn(move || {
            let file = format!("{name}.ptx");
            let (mut module, syntax) = parse(&source, FileId(0));
            let diags = if syntax.is_empty() {
                let options = ValidateOptions { arch: Sm::parse("sm_90"), ..ValidateOptions::default() };
                let diags = validate(&module, &options);
                let printed = print(&module);
                assert_eq!(parse(&printed, FileId(0)).0, module, "{name}: round trip");
                normalize(&mut module);
                diags
            } else {
                syntax
            };
            drop(module);
            let errors: Vec<String> =
                diags.iter().filter(|d| d.is_error()).map(|d| d.render_ptxas(&file, &source)).collect();
            errors.join("\n")
        })
        .expect("spawn")
        .join()
        .unwrap_or_else(|_| panic!("{name}: the front end panicked"))
}

#[test]
fn deep_input_fits_a_small_stack_and_gets_nvidias_verdict() {
    let oracle = nv_oracle::Oracle::for_test("deep_input_fits_a_small_stack_and_gets_nvidias_verdict");
    let dir = std::env::temp_dir().join(format!("ptx-syntax-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut failures = Vec::new();
    for (name, source) in cases() {
        let ours = errors(name, source.clone());
        if ours.is_empty() != name.ends_with("_ok") {
            failures.push(format!("{name}: {ours}"));
        }
        if let Some(oracle) = &oracle {
            let file = format!("{name}.ptx");
            std::fs::write(dir.join(&file), &source).expect("write case");
            let output = oracle.run_ptxas(&["-arch=sm_90", &file, "-o", "/dev/null"], &dir).expect("run ptxas");
            // ptxas stops at its first error; we go on after a syntax error
            // (parser recovery) but not after `memory exhausted`, so there
            // every message must be NVIDIA's, elsewhere the first.
            let stderr = String::from_utf8_lossy(&output.stderr);
            let theirs: Vec<&str> =
                stderr.lines().filter(|l| !l.ends_with("Ptx assembly aborted due to errors")).collect();
            let theirs = theirs.join("\n");
            let ours = if theirs.ends_with("memory exhausted") { &ours[..] } else { ours.lines().next().unwrap_or("") };
            if theirs != ours {
                failures.push(format!("{name}:\n  ptxas: {theirs}\n  ours:  {ours}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
