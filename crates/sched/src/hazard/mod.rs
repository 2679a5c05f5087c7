//! The hazard checker: proves that every register and predicate
//! dependency of scheduled code is covered by stall counts or scoreboard
//! waits, per the latency table.
//!
//! The model: an instruction issues `stall` cycles after the one before it
//! (only the stall counts are trusted; a wait may only add time). A
//! fixed-latency result may be read once its latency has passed (more for
//! a predicate read as a guard); a variable-latency result only after a
//! wait on the scoreboard it signals; a register read by an instruction
//! with a read scoreboard may be overwritten only after a wait on that
//! scoreboard; a wait must come late enough for the scoreboard's set to be
//! visible. Control flow joins what may be in flight on every path.
//! Instructions without a read scoreboard read their sources at issue (in
//! NVIDIA's code sources of loads, MUFU and double-precision operations are
//! overwritten one cycle later).

mod check;
mod ordering;
mod program;
mod state;

pub use check::{Kind, Violation, check_program};
pub use ordering::{Classes, ORDERINGS, Ordering, stall_after};
pub use program::{Flow, Program, Step};
pub use state::{Pending, State, UNIFORM_READ_CYCLES};

pub(crate) use check::apply_ctrl;

use ori_ir::{Function, Sm};

use crate::latency::LatencyTable;

/// Checks a scheduled Ori function for `sm`.
pub fn check_function(func: &Function, sm: Sm) -> Vec<Violation> {
    check_program(&Program::from_function(func), LatencyTable::for_sm(sm))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(body: &str) -> Vec<(Kind, String)> {
        let text = format!(".target sm_90\n.props PhysicalRegs, Scheduled\n\n.entry k {{\nbb0:\n{body}}}\n");
        let module = ori_ir::text::parse_module(&text).expect("test function parses");
        check_function(&module.functions[0], module.target)
            .into_iter()
            .map(|v| (v.kind, v.unit.map(|u| u.to_string()).unwrap_or_default()))
            .collect()
    }

    #[test]
    fn covered_dependencies_pass() {
        let body = "    [B------:R-:W0:Y:S02] R2 = LDC c[0x0][0x210]\n    \
                    [B0-----:R-:W-:-:S13] P0, PT = ISETP.GE.AND R2, 0x1, PT\n    \
                    [B------:R-:W-:Y:S05] @P0 EXIT\n    \
                    [B------:R-:W-:Y:S05] EXIT\n";
        assert_eq!(kinds(body), []);
    }

    #[test]
    fn each_uncovered_dependency_is_named() {
        // No wait on SB0; the guard read 4 cycles after ISETP (13 needed);
        // SB1 waited on in the cycle it was set.
        let body = "    [B------:R-:W0:Y:S02] R2 = LDC c[0x0][0x210]\n    \
                    [B------:R-:W-:-:S04] P0, PT = ISETP.GE.AND R2, 0x1, PT\n    \
                    [B------:R-:W1:-:S00] R3 = S2R SR_TID.X\n    \
                    [B-1----:R-:W-:Y:S05] @P0 EXIT\n    \
                    [B------:R-:W-:Y:S05] EXIT\n";
        let found = kinds(body);
        assert!(found.contains(&(Kind::RawVariable, "R2".into())), "{found:?}");
        assert!(found.contains(&(Kind::RawFixed, "P0".into())), "{found:?}");
        assert!(found.contains(&(Kind::WaitTooSoon, String::new())), "{found:?}");
    }
}
