//! Parser tests: forms the corpus does not use, AST shapes, and recovery.

use crate::ast::*;
use crate::span::FileId;
use crate::{parse, print};

/// Hand-written PTX using forms NVRTC rarely emits.
const FORMS: &str = r#"
.version 9.5
.target sm_90a, debug
.address_size 64
.file 1 "/tmp/a.cu", 1700000000, 1234
.extern .shared .align 16 .b8 smem[];
.visible .global .align 4 .u32 table[2][3] = {{1, 2, 3}, {4, 0x10, 017U}};
.global .f32 pi = 0f40490FDB;
.global .f64 e = 0d4005BF0A8B145769;
.global .f32 half = 0.5;
.const .u64 ptr = generic(table) + 8;
.global .texref tex0;
.global .samplerref smp = { addr_mode_0 = clamp_to_edge, filter_mode = linear };
.weak .func (.reg .b32 r) id(.reg .b32 a) .noreturn;
.alias id2,
	id;
.pragma "nounroll";
.visible .entry k(
	.param .u64 .ptr .global .align 16 k_p0,
	.param .align 8 .b8 k_p1[16]
)
.maxntid 128, 1, 1
.minnctapersm 2
.explicitcluster
{
	.reg .pred %p<3>;
	.reg .b32 %r<10>, %extra;
	.reg .v4 .f32 %v;
	.local .align 4 .b8 stack[64];
	.loc 1 12 3, function_name $L__info, inlined_at 1 4 2
	setp.eq.and.s32 %p1|%p2, %r1, -1, !%p0;
	@!%p1 bra.uni L1;
	mov.u32 %r2, %tid.x;
	ld.global.nc.L1::evict_last.v4.f32 {%f1, _, %f3, %f4}, [%rd1+-16];
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];
	shl.b32 %r3, %r2, (1 << 3) - 1 + 7 % 4;
	ts: .branchtargets L1, L2;
	brx.idx %r3, ts;
	proto: .callprototype (.param .b32 _) _ (.param .b32 _) .noreturn;
	call (%r4), %rd2, (%r5), proto;
L1:
	{
		.reg .b64 %inner;
		st.shared::cta.b32 [stack + 4], %r1;
	}
L2:
	ret;
}
.section .debug_str
{
$L__info:
	.b8 107, 0
	.b32 $L__info + 4
	.b64 .debug_abbrev
}
"#;

fn parse_ok(source: &str) -> Module {
    let (module, diags) = parse(source, FileId(0));
    assert!(diags.is_empty(), "{diags:?}");
    module
}

#[test]
fn rare_forms_parse_and_round_trip() {
    let module = parse_ok(FORMS);
    let printed = print(&module);
    assert_eq!(parse_ok(&printed), module, "printed:\n{printed}");
    // Printing is a fixed point after one round.
    assert_eq!(print(&parse_ok(&printed)), printed);
}

#[test]
fn ast_shapes() {
    let module = parse_ok(FORMS);
    let Some(Item::Function(k)) = module.items.iter().find(|i| matches!(i, Item::Function(f) if f.name.name == "k"))
    else {
        panic!("kernel k missing");
    };
    let body = k.body.as_ref().expect("k has a body");
    let Statement::Instruction(setp) = &body.statements[5] else { panic!("{:?}", body.statements[5]) };
    assert_eq!(setp.opcode.name, "setp");
    assert_eq!(setp.types().collect::<Vec<_>>(), [ScalarType::S32]);
    assert!(matches!(setp.operands[0].kind, ExprKind::Binary(BinaryOp::Or, ..)));
    // Constant expressions are folded: `-1`.
    assert_eq!(setp.operands[2].kind, ExprKind::Int { value: u64::MAX, unsigned: false });
    let Statement::Instruction(ld) = &body.statements[8] else { panic!() };
    assert_eq!(ld.space(), Some(StateSpace::Global));
    assert_eq!(ld.modifiers[2].kind, ModifierKind::Word);
    assert_eq!(ld.modifiers[3].kind, ModifierKind::Vector(4));
    let Statement::Instruction(mov) = &body.statements[7] else { panic!() };
    assert!(matches!(&mov.operands[1].kind, ExprKind::Name(n, Some(c)) if n.name == "%tid" && c == "x"));
    assert_eq!(&FORMS[mov.span.range()], "mov.u32 %r2, %tid.x;");
    let params = k.params.as_ref().expect("params");
    assert_eq!(params[0].trailing, [DeclAttr::Ptr, DeclAttr::Space(StateSpace::Global), DeclAttr::Align(16)]);
    assert_eq!(
        k.attrs.iter().map(|a| a.name.name.as_str()).collect::<Vec<_>>(),
        [".maxntid", ".minnctapersm", ".explicitcluster"]
    );
}

#[test]
fn syntax_errors_use_ptxas_wording_and_recover() {
    let src =
        ".version 9.5\n.target sm_90\n.entry k()\n{\n\tadd.f32 %f1 %f2;\n\tret\n}\n.entry j()\n{\n\tmov.u32 %r1,;\n}\n";
    let (module, diags) = parse(src, FileId(0));
    let messages: Vec<String> = diags.iter().map(|d| d.render_ptxas("a.ptx", src)).collect();
    assert_eq!(
        messages,
        [
            "ptxas a.ptx, line 5; fatal   : Parsing error near '%f2': syntax error",
            "ptxas a.ptx, line 7; fatal   : Parsing error near '}': syntax error",
            "ptxas a.ptx, line 10; fatal   : Parsing error near ';': syntax error",
        ]
    );
    // Both functions survive recovery.
    assert_eq!(module.items.iter().filter(|i| matches!(i, Item::Function(_))).count(), 2);
}

#[test]
fn fields_only_in_initializers() {
    let (_, diags) = parse(".entry k() { mov.u32 %r1, a = 1; }", FileId(0));
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].message, "Parsing error near '=': syntax error");
}

#[test]
fn recovery_at_module_level_skips_the_broken_item_only() {
    let src = ".version 9.5\n.target sm_90\n.global .u32 x = { a = = };\n.global .u32 y;\n.entry k() { ret; }\n";
    let (module, diags) = parse(src, FileId(0));
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(module.items.len(), 4);
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let src = format!(".version 9.5\n.target sm_90\n.global .u32 x = {}1{};", "(".repeat(5000), ")".repeat(5000));
    let (_, diags) = parse(&src, FileId(0));
    assert!(!diags.is_empty());
    let src = format!(".entry k() {{ mov.u32 %r1, {}1; }}", "-".repeat(100_000));
    let (_, diags) = parse(&src, FileId(0));
    assert!(!diags.is_empty());
}
