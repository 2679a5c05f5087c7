//! Generated PTX through the whole compiler: a grammar-based generator of
//! valid kernels (integer, float and double arithmetic, conversions,
//! comparisons, predication, loads, stores, atomics, shuffles, nested
//! if/else and counted loops, scoped blocks), each compiled by the ptxas
//! binary with the verifier after every phase. A case passes when the exit
//! status is 0 (a cubin written, its final IR passing the hazard checker)
//! or 255 (a message, no output file); anything else (a panic, a signal, a
//! verifier or hazard failure) fails with the seed and the kept PTX. Each
//! kernel is also compiled broken in one place ([`mutate`]), with the same
//! checks: malformed input gets a message, never a crash.
//!
//! Bounded and seeded: `PTXAS_FUZZ_CASES` kernels (default 16, each whole
//! and broken: a few seconds) from seed `PTXAS_FUZZ_SEED` (default 1);
//! `PTXAS_FUZZ_KEEP=DIR` keeps every kernel's PTX there (to try with
//! NVIDIA's ptxas). Long runs go through `cargo xtask fuzz`, which sets
//! them on the release build.

use std::fmt::Write;
use std::path::Path;
use std::process::Command;

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Registers of each file the kernel declares (after the reserved ones).
const R32: usize = 24;
const R64: usize = 8;
const F32: usize = 12;
const F64: usize = 6;
const PRED: usize = 6;
/// Deepest nesting of if/else, loops and blocks.
const MAX_DEPTH: usize = 3;

/// A device function the kernels call, with a branch of its own.
const CALLEE: &str = ".func (.param .b32 out) f(.param .b32 a, .param .f32 x)\n{\n.reg .pred %pp;\n\
     .reg .b32 %a, %o;\n.reg .f32 %x, %y;\nld.param.b32 %a, [a];\nld.param.f32 %x, [x];\n\
     setp.lt.s32 %pp, %a, 7;\nmul.lo.s32 %o, %a, 3;\n@%pp bra DONE;\nmul.f32 %y, %x, %x;\n\
     cvt.rzi.s32.f32 %o, %y;\nDONE:\nst.param.b32 [out], %o;\nret;\n}\n";

/// Writes one kernel.
struct Kernel {
    rng: Rng,
    text: String,
    labels: usize,
    statements: usize,
}

impl Kernel {
    fn generate(seed: u64, sm: u32) -> String {
        let mut k = Kernel { rng: Rng(seed), text: String::new(), labels: 0, statements: 0 };
        let _ = write!(
            k.text,
            ".version 8.0\n.target sm_{sm}\n.address_size 64\n\n{CALLEE}\n\
             .visible .entry k(.param .u64 p, .param .u32 n)\n{{\n\
             .reg .b32 %r<{R32}>;\n.reg .b64 %rd<{R64}>;\n.reg .f32 %f<{F32}>;\n.reg .f64 %fd<{F64}>;\n\
             .reg .pred %p<{PRED}>;\n.reg .b32 %c<{MAX_DEPTH}>;\n.reg .pred %q<{MAX_DEPTH}>;\n.reg .b64 %base;\n.reg .b32 %t;\n\
             .shared .align 4 .b32 sh[256];\n.local .align 4 .b32 loc[16];\n\
             ld.param.u64 %base, [p];\ncvta.to.global.u64 %base, %base;\n\
             ld.param.u32 %r0, [n];\nmov.u32 %r1, %tid.x;\n"
        );
        for i in 2..R32 {
            let v = k.rng.below(1000);
            let _ = writeln!(k.text, "add.s32 %r{i}, %r{}, {v};", k.rng.below(2));
        }
        for i in 0..R64 {
            let _ = writeln!(k.text, "cvt.u64.u32 %rd{i}, %r{};", k.rng.below(R32));
        }
        for i in 0..F32 {
            let _ = writeln!(k.text, "cvt.rn.f32.s32 %f{i}, %r{};", k.rng.below(R32));
        }
        for i in 0..F64 {
            let _ = writeln!(k.text, "cvt.f64.f32 %fd{i}, %f{};", k.rng.below(F32));
        }
        for i in 0..PRED {
            let _ = writeln!(k.text, "setp.lt.u32 %p{i}, %r1, %r{};", k.rng.below(R32));
        }
        let n = 4 + k.rng.below(24);
        k.statements(n, 0);
        // Everything computed may feed the output.
        for i in 0..R32.min(6) {
            let _ = writeln!(k.text, "st.global.u32 [%base+{}], %r{};", 4 * i, k.rng.below(R32));
        }
        let _ = writeln!(k.text, "st.global.f32 [%base+32], %f{};", k.rng.below(F32));
        let _ = writeln!(k.text, "st.global.f64 [%base+40], %fd{};", k.rng.below(F64));
        k.text.push_str("ret;\n}\n");
        k.text
    }

