//! Warpgroup matrix multiply-accumulate (sm_90a `wgmma`): `HGMMA` with
//! both operands in shared memory, addressed by matrix descriptors, and
//! its synchronisation `WARPGROUP.ARRIVE` (`wgmma.fence`) and
//! `WARPGROUP.DEPBAR.LE gsb0, n` (`wgmma.wait_group n`).
//!
//! Models (what the tests can rely on, and where they are coarser than the
//! hardware):
//! - A warpgroup is four consecutive warps (`warp index / 4`); warp `w % 4`
//!   owns rows `16 (w % 4) ..` of the 64-row tile, so each warp computes
//!   its own quarter of `D = A B + C` from shared memory and its own
//!   accumulators: no warp waits for the others.
//! - `HGMMA` is queued, not performed: the warp's accumulators are written
//!   by the `WARPGROUP.DEPBAR` that retires its group (operands read from
//!   shared memory and C from the registers then, the latest point the
//!   hardware may do it). An `HGMMA` with `gsb0` closes the open group
//!   (`wgmma.commit_group`); `DEPBAR.LE gsb0, n` performs every closed
//!   group but the `n` most recent.
//! - While an `HGMMA` is queued, any other instruction of the warp that
//!   reads or writes one of its accumulator registers is a fault (the
//!   PTX ISA leaves such accesses undefined); so is an `HGMMA` whose
//!   accumulators were written after the warp's last `WARPGROUP.ARRIVE`
//!   (`wgmma.fence` must separate register writes from the wgmma that
//!   reads them), and an `HGMMA` before any `ARRIVE`.
//! - Descriptors (PTX ISA, "Matrix Descriptor Format"): start address
//!   `>> 4` in bits 0-13, leading-dimension byte offset `>> 4` in bits
//!   16-29, stride byte offset `>> 4` in bits 32-45, base offset in bits
//!   49-51, swizzle mode in bits 62-63. Base offset 0 is modelled (the
//!   others are errors), with every swizzle mode and both majors: K-major
//!   operands (A is M x K row-major; B, K x N, stored N x K) and MN-major
//!   ones (`.tnspA`/`.tnspB`), laid out as [`MatrixDesc::element`] says.
//! - Arithmetic: as `HMMA` (`sem::mma`): binary16, bfloat16 and tf32 (a
//!   binary32 word without its low 13 mantissa bits) products exact in f64,
//!   summed with C in f64 and rounded once to binary32; NaN canonical.
//!   fp8 `QGMMA` (E4M3/E5M2 for A and B each, K = 32, one byte per element:
//!   sixteen to a core-matrix row) the same way, its elements converted
//!   exactly. The hardware's own accumulation order and width are not
//!   modelled: tests choose inputs whose sums are exact in any order.
//!   Integer `IGMMA` (S8/U8 for A and B each, K = 32): exact products
//!   summed with C in 64 bits and wrapped to s32 (PTX ISA: the s32
//!   accumulation wraps), or clamped to s32 with `.SAT` (`.satfinite`);
//!   each sum is exact, so the order does not matter.

use ori_ir::RegFile;

use super::half;
use crate::exec::{Cta, R, fault, lanes};
use crate::kind::{WgmmaInput, WgmmaOp};
use crate::memory::load_le;
use crate::program::{Loc, Src, Step};
use crate::warp::{LANES, Warp};

/// Rows of the tile each warp of the warpgroup owns.
const WARP_ROWS: usize = 16;

/// A shared-memory matrix descriptor, decoded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MatrixDesc {
    /// Byte offset of the matrix in the CTA's shared memory.
    pub start: u32,
    /// Bytes between core matrices adjacent in K (unswizzled layouts).
    pub lbo: u32,
    /// Bytes between core matrices (8-row groups) adjacent in M (A) or N (B).
    pub sbo: u32,
    /// Bytes of a swizzled row (32, 64 or 128); 0 without swizzle.
    pub swizzle: u32,
}

impl MatrixDesc {
    /// Decodes a descriptor; a non-zero base offset is an error naming
    /// the field. Swizzle modes (bits 62-63): 0 none, 1 128 bytes, 2 64
    /// bytes, 3 32 bytes.
    pub fn decode(bits: u64) -> Result<MatrixDesc, String> {
        let field = |shift: u32| ((bits >> shift) & 0x3fff) as u32 * 16;
        let swizzle = [0, 128, 64, 32][(bits >> 62) as usize];
        let base_offset = bits >> 49 & 7;
        if base_offset != 0 {
            return Err(format!("matrix descriptor {bits:#018x}: base offset {base_offset} is not modelled"));
        }
        Ok(MatrixDesc { start: field(0), lbo: field(16), sbo: field(32), swizzle })
    }

