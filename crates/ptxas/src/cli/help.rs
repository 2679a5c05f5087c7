//! `--help`, generated from the option table.

use super::args::{ArgKind, OPTIONS};

/// The help text.
pub fn text() -> String {
    let mut out = String::from("Usage  : ptxas [options] <ptx or ori file>,...\n\nOptions\n=======\n\n");
    for spec in OPTIONS.iter().filter(|s| s.help.is_some()) {
        let arg = match spec.arg {
            ArgKind::Flag => String::new(),
            _ => format!(" <{}>", spec.meta),
        };
        let short = if spec.short == spec.long { String::new() } else { format!("  (-{})", spec.short) };
        out.push_str(&format!("--{}{arg}{short}\n        {}\n\n", spec.long, spec.help.unwrap_or_default()));
    }
    out
}
