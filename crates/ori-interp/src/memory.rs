//! Memory spaces: global buffers, and the byte arrays of shared, local and
//! constant memory, each access bounds-checked.

/// Global memory: buffers at fixed device addresses; anything else faults.
#[derive(Clone, Debug, Default)]
pub struct Global {
    buffers: Vec<(u64, Vec<u8>)>,
    next: u64,
    /// The modules whose variables live here (`Statics::place`): a module
    /// is placed once, as CUDA loads it once, so its variables keep their
    /// values across launches.
    pub(crate) modules: Vec<PlacedModule>,
}

/// A module whose variables were placed in global memory.
#[derive(Clone, Debug)]
pub(crate) struct PlacedModule {
    /// Its variables.
    pub(crate) statics: crate::Statics,
    /// The constant banks placing them gave: (bank, bytes).
    pub(crate) banks: Vec<(u8, Vec<u8>)>,
}

/// Where the first buffer is placed: a typical device address, far from 0
/// so that a null or small integer used as a pointer faults.
const FIRST_ADDR: u64 = 0x7f00_0000_0000;

impl Global {
    /// No buffers.
    pub fn new() -> Global {
        Global { buffers: Vec::new(), next: FIRST_ADDR, modules: Vec::new() }
    }

    /// Places `bytes` at a fresh 256-aligned address (with a gap after the
    /// previous buffer so that overruns fault) and returns the address.
    pub fn alloc(&mut self, bytes: Vec<u8>) -> u64 {
        let addr = self.next;
        self.next = (addr + bytes.len() as u64 + 4096 + 255) & !255;
        self.buffers.push((addr, bytes));
        addr
    }

    /// The bytes of the buffer at `addr` (as returned by [`Global::alloc`]).
    pub fn buffer(&self, addr: u64) -> Option<&[u8]> {
        self.buffers.iter().find(|b| b.0 == addr).map(|b| b.1.as_slice())
    }

    /// `len` bytes at `addr`, all inside one buffer.
    pub fn slice_mut(&mut self, addr: u64, len: usize) -> Option<&mut [u8]> {
        let i = self.buffers.partition_point(|b| b.0 <= addr).checked_sub(1)?;
        let (base, data) = &mut self.buffers[i];
        let off = usize::try_from(addr - *base).ok()?;
        data.get_mut(off..off.checked_add(len)?)
    }
}

/// `len` bytes at `addr` of a flat space (shared, local, constant).
pub fn flat_mut(space: &mut [u8], addr: u64, len: usize) -> Option<&mut [u8]> {
    let off = usize::try_from(addr).ok()?;
    space.get_mut(off..off.checked_add(len)?)
}

/// Reads up to 8 little-endian bytes.
pub fn load_le(bytes: &[u8]) -> u64 {
    let mut v = [0u8; 8];
    v[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(v)
}

/// Writes the low `bytes.len()` bytes of `value`.
pub fn store_le(bytes: &mut [u8], value: u64) {
    let n = bytes.len();
    bytes.copy_from_slice(&value.to_le_bytes()[..n]);
}