    /// Byte offset of the element of `bytes` bytes at (`mn`, `k`) of an
    /// operand stored `major` (`mn` is A's row or B's column). The
    /// canonical layouts are the PTX ISA's ("Shared Memory Matrix
    /// Layout"): 16-byte chunks of `T = 16 / bytes` elements contiguous
    /// along the major dimension, grouped in atoms of 8 chunk-rows; with
    /// a swizzle of `S` bytes a chunk-row is `S` bytes (`W = S / 16`
    /// chunks), and the address's 16-byte chunk bits 4.. are XORed with
    /// its bits 7.. (as many as a row has chunks beyond the first: 128
    /// bytes three, 64 two, 32 one), aligned to absolute shared addresses.
    ///
    /// | layout | element offset |
    /// |---|---|
    /// | K-major, none | `(mn / 8) SBO + (k / T) LBO + (mn % 8) 16 + (k % T) bytes` |
    /// | K-major, `S` | `(mn / 8) SBO + (mn % 8) S + k bytes` (one instruction's K within a row) |
    /// | MN-major, none | `(mn / T) SBO + (k / 8) LBO + (k % 8) 16 + (mn % T) bytes` |
    /// | MN-major, `S` | `(mn / WT) LBO + (k / 8) SBO + (k % 8) S + (mn % WT) bytes` |
    ///
    /// (Without swizzle the descriptor's LBO steps along K and SBO along
    /// M/N whichever the major; swizzled MN-major, LBO steps from one
    /// atom to the next along M/N and SBO along K.)
    pub fn element(&self, major: Major, mn: usize, k: usize, bytes: usize) -> u64 {
        let (mn, k) = (mn as u64, k as u64);
        let (bytes, per_chunk) = (bytes as u64, 16 / bytes as u64);
        let (start, lbo, sbo, swizzle) =
            (u64::from(self.start), u64::from(self.lbo), u64::from(self.sbo), u64::from(self.swizzle));
        let linear = match (major, swizzle) {
            (Major::K, 0) => start + mn / 8 * sbo + k / per_chunk * lbo + mn % 8 * 16 + k % per_chunk * bytes,
            (Major::K, _) => start + mn / 8 * sbo + mn % 8 * swizzle + k * bytes,
            (Major::Mn, 0) => start + mn / per_chunk * sbo + k / 8 * lbo + k % 8 * 16 + mn % per_chunk * bytes,
            (Major::Mn, _) => {
                let atom = swizzle / bytes;
                start + mn / atom * lbo + k / 8 * sbo + k % 8 * swizzle + mn % atom * bytes
            }
        };
        if swizzle == 0 {
            return linear;
        }
        let chunks = swizzle / 16 - 1;
        linear ^ (((linear >> 7) & chunks) << 4)
    }
}

/// Which dimension of a shared-memory operand is contiguous: K (the
/// default) or M/N (`.tnspA`/`.tnspB`: wgmma's `imm-trans-a/b` = 1).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Major {
    /// K-major: A row-major, B column-major.
    K,
    /// MN-major: A column-major, B row-major (stored transposed).
    Mn,
}

/// Where accumulator register `i` of `lane` sits in the warp's 16 rows of
/// D (PTX ISA, "wgmma .m64nNk16 register fragment layout for D"): row
/// `lane / 4` (+ 8 for registers 2, 3 of each four), column
/// `8 (i / 4) + 2 (lane % 4) + i % 2`.
pub fn accumulator_position(lane: usize, i: usize) -> (usize, usize) {
    (lane / 4 + 8 * (i / 2 % 2), 8 * (i / 4) + 2 * (lane % 4) + i % 2)
}

