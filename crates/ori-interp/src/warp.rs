//! A warp's state: per-lane and uniform registers, and its thread groups
//! (each a program counter with a lane mask) for divergence.

use ori_ir::RegFile;

use crate::program::Loc;
use crate::sem::async_mem::PendingCopies;
use crate::sem::wgmma::WgmmaState;

/// Lanes per warp.
pub const LANES: usize = 32;

/// One warp.
#[derive(Clone, Debug)]
pub struct Warp {
    /// R file: slot `s`, lane `l` at `s * 32 + l`.
    pub r: Vec<u32>,
    /// UR file.
    pub ur: Vec<u32>,
    /// P file: one lane mask per predicate.
    pub p: Vec<u32>,
    /// UP file.
    pub up: Vec<bool>,
    /// Convergence barriers (B file): the lanes BSSY recorded.
    pub b: Vec<u32>,
    /// Groups of lanes that share a program counter, never two with the
    /// same pc; lanes not in any group have exited or never existed.
    pub groups: Vec<(usize, u32)>,
    /// Lanes waiting at a `BSYNC` for others of its barrier.
    pub parked: u32,
    /// `%tid` of each lane.
    pub tid: [[u32; 3]; LANES],
    /// Index of the warp in its CTA.
    pub index: u32,
    /// Per-lane local memory, allocated on first use.
    pub local: Vec<Vec<u8>>,
    /// `LDGSTS` copies not completed yet.
    pub copies: PendingCopies,
    /// Warpgroup MMAs in flight and the fence state.
    pub wgmma: WgmmaState,
    /// The warp's clock for [`crate::Stats::est_cycles`].
    pub clock: crate::timing::Clock,
}

impl Warp {
    /// A warp whose lanes `live` start at pc 0.
    pub fn new(slots: &[u32; 5], index: u32, tid: [[u32; 3]; LANES], live: u32) -> Warp {
        let n = |f: RegFile| slots[f.index()] as usize;
        Warp {
            r: vec![0; n(RegFile::R) * LANES],
            ur: vec![0; n(RegFile::UR)],
            p: vec![0; n(RegFile::P)],
            up: vec![false; n(RegFile::UP)],
            b: vec![0; n(RegFile::B)],
            groups: if live == 0 { Vec::new() } else { vec![(0, live)] },
            parked: 0,
            tid,
            index,
            local: vec![Vec::new(); LANES],
            copies: PendingCopies::default(),
            wgmma: WgmmaState::default(),
            clock: Default::default(),
        }
    }

    /// The 32-bit value of `loc` in `lane` (predicates read 0/1).
    #[inline]
    pub fn get(&self, loc: Loc, lane: usize) -> u32 {
        match loc {
            Loc::Zero(f) => u32::from(f.is_predicate()),
            // A slot past the file is the second word of a register that
            // only ever appears as a 32-bit operand: it was never written.
            Loc::Slot(RegFile::R, s) => self.r.get(s as usize * LANES + lane).copied().unwrap_or(0),
            Loc::Slot(RegFile::UR, s) => self.ur.get(s as usize).copied().unwrap_or(0),
            Loc::Slot(RegFile::P, s) => self.p.get(s as usize).map_or(0, |m| m >> lane & 1),
            Loc::Slot(RegFile::UP, s) => self.up.get(s as usize).map_or(0, |&b| u32::from(b)),
            Loc::Slot(RegFile::B, s) => self.b.get(s as usize).copied().unwrap_or(0),
        }
    }

    /// Word `k` of the tuple at `loc`.
    #[inline]
    pub fn get_word(&self, loc: Loc, k: u32, lane: usize) -> u32 {
        match loc {
            Loc::Slot(f, s) => self.get(Loc::Slot(f, s + k), lane),
            z => self.get(z, lane),
        }
    }

    /// Writes `v` to `loc` in `lane` (predicates take `v != 0`). Every
    /// destination has a slot (the program sized the files from them).
    #[inline]
    pub fn set(&mut self, loc: Loc, lane: usize, v: u32) {
        let Loc::Slot(file, s) = loc else { return };
        let s = s as usize;
        match file {
            RegFile::R => {
                if let Some(r) = self.r.get_mut(s * LANES + lane) {
                    *r = v;
                }
            }
            RegFile::UR => {
                if let Some(r) = self.ur.get_mut(s) {
                    *r = v;
                }
            }
            RegFile::P => {
                if let Some(m) = self.p.get_mut(s) {
                    *m = (*m & !(1 << lane)) | (u32::from(v != 0) << lane);
                }
            }
            RegFile::UP => {
                if let Some(p) = self.up.get_mut(s) {
                    *p = v != 0;
                }
            }
            RegFile::B => {
                if let Some(b) = self.b.get_mut(s) {
                    *b = v;
                }
            }
        }
    }

    /// Writes word `k` of the tuple at `loc`.
    #[inline]
    pub fn set_word(&mut self, loc: Loc, k: u32, lane: usize, v: u32) {
        if let Loc::Slot(f, s) = loc {
            self.set(Loc::Slot(f, s + k), lane, v);
        }
    }

    /// The group to run next: the one with the lowest pc, passing over
    /// groups waiting at a `BSYNC` while another can run. Running the
    /// lowest pc first lets the others' lanes catch up with it at the
    /// join point of structured code, where groups merge.
    pub fn next_group(&self) -> Option<usize> {
        let lowest = |waiting: bool| {
            (0..self.groups.len())
                .filter(|&i| waiting || self.groups[i].1 & !self.parked != 0)
                .min_by_key(|&i| self.groups[i].0)
        };
        lowest(false).or_else(|| lowest(true))
    }

    /// Replaces group `g` by the lanes `moves` (mask, pc), merging groups
    /// that meet and dropping empty ones.
    pub fn reschedule(&mut self, g: usize, moves: &[(u32, usize)]) {
        self.groups[g].1 = 0;
        for &(mask, pc) in moves {
            if mask == 0 {
                continue;
            }
            match self.groups.iter_mut().find(|x| x.0 == pc && x.1 != 0) {
                Some(x) => x.1 |= mask,
                None => self.groups.push((pc, mask)),
            }
        }
        self.groups.retain(|x| x.1 != 0);
    }
}
