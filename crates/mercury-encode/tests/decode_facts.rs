//! Words that once decoded to another text than nvdisasm's and re-encoded
//! to the same bits, so round trips could not see it. Each word with the
//! text `nvdisasm -b` prints for it: ours must print the same text and
//! re-encode to the same bits (no NVIDIA tool needed); with NVIDIA's
//! tools the test also checks that nvdisasm prints that text.

mod common;

use std::ffi::OsStr;

use mercury_encode::listing::parse_listing;
use mercury_encode::{CodeLabels, Error, Sm, decode, encode, print};

/// What our decoder must make of a word.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Want {
    /// nvdisasm's text, re-encoded to the same bits.
    Decodes,
    /// nvdisasm's text, re-encoded to a word nvdisasm prints alike (other
    /// values in bits it ignores).
    SameText,
    /// nvdisasm's text, or no form at all (a form the tables lack), but no
    /// other text.
    NeverWrong,
}

use Want::*;

/// (SM, word, nvdisasm's text without the `;`, what ours must do).
const FACTS: &[(Sm, u128, &str, Want)] = &[
    // The `-` of LEA.HI.SX32's second source, which no learned LEA form
    // shows (NVIDIA's sm_80 Triton matmul): refusing it as an unseen mark
    // kind left NVIDIA's cubin undecodable.
    (Sm::Sm80, 0x000fe200078fcaff8000000603037211, "LEA.HI.SX32 R3, R3, -R6, 0x19", Decodes),
    // The `~` of IADD3.X's first source (bit 72) is the `-` of the third
    // operand of IADD3's two-carry-out form of the same opcode bits.
    (Sm::Sm90, 0x000fc200007f25ff0000000105037810, "IADD3.X R3, ~R5, 0x1, RZ, P0, !P1", Decodes),
    (Sm::Sm75, 0x000fc200007f25ff0000000105037810, "IADD3.X R3, ~R5, 0x1, RZ, P0, !P1", Decodes),
    (Sm::Sm90, 0x000fc200007f24ff0000000105037810, "IADD3.X R3, R5, 0x1, RZ, P0, !P1", Decodes),
    // A compare-and-swap whose address has no offset, read through a
    // family sibling of a form with one (`[R222+0x0]`).
    (Sm::Sm100, 0x000fc2000010a0fb000000fcde9973a9, "ATOMG.CAS.STRONG.SM P0, R153, [R222], R252, R251", SameText),
    (
        Sm::Sm100,
        0x000fc200000c24610000006b3e3c73a9,
        "ATOMG.CAS.EF.64.CONSTANT.PRIVATE P6, R60, [R62], R107, R97",
        SameText,
    ),
    // A 64-bit immediate prints as its bit pattern, never negative.
    (Sm::Sm120, 0x000fc20000ae916bc0692bc6286e7402, "MOV.64 R110, 0xae916bc0692bc628", Decodes),
    (Sm::Sm120, 0x000fc20000ffffffffffffffff067402, "MOV.64 R6, 0xffffffffffffffff", Decodes),
    // Bit 88, `.SPIN` of the CAST forms, is ignored by the CAS forms the
    // learned CAS/CAST field (bit 87) reads them from.
    (Sm::Sm90, 0x000fc20001800006000000040205738b, "ATOM.CAST.SPIN.EF P0, R5, [R2], R4, R6", NeverWrong),
    (Sm::Sm90, 0x000fc20000800006000000040205738b, "ATOM.CAST.EF P0, R5, [R2], R4, R6", Decodes),
    (
        Sm::Sm100,
        0x000fc2c22790d3efe6415ef659f3738d,
        "ATOMS.CAST.SPIN.S32 R243, [R89.X16+-0x19bea2], R246, R239",
        NeverWrong,
    ),
    (
        Sm::Sm120,
        0x000fc337318e40a9858f7b875fcf738b,
        "ATOM.CAST.SPIN.EF.CONSTANT.CTA PT, R207, [R95+-0x7a7085], R135, R169",
        NeverWrong,
    ),
    (Sm::Sm120, 0x000fc35c1395b116131b675a6fb5738d, "ATOMS.CAST.SPIN R181, [R111.X8+0x131b67], R90, R22", NeverWrong),
];

#[test]
fn words_decode_as_nvdisasm_prints_them() {
    let mut failures = Vec::new();
    for &(sm, word, theirs, want) in FACTS {
        let ours = ours(sm, word);
        let right = match (&ours, want) {
            (Ok((text, bits)), SameText) => text == theirs && bits.is_some(),
            (Ok((text, bits)), _) => text == theirs && *bits == Some(word),
            (Err(Error::UnknownEncoding(_)), NeverWrong) => true,
            (Err(_), _) => false,
        };
        if !right {
            failures.push(format!("{sm:?} 0x{word:032x} {theirs}: ours {ours:x?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Our text of `word` and its re-encoding (`None` when it does not
/// encode).
fn ours(sm: Sm, word: u128) -> Result<(String, Option<u128>), Error> {
    let mut labels = CodeLabels::new();
    let inst = decode(sm, [word as u64, (word >> 64) as u64], 0, &mut labels)?;
    let bits = encode(sm, &inst, 0, &labels).ok().map(|[lo, hi]| u128::from(lo) | u128::from(hi) << 64);
    Ok((print(sm, &inst, &labels)?, bits))
}

/// nvdisasm prints each word as the table says, and our re-encoding of a
/// [`SameText`] word alike.
#[test]
fn nvdisasm_prints_the_facts() {
    let Some(oracle) = nv_oracle::Oracle::for_test("decode_facts") else { return };
    let scratch = common::scratch("decode_facts");
    let mut failures = Vec::new();
    for (i, &(sm, word, theirs, want)) in FACTS.iter().enumerate() {
        let again = if want == SameText { ours(sm, word).ok().and_then(|(_, bits)| bits) } else { None };
        for (j, w) in [Some(word), again].into_iter().flatten().enumerate() {
            let file = scratch.join(format!("{i}_{j}.bin"));
            let bytes: Vec<u8> = (w as u64).to_le_bytes().into_iter().chain(((w >> 64) as u64).to_le_bytes()).collect();
            std::fs::write(&file, bytes).expect("write raw code");
            let listing =
                common::run(&oracle.nvdisasm(), &[OsStr::new("-b"), OsStr::new(sm.nvdisasm_name()), file.as_os_str()])
                    .unwrap_or_else(|e| panic!("{sm:?}: nvdisasm rejects 0x{w:032x}: {e}"));
            let listed = parse_listing(&listing).remove("").unwrap_or_default();
            let text = listed.insts.first().map(|l| l.text.trim_end_matches(';').trim_end().to_string());
            if text.as_deref() != Some(theirs) {
                failures.push(format!("{sm:?} 0x{w:032x}: table {theirs:?}, nvdisasm {text:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
