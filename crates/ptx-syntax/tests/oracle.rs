//! Malformed and illegal PTX checked against NVIDIA's ptxas: both must
//! accept or reject each snippet alike, and our first diagnostic rendered
//! in ptxas's format must equal ptxas's first stderr line (except where
//! `KNOWN_DIFFERENCES` says only the decision and line number match).

use ptx_syntax::{Diagnostic, FileId, Sm, ValidateOptions, parse, validate};

/// The corpus `vadd` kernel (`.target sm_80`); cases edit copies of it.
const BASE: &str = include_str!("vadd.ptx");

/// Declares registers of the types vadd lacks, for the register-type cases.
const MORE_REGISTERS: (&str, &str) = (
    ".reg .pred \t%p<2>;",
    ".reg .pred \t%p<2>;\n\t.reg .b16 %rs<4>;\n\t.reg .u16 %us<4>;\n\t.reg .f16 %h<4>;\n\t.reg .u32 %u<4>;\n\t.reg .f64 %fd<4>;",
);

/// Each case: name, then (find, replace) edits applied to [`BASE`].
const CASES: &[(&str, &[(&str, &str)])] = &[
    ("ok", &[]),
    ("syntax_missing_comma", &[("add.f32 \t%f3, %f2", "add.f32 %f3 %f2")]),
    ("unknown_opcode", &[("add.f32", "addq.f32")]),
    ("undeclared_register", &[("%f3, %f2, %f1", "%f3, %f2, %f9")]),
    ("undeclared_label", &[("bra \t$L__BB0_2", "bra $L__BB0_9")]),
    ("register_out_of_range", &[("%f3, %f2, %f1", "%f3, %f2, %f4")]),
    ("bad_target", &[("sm_80", "sm_95")]),
    ("bad_target_suffix", &[("sm_80", "sm_80a")]),
    ("bad_version", &[(".version 9.5", ".version 9.9")]),
    ("version_too_old_for_target", &[(".version 9.5", ".version 6.0")]),
    ("bad_address_size", &[("address_size 64", "address_size 48")]),
    ("missing_target", &[(".target sm_80\n", "")]),
    ("address_size_before_target", &[(".target sm_80\n.address_size 64", ".address_size 64\n.target sm_80")]),
    ("bad_type", &[("add.f32", "add.f33")]),
    ("missing_type", &[("add.f32", "add")]),
    ("two_types", &[("add.f32", "add.f32.f32")]),
    ("too_few_operands", &[("%f3, %f2, %f1", "%f3, %f2")]),
    ("too_many_operands", &[("%f3, %f2, %f1", "%f3, %f2, %f1, %f1")]),
    ("missing_semicolon", &[("ret;", "ret")]),
    ("bad_register_range", &[("%r<6>", "%r<6")]),
    ("several_errors", &[("add.f32", "addq.f32"), ("%rd5;", "%rd99;")]),
    ("duplicate_register", &[(".reg .f32 \t%f<4>;", ".reg .f32 %f<4>; .reg .f32 %f1;")]),
    ("duplicate_label", &[("ret;", "$L__BB0_2: ret;")]),
    // A label is scoped to its `{ }` block and the blocks in it (Triton
    // repeats `waitLoop:` in sibling blocks); the innermost one is used.
    ("label_in_sibling_blocks", &[("ret;", "{ W: @%p1 bra W; } { W: @%p1 bra W; } ret;")]),
    ("label_shadowed_in_inner_block", &[("ret;", "{ $L__BB0_2: @%p1 bra $L__BB0_2; } ret;")]),
    ("label_of_outer_block_ahead", &[("ret;", "{ @%p1 bra W; } W: ret;")]),
    ("label_twice_in_one_block", &[("ret;", "{ W: @%p1 bra W; W: ret; }")]),
    ("label_of_inner_block_from_outside", &[("ret;", "@%p1 bra W; { W: ret; }")]),
    ("label_of_sibling_block", &[("ret;", "{ @%p1 bra W; } { W: ret; }")]),
    ("label_of_closed_block", &[("ret;", "{ W: ret; } @%p1 bra W;")]),
    ("label_named_as_register_before", &[("ret;", "{ .reg .b32 W; W: ret; }")]),
    ("register_named_as_label_before", &[("ret;", "{ W: .reg .b32 W; ret; }")]),
    ("label_named_as_outer_register", &[("ret;", "{ .reg .b32 W; { W: @%p1 bra W; } } ret;")]),
    ("instruction_outside_function", &[(".address_size 64", ".address_size 64\nret;")]),
    ("vector_width_3", &[("ld.global.nc.f32 \t%f1", "ld.global.nc.v3.f32 {%f1,%f2,%f3}")]),
    ("unknown_modifier", &[("ld.global.nc.f32 \t%f1", "ld.foo.f32 %f1")]),
    ("illegal_modifier", &[("st.global.f32", "st.global.nc.f32")]),
    ("immediate_result", &[("add.f32 \t%f3, %f2, %f1", "add.f32 1.0, %f2, %f1")]),
    ("guard_not_predicate", &[("@%p1 bra", "@%r1 bra")]),
    ("guard_undeclared", &[("@%p1 bra", "@%p7 bra")]),
    ("maxntid_and_reqntid", &[("\n)\n{", "\n)\n.maxntid 128, 1, 1\n.reqntid 128, 1, 1\n{")]),
    ("stray_character", &[("ret;", "ret; `")]),
    ("undeclared_address_symbol", &[("[vadd_param_0]", "[nosuch]")]),
    ("sm90_instruction_on_sm80", &[("ret;", "wgmma.fence.sync.aligned; ret;")]),
    ("arch_specific_on_sm90", &[("sm_80", "sm_90"), ("ret;", "wgmma.fence.sync.aligned; ret;")]),
    (
        "elect_needs_ptx80",
        &[(".version 9.5", ".version 7.8"), ("sm_80", "sm_90"), ("ret;", "elect.sync %r1|%p1, 0xffffffff; ret;")],
    ),
    ("elect_on_sm80", &[("ret;", "elect.sync %r1|%p1, 0xffffffff; ret;")]),
    ("cp_async_bulk_on_sm80", &[("ret;", "cp.async.bulk.commit_group; ret;")]),
    ("redux_on_sm75", &[("sm_80", "sm_75"), ("ret;", "redux.sync.add.u32 %r1, %r2, 0xffffffff; ret;")]),
    ("cp_async_on_sm75", &[("sm_80", "sm_75"), ("ret;", "cp.async.commit_group; ret;")]),
    ("register_size_mismatch_f32", &[("add.f32 \t%f3, %f2, %f1", "add.f32 \t%f3, %f2, %rd1")]),
    ("register_size_mismatch_s64", &[("add.s64 \t%rd6, %rd4, %rd5", "add.s64 \t%rd6, %rd4, %r1")]),
    ("predicate_result_not_predicate", &[("setp.ge.s32 \t%p1", "setp.ge.s32 \t%r1")]),
    ("integer_immediate_for_float", &[("add.f32 \t%f3, %f2, %f1", "add.f32 \t%f3, %f2, 1")]),
    ("load_without_brackets", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.f32 \t%f1, %rd8")]),
    ("store_without_brackets", &[("st.global.f32 \t[%rd10], %f3", "st.global.f32 \t%rd10, %f3")]),
    ("branch_to_register", &[("bra \t$L__BB0_2", "bra %r1")]),
    ("call_undeclared_function", &[("ret;", "call.uni nosuch; ret;")]),
    ("duplicate_function", &[("\n\t// .globl\tvadd\n", "\n.func f() { ret; }\n.func f() { ret; }\n")]),
    ("unterminated_block", &[("\tret;\n\n}", "\tret;\n")]),
    ("nested_block_scope", &[("\tret;", "\t{ .reg .b32 %t; mov.b32 %t, 1; }\n\tmov.b32 %r1, %t;\n\tret;")]),
    ("entry_with_return_parameter", &[(".visible .entry vadd(", ".visible .entry (.param .b32 r) vadd(")]),
    ("vector_operand_too_short", &[("ld.global.nc.f32 \t%f1", "ld.global.nc.v4.f32 \t{%f1,%f2}")]),
    ("vector_operand_without_width", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.f32 \t{%f1,%f2}, [%rd8]")]),
    ("module_scope_register", &[(".address_size 64", ".address_size 64\n.reg .b32 %g;")]),
    ("shared_with_initializer", &[(".address_size 64", ".address_size 64\n.shared .u32 sv = 5;")]),
    ("second_version", &[(".address_size 64", ".address_size 64\n.version 9.5")]),
    ("unknown_directive_in_body", &[("ret;", ".foo 1;\n\tret;")]),
    ("unknown_directive_at_module_scope", &[(".address_size 64", ".address_size 64\n.foo 1;")]),
    ("cvt_float_rounding_to_int", &[("ret;", "cvt.rn.u32.f32 %r1, %f1;\n\tret;")]),
    ("integer_add_with_rounding", &[("add.s64 \t%rd6", "add.rn.s64 \t%rd6")]),
    ("div_f32_without_rounding", &[("ret;", "div.f32 %f1, %f2, %f3;\n\tret;")]),
    ("mul_s32_without_lo_hi", &[("mul.wide.s32", "mul.s32")]),
    ("setp_without_comparison", &[("setp.ge.s32", "setp.s32")]),
    ("shfl_without_sync", &[("ret;", "shfl.down.b32 %r1, %r2, 1, 31;\n\tret;")]),
    ("vote_without_sync", &[("ret;", "vote.any.pred %p1, %p1;\n\tret;")]),
    ("missing_version", &[(".version 9.5\n", "")]),
    ("conflicting_texmodes", &[(".target sm_80", ".target sm_80, texmode_independent, texmode_unified")]),
    ("label_as_data", &[("ret;", "mov.u32 %r1, $L__BB0_2;\n\tret;")]),
    (
        "load_shared_from_global_variable",
        &[(".address_size 64", ".address_size 64\n.global .u32 gv;"), ("ret;", "ld.shared.u32 %r1, [gv];\n\tret;")],
    ),
    (
        "store_to_const",
        &[(".address_size 64", ".address_size 64\n.const .u32 cv;"), ("ret;", "st.const.u32 [cv], %r1;\n\tret;")],
    ),
    ("barrier_number_out_of_range", &[("ret;", "bar.sync 16;\n\tret;")]),
    ("neg_unsigned", &[("ret;", "neg.u32 %r1, %r2;\n\tret;")]),
    ("abs_unsigned", &[("ret;", "abs.u32 %r1, %r2;\n\tret;")]),
    ("float_immediate_for_integer", &[("add.s64 \t%rd6, %rd4, %rd5", "add.s64 \t%rd6, %rd4, 1.5")]),
    ("hex_float_immediate_for_integer", &[("add.s64 \t%rd6, %rd4, %rd5", "add.s64 \t%rd6, %rd4, 0f3F800000")]),
    ("maxnreg_zero", &[("\n)\n{", "\n)\n.maxnreg 0\n{")]),
    ("and_on_float", &[("ret;", "and.f32 %f1, %f2, %f3;\n\tret;")]),
    (
        "kernel_parameter_space",
        &[(".param .u32 vadd_param_3", ".param .u32 vadd_param_3, .param .align 8 .b8 big[40000]")],
    ),
    (
        "kernel_parameter_space_ptx80",
        &[
            (".version 9.5", ".version 8.0"),
            (".param .u32 vadd_param_3", ".param .u32 vadd_param_3, .param .align 8 .b8 big[5000]"),
        ],
    ),
    ("prototype_type_mismatch", &[("\t// .globl\tvadd", ".func f(.param .b32 a);\n.func f(.param .b64 a) { ret; }")]),
    (
        "prototype_count_mismatch",
        &[("\t// .globl\tvadd", ".func f(.param .b32 a);\n.func f(.param .b32 a, .param .b32 b) { ret; }")],
    ),
    (
        "prototype_return_mismatch",
        &[("\t// .globl\tvadd", ".func (.param .b32 r) f(.param .b32 a);\n.func f(.param .b32 a) { ret; }")],
    ),
    (
        "prototype_alignment_mismatch",
        &[("\t// .globl\tvadd", ".func f(.param .align 4 .b8 a[8]);\n.func f(.param .align 8 .b8 a[8]) { ret; }")],
    ),
    (
        "call_argument_count",
        &[
            ("\t// .globl\tvadd", ".func f(.param .b32 a) { ret; }"),
            ("ret;", "{ .param .b32 p0; .param .b32 p1; call.uni f, (p0, p1); }\n\tret;"),
        ],
    ),
    (
        "call_missing_return",
        &[
            ("\t// .globl\tvadd", ".func (.param .b32 r) f(.param .b32 a) { ret; }"),
            ("ret;", "{ .param .b32 p0; call.uni f, (p0); }\n\tret;"),
        ],
    ),
    (
        "call_extra_return",
        &[
            ("\t// .globl\tvadd", ".func f(.param .b32 a) { ret; }"),
            ("ret;", "{ .param .b32 p0; .param .b32 r0; call.uni (r0), f, (p0); }\n\tret;"),
        ],
    ),
    ("vector_special_register_whole", &[("%tid.x", "%tid")]),
    ("setp_immediate_result", &[("setp.ge.s32 \t%p1", "setp.ge.s32 \t1")]),
    ("ret_with_operand", &[("ret;", "ret %r1;")]),
    ("setp_too_few_operands", &[("setp.ge.s32 \t%p1, %r1, %r2", "setp.ge.s32 \t%p1, %r1")]),
    ("reqntid_four_values", &[("\n)\n{", "\n)\n.reqntid 1, 2, 3, 4\n{")]),
    (
        "label_of_other_function",
        &[("\t// .globl\tvadd", ".func g() { $Lx: ret; }"), ("@%p1 bra \t$L__BB0_2", "@%p1 bra $Lx")],
    ),
    (
        "register_used_before_declaration",
        &[("mov.u32 \t%r3, %ctaid.x;", "mov.u32 \t%r3, %ctaid.x; mov.u32 %q, 1; .reg .b32 %q;")],
    ),
    ("unresolved_function", &[("\t// .globl\tvadd", ".func f(.param .b32 a);")]),
    (
        "unresolved_used_extern_function",
        &[("\t// .globl\tvadd", ".extern .func g();"), ("ret;", "call.uni g;\n\tret;")],
    ),
    ("alias_of_weak_function", &[("\t// .globl\tvadd", ".weak .func w() { ret; }\n.func a();\n.alias a, w;")]),
    ("sampler_field_outside_initializer", &[("ret;", "mov.u32 %r1, x = 1;\n\tret;")]),
    ("load_into_wider_register", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.u32 \t%rd1, [%rd8]")]),
    ("load_into_narrower_register", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.u64 \t%r1, [%rd8]")]),
    ("load_f64_into_f32_register", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.f64 \t%f1, [%rd8]")]),
    ("load_into_predicate", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.u32 \t%p1, [%rd8]")]),
    ("store_from_wider_register", &[("st.global.f32 \t[%rd10], %f3", "st.global.u32 \t[%rd10], %rd1")]),
    ("store_from_narrower_register", &[("st.global.f32 \t[%rd10], %f3", "st.global.u64 \t[%rd10], %r1")]),
    ("store_integer_immediate", &[("st.global.f32 \t[%rd10], %f3", "st.global.u32 \t[%rd10], 5")]),
    ("store_integer_immediate_as_float", &[("st.global.f32 \t[%rd10], %f3", "st.global.f32 \t[%rd10], 1")]),
    ("mov_size_mismatch", &[("mov.u32 \t%r3, %ctaid.x;", "mov.u32 \t%rd3, %ctaid.x;")]),
    ("cvt_to_wider_register", &[("cvta.to.global.u64 \t%rd4, %rd1;", "cvt.u32.u64 \t%rd4, %rd1;")]),
    ("target_higher_than_arch", &[("sm_80", "sm_100")]),
    ("arch_specific_target_on_plain_arch", &[("sm_80", "sm_90a")]),
    ("atom_without_brackets", &[("ret;", "atom.global.add.u32 %r1, %rd1, %r2;\n\tret;")]),
    ("atom_too_few_operands", &[("ret;", "atom.global.add.u32 %r1, [%rd1];\n\tret;")]),
    ("atom_source_size", &[("ret;", "atom.global.add.u32 %r1, [%rd1], %rd2;\n\tret;")]),
    ("atom_immediate_result", &[("ret;", "atom.global.add.u32 1, [%rd1], %r2;\n\tret;")]),
    ("atom_cas_missing_operand", &[("ret;", "atom.global.cas.b32 %r1, [%rd1], %r2;\n\tret;")]),
    ("atom_add_extra_operand", &[("ret;", "atom.global.add.u32 %r1, [%rd1], %r2, %r3;\n\tret;")]),
    ("red_too_few_operands", &[("ret;", "red.global.add.u32 [%rd1];\n\tret;")]),
    ("red_too_many_operands", &[("ret;", "red.global.add.u32 [%rd1], %r1, %r2, %r3;\n\tret;")]),
    (
        "atom_cas_with_cache_hint",
        &[("ret;", "atom.global.L2::cache_hint.cas.b32 %r1, [%rd1], %r2, %r3, %rd3;\n\tret;")],
    ),
    ("vote_sync_without_mask", &[("ret;", "vote.sync.ballot.b32 %r1, %p1;\n\tret;")]),
    ("vote_source_not_predicate", &[("ret;", "vote.sync.any.pred %p1, %r1, -1;\n\tret;")]),
    ("vote_without_type", &[("ret;", "vote.sync.any %p1, %p1, -1;\n\tret;")]),
    ("vote_ballot_into_predicate", &[("ret;", "vote.sync.ballot.b32 %p1, %p1, -1;\n\tret;")]),
    ("shfl_sync_without_mask", &[("ret;", "shfl.sync.down.b32 %r1, %r2, 1, 31;\n\tret;")]),
    ("match_too_few_operands", &[("ret;", "match.any.sync.b32 %r1, %r2;\n\tret;")]),
    ("redux_source_size", &[("ret;", "redux.sync.add.u32 %r1, %rd2, -1;\n\tret;")]),
    ("cvt_result_narrower_than_type", &[("ret;", "cvt.u64.u32 %r1, %r2;\n\tret;")]),
    ("cvt_source_narrower_than_type", &[("ret;", "cvt.u32.u64 %r1, %r2;\n\tret;")]),
    ("cvt_f64_into_f32_register", &[("ret;", "cvt.f64.f32 %f1, %f2;\n\tret;")]),
    ("cvt_predicate_source", &[("ret;", "cvt.u32.u16 %r1, %p1;\n\tret;")]),
    ("cvt_integer_immediate", &[("ret;", "cvt.u32.u16 %r1, 5;\n\tret;")]),
    ("cvt_one_type", &[("ret;", "cvt.u32 %r1, %r2;\n\tret;")]),
    ("bar_three_operands", &[("ret;", "bar.sync 1, 2, 3;\n\tret;")]),
    ("bar_no_operand", &[("ret;", "bar.sync;\n\tret;")]),
    ("bar_predicate_operand", &[("ret;", "bar.sync %p1;\n\tret;")]),
    ("bar_thread_count_not_warp_multiple", &[("ret;", "bar.sync 1, 33;\n\tret;")]),
    ("fence_with_operand", &[("ret;", "fence.sc.gpu %r1;\n\tret;")]),
    ("membar_with_operand", &[("ret;", "membar.gl %r1;\n\tret;")]),
    ("shr_u16_16bit_amount", &[("ret;", ".reg .b16 %rs<3>;\n\tshr.u16 %rs1, %rs2, %rs1;\n\tret;")]),
    ("shr_s16_32bit_amount", &[("ret;", ".reg .b16 %rs<3>;\n\tshr.s16 %rs1, %rs2, %r1;\n\tret;")]),
    ("shl_b64_64bit_amount", &[("ret;", "shl.b64 %rd1, %rd2, %rd3;\n\tret;")]),
    ("shl_b32_f32_amount", &[("ret;", "shl.b32 %r1, %r2, %f1;\n\tret;")]),
    ("shr_u64_immediate_amount", &[("ret;", "shr.u64 %rd1, %rd2, 3;\n\tret;")]),
    ("param_load_missing_comma", &[("ld.param.u64 \t%rd1, [vadd_param_0]", "ld.param.u64 %rd1 [vadd_param_0]")]),
    ("cluster_register_on_sm_80", &[("mov.u32 \t%r3, %ctaid.x", "mov.u32 %r3, %cluster_ctarank")]),
    (
        "reserved_smem_register_on_old_ptx",
        &[(".version 9.5", ".version 7.5"), ("mov.u32 \t%r3, %ctaid.x", "mov.u32 %r3, %reserved_smem_offset_begin")],
    ),
    ("size_b32_in_u16", &[MORE_REGISTERS, ("ret;", "add.u16 %rs1, %rs2, %r3; ret;")]),
    ("size_b16_in_u32", &[MORE_REGISTERS, ("ret;", "add.u32 %r1, %r2, %rs3; ret;")]),
    ("kind_f32_in_u32", &[MORE_REGISTERS, ("ret;", "add.u32 %r1, %r2, %f1; ret;")]),
    ("kind_u32_in_f32", &[MORE_REGISTERS, ("ret;", "add.f32 %f1, %f2, %u1; ret;")]),
    ("kind_b32_in_f32_ok", &[MORE_REGISTERS, ("ret;", "add.f32 %f1, %f2, %r1; ret;")]),
    ("kind_f32_in_b32_ok", &[MORE_REGISTERS, ("ret;", "and.b32 %r1, %f2, %r1; ret;")]),
    ("kind_f16_in_u16", &[MORE_REGISTERS, ("ret;", "add.u16 %rs1, %rs2, %h1; ret;")]),
    ("kind_u16_in_f16", &[MORE_REGISTERS, ("ret;", "add.f16 %h1, %h2, %us1; ret;")]),
    ("kind_f16_in_bf16", &[MORE_REGISTERS, ("ret;", "add.bf16 %rs1, %rs2, %h1; ret;")]),
    ("kind_u32_in_f16x2", &[MORE_REGISTERS, ("ret;", "add.f16x2 %r1, %r2, %u1; ret;")]),
    ("kind_f32_in_setp_u32", &[MORE_REGISTERS, ("ret;", "setp.eq.u32 %p1, %r1, %f1; ret;")]),
    ("kind_u32_in_selp_b32_ok", &[MORE_REGISTERS, ("ret;", "selp.b32 %r1, %f1, %u1, %p1; ret;")]),
    ("load_wider_register_ok", &[MORE_REGISTERS, ("ret;", "ld.global.u16 %r1, [%rd1]; ret;")]),
    ("load_f32_into_b64_ok", &[MORE_REGISTERS, ("ret;", "ld.global.f32 %rd1, [%rd1]; ret;")]),
    ("load_f32_into_f64", &[MORE_REGISTERS, ("ret;", "ld.global.f32 %fd1, [%rd1]; ret;")]),
    ("load_u16_into_f32", &[MORE_REGISTERS, ("ret;", "ld.global.u16 %f1, [%rd1]; ret;")]),
    ("load_b16_into_f32_ok", &[MORE_REGISTERS, ("ret;", "ld.global.b16 %f1, [%rd1]; ret;")]),
    ("store_u16_from_f32", &[MORE_REGISTERS, ("ret;", "st.global.u16 [%rd1], %f1; ret;")]),
    ("cvt_f16_from_f32_register", &[MORE_REGISTERS, ("ret;", "cvt.f32.f16 %f1, %f2; ret;")]),
    ("cvt_f16_into_u16_register", &[MORE_REGISTERS, ("ret;", "cvt.rn.f16.f32 %us1, %f2; ret;")]),
    ("cvt_wider_registers_ok", &[MORE_REGISTERS, ("ret;", "cvt.u16.u32 %r1, %rd2; ret;")]),
    ("special_in_add", &[MORE_REGISTERS, ("ret;", "add.u32 %r1, %tid.x, 1; ret;")]),
    ("special_in_shift_amount", &[MORE_REGISTERS, ("ret;", "shl.b32 %r1, %r1, %laneid; ret;")]),
    ("special_in_store", &[MORE_REGISTERS, ("ret;", "st.global.u32 [%rd1], %tid.x; ret;")]),
    ("special_wrong_size_in_add", &[MORE_REGISTERS, ("ret;", "add.u64 %rd1, %tid.x, 1; ret;")]),
    ("special_mov_f32", &[MORE_REGISTERS, ("ret;", "mov.f32 %f1, %laneid; ret;")]),
    ("special_mov_b32_into_f32_ok", &[MORE_REGISTERS, ("ret;", "mov.b32 %f1, %clock; ret;")]),
    ("special_mov_u16_tid_ok", &[MORE_REGISTERS, ("ret;", "mov.u16 %rs1, %tid.x; ret;")]),
    ("special_mov_u16_laneid", &[MORE_REGISTERS, ("ret;", "mov.u16 %rs1, %laneid; ret;")]),
    ("special_mov_u32_gridid_ok", &[MORE_REGISTERS, ("ret;", "mov.u32 %r1, %gridid; ret;")]),
    ("special_mov_u32_clock64", &[MORE_REGISTERS, ("ret;", "mov.u32 %r1, %clock64; ret;")]),
    ("special_mov_u64_pm_64_ok", &[MORE_REGISTERS, ("ret;", "mov.u64 %rd1, %pm0_64; ret;")]),
    ("special_cvt_narrower_ok", &[MORE_REGISTERS, ("ret;", "cvt.u16.u32 %rs1, %laneid; ret;")]),
    ("special_cvt_float", &[MORE_REGISTERS, ("ret;", "cvt.rn.f32.u32 %f1, %laneid; ret;")]),
    ("special_cvt_from_float", &[MORE_REGISTERS, ("ret;", "cvt.rzi.u32.f32 %r1, %laneid; ret;")]),
    ("mad_lo_name", &[MORE_REGISTERS, ("ret;", "mad.lo.s32 %r1, %r3, %r4, %f1; ret;")]),
    ("mul_wide_narrow_result", &[MORE_REGISTERS, ("ret;", "mul.wide.s32 %r1, %r1, 4; ret;")]),
    ("mad_wide_narrow_addend", &[MORE_REGISTERS, ("ret;", "mad.wide.s32 %rd1, %r1, %r2, %r3; ret;")]),
    ("mad_wide_ok", &[MORE_REGISTERS, ("ret;", "mad.wide.s32 %rd1, %r1, %r2, %rd3; ret;")]),
    ("mul_lo_result_required", &[MORE_REGISTERS, ("ret;", "mul.lo.u32 1, %r1, %r1; ret;")]),
    ("cvta_to_name", &[MORE_REGISTERS, ("ret;", "cvta.to.global.u64 %rd1; ret;")]),
    ("popc_result_64_bit", &[MORE_REGISTERS, ("ret;", "popc.b32 %rd1, %r1; ret;")]),
    ("popc_b64_result_32_bit_ok", &[MORE_REGISTERS, ("ret;", "popc.b64 %r1, %rd1; ret;")]),
    ("bfe_position_64_bit", &[MORE_REGISTERS, ("ret;", "bfe.u32 %r1, %r1, %rd1, 8; ret;")]),
    ("bfi_length_float", &[MORE_REGISTERS, ("ret;", "bfi.b32 %r1, %r1, %r2, 0, %f1; ret;")]),
    ("cvta_source_32_bit", &[MORE_REGISTERS, ("ret;", "cvta.global.u64 %rd1, %r1; ret;")]),
    ("prmt_selector_64_bit", &[MORE_REGISTERS, ("ret;", "prmt.b32 %r1, %r1, %r2, %rd1; ret;")]),
    ("shfl_lane_64_bit", &[MORE_REGISTERS, ("ret;", "shfl.sync.bfly.b32 %r1, %r2, %rd1, 31, -1; ret;")]),
    ("vote_mask_float", &[MORE_REGISTERS, ("ret;", "vote.sync.ballot.b32 %r1, %p1, %f1; ret;")]),
    ("negated_integer_register", &[MORE_REGISTERS, ("ret;", "sub.s32 %r1, %r2, -%r3; ret;")]),
    ("negated_float_register", &[MORE_REGISTERS, ("ret;", "add.f32 %f1, -%f2, %f1; ret;")]),
    ("negated_64_bit_register", &[MORE_REGISTERS, ("ret;", "add.s64 %rd1, %rd1, -%rd2; ret;")]),
    ("negated_register_wrong_size", &[MORE_REGISTERS, ("ret;", "add.u64 %rd1, -%r2, 1; ret;")]),
    ("negated_special_register", &[MORE_REGISTERS, ("ret;", "add.u32 %r1, -%tid.x, 1; ret;")]),
    ("negative_immediate_ok", &[MORE_REGISTERS, ("ret;", "add.s32 %r1, %r2, -5; ret;")]),
    ("vector_elements_of_two_sizes", &[MORE_REGISTERS, ("ret;", "mov.b32 %r1, {%rs1, %r2}; ret;")]),
    ("vector_elements_of_two_kinds", &[MORE_REGISTERS, ("ret;", "mov.b64 %rd1, {%f1, %u2}; ret;")]),
    ("vector_f16_with_integer_immediate", &[MORE_REGISTERS, ("ret;", "mov.b32 %r1, {%h1, 0}; ret;")]),
    ("vector_three_elements", &[MORE_REGISTERS, ("ret;", "mov.b64 %rd1, {%r1, %r2, %r1}; ret;")]),
    ("vector_too_narrow_for_mov", &[MORE_REGISTERS, ("ret;", "mov.b64 %rd1, {%rs1, %rs2}; ret;")]),
    ("vector_in_unsigned_mov", &[MORE_REGISTERS, ("ret;", "mov.u32 %r1, {%rs1, %rs2}; ret;")]),
    ("vector_b_with_float_ok", &[MORE_REGISTERS, ("ret;", "mov.b64 %rd1, {%f1, %r2}; ret;")]),
    ("load_vector_two_kinds", &[MORE_REGISTERS, ("ret;", "ld.global.v2.f32 {%f1, %u1}, [%rd1]; ret;")]),
    ("store_vector_two_sizes", &[MORE_REGISTERS, ("ret;", "st.global.v2.b32 [%rd1], {%r1, %rs1}; ret;")]),
    ("store_vector_b32_and_f32_as_u32_ok", &[MORE_REGISTERS, ("ret;", "st.global.v2.u32 [%rd1], {%r1, %f1}; ret;")]),
    ("mul_lo_float", &[MORE_REGISTERS, ("ret;", "mul.lo.f32 %f1, %f1, %f1; ret;")]),
    ("mad_wide_float", &[MORE_REGISTERS, ("ret;", "mad.wide.f32 %fd1, %f1, %f1, %fd1; ret;")]),
    ("atom_cas_swap_64_bit", &[MORE_REGISTERS, ("ret;", "atom.global.cas.b32 %r1, [%rd1], %r1, %rd1; ret;")]),
    ("load_into_immediate", &[MORE_REGISTERS, ("ret;", "ld.global.v2.u32 {%r1, 5}, [%rd1]; ret;")]),
    // One-element vectors stand for scalars in loads, stores and `.bN` moves.
    ("one_element_load", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.f32 { %f1 }, [%rd8]")]),
    ("one_element_store", &[("st.global.f32 \t[%rd10], %f3", "st.global.f32 [%rd10], {%f3}")]),
    ("one_element_store_immediate", &[("st.global.f32 \t[%rd10], %f3", "st.global.b32 [%rd10], {0f3F800000}")]),
    ("one_element_mov", &[("mov.u32 \t%r5, %tid.x", "mov.b32 {%r5}, %r4")]),
    ("one_element_mov_u32", &[("mov.u32 \t%r5, %tid.x", "mov.u32 {%r5}, %r4")]),
    ("one_element_mov_too_narrow", &[("mov.u32 \t%r5, %tid.x", "mov.b64 %rd1, {%r4}")]),
    ("one_element_mov_pred", &[("mov.u32 \t%r5, %tid.x", "mov.pred {%p1}, %p1")]),
    ("mov_vector_to_vector", &[("mov.u32 \t%r5, %tid.x", "mov.b32 {%r5}, {%r4}")]),
    ("one_element_width_mismatch", &[("ld.global.nc.f32 \t%f1", "ld.global.nc.v2.f32 \t{%f1}")]),
    ("vector_operand_in_add", &[("add.f32 \t%f3, %f2, %f1", "add.f32 \t%f3, {%f2}, %f1")]),
    ("vector_operand_in_mad_lo", &[("mad.lo.s32 \t%r1, %r3", "mad.lo.s32 \t%r1, {%r3}")]),
    ("vector_operand_in_cvta", &[("cvta.to.global.u64 \t%rd4, %rd1", "cvta.to.global.u64 \t%rd4, {%rd1}")]),
    ("vector_operand_in_atom", &[("ret;", "atom.global.add.u32 %r1, [%rd1], {%r2};\n\tret;")]),
    // `0f`/`0d` literals are `.b32`/`.b64` words too, nothing else.
    ("f32_literal_in_mov_b32", &[("mov.u32 \t%r5, %tid.x", "mov.b32 %r5, 0f3F800000")]),
    ("f32_literal_in_mov_u32", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 0f3F800000")]),
    ("f64_literal_in_mov_b64", &[("mov.u32 \t%r5, %tid.x", "mov.b64 %rd1, 0d3FF0000000000000")]),
    ("f32_literal_in_mov_b64", &[("mov.u32 \t%r5, %tid.x", "mov.b64 %rd1, 0f3F800000")]),
    ("f64_literal_in_mov_b32", &[("mov.u32 \t%r5, %tid.x", "mov.b32 %r5, 0d3FF0000000000000")]),
    ("decimal_literal_in_mov_b32", &[("mov.u32 \t%r5, %tid.x", "mov.b32 %r5, 1.0")]),
    ("f32_literal_in_and_b32", &[("mov.u32 \t%r5, %tid.x", "and.b32 %r5, %r4, 0f7FFFFFFF")]),
    ("f32_literal_in_setp_b32", &[("setp.ge.s32 \t%p1, %r1, %r2", "setp.eq.b32 %p1, %r1, 0f3F800000")]),
    ("f32_literal_in_setp_u32", &[("setp.ge.s32 \t%p1, %r1, %r2", "setp.eq.u32 %p1, %r1, 0f3F800000")]),
    ("f64_literal_in_selp_b64", &[("mov.u32 \t%r5, %tid.x", "selp.b64 %rd1, %rd2, 0d3FF0000000000000, %p1")]),
    ("f32_literal_in_store_b32", &[("st.global.f32 \t[%rd10], %f3", "st.global.b32 [%rd10], 0f3F800000")]),
    ("f32_literal_in_store_b16", &[("st.global.f32 \t[%rd10], %f3", "st.global.b16 [%rd10], 0f3F800000")]),
    (
        "f32_literals_in_store_v2_u32",
        &[("st.global.f32 \t[%rd10], %f3", "st.global.v2.u32 [%rd10], {0f3F800000, 0f00000000}")],
    ),
    ("f32_literal_in_atom_exch_b32", &[("ret;", "atom.global.exch.b32 %r1, [%rd1], 0f3F800000;\n\tret;")]),
    // Lexical edge cases.
    ("non_ascii_in_comments", &[("\t// .globl", "\t// caf\u{e9} \u{2014}\n\t/* \u{e9}t\u{e9}\n */ // .globl")]),
    ("non_ascii_in_code", &[("ret;", "ret; \u{e9}")]),
    ("non_ascii_in_string", &[("\t// .globl\tvadd", ".file 1 \"caf\u{e9}.cu\"")]),
    ("byte_order_mark", &[("//\n// Generated", "\u{feff}//\n// Generated")]),
    ("nul_in_comment", &[("\t// .globl", "\t// \0 .globl")]),
    ("unterminated_block_comment", &[("\tret;", "\tret; /* open\n")]),
    ("crlf_line_ends", &[("\n\tld.param.u64 \t%rd1", "\r\n\tld.param.u64 \t%rd1")]),
    ("form_feed", &[("\tret;", "\x0c\tret;")]),
    ("vertical_tab", &[("\tret;", "\x0b\tret;")]),
    ("control_character", &[("\tret;", "\x01\tret;")]),
    ("line_marker", &[("\t// .globl\tvadd", "# 1 \"vadd.cu\" 1 3\n#line 12 \"vadd.cu\"")]),
    ("line_marker_without_file", &[("\t// .globl\tvadd", "# 12")]),
    ("line_marker_mid_line", &[("\tret;", "\tret; # 1 \"a.cu\"")]),
    ("preprocessor_directive", &[("\t// .globl\tvadd", "#define X 1")]),
    ("modifiers_apart", &[("ld.param.u32 \t%r2", "ld /* c */ .param .u32 %r2")]),
    ("backslash_continuation", &[("add.f32 \t%f3, %f2, %f1", "add.f32 %f3, \\\n%f2, %f1")]),
    ("f32_literal_seven_digits", &[("add.f32 \t%f3, %f2, %f1", "add.f32 %f3, %f2, 0f3F80000")]),
    ("f32_literal_nine_digits", &[("add.f32 \t%f3, %f2, %f1", "add.f32 %f3, %f2, 0f3F8000000")]),
    ("f64_literal_one_digit", &[("add.f32 \t%f3, %f2, %f1", "add.f32 %f3, %f2, 0d0")]),
    ("f32_literal_with_suffix", &[("add.f32 \t%f3, %f2, %f1", "add.f32 %f3, %f2, 0f3F800000U")]),
    // Constant expressions: C's operators folded, names only as `name + constant`.
    ("constant_sum", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 1+1")]),
    ("constant_precedence", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, (4*8)<<2 | 1 ^ 3 & 2")]),
    ("constant_ternary", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 1 ? 2 : 3 ? 4 : 5")]),
    (
        "constant_comparisons",
        &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, (1 < 2) + (3 >= 3) + (1 == 0) + (2 != 2) + !0 + ~0")],
    ),
    ("constant_unary_plus_minus", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 1 + + 1 - -1 - - - 2")]),
    ("constant_warp_size", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, WARP_SZ * 2")]),
    ("constant_unsigned_shift", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, -5U >> 1")]),
    ("constant_division_by_zero", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 1 / (1 - 1)")]),
    ("constant_remainder_by_zero", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 5 % 0")]),
    ("constant_float_division_by_zero", &[("add.f32 \t%f3, %f2, %f1", "add.f32 %f3, %f2, 1.0 / 0.0")]),
    ("constant_float_sum", &[("add.f32 \t%f3, %f2, %f1", "add.f32 %f3, %f2, 1.0 + 0.5 * 2.0")]),
    ("constant_type_mismatch", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 1.5 + 1")]),
    ("constant_float_ternary", &[("add.f32 \t%f3, %f2, %f1", "add.f32 %f3, %f2, 1 ? 2.0 : 3.0")]),
    ("constant_overflow", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 99999999999999999999")]),
    ("constant_wraps_below_overflow", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 18446744073709551620")]),
    ("constant_octal_overflow", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 07777777777777777777777777")]),
    ("constant_hex_wraps", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 0x100000000000000000000")]),
    ("octal_with_eight", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 08")]),
    ("constant_after_register", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, 1 + %r4")]),
    ("register_times_constant", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, %r4 * 2")]),
    ("register_plus_constant", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, %r4 + 4 + 4")]),
    ("component_plus_constant", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, %tid.x + 1")]),
    ("parenthesized_register", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, (%r4)")]),
    ("negated_parenthesized_register", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, -(%r4)")]),
    ("complemented_register", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, ~%r4")]),
    ("negated_hex_float", &[("add.f32 \t%f3, %f2, %f1", "add.f32 %f3, %f2, -0f3F800000")]),
    ("parenthesized_hex_float", &[("add.f32 \t%f3, %f2, %f1", "add.f32 %f3, %f2, (0f3F800000)")]),
    ("negated_decimal_float", &[("add.f32 \t%f3, %f2, %f1", "add.f32 %f3, %f2, -1.5")]),
    ("register_pair_in_mov", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, %r4 | %r3")]),
    ("address_constant_offsets", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.f32 %f1, [%rd8+4-4+(2*8)<<1]")]),
    ("address_ternary_offset", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.f32 %f1, [%rd8+1?0:4]")]),
    ("address_minus_offset", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.f32 %f1, [%rd8-4]")]),
    ("address_constant_first", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.f32 %f1, [4+%rd8]")]),
    ("address_two_registers", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.f32 %f1, [%rd8+%rd7]")]),
    ("address_warp_size", &[("ld.global.nc.f32 \t%f1, [%rd8]", "ld.global.nc.f32 %f1, [%rd8+WARP_SZ]")]),
    // Vector registers, repeated directives, constants in declarations.
    (
        "vector_register_mov_from_braces",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "mov.v4.u32 %v, {%r1, %r2, %r3, %r4};\n\tret;"),
        ],
    ),
    (
        "vector_register_mov_to_braces",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "mov.v4.u32 {%r1, %r2, %r3, %r4}, %v;\n\tret;"),
        ],
    ),
    (
        "vector_register_mov_whole",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "mov.v4.u32 %v, %w;\n\tret;"),
        ],
    ),
    (
        "vector_register_mov_other_type",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "mov.v4.f32 %v, %w;\n\tret;"),
        ],
    ),
    (
        "vector_register_mov_width",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "mov.v2.u32 %v2, %v;\n\tret;"),
        ],
    ),
    (
        "vector_register_mov_three",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "mov.v4.u32 %v, {%r1, %r2, %r3};\n\tret;"),
        ],
    ),
    (
        "vector_register_load_store",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "ld.global.v4.u32 %v, [%rd1];\n\tst.global.v4.u32 [%rd1], %v;\n\tret;"),
        ],
    ),
    (
        "vector_register_load_f32",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "ld.global.v4.f32 %v, [%rd1];\n\tret;"),
        ],
    ),
    (
        "vector_register_load_width",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "ld.global.v2.u32 %v, [%rd1];\n\tret;"),
        ],
    ),
    (
        "vector_register_elements",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "mov.u32 %r1, %v.x;\n\tadd.u32 %v.y, %v.z, %v.w;\n\tmov.u32 %r1, %v.a;\n\tret;"),
        ],
    ),
    (
        "vector_register_bad_selector",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "mov.u32 %r1, %v.q;\n\tret;"),
        ],
    ),
    (
        "vector_register_as_scalar",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "mov.u32 %r1, %v;\n\tret;"),
        ],
    ),
    (
        "vector_register_in_add",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "add.u32 %r1, %v, 1;\n\tret;"),
        ],
    ),
    (
        "vector_register_packed",
        &[
            (".reg .pred \t%p<2>;", ".reg .pred \t%p<2>;\n\t.reg .v4 .u32 %v, %w;\n\t.reg .v2 .f32 %v2;"),
            ("ret;", "mov.b64 %rd1, %v2;\n\tret;"),
        ],
    ),
    ("second_target_line", &[(".target sm_80\n", ".target sm_80\n.target sm_75\n")]),
    ("target_after_address_size", &[(".address_size 64\n", ".address_size 64\n.target sm_80\n")]),
    ("alignment_not_power_of_two", &[(".address_size 64\n", ".address_size 64\n.global .align 12 .b8 gx[24];\n")]),
    ("register_count_overflow", &[("%r<6>", "%r<99999999999999999999>")]),
    (
        "initializer_overflow",
        &[(".address_size 64\n", ".address_size 64\n.global .u32 gx = 0777777777777777777777777;\n")],
    ),
    (
        "call_list_as_callee",
        &[
            ("\t// .globl\tvadd", ".func (.param .b32 r) f(.param .b32 a) { ret; }"),
            ("ret;", "{ .param .b32 p0; .param .b32 r0; call.uni (r0), (p0), f; }\n\tret;"),
        ],
    ),
    ("not_of_register", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, !%r4")]),
    ("not_of_predicate_in_selp", &[("mov.u32 \t%r5, %tid.x", "selp.b32 %r5, %r4, %r3, !%p1")]),
    // `cvt` names a rounding mode when it narrows a float or crosses between integer and float.
    ("cvt_narrowing_without_rounding", &[("mov.u32 \t%r5, %tid.x", "cvt.f32.f64 %f1, 0d3FF0000000000000")]),
    ("cvt_int_to_float_without_rounding", &[("mov.u32 \t%r5, %tid.x", "cvt.f32.s32 %f1, %r4")]),
    ("cvt_float_to_int_without_rounding", &[("mov.u32 \t%r5, %tid.x", "cvt.u32.f32 %r5, %f1")]),
    ("cvt_ftz_is_no_rounding", &[("mov.u32 \t%r5, %tid.x", "cvt.ftz.f32.f64 %f1, 0d3FF0000000000000")]),
    ("cvt_widening_without_rounding", &[("mov.u32 \t%r5, %tid.x", "cvt.f32.f32 %f1, %f2")]),
    ("second_address_size", &[(".address_size 64\n", ".address_size 64\n.address_size 64\n")]),
    ("dos_end_of_file_mark", &[("\tret;", "\x1a\tret;")]),
    ("register_with_leading_zero", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r05, %r04")]),
    ("register_with_leading_zero_out_of_range", &[("mov.u32 \t%r5, %tid.x", "mov.u32 %r5, %r06")]),
];

/// Cases where only the accept/reject decision and the first line number
/// are compared, with the reason.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

fn edited(edits: &[(&str, &str)]) -> String {
    edits.iter().fold(BASE.to_owned(), |text, (from, to)| {
        assert!(text.contains(from), "edit target `{from}` not in the base kernel");
        text.replacen(from, to, 1)
    })
}

/// Our diagnostics for `source`: syntax errors, else validation results.
fn ours(source: &str, file_name: &str) -> Vec<Diagnostic> {
    let (module, diags) = parse(source, FileId(0));
    if !diags.is_empty() {
        return diags;
    }
    // The cases are compiled with `-arch=sm_90`.
    let options = ValidateOptions {
        file_name: Some(file_name.to_owned()),
        arch: Sm::parse("sm_90"),
        ..ValidateOptions::default()
    };
    validate(&module, &options)
}

fn line_number(rendered: &str) -> Option<&str> {
    rendered.split(", line ").nth(1)?.split(';').next()
}

#[test]
fn messages_match_nvidia_ptxas() {
    let Some(oracle) = nv_oracle::Oracle::for_test("messages_match_nvidia_ptxas") else { return };
    let dir = std::env::temp_dir().join(format!("ptx-syntax-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut exact = 0;
    let mut failures = Vec::new();
    for (name, edits) in CASES {
        let source = edited(edits);
        let file = format!("{name}.ptx");
        std::fs::write(dir.join(&file), &source).expect("write case");
        let output =
            oracle.run_ptxas(&["-arch=sm_90", &file, "-o", &format!("{name}.cubin")], &dir).expect("run ptxas");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let theirs = stderr.lines().next().unwrap_or("").to_owned();
        let diags = ours(&source, &file);
        let first = diags.iter().find(|d| d.is_error()).map(|d| d.render_ptxas(&file, &source)).unwrap_or_default();
        let accepted_by_them = output.status.success();
        let accepted_by_us = first.is_empty();
        if accepted_by_them != accepted_by_us {
            failures.push(format!(
                "{name}: ptxas {}, we {}\n  ptxas: {theirs}\n  ours:  {first}",
                verdict(accepted_by_them),
                verdict(accepted_by_us)
            ));
        } else if first == theirs {
            exact += 1;
        } else if KNOWN_DIFFERENCES.iter().any(|(n, _)| n == name) && line_number(&first) == line_number(&theirs) {
            continue;
        } else {
            failures.push(format!("{name}:\n  ptxas: {theirs}\n  ours:  {first}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("oracle: {} cases, {exact} exact first lines, {} failures", CASES.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn verdict(accepted: bool) -> &'static str {
    if accepted { "accepts" } else { "rejects" }
}