/// The warp's 16 rows of A (K elements' bits each) from its lanes' four
/// fragment words (PTX ISA, "Register fragment for matrix A" of wgmma, as
/// `mma.m16n8kK`'s): lane `l` = group `g = l / 4`, thread `t = l % 4`; its
/// word `i` holds row `g + 8 (i % 2)`, the `e = 4 / bytes` elements from K
/// index `e t + K / 2 (i / 2)`, lowest bits first.
fn fragment_a(words: &[[u32; 4]], bytes: usize) -> Vec<Vec<u32>> {
    let per = 4 / bytes;
    let k = 32 / bytes;
    let mask = if bytes == 4 { u32::MAX } else { (1 << (8 * bytes)) - 1 };
    let mut a = vec![vec![0; k]; WARP_ROWS];
    for (lane, w) in words.iter().enumerate() {
        let (g, t) = (lane / 4, lane % 4);
        for (i, &word) in w.iter().enumerate() {
            for e in 0..per {
                a[g + 8 * (i % 2)][per * t + k / 2 * (i / 2) + e] = word >> (8 * bytes * e) & mask;
            }
        }
    }
    a
}

/// The value of an input element's bits.
fn input_value(input: WgmmaInput, bits: u32) -> f64 {
    match input {
        WgmmaInput::F16 => f64::from(half::to_f32(bits as u16)),
        WgmmaInput::Bf16 => f64::from(f32::from_bits(bits << 16)),
        // tf32 is binary32 with the low 13 mantissa bits ignored.
        WgmmaInput::Tf32 => f64::from(f32::from_bits(bits & 0xffff_e000)),
        // Exact in binary16; E4M3's NaN (`S.1111.111`) has no binary16 twin.
        WgmmaInput::E4m3 | WgmmaInput::E5m2 => {
            half::fp8_to_f16(bits as u8, input == WgmmaInput::E4m3).map_or(f64::NAN, |h| f64::from(half::to_f32(h)))
        }
        WgmmaInput::S8 | WgmmaInput::U8 => int_value(input, bits) as f64,
    }
}

/// The value of a byte element of `IGMMA`.
fn int_value(input: WgmmaInput, bits: u32) -> i64 {
    match input {
        WgmmaInput::S8 => i64::from(bits as u8 as i8),
        _ => i64::from(bits as u8),
    }
}

/// One warp's part of `IGMMA.64xNx32.{S8,U8}.{S8,U8}[.SAT]`, laid out as
/// [`hgmma_f32`]'s: each accumulator is C (zero when `scale_d` is false)
/// plus the 32 products, exact in 64 bits, then wrapped to s32, or
/// clamped with `sat`.
pub fn igmma_s32(
    (input, b_input): (WgmmaInput, WgmmaInput),
    a: &[Vec<u32>],
    b: &[Vec<u32>],
    c: &[Vec<u32>],
    scale_d: bool,
    sat: bool,
) -> Vec<Vec<u32>> {
    (0..LANES)
        .map(|lane| {
            (0..b.len() / 2)
                .map(|i| {
                    let (row, col) = accumulator_position(lane, i);
                    let acc = if scale_d { i64::from(c[lane][i] as i32) } else { 0 };
                    let sum = (0..input.k())
                        .fold(acc, |s, k| s + int_value(input, a[row][k]) * int_value(b_input, b[col][k]));
                    let sum = if sat { sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) } else { sum };
                    sum as i32 as u32
                })
                .collect()
        })
        .collect()
}

/// One warp's part of `HGMMA.64xNxK.F32` (f16 inputs without a type word):
/// `a` holds the warp's 16 rows of A (K elements' bits each), `b` B as N
/// rows of K (B transposed), `c` the lanes' accumulators (N / 2 words
/// each), read as zeros when `scale_d` is false. Returns the lanes' new
/// accumulators. The products of these inputs are exact in f64, summed
/// with C and rounded once to binary32.
pub fn hgmma_f32(
    (input, b_input): (WgmmaInput, WgmmaInput),
    a: &[Vec<u32>],
    b: &[Vec<u32>],
    c: &[Vec<u32>],
    scale_d: bool,
) -> Vec<Vec<u32>> {
    (0..LANES)
        .map(|lane| {
            (0..b.len() / 2)
                .map(|i| {
                    let (row, col) = accumulator_position(lane, i);
                    let acc = if scale_d { f64::from(f32::from_bits(c[lane][i])) } else { 0.0 };
                    let sum = (0..input.k())
                        .fold(acc, |s, k| s + input_value(input, a[row][k]) * input_value(b_input, b[col][k]));
                    let bits = (sum as f32).to_bits();
                    if f32::from_bits(bits).is_nan() { 0x7fff_ffff } else { bits }
                })
                .collect()
        })
        .collect()
}

