//! Turing's (sm_75) forms in NVIDIA's code: global addresses built on a
//! 64-bit uniform base without a descriptor (`[R2.U32+UR4]`,
//! `[R6.64+UR4+0x80]`, `[UR4]`), `BRA.DIV` without a lane mask,
//! `F2F.F16.F32` and `HADD2.F32` of an immediate pair.

use ori_interp::{Global, Launch};

/// `out[t] = t + 1` through `[R.U32+UR]`, `out[32 + t] = t + 2` through
/// `[R.64+UR+imm]`, `out[64] = 7` through `[UR]`; `out[65 + t]` is 1 when
/// `BRA.DIV` found the warp diverged (lanes 0-15 alone), 2 when converged;
/// `out[97 + t]` is `(float)((half)t + 1)` as `HADD2.F32` computes it.
const KERNEL: &str = "
.entry turing {
    .param 0x0, 8
bb0:
    R0 = S2R SR_TID.X
    UR4.64 = ULDC.64 c[0x0][0x160]
    R2 = IMAD.SHL.U32 R0, 0x4, RZ
    R5 = IADD3 R0, 0x1, RZ
    STG.E.SYS [R2.U32+UR4], R5
    R6 = MOV R2
    R7 = MOV RZ
    R5 = IADD3 R0, 0x2, RZ
    STG.E.SYS [R6.64+UR4+0x80], R5
    R5 = MOV 0x7
    STG.E.SYS [UR4+0x100], R5
    R8 = IADD3 R2, 0x104, RZ
    R9 = MOV 0x2
    P0, PT = ISETP.GE.U32.AND R0, 0x10, PT
    @P0 BRA bb2
bb1:
    BRA.DIV bb3
bb2:
    BRA.DIV bb3
    STG.E.SYS [R8.U32+UR4], R9
    BRA bb4
bb3:
    R9 = MOV 0x1
    STG.E.SYS [R8.U32+UR4], R9
bb4:
    R10 = I2F.U32 R0
    R11 = F2F.F16.F32 R10
    R12 = HADD2.F32 R11.H0_H0, 1.0, 1.0
    STG.E.SYS [R2.U32+UR4+0x184], R12
    EXIT
}
";

fn words(g: &Global, at: u64) -> Vec<u32> {
    g.buffer(at).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn turing_addresses_and_branches() {
    let func = ori_ir::text::parse_function(KERNEL).expect("parses");
    let mut g = Global::new();
    let out = g.alloc(vec![0; 4 * 129]);
    let launch = Launch::new([1, 1, 1], [32, 1, 1], out.to_le_bytes().to_vec());
    ori_interp::run(&func, 75, 0, &launch, &mut g).expect("runs");
    let got = words(&g, out);
    for t in 0..32u32 {
        let t_ = t as usize;
        assert_eq!(got[t_], t + 1, "[R.U32+UR] of lane {t}");
        assert_eq!(got[32 + t_], t + 2, "[R.64+UR+imm] of lane {t}");
        // Each half runs `BRA.DIV` while the other half waits elsewhere.
        assert_eq!(got[65 + t_], 1, "BRA.DIV of lane {t}");
        assert_eq!(f32::from_bits(got[97 + t_]), t as f32 + 1.0, "HADD2.F32 of lane {t}");
    }
    assert_eq!(got[64], 7, "[UR+imm]");
}

/// A converged warp falls through `BRA.DIV`.
#[test]
fn bra_div_falls_through_when_converged() {
    let func = ori_ir::text::parse_function(
        "
.entry converged {
    .param 0x0, 8
bb0:
    R0 = S2R SR_TID.X
    UR4.64 = ULDC.64 c[0x0][0x160]
    R2 = IMAD.SHL.U32 R0, 0x4, RZ
    R9 = MOV 0x2
    BRA.DIV bb2
bb1:
    STG.E.SYS [R2.U32+UR4], R9
    EXIT
bb2:
    R9 = MOV 0x1
    STG.E.SYS [R2.U32+UR4], R9
    EXIT
}
",
    )
    .expect("parses");
    let mut g = Global::new();
    let out = g.alloc(vec![0; 4 * 32]);
    let launch = Launch::new([1, 1, 1], [32, 1, 1], out.to_le_bytes().to_vec());
    ori_interp::run(&func, 75, 0, &launch, &mut g).expect("runs");
    assert_eq!(words(&g, out), vec![2; 32]);
}
