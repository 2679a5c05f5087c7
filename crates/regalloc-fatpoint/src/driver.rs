//! The allocation driver: the seed's NOSPILL attempts, then spill rounds.
//!
//! Each round computes live ranges from scratch and tries the assignment
//! orders in turn; the first that fits every file within its limit wins
//! (the definition order first, as it usually needs the fewest registers).
//! When none fits, the registers the priority order could not place are
//! spilled (being the cheapest per point, they are what the seed's spill
//! guidance would pick), and the round starts again on the new code. Spill
//! temporaries are never spilled again, so each round spills registers of
//! the original code and the rounds end.

use cfg::{VReg, VRegSpace};
use fixedbitset::FixedBitSet;
use ori_ir::function::allocated_registers;
use ori_ir::{Function, PhaseError, Reg, RegFile, Target};

use crate::assign::{Assignment, Order, assign};
use crate::constants::remat_constants;
use crate::limits::allocatable;
use crate::points::LiveRanges;
use crate::remat::remat_predicates;
use crate::spill::{SpillStats, spill, spill_predicates, spillable};

/// How the allocator may proceed.
#[derive(Copy, Clone, Debug)]
pub struct Options {
    /// The register limit (the count ptxas would report at most), see
    /// [`crate::register_limit`].
    pub limit: u32,
    /// Assignment orders tried before spilling (1 or 2; the seed's
    /// `RegAllocNumNonSpillTrials`).
    pub no_spill_trials: u32,
}

/// A virtual register's physical register: the result of [`allocate`].
#[derive(Clone, Debug)]
pub struct Allocation {
    space: VRegSpace,
    /// First physical register, by bit of `space`.
    first: Vec<Option<u32>>,
    /// Registers handed out per file (one past the highest).
    pub used: [u32; RegFile::ALL.len()],
    /// Spill code inserted.
    pub spill: SpillStats,
    /// Rounds of spilling that were needed.
    pub spill_rounds: u32,
}

impl Allocation {
    /// An allocation given register by register, for tests of the
    /// checker.
    #[cfg(test)]
    pub(crate) fn from_pairs(func: &Function, pairs: &[(Reg, u32)]) -> Allocation {
        let space = VRegSpace::of(func);
        let mut first = vec![None; space.len()];
        for &(reg, num) in pairs {
            first[space.bit(VReg::of(reg).expect("virtual")).expect("of the function")] = Some(num);
        }
        Allocation { space, first, used: [0; RegFile::ALL.len()], spill: SpillStats::default(), spill_rounds: 0 }
    }

    /// The physical register for `reg` when it is virtual (same file and
    /// width; a part of a tuple becomes the registers it covers), `None`
    /// for a physical register or one the allocation does not cover.
    pub fn physical(&self, reg: Reg) -> Option<Reg> {
        let bit = self.space.bit(VReg::of(reg)?)?;
        let word = u32::from(reg.word.unwrap_or(0));
        self.first[bit].map(|num| Reg::phys(reg.file, num + word).wide(reg.width))
    }
}

