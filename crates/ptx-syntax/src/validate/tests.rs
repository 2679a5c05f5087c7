//! Validation rules on small kernels, without NVIDIA's tools (the oracle
//! tests in `tests/oracle.rs` compare the same rules against ptxas).

use crate::{FileId, ValidateOptions, parse, validate};

/// A kernel for `target` with `body` after the register declarations.
fn kernel(target: &str, body: &str) -> String {
    format!(
        ".version 9.5\n.target {target}\n.address_size 64\n.global .u32 g;\n.entry k(.param .u64 p)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<8>;\n{body}\n\tret;\n}}\n"
    )
}

/// Messages of `source`, as `line: message`.
fn messages(source: &str) -> Vec<String> {
    let (module, diags) = parse(source, FileId(0));
    assert!(diags.is_empty(), "syntax errors: {diags:?}");
    validate(&module, &ValidateOptions::default())
        .iter()
        .map(|d| format!("{}: {}", d.line(source).unwrap_or(0), d.message))
        .collect()
}

fn first(target: &str, body: &str) -> String {
    messages(&kernel(target, body)).into_iter().next().unwrap_or_default()
}

#[test]
fn clean_kernel_has_no_messages() {
    let body = "\tld.param.u64 %rd1, [p];\n\tld.global.u32 %r1, [g];\n\tadd.s32 %r2, %r1, 1;\n\t@%p1 bra L;\nL:";
    assert_eq!(messages(&kernel("sm_90", body)), Vec::<String>::new());
}

#[test]
fn instruction_rules() {
    assert_eq!(first("sm_90", "\taddq.s32 %r1, %r2, %r3;"), "11: Not a name of any known instruction: 'addq'");
    assert_eq!(first("sm_90", "\tadd.s32 %r1, %r2;"), "11: Arguments mismatch for instruction 'add'");
    assert_eq!(first("sm_90", "\tadd.f32 %f1, %f2, 1;"), "11: Arguments mismatch for instruction 'add'");
    assert_eq!(first("sm_90", "\tadd.s32 %r1, %r2, %rd1;"), "11: Arguments mismatch for instruction 'add'");
    // Shift amounts are 32-bit integers whatever the type shifted.
    assert_eq!(first("sm_90", "\tshl.b64 %rd1, %rd2, %rd3;"), "11: Arguments mismatch for instruction 'shl'");
    assert_eq!(first("sm_90", "\tshr.u32 %r1, %r2, %f1;"), "11: Arguments mismatch for instruction 'shr'");
    assert_eq!(first("sm_90", "\tshr.s64 %rd1, %rd2, %r3;\n\tshl.b64 %rd1, %rd2, -1;"), "");
    assert_eq!(first("sm_90", "\tadd.s32 5, %r2, %r1;"), "11: Result register required for instruction 'add'");
    assert_eq!(first("sm_90", "\tadd.s33 %r1, %r2, %r1;"), "11: Unknown modifier '.s33'");
    assert_eq!(first("sm_90", "\tst.global.nc.u32 [g], %r1;"), "11: Illegal modifier '.nc' for instruction 'st'");
    assert_eq!(first("sm_90", "\tmul.s32 %r1, %r2, %r3;"), "11: Unexpected instruction types specified for 'mul'");
    assert_eq!(first("sm_90", "\tsetp.s32 %p1, %r2, %r3;"), "11: Comparison modifier required for instruction 'setp'");
    assert_eq!(first("sm_90", "\tneg.u32 %r1, %r2;"), "11: Instruction 'neg' applies only to signed numeric types");
    assert_eq!(
        first("sm_90", "\tbar.sync 16;"),
        "11: Barrier number '16' out of range, expected to be in range [0..15]"
    );
    assert_eq!(
        first("sm_90", "\tld.shared.u32 %r1, [g];"),
        "11: State space mismatch between instruction and address in instruction 'ld'"
    );
    assert_eq!(
        first("sm_90", "\tld.global.v2.u32 %r1, [g];"),
        "11: Argument vector size mismatch for instruction 'ld'"
    );
    assert_eq!(first("sm_90", "\tbra %r1;"), "11: Label expected for argument 0 of instruction 'bra'");
    assert_eq!(first("sm_90", "\t@%r1 bra L;\nL:"), "11: Predicate expression expected");
}