/// An `HGMMA` issued and not performed yet.
#[derive(Clone, Debug)]
struct Queued {
    /// Its instruction index (for messages).
    pc: usize,
    /// The group it belongs to.
    group: u32,
    /// N of the shape.
    n: u32,
    /// The input types of A and B.
    input: WgmmaInput,
    b_input: WgmmaInput,
    /// Accumulators written: first slot and words.
    d: (Loc, u8),
    /// Accumulators read (`RZ`: zeros).
    c: (Loc, u8),
    /// How A and B are stored.
    major: (Major, Major),
    /// False when the product replaces C (`wgmma`'s scale-d = 0).
    scale_d: bool,
    /// IGMMA's `.SAT`.
    sat: bool,
    a: OperandA,
    b: MatrixDesc,
}

/// Where an `HGMMA` takes A from.
#[derive(Clone, Debug)]
enum OperandA {
    /// Shared memory, behind a descriptor.
    Shared(MatrixDesc),
    /// Each lane's four fragment words (read at issue), and the R slots
    /// they came from (which must not be written before the wait).
    Regs(Vec<[u32; 4]>, std::ops::Range<u32>),
}

/// A warp's warpgroup-MMA state.
#[derive(Clone, Debug, Default)]
pub struct WgmmaState {
    /// HGMMAs issued, not performed, in issue order.
    queued: Vec<Queued>,
    /// Number of the open group (earlier ones are closed).
    open: u32,
    /// R slots written since the last `WARPGROUP.ARRIVE` (`true` before
    /// the first: the fence must come before the first HGMMA).
    unfenced: Vec<bool>,
    /// Whether the warp executed an `ARRIVE` yet.
    arrived: bool,
}

impl WgmmaState {
    fn unfenced(&self, slot: u32) -> bool {
        !self.arrived || self.unfenced.get(slot as usize).copied().unwrap_or(false)
    }
}

/// R slots `loc .. loc + width` (none for `RZ`).
fn r_slots(loc: Loc, width: u8) -> std::ops::Range<u32> {
    match loc {
        Loc::Slot(RegFile::R, s) => s..s + u32::from(width.max(1)),
        _ => 0..0,
    }
}

fn overlaps(a: &std::ops::Range<u32>, b: &std::ops::Range<u32>) -> bool {
    a.start < b.end && b.start < a.end
}