/// `a`, or a tighter complete assignment when `a` uses more R registers
/// than the pressure bound (the peak's words, plus `R1`): the widest-first
/// order, then the split order (`Order::Split`) under ceilings rising
/// from the bound, the first that fits under one below the best so far.
/// Then the split order with two levels of eviction (`Order::SplitDeep`),
/// taken only when it lowers the registers the SM sets aside (whole
/// granules; `reserved` counts in the reported registers): its moves
/// reuse registers the later scheduler would have used to overlap loads
/// (vec_loads sm_90: 23 -> 22 registers but estimated cycles 0.995 ->
/// 1.642 NVIDIA's). Only one with fewer R registers replaces `a`, so this
/// never costs a register.
fn tighter(lr: &LiveRanges, a: Assignment, limits: &[u32; 5], scratch_first: bool, reserved: u32) -> Assignment {
    let r = RegFile::R.index();
    let bound = lr.r_peak().0 + 1;
    if a.used[r] <= bound {
        return a;
    }
    let no_temps = FixedBitSet::with_capacity(lr.vregs.len());
    let wide = assign(lr, limits, Order::WideFirst, &no_temps, scratch_first);
    let mut best = if wide.failed.is_empty() && wide.used[r] < a.used[r] { wide } else { a };
    for ceiling in split_ceilings(bound, best.used[r]) {
        let split = assign(lr, limits, Order::Split(ceiling), &no_temps, scratch_first);
        if split.failed.is_empty() && split.used[r] < best.used[r] {
            best = split;
            break;
        }
    }
    let granule = |used: u32| allocated_registers(used + reserved);
    for ceiling in split_ceilings(bound, best.used[r]) {
        if granule(ceiling) >= granule(best.used[r]) {
            break;
        }
        let deep = assign(lr, limits, Order::SplitDeep(ceiling), &no_temps, scratch_first);
        if deep.failed.is_empty() && granule(deep.used[r]) < granule(best.used[r]) {
            return deep;
        }
    }
    best
}

/// Split-order attempts per function at most: each is one more pass of
/// the assignment.
const SPLIT_TRIALS: u32 = 8;

/// The ceilings the split order tries, rising from `bound` to below
/// `used`: every one when there are few, else `SPLIT_TRIALS` spread evenly.
fn split_ceilings(bound: u32, used: u32) -> impl Iterator<Item = u32> {
    let gap = used.saturating_sub(bound);
    let tries = gap.min(SPLIT_TRIALS);
    (0..tries).map(move |i| bound + i * gap / tries.max(1))
}

/// Rounds of spilling before giving up; each spills at least one register
/// of the original code, and real functions need one or two.
const MAX_SPILL_ROUNDS: u32 = 64;

/// Finds a physical register for every virtual register of `func`,
/// inserting spill code into `func` where the limit requires it. `func`
/// keeps its virtual registers; [`crate::rewrite`] applies the result.
pub fn allocate(func: &mut Function, target: &Target, options: Options) -> Result<Allocation, PhaseError> {
    if cfg::Cfg::compute(func).has_unknown_targets() {
        return Err(PhaseError::in_function(func, "cannot allocate registers: an indirect branch has unknown targets"));
    }
    let limits = RegFile::ALL.map(|f| allocatable(f, target, options.limit));
    let mut stats = SpillStats::default();
    let mut temps: Vec<VReg> = Vec::new();
    // Widest first also before spilling: under a limit, the definition
    // order may fail only for want of an aligned block.
    // The split order under the limit last before spilling: it may fit
    // where fragmentation defeats the other two.
    let split = Order::Split(limits[RegFile::R.index()]);
    let orders: &[Order] = if options.no_spill_trials >= 2 {
        &[Order::Definition, Order::WideFirst, split, Order::Priority]
    } else {
        &[Order::Priority]
    };
    let scratch_first = func.kind == ori_ir::FunctionKind::Func;
    let trial = |lr: &LiveRanges| {
        let no_temps = FixedBitSet::with_capacity(lr.vregs.len());
        let mut placed = orders.iter().map(|&order| assign(lr, &limits, order, &no_temps, scratch_first));
        placed.find(|a| a.failed.is_empty()).map(|a| tighter(lr, a, &limits, scratch_first, target.reserved_regs))
    };
    let (lr, placed) = remat_constants(func, &trial);
    if let Some(a) = placed {
        return Ok(finish(lr.space, a, stats, 0));
    }
    let mut first = Some(lr);
    for round in 0..=MAX_SPILL_ROUNDS {
        let lr = first.take().unwrap_or_else(|| LiveRanges::compute(func));
        let mut temp_bits = FixedBitSet::with_capacity(lr.vregs.len());
        for &t in &temps {
            temp_bits.extend(lr.space.bit(t));
        }
        let mut last = None;
        for &order in orders {
            let a = assign(&lr, &limits, order, &temp_bits, scratch_first);
            if a.failed.is_empty() {
                let a =
                    if temps.is_empty() { tighter(&lr, a, &limits, scratch_first, target.reserved_regs) } else { a };
                return Ok(finish(lr.space, a, stats, round));
            }
            last = Some(a);
        }
        let a = last.expect("at least one order");
        let mut to_spill = Vec::new();
        let mut preds = Vec::new();
        for &bit in &a.failed {
            let v = lr.space.vreg(bit);
            let width = lr.vregs[bit].width;
            if temp_bits.contains(bit) {
                return Err(failure(func, options.limit, v, width));
            } else if v.file == RegFile::P {
                preds.push(v);
            } else if spillable(v.file, width) {
                to_spill.push((v, width));
            } else {
                return Err(failure(func, options.limit, v, width));
            }
        }
        // Recomputing a compare costs no register: while some qualify, the
        // predicates that fail are made room for that way (one round at a
        // time, as many as failed), and only then moved to R registers.
        let remat =
            if preds.is_empty() { Vec::new() } else { remat_predicates(func, &lr, &temp_bits, &preds, preds.len()) };
        if remat.is_empty() {
            temps.extend(spill_predicates(func, &preds));
        }
        temps.extend(remat);
        temps.extend(spill(func, &to_spill, &mut stats));
    }
    Err(PhaseError::in_function(
        func,
        format!("Register allocation failed with register count of '{}': spilling did not converge", options.limit),
    ))
}

