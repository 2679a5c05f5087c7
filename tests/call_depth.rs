//! Deep call chains: a kernel calling a chain of thousands of device
//! functions, each calling the next. Inlining all of them would nest the
//! lowering once per function (a stack overflow at a few thousand); the
//! call graph calls every 65th function out of line instead
//! (`ptx-lower/src/callgraph.rs`). The cubin must compute what the PTX
//! says, checked on the interpreter against the arithmetic done here.

use std::fmt::Write;

use ori_interp::{Global, Launch};

/// Functions in the chain: enough to overflow the old fully inlining
/// lowering in the test profile's larger frames.
const CHAIN: u32 = 3000;

/// `f_i(a) = f_{i+1}(a + i) ^ i`, the last one `a + CHAIN`; the kernel
/// replaces each element `x` of its buffer by `f_0(x)`.
fn chain_ptx() -> String {
    let mut ptx = String::from(".version 8.0\n.target sm_90\n.address_size 64\n\n");
    let _ = writeln!(
        ptx,
        ".func (.param .b32 r) f{CHAIN}(.param .b32 a)\n{{\n  .reg .b32 t;\n  ld.param.b32 t, [a];\n  \
         add.s32 t, t, {CHAIN};\n  st.param.b32 [r], t;\n  ret;\n}}"
    );
    for i in (0..CHAIN).rev() {
        let _ = writeln!(
            ptx,
            ".func (.param .b32 r) f{i}(.param .b32 a)\n{{\n  .reg .b32 t<3>;\n  ld.param.b32 t2, [a];\n  \
             add.s32 t0, t2, {i};\n  {{\n  .param .b32 pa;\n  .param .b32 pr;\n  st.param.b32 [pa], t0;\n  \
             call (pr), f{next}, (pa);\n  ld.param.b32 t1, [pr];\n  }}\n  xor.b32 t1, t1, {i};\n  \
             st.param.b32 [r], t1;\n  ret;\n}}",
            next = i + 1
        );
    }
    ptx.push_str(
        ".visible .entry k(.param .u64 p)\n{\n  .reg .b32 x<3>;\n  .reg .b64 q<3>;\n  ld.param.u64 q0, [p];\n  \
         cvta.to.global.u64 q0, q0;\n  mov.u32 x2, %tid.x;\n  mul.wide.u32 q1, x2, 4;\n  add.s64 q2, q0, q1;\n  \
         ld.global.u32 x0, [q2];\n  {\n  .param .b32 pa;\n  .param .b32 pr;\n  st.param.b32 [pa], x0;\n  \
         call (pr), f0, (pa);\n  ld.param.b32 x1, [pr];\n  }\n  st.global.u32 [q2], x1;\n  ret;\n}\n",
    );
    ptx
}

/// `f_0(x)`: the additions on the way down, `+ CHAIN` at the bottom, the
/// XORs on the way back up.
fn reference(x: u32) -> u32 {
    let down = (0..CHAIN).fold(x, u32::wrapping_add);
    (0..CHAIN).rev().fold(down.wrapping_add(CHAIN), |r, i| r ^ i)
}

#[test]
fn a_chain_of_thousands_of_calls_compiles_and_computes_the_chain() {
    let dir = std::env::temp_dir().join(format!("ptxas-call-depth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = dir.join("chain.ptx");
    std::fs::write(&ptx, chain_ptx()).unwrap();
    let ours = std::path::Path::new(env!("CARGO_BIN_EXE_ptxas"));
    let kernel = ori_interp::corpus::compile_ptx(ours, &ptx, "sm_90", &dir, "k").unwrap();
    let inputs: Vec<u32> = (0..32u32).map(|l| l.wrapping_mul(0x9e37_79b9)).collect();
    let mut global = Global::new();
    let buffer = global.alloc(inputs.iter().flat_map(|v| v.to_le_bytes()).collect());
    let launch = Launch::new([1, 1, 1], [32, 1, 1], buffer.to_le_bytes().to_vec());
    ori_interp::run_kernel(&kernel, &launch, &mut global).unwrap();
    let got: Vec<u32> =
        global.buffer(buffer).unwrap().chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
    let want: Vec<u32> = inputs.iter().map(|&x| reference(x)).collect();
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&dir);
}
