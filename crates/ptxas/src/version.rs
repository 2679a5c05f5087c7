//! What `--version`, `--list-arch` and `--list-version` print.

use ori_ir::Sm;

/// The NVIDIA release whose command line and output formats we follow.
/// Tools such as Triton parse `release X.Y` out of `--version`.
pub const COMPATIBLE_RELEASE: &str = "13.5";

/// The `--version` banner.
pub fn banner() -> String {
    format!(
        "ptxas: open PTX optimizing assembler {}\n\
         Compatible with Cuda compilation tools, release {COMPATIBLE_RELEASE}, V{COMPATIBLE_RELEASE}.0\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// `--list-arch`: one base architecture number per line.
pub fn list_arch() -> String {
    Sm::list_arch().map(|v| format!("{v}\n")).collect()
}

/// PTX ISA versions ptxas 13.5 reads (`--list-version`).
pub const PTX_VERSIONS: &[&str] = &[
    "1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "2.0", "2.1", "2.2", "2.3", "3.0", "3.1", "3.2", "4.0", "4.1", "4.2",
    "4.3", "5.0", "5.1", "6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6",
    "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0", "9.1", "9.2", "9.3", "9.4",
    "9.5",
];

/// `--list-version`: one PTX ISA version per line.
pub fn list_version() -> String {
    PTX_VERSIONS.iter().map(|v| format!("{v}\n")).collect()
}
