//! Every derived form (`src/derive.rs`, and sm_100's and sm_120's probed ones) against nvdisasm: random words of
//! each, with values nvdisasm accepts for any form of the opcode, listed
//! with one `nvdisasm -b` run per SM. nvdisasm must accept every word and
//! print our text, and decoding must give the same bits back.

mod common;

use common::{Rng, check, generate};
use mercury_encode::Sm;
use mercury_encode::form::Tables;

/// Words per derived form.
const PER_FORM: usize = 2;

#[test]
fn every_derived_form_matches_nvdisasm() {
    let Some(oracle) = nv_oracle::Oracle::for_test("every_derived_form_matches_nvdisasm") else { return };
    let scratch = common::scratch("derived");
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut failures = Vec::new();
    // sm_100's and sm_120's are the probed forms of
    // `tables/sm100_probed.rs` and `tables/sm120_probed.rs`.
    for sm in [Sm::Sm80, Sm::Sm90, Sm::Sm75, Sm::Sm100, Sm::Sm120] {
        let tables = Tables::full(sm);
        // The list, for review.
        let list: Vec<String> =
            tables.derived().iter().map(|f| format!("{} {}", f.mnemonic, f.operands.join(", "))).collect();
        std::fs::write(scratch.join(format!("{sm:?}.txt")), list.join("\n")).expect("write derived list");
        let mut words = Vec::new();
        // More words a form where there are few forms (sm_100).
        let per_form = PER_FORM.max(128 / tables.derived().len().max(1));
        for form in tables.derived() {
            for _ in 0..per_form {
                words.push(generate(&mut rng, tables, form, true).expect("derived forms have no special registers"));
            }
        }
        let (tried, rejected, unsupported, matched) = check(&oracle, sm, &scratch, &words, &mut failures);
        eprintln!(
            "{sm:?}: {} derived forms, {tried} instructions, {rejected} rejected by nvdisasm, {unsupported} not representable, {matched} texts and bits match",
            tables.derived().len()
        );
        if rejected + unsupported > 0 {
            failures.push(format!("{sm:?}: {rejected} rejected, {unsupported} not representable"));
        }
        assert!(tried > 100, "{sm:?}: only {tried} derived words");
    }
    for f in failures.iter().take(60) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} derived instructions disagree with nvdisasm", failures.len());
}
