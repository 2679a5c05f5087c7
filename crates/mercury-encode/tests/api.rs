//! The encoder on instructions built by hand (not decoded first), against
//! NVIDIA's words for the sm_90 vadd kernel (nvdisasm -hex of ptxas 13.5).

use mercury_encode::{CodeLabels, Labels, Sm, ctrl::decode_ctrl, decode, encode, print};
use ori_ir::{Address, Guard, Inst, Modifier, Opcode, Operand, OperandKind, Reg, RegFile};
use pretty_assertions::assert_eq;

fn r(n: u32) -> Operand {
    Operand::reg(Reg::phys(RegFile::R, n))
}

fn word(text: &str) -> [u64; 2] {
    let v = u128::from_str_radix(text, 16).expect("hex word");
    [v as u64, (v >> 64) as u64]
}

/// Encodes, prints and decodes `inst` at `addr`, checking all three.
fn check(inst: Inst, addr: u64, labels: &mut CodeLabels, bits: &str, text: &str) {
    let bits = word(bits);
    let inst = Inst { ctrl: Some(decode_ctrl(bits[1])), ..inst };
    assert_eq!(encode(Sm::Sm90, &inst, addr, labels), Ok(bits), "{text}");
    assert_eq!(print(Sm::Sm90, &inst, labels).as_deref(), Ok(text));
    let decoded = decode(Sm::Sm90, bits, addr, labels).expect("decodes");
    assert_eq!(Inst { encoding: None, ..decoded }, inst);
}

#[test]
fn hand_built_instructions_encode_like_ptxas() {
    let mut labels = CodeLabels::new();
    check(
        Inst::new(Opcode::FADD, vec![r(9)], vec![r(4), r(3)]),
        0x110,
        &mut labels,
        "008fca00000000000000000304097221",
        "FADD R9, R4, R3",
    );

    let addr = Address {
        desc: Some(Reg::phys(RegFile::UR, 4).wide(2)),
        base: Some(Reg::phys(RegFile::R, 2).wide(2)),
        ..Address::default()
    };
    let mut ldg = Inst::new(Opcode::LDG, vec![r(3)], vec![OperandKind::Mem(addr).into()]);
    ldg.mods = Modifier::list(&["E", "CONSTANT"]);
    check(ldg, 0xd0, &mut labels, "000ee2000c1e99000000000402037981", "LDG.E.CONSTANT R3, desc[UR4][R2.64]");

    let mut exit = Inst::new(Opcode::EXIT, vec![], vec![]);
    exit.guard = Some(Guard { pred: Reg::phys(RegFile::P, 0), negated: false });
    check(exit, 0x70, &mut labels, "000fea0003800000000000000000094d", "@P0 EXIT");

    // The padding loop: a branch to itself.
    let target = labels.label_at(0x140);
    check(
        Inst::new(Opcode::BRA, vec![], vec![Operand::label(target)]),
        0x140,
        &mut labels,
        "000fc0000383fffffffffffc00fc7947",
        "BRA 0x140",
    );
}

#[test]
fn imad_prints_its_alias_even_when_built_without_it() {
    let labels = CodeLabels::new();
    let rz = Operand::reg(Reg::RZ);
    let mov = Inst::new(Opcode::IMAD, vec![r(2)], vec![rz.clone(), rz, r(5)]);
    assert_eq!(print(Sm::Sm80, &mov, &labels).as_deref(), Ok("IMAD.MOV R2, RZ, RZ, R5"));
    let mut shl = Inst::new(Opcode::IMAD, vec![r(9)], vec![r(9), Operand::int(0x100), Operand::reg(Reg::RZ)]);
    shl.mods = Modifier::list(&["U32"]);
    assert_eq!(print(Sm::Sm80, &shl, &labels).as_deref(), Ok("IMAD.SHL.U32 R9, R9, 0x100, RZ"));
    assert!(encode(Sm::Sm80, &shl, 0, &labels).is_ok());
}

#[test]
fn unknown_bits_are_an_error() {
    let mut labels = CodeLabels::new();
    assert!(decode(Sm::Sm90, [u64::MAX, 0], 0, &mut labels).is_err());
    let mut bogus = Inst::new(Opcode::FADD, vec![r(1)], vec![r(2)]);
    bogus.mods = Modifier::list(&["WIDE"]);
    assert!(encode(Sm::Sm80, &bogus, 0, &labels).is_err());
}

#[test]
fn decoded_register_pairs_carry_their_width() {
    let mut labels = CodeLabels::new();
    let pair = |n| Operand::reg(Reg::phys(RegFile::R, n).wide(2));
    let imad = decode(Sm::Sm90, word("001fcc00078e02020000000409027825"), 0xc0, &mut labels).expect("IMAD.WIDE");
    assert_eq!((imad.defs[0].clone(), imad.uses[2].clone()), (pair(2), pair(2)));
    assert_eq!(print(Sm::Sm90, &imad, &labels).as_deref(), Ok("IMAD.WIDE R2, R9, 0x4, R2"));
    let ldc = decode(Sm::Sm90, word("000e220000000a0000008400ff027b82"), 0x80, &mut labels).expect("LDC.64");
    assert_eq!(ldc.defs, vec![pair(2)]);
    assert_eq!(print(Sm::Sm90, &ldc, &labels).as_deref(), Ok("LDC.64 R2, c[0x0][0x210]"));

    // Conversions name non-default types only: F2I.S64.F64 is pair to pair,
    // I2F.F64 (from S32) writes a pair.
    let regs = |inst: &ori_ir::Inst| -> Vec<u8> {
        inst.defs.iter().chain(&inst.uses).filter_map(|o| o.as_reg()).map(|r| r.width).collect()
    };
    let at = |bits: &str, labels: &mut CodeLabels| decode(Sm::Sm80, word(bits), 0, labels).expect("decodes");
    assert_eq!(regs(&at("001e22000030d9000000000200027311", &mut labels)), [2, 2]);
    assert_eq!(regs(&at("002e640000201c000000000000147312", &mut labels)), [2, 1]);
    // HMMA.16816.F32 D, A, B, C: four, four, two and four registers.
    assert_eq!(regs(&at("001fe60000001808000000180c0c723c", &mut labels)), [4, 4, 2, 4]);
    assert_eq!(regs(&at("000e28000000020000000000030c783b", &mut labels)), [4]);
}

