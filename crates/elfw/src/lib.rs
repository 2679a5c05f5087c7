//! Cubin (NVIDIA ELF) reader, writer and builder.
//!
//! * [`read`] parses any cubin ptxas 13.5 writes (sm_75..sm_121) into a
//!   [`Cubin`]: header, sections with decoded content (symbols, REL/RELA,
//!   notes, `.nv.info` records, call graph), program headers.
//! * [`write`] turns a [`Cubin`] back into bytes; reading a ptxas cubin and
//!   writing it gives the identical file.
//! * [`build`] makes a cubin from the compiler's [`ori_ir::object::ObjectModule`]
//!   the way ptxas lays it out, switching per SM from [`arch`] tables.
//! * [`capmerc`] regenerates the Capsule Mercury sections of sm_100+ cubins
//!   from their other sections, as far as that is known.
//!
//! See `docs/elfw.md` for the file layout as measured, `docs/capmerc.md` for
//! Capsule Mercury.

pub mod arch;
mod build;
mod bytes;
pub mod callgraph;
pub mod capmerc;
pub mod cubin;
pub mod diff;
pub mod error;
pub mod header;
pub mod layout;
pub mod lines;
pub mod notes;
pub mod nvinfo;
mod read;
pub mod reloc;
pub mod section;
pub mod strtab;
pub mod symbol;
mod write;

pub use build::{MercuryFunction, build, build_model, build_with_mercury, r_merc};
pub use bytes::Put;
pub use cubin::{Cubin, ProgramHeader};
pub use error::{Error, Result};
pub use read::read;
pub use section::{Section, SectionData};
pub use write::{section_bytes, write};
