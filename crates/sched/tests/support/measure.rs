//! The latency measurement: walks NVIDIA's code for one SM and finds, per
//! producer opcode, the smallest cycle distance (sum of stall counts) to
//! its first dependent reader, and the scoreboard and read-window facts
//! the table records. `cargo test -p sched --test latency -- --nocapture`
//! prints the figures.
//!
//! A distance is only taken inside one block, and only when no
//! instruction after the producer, the reader included, waits on a
//! scoreboard: a wait may hold issue for longer than the stall counts
//! say, so such a pair proves nothing about the latency.

use std::collections::BTreeMap;

use ori_ir::RegFile;
use sched::hazard::Step;
use sched::latency::{Bound, Lat, Pair, Row};
use sched::units::Unit;

use super::nvidia::Listing;

/// Smallest distance seen and how many samples gave it a bound.
#[derive(Copy, Clone, Debug, Default)]
pub struct MinOf {
    pub min: Option<u32>,
    pub samples: usize,
}

impl MinOf {
    fn add(&mut self, d: u32) {
        self.min = Some(self.min.map_or(d, |m| m.min(d)));
        self.samples += 1;
    }
}

/// What one opcode does in NVIDIA's code.
#[derive(Clone, Debug, Default)]
pub struct OpStats {
    /// Instructions with this opcode.
    pub count: usize,
    /// Of those, how many set a write / read scoreboard.
    pub wbar: usize,
    /// Of those, how many write a uniform predicate.
    pub uniform_pred: usize,
    pub rbar: usize,
    /// Distance to the first reader of the result as an ordinary source,
    /// per reader opcode, when the producer set no write scoreboard.
    pub raw: BTreeMap<String, MinOf>,
    /// The same per reader opcode and source operand (`None`: the
    /// register was not found in the operand text), for
    /// [`OpStats::pair_safe`].
    pub slots: BTreeMap<String, BTreeMap<Option<usize>, MinOf>>,
    /// Same, for readers that use a produced predicate as their guard.
    pub guard: MinOf,
    /// Distance to the first reader of a produced per-thread predicate as an
    /// ordinary source, per reader opcode: every sample (`.0`) and wait-free
    /// ones (`.1`), for the table's `early_predicates` (Blackwell's `BRA`
    /// reads a uniform predicate 9 cycles after it is written, a per-thread
    /// one never sooner than 13).
    pub pred_src: BTreeMap<String, (MinOf, MinOf)>,
    /// Distance to the first reader (ordinary or guard) counting every
    /// sample, waits in between or not: the checker only trusts stall
    /// counts, so its demands may not exceed these.
    pub raw_all: MinOf,
    /// The same per reader opcode and what it reads the result as, for
    /// spacing NVIDIA always keeps ([`spacing_findings`]).
    pub every: BTreeMap<(String, Read), MinOf>,
    pub guard_all: MinOf,
    /// Distance from setting a scoreboard to the first wait on it.
    pub sb_wait: MinOf,
    /// Variable-latency readers without a read scoreboard: distance to
    /// the first overwrite of a source.
    pub war: MinOf,
    /// Smallest non-zero stall on the opcode.
    pub stall: MinOf,
    /// For an opcode that sometimes sets a write scoreboard, instances that
    /// do not: distance to the first reader or overwriter of the result.
    pub unsignalled: MinOf,
}

impl OpStats {
    /// Smallest distance to any ordinary reader.
    pub fn raw_min(&self) -> Option<u32> {
        self.raw.values().filter_map(|m| m.min).min()
    }

    /// The distance that covers every reader opcode NVIDIA placed at least
    /// three times: the largest of their minima. A reader seen once or
    /// twice raises it by at most one cycle: such readers were mostly
    /// placed late, which says nothing, but one pipe reads one cycle after
    /// the others (`IADD3`/`LOP3`/`SEL` -> `IMAD` 5, -> anything else 4,
    /// hundreds of samples), and where NVIDIA's code has only a sample or
    /// two of that reader the extra cycle must still be kept: `VIMNMX` ->
    /// `IMAD.WIDE` after 4 cycles read a stale register on an H200
    /// (local_array), NVIDIA's one sample is 7.
    pub fn raw_safe(&self) -> Option<u32> {
        let min = self.raw_min()?;
        let covered = self.raw.values().filter(|m| m.samples >= 3).filter_map(|m| m.min).max().unwrap_or(min);
        let rare = self.raw.values().filter(|m| m.samples < 3).filter_map(|m| m.min).max().unwrap_or(min);
        Some(covered.max(min).max(rare.min(min + 1)))
    }
}