fn finish(space: VRegSpace, a: Assignment, spill: SpillStats, rounds: u32) -> Allocation {
    Allocation { space, first: a.first, used: a.used, spill, spill_rounds: rounds }
}

/// ptxas's message when allocation fails, with the register that could
/// not be placed and why nothing could be done about it.
fn failure(func: &Function, limit: u32, v: VReg, width: u8) -> PhaseError {
    let why = match v.file {
        RegFile::R if width == 3 => "96-bit values are not spilled".to_string(),
        RegFile::R | RegFile::P => "even its spill temporaries do not fit".to_string(),
        file => format!("{file:?} registers are not spilled"),
    };
    PhaseError::in_function(
        func,
        format!(
            "Register allocation failed with register count of '{limit}'. Compile the program with a higher register target ({v}: {why})"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::Sm;

    fn run(text: &str, limit: u32) -> Result<Allocation, PhaseError> {
        let mut func = ori_ir::text::parse_function(text).unwrap();
        allocate(&mut func, &Sm::new(90).target(), Options { limit, no_spill_trials: 2 })
    }

    #[test]
    fn eight_live_predicates_spill_one_to_a_general_register() {
        // The compares read %r1, dead by the time the predicates are read:
        // none can be made again there.
        let mut text = String::from(".entry k {\nbb0:\n    %r0 = S2R SR_TID.X\n    %r1 = S2R SR_TID.Y\n");
        for p in 0..8 {
            text += &format!("    %p{p}, PT = ISETP.LT.AND %r1, {p:#x}, PT\n");
        }
        for p in 0..8 {
            text += &format!("    @%p{p} STG.E [%r2.64], %r0\n");
        }
        text += "    EXIT\n}\n";
        let mut func = ori_ir::text::parse_function(&text).unwrap();
        let a = allocate(&mut func, &Sm::new(90).target(), Options { limit: 255, no_spill_trials: 2 }).unwrap();
        assert_eq!(a.used[RegFile::P.index()], 7);
        assert!(a.spill_rounds >= 1);
        assert_eq!(a.spill, SpillStats::default(), "no memory traffic for a predicate");
        let printed = ori_ir::text::print_function(&func);
        // Each spilled predicate: one write, one read.
        let spilled = printed.matches("SEL RZ, 0x1, !").count();
        assert!((1..=a.spill_rounds as usize).contains(&spilled), "{printed}");
        assert_eq!(printed.matches("ISETP.NE.U32.AND").count(), spilled, "{printed}");
        crate::check_allocation(&func, &a).unwrap();
        let seven =
            text.replace("    %p7, PT = ISETP.LT.AND %r1, 0x7, PT\n", "").replace("    @%p7 STG.E [%r2.64], %r0\n", "");
        let a = run(&seven, 255).unwrap();
        assert_eq!((a.used[RegFile::P.index()], a.spill_rounds), (7, 0));
    }

    #[test]
    fn compares_whose_sources_stay_live_are_made_again() {
        let mut text = String::from(".entry k {\nbb0:\n    %r0 = S2R SR_TID.X\n");
        for p in 0..8 {
            text += &format!("    %p{p}, PT = ISETP.LT.AND %r0, {p:#x}, PT\n");
        }
        for p in 0..8 {
            text += &format!("    @%p{p} STG.E [%r2.64], %r0\n");
        }
        text += "    EXIT\n}\n";
        let mut func = ori_ir::text::parse_function(&text).unwrap();
        let a = allocate(&mut func, &Sm::new(90).target(), Options { limit: 255, no_spill_trials: 2 }).unwrap();
        let printed = ori_ir::text::print_function(&func);
        assert_eq!(printed.matches("SEL RZ, 0x1, !").count(), 0, "{printed}");
        // The cheapest predicate is computed again just before its reader,
        // the original compare gone.
        assert_eq!(printed.matches("ISETP.LT.AND").count(), 8, "{printed}");
        assert_eq!(a.used[RegFile::P.index()], 7);
        assert_eq!(a.used[RegFile::R.index()], 4, "R0, R2-R3: no general register for a predicate");
        crate::check_allocation(&func, &a).unwrap();
    }

    #[test]
    fn eight_live_uniform_predicates_are_an_error() {
        let mut text = String::from(".entry k {\nbb0:\n    %r0 = S2R SR_TID.X\n");
        for p in 0..8 {
            text += &format!("    %up{p}, UPT = UISETP.LT.AND %ur0, {p:#x}, UPT\n");
        }
        for p in 0..8 {
            text += &format!("    @%up{p} STG.E [%r2.64], %r0\n");
        }
        text += "    EXIT\n}\n";
        let err = run(&text, 255).unwrap_err();
        assert!(err.message.contains("UP registers are not spilled"), "{err}");
    }

    #[test]
    fn indirect_branches_without_targets_are_refused() {
        let err = run(".entry k {\nbb0:\n    %r0 = S2R SR_TID.X\n    BRX %r0\n}\n", 255).unwrap_err();
        assert!(err.message.contains("unknown targets"), "{err}");
    }

    #[test]
    fn spilling_reports_rounds_and_bytes() {
        let mut text = String::from(".entry k {\nbb0:\n    %r0.64 = LDC.64 c[0x0][0x210]\n");
        for i in 0..24 {
            text += &format!("    %r{} = LDG.E [%r0.64+{:#x}]\n", 10 + i, 4 * i);
        }
        for i in 0..24 {
            text += &format!("    STG.E [%r0.64], %r{}\n", 10 + i);
        }
        text += "    EXIT\n}\n";
        let no_spill = run(&text, 255).unwrap();
        assert_eq!((no_spill.spill, no_spill.spill_rounds), (SpillStats::default(), 0));
        let a = run(&text, 24).unwrap();
        assert!(a.spill_rounds >= 1 && a.spill.spilled >= 4, "{a:?}");
        assert_eq!(a.spill.store_bytes, 4 * a.spill.spilled, "one store per spilled value");
        assert_eq!(a.spill.load_bytes, 4 * a.spill.spilled, "one load per read");
        assert!(a.used[RegFile::R.index()] <= 22);
    }
}