#[test]
fn symbols() {
    assert_eq!(first("sm_90", "\tmov.u32 %r1, %r9;"), "11: Arguments mismatch for instruction 'mov'");
    assert_eq!(messages(&kernel("sm_90", "\tmov.u32 %r1, %r9;"))[1], "11: Unknown symbol '%r9'");
    assert_eq!(first("sm_90", "\tbra NOWHERE;"), "11: Unknown symbol 'NOWHERE'");
    assert_eq!(first("sm_90", "L:\nL:"), "12: Duplicate definition of label 'L'");
    assert_eq!(first("sm_90", "\t.reg .b32 %r1;"), "11: Duplicate definition of variable '%r1'");
    assert_eq!(
        first("sm_90", "\telect.sync %r1|_, 0xffffffff;"),
        "11: Predicate output expected for instruction 'elect'"
    );
    assert_eq!(first("sm_90", "\telect.sync _|%p1, 0xffffffff;"), "");
    // NVIDIA's ptxas has no vector `.param` variables (parameters or
    // call-sequence declarations).
    assert_eq!(
        first("sm_90", "\t{ .param .v2 .b32 pa, pb; }"),
        "11: Variable 'pa' cannot be allocated in .param state space"
    );
    assert_eq!(
        first("sm_90", "\t{ .reg .b32 %t; }\n\tmov.b32 %r1, %t;"),
        "12: Arguments mismatch for instruction 'mov'"
    );
}

#[test]
fn target_and_version_gates() {
    assert_eq!(
        first("sm_80", "\twgmma.fence.sync.aligned;"),
        "11: Instruction 'wgmma.fence' not supported on .target 'sm_80'"
    );
    assert_eq!(first("sm_80", "\telect.sync %r1|%p1, -1;"), "11: Feature 'elect' requires .target sm_90 or higher");
    // ptxas names `.abs`, then `.xorsign`, on every type.
    assert_eq!(
        messages(&kernel("sm_80", "\tmin.xorsign.abs.f32 %f1, %f2, %f3;")),
        [
            "11: Feature '.abs' requires .target sm_86 or higher",
            "11: Modifier '.xorsign' requires .target sm_86 or higher"
        ]
    );
    assert_eq!(first("sm_86", "\tmax.xorsign.abs.f32 %f1, %f2, %f3;"), "");
    assert_eq!(first("sm_90a", "\twgmma.fence.sync.aligned;"), "");
    let old = kernel("sm_90", "\telect.sync %r1|%p1, -1;").replace(".version 9.5", ".version 7.8");
    assert_eq!(messages(&old)[0], "11: Feature 'elect' requires PTX ISA .version 8.0 or later");
    let too_old = kernel("sm_90", "").replace(".version 9.5", ".version 7.0");
    assert_eq!(messages(&too_old)[0], "2: PTX .version 7.0 does not support .target sm_90");
    assert_eq!(messages(&kernel("sm_95", ""))[0], "2: Unsupported .target 'sm_95'");
    assert_eq!(
        messages(&kernel("sm_90", "").replace("9.5", "9.9"))[0],
        "1: Unsupported .version 9.9; current version is '9.5'"
    );
}

/// The first message for `.target target` compiled with `-arch arch`.
fn with_arch(target: &str, arch: &str) -> String {
    let source = kernel(target, "");
    let (module, _) = parse(&source, FileId(0));
    let options = ValidateOptions { arch: crate::Sm::parse(arch), ..ValidateOptions::default() };
    validate(&module, &options).first().map(|d| d.message.clone()).unwrap_or_default()
}

