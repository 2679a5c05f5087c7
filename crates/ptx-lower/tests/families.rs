//! Lowering of the bit-manipulation, division and conversion families:
//! PTX in, Ori text out.

use ori_ir::Sm;
use pretty_assertions::assert_eq;
use ptx_syntax::{FileId, ValidateOptions, parse, validate};

/// Wraps `body` in a kernel with one `u64` parameter `p` and two `u32`
/// ones `a`, `b` loaded into `%r1`, `%r2` (and `%rd1`), lowers it for `sm`
/// and prints the instructions after those loads.
fn lower(body: &str, sm: u16) -> Result<String, Vec<String>> {
    let source = format!(
        ".version 8.0\n.target sm_{sm}\n.address_size 64\n.visible .entry k(.param .u64 p, .param .u32 a, .param .u32 b)\n{{\n\
         .reg .pred %p<4>; .reg .b16 %h<4>; .reg .b32 %r<20>; .reg .f32 %f<8>; .reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [a]; ld.param.u32 %r2, [b];\n{body}\nret;\n}}\n"
    );
    let (module, diags) = parse(&source, FileId(0));
    assert!(diags.is_empty(), "{diags:?}");
    let diags = validate(&module, &ValidateOptions::default());
    assert!(diags.iter().all(|d| !d.is_error()), "{diags:?}");
    let text = ptx_lower::lower(&module, &source, Sm::new(sm))
        .map(|m| ori_ir::text::print_module(&m))
        .map_err(|errors| errors.iter().map(ToString::to_string).collect::<Vec<_>>())?;
    let last_load = if sm >= 90 { "c[0x0][0x21c]" } else { "c[0x0][0x16c]" };
    let body: Vec<&str> = text.lines().skip_while(|l| !l.contains(last_load)).skip(1).collect();
    Ok(body.join("\n"))
}

#[test]
fn bit_operations_are_single_instructions() {
    let body = "popc.b32 %r3, %r1;\nbrev.b32 %r4, %r1;\nbfind.shiftamt.u32 %r5, %r1;\nmul.hi.u32 %r6, %r1, %r2;\n\
                mul.hi.s32 %r7, %r1, 3;\nmov.u32 %r8, 0x5140;\nprmt.b32 %r9, %r1, %r2, %r8;\nsad.u32 %r10, %r1, %r2, 7;";
    let expected = "    %r3 = POPC %r1
    %r4 = BREV %r1
    %r5 = FLO.U32.SH %r1
    %r6 = IMAD.HI.U32 %r1, %r2, RZ
    %r7 = IMAD.HI %r1, 0x3, RZ
    %r8 = MOV 0x5140
    %r9 = PRMT %r1, 0x5140, %r2
    %r10 = VABSDIFF.U32 %r1, %r2, 0x7
    EXIT
}";
    assert_eq!(lower(body, 90).unwrap(), expected);
}

#[test]
fn sixty_four_bit_sources_are_read_by_words() {
    let body = "ld.global.u64 %rd2, [%rd1];\npopc.b64 %r3, %rd2;\nbrev.b64 %rd3, %rd2;\ncvt.u32.u64 %r4, %rd3;";
    let text = lower(body, 90).unwrap();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for want in [
        "%r5 = POPC %r3:0",
        "%r6 = POPC %r3:1",
        "%r4 = IADD3 %r5, %r6, RZ",
        "undef %r7:0 = BREV %r3:1",
        "%r7:1 = BREV %r3:0",
        "%r8 = MOV %r7:0",
    ] {
        assert!(lines.contains(&want), "no `{want}` in\n{text}");
    }
}

#[test]
fn division_is_nvidias_reciprocal_sequence() {
    let text = lower("div.u32 %r3, %r1, %r2;", 90).unwrap();
    let ops: Vec<&str> =
        text.lines().filter_map(|l| l.split(" = ").nth(1)).map(|r| r.split(' ').next().unwrap()).collect();
    assert_eq!(
        ops,
        [
            "I2F.U32.RP",
            "MUFU.RCP",
            "IADD3",
            "F2I.FTZ.U32.TRUNC.NTZ",
            "MOV",
            "IADD3",
            "IMAD",
            "IMAD.HI.U32",
            "IMAD.HI.U32",
            "IADD3",
            "IMAD",
            "ISETP.GE.U32.AND",
            "IADD3",
            "IADD3",
            "ISETP.GE.U32.AND",
            "IADD3",
            "ISETP.NE.U32.AND",
            "LOP3.LUT",
        ]
    );
    // The Newton step adds the pair (0, y): y is its high word, written first.
    assert!(text.contains("undef %r7:1 = F2I.FTZ.U32.TRUNC.NTZ %r6"), "{text}");
    assert!(text.contains("%r7:0 = MOV 0x0"), "{text}");
    assert!(text.contains("%r10 = IMAD.HI.U32 %r7:1, %r9, %r7.64"), "{text}");
    // The guarded corrections and the zero-divisor result write %r3 itself.
    assert!(text.contains("@!%p2 %r3 = LOP3.LUT RZ, %r2, RZ, 0x33, !PT"), "{text}");
}

