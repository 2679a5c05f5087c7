//! Inputs shared by the benchmarks: the corpus, and generated Ori.

use std::path::{Path, PathBuf};

/// `../shared/corpus` next to the repository.
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

/// A straight-line Ori function of `n` dependent integer instructions with
/// copies and dead values, for the phase pipeline and the text form.
pub fn generated_ori(n: usize) -> String {
    let mut text =
        String::from(".target sm_90\n.props VirtualRegs\n\n.entry generated {\nbb0:\n    %r0 = S2R SR_TID.X\n");
    for i in 1..n {
        let line = match i % 4 {
            0 => format!("    %r{i} = MOV %r{}\n", i - 1),
            1 => format!("    %r{i} = IADD3 %r{}, 0x1, RZ\n", i - 1),
            2 => format!("    %r{i} = IMAD %r{}, 0x3, %r0\n", i - 1),
            _ => format!("    %r{i} = LOP3.LUT %r{}, %r0, RZ, 0xc0, !PT\n", i - 2),
        };
        text.push_str(&line);
    }
    text.push_str(&format!(
        "    %r{n}.64 = LDC.64 c[0x0][0x210]\n    STG.E desc[%ur0.64][%r{n}.64], %r{}\n    EXIT\n}}\n",
        n - 1
    ));
    text
}
