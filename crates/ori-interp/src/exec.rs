//! Executes prepared instructions for the lanes of a thread group.

use ori_ir::{OperandFlags, SpecialReg};

use crate::in_flight::InFlight;
use crate::kind::{AtomOp, HalfOp, ImadMode, Kind, PairOp, ShflMode, Space};
use crate::memory::{Global, flat_mut, load_le, store_le};
use crate::program::{Loc, Program, Src, Step};
use crate::sem::async_mem::{ClusterState, SHARED_WINDOW_HI};
use crate::sem::imma::Imma;
use crate::sem::{cmp, dround, float, half, int, minifloat, mma, mufu};
use crate::warp::{LANES, Warp};

/// What one CTA's warps share.
pub struct Cta<'a> {
    /// The program.
    pub prog: &'a Program,
    /// Constant banks by number (bank 0: driver area and parameters).
    pub banks: &'a [Vec<u8>],
    /// Global memory.
    pub global: &'a mut Global,
    /// Shared memory of each CTA of the cluster, by rank.
    pub shared: Vec<Vec<u8>>,
    /// Shared bytes that asynchronous copies will write and have not yet.
    pub in_flight: InFlight,
    /// The rank in its cluster of the CTA whose warp runs (`SR_CgaCtaId`).
    pub rank: usize,
    /// Cluster barrier and mbarrier state (`sem/async_mem.rs`).
    pub cluster: ClusterState,
    /// `%ctaid` of the CTA whose warp runs.
    pub ctaid: [u32; 3],
    /// Bytes of local memory per thread.
    pub local_bytes: usize,
    /// Instructions executed (per warp, per thread).
    pub warp_insts: u64,
    /// Lane-instructions executed.
    pub thread_insts: u64,
    /// Issue cycles of the instructions executed ([`crate::Stats::issue_cycles`]).
    pub issue_cycles: u64,
    /// Estimated cycles of the instructions executed ([`crate::Stats::est_cycles`]).
    pub est_cycles: u64,
    /// `vprintf` output so far.
    pub printf: Vec<String>,
    /// Barrier reductions of each CTA of the cluster, by rank.
    pub bar_red: Vec<BarReduction>,
}

/// A CTA's barrier reduction (`BAR.RED`): what the warps waiting at the
/// barrier brought, and the result of the last release (`B2R.RESULT`).
#[derive(Copy, Clone, Debug, Default)]
pub struct BarReduction {
    pub arrived: Reduction,
    pub result: Reduction,
}

/// Lanes counted by a barrier reduction.
#[derive(Copy, Clone, Debug)]
pub struct Reduction {
    /// Lanes whose predicate held.
    pub count: u32,
    /// Whether it held for every lane, for some lane.
    pub all: bool,
    pub any: bool,
    /// `.AND` (else `.OR` or `.POPC`): which verdict `B2R` gives.
    pub and: bool,
}

impl Default for Reduction {
    fn default() -> Self {
        Reduction { count: 0, all: true, any: false, and: false }
    }
}

impl BarReduction {
    /// The barrier releases: what arrived becomes the result.
    pub fn release(&mut self) {
        self.result = std::mem::take(&mut self.arrived);
    }
}

/// Why a step could not complete.
pub enum Stop {
    /// The group reached a `BAR.SYNC`.
    Barrier,
    /// The group cannot go on before other warps do (`UCGABAR_WAIT`, an
    /// mbarrier wait); the instruction did not run.
    Blocked,
    /// A fault or an unmodelled instruction: the message.
    Fault(String),
}

pub(crate) type R<T> = Result<T, Stop>;

/// The return-address register of calls (`R20:R21`).
const RETURN_ADDRESS: u32 = ori_ir::abi::CUDA.return_address.num;

/// Warps an SM holds at once, as `SR_VIRTCFG` tells them.
const WARP_SLOTS: u32 = 64;

pub(crate) fn fault<T>(msg: impl Into<String>) -> R<T> {
    Err(Stop::Fault(msg.into()))
}

pub(crate) fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..LANES).filter(move |l| mask >> l & 1 != 0)
}

