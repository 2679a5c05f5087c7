//! Random instructions of every form, built through the encoder, printed
//! by us and by `nvdisasm -b` from raw 16-byte words: the texts must agree.
//!
//! Each form gets `MERCURY_GEN_PER_FORM` instructions (default 1 for a
//! few forms per family, sampled; set it to run every form). Atoms get
//! random values within their fields, the guard a random predicate, the
//! control bits random values. nvdisasm rejects a whole file for one bad
//! word and names its address, so rejected words are dropped one by one
//! and counted.

mod common;

use common::{Rng, check, generate};
use mercury_encode::Sm;
use mercury_encode::form::Tables;

#[test]
fn generated_instructions_match_nvdisasm() {
    let Some(oracle) = nv_oracle::Oracle::for_test("generated_instructions_match_nvdisasm") else { return };
    let per_form: Option<usize> = std::env::var("MERCURY_GEN_PER_FORM").ok().and_then(|v| v.parse().ok());
    let scratch = common::scratch("generated");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut failures = Vec::new();
    for sm in [Sm::Sm80, Sm::Sm90, Sm::Sm75] {
        let tables = Tables::full(sm);
        // By default a sample of ~150 forms per family keeps `cargo test` short.
        let step = if per_form.is_some() { 1 } else { (tables.learned().len() / 150).max(1) };
        let mut words = Vec::new();
        for form in tables.learned().iter().step_by(step) {
            for _ in 0..per_form.unwrap_or(1) {
                if let Some(w) = generate(&mut rng, tables, form, false) {
                    words.push(w);
                }
            }
        }
        let (tried, rejected, unsupported, matched) = check(&oracle, sm, &scratch, &words, &mut failures);
        eprintln!(
            "{sm:?}: {} forms sampled, {tried} instructions, {rejected} rejected by nvdisasm, {unsupported} not representable, {matched} texts and bits match",
            tables.learned().len().div_ceil(step)
        );
        assert!(tried > 0);
    }
    for f in failures.iter().take(40) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} generated instructions disagree with nvdisasm", failures.len());
}
