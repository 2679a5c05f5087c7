//! Runs `tests/filetests/<PhaseName>/*.ori` with the runner of
//! passes-early (format and `BLESS=1` are described there).

#[path = "../../passes-early/tests/support/filetest.rs"]
mod filetest;

#[test]
fn filetests() {
    // No late phase asks the encoder.
    filetest::run(env!("CARGO_MANIFEST_DIR"), passes_late::phases(), |_| Box::new(ori_ir::NoForms));
}
