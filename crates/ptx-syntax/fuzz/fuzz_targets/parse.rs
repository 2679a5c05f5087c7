//! Parses, validates and prints arbitrary text. Beyond "no panic, no hang",
//! it checks the printer: a module that parsed cleanly must print to text
//! that parses back to an equal module.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ptx_syntax::{FileId, ValidateOptions, parse, print, validate};

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    let (module, diags) = parse(source, FileId(0));
    let problems = validate(&module, &ValidateOptions::default());
    for d in diags.iter().chain(&problems) {
        let _ = d.render_ptxas("fuzz.ptx", source);
        let _ = d.render_human("fuzz.ptx", source);
    }
    let printed = print(&module);
    if diags.is_empty() {
        let (reparsed, rediags) = parse(&printed, FileId(1));
        assert!(rediags.is_empty(), "printed text does not parse: {rediags:?}\n{printed}");
        assert!(reparsed == module, "round trip differs:\n{printed}");
    }
});
