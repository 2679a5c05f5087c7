//! The latency table: per SM family, what each opcode needs before a
//! dependent instruction may issue, as data measured from NVIDIA's cubins.
//!
//! Every number is a cycle distance: the sum of the stall counts from the
//! producer up to (not including) the consumer. Each fact comes as a
//! [`Bound`] of two numbers:
//!
//! - `min`, the smallest distance NVIDIA's ptxas ever uses for it in the
//!   corpus. The hazard checker demands at least this much, so it accepts
//!   all of NVIDIA's code and still catches a shortened stall.
//! - `safe`, the distance that covers every consumer NVIDIA placed at least
//!   three times with no scoreboard wait after the producer (the largest of
//!   the per-consumer minima), and never less than `min`. Our phases
//!   generate this much. Where every reader NVIDIA placed came after a wait
//!   (HMMA, whose readers wait on loads), nothing shows the latency alone:
//!   `safe` is then at least the longest stall, 15, and `min`.
//!
//! How the numbers were obtained: `tests/support/measure.rs` compiles the
//! corpus with NVIDIA's ptxas 13.5 (`-arch=sm_80` / `sm_90`, default -O3),
//! lists it with `nvdisasm -hex -plr -lrm narrow` (the life-range columns
//! give each instruction's defined and used registers), and walks each
//! block. `cargo test -p sched --test latency -- --nocapture` prints the
//! measurement; the test `table_matches_measurement` fails when this table
//! and the measurement disagree.

mod sm100;
mod sm120;
mod sm75;
mod sm80;
mod sm86;
mod sm90;

use std::sync::OnceLock;

use ori_ir::{Family, FxHashMap, Sm};

/// Every table, each measured on NVIDIA's code for the SMs it serves.
pub static TABLES: [&LatencyTable; 6] =
    [&sm75::TABLE, &sm80::TABLE, &sm86::TABLE, &sm90::TABLE, &sm100::TABLE, &sm120::TABLE];

/// A distance in cycles: the smallest NVIDIA uses, and the one we emit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The smallest distance in NVIDIA's code (what the checker demands).
    pub min: u8,
    /// A distance covering every consumer NVIDIA uses often (what we emit).
    pub safe: u8,
}

impl Bound {
    /// `min` and `safe`.
    pub const fn new(min: u8, safe: u8) -> Bound {
        Bound { min, safe }
    }
}

/// How an opcode's result becomes available.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Lat {
    /// After a fixed time: `raw` to an ordinary source read, `guard` to an
    /// instruction guarded by a predicate it wrote (`None`: the family's
    /// default).
    Fixed {
        /// Distance to a reader of the result as a source operand.
        raw: Bound,
        /// Distance to a reader of a written predicate as its guard.
        guard: Option<Bound>,
    },
    /// Fixed latency (NVIDIA never sets a scoreboard on it) but no reader
    /// of its result was ever seen, so nothing is measured: the checker
    /// demands nothing and we emit the longest stall.
    Unmeasured,
    /// Unknown time: the result is signalled on a write scoreboard and
    /// readers wait for it.
    Variable,
}

/// One table row.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Opcode, as nvdisasm prints it.
    pub op: &'static str,
    /// Result timing.
    pub lat: Lat,
    /// Smallest non-zero stall NVIDIA puts on this opcode; the next
    /// instruction never issues sooner after it (branches, barriers).
    pub min_stall: u8,
}

/// A reader that may come sooner after a producer than the producer's
/// `safe` distance, which must cover its slowest reader: NVIDIA's code
/// places this reader at `safe` cycles (over every source operand it
/// reads the result with, each seen at least three times).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// Producer opcode.
    pub op: &'static str,
    /// Reader opcode.
    pub reader: &'static str,
    /// The distance we emit, below the producer row's `safe`.
    pub safe: u8,
}