impl Cta<'_> {
    /// Watches an instruction other than the wgmma family in a function
    /// that has them: it must not touch a queued HGMMA's accumulators, and
    /// its R destinations need a fence before an HGMMA reads them.
    pub(crate) fn wgmma_watch(&self, w: &mut Warp, step: &Step) -> R<()> {
        let st = &mut w.wgmma;
        if !st.queued.is_empty() {
            let regs = step.defs.iter().copied().chain(step.uses.iter().filter_map(|(s, _)| match *s {
                Src::Reg(loc, width) => Some((loc, width)),
                Src::Mem { base: Some(b), .. } => Some(b),
                _ => None,
            }));
            for (loc, width) in regs {
                let r = r_slots(loc, width);
                let a_slots = |q: &Queued| match &q.a {
                    OperandA::Regs(_, slots) => slots.clone(),
                    OperandA::Shared(_) => 0..0,
                };
                if let Some(q) = st.queued.iter().find(|q| {
                    overlaps(&r, &r_slots(q.d.0, q.d.1))
                        || overlaps(&r, &r_slots(q.c.0, q.c.1))
                        || overlaps(&r, &a_slots(q))
                }) {
                    return fault(format!(
                        "R{} is an operand of the HGMMA at instruction {} that no WARPGROUP.DEPBAR has waited for",
                        r.start, q.pc
                    ));
                }
            }
        }
        for &(loc, width) in &step.defs {
            for s in r_slots(loc, width) {
                let s = s as usize;
                if st.unfenced.len() <= s {
                    st.unfenced.resize(s + 1, false);
                }
                st.unfenced[s] = true;
            }
        }
        Ok(())
    }

    /// Runs a wgmma-family instruction for warp `w`.
    pub(crate) fn step_wgmma(&mut self, w: &mut Warp, step: &Step, op: WgmmaOp, active: u32, pc: usize) -> R<()> {
        if active != u32::MAX {
            return fault(format!(
                "warpgroup MMA instruction with lanes {active:#010x} active: it needs the whole warp"
            ));
        }
        match op {
            WgmmaOp::Arrive => {
                w.wgmma.arrived = true;
                w.wgmma.unfenced.iter_mut().for_each(|s| *s = false);
            }
            WgmmaOp::Hgmma { n, input, b_input, a_in_regs, tnsp, closes, sat } => {
                // `[A fragment,] gdesc[UR], C[, scale-d]`.
                let at = usize::from(a_in_regs);
                let (Some(&d), Some((Src::Reg(desc, _), _)), Some(&(Src::Reg(c, cw), _))) =
                    (step.defs.first(), step.uses.get(at), step.uses.get(at + 1))
                else {
                    return fault("HGMMA operands are not [R,] gdesc[UR], C");
                };
                // A further register operand is the scale-d predicate (UPT
                // or UPn, `!UPT` for a product that replaces C).
                let scale_d = match step.uses.get(at + 2) {
                    Some((Src::Reg(..), _)) => self.p_in(w, step, at + 2, 0)?,
                    _ => true,
                };
                let c = (c, cw);
                let a_frag = match step.uses.first() {
                    Some(&(Src::Reg(loc, width), _)) if a_in_regs => Some((loc, width)),
                    _ => None,
                };
                let read =
                    r_slots(d.0, d.1).chain(r_slots(c.0, c.1)).chain(a_frag.map_or(0..0, |(l, w)| r_slots(l, w)));
                if let Some(s) = read.clone().find(|&s| w.wgmma.unfenced(s)) {
                    return fault(format!("HGMMA reads R{s}, written after the last WARPGROUP.ARRIVE (wgmma.fence)"));
                }
                let word = |k: u32| u64::from(w.get_word(*desc, k, 0));
                // B's descriptor is in the last two words (with A in
                // registers the first two are unused).
                let b = MatrixDesc::decode(word(2) | word(3) << 32).or_else(fault)?;
                let a = match a_in_regs {
                    true => None,
                    false => Some(MatrixDesc::decode(word(0) | word(1) << 32).or_else(fault)?),
                };
                // A fragment is read at issue; the watch faults on writes
                // to it before the wait, so that is also its value later.
                let a = match (a, a_frag) {
                    (Some(desc), _) => OperandA::Shared(desc),
                    (None, Some((loc, _))) => OperandA::Regs(
                        (0..LANES).map(|lane| std::array::from_fn(|k| w.get_word(loc, k as u32, lane))).collect(),
                        a_frag.map_or(0..0, |(l, wd)| r_slots(l, wd)),
                    ),
                    (None, None) => return fault("HGMMA's A fragment is not in registers"),
                };
                let group = w.wgmma.open;
                let major = |t: bool| if t { Major::Mn } else { Major::K };
                let major = (major(tnsp.0), major(tnsp.1));
                w.wgmma.queued.push(Queued { pc, group, n, input, b_input, d, c, major, scale_d, sat, a, b });
                if closes {
                    w.wgmma.open += 1;
                }
            }
            WgmmaOp::Depbar { keep } => {
                let until = w.wgmma.open.saturating_sub(keep);
                let (done, left): (Vec<_>, Vec<_>) =
                    std::mem::take(&mut w.wgmma.queued).into_iter().partition(|q| q.group < until);
                w.wgmma.queued = left;
                for q in done {
                    self.perform_hgmma(w, &q)?;
                }
            }
        }
        Ok(())
    }

    /// Performs a queued HGMMA: reads A and B from the CTA's shared memory
    /// and C from the registers, writes D.
    fn perform_hgmma(&mut self, w: &mut Warp, q: &Queued) -> R<()> {
        let first_row = WARP_ROWS * (w.index as usize % 4);
        let (shared, in_flight) = (&self.shared[self.rank], &self.in_flight);
        let bytes = q.input.bytes();
        let read = |desc: &MatrixDesc, major: Major, mn: usize, k: usize| -> R<u32> {
            let addr = desc.element(major, mn, k, bytes);
            in_flight.check(self.rank, addr, bytes).or_else(fault)?;
            match usize::try_from(addr).ok().and_then(|off| shared.get(off..off.checked_add(bytes)?)) {
                Some(b) => Ok(load_le(b) as u32),
                None => fault(format!("HGMMA (instruction {}) reads shared memory at {addr:#x}, out of bounds", q.pc)),
            }
        };
        let k = q.input.k();
        let a = match &q.a {
            OperandA::Shared(desc) => (0..WARP_ROWS)
                .map(|r| (0..k).map(|k| read(desc, q.major.0, first_row + r, k)).collect::<R<Vec<u32>>>())
                .collect::<R<Vec<_>>>()?,
            OperandA::Regs(words, _) => fragment_a(words, bytes),
        };
        let b = (0..q.n as usize)
            .map(|col| (0..k).map(|k| read(&q.b, q.major.1, col, k)).collect::<R<Vec<u32>>>())
            .collect::<R<Vec<_>>>()?;
        let words = q.n / 2;
        let c: Vec<Vec<u32>> =
            (0..LANES).map(|lane| (0..words).map(|k| w.get_word(q.c.0, k, lane)).collect()).collect();
        let d = if q.input.is_int() {
            igmma_s32((q.input, q.b_input), &a, &b, &c, q.scale_d, q.sat)
        } else {
            hgmma_f32((q.input, q.b_input), &a, &b, &c, q.scale_d)
        };
        for lane in lanes(u32::MAX) {
            for (k, &v) in d[lane].iter().enumerate() {
                w.set_word(q.d.0, k as u32, lane, v);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The K extent of an f16 HGMMA.
    const K: usize = 16;

    /// binary16 bits of a small integer.
    fn h(v: f64) -> u16 {
        half::from_f64(v)
    }

    #[test]
    fn descriptor_fields_and_core_matrix_offsets() {
        // The corpus kernel's descriptor: start 0x400, LBO 128, SBO 256.
        let d = MatrixDesc::decode(0x0000_0010_0008_0040).unwrap();
        assert_eq!(d, MatrixDesc { start: 0x400, lbo: 128, sbo: 256, swizzle: 0 });
        assert_eq!(d.element(Major::K, 0, 0, 2), 0x400);
        assert_eq!(d.element(Major::K, 9, 3, 2), 0x400 + 256 + 16 + 6);
        assert_eq!(d.element(Major::K, 2, 12, 2), 0x400 + 128 + 32 + 8);
        // tf32: four elements to a core-matrix row.
        assert_eq!(d.element(Major::K, 2, 5, 4), 0x400 + 128 + 32 + 4);
        assert!(MatrixDesc::decode(1 << 49).unwrap_err().contains("base offset 1"));
        // Triton's fp8 operands: 64-byte swizzle, SBO 512, at 0x2000.
        let d = MatrixDesc::decode(0x8000_0020_0000_0200).unwrap();
        assert_eq!(d, MatrixDesc { start: 0x2000, lbo: 0, sbo: 512, swizzle: 64 });
        // Row 0 is as it is; row 2 (bits 7.. = 1) swaps its 16-byte chunks
        // 0/1 and 2/3; row 9 is row 1 of the next group (unswizzled).
        assert_eq!(d.element(Major::K, 0, 17, 1), 0x2000 + 17);
        assert_eq!(d.element(Major::K, 2, 3, 1), 0x2000 + 128 + 16 + 3);
        assert_eq!(d.element(Major::K, 2, 17, 1), 0x2000 + 128 + 1);
        assert_eq!(d.element(Major::K, 9, 5, 1), 0x2000 + 512 + 64 + 5);
        // 128-byte swizzle: row 5's chunk c lies at chunk c ^ 5 (rows at 1024-byte alignment).
        let d = MatrixDesc::decode(1 << 62 | 64 << 32).unwrap();
        assert_eq!(d.element(Major::K, 5, 8, 2), 5 * 128 + (1 ^ 5) * 16);
    }

    #[test]
    fn mn_major_offsets() {
        // Unswizzled: eight elements of M/N to a 16-byte chunk, a core
        // matrix is 8 K-rows of chunks, SBO along M/N, LBO along K.
        let d = MatrixDesc { start: 0x400, lbo: 256, sbo: 128, swizzle: 0 };
        assert_eq!(d.element(Major::Mn, 10, 9, 2), 0x400 + 128 + 256 + 16 + 2 * 2);
        // 128-byte swizzle: 64 f16 of M/N to a row, k % 8 picks the row,
        // LBO the next 64 of M/N, SBO the next 8 of K; the chunk index
        // XORed with the row's bits 7..9.
        let d = MatrixDesc { start: 0x2000, lbo: 8192, sbo: 1024, swizzle: 128 };
        assert_eq!(d.element(Major::Mn, 5, 3, 2), 0x2000 + 3 * 128 + (3 * 16) + 5 * 2 % 16);
        assert_eq!(d.element(Major::Mn, 70, 11, 2), 0x2000 + 8192 + 1024 + 3 * 128 + ((0 ^ 3) * 16) + 12);
        // 32-byte swizzle: 16 f16 to a row; bit 4 XORed with bit 7.
        let d = MatrixDesc { start: 0, lbo: 512, sbo: 256, swizzle: 32 };
        assert_eq!(d.element(Major::Mn, 9, 4, 2), 4 * 32 + (1 ^ 1) * 16 + 2);
        assert_eq!(d.element(Major::Mn, 17, 4, 2), 512 + 4 * 32 + (0 ^ 1) * 16 + 2);
    }

    #[test]
    fn accumulator_fragment() {
        assert_eq!(accumulator_position(0, 0), (0, 0));
        assert_eq!(accumulator_position(5, 1), (1, 3));
        assert_eq!(accumulator_position(31, 3), (15, 7));
        assert_eq!(accumulator_position(2, 4), (0, 12));
    }

    #[test]
    fn register_fragment_of_a() {
        // Lane 5 (group 1, thread 1): word 2 holds row 1, K 10 and 11
        // (f16); tf32 word 3 row 9, K 5; fp8 word 1 row 9, K 4..7, word 2
        // row 1, K 20..23.
        let mut words = vec![[0u32; 4]; LANES];
        words[5] = [0, 0x2222_1111, 0x4444_3333, 0x8765_4321];
        let a = fragment_a(&words, 2);
        assert_eq!((a[1][10], a[1][11], a[9][2], a[9][3]), (0x3333, 0x4444, 0x1111, 0x2222));
        assert_eq!(fragment_a(&words, 4)[9][5], 0x8765_4321);
        let a = fragment_a(&words, 1);
        assert_eq!((a[9][4], a[9][7], a[9][20], a[1][20]), (0x11, 0x22, 0x21, 0x33));
    }

    /// A[m][k] = m + 2k - 9, B[k][n] = k - n, C = m * n: exact, so each
    /// lane's accumulators must be the reference at their positions.
    #[test]
    fn hgmma_matches_the_reference_product() {
        let av = |m: usize, k: usize| m as f64 + 2.0 * k as f64 - 9.0;
        let bv = |k: usize, n: usize| k as f64 - n as f64;
        let a: Vec<Vec<u32>> = (0..WARP_ROWS).map(|m| (0..K).map(|k| u32::from(h(av(m, k)))).collect()).collect();
        let b: Vec<Vec<u32>> = (0..8).map(|n| (0..K).map(|k| u32::from(h(bv(k, n)))).collect()).collect();
        let c: Vec<Vec<u32>> = (0..LANES)
            .map(|lane| {
                (0..4)
                    .map(|i| {
                        let (m, n) = accumulator_position(lane, i);
                        ((m * n) as f32).to_bits()
                    })
                    .collect()
            })
            .collect();
        for scale_d in [true, false] {
            let d = hgmma_f32((WgmmaInput::F16, WgmmaInput::F16), &a, &b, &c, scale_d);
            for (lane, out) in d.iter().enumerate() {
                for (i, &v) in out.iter().enumerate() {
                    let (m, n) = accumulator_position(lane, i);
                    let acc = if scale_d { (m * n) as f64 } else { 0.0 };
                    let want: f64 = (0..K).map(|k| av(m, k) * bv(k, n)).sum::<f64>() + acc;
                    assert_eq!(f32::from_bits(v), want as f32, "lane {lane} register {i}");
                }
            }
        }
    }

    /// IGMMA: every byte value in A and B, both signednesses: each lane's
    /// accumulators are the integer products summed with C, wrapping to
    /// s32 (C near `i32::MAX` makes some wrap) or clamped with `.SAT`.
    #[test]
    fn igmma_sums_bytes_exactly() {
        const K: usize = 32;
        let byte = |r: usize, k: usize| ((r * 37 + k * 11 + 5) % 256) as u32;
        let a: Vec<Vec<u32>> = (0..WARP_ROWS).map(|m| (0..K).map(|k| byte(m, k)).collect()).collect();
        let b: Vec<Vec<u32>> = (0..8).map(|n| (0..K).map(|k| byte(n + 16, k)).collect()).collect();
        let c0 = |lane: usize, i: usize| i32::MAX - 300_000 + (lane * 4 + i) as i32 * 17;
        let c: Vec<Vec<u32>> = (0..LANES).map(|lane| (0..4).map(|i| c0(lane, i) as u32).collect()).collect();
        let val = |t: WgmmaInput, x: u32| if t == WgmmaInput::S8 { i64::from(x as u8 as i8) } else { i64::from(x) };
        let (s8, u8) = (WgmmaInput::S8, WgmmaInput::U8);
        let (mut wrapped, mut clamped) = (0, 0);
        for (ta, tb) in [(s8, s8), (u8, s8), (s8, u8), (u8, u8)] {
            for (scale_d, sat) in [(true, false), (true, true), (false, false)] {
                let d = igmma_s32((ta, tb), &a, &b, &c, scale_d, sat);
                for (lane, out) in d.iter().enumerate() {
                    for (i, &v) in out.iter().enumerate() {
                        let (m, n) = accumulator_position(lane, i);
                        let acc = if scale_d { i64::from(c0(lane, i)) } else { 0 };
                        let sum = (0..K).map(|k| val(ta, a[m][k]) * val(tb, b[n][k])).sum::<i64>() + acc;
                        let want = if sat { sum.min(i64::from(i32::MAX)) as i32 } else { sum as i32 };
                        wrapped += usize::from(!sat && sum > i64::from(i32::MAX));
                        clamped += usize::from(sat && sum > i64::from(i32::MAX));
                        assert_eq!(v as i32, want, "{ta:?} x {tb:?}, sat {sat}: lane {lane} register {i}");
                    }
                }
            }
        }
        assert!(wrapped > 0 && clamped > 0, "the inputs must make some sums overflow");
    }

    /// An fp8 byte's value from the formats' definitions (bias 7 / 15,
    /// subnormals at exponent 0; finite inputs only).
    fn fp8(b: u8, e4m3: bool) -> f64 {
        let (man_bits, bias) = if e4m3 { (3, 7) } else { (2, 15) };
        let (e, m) = (i32::from(b & 0x7f) >> man_bits, f64::from(b & ((1 << man_bits) - 1)));
        let mag = if e == 0 {
            m / f64::from(1 << man_bits) * 2f64.powi(1 - bias)
        } else {
            (1.0 + m / f64::from(1 << man_bits)) * 2f64.powi(e - bias)
        };
        if b & 0x80 != 0 { -mag } else { mag }
    }

    /// QGMMA: finite bytes of both formats (normal and subnormal, both
    /// signs), A in one and B in the other: each lane's accumulators are
    /// the products of the formats' own values, summed with C and rounded
    /// once to binary32.
    #[test]
    fn qgmma_converts_fp8_exactly() {
        const K: usize = 32;
        // Bytes below 0x78 are finite in both formats; odd rows negative.
        let byte = |r: usize, k: usize| ((r * 7 + k * 13) % 0x78) as u8 | if r % 2 == 1 { 0x80 } else { 0 };
        let a: Vec<Vec<u32>> = (0..WARP_ROWS).map(|m| (0..K).map(|k| u32::from(byte(m, k))).collect()).collect();
        let b: Vec<Vec<u32>> = (0..8).map(|n| (0..K).map(|k| u32::from(byte(n + 3, k))).collect()).collect();
        let c: Vec<Vec<u32>> = (0..LANES).map(|_| vec![0.5f32.to_bits(); 4]).collect();
        for (ta, tb) in [(WgmmaInput::E4m3, WgmmaInput::E5m2), (WgmmaInput::E5m2, WgmmaInput::E4m3)] {
            let d = hgmma_f32((ta, tb), &a, &b, &c, true);
            for (lane, out) in d.iter().enumerate() {
                for (i, &v) in out.iter().enumerate() {
                    let (m, n) = accumulator_position(lane, i);
                    let want: f64 = (0..K)
                        .map(|k| fp8(byte(m, k), ta == WgmmaInput::E4m3) * fp8(byte(n + 3, k), tb == WgmmaInput::E4m3))
                        .sum::<f64>()
                        + 0.5;
                    assert_eq!(f32::from_bits(v), want as f32, "{ta:?} x {tb:?}: lane {lane} register {i}");
                }
            }
        }
    }
}
