//! Generated functions: straight segments, diamonds and loops over a pool
//! of live values of one, two and four words, allocated under several
//! register limits. Every allocation is checked by `check_allocation`,
//! rewritten and verified; without spills the register count is compared
//! with the pressure (a lower bound), and the figures quoted in
//! `docs/regalloc.md` come from here (`--nocapture`, release build).

use std::fmt::Write;
use std::time::Instant;

use ori_ir::text::parse_function;
use ori_ir::{Function, Property, PropertySet, RegFile, Sm, verify_function};
use regalloc_fatpoint::{Options, allocate, check_allocation, registers_used, rewrite};

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Writes a function whose live values stay around `pressure` registers.
struct Gen {
    rng: Rng,
    text: String,
    next_r: u32,
    next_p: u32,
    next_block: u32,
    /// Live values: (number, width).
    pool: Vec<(u32, u8)>,
    pressure: usize,
}

impl Gen {
    fn new(seed: u64, pressure: usize) -> Gen {
        let mut g = Gen {
            rng: Rng(seed | 1),
            text: String::from(".entry generated {\nbb0:\n"),
            next_r: 4,
            next_p: 0,
            next_block: 1,
            pool: vec![(0, 2), (2, 1)],
            pressure,
        };
        g.line("%r0.64 = LDC.64 c[0x0][0x210]");
        g.line("%r2 = S2R SR_TID.X");
        g
    }

    fn line(&mut self, s: &str) {
        let _ = writeln!(self.text, "    {s}");
    }

    fn reg(num: u32, width: u8) -> String {
        match width {
            1 => format!("%r{num}"),
            w => format!("%r{num}.{}", u32::from(w) * 32),
        }
    }

    /// A live value of `width`, retired from the pool when the pool is
    /// over the pressure (this read is then its last).
    fn operand(&mut self, width: u8) -> String {
        let candidates: Vec<usize> = (0..self.pool.len()).filter(|&i| self.pool[i].1 == width).collect();
        let i = candidates[self.rng.below(candidates.len())];
        let (num, w) = self.pool[i];
        if self.pool.len() > self.pressure && num != 0 && num != 2 {
            self.pool.swap_remove(i);
        }
        Gen::reg(num, w)
    }

    fn fresh(&mut self, width: u8) -> u32 {
        let num = self.next_r;
        self.next_r += 4;
        self.pool.push((num, width));
        num
    }

    fn inst(&mut self) {
        match self.rng.below(10) {
            0 => {
                let a = self.operand(1);
                let d = self.fresh(2);
                self.line(&format!("{} = IMAD.WIDE {a}, 0x4, %r0.64", Gen::reg(d, 2)));
            }
            1 => {
                let (d, offset) = (self.fresh(4), 16 * self.rng.below(64));
                self.line(&format!("{} = LDG.E.128 [%r0.64+0x{offset:x}]", Gen::reg(d, 4)));
            }
            2 if self.pool.iter().any(|p| p.1 == 4 && p.0 != 0) => {
                let q = self.operand(4);
                self.line(&format!("STG.E.128 [%r0.64], {q}"));
            }
            3 if self.pool.iter().filter(|p| p.1 == 2).count() > 1 => {
                let p = self.operand(2);
                let d = self.fresh(1);
                self.line(&format!("{} = LDG.E [{p}]", Gen::reg(d, 1)));
            }
            _ => {
                let (a, b) = (self.operand(1), self.operand(1));
                let d = self.fresh(1);
                self.line(&format!("{} = IADD3 {a}, {b}, RZ", Gen::reg(d, 1)));
            }
        }
    }

    fn label(&mut self) -> u32 {
        self.next_block += 1;
        self.next_block - 1
    }

    fn block(&mut self, name: u32) {
        let _ = writeln!(self.text, "bb{name}:");
    }

    fn predicate(&mut self) -> u32 {
        let p = self.next_p;
        self.next_p += 1;
        let a = self.operand(1);
        self.line(&format!("%p{p}, PT = ISETP.LT.AND {a}, 0x10, PT"));
        p
    }

    /// Both arms redefine one live value, which the join then reads.
    fn diamond(&mut self, len: usize) {
        let (else_, join) = (self.label(), self.label());
        let then = self.label();
        let p = self.predicate();
        let target = self.operand(1);
        // Written on both arms, live only after the join.
        let merged = self.next_r;
        self.next_r += 4;
        self.line(&format!("@%p{p} BRA bb{else_}"));
        self.block(then);
        let saved = self.pool.clone();
        for _ in 0..len {
            self.inst();
        }
        let a = self.operand(1);
        self.line(&format!("{} = IADD3 {a}, {target}, RZ", Gen::reg(merged, 1)));
        self.line(&format!("BRA bb{join}"));
        self.pool = saved.clone();
        self.block(else_);
        for _ in 0..len {
            self.inst();
        }
        let a = self.operand(1);
        self.line(&format!("{} = IADD3 {a}, {target}, RZ", Gen::reg(merged, 1)));
        self.pool = saved;
        self.pool.push((merged, 1));
        self.block(join);
    }

    /// A loop whose body updates an accumulator and a counter carried
    /// around the back edge.
    fn looped(&mut self, len: usize) {
        let head = self.label();
        let acc = self.fresh(1);
        let counter = self.fresh(1);
        self.line(&format!("{} = MOV 0x0", Gen::reg(acc, 1)));
        self.line(&format!("{} = MOV 0x0", Gen::reg(counter, 1)));
        self.block(head);
        let saved = self.pool.clone();
        for _ in 0..len {
            self.inst();
        }
        let a = self.operand(1);
        self.line(&format!("{} = IADD3 {}, {a}, RZ", Gen::reg(acc, 1), Gen::reg(acc, 1)));
        self.line(&format!("{} = IADD3 {}, 0x1, RZ", Gen::reg(counter, 1), Gen::reg(counter, 1)));
        let p = self.next_p;
        self.next_p += 1;
        self.line(&format!("%p{p}, PT = ISETP.LT.AND {}, 0x20, PT", Gen::reg(counter, 1)));
        self.line(&format!("@%p{p} BRA bb{head}"));
        // Values made in the body are not live around the back edge.
        self.pool = saved;
        let next = self.label();
        self.block(next);
    }