/// The table of one SM family.
#[derive(Debug)]
pub struct LatencyTable {
    /// Family name, e.g. `sm_80`.
    pub family: &'static str,
    /// The SM versions it serves, all measured: the table covers NVIDIA's
    /// code for each of them.
    pub serves: &'static [u16],
    /// Where an opcode NVIDIA's code for these SMs never used is looked
    /// up (the nearest measured table); `None`: it is unlisted.
    pub base: Option<&'static LatencyTable>,
    /// Rows, sorted by opcode.
    pub rows: &'static [Row],
    /// Fixed-latency predicate to guard, when the row gives none.
    pub guard: Bound,
    /// From setting a scoreboard to the first wait on it: a set takes
    /// effect a little after issue.
    pub sb_visible: Bound,
    /// NVIDIA sometimes leaves a variable-latency result unsignalled (no
    /// write scoreboard) and reads it only much later: the smallest such
    /// distance, which the checker then demands. We never do this.
    pub unsignalled: u8,
    /// Readers that take their predicate sources at the guard's pipeline
    /// stage rather than with their other operands, so a fixed-latency
    /// predicate needs the guard latency before them. In NVIDIA's code a
    /// `VOTE` or `BRA` never reads a predicate sooner than 13 cycles after
    /// the `ISETP`/`FSETP` that wrote it, where `SEL`, `FSEL` and `PLOP3`
    /// read one after 4; ours issued `VOTE.ANY R5, PT, P1` 4 cycles after
    /// its `ISETP`, and on an H200 the vote saw the old `P1` (warp_vote: a
    /// zero ballot). `LDGSTS` reads its zero-fill predicate (`cp.async`
    /// with a source size) at that stage too: NVIDIA's code never places
    /// it sooner than 13 cycles after its `ISETP` (Triton's matmuls, sm_80
    /// and sm_90); ours did after 5, and on an H100 every pipelined wgmma
    /// matmul came out with tiles of zeros. `VOTEU`, `VOTE`'s uniform
    /// twin, is listed without a measurement (NVIDIA's code has no such
    /// pair): assuming it early costs stalls, assuming it late costs wrong
    /// results.
    pub early_predicates: &'static [&'static str],
    /// Readers that need less than their producer's `safe` distance,
    /// sorted by producer then reader. On sm_90 an `IMAD` result reaches
    /// `IADD3` after 5 cycles and `FFMA` after 4, while the row's `safe`
    /// waits 9 for `CALL`; a dependent `IADD3` chain needs 4 where `IMAD`
    /// reads an `IADD3` result after 5.
    pub pairs: &'static [Pair],
}

/// A table's rows and pairs by opcode name.
struct Index {
    /// Position of each opcode's row.
    rows: FxHashMap<&'static str, usize>,
    /// Per producer, its readers and their distances.
    pairs: FxHashMap<&'static str, Vec<(&'static str, u8)>>,
}

/// The row of a `BMOV` into a convergence barrier register (sm_87's
/// barrier-reset prologue: `BMOV.32 B0, 0xffffffff`, `BMOV.32.CLEAR B1,
/// B0`). NVIDIA's code sets no scoreboard on it and reads the barrier 4
/// cycles later, where a `BMOV` into a general register (`BMOV.32.CLEAR
/// R4, B6`) signals a write scoreboard; nvdisasm refuses a barrier `BMOV`
/// with one.
pub const BARRIER_BMOV: &str = "BMOV.B";

/// The row an instruction of opcode `op` takes: the opcode, but
/// [`BARRIER_BMOV`] for a `BMOV` that writes a barrier register.
pub fn row_op(op: &str, writes_barrier: bool) -> &str {
    if op == "BMOV" && writes_barrier { BARRIER_BMOV } else { op }
}

/// The row `inst` takes ([`row_op`]).
pub fn inst_row_op(inst: &ori_ir::Inst) -> &'static str {
    let writes_barrier = crate::units::writes(inst).iter().any(|u| u.parts().0 == ori_ir::RegFile::B);
    row_op(inst.op.name(), writes_barrier)
}

/// What an unlisted opcode is assumed to be: variable latency, so that it
/// gets a scoreboard and readers wait (an unknown instruction never needs
/// less than that).
const UNLISTED: Row = Row { op: "", lat: Lat::Variable, min_stall: 1 };

