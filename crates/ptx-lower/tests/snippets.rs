//! Lowering unit tests: a PTX kernel in, the Ori text out.

use ori_ir::Sm;
use pretty_assertions::assert_eq;
use ptx_syntax::{FileId, ValidateOptions, parse, validate};

/// Wraps `body` in a kernel with `params`, lowers it for `sm` and prints it.
fn lower(params: &str, body: &str, sm: u16) -> Result<String, Vec<String>> {
    let source =
        format!(".version 8.0\n.target sm_{sm}\n.address_size 64\n.visible .entry k({params})\n{{\n{body}\n}}\n");
    let (module, diags) = parse(&source, FileId(0));
    assert!(diags.is_empty(), "{diags:?}");
    let diags = validate(&module, &ValidateOptions::default());
    assert!(diags.iter().all(|d| !d.is_error()), "{diags:?}");
    ptx_lower::lower(&module, &source, Sm::new(sm))
        .map(|m| ori_ir::text::print_module(&m))
        .map_err(|errors| errors.iter().map(ToString::to_string).collect())
}

#[test]
fn vadd_body_becomes_the_hand_written_shape() {
    let params = ".param .u64 a, .param .u64 c, .param .u32 n";
    let body = "\t.reg .pred %p<2>;\n\t.reg .f32 %f<3>;\n\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<6>;\n\
        \tld.param.u64 %rd1, [a];\n\tld.param.u64 %rd2, [c];\n\tld.param.u32 %r2, [n];\n\
        \tmov.u32 %r3, %ctaid.x;\n\tmov.u32 %r4, %ntid.x;\n\tmad.lo.s32 %r1, %r3, %r4, 7;\n\
        \tsetp.ge.s32 %p1, %r1, %r2;\n\t@%p1 bra $L_end;\n\
        \tcvta.to.global.u64 %rd3, %rd1;\n\tmul.wide.s32 %rd4, %r1, 4;\n\tadd.s64 %rd5, %rd3, %rd4;\n\
        \tld.global.nc.f32 %f1, [%rd5+8];\n\tadd.f32 %f2, %f1, 0f3F800000;\n\tst.global.f32 [%rd5], %f2;\n\
        $L_end:\n\tret;";
    let expected = "\
.target sm_90
.props VirtualRegs

.entry k {
    .param 0x0, 8
    .param 0x8, 8
    .param 0x10, 4
bb0:
    %ur0.64 = ULDC.64 c[0x0][0x208]
    %r0.64 = LDC.64 c[0x0][0x210]
    %r1.64 = LDC.64 c[0x0][0x218]
    %r2 = LDC c[0x0][0x220]
    %r3 = S2R SR_CTAID.X
    %r4 = LDC c[0x0][0x0]
    %r5 = IMAD %r3, %r4, 0x7
    %p0, PT = ISETP.GE.AND %r5, %r2, PT
    @%p0 BRA bb2
bb1:
    %r6.64 = IMAD.WIDE %r5, 0x4, RZ.64
    %r7.64 = IMAD.WIDE %r5, 0x4, %r0.64
    %r8 = LDG.E.CONSTANT desc[%ur0.64][%r7.64+0x8]
    %r9 = FADD %r8, 1.0
    STG.E desc[%ur0.64][%r7.64], %r9
bb2:
    EXIT
}
";
    assert_eq!(lower(params, body, 90).unwrap(), expected);
}

#[test]
fn parameters_follow_the_ptx_layout() {
    let params = ".param .u8 a, .param .u64 b, .param .align 16 .b8 s[20], .param .f32 x";
    let out = lower(params, "\tret;", 90).unwrap();
    assert!(out.contains(".param 0x0, 1\n    .param 0x8, 8\n    .param 0x10, 20\n    .param 0x24, 4\n"), "{out}");
}

#[test]
fn launch_directives_reach_the_function_attributes() {
    let source = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k() .maxntid 128, 2 .minnctapersm 4\n{\n\tret;\n}\n";
    let (module, _) = parse(source, FileId(0));
    let lowered = ptx_lower::lower(&module, source, Sm::new(90)).unwrap();
    let attrs = &lowered.functions[0].attrs;
    assert_eq!((attrs.maxntid, attrs.minnctapersm), (Some([128, 2, 1]), Some(4)));
}

