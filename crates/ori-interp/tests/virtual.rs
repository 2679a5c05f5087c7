//! Ori with virtual registers (the form lowering produces) runs too:
//! divergence and reconvergence at BSYNC, shuffles and votes after it.

use ori_interp::{Global, Launch};

const KERNEL: &str = "
.entry diverge {
    .param 0x0, 8
bb0:
    %r0 = S2R SR_TID.X
    %r4.64 = LDC.64 c[0x0][0x210]
    %r2.64 = IMAD.WIDE.U32 %r0, 0x4, %r4.64
    %p0, PT = ISETP.GE.U32.AND %r0, 0xa, PT
    %b0 = BSSY bb3
    @%p0 BRA bb2
bb1:
    %r6 = IADD3 %r0, 0x64, RZ
    BRA bb3
bb2:
    %r6 = IADD3 %r0, 0xc8, RZ
bb3:
    BSYNC %b0
    PT, %r7 = SHFL.DOWN %r6, 0x1, 0x1f
    %r8, PT = VOTE.ANY %p0
    %r9 = IADD3 %r7, %r8, RZ
    STG.E [%r2.64], %r9
    EXIT
}
";

#[test]
fn divergent_virtual_kernel() {
    let func = ori_ir::text::parse_function(KERNEL).expect("parses");
    let mut g = Global::new();
    let out = g.alloc(vec![0; 4 * 32]);
    let launch = Launch::new([1, 1, 1], [32, 1, 1], out.to_le_bytes().to_vec());
    let stats = ori_interp::run(&func, 90, 0, &launch, &mut g).expect("runs");
    let got: Vec<u32> =
        g.buffer(out).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let ballot = !0u32 << 10;
    let want: Vec<u32> = (0..32u32)
        .map(|t| {
            // SHFL.DOWN past the last lane returns the lane's own value.
            let src = if t < 31 { t + 1 } else { t };
            let v = if src >= 10 { src + 200 } else { src + 100 };
            v.wrapping_add(ballot)
        })
        .collect();
    assert_eq!(got, want);
    // Both sides of the branch ran once, then one converged warp.
    assert_eq!(stats.warp_insts, 6 + 2 + 1 + 6);
}

#[test]
fn faults_name_the_instruction() {
    let func = ori_ir::text::parse_function(KERNEL).expect("parses");
    let mut g = Global::new();
    let out = g.alloc(vec![0; 4 * 8]);
    let launch = Launch::new([1, 1, 1], [32, 1, 1], out.to_le_bytes().to_vec());
    let err = ori_interp::run(&func, 90, 0, &launch, &mut g).expect_err("lane 8 stores past the buffer");
    let text = err.to_string();
    assert!(text.contains("STG.E") && text.contains("out of bounds") && text.contains("lane 8"), "{text}");
}

/// `KERNEL` with the taken side laid out after the join: running the
/// lowest pc first brings the fall-through lanes to the `BSYNC` before the
/// others, and they must wait there for them.
const LATE_SIDE: &str = "
.entry diverge {
    .param 0x0, 8
bb0:
    %r0 = S2R SR_TID.X
    %r4.64 = LDC.64 c[0x0][0x210]
    %r2.64 = IMAD.WIDE.U32 %r0, 0x4, %r4.64
    %p0, PT = ISETP.GE.U32.AND %r0, 0xa, PT
    %b0 = BSSY bb3
    @%p0 BRA bb4
bb1:
    %r6 = IADD3 %r0, 0x64, RZ
bb2:
    BSYNC %b0
bb3:
    PT, %r7 = SHFL.DOWN %r6, 0x1, 0x1f
    STG.E [%r2.64], %r7
    EXIT
bb4:
    %r6 = IADD3 %r0, 0xc8, RZ
    BRA bb2
}
";

#[test]
fn bsync_waits_for_the_lanes_of_its_barrier() {
    let func = ori_ir::text::parse_function(LATE_SIDE).expect("parses");
    let mut g = Global::new();
    let out = g.alloc(vec![0; 4 * 32]);
    let launch = Launch::new([1, 1, 1], [32, 1, 1], out.to_le_bytes().to_vec());
    ori_interp::run(&func, 90, 0, &launch, &mut g).expect("runs");
    let got: Vec<u32> =
        g.buffer(out).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    // The shuffle sees every lane's value: the warp was whole again.
    let want: Vec<u32> =
        (0..32u32).map(|t| if t < 31 { t + 1 } else { t }).map(|s| if s >= 10 { s + 200 } else { s + 100 }).collect();
    assert_eq!(got, want);
}

/// `Stats::issue_cycles` sums each executed instruction's stall, at least
/// one: a stall of 0 still takes an issue slot, and the branch not taken
/// costs its own stall.
#[test]
fn issue_cycles_sum_the_stalls_run() {
    let text = "
.entry stalls {
    .param 0x0, 8
bb0:
    [B------:R-:W0:-:S01] R0 = S2R SR_TID.X
    [B0-----:R-:W-:-:S13] P0, PT = ISETP.GE.U32.AND R0, 0x40, PT
    [B------:R-:W-:-:S05] @P0 BRA bb2
bb1:
    [B------:R-:W-:-:S00] R1 = IADD3 R0, 0x1, RZ
    [B------:R-:W-:-:S04] R1 = IADD3 R1, 0x1, RZ
bb2:
    [B------:R-:W-:-:S05] EXIT
}
";
    let func = ori_ir::text::parse_function(text).expect("parses");
    let mut g = Global::new();
    let stats = ori_interp::run(&func, 90, 0, &Launch::new([1, 1, 1], [32, 1, 1], vec![0; 8]), &mut g).expect("runs");
    assert_eq!(stats.warp_insts, 6);
    assert_eq!(stats.issue_cycles, 1 + 13 + 5 + 1 + 4 + 5);
}

/// `VIADD.16x2` adds the halves apart (no carry between them), `SR_VIRTCFG`
/// holds 64 warp slots in bits 8..15, and bank 0 has the cluster shape of a
/// launch without clusters (one CTA a cluster) on sm_90.
#[test]
fn packed_add_warp_slots_and_cluster_bank() {
    let kernel = "
.entry packed {
    .param 0x0, 8
bb0:
    %r0 = S2R SR_TID.X
    %r4.64 = LDC.64 c[0x0][0x210]
    %r2.64 = IMAD.WIDE.U32 %r0, 0x10, %r4.64
    %r1 = VIADD.16x2 %r0, 0xffff
    STG.E [%r2.64], %r1
    %r3 = S2R SR_VIRTCFG
    STG.E [%r2.64+0x4], %r3
    %r5 = LDC c[0x0][0x188]
    STG.E [%r2.64+0x8], %r5
    %r6 = LDC c[0x0][0x15c]
    STG.E [%r2.64+0xc], %r6
    EXIT
}
";
    let func = ori_ir::text::parse_function(kernel).expect("parses");
    let mut g = Global::new();
    let out = g.alloc(vec![0; 16 * 32]);
    let launch = Launch::new([3, 1, 1], [32, 1, 1], out.to_le_bytes().to_vec());
    ori_interp::run(&func, 90, 0, &launch, &mut g).expect("runs");
    let got: Vec<u32> =
        g.buffer(out).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    for (t, row) in got.chunks(4).enumerate() {
        assert_eq!(row, [(t as u32).wrapping_sub(1) & 0xffff, 64 << 8, 1, 3], "thread {t}");
    }
}
