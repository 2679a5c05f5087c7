//! Helpers for the unit tests: functions from Ori text, blocks by layout
//! name.

use ori_ir::{BlockId, Function, InstId};

/// Parses a function, panicking with the parse error (test input is
/// fixed).
pub fn parse(text: &str) -> Function {
    ori_ir::text::parse_function(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The block printed as `bbN`.
pub fn bb(func: &Function, n: usize) -> BlockId {
    func.layout[n]
}

/// Layout names of `blocks`.
pub fn names(func: &Function, blocks: impl IntoIterator<Item = BlockId>) -> Vec<String> {
    blocks.into_iter().map(|b| name(func, b)).collect()
}

/// Layout name of `block`.
pub fn name(func: &Function, block: BlockId) -> String {
    func.layout_index(block).map_or("bb?".to_string(), |i| format!("bb{i}"))
}

/// The `k`-th instruction of block `bbN`.
pub fn inst(func: &Function, n: usize, k: usize) -> InstId {
    func.blocks[bb(func, n)].insts[k]
}

/// A diamond: bb0 branches to bb2 or falls into bb1; both reach bb3.
pub const DIAMOND: &str = "
.entry diamond {
bb0:
    %r0 = S2R SR_TID.X
    %p0, PT = ISETP.GE.AND %r0, 0x10, PT
    @%p0 BRA bb2
bb1:
    %r1 = MOV 0x1
    BRA bb3
bb2:
    %r1 = MOV 0x2
bb3:
    %r2.64 = LDC.64 c[0x0][0x210]
    STG.E [%r2.64], %r1
    EXIT
}
";

/// Two nested loops: bb1..bb3 with the self-loop bb2 inside.
pub const NESTED: &str = "
.entry nested {
bb0:
    %r0 = MOV 0x0
    %ur0 = S2UR SR_CTAID.X
bb1:
    %r1 = MOV 0x0
bb2:
    %r1 = IADD3 %r1, 0x1, RZ
    %p0, PT = ISETP.LT.AND %r1, 0x8, PT
    @%p0 BRA bb2
bb3:
    %r0 = IADD3 %r0, %ur0, RZ
    %p1, PT = ISETP.LT.AND %r0, 0x40, PT
    @%p1 BRA bb1
bb4:
    EXIT
}
";

/// A cycle bb1 <-> bb2 entered at both blocks from bb0.
pub const IRREDUCIBLE: &str = "
.entry irreducible {
bb0:
    %r0 = S2R SR_TID.X
    %p0, PT = ISETP.GE.AND %r0, 0x10, PT
    @%p0 BRA bb2
bb1:
    %r0 = IADD3 %r0, 0x1, RZ
bb2:
    %p1, PT = ISETP.LT.AND %r0, 0x40, PT
    @%p1 BRA bb1
bb3:
    EXIT
}
";
