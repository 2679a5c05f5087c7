//! Compile work must grow linearly with the size of a function: the same
//! kernel at 1×, 2×, 4× and 8× its length, each phase's allocated bytes
//! (`--compiler-stats=memory`) compared. Bytes allocated count work without
//! a clock, so the check holds on a loaded machine; a phase building a
//! table per instruction pair, copying a block's state per instruction, or
//! keeping a set of every register per block shows up here as growth
//! beyond the size ratio. Two shapes: one long block, and a chain of
//! small divergent if-blocks (too large to be if-converted), where a
//! per-block set over the whole function's registers is quadratic.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::process::Command;

/// Units (five instructions each) in the 1× straight-line kernel.
const BASE: usize = 250;

/// If-blocks in the 1× branchy kernel.
const BRANCHY_BASE: usize = 150;

/// The kernel's start: registers for `units` units of four values and a
/// predicate each, the buffer's address in `%rd2`, the thread index in
/// `%r0` (the first unit's input).
fn prologue(units: usize) -> String {
    let mut ptx = String::from(".version 8.0\n.target sm_90\n.address_size 64\n");
    let _ = write!(
        ptx,
        ".visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<{}>;\n.reg .b64 %rd<4>;\n.reg .pred %p<{}>;\n\
         ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r0, %tid.x;\n",
        4 * units + 8,
        units + 2
    );
    ptx
}

/// A kernel of `units` copies of load, multiply-add, compare, select and
/// xor, each unit reading the previous one's result, so nothing folds away.
fn straight_line(units: usize) -> String {
    let mut ptx = prologue(units);
    for i in 0..units {
        let (a, b, c, d, prev) = (4 * i + 1, 4 * i + 2, 4 * i + 3, 4 * i + 4, 4 * i);
        let _ = write!(
            ptx,
            "ld.global.u32 %r{a}, [%rd2+{off}];\nmad.lo.s32 %r{b}, %r{a}, {k}, %r{prev};\n\
             setp.gt.s32 %p{i}, %r{b}, {i};\nselp.b32 %r{c}, %r{b}, %r{a}, %p{i};\nxor.b32 %r{d}, %r{c}, %r{prev};\n",
            off = 4 * (i % 1024),
            k = i + 3
        );
    }
    let _ = write!(ptx, "st.global.u32 [%rd2], %r{};\nret;\n}}\n", 4 * units);
    ptx
}

/// A kernel of `units` if-blocks: each loads, combines with the previous
/// unit's value and branches on it (per thread: a divergent branch) around
/// nine instructions, more than if-conversion takes.
fn branchy(units: usize) -> String {
    let mut ptx = prologue(units);
    for i in 0..units {
        let (a, b, c, d, prev) = (4 * i + 1, 4 * i + 2, 4 * i + 3, 4 * i + 4, 4 * i);
        let off = |k: usize| 4 * ((i + k) % 1024);
        let _ = write!(
            ptx,
            "ld.global.u32 %r{a}, [%rd2+{o0}];\nmad.lo.s32 %r{b}, %r{a}, {k}, %r{prev};\nmov.u32 %r{d}, %r{b};\n\
             setp.gt.s32 %p{i}, %r{b}, {i};\n@%p{i} bra L{i};\n\
             add.s32 %r{c}, %r{b}, %r{a};\nmul.lo.s32 %r{c}, %r{c}, %r{a};\nst.global.u32 [%rd2+{o0}], %r{c};\n\
             ld.global.u32 %r{a}, [%rd2+{o7}];\nmul.lo.s32 %r{c}, %r{c}, %r{a};\nst.global.u32 [%rd2+{o3}], %r{c};\n\
             ld.global.u32 %r{a}, [%rd2+{o5}];\nmul.lo.s32 %r{c}, %r{c}, %r{a};\nst.global.u32 [%rd2+{o9}], %r{c};\n\
             xor.b32 %r{d}, %r{c}, %r{prev};\nL{i}:\n",
            o0 = off(0),
            o3 = off(3),
            o5 = off(5),
            o7 = off(7),
            o9 = off(9),
            k = i + 3
        );
    }
    let _ = write!(ptx, "st.global.u32 [%rd2], %r{};\nret;\n}}\n", 4 * units);
    ptx
}

/// Bytes each phase allocated compiling `ptx` (phases that run twice
/// summed).
fn allocated_per_phase(ptx: &str, dir: &std::path::Path, name: &str) -> BTreeMap<String, f64> {
    let file = dir.join(format!("{name}.ptx"));
    std::fs::write(&file, ptx).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_ptxas"))
        .args(["-arch=sm_90", "--compiler-stats=memory", "-o"])
        .arg(dir.join(format!("{name}.cubin")))
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stdout) + String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{name}: {stderr}");
    let mut phases = BTreeMap::new();
    for line in stderr.lines() {
        let Some((phase, rest)) = line.split_once("STAT: ").and_then(|(_, s)| s.split_once("::")) else { continue };
        let Some(size) = rest.split_once("[Allocated ").and_then(|(_, s)| s.split_once(']')).map(|(s, _)| s) else {
            continue;
        };
        let (number, unit) = size.split_once(' ').unwrap();
        let scale = match unit {
            "B" => 1.0,
            "KB" => 1024.0,
            "MB" => 1024.0 * 1024.0,
            other => panic!("unit {other} in {line}"),
        };
        *phases.entry(phase.trim().to_owned()).or_insert(0.0) += number.parse::<f64>().unwrap() * scale;
    }
    assert!(phases.contains_key("All Phases Summary"), "no memory statistics: {stderr}");
    phases
}

/// Compiles `kernel(k * base)` for k = 1, 2, 4, 8 and fails naming every
/// phase whose bytes grow more than 1.5× the size ratio.
fn check_linear(shape: &str, base: usize, kernel: fn(usize) -> String) {
    let dir = std::env::temp_dir().join(format!("ptxas-scaling-{shape}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sizes = [1, 2, 4, 8];
    let runs: Vec<_> =
        sizes.iter().map(|&k| allocated_per_phase(&kernel(k * base), &dir, &format!("{shape}{k}"))).collect();
    let _ = std::fs::remove_dir_all(&dir);
    let mut failures = Vec::new();
    for (phase, &bytes) in &runs[0] {
        // Below this a phase's fixed tables dominate its bytes.
        if bytes < 64.0 * 1024.0 {
            continue;
        }
        for (&k, run) in sizes.iter().zip(&runs).skip(1) {
            let growth = run.get(phase).copied().unwrap_or(0.0) / bytes;
            // Linear, with room for tables that grow by doubling.
            if growth > 1.5 * k as f64 {
                failures.push(format!("{shape}: {phase}: {growth:.1}x the bytes at {k}x the size"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn phases_allocate_in_proportion_to_block_length() {
    check_linear("straight", BASE, straight_line);
}

#[test]
fn phases_allocate_in_proportion_to_the_number_of_blocks() {
    check_linear("branchy", BRANCHY_BASE, branchy);
}
