//! The textual form of Ori: what `--dump-ir-after` prints and what
//! single-phase tests are written in. Printing then parsing gives back the
//! same IR, and parsing then printing gives back the same text when the
//! text is in the printer's canonical form (blocks named `bb0`, `bb1`, ...
//! in layout order).
//!
//! ```text
//! .target sm_90
//! .props VirtualRegs
//!
//! .entry vadd {
//!     .param 0x0, 8
//!     .param 0x8, 8
//!     .param 0x10, 8
//!     .param 0x18, 4
//! bb0:
//!     %r0 = S2R SR_TID.X
//!     %p0, PT = ISETP.GE.AND %r0, c[0x0][0x228], PT
//!     @%p0 EXIT
//!     ...
//! }
//! ```
//!
//! An instruction line is `[ctrl] @guard defs = OPCODE.MODS uses #encoding`,
//! every part but the opcode optional. The control word uses the
//! `[B------:R-:W-:Y:S04]` notation (wait mask, read and write scoreboard,
//! yield, stall); the encoding is the 128-bit word in hex, high half first.

mod parse;
mod print;

pub use parse::{ParseError, parse_function, parse_module};
pub use print::{print_function, print_inst, print_module};

/// Characters a bare name (function, label, modifier chain) may contain.
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')
}
