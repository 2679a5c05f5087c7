//! `-v`: resource usage in ptxas 13.5's format (oracle-facts §2.1).

use std::io::Write;

use crate::diag::Diagnostic;
use crate::{FunctionReport, Report};

/// Who prints the report: the two differ in the frame lines.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `ptxas -v`: frame lines indented, without a prefix.
    CommandLine,
    /// nvPTXCompiler's info log: frame lines prefixed `ptxas         .`
    /// (NVIDIA's `libnvptxcompiler_static.a` 13.5).
    Library,
}

/// Writes the `-v` report as the command line prints it.
pub fn write(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    write_as(report, Layout::CommandLine, out)
}

/// Writes the `-v` report in `layout`.
pub fn write_as(report: &Report, layout: Layout, out: &mut dyn Write) -> std::io::Result<()> {
    let info = |out: &mut dyn Write, text: String| writeln!(out, "{}", Diagnostic::info(text));
    let mut data = format!("{} bytes gmem", report.module_data.gmem);
    for (bank, bytes) in &report.module_data.cmem {
        data += &format!(", {bytes} bytes cmem[{bank}]");
    }
    info(out, data)?;
    // ptxas reports entries last-first, then the device functions.
    for f in report.functions.iter().rev().filter(|f| f.entry) {
        info(out, format!("Compiling entry function '{}' for '{}'", f.name, f.sm))?;
        info(out, format!("Function properties for {}", f.name))?;
        frame_line(f, layout, out)?;
        // The optional parts in ptxas 13.5's order (oracle-facts §2.1).
        let mut used = format!("Used {} registers, used {} barriers", f.registers, f.barriers);
        if f.shared != 0 {
            used += &format!(", {} bytes smem", f.shared);
        }
        if f.stack_frame != 0 {
            used += &format!(", {} bytes cumulative stack size", f.stack_frame);
        }
        if f.sm.target().verbose_reports_cmem0 {
            used += &format!(", {} bytes cmem[0]", f.cmem0);
        }
        info(out, used)?;
        info(out, format!("Compile time = {:.3} ms", f.compile_time.as_secs_f64() * 1e3))?;
    }
    for f in report.functions.iter().filter(|f| !f.entry) {
        info(out, format!("Function properties for {}", f.name))?;
        frame_line(f, layout, out)?;
    }
    Ok(())
}

/// The frame line, which ptxas prints indented and without a prefix.
fn frame_line(f: &FunctionReport, layout: Layout, out: &mut dyn Write) -> std::io::Result<()> {
    let prefix = match layout {
        Layout::CommandLine => "",
        Layout::Library => "ptxas         . ",
    };
    writeln!(
        out,
        "{prefix}    {} bytes stack frame, {} bytes spill stores, {} bytes spill loads",
        f.stack_frame, f.spill_stores, f.spill_loads
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn function(name: &str, sm: u16) -> FunctionReport {
        FunctionReport {
            name: name.into(),
            entry: true,
            sm: ori_ir::Sm::new(sm),
            registers: 12,
            barriers: 0,
            stack_frame: 0,
            shared: 0,
            spill_stores: 0,
            spill_loads: 0,
            cmem0: 380,
            compile_time: Duration::from_micros(2142),
        }
    }

    fn text(functions: Vec<FunctionReport>) -> String {
        let mut out = Vec::new();
        write(&Report { functions, ..Report::default() }, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn layout_matches_ptxas() {
        assert_eq!(
            text(vec![function("a", 80), function("vadd", 80)]).lines().take(6).collect::<Vec<_>>(),
            [
                "ptxas info    : 0 bytes gmem",
                "ptxas info    : Compiling entry function 'vadd' for 'sm_80'",
                "ptxas info    : Function properties for vadd",
                "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
                "ptxas info    : Used 12 registers, used 0 barriers, 380 bytes cmem[0]",
                "ptxas info    : Compile time = 2.142 ms",
            ]
        );
        let module_data = crate::ModuleData { gmem: 77, cmem: vec![(3, 16), (4, 40)] };
        let mut out = Vec::new();
        write(&Report { module_data, ..Report::default() }, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "ptxas info    : 77 bytes gmem, 16 bytes cmem[3], 40 bytes cmem[4]\n"
        );
        assert!(text(vec![function("v", 90)]).contains("ptxas info    : Used 12 registers, used 0 barriers\n"));
        let reduce = FunctionReport { barriers: 1, shared: 1024, stack_frame: 16, ..function("reduce_smem", 80) };
        assert!(text(vec![reduce]).contains(
            "Used 12 registers, used 1 barriers, 1024 bytes smem, 16 bytes cumulative stack size, 380 bytes cmem[0]\n"
        ));
    }
}