    fn finish(mut self) -> Function {
        for (num, width) in std::mem::take(&mut self.pool) {
            match width {
                4 => self.line(&format!("STG.E.128 [%r0.64], {}", Gen::reg(num, 4))),
                2 => self.line(&format!("STG.E.64 [%r0.64], {}", Gen::reg(num, 2))),
                _ => self.line(&format!("STG.E [%r0.64], {}", Gen::reg(num, 1))),
            }
        }
        self.line("EXIT");
        self.text.push_str("}\n");
        parse_function(&self.text).unwrap_or_else(|e| panic!("{e}\n{}", self.text))
    }
}

fn generate(seed: u64, pressure: usize, regions: usize) -> Function {
    let mut g = Gen::new(seed, pressure);
    for _ in 0..regions {
        let len = 3 + g.rng.below(12);
        match g.rng.below(3) {
            0 => (0..len).for_each(|_| g.inst()),
            1 => g.diamond(len),
            _ => g.looped(len),
        }
    }
    g.finish()
}

/// The most 32-bit words live at once: what any allocation needs at
/// least (alignment and R1 can only add).
fn pressure(func: &Function) -> u32 {
    let cfg = cfg::Cfg::compute(func);
    let live = cfg::Liveness::compute(func, &cfg);
    let mut widths = std::collections::HashMap::new();
    for (_, _, inst) in func.insts_in_order() {
        for r in inst.read_regs().chain(inst.written_regs()).filter(|r| r.is_virtual) {
            widths.insert((r.file, r.num), u32::from(r.width));
        }
    }
    let words = |set: &cfg::RegSet| -> u32 {
        set.iter().filter(|v| v.file == RegFile::R).map(|v| widths[&(v.file, v.num)]).sum()
    };
    let mut most = 0;
    for &block in &func.layout {
        let mut set = live.live_out(block).clone();
        most = most.max(words(&set));
        for &i in func.blocks[block].insts.iter().rev() {
            live.transfer(&func.insts[i], &mut set);
            most = most.max(words(&set));
        }
    }
    most
}

/// Allocates, checks, rewrites and verifies; returns (registers used,
/// spilled values, spill rounds, seconds allocating).
fn run(mut func: Function, limit: u32) -> (u32, u32, u32, f64) {
    let target = Sm::new(90).target();
    let start = Instant::now();
    let alloc = allocate(&mut func, &target, Options { limit, no_spill_trials: 2 })
        .unwrap_or_else(|e| panic!("{e}\n{}", ori_ir::text::print_function(&func)));
    let seconds = start.elapsed().as_secs_f64();
    if let Err(e) = check_allocation(&func, &alloc) {
        panic!("{e}\n{}", ori_ir::text::print_function(&func));
    }
    rewrite(&mut func, &alloc);
    if let Err(e) = verify_function(&func, PropertySet::of(&[Property::PhysicalRegs])) {
        panic!("{e:?}");
    }
    let used = registers_used(&func, &target);
    assert!(used <= limit.max(target.min_regs), "{used} registers over the limit {limit}");
    (used, alloc.spill.spilled, alloc.spill_rounds, seconds)
}

#[test]
fn random_functions_allocate_correctly_under_every_limit() {
    let mut worst_gap = 0;
    for seed in 1..=60u64 {
        let pressure_target = 6 + (seed as usize * 7) % 40;
        let func = generate(seed, pressure_target, 12);
        let lower = pressure(&func);
        let (used, spilled, _, _) = run(func.clone(), 255);
        assert_eq!(spilled, 0);
        // used = highest + 1 + 2 reserved; R1 costs one more register.
        let gap = used - (lower + 1 + 2);
        eprintln!("seed {seed}: pressure {lower}, used {used}, gap {gap}");
        worst_gap = worst_gap.max(gap);
        assert!(gap <= lower / 4 + 3, "seed {seed}: {used} registers for a pressure of {lower}");
        for limit in [24, 32, 40] {
            let (used, spilled, _, _) = run(func.clone(), limit);
            assert!(used <= limit);
            if lower + 3 + gap <= limit {
                assert_eq!(spilled, 0, "seed {seed}: spilled under {limit} with pressure {lower}");
            }
        }
    }
    println!("worst gap over the pressure bound: {worst_gap} registers");
}

#[test]
fn large_function_figures() {
    // The 30,000-instruction case takes seconds unoptimised; it runs in
    // release builds (`cargo test --release ... -- --nocapture`).
    let sizes: &[(usize, usize)] = if cfg!(debug_assertions) { &[(200, 40)] } else { &[(200, 40), (2000, 60)] };
    for &(regions, pressure_target) in sizes {
        let func = generate(7, pressure_target, regions);
        let insts = func.inst_count();
        let lower = pressure(&func);
        let (used, spilled, rounds, seconds) = run(func.clone(), 255);
        println!(
            "{insts} instructions, pressure {lower}: {used} registers, {spilled} spilled in {rounds} rounds, {:.1} ms",
            seconds * 1e3
        );
        let (used, spilled, rounds, seconds) = run(func, 64);
        println!("  limit 64: {used} registers, {spilled} spilled in {rounds} rounds, {:.1} ms", seconds * 1e3);
    }
}