    fn r(&mut self) -> String {
        format!("%r{}", self.rng.below(R32))
    }

    /// A 32-bit operand: a register, or now and then an immediate.
    fn r_or_imm(&mut self) -> String {
        if self.rng.below(4) == 0 { format!("{}", self.rng.below(70_000) as i64 - 100) } else { self.r() }
    }

    fn f(&mut self) -> String {
        format!("%f{}", self.rng.below(F32))
    }

    fn fd(&mut self) -> String {
        format!("%fd{}", self.rng.below(F64))
    }

    fn p(&mut self) -> String {
        format!("%p{}", self.rng.below(PRED))
    }

    fn rd(&mut self) -> String {
        format!("%rd{}", self.rng.below(R64))
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("L{}", self.labels)
    }

    fn statements(&mut self, n: usize, depth: usize) {
        for _ in 0..n {
            self.statement(depth);
        }
    }

    fn statement(&mut self, depth: usize) {
        self.statements += 1;
        let nested = depth < MAX_DEPTH && self.statements < 400;
        let choice = self.rng.below(if nested { 30 } else { 26 });
        let line = match choice {
            0..=3 => {
                let op = *self.rng.pick(&[
                    "add.s32",
                    "sub.s32",
                    "mul.lo.s32",
                    "and.b32",
                    "or.b32",
                    "xor.b32",
                    "min.s32",
                    "max.u32",
                    "mul.hi.u32",
                    "shl.b32",
                    "shr.u32",
                    "shr.s32",
                ]);
                format!("{op} {}, {}, {};", self.r(), self.r(), self.r_or_imm())
            }
            4 => {
                let op = *self.rng.pick(&["div.u32", "rem.s32", "div.s32", "rem.u32"]);
                format!("{op} {}, {}, {};", self.r(), self.r(), self.r())
            }
            5 => format!("mad.lo.s32 {}, {}, {}, {};", self.r(), self.r(), self.r_or_imm(), self.r()),
            6 | 7 => {
                let op = *self.rng.pick(&["add.f32", "sub.f32", "mul.f32", "min.f32", "max.f32", "add.rn.f32"]);
                format!("{op} {}, {}, {};", self.f(), self.f(), self.f())
            }
            8 => {
                let op = *self.rng.pick(&[
                    "div.rn.f32",
                    "div.approx.f32",
                    "div.full.f32",
                    "fma.rn.f32 X,",
                    "sqrt.rn.f32",
                    "rcp.approx.f32",
                    "abs.f32",
                    "neg.f32",
                    "ex2.approx.f32",
                    "sin.approx.f32",
                ]);
                match op {
                    "fma.rn.f32 X," => format!("fma.rn.f32 {}, {}, {}, {};", self.f(), self.f(), self.f(), self.f()),
                    "div.rn.f32" | "div.approx.f32" | "div.full.f32" => {
                        format!("{op} {}, {}, {};", self.f(), self.f(), self.f())
                    }
                    _ => format!("{op} {}, {};", self.f(), self.f()),
                }
            }
            9 => {
                let op = *self.rng.pick(&["add.f64", "mul.f64", "fma.rn.f64", "div.rn.f64", "sqrt.rn.f64"]);
                match op {
                    "fma.rn.f64" => format!("{op} {}, {}, {}, {};", self.fd(), self.fd(), self.fd(), self.fd()),
                    "sqrt.rn.f64" => format!("{op} {}, {};", self.fd(), self.fd()),
                    _ => format!("{op} {}, {}, {};", self.fd(), self.fd(), self.fd()),
                }
            }
            10 => match self.rng.below(6) {
                0 => format!("cvt.rn.f32.s32 {}, {};", self.f(), self.r()),
                1 => format!("cvt.rzi.s32.f32 {}, {};", self.r(), self.f()),
                2 => format!("cvt.u64.u32 {}, {};", self.rd(), self.r()),
                3 => format!("cvt.u32.u64 {}, {};", self.r(), self.rd()),
                4 => format!("cvt.rn.f32.f64 {}, {};", self.f(), self.fd()),
                _ => format!("cvt.f64.f32 {}, {};", self.fd(), self.f()),
            },
            11 => {
                let cmp = *self.rng.pick(&["lt", "gt", "eq", "ne", "le", "ge"]);
                match self.rng.below(3) {
                    0 => format!("setp.{cmp}.s32 {}, {}, {};", self.p(), self.r(), self.r_or_imm()),
                    1 => format!("setp.{cmp}.u32 {}, {}, {};", self.p(), self.r(), self.r()),
                    _ => format!("setp.{cmp}.f32 {}, {}, {};", self.p(), self.f(), self.f()),
                }
            }
            12 => format!("selp.b32 {}, {}, {}, {};", self.r(), self.r(), self.r_or_imm(), self.p()),
            13 => {
                let (p, neg) = (self.p(), if self.rng.below(2) == 0 { "!" } else { "" });
                format!("@{neg}{p} add.s32 {}, {}, {};", self.r(), self.r(), self.r_or_imm())
            }
            14 | 15 => {
                // An address inside the first 4 KiB of the buffer.
                let (idx, off) = (self.r(), self.rng.below(64) * 4);
                let addr = format!("and.b32 %t, {idx}, 1020;\nmul.wide.u32 %rd7, %t, 4;\nadd.s64 %rd7, %base, %rd7;");
                if choice == 14 {
                    format!("{addr}\nld.global.u32 {}, [%rd7+{off}];", self.r())
                } else {
                    format!("{addr}\nst.global.u32 [%rd7+{off}], {};", self.r())
                }
            }
            16 => format!("atom.global.add.u32 {}, [%base+{}], {};", self.r(), self.rng.below(16) * 4, self.r()),
            17 => format!("shfl.sync.bfly.b32 {}, {}, {}, 31, -1;", self.r(), self.r(), 1 << self.rng.below(5)),
            18 => format!("add.s64 {}, {}, {};", self.rd(), self.rd(), self.rd()),
            19 => format!("mul.wide.s32 {}, {}, {};", self.rd(), self.r(), self.r()),
            20 => {
                let op = *self.rng.pick(&["and.pred", "or.pred", "xor.pred"]);
                format!("{op} {}, {}, {};", self.p(), self.p(), self.p())
            }
            21 => match self.rng.below(5) {
                0 => format!("popc.b32 {}, {};", self.r(), self.r()),
                1 => format!("clz.b32 {}, {};", self.r(), self.r()),
                2 => format!("brev.b32 {}, {};", self.r(), self.r()),
                3 => format!("bfe.u32 {}, {}, {}, {};", self.r(), self.r(), self.rng.below(24), 1 + self.rng.below(8)),
                _ => format!("prmt.b32 {}, {}, {}, {};", self.r(), self.r(), self.r(), self.rng.below(0x7777)),
            },
            22 => {
                let (idx, v) = (self.r(), self.r());
                let space = if self.rng.below(2) == 0 { "sh" } else { "loc" };
                let (st, mask) = if space == "sh" { ("shared", 255) } else { ("local", 15) };
                format!(
                    "and.b32 %t, {idx}, {mask};\nshl.b32 %t, %t, 2;\nmov.u32 {v}, {space};\nadd.u32 %t, %t, {v};\n\
                     st.{st}.u32 [%t], {v};\nld.{st}.u32 {}, [%t];",
                    self.r()
                )
            }
            23 => "bar.sync 0;".to_string(),
            24 => format!("not.b32 {}, {};", self.r(), self.r()),
            25 if self.rng.below(3) == 0 => format!(
                "{{\n.param .b32 pa;\n.param .f32 px;\n.param .b32 pr;\nst.param.b32 [pa], {};\n\
                 st.param.f32 [px], {};\ncall.uni (pr), f, (pa, px);\nld.param.b32 {}, [pr];\n}}",
                self.r(),
                self.f(),
                self.r()
            ),
            25 => format!("slct.s32.s32 {}, {}, {}, {};", self.r(), self.r(), self.r(), self.r()),
            26 | 27 => {
                let (else_, end, p) = (self.label(), self.label(), self.p());
                let _ = writeln!(self.text, "@{p} bra {else_};");
                let n = 1 + self.rng.below(5);
                self.statements(n, depth + 1);
                let _ = writeln!(self.text, "bra.uni {end};\n{else_}:");
                let n = self.rng.below(5);
                self.statements(n, depth + 1);
                format!("{end}:")
            }
            28 => {
                // A counted loop; its counter and predicate belong to its depth.
                let (top, trips) = (self.label(), 1 + self.rng.below(4));
                let _ = writeln!(self.text, "mov.u32 %c{depth}, 0;\n{top}:");
                let n = 1 + self.rng.below(5);
                self.statements(n, depth + 1);
                format!(
                    "add.u32 %c{depth}, %c{depth}, 1;\nsetp.lt.u32 %q{depth}, %c{depth}, {trips};\n@%q{depth} bra {top};"
                )
            }
            _ => {
                self.text.push_str("{\n");
                let n = 1 + self.rng.below(4);
                self.statements(n, depth + 1);
                "}".to_string()
            }
        };
        self.text.push_str(&line);
        self.text.push('\n');
    }
}