#[test]
fn integer_and_float_families() {
    let body = "\t.reg .pred %p<2>;\n\t.reg .f32 %f<5>;\n\t.reg .b32 %r<8>;\n\
        \tmov.u32 %r1, %tid.x;\n\tsub.s32 %r2, %r1, 3;\n\tand.b32 %r3, %r2, 1;\n\tmax.s32 %r4, %r3, 100;\n\
        \tabs.s32 %r5, %r4;\n\tshl.b32 %r6, %r5, 2;\n\tsetp.eq.u32 %p1, %r6, 1;\n\tselp.b32 %r7, 5, %r6, %p1;\n\
        \tcvt.rn.f32.s32 %f1, %r7;\n\tneg.f32 %f2, %f1;\n\tfma.rn.f32 %f3, %f2, %f1, %f2;\n\tmin.f32 %f4, %f3, %f1;\n\
        \tsetp.ltu.f32 %p1, %f4, 0f00000000;\n\t@!%p1 exit;\n\tret;";
    let out = lower("", body, 90).unwrap();
    let code: Vec<&str> =
        out.lines().filter(|l| l.starts_with("    ") && !l.contains(".param")).map(str::trim).collect();
    assert_eq!(
        code,
        [
            "%r0 = S2R SR_TID.X",
            "%r1 = IADD3 %r0, -0x3, RZ",
            "%r2 = LOP3.LUT %r1, 0x1, RZ, 0xc0, !PT",
            "%r3 = VIMNMX %r2, 0x64, !PT",
            "%r4 = IABS %r3",
            "%r5 = SHF.L.U32 %r4, 0x2, RZ",
            "%p0, PT = ISETP.EQ.U32.AND %r5, 0x1, PT",
            "%r6 = SEL %r5, 0x5, !%p0",
            "%r7 = I2FP.F32.S32 %r6",
            "%r8 = FADD -%r7, -RZ",
            "%r9 = FFMA %r8, %r7, %r8",
            "%r10 = FMNMX %r9, %r7, PT",
            "%r11 = IMAD.MOV.U32 RZ, RZ, 0x0",
            "%p0, PT = FSETP.GTU.AND %r11, %r10, PT",
            "@!%p0 EXIT",
            "EXIT",
        ]
    );
}

#[test]
fn unsupported_instructions_are_errors_with_their_line() {
    let body = "\t.reg .b64 %rd<3>;\n\tdiscard.global.L2 [%rd1], 128;\n\tret;";
    let errors = lower("", body, 90).unwrap_err();
    assert_eq!(errors, ["line 7:2: lowering of 'discard.global.L2' is not supported yet"]);
}

#[test]
fn shared_memory_and_barriers() {
    let body = "\t.reg .f32 %f<2>;\n\t.reg .b32 %r<3>;\n\t.shared .align 4 .b8 s[64];\n\
        \tmov.u32 %r1, s;\n\tst.shared.f32 [%r1+4], %f1;\n\tbar.sync 0;\n\tld.shared.f32 %f1, [s];\n\tret;";
    let out = lower("", body, 90).unwrap();
    let code: Vec<&str> = out.lines().filter(|l| l.starts_with("    ")).map(str::trim).collect();
    assert_eq!(
        code,
        [
            // The variable sits after the KiB ptxas reserves on sm_90.
            ".shared_bytes 1088, 4",
            "%ur0 = S2UR SR_CgaCtaId",
            "%ur1 = UMOV 0x400",
            "%ur2 = ULEA %ur0, %ur1, 0x18",
            "%r0 = MOV %ur2",
            "STS [%r0+0x4], %r1",
            "BAR.SYNC.DEFER_BLOCKING 0x0",
            "%ur3 = S2UR SR_CgaCtaId",
            "%ur4 = UMOV 0x400",
            "%ur5 = ULEA %ur3, %ur4, 0x18",
            "%r2 = MOV %ur5",
            "%r1 = LDS [%r2]",
            "EXIT",
        ]
    );
    let out = lower("", body, 80).unwrap();
    assert!(out.contains(".shared_bytes 64, 4\n") && out.contains("%r0 = MOV 0x0\n"), "{out}");
}

/// The Ori instructions of the lowered kernel, one per line, trimmed.
fn code(out: &str) -> Vec<String> {
    out.lines().filter(|l| l.starts_with("    ") && !l.contains(".param")).map(|l| l.trim().to_string()).collect()
}

