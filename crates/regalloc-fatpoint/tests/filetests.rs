//! Runs `tests/filetests/AllocateRegisters/*.ori` with the pass crates'
//! runner (see `passes-early/tests/support/filetest.rs`; `BLESS=1`
//! rewrites the expectations). The phase checks every allocation it makes
//! with `check_allocation` in debug builds, so every case is also checked
//! for two live values sharing a register.

#[path = "../../passes-early/tests/support/filetest.rs"]
mod filetest;

#[test]
fn filetests() {
    filetest::run(env!("CARGO_MANIFEST_DIR"), regalloc_fatpoint::phases(), |_| Box::new(ori_ir::NoForms));
}