/// The distance that covers NVIDIA's practice over groups of samples: the
/// largest minimum of the groups seen at least three times, raised by at
/// most one cycle for groups seen once or twice (see [`OpStats::raw_safe`]).
/// `None` when no group is seen three times.
fn covering<'a>(groups: impl Iterator<Item = &'a MinOf> + Clone) -> Option<u32> {
    let covered = groups.clone().filter(|m| m.samples >= 3).filter_map(|m| m.min).max()?;
    let rare = groups.filter(|m| m.samples < 3).filter_map(|m| m.min).max().unwrap_or(covered);
    Some(covered.max(rare.min(covered + 1)))
}

impl OpStats {
    /// The distance to a reader of opcode `reader` that covers every
    /// source operand NVIDIA's code reads the result with (each operand's
    /// smallest distance; operands seen once or twice as in
    /// [`OpStats::raw_safe`]), when that is below [`OpStats::raw_safe`].
    /// Readers differ by a cycle or more: on sm_90 `IMAD` feeds
    /// `IADD3`/`ISETP` after 5 cycles but `IMAD` and `FFMA` after 4, while
    /// `raw_safe` must wait for its slowest reader (`CALL`, 9).
    pub fn pair_safe(&self, reader: &str) -> Option<u32> {
        let pair = covering(self.slots.get(reader)?.values())?;
        (pair < self.raw_safe()?).then_some(pair)
    }
}

/// How a reader takes a produced register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Read {
    /// A per-thread or uniform predicate as an ordinary source.
    Predicate,
    /// A register as the source operand of this index (`None`: not found
    /// in the operand text).
    Register(Option<usize>),
}

/// Everything measured for one SM.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    pub instructions: usize,
    pub ops: BTreeMap<String, OpStats>,
}

impl Measured {
    /// Over every producer: the smallest distance from setting a scoreboard
    /// to waiting on it.
    pub fn sb_visible(&self) -> Option<u32> {
        self.ops.values().filter_map(|s| s.sb_wait.min).min()
    }

    /// Over the fixed-latency producers of a per-thread predicate with at
    /// least three guarded readers: the smallest distance to such a reader
    /// (all samples), and the largest of the per-opcode minima (wait-free
    /// ones). A uniform predicate (`VOTEU`: 5 cycles) or a sometimes
    /// signalled one (`DSETP` on sm_100: 16) keeps its own row's guard.
    pub fn guard(&self) -> (Option<u32>, Option<u32>) {
        let common = || self.guard_producers();
        (common().filter_map(|s| s.guard_all.min).min(), common().filter_map(|s| s.guard.min).max())
    }

    /// The producers [`Measured::guard`] takes the family's guard from.
    pub fn guard_producers(&self) -> impl Iterator<Item = &OpStats> {
        self.ops.values().filter(|s| s.guard.samples >= 3 && s.wbar == 0 && s.uniform_pred == 0)
    }

    /// Over variable-latency results that signal no scoreboard: the
    /// smallest distance to their first reader or overwriter.
    pub fn unsignalled(&self) -> Option<u32> {
        self.ops.values().filter(|s| s.wbar > 0).filter_map(|s| s.unsignalled.min).min()
    }
}

/// Measures every listing for one of `sms`.
pub fn measure<'a>(listings: impl IntoIterator<Item = &'a Listing>, sms: &[u16]) -> Measured {
    let mut m = Measured::default();
    for program in listings.into_iter().filter(|l| sms.contains(&l.sm)).flat_map(|l| &l.programs) {
        for block in &program.blocks {
            for k in block.clone() {
                m.instructions += 1;
                let step = &program.steps[k];
                let stats = m.ops.entry(step.row_op().to_string()).or_default();
                stats.count += 1;
                stats.wbar += usize::from(step.ctrl.write_sb.is_some());
                stats.rbar += usize::from(step.ctrl.read_sb.is_some());
                stats.uniform_pred += usize::from(step.writes.iter().any(|u| u.parts().0 == RegFile::UP));
                if step.ctrl.stall > 0 {
                    stats.stall.add(u32::from(step.ctrl.stall));
                }
                let rest = &program.steps[k + 1..block.end];
                if step.ctrl.write_sb.is_none() {
                    first_reader(step, rest, stats);
                    first_touch(step, rest, &mut stats.unsignalled);
                }
                for sb in [step.ctrl.write_sb, step.ctrl.read_sb].into_iter().flatten() {
                    first_wait(step, rest, sb, &mut stats.sb_wait);
                }
                if step.ctrl.read_sb.is_none() && is_variable_reader(step) {
                    first_overwrite(step, rest, &mut stats.war);
                }
            }
        }
    }
    m
}

