//! `__device__` variables keep their values across launches of the kernels
//! of one loaded module, as on CUDA: NVIDIA's cubin of a kernel that bumps
//! a counter, launched twice, then another kernel of the same cubin.

use std::path::Path;

use ori_interp::corpus::compile_ptx;
use ori_interp::{Global, Kernel, Launch};

const PTX: &str = "\
.version 8.0
.target sm_90
.address_size 64
.global .align 4 .u32 counter = 5;
.visible .entry bump(.param .u64 out)
{
\t.reg .b32 %r<3>;
\t.reg .b64 %rd<3>;
\tld.param.u64 %rd1, [out];
\tcvta.to.global.u64 %rd2, %rd1;
\tld.global.u32 %r1, [counter];
\tadd.s32 %r2, %r1, 1;
\tst.global.u32 [counter], %r2;
\tst.global.u32 [%rd2], %r1;
\tret;
}
.visible .entry peek(.param .u64 out)
{
\t.reg .b32 %r<2>;
\t.reg .b64 %rd<3>;
\tld.param.u64 %rd1, [out];
\tcvta.to.global.u64 %rd2, %rd1;
\tld.global.u32 %r1, [counter];
\tst.global.u32 [%rd2], %r1;
\tret;
}
";

/// Launches `kernel` on one thread and returns the word it wrote.
fn launch(kernel: &Kernel, global: &mut Global) -> u32 {
    let out = global.alloc(vec![0; 4]);
    let launch = Launch::new([1, 1, 1], [1, 1, 1], out.to_le_bytes().to_vec());
    ori_interp::run_kernel(kernel, &launch, global).unwrap();
    u32::from_le_bytes(global.buffer(out).unwrap().try_into().unwrap())
}

#[test]
fn device_variables_persist_across_launches() {
    let Some(oracle) = nv_oracle::Oracle::for_test("device_variables_persist_across_launches") else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ori-interp-device-globals");
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = dir.join("counter.ptx");
    std::fs::write(&ptx, PTX).unwrap();
    let bump = compile_ptx(&oracle.ptxas(), &ptx, "sm_90", &dir, "bump").unwrap();
    let peek = compile_ptx(&oracle.ptxas(), &ptx, "sm_90", &dir, "peek").unwrap();
    let mut global = Global::new();
    assert_eq!(launch(&bump, &mut global), 5);
    assert_eq!(launch(&bump, &mut global), 6);
    assert_eq!(launch(&peek, &mut global), 7, "another kernel of the module sees the same variable");
    // Device memory of its own: the module is loaded afresh.
    assert_eq!(launch(&bump, &mut Global::new()), 5);
}
