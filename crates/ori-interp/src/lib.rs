//! SIMT interpreter of Ori functions, virtual or physical registers.
//!
//! [`load_kernel`] turns a kernel of a cubin into an Ori function (the
//! decoder of `mercury-encode`); [`run`] executes a function over a grid
//! of CTAs of 32-lane warps with guards, divergence and reconvergence,
//! barriers, shared/global/local/constant memory and atomics. Each
//! operation's semantics is a pure function in [`sem`], shared with
//! constant folding. Control words are ignored: the program order is run
//! (timing is the hazard checker's business).

pub mod corpus;
mod exec;
mod grid;
mod in_flight;
mod kind;
mod link;
mod loader;
pub mod memory;
mod printf;
mod program;
pub mod sem;
mod statics;
pub mod timing;
mod warp;

pub use loader::{Kernel, decode_code, load_kernel};
pub use memory::Global;
pub use statics::Statics;

/// The generic address of a thread's local memory (`c[0x0][0x20]`, what
/// `cvta.local` adds): generic `LD`/`ST` inside `[LOCAL_WINDOW,
/// LOCAL_WINDOW + local bytes)` reach local memory. Its low word is not 0,
/// so code that took a generic address for a local one faults.
pub const LOCAL_WINDOW: u64 = 0x7e00_1000_0000;

/// External functions the interpreter runs itself, by name: the address
/// it gives each (in constant bank 4) is `EXTERNAL_BASE + 16 * index`,
/// outside code and memory; `CALL.ABS` there runs the function.
pub const EXTERNALS: &[&str] = &["vprintf"];

/// The address of the first of [`EXTERNALS`].
pub const EXTERNAL_BASE: u64 = 0xfff0_0000_0000_0000;

/// The address the interpreter gives external function `name`.
pub fn external_address(name: &str) -> Option<u64> {
    EXTERNALS.iter().position(|&e| e == name).map(|i| EXTERNAL_BASE + 16 * i as u64)
}

use std::fmt;

/// A kernel launch: shape, parameter bytes, extra constant banks.
#[derive(Clone, Debug)]
pub struct Launch {
    /// CTAs per grid dimension.
    pub grid: [u32; 3],
    /// Threads per CTA dimension.
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory.
    pub dyn_shared: u32,
    /// The parameter block, as laid out in constant bank 0.
    pub params: Vec<u8>,
    /// Other constant banks (`__constant__` data in bank 3, ...).
    pub banks: Vec<(u8, Vec<u8>)>,
    /// Bytes of local memory per thread (the stack top at `c[0x0][0x28]`).
    pub local_bytes: u32,
    /// Gives up after this many warp-instructions (a hang guard).
    pub max_warp_insts: u64,
}

impl Launch {
    /// A launch with no dynamic shared memory, 16 KiB of local memory per
    /// thread and a limit of 10^10 warp-instructions.
    pub fn new(grid: [u32; 3], block: [u32; 3], params: Vec<u8>) -> Launch {
        Launch {
            grid,
            block,
            dyn_shared: 0,
            params,
            banks: Vec::new(),
            local_bytes: 16 << 10,
            max_warp_insts: 10_000_000_000,
        }
    }
}

/// What a run executed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Instructions issued, counted once per warp.
    pub warp_insts: u64,
    /// Instructions times active lanes.
    pub thread_insts: u64,
    /// The schedule's cost as the control words state it: per executed
    /// warp-instruction its stall count (at least 1), summed. Scoreboard
    /// waits and memory latency are not modelled, nor several warps
    /// sharing a scheduler: this compares two schedules of one kernel on
    /// the same inputs (fixed-latency stalls and instruction count), not a
    /// run time.
    pub issue_cycles: u64,
    /// Every warp's run time estimated with memory latency
    /// ([`timing`]: scoreboard waits last as long as the model's unit
    /// takes), summed over warps. Like `issue_cycles` it compares two
    /// schedules of one kernel, not a run time.
    pub est_cycles: u64,
    /// What `vprintf` printed, one string per call and thread, in the
    /// order the interpreter ran them.
    pub printf: Vec<String>,
}

/// Why a kernel could not be loaded or run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The cubin could not be read or decoded.
    Load(String),
    /// The launch is malformed (empty or oversized CTA, ...).
    Launch(String),
    /// An instruction cannot be prepared.
    Unsupported {
        /// The instruction, as Ori text.
        inst: String,
        /// What is missing.
        what: String,
    },
    /// An instruction faulted or is not modelled.
    Fault {
        /// Its index in layout order.
        pc: usize,
        /// The instruction, as Ori text.
        inst: String,
        /// What went wrong.
        what: String,
        /// The CTA.
        ctaid: [u32; 3],
        /// The warp within the CTA.
        warp: u32,
    },
    /// The instruction limit was reached.
    Timeout {
        /// The limit.
        limit: u64,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Load(m) => write!(f, "load: {m}"),
            Error::Launch(m) => write!(f, "bad launch: {m}"),
            Error::Unsupported { inst, what } => write!(f, "`{inst}`: {what}"),
            Error::Fault { pc, inst, what, ctaid, warp } => {
                write!(f, "instruction {pc} `{}` (CTA {ctaid:?}, warp {warp}): {what}", inst.trim())
            }
            Error::Timeout { limit } => write!(f, "gave up after {limit} warp-instructions"),
        }
    }
}

impl std::error::Error for Error {}

/// Runs `func` (compiled for `sm_<sm>`, with `static_shared` bytes of
/// static shared memory) over `launch`, on `global`.
pub fn run(
    func: &ori_ir::Function,
    sm: u32,
    static_shared: u32,
    launch: &Launch,
    global: &mut Global,
) -> Result<Stats, Error> {
    let prog = program::Program::new(func)?;
    // The function's literal pool is its bank 2 (a cubin's comes in the
    // launch, from `.nv.constant2.<fn>`).
    if !func.attrs.bank2.is_empty() && !launch.banks.iter().any(|b| b.0 == 2) {
        let mut launch = launch.clone();
        launch.banks.push((2, func.attrs.bank2.iter().flat_map(|v| v.to_le_bytes()).collect()));
        return grid::run_grid(func, &prog, sm, static_shared, &launch, global);
    }
    grid::run_grid(func, &prog, sm, static_shared, launch, global)
}

/// Runs a loaded kernel, with the cubin's constant banks unless the
/// launch gives its own.
pub fn run_kernel(kernel: &Kernel, launch: &Launch, global: &mut Global) -> Result<Stats, Error> {
    // `__device__` variables go into global memory, their addresses into
    // bank 4 (over the cubin's unrelocated copy).
    let placed = kernel.statics.place(global);
    let mut missing: Vec<(u8, Vec<u8>)> =
        placed.into_iter().filter(|b| b.0 == 4 && !launch.banks.iter().any(|l| l.0 == b.0)).collect();
    let from_cubin: Vec<(u8, Vec<u8>)> =
        kernel.banks.iter().filter(|b| !launch.banks.iter().chain(&missing).any(|l| l.0 == b.0)).cloned().collect();
    missing.extend(from_cubin);
    if missing.is_empty() {
        return run(&kernel.func, kernel.sm, kernel.static_shared, launch, global);
    }
    let mut launch = launch.clone();
    launch.banks.extend(missing);
    run(&kernel.func, kernel.sm, kernel.static_shared, &launch, global)
}