#[test]
fn arch_is_checked_against_the_target() {
    let higher = "SM version specified by .target is higher than default SM version assumed";
    assert_eq!(with_arch("sm_90", "sm_80"), higher);
    assert_eq!(with_arch("sm_103f", "sm_100"), higher);
    assert_eq!(
        with_arch("sm_90a", "sm_100"),
        "Program with .target 'sm_90a' cannot be compiled to future architecture"
    );
    assert_eq!(with_arch("sm_90a", "sm_90"), "PTX with .target 'sm_90a' cannot be compiled for architecture 'sm_90'");
    assert_eq!(
        with_arch("sm_100f", "sm_120"),
        "Program with .target 'sm_100f' cannot be compiled to different SM-family architecture"
    );
    for ok in
        [("sm_80", "sm_90"), ("sm_90", "sm_90a"), ("sm_100f", "sm_103"), ("sm_120f", "sm_121"), ("sm_90a", "sm_90a")]
    {
        assert_eq!(with_arch(ok.0, ok.1), "", "{ok:?}");
    }
    // Instructions are gated by `.target`, not by `-arch` (as in ptxas).
    let source = kernel("sm_80", "\twgmma.fence.sync.aligned;");
    let (module, _) = parse(&source, FileId(0));
    let options = ValidateOptions { arch: crate::Sm::parse("sm_90a"), ..ValidateOptions::default() };
    assert_eq!(validate(&module, &options)[0].message, "Instruction 'wgmma.fence' not supported on .target 'sm_80'");
}

#[test]
fn register_types_follow_ptxas() {
    let ok = |body: &str| assert_eq!(messages(&kernel("sm_90", body)), Vec::<String>::new(), "{body}");
    ok("\tadd.f32 %f1, %f2, %r1;\n\tand.b32 %r1, %f1, %r2;\n\tld.global.f32 %rd1, [g];\n\tmov.b32 %f1, %clock;");
    ok("\tmad.wide.s32 %rd1, %r1, %r2, %rd3;\n\tcvt.u32.u64 %r1, %clock64;\n\tmov.u64 %rd1, %pm0_64;");
    assert_eq!(first("sm_90", "\tadd.u32 %r1, %r2, %f1;"), "11: Arguments mismatch for instruction 'add'");
    assert_eq!(
        first("sm_90", "\tld.global.f32 %rd1, [g];\n\tld.global.u32 %f1, [g];"),
        "12: Arguments mismatch for instruction 'ld'"
    );
    assert_eq!(first("sm_90", "\tmad.lo.s32 %r1, %r2, %r3, %f1;"), "11: Arguments mismatch for instruction 'mad.lo'");
    assert_eq!(first("sm_90", "\tmul.wide.s32 %r1, %r2, 4;"), "11: Arguments mismatch for instruction 'mul.wide'");
    assert_eq!(
        first("sm_90", "\tadd.u32 %r1, %tid.x, 1;"),
        "11: Special register argument not allowed for instruction 'add'"
    );
    assert_eq!(
        first("sm_90", "\tmov.f32 %f1, %laneid;"),
        "11: Special register argument not allowed for instruction 'mov'"
    );
    assert_eq!(
        first("sm_90", "\tcvt.rn.f32.u32 %f1, %laneid;"),
        "11: Special register argument not allowed for instruction 'cvt'"
    );
    assert_eq!(first("sm_90", "\tmov.u32 %r1, %clock64;"), "11: Arguments mismatch for instruction 'mov'");
}

#[test]
fn negated_registers_are_refused() {
    assert_eq!(first("sm_90", "\tsub.s32 %r1, %r2, -%r3;"), "11: Operand negation not allowed for instruction 'sub'");
    assert_eq!(first("sm_90", "\tadd.f32 %f1, -%f2, %f1;"), "11: Illegal argument to unary minus");
    assert_eq!(first("sm_90", "\tadd.s64 %rd1, %rd2, -%rd3;"), "11: Illegal argument to unary minus");
    assert_eq!(first("sm_90", "\tadd.s64 %rd1, -%r2, 1;"), "11: Arguments mismatch for instruction 'add'");
    assert_eq!(messages(&kernel("sm_90", "\tadd.s32 %r1, %r2, -5;")), Vec::<String>::new());
}