#[test]
fn conversions_pick_nvidias_forms() {
    let body = "mov.b32 %f1, %r1;\ncvt.rni.s32.f32 %r3, %f1;\ncvt.rmi.f32.f32 %f2, %f1;\ncvt.sat.f32.f32 %f3, %f1;\n\
                cvt.rz.f32.s32 %f4, %r1;\ncvt.rn.f16.f32 %h1, %f1;\ncvt.f32.f16 %f5, %h1;\ncvt.s32.s8 %r4, %r1;";
    let at = |sm| {
        lower(body, sm)
            .unwrap()
            .lines()
            .skip(1)
            .filter_map(|l| l.split(" = ").nth(1).map(str::to_string))
            .collect::<Vec<_>>()
    };
    let common = ["F2I.NTZ %r3", "FRND.FLOOR %r3", "FADD.SAT RZ, %r3"];
    assert_eq!(at(90)[..3], common);
    assert_eq!(
        at(90)[3..],
        ["I2FP.F32.S32.RZ %r1", "F2FP.F16.F32.PACK_AB RZ, %r3", "HADD2.F32 -RZ, %r8.H0_H0", "PRMT %r1, 0x8880, RZ"]
    );
    assert_eq!(at(80)[3..], ["I2F.RZ %r1", "F2FP.PACK_AB RZ, %r3", "HADD2.F32 -RZ, %r8.H0_H0", "PRMT %r1, 0x8880, RZ"]);
}

/// A field position in a register: NVIDIA's `PRMT` of its low byte,
/// `BMSK`, `SHF.L.U32` and the merging `LOP3`.
#[test]
fn fields_in_registers_take_nvidias_sequence() {
    let text = lower("bfi.b32 %r3, %r1, %r2, %r1, 8;", 90).unwrap();
    let ops: Vec<&str> = text.lines().filter_map(|l| l.split(" = ").nth(1)?.split(' ').next()).collect();
    for want in ["PRMT", "BMSK", "SHF.L.U32", "LOP3.LUT"] {
        assert!(ops.contains(&want), "{want} missing from {text}");
    }
}

#[test]
fn half_precision_takes_nvidias_operand_forms() {
    let body = "mov.b32 %f1, %r1;\ncvt.rn.f16.f32 %h1, %f1;\nmov.b32 %r3, {%h1, %h1};\nmul.f16x2 %r4, %r2, %r3;\n\
                fma.rn.f16x2 %r5, %r3, %r2, %r4;\nmov.f32 %f2, 0f00000000;\ncvt.rn.f16.f32 %h2, %f2;\n\
                setp.lt.f16 %p1, %h1, %h2;\nmov.f32 %f3, 0fC0800000;\ncvt.rn.bf16.f32 %h3, %f3;\n\
                mov.b32 %r6, {%h3, %h3};\nmax.bf16x2 %r7, %r2, %r6;";
    let text = lower(body, 90).unwrap();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for want in [
        // The broadcast pair %r5 = {%r4, %r4} is read as one of its halves.
        "%r5 = PRMT %r4, 0x5410, %r4",
        "%r6 = HMUL2 %r5.H1_H1, %r2",
        "%r7 = HFMA2 %r5.H0_H0, %r2, %r6",
        // A binary16 zero is RZ; lt is the complement of GEU.
        "%r9 = MOV 0x0",
        "%p1, PT = HSETP2.GEU.AND %r4, RZ.H0_H0, PT",
        "%p0, PT = PLOP3.LUT %p1, PT, PT, 0xf, 0x0",
        // A constant bfloat16 pair is NVIDIA's immediate pair.
        "%r12 = MOV 0xc080c080",
        "%r13 = HMNMX2.BF16_V2 %r2, -4.0, -4.0, !PT",
    ] {
        assert!(lines.contains(&want), "no `{want}` in\n{text}");
    }
}

#[test]
fn sixty_four_bit_division_is_inline() {
    let body = "ld.global.u64 %rd2, [%rd1];\nld.global.u64 %rd3, [%rd1+8];\ndiv.u64 %rd4, %rd2, %rd3;";
    let text = lower(body, 90).unwrap();
    let ops: Vec<&str> = text.lines().filter_map(|l| l.split(" = ").nth(1)).collect();
    assert!(ops.iter().any(|o| o.starts_with("I2F.U64.RP %r")), "{text}");
    // Three high products per Newton step, three for the quotient estimate.
    assert_eq!(ops.iter().filter(|o| o.starts_with("IMAD.HI.U32")).count(), 9, "{text}");
    assert!(ops.iter().any(|o| o.starts_with("ISETP.GE.U32.AND.EX")), "{text}");
    // The quotient is assembled word by word, all ones for a zero divisor.
    assert!(text.contains("undef %r") && text.contains("= SEL %r"), "{text}");
}