/// sm_80's cache-policy mark (bit 101): NVIDIA's `ld.global.L1::evict_last.L2::cache_hint`
/// and `cp.async.cg...L2::cache_hint` words decode with the policy flag,
/// print their descriptor, and encode back to the same bits; without the
/// mark the descriptor is the global one and does not print.
#[test]
fn sm80_cache_policies_round_trip() {
    let mut labels = CodeLabels::new();
    for (bits, text) in [
        ("000ea2200c2e19000000000402057981", "LDG.E.EL R5, desc[UR4][R2.64]"),
        ("000fe8200b901c460000000002057fae", "LDGSTS.E.BYPASS.128 [R5], desc[UR6][R2.64]"),
        ("000ea8000c2e19000000000402057981", "LDG.E.EL R5, [R2.64]"),
    ] {
        let bits = word(bits);
        let inst = decode(Sm::Sm80, bits, 0, &mut labels).expect("decodes");
        assert_eq!(print(Sm::Sm80, &inst, &labels).as_deref(), Ok(text));
        let policy = inst.uses.iter().any(|u| matches!(&u.kind, ori_ir::OperandKind::Mem(a) if a.policy));
        assert_eq!(policy, text.contains("desc["), "{text}");
        let again = encode(Sm::Sm80, &inst, 0, &labels).expect("encodes");
        assert_eq!(again[0], bits[0], "{text}");
        assert_eq!(again[1] & ((1 << 41) - 1), bits[1] & ((1 << 41) - 1), "{text}");
    }
}

/// NVIDIA's words that a learned modifier field once read without an
/// operand mark: the decoder must print them as nvdisasm does (or not
/// read them), never as another instruction.
#[test]
fn sibling_fields_keep_operand_marks() {
    let mut labels = CodeLabels::new();
    for (sm, bits, text) in [
        // ptxas 13.5's sm_90 `abs.f16x2`: bit 73 is the `|..|` of the
        // first source; the learned `.F32`/`.SAT` fields of the solver's
        // `HADD2.F32.SAT R, R, -R.H0_H0` (where nvdisasm ignores bit 73)
        // read it as `HADD2 R5, R0, -RZ.H0_H0`.
        (Sm::Sm90, "004fca0000000200a00000ff00057230", "HADD2 R5, |R0|, -RZ.H0_H0"),
    ] {
        let inst = decode(sm, word(bits), 0, &mut labels).expect("decodes");
        assert_eq!(print(sm, &inst, &labels).as_deref(), Ok(text));
        assert_eq!(encode(sm, &inst, 0, &labels), Ok(word(bits)), "{text}");
    }
}

/// The lowering spells modifier words in its own order (`add.rm.ftz.sat`
/// became `FADD.SAT.FTZ.RM`): where the order means nothing, the encoder
/// writes NVIDIA's word for nvdisasm's spelling (`FADD.FTZ.RM.SAT`). Words
/// of ptxas 13.5 for `add.sat.ftz.f32`, `add.rm.sat.ftz.f32 .., 1.0`,
/// `mul.rp.sat.f32`, `fma.rz.sat.ftz.f32` (sm_80 and sm_90 alike).
#[test]
fn modifier_words_in_another_order_encode_as_nvidia() {
    let mut labels = CodeLabels::new();
    for sm in [Sm::Sm80, Sm::Sm90] {
        for (bits, text, lowered) in [
            ("008fca00000120000000000500057221", "FADD.FTZ.SAT R5, R0, R5", "SAT FTZ"),
            ("000fc800000160003f80000005067421", "FADD.FTZ.RM.SAT R6, R5, 1", "SAT FTZ RM"),
            ("000fc8000040a0000000000600007220", "FMUL.RP.SAT R0, R0, R6", "SAT RP"),
            ("000fe2000001e0050000000006057223", "FFMA.FTZ.RZ.SAT R5, R6, R0, R5", "RZ SAT FTZ"),
        ] {
            let inst = decode(sm, word(bits), 0, &mut labels).expect("decodes");
            assert_eq!(print(sm, &inst, &labels).as_deref(), Ok(text));
            let words: Vec<&str> = lowered.split(' ').collect();
            let reordered = Inst { mods: Modifier::list(&words), ..inst.clone() };
            assert_ne!(reordered.mods, inst.mods);
            assert_eq!(encode(sm, &reordered, 0, &labels), Ok(word(bits)), "{sm:?} {lowered} {text}");
        }
    }
}