impl LatencyTable {
    /// The table measured for `sm`; for an SM none serves, the one of its
    /// SASS generation ([`ori_ir::Isa::generation`]).
    pub fn for_sm(sm: Sm) -> &'static LatencyTable {
        if let Some(table) = TABLES.iter().find(|t| t.serves.contains(&sm.version)) {
            return table;
        }
        match sm.target().isa.generation {
            Family::Turing => &sm75::TABLE,
            Family::Ampere | Family::Ada => &sm86::TABLE,
            Family::Hopper => &sm90::TABLE,
            Family::Blackwell => &sm100::TABLE,
        }
    }

    /// The row of `op` (an unlisted opcode counts as variable latency).
    pub fn row(&self, op: &str) -> &Row {
        self.own_row(op).or_else(|| self.base.map(|b| b.row(op))).unwrap_or(&UNLISTED)
    }

    /// The row of `op` in this table itself.
    pub fn own_row(&self, op: &str) -> Option<&Row> {
        match self.index() {
            Some(index) => index.rows.get(op).map(|&i| &self.rows[i]),
            None => self.rows.binary_search_by(|r| r.op.cmp(op)).ok().map(|i| &self.rows[i]),
        }
    }

    /// The hashed index of this table when it is one of [`TABLES`] (the
    /// scheduler and the scoreboard walk look a row up for every
    /// instruction and operand: a binary search over opcode strings was
    /// 3.7 % of large_unroll's instructions). `None` for a table built
    /// elsewhere (tests), which is searched as it is.
    fn index(&self) -> Option<&'static Index> {
        static INDEXES: OnceLock<Vec<Index>> = OnceLock::new();
        let k = TABLES.iter().position(|t| std::ptr::eq(*t, self))?;
        let indexes = INDEXES.get_or_init(|| {
            TABLES
                .iter()
                .map(|table| Index {
                    rows: table.rows.iter().enumerate().map(|(i, r)| (r.op, i)).collect(),
                    pairs: table.pairs.iter().fold(FxHashMap::default(), |mut m, p| {
                        m.entry(p.op).or_insert_with(Vec::new).push((p.reader, p.safe));
                        m
                    }),
                })
                .collect()
        });
        indexes.get(k)
    }

    /// The distance listed for the pair of `op` and `reader`, if any.
    fn pair_safe(&self, op: &str, reader: &str) -> Option<u8> {
        match self.index() {
            Some(index) => index.pairs.get(op)?.iter().find(|p| p.0 == reader).map(|p| p.1),
            None => {
                self.pairs.binary_search_by(|p| (p.op, p.reader).cmp(&(op, reader))).ok().map(|i| self.pairs[i].safe)
            }
        }
    }

    /// Cycles a fixed-latency result of `op` needs before a reader, as an
    /// ordinary source (`guard` false) or as the reader's guard; `None` for
    /// variable-latency opcodes. `safe` picks what we emit rather than what
    /// the checker demands.
    pub fn fixed_latency(&self, op: &str, guard: bool, safe: bool) -> Option<u8> {
        let pick = |b: Bound| if safe { b.safe } else { b.min };
        match self.row(op).lat {
            Lat::Fixed { raw, guard: g } => {
                Some(if guard { pick(g.unwrap_or(self.guard)).max(pick(raw)) } else { pick(raw) })
            }
            Lat::Unmeasured => Some(if safe { ori_ir::Ctrl::MAX_STALL } else { 0 }),
            Lat::Variable => None,
        }
    }

    /// Cycles we emit between a fixed-latency `op` and a reader of opcode
    /// `reader` taking the result as an ordinary source: the pair's
    /// distance where [`LatencyTable::pairs`] lists one, else the row's
    /// `safe`. `None` for variable-latency opcodes.
    pub fn reader_latency(&self, op: &str, reader: &str) -> Option<u8> {
        Some(self.fixed_latency(op, false, true)? - self.reader_saving(op, reader))
    }

    /// Cycles the pair of `op` and `reader` saves on the row's `safe`
    /// distance (0 where none is listed), looked up in the table `op`'s
    /// row comes from.
    pub fn reader_saving(&self, op: &str, reader: &str) -> u8 {
        let Some(row) = self.own_row(op) else { return self.base.map_or(0, |b| b.reader_saving(op, reader)) };
        let Lat::Fixed { raw, .. } = row.lat else { return 0 };
        self.pair_safe(op, reader).map_or(0, |safe| raw.safe.saturating_sub(safe))
    }

    /// True when `op` reads its predicate sources as early as a guard
    /// ([`LatencyTable::early_predicates`]).
    pub fn reads_predicates_early(&self, op: &str) -> bool {
        self.early_predicates.contains(&op)
    }

    /// True when `op`'s result needs a write scoreboard.
    pub fn is_variable(&self, op: &str) -> bool {
        self.row(op).lat == Lat::Variable
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_sorted_and_unique() {
        for t in TABLES {
            assert!(t.rows.windows(2).all(|w| w[0].op < w[1].op), "{} rows must stay sorted", t.family);
            assert!(
                t.pairs.windows(2).all(|w| (w[0].op, w[0].reader) < (w[1].op, w[1].reader)),
                "{} pairs must stay sorted",
                t.family
            );
            for pair in t.pairs {
                let Some(Row { lat: Lat::Fixed { raw, .. }, .. }) = t.own_row(pair.op) else {
                    panic!("{}: {pair:?} of a row not its own or not fixed", t.family)
                };
                assert!(raw.min <= pair.safe && pair.safe < raw.safe, "{}: {pair:?} against {raw:?}", t.family);
            }
            for row in t.rows {
                if let Lat::Fixed { raw, guard } = row.lat {
                    assert!(raw.min <= raw.safe, "{}: {row:?}", t.family);
                    assert!(guard.is_none_or(|g| g.min <= g.safe), "{}: {row:?}", t.family);
                }
            }
        }
    }

    #[test]
    fn every_sm_has_one_table() {
        for sm in Sm::list_arch() {
            let serving = TABLES.iter().filter(|t| t.serves.contains(&sm)).count();
            assert_eq!(serving, 1, "sm_{sm} is served by {serving} tables");
        }
    }

    #[test]
    fn lookups() {
        let t = LatencyTable::for_sm(Sm::new(80));
        assert_eq!(t.fixed_latency("IADD3", false, false), Some(4));
        assert_eq!(t.fixed_latency("ISETP", true, true), Some(13));
        assert!(t.is_variable("LDG"));
        assert!(t.is_variable("DFMA"), "double precision is variable latency on sm_80");
        assert!(t.is_variable("NOT_AN_OPCODE"));
        let t = LatencyTable::for_sm(Sm::new(90));
        assert!(!t.is_variable("DFMA"), "and fixed on sm_90");
        assert!(!t.is_variable("ULDC"));
    }
}
