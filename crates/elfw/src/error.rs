//! Errors of the reader, writer and builder: values, never panics.

use std::fmt;

/// Why a cubin could not be read, written or built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The input ends before `what`, which needs bytes up to `end`.
    Truncated {
        /// The structure being read.
        what: String,
        /// Offset one past the last byte needed.
        end: u64,
    },
    /// The bytes are present but do not form what was expected.
    Malformed(String),
    /// The model cannot be written (inconsistent sizes, overlapping sections, ...).
    Layout(String),
    /// The builder's input is incomplete or contradictory.
    Input(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated { what, end } => {
                write!(f, "truncated: {what} needs bytes up to offset {end:#x}")
            }
            Error::Malformed(m) => write!(f, "malformed cubin: {m}"),
            Error::Layout(m) => write!(f, "cannot lay out cubin: {m}"),
            Error::Input(m) => write!(f, "bad builder input: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Builds an [`Error::Malformed`].
pub(crate) fn malformed(message: impl Into<String>) -> Error {
    Error::Malformed(message.into())
}
