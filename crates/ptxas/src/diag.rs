//! Diagnostics as data, rendered in ptxas's formats.

use std::fmt;

/// How bad a diagnostic is: the front end's severities, which ptxas
/// prints the same way for every stage.
pub use ptx_syntax::Severity;

/// A place in an input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file name as given on the command line.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, when known.
    pub column: Option<u32>,
}

/// One message for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Severity.
    pub severity: Severity,
    /// Where, for messages about a PTX line.
    pub location: Option<Location>,
    /// The text, without prefix.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic without location.
    pub fn new(severity: Severity, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity, location: None, message: message.into() }
    }

    /// `ptxas info    : ...`.
    pub fn info(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Info, message)
    }

    /// `ptxas warning : ...`.
    pub fn warning(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, message)
    }

    /// `ptxas error   : ...`.
    pub fn error(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, message)
    }

    /// `ptxas fatal   : ...`.
    pub fn fatal(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Fatal, message)
    }

    /// True for errors and fatal errors.
    pub fn is_error(&self) -> bool {
        self.severity >= Severity::Error
    }

    /// The line ptxas would print: `ptxas FILE, line N; error   : MESSAGE`.
    pub fn to_ptxas_line(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(loc) => {
                write!(f, "ptxas {}, line {}; {} : {}", loc.file, loc.line, self.severity.padded(), self.message)
            }
            None => write!(f, "ptxas {} : {}", self.severity.padded(), self.message),
        }
    }
}

/// The closing line ptxas prints after any error.
pub const ABORTED: &str = "Ptx assembly aborted due to errors";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_match_ptxas() {
        assert_eq!(Diagnostic::fatal(ABORTED).to_string(), "ptxas fatal   : Ptx assembly aborted due to errors");
        assert_eq!(Diagnostic::info("0 bytes gmem").to_string(), "ptxas info    : 0 bytes gmem");
        let located = Diagnostic {
            severity: Severity::Error,
            location: Some(Location { file: "e.ptx".into(), line: 28, column: Some(3) }),
            message: "Unknown symbol '%rd99'".into(),
        };
        assert_eq!(located.to_string(), "ptxas e.ptx, line 28; error   : Unknown symbol '%rd99'");
        assert_eq!(Diagnostic::warning("w").to_string(), "ptxas warning : w");
    }
}
