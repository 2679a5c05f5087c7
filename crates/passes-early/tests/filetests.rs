//! Runs `tests/filetests/<PhaseName>/*.ori`; see `support/filetest.rs` for
//! the format and `BLESS=1`.

#[path = "support/filetest.rs"]
mod filetest;

#[test]
fn filetests() {
    filetest::run(env!("CARGO_MANIFEST_DIR"), passes_early::phases());
}