#[test]
fn less_than_is_written_as_greater_than() {
    let body = "\t.reg .pred %p<3>;\n\t.reg .b32 %r<3>;\n\tmov.u32 %r1, %tid.x;\n\
        \tsetp.lt.s32 %p1, %r1, 2;\n\tsetp.le.u32 %p2, %r1, %r1;\n\tand.pred %p1, %p1, %p2;\n\
        \tnot.pred %p2, %p1;\n\t@%p2 exit;\n\tret;";
    assert_eq!(
        code(&lower("", body, 90).unwrap()),
        [
            "%r0 = S2R SR_TID.X",
            "%r1 = IMAD.MOV.U32 RZ, RZ, 0x2",
            "%p0, PT = ISETP.GT.AND %r1, %r0, PT",
            "%p1, PT = ISETP.GE.U32.AND %r0, %r0, PT",
            "%p0, PT = PLOP3.LUT %p0, %p1, PT, 0xc0, 0x0",
            "%p1, PT = PLOP3.LUT %p0, PT, PT, 0xf, 0x0",
            "@%p1 EXIT",
            "EXIT",
        ]
    );
}

#[test]
fn shuffles_reductions_and_doubles() {
    let params = ".param .u64 out, .param .f64 x";
    let body = "\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .f32 %f<3>;\n\t.reg .f64 %fd<4>;\n\
        \t.reg .b64 %rd<3>;\n\tld.param.u64 %rd1, [out];\n\tld.param.f64 %fd1, [x];\n\
        \tmov.u32 %r1, %laneid;\n\tmov.u32 %r2, 31;\n\tmov.u32 %r3, -1;\n\
        \tshfl.sync.bfly.b32 %r4|%p1, %r1, 16, %r2, %r3;\n\tmov.b32 %f1, %r4;\n\
        \tcvta.to.global.u64 %rd2, %rd1;\n\tred.global.add.f32 [%rd2], %f1;\n\
        \tfma.rn.f64 %fd2, %fd1, %fd1, 0d3FF0000000000000;\n\tst.global.f64 [%rd2+8], %fd2;\n\tret;";
    assert_eq!(
        code(&lower(params, body, 90).unwrap()),
        [
            "%ur0.64 = ULDC.64 c[0x0][0x208]",
            "%r0.64 = LDC.64 c[0x0][0x210]",
            "%r1.64 = LDC.64 c[0x0][0x218]",
            "%r2 = S2R SR_LANEID",
            "%r3 = MOV 0x1f",
            "%r4 = MOV 0xffffffff",
            "PT, %r5 = SHFL.BFLY %r2, 0x10, 0x1f",
            "%r6 = MOV %r5",
            // The cvta copy shares the pointer's register.
            "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU desc[%ur0.64][%r0.64], %r6",
            "%r7.64 = DFMA %r1.64, %r1.64, 0d3FF0000000000000",
            "STG.E.64 desc[%ur0.64][%r0.64+0x8], %r7.64",
            "EXIT",
        ]
    );
    // sm_80 reads the f64 parameter from the bank and the pointer into a
    // pair with IMAD.WIDE.U32 RZ, RZ, c[..].
    let out = code(&lower(params, body, 80).unwrap()).join("\n");
    assert!(out.contains("%r8.64 = IMAD.WIDE.U32 RZ, RZ, c[0x0][0x160]\nRED.E.ADD.F32.FTZ.RN.STRONG.GPU"), "{out}");
    assert!(
        out.contains("%r10.64 = IMAD.WIDE.U32 RZ, RZ, c[0x0][0x168]\n%r9.64 = DFMA %r10.64, c[0x0][0x168]"),
        "{out}"
    );
}

#[test]
fn warp_synchronous_instructions_after_a_branch_reconverge_first() {
    let body = "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, %tid.x;\n\
        \tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 bra $L_join;\n\tadd.s32 %r1, %r1, 1;\n$L_join:\n\
        \tshfl.sync.down.b32 %r2, %r1, 1, 31, -1;\n\tshfl.sync.down.b32 %r3, %r2, 1, 31, -1;\n\
        \tbar.sync 0;\n\tret;";
    let shape = |sm| code(&lower("", body, sm).unwrap())[4..].to_vec();
    assert_eq!(
        shape(90),
        [
            "WARPSYNC.ALL",
            "PT, %r1 = SHFL.DOWN %r0, 0x1, 0x1f",
            "PT, %r2 = SHFL.DOWN %r1, 0x1, 0x1f",
            "BAR.SYNC.DEFER_BLOCKING 0x0",
            "EXIT",
        ]
    );
    assert_eq!(shape(80)[0], "WARPSYNC 0xffffffff");
}