impl Cta<'_> {
    fn special(&self, w: &Warp, sr: SpecialReg, lane: usize) -> R<u32> {
        let lt = (1u32 << lane).wrapping_sub(1);
        Ok(match sr {
            SpecialReg::LaneId => lane as u32,
            SpecialReg::TidX => w.tid[lane][0],
            SpecialReg::TidY => w.tid[lane][1],
            SpecialReg::TidZ => w.tid[lane][2],
            SpecialReg::CtaidX => self.ctaid[0],
            SpecialReg::CtaidY => self.ctaid[1],
            SpecialReg::CtaidZ => self.ctaid[2],
            SpecialReg::CgaCtaId => self.rank as u32,
            SpecialReg::SmId | SpecialReg::VirtualSmId | SpecialReg::VirtId | SpecialReg::Zero => 0,
            // Bits 8..15: the SM's warp slots (`%nwarpid`, NVIDIA's sm_90+
            // code); the interpreter models 64, the count NVIDIA's sm_80
            // code has as a constant.
            SpecialReg::VirtCfg => WARP_SLOTS << 8,
            SpecialReg::LtMask => lt,
            SpecialReg::LeMask => lt | 1 << lane,
            SpecialReg::GtMask => !(lt | 1 << lane),
            SpecialReg::GeMask => !lt,
            SpecialReg::EqMask => 1 << lane,
            SpecialReg::ClockLo | SpecialReg::GlobalTimerLo => self.warp_insts as u32,
            SpecialReg::ClockHi | SpecialReg::GlobalTimerHi => (self.warp_insts >> 32) as u32,
            SpecialReg::SwinHi => SHARED_WINDOW_HI,
            // The CTA's shared memory, the driver's reserve included.
            SpecialReg::SmemSz => self.shared.get(self.rank).map_or(0, Vec::len) as u32,
        })
    }

    fn cbank(&self, bank: u8, addr: i64, bytes: usize) -> R<u64> {
        let space = self.banks.get(usize::from(bank)).map(Vec::as_slice).unwrap_or(&[]);
        match usize::try_from(addr).ok().and_then(|a| space.get(a..a + bytes)) {
            Some(b) => Ok(load_le(b)),
            None => fault(format!("constant bank {bank} read of {bytes} bytes at {addr:#x} out of bounds")),
        }
    }

    /// Operand `i` of `step` in `lane`, `words` 32-bit words wide, raw.
    pub(crate) fn val(&self, w: &Warp, step: &Step, i: usize, lane: usize, words: u32) -> R<u64> {
        let Some((src, _)) = step.uses.get(i) else { return fault(format!("operand {i} missing")) };
        match *src {
            Src::Reg(loc, _) => {
                let lo = u64::from(w.get(loc, lane));
                Ok(if words > 1 { lo | u64::from(w.get_word(loc, 1, lane)) << 32 } else { lo })
            }
            Src::Imm(v) => Ok(v),
            Src::CBank { bank, reg, offset } => {
                let base = reg.map_or(0, |r| i64::from(w.get(r, lane) as i32));
                self.cbank(bank, base + offset, 4 * words as usize)
            }
            Src::Special(sr) => self.special(w, sr, lane).map(u64::from),
            Src::PredFile => {
                Ok((0..7u32).fold(0, |m, i| m | u64::from(w.get(Loc::Slot(ori_ir::RegFile::P, i), lane)) << i))
            }
            _ => fault(format!("operand {i} is not a value")),
        }
    }

    /// The words of tuple operand `i` in `lane` (`RZ` reads as zeros).
    fn words(&self, w: &Warp, step: &Step, i: usize, lane: usize, out: &mut [u32]) -> R<()> {
        match step.uses.get(i) {
            Some((Src::Reg(loc, _), _)) => {
                for (k, v) in out.iter_mut().enumerate() {
                    *v = w.get_word(*loc, k as u32, lane);
                }
                Ok(())
            }
            _ => fault(format!("operand {i} is not a register tuple")),
        }
    }

    pub(crate) fn u32v(&self, w: &Warp, step: &Step, i: usize, lane: usize) -> R<u32> {
        self.val(w, step, i, lane, 1).map(|v| v as u32)
    }

    fn flags(step: &Step, i: usize) -> OperandFlags {
        step.uses.get(i).map(|u| u.1).unwrap_or_default()
    }

    /// An integer operand with `-x` and `~x` applied (33-bit for IADD3).
    fn int_in(&self, w: &Warp, step: &Step, i: usize, lane: usize) -> R<u64> {
        let v = self.u32v(w, step, i, lane)?;
        let f = Self::flags(step, i);
        let v = if f.bitnot { !v } else { v };
        Ok(if f.neg { int::negated(v) } else { u64::from(v) })
    }

    /// A 64-bit integer operand (a pair, or an immediate sign-extended
    /// from 32 bits) with `-x` and `~x` applied, as a 65-bit addend.
    fn int64_in(&self, w: &Warp, step: &Step, i: usize, lane: usize) -> R<u128> {
        let v = match step.uses.get(i) {
            Some((Src::Imm(v), _)) => i64::from(*v as i32) as u64,
            _ => self.val(w, step, i, lane, 2)?,
        };
        let f = Self::flags(step, i);
        let v = if f.bitnot { !v } else { v };
        Ok(if f.neg { u128::from(!v) + 1 } else { u128::from(v) })
    }

    /// A binary32 operand with `|x|` and `-x` applied.
    fn f_in(&self, w: &Warp, step: &Step, i: usize, lane: usize) -> R<u32> {
        let f = Self::flags(step, i);
        Ok(float::modify(self.u32v(w, step, i, lane)?, f.abs, f.neg))
    }

    /// A predicate operand with `!p` applied.
    pub(crate) fn p_in(&self, w: &Warp, step: &Step, i: usize, lane: usize) -> R<bool> {
        Ok((self.u32v(w, step, i, lane)? != 0) != Self::flags(step, i).not)
    }

    /// Sum of the predicate operands from `from` on (carry-ins).
    fn carries(&self, w: &Warp, step: &Step, from: usize, lane: usize) -> R<u64> {
        let mut c = 0;
        for i in from..step.uses.len() {
            if matches!(step.uses[i].0, Src::Reg(Loc::Slot(f, _) | Loc::Zero(f), _) if f.is_predicate()) {
                c += u64::from(self.p_in(w, step, i, lane)?);
            }
        }
        Ok(c)
    }

    /// Writes a value result (to the register defs, widest first word
    /// first) and predicate results (to the predicate defs, in order).
    pub(crate) fn write(w: &mut Warp, step: &Step, lane: usize, v: u64, preds: &[bool]) {
        let mut pi = 0;
        for &(loc, width) in &step.defs {
            let file = match loc {
                Loc::Zero(f) | Loc::Slot(f, _) => f,
            };
            if file.is_predicate() {
                if let Some(&p) = preds.get(pi) {
                    w.set(loc, lane, u32::from(p));
                }
                pi += 1;
            } else {
                w.set(loc, lane, v as u32);
                if width > 1 {
                    w.set_word(loc, 1, lane, (v >> 32) as u32);
                }
            }
        }
    }

    /// One lane of an ALU instruction: the value and predicate results.
    fn alu(&self, w: &Warp, step: &Step, lane: usize) -> R<(u64, [bool; 2])> {
        let no = [false; 2];
        let u = |i| self.u32v(w, step, i, lane);
        Ok(match step.kind {
            Kind::Mov => (u64::from(u(0)?), no),
            Kind::S2r => {
                let wide = step.defs.first().is_some_and(|d| d.1 > 1);
                (if wide { 0 } else { u64::from(u(0)?) }, no)
            }
            Kind::Ldc => {
                let words = step.defs.first().map_or(1, |d| u32::from(d.1));
                (self.val(w, step, 0, lane, words)?, no)
            }
            Kind::Iadd { sources, x, wide: false } => {
                let mut sum = 0;
                for i in 0..sources {
                    sum += self.int_in(w, step, i, lane)?;
                }
                let cin = if x { self.carries(w, step, sources, lane)? } else { 0 };
                let (r, carry) = int::iadd3(sum, 0, 0, cin);
                (u64::from(r), [carry & 1 != 0 || carry > 1, carry > 1])
            }
            Kind::Iadd { sources, x, wide: true } => {
                let mut sum = 0u128;
                for i in 0..sources {
                    sum += self.int64_in(w, step, i, lane)?;
                }
                let cin = if x { self.carries(w, step, sources, lane)? } else { 0 };
                let sum = sum + u128::from(cin);
                let carry = sum >> 64;
                (sum as u64, [carry & 1 != 0 || carry > 1, carry > 1])
            }
            Kind::Mov64 => (self.val(w, step, 0, lane, 2)?, no),
            Kind::Viadd => {
                let (a, b) = (self.int_in(w, step, 0, lane)?, self.int_in(w, step, 1, lane)?);
                (u64::from(int::iadd3(a, b, 0, 0).0), no)
            }
            Kind::Qspc(space) => {
                let a = self.addr(w, step, 0, lane, Space::Generic)?;
                (0, [self.generic_space(a) == space, false])
            }
            Kind::Viadd16x2 => {
                if (0..2).any(|i| Self::flags(step, i).neg) {
                    return fault("VIADD.16x2 of a negated source is not modelled");
                }
                let (a, b) = (self.int_in(w, step, 0, lane)?, self.int_in(w, step, 1, lane)?);
                let half = |k: u32| ((a >> k) as u16).wrapping_add((b >> k) as u16);
                (u64::from(half(0)) | u64::from(half(16)) << 16, no)
            }
            Kind::Viaddmnmx { signed } => {
                let (a, b) = (self.int_in(w, step, 0, lane)?, self.int_in(w, step, 1, lane)?);
                let sum = int::iadd3(a, b, 0, 0).0;
                (int::imnmx(u64::from(sum), u64::from(u(2)?), self.p_in(w, step, 3, lane)?, signed, false), no)
            }
            Kind::Imad { mode, x } => {
                let (a, b) = (u(0)?, u(1)?);
                let cf = Self::flags(step, 2);
                match mode {
                    ImadMode::Wide { signed } => {
                        let c = self.val(w, step, 2, lane, 2)?;
                        let c = if cf.neg { c.wrapping_neg() } else { c };
                        let cin = if x { self.carries(w, step, 3, lane)? } else { 0 };
                        let p = u128::from(int::imad_wide(a, b, 0, signed));
                        let sum = p + u128::from(c) + u128::from(cin);
                        (sum as u64, [sum >> 64 != 0, false])
                    }
                    ImadMode::Hi { signed } => {
                        // The addend is the register pair c:c+1 (the decoder
                        // prints it as one register): `hi(a * b + pair)`,
                        // which the division sequences use as `x + hi(x * e)`.
                        // A constant-bank addend is a pair too: NVIDIA's sm_80
                        // `mad.hi.u32 d, a, b, 1` is `IMAD.HI.U32 d, a, b,
                        // c[0x2][0x8]` over the literal pool's `0, 1` there.
                        let words =
                            if matches!(step.uses.get(2), Some((Src::Reg(..) | Src::CBank { .. }, _))) { 2 } else { 1 };
                        let c = self.val(w, step, 2, lane, words)?;
                        let c = if cf.neg { c.wrapping_neg() } else { c };
                        // The carry out of the 64-bit sum (`IMAD.HI.U32 R8, P1, ...`
                        // in NVIDIA's 64-bit division) is the predicate result.
                        let carry = !signed && u128::from(a) * u128::from(b) + u128::from(c) > u128::from(u64::MAX);
                        ((int::imad_wide(a, b, c, signed) >> 32) & 0xffff_ffff, [carry, false])
                    }
                    ImadMode::Lo => {
                        let c = self.int_in(w, step, 2, lane)?;
                        let cin = if x { self.carries(w, step, 3, lane)? } else { 0 };
                        let p = u64::from(a.wrapping_mul(b));
                        let sum = p + c + cin;
                        (sum & 0xffff_ffff, [sum >> 32 != 0, false])
                    }
                }
            }
            Kind::Lop3 => {
                let (a, b, c) = (
                    self.int_in(w, step, 0, lane)? as u32,
                    self.int_in(w, step, 1, lane)? as u32,
                    self.int_in(w, step, 2, lane)? as u32,
                );
                let r = int::lop3(a, b, c, u(3)? as u8);
                let pin = self.p_in(w, step, 4, lane).unwrap_or(false);
                (u64::from(r), [(r != 0) || pin, false])
            }
            Kind::Plop3 => {
                let idx = u32::from(self.p_in(w, step, 0, lane)?) << 2
                    | u32::from(self.p_in(w, step, 1, lane)?) << 1
                    | u32::from(self.p_in(w, step, 2, lane)?);
                (0, [u(3)? >> idx & 1 != 0, u(4)? >> idx & 1 != 0])
            }
            Kind::P2r { byte } => {
                let shift = 8 * u32::from(byte);
                let mask = (u(2)? & 0x7f) << shift;
                let pr = (u(0)? & 0x7f) << shift;
                (u64::from((u(1)? & !mask) | (pr & mask)), no)
            }
            Kind::Shf { left, signed, wide, high, wrap } => {
                let s = if wrap { u(1)? & 31 } else { u(1)? };
                (u64::from(int::shf(u(0)?, u(2)?, s, left, signed, wide, high)), no)
            }
            Kind::Brev => (u64::from(u(0)?.reverse_bits()), no),
            Kind::Vabsdiff4 => {
                let (a, b) = (u(0)?.to_le_bytes(), u(1)?.to_le_bytes());
                (u64::from(u32::from_le_bytes(std::array::from_fn(|i| a[i].abs_diff(b[i])))), no)
            }
            Kind::Vabsdiff4Acc => {
                let (a, b) = (u(0)?.to_le_bytes(), u(1)?.to_le_bytes());
                let sum: u32 = (0..4).map(|i| u32::from(a[i].abs_diff(b[i]))).sum();
                (u64::from(u(2)?.wrapping_add(sum)), no)
            }
            Kind::Idp { two, hi, a_signed, b_signed } => {
                (u64::from(int::idp(u(0)?, u(1)?, u(2)?, two, hi, a_signed, b_signed)), no)
            }
            Kind::Sgxt { signed, wrap } => {
                (u64::from(int::sgxt(u(0)?, if wrap { u(1)? & 31 } else { u(1)? }, signed)), no)
            }
            Kind::I2iSat { signed, bits } => (u64::from(int::i2i_sat(u(0)?, signed, bits)), no),
            Kind::Bmsk { wrap } => (u64::from(int::bmsk(u(0)?, u(1)?, wrap)), no),
            Kind::Vabsdiff { signed } => {
                let (a, b) = (u(0)?, u(1)?);
                let d = if signed { (a as i32).abs_diff(b as i32) } else { a.abs_diff(b) };
                let c = if step.uses.len() > 2 { u(2)? } else { 0 };
                (u64::from(d.wrapping_add(c)), no)
            }
            Kind::Lea { hi: false, .. } => {
                let cin = self.carries(w, step, 3, lane)? as u32;
                // `-b` (bit 63, NVIDIA's `LEA.HI R6, R5, -R6, RZ, 0x8`) is
                // the two's complement word.
                let b = self.int_in(w, step, 1, lane)? as u32;
                let (r, c) = int::lea(self.int_in(w, step, 0, lane)? as u32, b, u(2)?, cin);
                (u64::from(r), [c, false])
            }
            Kind::Lea { hi: true, sx32, .. } => {
                let a = self.int_in(w, step, 0, lane)? as u32;
                let (c, s, from) = if sx32 {
                    (((a as i32) >> 31) as u32, u(2)?, 3)
                } else {
                    (self.int_in(w, step, 2, lane)? as u32, u(3)?, 4)
                };
                let cin = self.carries(w, step, from, lane)? as u32;
                (u64::from(int::lea_hi(a, self.int_in(w, step, 1, lane)? as u32, c, s, cin)), no)
            }
            Kind::Prmt { mode: None } => (u64::from(int::prmt(u(0)?, u(1)?, u(2)?)), no),
            Kind::Prmt { mode: Some(mode) } => (u64::from(int::prmt_mode(u(0)?, u(1)?, u(2)?, mode)), no),
            Kind::Imnmx { signed, wide: false } => {
                (int::imnmx(u64::from(u(0)?), u64::from(u(1)?), self.p_in(w, step, 2, lane)?, signed, false), no)
            }
            Kind::ImnmxRelu { signed } => {
                let m = int::imnmx(u64::from(u(0)?), u64::from(u(1)?), self.p_in(w, step, 2, lane)?, signed, false);
                (if (m as u32 as i32) < 0 { 0 } else { m }, no)
            }
            Kind::Vimnmx16x2 { signed, relu } => {
                let (a, b, min) = (u(0)?, u(1)?, self.p_in(w, step, 2, lane)?);
                let half = |k: u32| {
                    let (x, y) = ((a >> k) as u16, (b >> k) as u16);
                    let less = if signed { (x as i16) < (y as i16) } else { x < y };
                    let m = if less == min { x } else { y };
                    if relu && (m as i16) < 0 { 0 } else { m }
                };
                (u64::from(half(0)) | u64::from(half(16)) << 16, no)
            }
            Kind::Imnmx { signed, wide: true } => {
                let (a, b) = (self.int64_in(w, step, 0, lane)? as u64, self.int64_in(w, step, 1, lane)? as u64);
                (int::imnmx(a, b, self.p_in(w, step, 2, lane)?, signed, true), no)
            }
            Kind::Iabs => (u64::from((u(0)? as i32).unsigned_abs()), no),
            Kind::Popc => (u64::from(self.int_in(w, step, 0, lane)?.count_ones()), no),
            Kind::Flo { signed, sh } => (u64::from(int::flo(self.int_in(w, step, 0, lane)? as u32, signed, sh)), no),
            Kind::Isetp { cmp, op, signed, wide, ex } => {
                let low = if ex { Some(self.p_in(w, step, 3, lane)?) } else { None };
                let (a, b) = if wide {
                    (self.int64_in(w, step, 0, lane)? as u64, self.int64_in(w, step, 1, lane)? as u64)
                } else {
                    (u64::from(u(0)?), u64::from(u(1)?))
                };
                let c = cmp::icmp(cmp, a, b, signed, wide, low);
                let (p, q) = cmp::setp(c, op, self.p_in(w, step, 2, lane)?);
                (0, [p, q])
            }
            Kind::Fsetp { cmp, op, ftz } => {
                let ord = float::fcmp(self.f_in(w, step, 0, lane)?, self.f_in(w, step, 1, lane)?, ftz);
                let (p, q) = cmp::setp(cmp.test(ord), op, self.p_in(w, step, 2, lane)?);
                (0, [p, q])
            }
            Kind::Sel { wide: false } => {
                let pick = if self.p_in(w, step, 2, lane)? { 0 } else { 1 };
                (u64::from(self.f_in(w, step, pick, lane)?), no)
            }
            Kind::Sel { wide: true } => {
                let pick = if self.p_in(w, step, 2, lane)? { 0 } else { 1 };
                (self.int64_in(w, step, pick, lane)? as u64, no)
            }
            Kind::Fadd { ftz, rnd, sat } => {
                let r = float::fadd(self.f_in(w, step, 0, lane)?, self.f_in(w, step, 1, lane)?, ftz, rnd);
                (u64::from(float::saturate(r, sat)), no)
            }
            Kind::Fmul { ftz, rnd, sat, scale } => {
                let (a, b) = (self.f_in(w, step, 0, lane)?, self.f_in(w, step, 1, lane)?);
                let r =
                    if scale == 0 { float::fmul(a, b, ftz, rnd) } else { float::fmul_scaled(a, b, scale, ftz, rnd) };
                (u64::from(float::saturate(r, sat)), no)
            }
            Kind::Ffma { ftz, rnd, sat } => {
                let (a, b, c) =
                    (self.f_in(w, step, 0, lane)?, self.f_in(w, step, 1, lane)?, self.f_in(w, step, 2, lane)?);
                (u64::from(float::saturate(float::ffma(a, b, c, ftz, rnd), sat)), no)
            }
            Kind::Fpair { op, ftz, rnd } => {
                let sources = match op {
                    PairOp::Add | PairOp::Mul => 2,
                    PairOp::Fma => 3,
                };
                let mut v = [[0u32; 2]; 3];
                for (i, words) in v.iter_mut().enumerate().take(sources) {
                    let f = Self::flags(step, i);
                    // A scalar source serves both words: one register
                    // (`-R2.F32`) or an f32 immediate (`FMUL2 R4,
                    // R4.F32x2.HI_LO, 4.6566e-10`); a pair gives each word
                    // its own (`.F32x2.HI_LO`).
                    let scalar =
                        f.halves == Some(ori_ir::Halves::F32) || matches!(step.uses.get(i), Some((Src::Imm(_), _)));
                    let pair = if scalar {
                        let x = self.val(w, step, i, lane, 1)? & 0xffff_ffff;
                        x | x << 32
                    } else {
                        self.val(w, step, i, lane, 2)?
                    };
                    *words = [pair as u32, (pair >> 32) as u32].map(|x| float::modify(x, f.abs, f.neg));
                }
                let word = |k: usize| match op {
                    PairOp::Add => float::fadd(v[0][k], v[1][k], ftz, rnd),
                    PairOp::Mul => float::fmul(v[0][k], v[1][k], ftz, rnd),
                    PairOp::Fma => float::ffma(v[0][k], v[1][k], v[2][k], ftz, rnd),
                };
                (u64::from(word(0)) | u64::from(word(1)) << 32, no)
            }
            Kind::Frnd { rnd, f64: false } => (
                u64::from((float::frnd(f64::from(f32::from_bits(self.f_in(w, step, 0, lane)?)), rnd) as f32).to_bits()),
                no,
            ),
            Kind::Frnd { rnd, f64: true } => {
                (float::frnd(f64::from_bits(self.d_in(w, step, 0, lane)?), rnd).to_bits(), no)
            }
            Kind::I2f64 { signed, bits, rnd } => {
                let v = self.val(w, step, 0, lane, if bits == 64 { 2 } else { 1 })?;
                (float::i2d(float::extend(v, bits, signed), rnd).to_bits(), no)
            }
            Kind::Dsetp { cmp, op } => {
                let (a, b) =
                    (f64::from_bits(self.d_in(w, step, 0, lane)?), f64::from_bits(self.d_in(w, step, 1, lane)?));
                let (p, q) = cmp::setp(cmp.test(a.partial_cmp(&b)), op, self.p_in(w, step, 2, lane)?);
                (0, [p, q])
            }
            Kind::DsetpMinMax { max, op } => {
                let (a, b) =
                    (f64::from_bits(self.d_in(w, step, 0, lane)?), f64::from_bits(self.d_in(w, step, 1, lane)?));
                let c = self.p_in(w, step, 2, lane)?;
                let pick_a = match (a.is_nan(), b.is_nan()) {
                    (true, _) => false,
                    (false, true) => true,
                    _ if a == b => a.is_sign_negative() != max,
                    _ => (a < b) != max,
                };
                let both_nan = a.is_nan() && b.is_nan();
                (0, [cmp::setp(pick_a, op, c).0, cmp::setp(both_nan, op, c).0])
            }
            Kind::Fchk => (0, [float::fchk(u(0)?, u(1)?), false]),
            Kind::Fmnmx { ftz } => {
                let min = self.p_in(w, step, 2, lane)?;
                (u64::from(float::fmnmx(self.f_in(w, step, 0, lane)?, self.f_in(w, step, 1, lane)?, min, ftz)), no)
            }
            Kind::Fmnmx3 { ftz } => {
                let min = self.p_in(w, step, 3, lane)?;
                let ab = float::fmnmx(self.f_in(w, step, 0, lane)?, self.f_in(w, step, 1, lane)?, min, ftz);
                (u64::from(float::fmnmx(ab, self.f_in(w, step, 2, lane)?, min, ftz)), no)
            }
            Kind::Half2 { op, bf16 } => {
                let mut next = 0;
                let mut lanes = [[0f64; 2]; 3];
                let count = match op {
                    HalfOp::Fma => 3,
                    _ => 2,
                };
                for l in lanes.iter_mut().take(count) {
                    *l = self.half_lanes(w, step, &mut next, lane, bf16)?;
                }
                let min = op == HalfOp::MinMax && self.p_in(w, step, next, lane)?;
                let one = |k: usize| -> u16 {
                    let [a, b, c] = [lanes[0][k], lanes[1][k], lanes[2][k]];
                    let exact = match op {
                        HalfOp::Add => a + b,
                        HalfOp::Mul => a * b,
                        HalfOp::Fma => a * b + c,
                        HalfOp::MinMax => return half::min_max(a, b, min, bf16),
                    };
                    if bf16 { half::bf16_from_f64(exact) } else { half::from_f64(exact) }
                };
                (u64::from(u32::from(one(0)) | u32::from(one(1)) << 16), no)
            }
            Kind::Hsetp2 { cmp, op, bf16 } => {
                let mut next = 0;
                let a = self.half_lanes(w, step, &mut next, lane, bf16)?;
                let b = self.half_lanes(w, step, &mut next, lane, bf16)?;
                let acc = self.p_in(w, step, next, lane)?;
                let test = |k: usize| cmp::setp(cmp.test(a[k].partial_cmp(&b[k])), op, acc).0;
                (0, [test(0), test(1)])
            }
            Kind::Hset2 { cmp, op } => {
                let mut next = 0;
                let a = self.half_lanes(w, step, &mut next, lane, false)?;
                let b = self.half_lanes(w, step, &mut next, lane, false)?;
                let acc = self.p_in(w, step, next, lane)?;
                // binary16 1.0 where the lane's test holds.
                let one =
                    |k: usize| if cmp::setp(cmp.test(a[k].partial_cmp(&b[k])), op, acc).0 { 0x3c00u32 } else { 0 };
                (u64::from(one(1) << 16 | one(0)), no)
            }
            Kind::F2f16 => (u64::from(half::from_f64(f64::from_bits(self.val(w, step, 0, lane, 2)?))), no),
            Kind::F2fp { bf16, rz, relu } => {
                let format = if bf16 { minifloat::BF16 } else { minifloat::F16 };
                let mode = if rz { float::Round::Zero } else { float::Round::Nearest };
                let round = |x: u32| {
                    let x = f32::from_bits(x);
                    let h = minifloat::convert(x, format, mode, false);
                    if relu { minifloat::relu(h, format, x) } else { h }
                };
                let (hi, lo) = (round(self.f_in(w, step, 0, lane)?), round(self.f_in(w, step, 1, lane)?));
                (u64::from(hi << 16 | lo), no)
            }
            Kind::F2fpMerge { bf16, rnd } => {
                let format = if bf16 { minifloat::BF16 } else { minifloat::F16 };
                let lo = minifloat::convert(f32::from_bits(self.f_in(w, step, 0, lane)?), format, rnd, false);
                (u64::from((self.u32v(w, step, 1, lane)? & 0xffff) << 16 | lo), no)
            }
            Kind::F2fNarrow { bf16, rnd } => {
                let format = if bf16 { minifloat::BF16 } else { minifloat::F16 };
                (u64::from(minifloat::convert(f32::from_bits(self.f_in(w, step, 0, lane)?), format, rnd, false)), no)
            }
            Kind::F2f64From16 => (f64::from(half::to_f32(self.u32v(w, step, 0, lane)? as u16)).to_bits(), no),
            Kind::Fp8Pack { e4m3, relu } => {
                let format = if e4m3 { minifloat::E4M3 } else { minifloat::E5M2 };
                let round = |x: u32| {
                    let x = f32::from_bits(x);
                    let b = minifloat::convert(x, format, float::Round::Nearest, true);
                    if relu { minifloat::relu(b, format, x) } else { b }
                };
                let (hi, lo) = (round(self.f_in(w, step, 0, lane)?), round(self.f_in(w, step, 1, lane)?));
                (u64::from(self.u32v(w, step, 2, lane)? << 16 | hi << 8 | lo), no)
            }
            Kind::Fp8Unpack { e4m3, relu } => {
                let v = self.u32v(w, step, 0, lane)?;
                let pair = if Self::flags(step, 0).halves == Some(ori_ir::Halves::H1) { v >> 16 } else { v };
                let convert = |b: u32| {
                    let h = half::fp8_to_f16(b as u8, e4m3)?;
                    Some(if relu && h & 0x8000 != 0 { 0 } else { h })
                };
                match (convert(pair & 0xff), convert((pair >> 8) & 0xff)) {
                    (Some(lo), Some(hi)) => (u64::from(u32::from(hi) << 16 | u32::from(lo)), no),
                    _ => return fault("F2FP.UNPACK_B of an E4M3 NaN (its binary16 result is not known)"),
                }
            }
            Kind::Hadd2F32 => {
                // Operand `*next` as binary32: a register's selected half,
                // or an immediate pair's low half (`HADD2.F32 R0, R9.H0_H0,
                // 1, 1`, Turing's `(float)(h + 1)`).
                let lane_f32 = |next: &mut usize| -> R<f32> {
                    let i = *next;
                    if matches!(step.uses.get(i), Some((Src::Imm(_), _))) {
                        return Ok(self.half_lanes(w, step, next, lane, false)?[0] as f32);
                    }
                    *next += 1;
                    let f = Self::flags(step, i);
                    // An f32 source (`HADD2.F32 R0, -RZ, R2.F32`) is not
                    // modelled: refuse it rather than read a half of it.
                    if f.halves == Some(ori_ir::Halves::F32) {
                        return fault("HADD2.F32 with an `.F32` source");
                    }
                    let v = self.u32v(w, step, i, lane)?;
                    let h = if f.halves == Some(ori_ir::Halves::H1H1) { (v >> 16) as u16 } else { v as u16 };
                    let x = half::to_f32(if f.abs { h & 0x7fff } else { h });
                    Ok(if f.neg { -x } else { x })
                };
                let mut next = 0;
                let a = lane_f32(&mut next)?;
                (u64::from((a + lane_f32(&mut next)?).to_bits()), no)
            }
            Kind::I2f { signed, bits, rnd } => {
                let v = self.val(w, step, 0, lane, if bits == 64 { 2 } else { 1 })?;
                // `I2F.S16 d, R.H1` converts the high half (NVIDIA's
                // `cvt.rn.f32.s16` of a `.v2.s16` load's second element).
                let v = if Self::flags(step, 0).halves == Some(ori_ir::Halves::H1) { v >> 16 } else { v };
                (u64::from(float::i2f(float::extend(v, bits, signed), rnd)), no)
            }
            Kind::I2f16 { signed, bits, rnd } => {
                let v = self.val(w, step, 0, lane, if bits == 64 { 2 } else { 1 })?;
                (u64::from(float::i2h(float::extend(v, bits, signed), rnd)), no)
            }
            Kind::B2r => {
                let r = self.bar_red[self.rank].result;
                (u64::from(r.count), [if r.and { r.all } else { r.any }, false])
            }
            Kind::F2ipU8 { rnd } => (float::f2i(self.f_in(w, step, 1, lane)?, false, 8, rnd, false), no),
            Kind::F2i { signed, bits, rnd, ftz, from64: false } => {
                (float::f2i(self.f_in(w, step, 0, lane)?, signed, bits, rnd, ftz), no)
            }
            Kind::F2i { signed, bits, rnd, from64: true, .. } => {
                (float::f64_to_int(f64::from_bits(self.d_in(w, step, 0, lane)?), signed, bits, rnd), no)
            }
            Kind::F2f64 => (f64::from(f32::from_bits(self.f_in(w, step, 0, lane)?)).to_bits(), no),
            Kind::F2f32 { rnd } => {
                (u64::from(float::round_to_f32(f64::from_bits(self.d_in(w, step, 0, lane)?), rnd).to_bits()), no)
            }
            Kind::Dadd { rnd } => {
                let (a, c) = (self.d_in(w, step, 0, lane)?, self.d_in(w, step, 1, lane)?);
                (dround::dfma_rounded(a, 1.0f64.to_bits(), Some(c), rnd), no)
            }
            Kind::Dmul { rnd } => {
                (dround::dfma_rounded(self.d_in(w, step, 0, lane)?, self.d_in(w, step, 1, lane)?, None, rnd), no)
            }
            Kind::Dfma { rnd } => {
                let (a, b, c) =
                    (self.d_in(w, step, 0, lane)?, self.d_in(w, step, 1, lane)?, self.d_in(w, step, 2, lane)?);
                (dround::dfma_rounded(a, b, Some(c), rnd), no)
            }
            Kind::Mufu(func) => match mufu::mufu(func, self.f_in(w, step, 0, lane)?)
                .or_else(|| mufu::mufu64h(func, u(0).unwrap_or(0)))
            {
                Some(r) => (u64::from(r), no),
                None => return fault(format!("MUFU.{func} is not modelled")),
            },
            Kind::MufuHalf { func, bf16 } => {
                let v = self.u32v(w, step, 0, lane)?;
                let h = if Self::flags(step, 0).halves == Some(ori_ir::Halves::H1) { v >> 16 } else { v };
                match mufu::mufu_half(func, h as u16, bf16) {
                    Some(r) => (u64::from(r), no),
                    None => return fault(format!("MUFU.{func} of a half is not modelled")),
                }
            }
            _ => return fault("not an ALU operation"),
        })
    }

    /// The two lanes (low, high) of the packed half-precision source that
    /// starts at operand `*next`, as f64 (exact), with `|x|`, `-x` and a
    /// `.H0_H0`/`.H1_H1` selection applied; an immediate pair (two operands,
    /// high half first, as binary32 values) counts as one source.
    fn half_lanes(&self, w: &Warp, step: &Step, next: &mut usize, lane: usize, bf16: bool) -> R<[f64; 2]> {
        let i = *next;
        let f = Self::flags(step, i);
        let to_f64 =
            |h: u16| if bf16 { f64::from(f32::from_bits(u32::from(h) << 16)) } else { f64::from(half::to_f32(h)) };
        let (lo, hi) = match step.uses.get(i).map(|s| &s.0) {
            Some(Src::Imm(h)) => {
                let l = self.val(w, step, i + 1, lane, 1)?;
                *next += 2;
                let word = |bits: u32| f64::from(f32::from_bits(bits));
                (word(l as u32), word(*h as u32))
            }
            _ => {
                let v = self.u32v(w, step, i, lane)?;
                *next += 1;
                let (lo, hi) = (v as u16, (v >> 16) as u16);
                let (lo, hi) = match f.halves {
                    Some(ori_ir::Halves::H0H0) => (lo, lo),
                    Some(ori_ir::Halves::H1H1) => (hi, hi),
                    Some(h @ (ori_ir::Halves::H1 | ori_ir::Halves::F32x2HiLo | ori_ir::Halves::F32)) => {
                        return fault(format!("a packed half-precision source with `{}`", h.suffix()));
                    }
                    None => (lo, hi),
                };
                (to_f64(lo), to_f64(hi))
            }
        };
        let m = |x: f64| {
            let x = if f.abs { x.abs() } else { x };
            if f.neg { -x } else { x }
        };
        Ok([m(lo), m(hi)])
    }

    /// A binary64 operand with `|x|` and `-x` applied.
    fn d_in(&self, w: &Warp, step: &Step, i: usize, lane: usize) -> R<u64> {
        let f = Self::flags(step, i);
        let v = self.val(w, step, i, lane, 2)?;
        let v = if f.abs { v & !(1 << 63) } else { v };
        Ok(if f.neg { v ^ 1 << 63 } else { v })
    }

    /// The address operand `i` in `lane`. Global and generic addresses are
    /// 64-bit (`.E`): a one-register base stands for a pair even where
    /// nvdisasm prints one register (`ATOMG.E.CAS PT, R3, [R6], ...`)
    /// unless it is zero-extended (`[R8.U32+UR4]`), and a uniform base is
    /// a pair (Turing's `[UR4]`, `[R2.64+UR8]`: `ULDC.64 UR8` loads it).
    pub(crate) fn addr(&self, w: &Warp, step: &Step, i: usize, lane: usize, space: Space) -> R<u64> {
        let Some((Src::Mem { base, ubase, offset, scale, base_u32 }, _)) = step.uses.get(i) else {
            return fault("missing address operand");
        };
        let wide = matches!(space, Space::Global | Space::Generic);
        let pair = |loc: Loc| u64::from(w.get(loc, lane)) | u64::from(w.get_word(loc, 1, lane)) << 32;
        let b = match *base {
            Some((loc @ Loc::Slot(ori_ir::RegFile::R, _), width)) if width == 2 || (wide && !base_u32) => pair(loc),
            Some((loc, _)) => u64::from(w.get(loc, lane)),
            None => 0,
        };
        let ub = match *ubase {
            Some(loc) if wide => pair(loc),
            Some(loc) => u64::from(w.get(loc, lane)),
            None => 0,
        };
        Ok(b.wrapping_mul(*scale).wrapping_add(ub).wrapping_add(*offset as u64))
    }

    /// The state space a generic address reaches, as [`Self::bytes_mut`]
    /// resolves it: the local window, the cluster's shared window
    /// (`SHARED_WINDOW_HI` above bit 32), else global memory.
    fn generic_space(&self, addr: u64) -> Space {
        if (crate::LOCAL_WINDOW..crate::LOCAL_WINDOW + self.local_bytes as u64).contains(&addr) {
            Space::Local
        } else if addr >> 32 == u64::from(SHARED_WINDOW_HI) {
            Space::Shared
        } else {
            Space::Global
        }
    }

    pub(crate) fn bytes_mut<'m>(
        &'m mut self,
        local: &'m mut Vec<u8>,
        space: Space,
        addr: u64,
        len: usize,
        lane: usize,
    ) -> R<&'m mut [u8]> {
        let local_window = crate::LOCAL_WINDOW..crate::LOCAL_WINDOW + self.local_bytes as u64;
        let (space, addr) = match space {
            Space::Generic if local_window.contains(&addr) => (Space::Local, addr - crate::LOCAL_WINDOW),
            Space::Generic => (Space::Global, addr),
            other => (other, addr),
        };
        // A CTA's own shared memory is its window of the cluster's (the
        // rank in bits 24-31 on sm_90); generic addresses reach the
        // cluster's through `SR_SWINHI`.
        let window = match space {
            Space::Shared => self.cluster_shared(addr).filter(|w| w.0 == self.rank),
            Space::Global if addr >> 32 == u64::from(SHARED_WINDOW_HI) => self.cluster_shared(addr & 0xffff_ffff),
            _ => None,
        };
        if let Some((rank, off)) = window {
            self.in_flight.check(rank, off, len).or_else(fault)?;
        }
        let found = match space {
            _ if window.is_some() => window.and_then(|(rank, off)| flat_mut(&mut self.shared[rank], off, len)),
            Space::Global | Space::Generic => self.global.slice_mut(addr, len),
            Space::Shared => None,
            Space::Local => {
                if local.is_empty() {
                    local.resize(self.local_bytes, 0);
                }
                flat_mut(local, addr, len)
            }
        };
        match found {
            Some(b) => Ok(b),
            None => fault(format!("{space:?} access of {len} bytes at {addr:#x} out of bounds (lane {lane})")),
        }
    }

    /// `vprintf(format, args)` for `lane`: the generic pointers in `R4:R5`
    /// and `R6:R7`; the result (0) in `R4`.
    fn vprintf(&mut self, w: &mut Warp, lane: usize) -> R<()> {
        let pair = |w: &Warp, r: u32| {
            let loc = Loc::Slot(ori_ir::RegFile::R, r);
            u64::from(w.get_word(loc, 0, lane)) | u64::from(w.get_word(loc, 1, lane)) << 32
        };
        let (fmt_at, args_at) = (pair(w, 4), pair(w, 6));
        let mut local = std::mem::take(&mut w.local[lane]);
        let string = |this: &mut Self, local: &mut Vec<u8>, at: u64| -> Option<Vec<u8>> {
            let mut s = Vec::new();
            while s.len() < 1 << 16 {
                let b = this.bytes_mut(local, Space::Generic, at + s.len() as u64, 1, lane).ok()?[0];
                if b == 0 {
                    return Some(s);
                }
                s.push(b);
            }
            None
        };
        let text = string(self, &mut local, fmt_at).and_then(|format| {
            let mut strings = Vec::new();
            let mut args = Vec::new();
            // Read the arguments and strings first (the closures below
            // cannot borrow memory while formatting borrows them).
            let mut probe_at = 0u64;
            while probe_at < 4096 {
                match self.bytes_mut(&mut local, Space::Generic, args_at + probe_at, 1, lane) {
                    Ok(b) => args.push(b[0]),
                    Err(_) => break,
                }
                probe_at += 1;
            }
            let arg = |at: u64, n: usize| {
                let b = args.get(at as usize..at as usize + n)?;
                Some(b.iter().rev().fold(0u64, |v, &x| v << 8 | u64::from(x)))
            };
            let pointers: Vec<u64> = (0..args.len() / 8).filter_map(|k| arg(8 * k as u64, 8)).collect();
            for p in pointers {
                strings.push((p, string(self, &mut local, p)));
            }
            let lookup = |p: u64| strings.iter().find(|s| s.0 == p).and_then(|s| s.1.clone());
            crate::printf::format(&format, arg, lookup)
        });
        w.local[lane] = local;
        let Some(text) = text else { return fault(format!("vprintf arguments that cannot be read (lane {lane})")) };
        self.printf.push(text);
        w.set(Loc::Slot(ori_ir::RegFile::R, 4), lane, 0);
        Ok(())
    }

    /// Runs one instruction of group `g` of warp `w`.
    pub fn step(&mut self, w: &mut Warp, g: usize) -> R<()> {
        let (pc, mask) = w.groups[g];
        let prog = self.prog;
        let Some(step) = prog.steps.get(pc) else { return fault("control ran off the end of the function") };
        let active = match step.guard {
            None => mask,
            Some((loc, neg)) => {
                let m = match loc {
                    Loc::Slot(ori_ir::RegFile::P, s) => w.p[s as usize],
                    l => 0u32.wrapping_sub(w.get(l, 0)),
                };
                mask & if neg { !m } else { m }
            }
        };
        if let Kind::Async(op) = step.kind
            && self.must_wait(w, step, op, active)?
        {
            return Err(Stop::Blocked);
        }
        if prog.has_wgmma && !matches!(step.kind, Kind::Wgmma(_)) {
            self.wgmma_watch(w, step)?;
        }
        self.warp_insts += 1;
        self.issue_cycles += u64::from(step.timing.stall);
        self.est_cycles += w.clock.issue(&step.timing);
        self.thread_insts += u64::from(active.count_ones());
        match step.kind {
            Kind::Nop => {}
            Kind::Bssy => {
                if let Some(&(loc, _)) = step.defs.first() {
                    w.set(loc, 0, mask);
                }
            }
            Kind::Bsync => {
                let Some((Src::Reg(barrier, _), _)) = step.uses.first() else {
                    return fault("BSYNC without a barrier register");
                };
                let running_elsewhere = w
                    .groups
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != g)
                    .fold(0, |acc, (_, &(_, m))| acc | (m & !w.parked));
                // Lanes that wait at a BSYNC themselves are not waited for:
                // recursion reuses one barrier register at several depths
                // (NVIDIA's `BMOV`-saved B6), whose arbitration the hardware
                // does not document; letting the group go keeps such code
                // running, at the price of not reporting real deadlocks.
                if running_elsewhere & w.get(*barrier, 0) != 0 {
                    // Wait here; the group merges with the lanes arriving.
                    w.parked |= mask;
                    return Ok(());
                }
                w.parked &= !mask;
            }
            Kind::Break => {
                // `BREAK [P,] B`: a predicate operand narrows the lanes as
                // `BRA P, target`'s does.
                let (lanes_out, barrier) = match (step.uses.first(), step.uses.get(1)) {
                    (Some((Src::Reg(b, _), _)), None) => (active, b),
                    (Some((Src::Reg(..), _)), Some((Src::Reg(b, _), _))) => {
                        let mut m = 0;
                        for lane in lanes(active) {
                            m |= u32::from(self.p_in(w, step, 0, lane)?) << lane;
                        }
                        (m, b)
                    }
                    _ => return fault("BREAK without a barrier register"),
                };
                let left = w.get(*barrier, 0) & !lanes_out;
                w.set(*barrier, 0, left);
            }
            Kind::Bmov { clear } => {
                let Some(&(dst, _)) = step.defs.first() else {
                    return fault("BMOV without a register operand");
                };
                let Some(lane) = lanes(active).next() else { return Ok(()) };
                // sm_87's kernel prologue sets barriers from immediates
                // (`BMOV.32 B0, 0xffffffff`).
                let (value, src) = match step.uses.first() {
                    Some((Src::Reg(src, _), _)) => (w.get(*src, lane), Some(*src)),
                    Some((Src::Imm(bits), _)) => (*bits as u32, None),
                    _ => return fault("BMOV without a register or immediate source"),
                };
                for lane in lanes(active) {
                    w.set(dst, lane, value);
                }
                if let (true, Some(src)) = (clear, src) {
                    w.set(src, 0, 0);
                }
            }
            Kind::Bar => return Err(Stop::Barrier),
            Kind::BarRed { and } => {
                let last = step.uses.len().saturating_sub(1);
                let mut r = self.bar_red[self.rank].arrived;
                for lane in lanes(active) {
                    let p = self.p_in(w, step, last, lane)?;
                    r.count += u32::from(p);
                    r.all &= p;
                    r.any |= p;
                }
                r.and = and;
                self.bar_red[self.rank].arrived = r;
                return Err(Stop::Barrier);
            }
            Kind::Trap if active != 0 => return fault("BPT.TRAP: the kernel trapped"),
            Kind::Exit => {
                w.reschedule(g, &[(mask & !active, pc + 1)]);
                return Ok(());
            }
            Kind::Bra => {
                // `BRA P1, target`: a second condition, a predicate operand.
                let (taken, target) = match (step.uses.first(), step.uses.get(1)) {
                    (Some((Src::Label(t), _)), _) => (active, *t),
                    (Some((Src::Reg(..), _)), Some((Src::Label(t), _))) => {
                        let mut m = 0;
                        for lane in lanes(active) {
                            m |= u32::from(self.p_in(w, step, 0, lane)?) << lane;
                        }
                        (m, *t)
                    }
                    _ => return fault("indirect branches are not modelled"),
                };
                w.reschedule(g, &[(taken, target), (mask & !taken, pc + 1)]);
                return Ok(());
            }
            Kind::BraAny => {
                let to = if active != 0 { first_label(step)? } else { pc + 1 };
                w.reschedule(g, &[(mask, to)]);
                return Ok(());
            }
            Kind::Async(op) => self.step_async(w, step, op, active, pc)?,
            Kind::Wgmma(op) => self.step_wgmma(w, step, op, active, pc)?,
            Kind::BraDiv | Kind::BraConv => {
                let Some(lane) = lanes(active).next() else {
                    w.reschedule(g, &[(mask, pc + 1)]);
                    return Ok(());
                };
                // sm_80+ name the lanes that must be converged; Turing's
                // `BRA.DIV target` means every lane of the warp not exited.
                let (members, target) = match (step.uses.first(), step.uses.get(1)) {
                    (Some((Src::Label(target), _)), None) => (w.groups.iter().fold(0, |m, g| m | g.1), *target),
                    (Some(_), Some((Src::Label(target), _))) => (self.int_in(w, step, 0, lane)? as u32, *target),
                    _ => return fault("BRA.DIV without a target"),
                };
                let diverged = members & !mask != 0;
                let to = if diverged == matches!(step.kind, Kind::BraDiv) { target } else { pc + 1 };
                w.reschedule(g, &[(active, to), (mask & !active, pc + 1)]);
                return Ok(());
            }
            Kind::Call => {
                let target = match (step.uses.first(), step.uses.get(1)) {
                    (Some((Src::Label(target), _)), None) => *target,
                    // `CALL.REL.NOINC R, base`: each lane's register holds
                    // the callee's byte offset from `base`.
                    (Some((Src::Reg(..), _)), Some((Src::Label(base), _))) => {
                        let mut moves = vec![(mask & !active, pc + 1)];
                        for lane in lanes(active) {
                            let addr = self.u32v(w, step, 0, lane)? as usize;
                            let to = base + addr / 16;
                            if !addr.is_multiple_of(16) || to >= prog.steps.len() {
                                return fault(format!("call of {addr:#x}, outside the function (lane {lane})"));
                            }
                            match moves.iter_mut().find(|m| m.1 == to) {
                                Some(m) => m.0 |= 1 << lane,
                                None => moves.push((1 << lane, to)),
                            }
                        }
                        w.reschedule(g, &moves);
                        return Ok(());
                    }
                    _ => return fault("calls to other functions are not modelled"),
                };
                w.reschedule(g, &[(active, target), (mask & !active, pc + 1)]);
                return Ok(());
            }
            Kind::Lepc => {
                let target = match step.uses.first() {
                    Some((Src::Label(t), _)) => *t,
                    _ => pc,
                };
                if let Some(&(loc, _)) = step.defs.first() {
                    for lane in lanes(active) {
                        w.set_word(loc, 0, lane, 16 * target as u32);
                        w.set_word(loc, 1, lane, 0);
                    }
                }
            }
            Kind::CallAbs => {
                let mut moves = vec![(mask & !active, pc + 1)];
                for lane in lanes(active) {
                    let target = self.val(w, step, 0, lane, 2)?;
                    // A function of the linked image (loader: crate::link).
                    if target % 16 == 0 && target / 16 < prog.steps.len() as u64 {
                        let to = (target / 16) as usize;
                        match moves.iter_mut().find(|m| m.1 == to) {
                            Some(m) => m.0 |= 1 << lane,
                            None => moves.push((1 << lane, to)),
                        }
                        continue;
                    }
                    let name = target
                        .checked_sub(crate::EXTERNAL_BASE)
                        .and_then(|off| crate::EXTERNALS.get(off as usize / 16))
                        .filter(|_| target % 16 == 0);
                    match name {
                        Some(&"vprintf") => self.vprintf(w, lane)?,
                        _ => return fault(format!("call of {target:#x}, not a function the interpreter knows")),
                    }
                    // Back to the absolute return address in R20:R21.
                    let ret = Loc::Slot(ori_ir::RegFile::R, RETURN_ADDRESS);
                    let to = u64::from(w.get_word(ret, 0, lane)) | u64::from(w.get_word(ret, 1, lane)) << 32;
                    let to = usize::try_from(to / 16).unwrap_or(usize::MAX);
                    if to >= prog.steps.len() {
                        return fault(format!("return to {:#x}, outside the function (lane {lane})", to * 16));
                    }
                    match moves.iter_mut().find(|m| m.1 == to) {
                        Some(m) => m.0 |= 1 << lane,
                        None => moves.push((1 << lane, to)),
                    }
                }
                w.reschedule(g, &moves);
                return Ok(());
            }
            Kind::Ret => {
                // Return addresses are byte offsets in the function's code:
                // instruction `addr / 16` of a function in address order (as
                // the loader builds it).
                let mut moves = vec![(mask & !active, pc + 1)];
                for lane in lanes(active) {
                    let addr = self.u32v(w, step, 0, lane)? as usize;
                    if !addr.is_multiple_of(16) || addr / 16 >= prog.steps.len() {
                        return fault(format!("return to {addr:#x}, outside the function (lane {lane})"));
                    }
                    match moves.iter_mut().find(|m| m.1 == addr / 16) {
                        Some(m) => m.0 |= 1 << lane,
                        None => moves.push((1 << lane, addr / 16)),
                    }
                }
                w.reschedule(g, &moves);
                return Ok(());
            }
            Kind::Ld { space, bytes, signed } => {
                for lane in lanes(active) {
                    let a = self.addr(w, step, 0, lane, space)?;
                    let data = self.bytes_mut(&mut w.local[lane], space, a, bytes.into(), lane)?;
                    let mut words = [0u32; 4];
                    for (k, c) in data.chunks(4).enumerate() {
                        words[k] = load_le(c) as u32;
                    }
                    if signed {
                        words[0] = match bytes {
                            1 => words[0] as u8 as i8 as i32 as u32,
                            _ => words[0] as u16 as i16 as i32 as u32,
                        };
                    }
                    if let Some(&(loc, width)) = step.defs.first() {
                        for k in 0..u32::from(width) {
                            w.set_word(loc, k, lane, words[k as usize]);
                        }
                    }
                }
            }
            Kind::St { space, bytes } => {
                for lane in lanes(active) {
                    let a = self.addr(w, step, 0, lane, space)?;
                    let mut words = [0u32; 4];
                    if let Some((Src::Reg(loc, width), _)) = step.uses.get(1) {
                        for k in 0..u32::from(*width).min(4) {
                            words[k as usize] = w.get_word(*loc, k, lane);
                        }
                    }
                    let data = self.bytes_mut(&mut w.local[lane], space, a, bytes.into(), lane)?;
                    for (k, c) in data.chunks_mut(4).enumerate() {
                        store_le(c, u64::from(words[k]));
                    }
                }
            }
            Kind::Atom { space, op, bytes, one } => {
                for lane in lanes(active) {
                    let a = self.addr(w, step, 0, lane, space)?;
                    let words = u32::from(bytes / 4);
                    let v = if one { 1 } else { self.val(w, step, 1, lane, words)? };
                    let cas = matches!(op, AtomOp::Cas | AtomOp::CasSpin);
                    let v2 = if cas { self.val(w, step, 2, lane, words)? } else { 0 };
                    let data = self.bytes_mut(&mut w.local[lane], space, a, bytes.into(), lane)?;
                    let old = load_le(data);
                    store_le(data, atom(op, old, v, v2, bytes));
                    let old = if op == AtomOp::CasSpin { u64::from(old == v) } else { old };
                    // Blackwell's `ATOMS.CAST.SPIN P1, [R0], R4, R5` writes
                    // the success to a predicate (sm_90's to a register).
                    if op == AtomOp::CasSpin
                        && let Some(&(loc, _)) = step.defs.iter().find(|d| is_pred(d.0))
                    {
                        w.set(loc, lane, old as u32);
                    }
                    if let Some(&(loc, width)) = step.defs.iter().find(|d| !is_pred(d.0)) {
                        w.set(loc, lane, old as u32);
                        if width > 1 {
                            w.set_word(loc, 1, lane, (old >> 32) as u32);
                        }
                    }
                }
            }
            Kind::Shfl(mode) => {
                let mut vals = [0u32; LANES];
                for lane in lanes(active) {
                    vals[lane] = self.u32v(w, step, 0, lane)?;
                }
                let mut out = Vec::with_capacity(LANES);
                for lane in lanes(active) {
                    // b: the lane or offset in bits 0-4 (PTX's `bval[4:0]`).
                    let b = self.u32v(w, step, 1, lane)? & 0x1f;
                    let c = self.u32v(w, step, 2, lane)?;
                    // c: clamp in bits 0-4, segment mask in bits 8-12.
                    let seg_mask = (c >> 8) & 0x1f;
                    let clamp = c & 0x1f;
                    let l = lane as u32;
                    let min_lane = l & seg_mask;
                    let max_lane = min_lane | (clamp & !seg_mask);
                    let (src, ok) = match mode {
                        ShflMode::Idx => {
                            let s = min_lane | (b & !seg_mask);
                            (s, s <= max_lane)
                        }
                        ShflMode::Up => (l.wrapping_sub(b), l.wrapping_sub(b) as i32 >= min_lane as i32),
                        ShflMode::Down => (l + b, l + b <= max_lane),
                        ShflMode::Bfly => (l ^ b, (l ^ b) <= max_lane),
                    };
                    let v = if ok && (src as usize) < LANES && active >> src & 1 != 0 {
                        vals[src as usize]
                    } else {
                        vals[lane]
                    };
                    out.push((lane, v, ok));
                }
                for (lane, v, ok) in out {
                    Self::write(w, step, lane, u64::from(v), &[ok]);
                }
            }
            Kind::Vote { any, all } => {
                let mut ballot = 0u32;
                for lane in lanes(active) {
                    ballot |= u32::from(self.p_in(w, step, 0, lane)?) << lane;
                }
                let p = if any {
                    ballot != 0
                } else if all {
                    ballot == active
                } else {
                    ballot == active || ballot == 0
                };
                let targets = if step.uniform {
                    active.trailing_zeros() as usize..active.trailing_zeros() as usize + 1
                } else {
                    0..LANES
                };
                for lane in targets.filter(|l| active >> l & 1 != 0) {
                    Self::write(w, step, lane, u64::from(ballot), &[p]);
                }
            }
            Kind::Match { all, wide } => {
                let mut vals = [0u64; LANES];
                for lane in lanes(active) {
                    vals[lane] = self.val(w, step, 0, lane, if wide { 2 } else { 1 })?;
                }
                let same = |lane: usize| lanes(active).filter(|&l| vals[l] == vals[lane]).fold(0u32, |m, l| m | 1 << l);
                for lane in lanes(active) {
                    let m = same(lane);
                    if all {
                        let ok = m == active;
                        Self::write(w, step, lane, u64::from(if ok { active } else { 0 }), &[ok]);
                    } else {
                        Self::write(w, step, lane, u64::from(m), &[]);
                    }
                }
            }
            Kind::Redux(op) => {
                let mut acc: Option<u64> = None;
                for lane in lanes(active) {
                    let v = u64::from(self.u32v(w, step, 0, lane)?);
                    acc = Some(match acc {
                        None => v,
                        Some(a) => atom(op, a, v, 0, 4),
                    });
                }
                if let Some(v) = acc {
                    for lane in lanes(active).take(if step.uniform { 1 } else { LANES }) {
                        Self::write(w, step, lane, v, &[]);
                    }
                }
            }
            Kind::ReduxF32 { min, abs, nan } => {
                let mut values = Vec::new();
                for lane in lanes(active) {
                    values.push(float::modify(self.u32v(w, step, 0, lane)?, abs, false));
                }
                let v = if nan && values.iter().any(|&x| f32::from_bits(x).is_nan()) {
                    float::NAN32
                } else {
                    values.into_iter().reduce(|a, b| float::fmnmx(a, b, min, false)).unwrap_or(float::NAN32)
                };
                for lane in lanes(active).take(if step.uniform { 1 } else { LANES }) {
                    Self::write(w, step, lane, u64::from(v), &[]);
                }
            }
            Kind::R2p { byte } => {
                for lane in lanes(active) {
                    let bits = self.u32v(w, step, 0, lane)? >> (8 * u32::from(byte));
                    let mask = self.u32v(w, step, 1, lane)?;
                    for i in (0..7u32).filter(|i| mask >> i & 1 != 0) {
                        w.set(Loc::Slot(ori_ir::RegFile::P, i), lane, bits >> i & 1);
                    }
                }
            }
            Kind::Ldsm { matrices, trans } => {
                // Each lane reads rows whose addresses other lanes hold.
                if active != u32::MAX {
                    return fault(format!("LDSM with lanes {:#010x} active: it needs the whole warp", active));
                }
                let mut rows = [0u64; LANES];
                for (lane, row) in rows.iter_mut().enumerate() {
                    *row = self.addr(w, step, 0, lane, Space::Shared)?;
                }
                let Some(&(loc, _)) = step.defs.first() else { return fault("LDSM without a destination") };
                for i in 0..usize::from(matrices) {
                    for lane in 0..LANES {
                        let mut word = 0u32;
                        for (k, (row, byte)) in mma::ldsm_source(i, lane, trans).into_iter().enumerate() {
                            let own = self.cluster_shared(rows[row] + byte).filter(|w| w.0 == self.rank);
                            if let Some((rank, off)) = own {
                                self.in_flight.check(rank, off, 2).or_else(fault)?;
                            }
                            let Some(data) = own.and_then(|(rank, off)| flat_mut(&mut self.shared[rank], off, 2))
                            else {
                                return fault(format!("LDSM row address {:#x} out of bounds (lane {row})", rows[row]));
                            };
                            word |= (load_le(data) as u32) << (16 * k);
                        }
                        w.set_word(loc, i as u32, lane, word);
                    }
                }
            }
            Kind::Stsm { matrices, trans } => {
                if active != u32::MAX {
                    return fault(format!("STSM with lanes {:#010x} active: it needs the whole warp", active));
                }
                let mut rows = [0u64; LANES];
                let mut data = [[0u32; 4]; LANES];
                for lane in 0..LANES {
                    rows[lane] = self.addr(w, step, 0, lane, Space::Shared)?;
                    self.words(w, step, 1, lane, &mut data[lane][..usize::from(matrices)])?;
                }
                for i in 0..usize::from(matrices) {
                    for (lane, words) in data.iter().enumerate() {
                        for (k, (row, byte)) in mma::ldsm_source(i, lane, trans).into_iter().enumerate() {
                            let own = self.cluster_shared(rows[row] + byte).filter(|w| w.0 == self.rank);
                            if let Some((rank, off)) = own {
                                self.in_flight.check(rank, off, 2).or_else(fault)?;
                            }
                            let Some(dst) = own.and_then(|(rank, off)| flat_mut(&mut self.shared[rank], off, 2)) else {
                                return fault(format!("STSM row address {:#x} out of bounds (lane {row})", rows[row]));
                            };
                            store_le(dst, u64::from(words[i] >> (16 * k) & 0xffff));
                        }
                    }
                }
            }
            Kind::Hmma(op) => {
                if active != u32::MAX {
                    return fault(format!("HMMA with lanes {:#010x} active: it needs the whole warp", active));
                }
                let (mut a, mut b, mut c) = ([[0; 4]; LANES], [[0; 4]; LANES], [[0; 4]; LANES]);
                for lane in 0..LANES {
                    self.words(w, step, 0, lane, &mut a[lane][..op.a_regs()])?;
                    self.words(w, step, 1, lane, &mut b[lane][..op.b_regs()])?;
                    self.words(w, step, 2, lane, &mut c[lane][..op.c_regs()])?;
                }
                let d = mma::hmma(op, &a, &b, &c);
                let Some(&(loc, _)) = step.defs.first() else { return fault("HMMA without a destination") };
                for (lane, out) in d.iter().enumerate() {
                    for (k, &v) in out[..op.c_regs()].iter().enumerate() {
                        w.set_word(loc, k as u32, lane, v);
                    }
                }
            }
            Kind::Imma(op) => {
                if active != u32::MAX {
                    return fault(format!("IMMA with lanes {:#010x} active: it needs the whole warp", active));
                }
                let (mut a, mut b, mut c) = ([[0; 4]; LANES], [[0; 4]; LANES], [[0; 4]; LANES]);
                for lane in 0..LANES {
                    self.words(w, step, 0, lane, &mut a[lane][..op.a_regs()])?;
                    self.words(w, step, 1, lane, &mut b[lane][..op.b_regs()])?;
                    self.words(w, step, 2, lane, &mut c[lane][..Imma::C_REGS])?;
                }
                let d = crate::sem::imma::imma(op, &a, &b, &c);
                let Some(&(loc, _)) = step.defs.first() else { return fault("IMMA without a destination") };
                for (lane, out) in d.iter().enumerate() {
                    for (k, &v) in out.iter().enumerate() {
                        w.set_word(loc, k as u32, lane, v);
                    }
                }
            }
            // `LDC.128`/`LDCU.128`: more words than an ALU result holds.
            Kind::Ldc if step.defs.first().is_some_and(|d| d.1 > 2) => {
                let (loc, words) = step.defs[0];
                let Some((Src::CBank { bank, reg, offset }, _)) = step.uses.first().cloned() else {
                    return fault("a wide constant load without a constant operand");
                };
                let mut targets: Vec<usize> = lanes(active).collect();
                if step.uniform {
                    targets.truncate(1);
                }
                for lane in targets {
                    let base = reg.map_or(0, |r| i64::from(w.get(r, lane) as i32)) + offset;
                    for k in 0..u32::from(words) {
                        let v = self.cbank(bank, base + 4 * i64::from(k), 4)? as u32;
                        w.set_word(loc, k, lane, v);
                    }
                }
            }
            Kind::Unsupported => return fault("instruction not modelled by the interpreter"),
            _ => {
                if step.uniform {
                    if active != 0 {
                        let (v, p) = self.alu(w, step, active.trailing_zeros() as usize)?;
                        Self::write(w, step, 0, v, &p);
                    }
                } else {
                    for lane in lanes(active) {
                        let (v, p) = self.alu(w, step, lane)?;
                        Self::write(w, step, lane, v, &p);
                    }
                }
            }
        }
        w.reschedule(g, &[(mask, pc + 1)]);
        Ok(())
    }
}