/// ptxas reports every complaint about a `cvt`'s modifiers, in its order
/// (the isa-sweep's cvt family against ptxas 13.5).
#[test]
fn cvt_modifier_rules() {
    let all = |body: &str| messages(&kernel("sm_90", body));
    assert_eq!(
        all("\t{ .reg .b16 %h<3>; cvt.ftz.sat.u16.bf16 %h1, %h2; }"),
        [
            "11: Illegal modifier '.sat' for instruction 'cvt'",
            "11: Illegal modifier '.ftz' for instruction 'cvt'",
            "11: Modifier '.ftz' does not apply to this type of convert operation",
            "11: Rounding modifier required for instruction 'cvt'",
        ]
    );
    assert_eq!(
        all("\t{ .reg .b16 %h<3>; cvt.rn.ftz.f16.f16 %h1, %h2; }"),
        [
            "11: Modifier '.ftz' does not apply to this type of convert operation",
            "11: Illegal rounding modifier for instruction 'cvt'",
        ]
    );
    // Nothing to saturate: a widening of the same signedness.
    assert_eq!(all("\tcvt.sat.s32.u16 %r1, %r2;"), ["11: Illegal modifier '.sat' for instruction 'cvt'"]);
    assert_eq!(all("\tcvt.sat.u32.s16 %r1, %r2;"), Vec::<String>::new());
    // Widening float roundings are refused, except around bfloat16.
    assert_eq!(
        all("\t{ .reg .b16 %h; cvt.rn.f32.f16 %f1, %h; }"),
        ["11: Illegal rounding modifier for instruction 'cvt'"]
    );
    assert_eq!(all("\t{ .reg .b16 %h; cvt.rn.f32.bf16 %f1, %h; }"), Vec::<String>::new());
    assert_eq!(
        all("\t{ .reg .b16 %h<2>; cvt.rni.u8.bf16 %h0, %h1; }"),
        ["11: Arguments mismatch for instruction 'cvt'"]
    );
}

/// `setp`/`set`: comparisons by type, `.ftz` by type, the complement of a
/// scalar half comparison, half result types (ptxas 13.5).
#[test]
fn comparison_rules() {
    let all = |body: &str| messages(&kernel("sm_90", body));
    assert_eq!(
        all("\tsetp.lo.ftz.s32 %p1, %r1, %r2;"),
        [
            "11: Illegal modifier '.ftz' for instruction 'setp'",
            "11: Mismatch between instruction type and comparison qualifier"
        ]
    );
    assert_eq!(all("\tsetp.lt.b32 %p1, %r1, %r2;"), ["11: Mismatch between instruction type and comparison qualifier"]);
    assert_eq!(
        all("\tset.nan.u32.u32 %r1, %r1, %r2;"),
        ["11: Mismatch between instruction type and comparison qualifier"]
    );
    assert_eq!(all("\tsetp.hs.u32 %p1|%p2, %r1, %r2;"), Vec::<String>::new());
    assert_eq!(
        all("\t{ .reg .b16 %h<3>; setp.lt.f16 %p1|%p2, %h1, %h2; }"),
        ["11: Predicate output not allowed for instruction 'setp'"]
    );
    assert_eq!(all("\t{ .reg .b16 %h<3>; setp.lt.f16 %p1|_, %h1, %h2; }"), Vec::<String>::new());
    assert_eq!(
        all("\t{ .reg .b16 %h<3>; setp.lt.f16 %p1, %h1, 1.0; }"),
        ["11: Arguments mismatch for instruction 'setp'"]
    );
    assert_eq!(all("\tset.eq.f16.f16x2 %r1, %r1, %r2;"), ["11: Unexpected instruction types specified for 'set'"]);
}

/// Field positions and lengths are bytes; `.NaN` is f32/f16 only; `mad.f32`
/// names its rounding (ptxas 13.5, the isa-sweep).
#[test]
fn operand_range_and_modifier_rules() {
    let all = |body: &str| messages(&kernel("sm_90", body));
    assert_eq!(
        all("\tbfe.u32 %r1, %r2, -1, 8;"),
        ["11: Argument 2 of instruction 'bfe': value '-1' out of range, expected to be in range [0..255]"]
    );
    assert_eq!(all("\tbfi.b32 %r1, %r2, %r3, 255, 0;"), Vec::<String>::new());
    assert_eq!(
        all("\t{ .reg .f64 %d<3>; min.NaN.f64 %d0, %d1, %d2; }"),
        ["11: Illegal modifier '.NaN' for instruction 'min'"]
    );
    assert_eq!(all("\tmad.f32 %f1, %f2, %f3, %f4;"), ["11: Rounding modifier required for instruction 'mad'"]);
}