#[test]
fn a_64_bit_copy_written_twice_is_an_add_of_zero() {
    let params = ".param .u64 p";
    let body = "\t.reg .b64 %rd<3>;\n\tld.param.u64 %rd1, [p];\n\tmov.b64 %rd2, %rd1;\n\tmov.b64 %rd2, %rd1;\n\tret;";
    assert_eq!(
        code(&lower(params, body, 90).unwrap()),
        [
            "%r0.64 = LDC.64 c[0x0][0x210]",
            "%r1.64 = IMAD.WIDE.U32 RZ, RZ, %r0.64",
            "%r1.64 = IMAD.WIDE.U32 RZ, RZ, %r0.64",
            "EXIT",
        ]
    );
}

#[test]
fn votes_matches_and_predicate_copies() {
    let body = "\t.reg .pred %p<8>;\n\t.reg .b32 %r<8>;\n\tmov.u32 %r1, %tid.x;\n\
        \tsetp.gt.s32 %p1, %r1, 3;\n\tvote.sync.ballot.b32 %r2, %p1, -1;\n\
        \tvote.sync.any.pred %p2, %p1, -1;\n\tvote.sync.any.pred %p3, !%p1, -1;\n\
        \tvote.sync.all.pred %p4, %p1, -1;\n\tactivemask.b32 %r3;\n\
        \tmatch.any.sync.b32 %r4, %r1, -1;\n\tmatch.all.sync.b32 %r5|%p5, %r1, -1;\n\
        \tmov.pred %p6, %p2;\n\tmov.pred %p7, 0;\n\t@%p4 mov.pred %p7, %p3;\n\
        \tselp.b32 %r6, %r2, %r3, %p6;\n\tselp.b32 %r7, %r4, %r5, %p7;\n\
        \t@%p5 bra $L_end;\n\tadd.s32 %r6, %r6, %r7;\n$L_end:\n\tret;";
    assert_eq!(
        code(&lower("", body, 90).unwrap_or_else(|e| panic!("{e:?}"))),
        [
            "%r0 = S2R SR_TID.X",
            "%p0, PT = ISETP.GT.AND %r0, 0x3, PT",
            "%r1, PT = VOTE.ANY %p0",
            // nvdisasm prints `VOTE.ANY P1, P0`: the R result is RZ.
            "RZ, %p1 = VOTE.ANY %p0",
            "%p2 = VOTE.ANY !%p0",
            "%p3 = VOTE.ALL %p0",
            "%r2, PT = VOTE.ANY PT",
            "%r3 = MATCH.ANY %r0",
            "%p4, %r4 = MATCH.ALL %r0",
            // %p6 is written once, and so is %p2: no instruction.
            "%p5, PT = PLOP3.LUT PT, PT, PT, 0x0, 0x0",
            "@%p3 %p5, PT = PLOP3.LUT %p2, PT, PT, 0xf0, 0x0",
            "%r5 = SEL %r1, %r2, %p1",
            "%r6 = SEL %r3, %r4, %p5",
            "@%p4 BRA bb2",
            "%r5 = IADD3 %r5, %r6, RZ",
            "EXIT",
        ]
    );
    // A partial member mask gives NVIDIA's code for the full one.
    let partial = body.replace("vote.sync.all.pred %p4, %p1, -1", "vote.sync.all.pred %p4, %p1, 0xffff");
    assert_eq!(
        code(&lower("", &partial, 90).unwrap_or_else(|e| panic!("{e:?}"))),
        code(&lower("", body, 90).unwrap_or_else(|e| panic!("{e:?}")))
    );
}