/// The branch target of `step`.
fn first_label(step: &Step) -> R<usize> {
    match step.uses.iter().find_map(|u| if let Src::Label(t) = u.0 { Some(t) } else { None }) {
        Some(t) => Ok(t),
        None => fault("branch without a target"),
    }
}

fn is_pred(loc: Loc) -> bool {
    match loc {
        Loc::Zero(f) | Loc::Slot(f, _) => f.is_predicate(),
    }
}

/// The value an atomic stores, from the old value and the operands.
pub fn atom(op: AtomOp, old: u64, v: u64, v2: u64, bytes: u8) -> u64 {
    let (o32, v32) = (old as u32, v as u32);
    match op {
        AtomOp::Add => old.wrapping_add(v) & if bytes == 8 { u64::MAX } else { 0xffff_ffff },
        AtomOp::AddF32 => u64::from(float::fadd(o32, v32, true, float::Round::Nearest)),
        AtomOp::AddF64 => float::dadd(old, v),
        AtomOp::AddHalf2 { bf16 } => u64::from(half::add2(o32, v32, bf16)),
        AtomOp::Min { signed } | AtomOp::Max { signed } if bytes == 8 => {
            let less = if signed { (v as i64) < (old as i64) } else { v < old };
            if less == matches!(op, AtomOp::Min { .. }) { v } else { old }
        }
        AtomOp::Min { signed } => int::imnmx(u64::from(o32), u64::from(v32), true, signed, false),
        AtomOp::Max { signed } => int::imnmx(u64::from(o32), u64::from(v32), false, signed, false),
        AtomOp::Inc => u64::from(if o32 >= v32 { 0 } else { o32 + 1 }),
        AtomOp::Dec => u64::from(if o32 == 0 || o32 > v32 { v32 } else { o32 - 1 }),
        AtomOp::And => old & v,
        AtomOp::Or => old | v,
        AtomOp::Xor => old ^ v,
        AtomOp::Exch => v,
        AtomOp::Cas | AtomOp::CasSpin => {
            if old == v {
                v2
            } else {
                old
            }
        }
    }
}
