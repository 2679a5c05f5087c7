//! `ATOMS.CAST.SPIN`: sm_90 writes its success to a register, Blackwell
//! to a predicate (`ATOMS.CAST.SPIN P1, [R0], R4, R5`, NVIDIA's sm_100a
//! float addition on shared memory). A loop on that predicate must see it.

use ori_interp::{Global, Launch};

const KERNEL: &str = "
.entry spin {
    .param 0x0, 8
bb0:
    %r0 = S2R SR_TID.X
    STS [RZ], RZ
    BAR.SYNC.DEFER_BLOCKING 0x0
    %b0 = BSSY bb2
bb1:
    %r4 = LDS [RZ]
    %r5 = FADD %r4, 1.0
    %p1 = ATOMS.CAST.SPIN [RZ], %r4, %r5
    @!%p1 BRA bb1
bb2:
    BSYNC %b0
    BAR.SYNC.DEFER_BLOCKING 0x0
    %r6 = LDS [RZ]
    %r2.64 = LDC.64 c[0x0][0x380]
    %r8.64 = IMAD.WIDE.U32 %r0, 0x4, %r2.64
    STG.E [%r8.64], %r6
    EXIT
}
";

#[test]
fn predicate_result_ends_the_loop() {
    let func = ori_ir::text::parse_function(KERNEL).expect("parses");
    let mut g = Global::new();
    let out = g.alloc(vec![0; 4 * 32]);
    let mut launch = Launch::new([1, 1, 1], [32, 1, 1], out.to_le_bytes().to_vec());
    // 32 rounds of the loop at most: a lost predicate spins forever.
    launch.max_warp_insts = 10_000;
    ori_interp::run(&func, 100, 4, &launch, &mut g).expect("runs");
    let got: Vec<f32> =
        g.buffer(out).unwrap().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(got, vec![32.0; 32]);
}
