//! Runs `tests/filetests/<PhaseName>/*.ori`; see `support/filetest.rs` for
//! the format and `BLESS=1`.

#[path = "support/filetest.rs"]
mod filetest;

#[test]
fn filetests() {
    filetest::run(env!("CARGO_MANIFEST_DIR"), passes_early::phases(), encoder_forms);
}

/// The encoder's forms: `FoldConstantOperands` asks them.
fn encoder_forms(sm: ori_ir::Sm) -> Box<dyn ori_ir::Forms> {
    match mercury_encode::Sm::from_number(u32::from(sm.version)) {
        Some(family) => Box::new(mercury_encode::EncoderForms(family)),
        None => Box::new(ori_ir::NoForms),
    }
}