/// bfloat16 conversions other than to and from f32 need sm_90 (ptxas 13.5
/// names the pair, then goes on with the other complaints).
#[test]
fn bf16_conversions_need_sm90() {
    let body = "\t{ .reg .b16 %h<3>; cvt.sat.f16.bf16 %h1, %h2; cvt.f32.bf16 %f1, %h1; }";
    assert_eq!(
        messages(&kernel("sm_80", body)),
        [
            "11: Feature 'cvt with .f16.bf16' requires .target sm_90 or higher",
            "11: Illegal modifier '.sat' for instruction 'cvt'",
        ]
    );
    assert_eq!(messages(&kernel("sm_90", body)), ["11: Illegal modifier '.sat' for instruction 'cvt'"]);
}

/// ptxas 13.5's refusals of memory instructions' types, widths and
/// qualifiers (the isa-sweep's ld/st/atom rows).
#[test]
fn memory_and_atomic_rules() {
    let all = |target: &str, body: &str| messages(&kernel(target, body));
    assert_eq!(all("sm_90", "\tld.global.f16 %r1, [%rd1];"), ["11: Unexpected instruction types specified for 'ld'"]);
    assert_eq!(
        all("sm_90", "\tst.global.bf16x2 [%rd1], %r1;"),
        ["11: Unexpected instruction types specified for 'st'"]
    );
    assert_eq!(
        all("sm_90", "\tld.local.v4.b64 {%rd1, %rd1, %rd1, %rd1}, [%rd2];"),
        [
            "11: Feature '256 bit wide load/store' requires .target sm_100 or higher",
            "11: global state space expected for feature '256 bit wide load/store'"
        ]
    );
    assert_eq!(
        all("sm_90", "\tst.v4.b64 [%rd2], {%rd1, %rd1, %rd1, %rd1};"),
        ["11: Feature '256 bit wide load/store' requires .target sm_100 or higher"]
    );
    assert_eq!(
        all("sm_90", "\tst.relaxed.gpu.local.u32 [%rd1], %r1;"),
        ["11: Modifier '.relaxed' cannot be applied to '.local' space"]
    );
    assert_eq!(
        all("sm_90", "\tred.global.exch.b32 [%rd1], %r1;"),
        [
            "11: Illegal operation '.exch' for instruction 'red'",
            "11: Operation .exch requires  type for instruction 'red'"
        ]
    );
    assert_eq!(
        all("sm_80", "\t.reg .b16 %h1; atom.global.max.noftz.bf16 %h1, [%rd1], %h1;"),
        ["11: Instruction 'atom.max.bf16.global' requires .target sm_90 or higher"]
    );
    assert_eq!(
        all("sm_80", "\tred.global.v2.f32.add [%rd1], {%f1, %f2};"),
        ["11: Feature 'red instruction with vector types' requires .target sm_90 or higher"]
    );
    assert_eq!(
        all("sm_80", "\tld.shared::cluster.u32 %r1, [%rd1];"),
        ["11: Feature '::cluster' requires .target sm_90 or higher"]
    );
    assert_eq!(
        all("sm_90", "\t.reg .b16 %h1; atom.max.bf16 %h1, [%rd1], %h1;"),
        [
            "11: '.noftz' modifier required for instruction 'atom' with type '.bf16'",
            "11: Vector modifier required for instruction 'atom.max.bf16 with generic state space'"
        ]
    );
}

#[test]
fn cvt_pack_takes_a_source_per_type() {
    assert_eq!(messages(&kernel("sm_90", "\tcvt.pack.sat.s16.s32 %r1, %r2, %r3;")), Vec::<String>::new());
    assert_eq!(messages(&kernel("sm_90", "\tcvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4;")), Vec::<String>::new());
    assert_eq!(
        first("sm_90", "\tcvt.pack.sat.u16.s32 %r1, %r2, %r3, %r4;"),
        "11: Arguments mismatch for instruction 'cvt.pack'"
    );
    assert_eq!(
        first("sm_90", "\tcvt.pack.sat.s8.s32.b32 %r1, %r2, %r3;"),
        "11: Arguments mismatch for instruction 'cvt.pack'"
    );
}