/// A variable-latency instruction that reads registers: it sets a write
/// scoreboard, or it is a store (no result to signal).
fn is_variable_reader(step: &Step) -> bool {
    let op = step.opcode();
    step.ctrl.write_sb.is_some() || ["ST", "STG", "STS", "STL", "RED", "REDG"].contains(&op)
}

fn first_reader(step: &Step, rest: &[Step], stats: &mut OpStats) {
    if step.writes.is_empty() {
        return;
    }
    let mut distance = u32::from(step.ctrl.stall);
    let mut waited = false;
    for next in rest {
        waited |= next.ctrl.wait != 0 || next.depbar.is_some();
        if next.guard.is_some_and(|g| step.writes.contains(&g)) {
            stats.guard_all.add(distance);
            if !waited {
                stats.guard.add(distance);
            }
            return;
        }
        if next.reads.iter().any(|u| step.writes.contains(u)) {
            if next.reads.iter().any(|u| u.parts().0 == RegFile::P && step.writes.contains(u)) {
                let (all, free) = stats.pred_src.entry(next.opcode().to_string()).or_default();
                all.add(distance);
                if !waited {
                    free.add(distance);
                }
            }
            let predicate = next.reads.iter().any(|u| u.parts().0.is_predicate() && step.writes.contains(u));
            let read = if predicate { Read::Predicate } else { Read::Register(operand_slot(next, step)) };
            stats.every.entry((next.opcode().to_string(), read)).or_default().add(distance);
            stats.raw_all.add(distance);
            if !waited {
                stats.raw.entry(next.opcode().to_string()).or_default().add(distance);
                let slot = operand_slot(next, step);
                stats.slots.entry(next.opcode().to_string()).or_default().entry(slot).or_default().add(distance);
            }
            return;
        }
        if next.writes.iter().any(|u| step.writes.contains(u)) {
            return;
        }
        distance += u32::from(next.ctrl.stall);
    }
}

/// Which source operand of `reader` (counted after its leading results in
/// nvdisasm's text) names a register `producer` writes: `IMAD R4, R2, R3,
/// R4` reading `R4` gives 2. A 64-bit operand (`R2.64`, or any of a
/// `.WIDE`/`.64`/`.128` instruction) names its pair's odd register too.
fn operand_slot(reader: &Step, producer: &Step) -> Option<usize> {
    let body = reader.text.trim_start_matches('@');
    let body = if reader.text.starts_with('@') { body.split_once(' ')?.1.trim() } else { body };
    let operands: Vec<&str> = body.split_once(' ').map_or("", |(_, o)| o).split(", ").collect();
    let wide = ["WIDE", "64", "128"].iter().any(|w| reader.mods().any(|m| m == *w));
    let names = |o: &str, units: &[Unit]| -> bool {
        o.split(|c: char| !c.is_ascii_alphanumeric()).any(|t| {
            units.iter().any(|&u| {
                let (file, n) = u.parts();
                let even = (n % 2 == 1).then(|| Unit::new(file, n - 1)).flatten();
                t == u.to_string() || ((wide || o.contains(".64")) && even.is_some_and(|e| t == e.to_string()))
            })
        })
    };
    let results = operands.iter().take_while(|o| names(o, &reader.writes)).count();
    operands[results..].iter().position(|o| names(o, &producer.writes))
}

fn first_touch(step: &Step, rest: &[Step], out: &mut MinOf) {
    let mut distance = u32::from(step.ctrl.stall);
    for next in rest {
        if next.reads.iter().chain(&next.writes).any(|u| step.writes.contains(u)) {
            out.add(distance);
            return;
        }
        distance += u32::from(next.ctrl.stall);
    }
}

fn first_wait(step: &Step, rest: &[Step], sb: u8, out: &mut MinOf) {
    let mut distance = u32::from(step.ctrl.stall);
    for next in rest {
        if next.ctrl.wait & (1 << sb) != 0 || next.depbar.is_some_and(|(s, _)| s == sb) {
            out.add(distance);
            return;
        }
        distance += u32::from(next.ctrl.stall);
    }
}

fn first_overwrite(step: &Step, rest: &[Step], out: &mut MinOf) {
    let mut distance = u32::from(step.ctrl.stall);
    for next in rest {
        if next.writes.iter().any(|u| step.reads.contains(u)) {
            out.add(distance);
            return;
        }
        distance += u32::from(next.ctrl.stall);
    }
}

