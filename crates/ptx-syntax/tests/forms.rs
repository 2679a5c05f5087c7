//! One instruction per line of `accepted_forms.txt`, each placed in a kernel
//! for `sm_90a`: every family of the ISA in some legal form. We must accept
//! each one without diagnostics and round-trip it; where NVIDIA's ptxas is
//! installed, it must accept each one too (so the list itself stays honest).

use ptx_syntax::{FileId, ValidateOptions, parse, print, render_ptxas_all, validate};

const FORMS: &str = include_str!("accepted_forms.txt");

fn kernel(line: &str) -> String {
    format!(
        ".version 9.5
.target sm_90a
.address_size 64
.global .align 16 .b8 gbuf[1024];
.shared .align 16 .b8 sbuf[1024];
.const .align 8 .b8 cbuf[64];
.visible .entry k(.param .u64 k_p)
{{
\t.reg .pred %p<8>;
\t.reg .b16 %rs<16>;
\t.reg .b32 %r<64>;
\t.reg .b64 %rd<32>;
\t.reg .f32 %f<64>;
\t.reg .f64 %fd<16>;
\t{line}
\tret;
}}
"
    )
}

fn lines() -> impl Iterator<Item = &'static str> {
    FORMS.lines().map(str::trim).filter(|l| !l.is_empty())
}

#[test]
fn every_family_is_accepted_and_round_trips() {
    let mut failures = Vec::new();
    for line in lines() {
        let source = kernel(line);
        let (module, mut diags) = parse(&source, FileId(0));
        if diags.is_empty() {
            diags = validate(&module, &ValidateOptions::default());
        }
        if !diags.is_empty() {
            failures.push(format!("{line}\n{}", render_ptxas_all(&diags, "form.ptx", &source)));
            continue;
        }
        let (reparsed, diags) = parse(&print(&module), FileId(1));
        if !diags.is_empty() || reparsed != module {
            failures.push(format!("{line}\n  does not round-trip"));
        }
    }
    eprintln!("forms: {} lines, {} failures", lines().count(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn nvidia_ptxas_accepts_every_form() {
    let Some(oracle) = nv_oracle::Oracle::for_test("nvidia_ptxas_accepts_every_form") else { return };
    let dir = std::env::temp_dir().join(format!("ptx-syntax-forms-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut rejected = Vec::new();
    for (n, line) in lines().enumerate() {
        let file = format!("form{n}.ptx");
        std::fs::write(dir.join(&file), kernel(line)).expect("write form");
        let output = oracle.run_ptxas(&["-arch=sm_90a", &file, "-o", "form.cubin"], &dir).expect("run ptxas");
        if !output.status.success() {
            rejected
                .push(format!("{line}\n  {}", String::from_utf8_lossy(&output.stderr).lines().next().unwrap_or("")));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(rejected.is_empty(), "ptxas rejects:\n{}", rejected.join("\n"));
}
