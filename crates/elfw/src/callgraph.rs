//! `.nv.callgraph`: pairs of u32. Four groups, each opened by a sentinel
//! `(0, -1)`, `(0, -2)`, `(0, -3)`, `(0, -4)`: direct call edges (caller,
//! callee symbols), address-taken functions, indirect call sites, and a
//! fourth group ptxas 13.5 leaves empty.

use crate::bytes::{Cursor, Put};
use crate::error::Result;

/// One pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallEdge {
    /// First word (caller symbol, or 0 for a sentinel).
    pub caller: u32,
    /// Second word (callee symbol, prototype id, or the sentinel).
    pub callee: u32,
}

/// The four group sentinels, in file order.
pub const SENTINELS: [u32; 4] = [0xffff_ffff, 0xffff_fffe, 0xffff_fffd, 0xffff_fffc];

pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<CallEdge>> {
    let mut c = Cursor::new(bytes, 0);
    let mut out = Vec::with_capacity(bytes.len() / 8);
    while c.remaining() > 0 {
        let caller = c.u32("call graph caller")?;
        let callee = c.u32("call graph callee")?;
        out.push(CallEdge { caller, callee });
    }
    Ok(out)
}

pub(crate) fn encode(edges: &[CallEdge], out: &mut Vec<u8>) {
    for e in edges {
        out.put_u32(e.caller);
        out.put_u32(e.callee);
    }
}