/// A printable report of the measurement.
pub fn report(m: &Measured, family: &str) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "{family}: {} instructions", m.instructions);
    let _ = writeln!(
        out,
        "{:14} {:>6} {:>5} {:>5} {:>8} {:>8} {:>9} {:>8} {:>8}",
        "opcode", "count", "wbar", "rbar", "raw_min", "raw_safe", "guard_min", "sb_wait", "war_min"
    );
    let show = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
    for (op, s) in &m.ops {
        let _ = writeln!(
            out,
            "{op:14} {:>6} {:>5} {:>5} {:>8} {:>8} {:>9} {:>8} {:>8}",
            s.count,
            s.wbar,
            s.rbar,
            show(s.raw_min()),
            show(s.raw_safe()),
            show(s.guard.min),
            show(s.sb_wait.min),
            show(s.war.min)
        );
    }
    let (gmin, gsafe) = m.guard();
    let _ = writeln!(
        out,
        "guard: min {} safe {}; scoreboard visible after {}; unsignalled variable results read after {}",
        show(gmin),
        show(gsafe),
        show(m.sb_visible()),
        show(m.unsignalled())
    );
    out
}

/// The table rows the measurement implies, sorted by opcode.
pub fn implied_rows(m: &Measured) -> Vec<Row> {
    let guard_safe = m.guard().1.unwrap_or(15) as u8;
    m.ops
        .iter()
        .map(|(op, s)| {
            let lat = if s.wbar > 0 {
                Lat::Variable
            } else if let Some(min) = s.raw_all.min {
                let safe = s.raw_safe().map_or(min.max(15), |v| v.max(min).min(15).max(min));
                let guard = s.guard_all.min.map(|all| {
                    let g = s.guard.min.unwrap_or(guard_safe as u32);
                    let g = if s.guard.samples >= 3 { g } else { g.max(guard_safe as u32) };
                    Bound::new(all as u8, g.max(all) as u8)
                });
                Lat::Fixed { raw: Bound::new(min as u8, safe as u8), guard }
            } else {
                Lat::Unmeasured
            };
            Row { op: op.clone().leak(), lat, min_stall: s.stall.min.unwrap_or(1) as u8 }
        })
        .collect()
}

/// The reader pairs the measurement implies for `rows` (its own rows),
/// sorted by producer then reader.
pub fn implied_pairs(m: &Measured, rows: &[Row]) -> Vec<Pair> {
    let mut pairs = Vec::new();
    for row in rows {
        let Lat::Fixed { raw, .. } = row.lat else { continue };
        let stats = &m.ops[row.op];
        for reader in stats.slots.keys() {
            let Some(safe) = stats.pair_safe(reader).map(|p| p.max(u32::from(raw.min)) as u8) else { continue };
            if safe < raw.safe {
                pairs.push(Pair { op: row.op, reader: reader.clone().leak(), safe });
            }
        }
    }
    pairs
}

/// A pair as the Rust source of `src/latency/sm*.rs` writes it.
pub fn pair_source(pair: &Pair) -> String {
    format!("pair(\"{}\", \"{}\", {}),", pair.op, pair.reader, pair.safe)
}

/// A row as the Rust source of `src/latency/sm*.rs` writes it.
pub fn row_source(row: &Row) -> String {
    let b = |b: Bound| format!("Bound::new({}, {})", b.min, b.safe);
    let lat = match row.lat {
        Lat::Variable => "Lat::Variable".to_string(),
        Lat::Unmeasured => "Lat::Unmeasured".to_string(),
        Lat::Fixed { raw, guard } => {
            let guard = guard.map_or("None".to_string(), |g| format!("Some({})", b(g)));
            format!("Lat::Fixed {{ raw: {}, guard: {guard} }}", b(raw))
        }
    };
    format!("row(\"{}\", {lat}, {}),", row.op, row.min_stall)
}

/// Reader classes (producer, reader opcode, how it reads) seen at least
/// `samples` times whose smallest distance in NVIDIA's code, over every
/// sample, is above the distance `table` makes us emit: either a latency
/// the table lacks, or a habit of NVIDIA's scheduler. Producers of fixed
/// latency only (variable ones are waited for).
pub fn spacing_findings(m: &Measured, table: &sched::latency::LatencyTable, samples: usize) -> Vec<String> {
    let mut out = Vec::new();
    for (op, stats) in &m.ops {
        if !matches!(table.row(op).lat, Lat::Fixed { .. }) {
            continue;
        }
        for ((reader, read), seen) in &stats.every {
            let Some(min) = seen.min.filter(|_| seen.samples >= samples) else { continue };
            let ours = match read {
                Read::Predicate if table.reads_predicates_early(reader) => table.fixed_latency(op, true, true),
                _ => table.reader_latency(op, reader),
            };
            let Some(ours) = ours.map(u32::from) else { continue };
            if min > ours {
                out.push(format!(
                    "{op} -> {reader} ({read:?}): NVIDIA never sooner than {min} cycles ({} samples), ours {ours}",
                    seen.samples
                ));
            }
        }
    }
    out
}
