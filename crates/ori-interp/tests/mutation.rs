//! Deliberately broken variants of NVIDIA's kernels must fail their checks:
//! the checks (and the interpreter) notice a wrong comparison or a missing
//! instruction.

use std::path::{Path, PathBuf};

use ori_interp::Kernel;
use ori_interp::corpus::{CASES, SM90_CASES, SM90A_CASES, compile, compile_arch};
use ori_ir::{Modifier, Opcode};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// A case's setup-run-check function.
type Check = fn(&Kernel) -> Result<ori_interp::Stats, String>;

fn kernel(entry: &str, sm: u32) -> Option<(Kernel, Check)> {
    let oracle = nv_oracle::Oracle::for_test("mutation")?;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ori-interp-mutation");
    std::fs::create_dir_all(&dir).unwrap();
    let k = match SM90A_CASES.iter().find(|c| c.entry == entry) {
        Some(case) => compile_arch(&oracle.ptxas(), &corpus(), case.file, case.entry, "sm_90a", &dir),
        None => {
            let case = CASES.iter().chain(SM90_CASES).find(|c| c.entry == entry).unwrap();
            compile(&oracle.ptxas(), &corpus(), case.file, case.entry, sm, &dir)
        }
    };
    let k = k.unwrap();
    let case = CASES.iter().chain(SM90_CASES).chain(SM90A_CASES).find(|c| c.entry == entry).unwrap();
    (case.run)(&k).expect("the unmutated kernel passes");
    Some((k, case.run))
}

/// Replaces comparison `from` by `to` in the first ISETP that has it.
fn flip(k: &mut Kernel, from: &str, to: &str) {
    let (_, id, _) = k
        .func
        .insts_in_order()
        .find(|(_, _, i)| i.op == Opcode::ISETP && i.has_mod(from))
        .expect("an ISETP with that comparison");
    let inst = &mut k.func.insts[id];
    for m in &mut inst.mods {
        if m.name() == from {
            *m = Modifier::from_name(to).unwrap();
        }
    }
}

/// Removes the first instruction with opcode `op`.
fn drop_first(k: &mut Kernel, op: Opcode) {
    let (b, id, _) = k.func.insts_in_order().find(|(_, _, i)| i.op == op).expect("such an instruction");
    k.func.blocks[b].insts.retain(|&i| i != id);
}

#[test]
fn flipped_bounds_check_is_caught() {
    for sm in [90, 80] {
        let Some((mut k, run)) = kernel("vadd", sm) else { return };
        flip(&mut k, "GE", "LT");
        let err = run(&k).expect_err("ISETP.GE -> ISETP.LT must fail the check");
        assert!(err.contains('c'), "{err}");
    }
}

#[test]
fn flipped_reduction_guard_is_caught() {
    let Some((mut k, run)) = kernel("reduce_smem", 90) else { return };
    flip(&mut k, "GT", "LT");
    run(&k).expect_err("a wrong tree guard must change the sums");
}

#[test]
fn dropped_instructions_are_caught() {
    for (entry, op) in [("vadd", Opcode::FADD), ("saxpy", Opcode::FFMA), ("histogram256", Opcode::BAR)] {
        let Some((mut k, run)) = kernel(entry, 90) else { return };
        drop_first(&mut k, op);
        run(&k).expect_err(&format!("{entry} without its first {op:?} must fail"));
    }
}

#[test]
fn out_of_bounds_accesses_name_the_instruction() {
    let Some((mut k, run)) = kernel("vadd", 90) else { return };
    // Without the bounds check every thread of the last CTA stores.
    drop_first(&mut k, Opcode::EXIT);
    let err = run(&k).expect_err("an unguarded store past the buffer faults");
    assert!(err.contains("out of bounds") && err.contains("LDG"), "{err}");
}

/// The asynchronous-copy model lands copies at the wait and faults on
/// their destination until then, the cluster barrier holds a CTA until its
/// peer arrives: without NVIDIA's waits the kernels fail, naming the copy.
#[test]
fn dropped_async_waits_are_caught() {
    for sm in [90, 80] {
        let Some((mut k, run)) = kernel("conv1d_cp_async", sm) else { return };
        drop_first(&mut k, Opcode::DEPBAR);
        let err = run(&k).expect_err("reading the chunk before `cp.async.wait_group 1` must fail");
        assert!(err.contains("destination of the LDGSTS at instruction"), "{err}");
    }
    let Some((mut k, run)) = kernel("cluster_hist", 90) else { return };
    drop_first(&mut k, Opcode::UCGABAR_WAIT);
    run(&k).expect_err("reading the peer's bins before the cluster barrier must fail");
    let Some((mut k, run)) = kernel("bulk_scale", 90) else { return };
    drop_first(&mut k, Opcode::UBLKCP);
    run(&k).expect_err("without the bulk copy in, the mbarrier never completes or the tile is stale");
    // Without the wait loop (the phase check and its retry branch) nothing
    // orders the tile's reads after the copy.
    let Some((mut k, run)) = kernel("bulk_scale", 90) else { return };
    let (b, _, _) = k
        .func
        .insts_in_order()
        .find(|(_, _, i)| i.op == Opcode::SYNCS && i.has_mod("PHASECHK"))
        .expect("the mbarrier wait");
    let insts = &k.func.insts;
    k.func.blocks[b].insts.retain(|&i| !matches!(insts[i].op, Opcode::SYNCS | Opcode::BRA));
    let err = run(&k).expect_err("reading the tile before the mbarrier wait must fail");
    assert!(err.contains("destination of the UBLKCP at instruction"), "{err}");
}

/// wgmma's synchronisation: without `WARPGROUP.DEPBAR` the stores read
/// accumulators of an HGMMA still in flight, without `WARPGROUP.ARRIVE`
/// the HGMMA has no fence before it; both are faults naming the cause.
#[test]
fn dropped_wgmma_fence_and_wait_are_caught() {
    for (op, cause) in [(Opcode::WARPGROUP, "no WARPGROUP.DEPBAR has waited for"), (Opcode::HGMMA, "")] {
        let Some((mut k, run)) = kernel("wgmma_gemm_64x8", 90) else { return };
        if op == Opcode::HGMMA {
            // Without the product every output is zero.
            drop_first(&mut k, op);
            run(&k).expect_err("without its HGMMA the kernel must fail");
            continue;
        }
        // The first WARPGROUP is ARRIVE, the second DEPBAR.
        let (b, id, _) =
            k.func.insts_in_order().filter(|(_, _, i)| i.op == op).nth(1).expect("WARPGROUP.DEPBAR");
        k.func.blocks[b].insts.retain(|&i| i != id);
        let err = run(&k).expect_err("reading accumulators before the wait must fail");
        assert!(err.contains(cause), "{err}");
        let Some((mut k, run)) = kernel("wgmma_gemm_64x8", 90) else { return };
        drop_first(&mut k, op);
        let err = run(&k).expect_err("an HGMMA without a fence before it must fail");
        assert!(err.contains("WARPGROUP.ARRIVE"), "{err}");
    }
}