/// Fragments as tuples: `ldmatrix` results are the parts of its `LDSM`
/// tuple, which `HMMA` reads as they are (an address offset stays in the
/// address); accumulator lists are bound to tuples before lowering (the
/// first, `%f1..4`, is updated in place; `%f5..8` is the second's result);
/// other lists (`%f8..5`, reversed) are gathered into a tuple with `MOV`s,
/// and results written back; an unsupported shape is an error naming it.
#[test]
fn ldmatrix_and_mma_use_fragment_tuples() {
    let body = "\t.reg .b32 %r<8>;\n\t.reg .f32 %f<13>;\n\
        \tmov.u32 %r1, %tid.x;\n\tmov.f32 %f1, 0f00000000;\n\tmov.f32 %f2, %f1;\n\
        \tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r2, %r3, %r4, %r5}, [%r1];\n\
        \tldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r6, %r7}, [%r1+16];\n\
        \tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%f1, %f2, %f3, %f4};\n\
        \tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5, %f6, %f7, %f8}, {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%f1, %f2, %f3, %f4};\n\
        \tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f9, %f10, %f11, %f12}, {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%f8, %f7, %f6, %f5};\n\
        \tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f8, %f7, %f6, %f5}, {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%f1, %f2, %f3, %f4};\n\
        \tret;";
    let text = lower("", body, 80).unwrap();
    let body: Vec<&str> = text.lines().map(str::trim).skip_while(|l| !l.contains("LDSM")).collect();
    assert_eq!(
        body,
        [
            "%r4.128 = LDSM.16.M88.4 [%r3]",
            "%r5.64 = LDSM.16.MT88.2 [%r3+0x10]",
            "%r0:0.128 = HMMA.16816.F32 %r4:0.128, %r5:0.64, %r0:0.128",
            "%r1:0.128 = HMMA.16816.F32 %r4:0.128, %r5:0.64, %r0:0.128",
            "undef %r6:0 = MOV %r1:3",
            "%r6:1 = MOV %r1:2",
            "%r6:2 = MOV %r1:1",
            "%r6:3 = MOV %r1:0",
            "%r2:0.128 = HMMA.16816.F32 %r4:0.128, %r5:0.64, %r6.128",
            "%r7.128 = HMMA.16816.F32 %r4:0.128, %r5:0.64, %r0:0.128",
            "%r1:3 = MOV %r7:0",
            "%r1:2 = MOV %r7:1",
            "%r1:1 = MOV %r7:2",
            "%r1:0 = MOV %r7:3",
            "EXIT",
            "}",
        ]
    );
    // Mixed accumulators (f16 D, f32 C): not an HMMA form of the table.
    let bad = "\t.reg .b32 %r<13>;\n\
        \tmma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32 {%r1, %r2}, {%r3, %r4, %r5, %r6}, {%r7, %r8}, {%r9, %r10, %r11, %r12};\n\tret;";
    let errors = lower("", bad, 90).unwrap_err();
    let name = "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32";
    assert!(errors[0].contains(&format!("lowering of '{name}' is not supported yet")), "{errors:?}");
}

/// `base + (x << k)` is NVIDIA's `LEA` + `LEA.HI.X` (the shift stays for
/// dead-code elimination); on sm_80 a parameter base is read from the
/// bank. A shifted register written twice is not fused.
#[test]
fn shifted_adds_become_lea() {
    let params = ".param .u64 a, .param .u32 i";
    let body = "\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<8>;\n\
        \tld.param.u64 %rd1, [a];\n\tld.param.u32 %r1, [i];\n\tcvt.u64.u32 %rd2, %r1;\n\
        \tadd.s64 %rd3, %rd2, %rd2;\n\tshl.b64 %rd4, %rd3, 2;\n\tadd.s64 %rd5, %rd1, %rd4;\n\
        \tst.global.u64 [%rd5], %rd5;\n\
        \tshl.b64 %rd6, %rd3, 3;\n\tshl.b64 %rd6, %rd6, 1;\n\tadd.s64 %rd7, %rd6, %rd5;\n\
        \tst.global.u64 [%rd7], %rd7;\n\tret;";
    for (sm, lo, hi) in [(80, "c[0x0][0x160]", "c[0x0][0x164]"), (90, "%r0:0", "%r0:1")] {
        let text = lower(params, body, sm).unwrap();
        let leas: Vec<&str> = text.lines().map(str::trim).filter(|l| l.contains("LEA")).collect();
        assert_eq!(
            leas,
            [
                format!("undef %r5:0, %p0 = LEA %r3:0, {lo}, 0x2"),
                format!("%r5:1 = LEA.HI.X %r3:0, {hi}, %r3:1, 0x2, %p0"),
            ],
            "sm_{sm}:\n{text}"
        );
    }
}
