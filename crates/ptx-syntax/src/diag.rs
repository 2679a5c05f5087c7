//! Diagnostics as data, and their two renderings (ptxas's and a human one).

use crate::span::{LineIndex, Span};

/// How bad a diagnostic is; ptxas prints these words padded to 7 columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Informational note (`ptxas info    :`).
    Info,
    /// Accepted, but suspicious (`ptxas warning :`).
    Warning,
    /// The file is rejected; checking goes on (`ptxas error   :`).
    Error,
    /// The file is rejected; ptxas stops here (`ptxas fatal   :`).
    Fatal,
}

impl Severity {
    /// The word ptxas prints, padded to 7 columns.
    pub fn padded(self) -> &'static str {
        match self {
            Severity::Info => "info   ",
            Severity::Warning => "warning",
            Severity::Error => "error  ",
            Severity::Fatal => "fatal  ",
        }
    }

    /// The bare word (`error`, `warning`...).
    pub fn word(self) -> &'static str {
        self.padded().trim_end()
    }
}

/// One message about the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// How bad it is.
    pub severity: Severity,
    /// The message text, in NVIDIA's wording where ptxas has one.
    pub message: String,
    /// Where it applies; `None` for file-wide messages that ptxas prints without a line.
    pub span: Option<Span>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Error, message: message.into(), span: Some(span) }
    }

    /// A fatal error at `span`.
    pub fn fatal(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Fatal, message: message.into(), span: Some(span) }
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, message: message.into(), span: Some(span) }
    }

    /// A fatal error that ptxas prints without a file or line prefix.
    pub fn bare(message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Fatal, message: message.into(), span: None }
    }

    /// True for errors and fatal errors, which reject the file.
    pub fn is_error(&self) -> bool {
        self.severity >= Severity::Error
    }

    /// The 1-based line of the diagnostic in `source`, if it has a span.
    pub fn line(&self, source: &str) -> Option<u32> {
        let span = self.span?;
        Some(LineIndex::new(source).line_col(source, span.start as usize).line)
    }

    /// ptxas's format: `ptxas FILE, line N; error   : MESSAGE`, or
    /// `ptxas error   : MESSAGE` without a span. No trailing newline.
    pub fn render_ptxas(&self, file_name: &str, source: &str) -> String {
        let severity = self.severity.padded();
        match self.line(source) {
            Some(line) => format!("ptxas {file_name}, line {line}; {severity} : {}", self.message),
            None => format!("ptxas {severity} : {}", self.message),
        }
    }

    /// A human format: `FILE:LINE:COL: error: MESSAGE`, then the source line
    /// and a caret under the span. Ends with a newline.
    pub fn render_human(&self, file_name: &str, source: &str) -> String {
        let severity = self.severity.word();
        let Some(span) = self.span else {
            return format!("{file_name}: {severity}: {}\n", self.message);
        };
        let index = LineIndex::new(source);
        let start = index.line_col(source, span.start as usize);
        let text = index.line_text(source, span.start as usize);
        let end_col = if index.line_col(source, span.end as usize).line == start.line {
            index.line_col(source, span.end as usize).col
        } else {
            start.col + 1
        };
        let width = (end_col.saturating_sub(start.col)).max(1) as usize;
        let gutter = start.line.to_string();
        let pad = " ".repeat(gutter.len());
        let indent: String =
            text.chars().take(start.col as usize - 1).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
        format!(
            "{file_name}:{}:{}: {severity}: {}\n{pad} |\n{gutter} | {text}\n{pad} | {indent}{}\n",
            start.line,
            start.col,
            self.message,
            "^".repeat(width)
        )
    }
}

/// Renders all `diagnostics` as ptxas does: one line each, followed by
/// `Ptx assembly aborted due to errors` when any of them is an error.
pub fn render_ptxas_all(diagnostics: &[Diagnostic], file_name: &str, source: &str) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&d.render_ptxas(file_name, source));
        out.push('\n');
    }
    if diagnostics.iter().any(Diagnostic::is_error) {
        out.push_str("ptxas fatal   : Ptx assembly aborted due to errors\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;

    const SRC: &str = ".version 9.5\n\tadd.f33 %r1, %r2;\n";

    #[test]
    fn ptxas_format() {
        let d = Diagnostic::error(Span::new(FileId(0), 14, 21), "Unknown modifier '.f33'");
        assert_eq!(d.render_ptxas("a.ptx", SRC), "ptxas a.ptx, line 2; error   : Unknown modifier '.f33'");
        let f = Diagnostic { severity: Severity::Fatal, message: "x".into(), span: None };
        assert_eq!(f.render_ptxas("a.ptx", SRC), "ptxas fatal   : x");
        assert_eq!(
            render_ptxas_all(&[d], "a.ptx", SRC).lines().last(),
            Some("ptxas fatal   : Ptx assembly aborted due to errors")
        );
    }

    #[test]
    fn human_format_has_caret() {
        let d = Diagnostic::warning(Span::new(FileId(0), 14, 21), "odd");
        let text = d.render_human("a.ptx", SRC);
        assert_eq!(text, "a.ptx:2:2: warning: odd\n  |\n2 | \tadd.f33 %r1, %r2;\n  | \t^^^^^^^\n");
    }
}