/// `ptx` broken in one place: a line deleted, duplicated or moved, the
/// text cut short, a token replaced by another of the text, or a stray
/// character inserted. Most results are invalid; some stay valid.
fn mutate(ptx: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<&str> = ptx.lines().collect();
    let at = rng.below(lines.len());
    match rng.below(6) {
        0 => {
            lines.remove(at);
        }
        1 => lines.insert(at, lines[at]),
        2 => {
            let line = lines.remove(at);
            lines.insert(rng.below(lines.len() + 1), line);
        }
        3 => {
            let mut cut = rng.below(ptx.len());
            while !ptx.is_char_boundary(cut) {
                cut -= 1;
            }
            return ptx[..cut].to_string();
        }
        4 => {
            let tokens: Vec<&str> = ptx.split([' ', ',', ';', '\n']).filter(|t| !t.is_empty()).collect();
            let (from, to) = (*rng.pick(&tokens), *rng.pick(&tokens));
            return ptx.replacen(from, to, 1 + rng.below(2));
        }
        _ => {
            let mut text = ptx.to_string();
            let mut pos = rng.below(text.len());
            while !text.is_char_boundary(pos) {
                pos -= 1;
            }
            text.insert(pos, *rng.pick(&['{', '}', '[', ']', '%', '@', '.', ';', ',', '-', '0', '\u{7f}', 'é']));
            return text;
        }
    }
    lines.join("\n") + "\n"
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Compiles one generated kernel; `Err` says what went wrong.
fn check_case(ptx: &str, arch: &str, opt: &str, dir: &Path) -> Result<bool, String> {
    let (input, output) = (dir.join("case.ptx"), dir.join("case.cubin"));
    let _ = std::fs::remove_file(&output);
    std::fs::write(&input, ptx).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_ptxas"))
        .args([&format!("-arch={arch}"), opt, "--verify-each", "--dump-ir-after", "MercEncodeAndDecode", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    match run.status.code() {
        Some(0) => {
            if !output.exists() {
                return Err("exit 0 without a cubin".into());
            }
            let stdout = String::from_utf8_lossy(&run.stdout);
            let dump = stdout.split_once("----\n").map_or(&*stdout, |(_, d)| d);
            let module = ori_ir::text::parse_module(dump).map_err(|e| format!("the final IR does not parse: {e:?}"))?;
            for func in &module.functions {
                let violations = sched::hazard::check_function(func, module.target);
                if !violations.is_empty() {
                    return Err(format!("hazards in {}: {violations:#?}", func.name));
                }
            }
            Ok(true)
        }
        Some(255) if output.exists() => Err(format!("exit 255 left an output file: {stderr}")),
        Some(255) if stderr.contains("verifier") || stderr.contains("panicked") => Err(format!("exit 255: {stderr}")),
        Some(255) => Ok(false),
        other => Err(format!("exit status {other:?}: {stderr}")),
    }
}

#[test]
fn generated_kernels_compile_or_get_a_message() {
    let cases = env_number("PTXAS_FUZZ_CASES", 16);
    let seed = env_number("PTXAS_FUZZ_SEED", 1);
    let dir = std::env::temp_dir().join(format!("ptxas-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut compiled, mut rejected, mut failures) = (0, Vec::new(), Vec::new());
    let mut broken_rejected = 0;
    for case in seed..seed + cases {
        let sm = [80, 86, 89, 90][(case % 4) as usize];
        let opt = ["-O3", "-O3", "-O0", "-O1"][(case / 4 % 4) as usize];
        let ptx = Kernel::generate(case, sm);
        if let Some(keep) = std::env::var_os("PTXAS_FUZZ_KEEP") {
            std::fs::write(Path::new(&keep).join(format!("seed{case}.sm{sm}.ptx")), &ptx).unwrap();
        }
        let broken = mutate(&ptx, &mut Rng(!case));
        for (kind, text) in [("", &ptx), ("broken-", &broken)] {
            match check_case(text, &format!("sm_{sm}"), opt, &dir) {
                Ok(true) if kind.is_empty() => compiled += 1,
                Ok(false) if kind.is_empty() => rejected.push(case),
                Ok(accepted) => broken_rejected += usize::from(!accepted),
                Err(why) => {
                    let kept = dir.with_file_name(format!("ptxas-fuzz-{kind}seed{case}.ptx"));
                    std::fs::write(&kept, text).unwrap();
                    failures.push(format!("{kind}seed {case} (sm_{sm} {opt}, {}): {why}", kept.display()));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{cases} cases from seed {seed}: {compiled} compiled, {} rejected {rejected:?}; broken: {broken_rejected} \
         rejected, the rest compiled",
        rejected.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
