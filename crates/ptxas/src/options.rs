//! Compilation options, as the library takes them (the command line maps
//! onto these).

use ori_ir::Sm;

use crate::manager::DumpAfter;
use crate::stats::{MemoryMeter, StatsRequest};

/// `--maxrregcount` / `--device-function-maxrregcount`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RegLimit {
    /// `archmax`: the architecture's maximum.
    ArchMax,
    /// `archmin`: the smallest limit that keeps the ABI working.
    ArchMin,
    /// A number, as given (range checks happen when it is applied).
    Count(i64),
}

/// A cache operator for `--def-load-cache` and friends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CacheOp {
    /// `ca`: cache at all levels.
    Ca,
    /// `cg`: cache globally (L2).
    Cg,
    /// `cs`: streaming.
    Cs,
    /// `lu`: last use.
    Lu,
    /// `cv`: volatile, fetch again.
    Cv,
    /// `wb`: write back.
    Wb,
    /// `wt`: write through.
    Wt,
}

impl CacheOp {
    /// Parses one of the operator names.
    pub fn from_name(name: &str) -> Option<CacheOp> {
        Some(match name {
            "ca" => CacheOp::Ca,
            "cg" => CacheOp::Cg,
            "cs" => CacheOp::Cs,
            "lu" => CacheOp::Lu,
            "cv" => CacheOp::Cv,
            "wb" => CacheOp::Wb,
            "wt" => CacheOp::Wt,
            _ => return None,
        })
    }
}

/// A phase manifest given instead of the embedded one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestSource {
    /// File name, for messages.
    pub file: String,
    /// Its text.
    pub text: String,
}

/// Everything that changes what [`crate::compile`] does.
/// A cancellation check: true stops the compilation.
pub type Cancel = std::sync::Arc<dyn Fn() -> bool + Send + Sync>;

#[derive(Clone)]
pub struct Options {
    /// The target architecture.
    pub arch: Sm,
    /// `compute_XY` / `lto_XY`: check the PTX only, produce no cubin.
    pub check_only: bool,
    /// `-O` level (default 3).
    pub opt_level: u8,
    /// `-O` was given (a debug PTX target then refuses a level above 0).
    pub opt_level_given: bool,
    /// `--maxrregcount`.
    pub max_regs: Option<RegLimit>,
    /// `-c`: relocatable object instead of a whole program.
    pub compile_only: bool,
    /// `--fmad`: contract multiply-add pairs (default true).
    pub fmad: bool,
    /// `-lineinfo`.
    pub line_info: bool,
    /// `-g`.
    pub device_debug: bool,
    /// `-e`: compile only these entries (all when empty).
    pub entries: Vec<String>,
    /// `--def-load-cache`.
    pub default_load_cache: Option<CacheOp>,
    /// `--def-store-cache`.
    pub default_store_cache: Option<CacheOp>,
    /// `-v`: report resource usage.
    pub verbose: bool,
    /// `--warn-on-spills`.
    pub warn_on_spills: bool,
    /// `--warn-on-local-memory-usage`.
    pub warn_on_local_memory_usage: bool,
    /// `--warn-on-double-precision-use`: warn on each PTX instruction with
    /// an `.f64` type (frontend.rs has ptxas's counts).
    pub warn_on_double_precision_use: bool,
    /// `--warning-as-error`.
    pub warnings_as_errors: bool,
    /// `-w`.
    pub disable_warnings: bool,
    /// `--phases FILE`: a manifest replacing the embedded one.
    pub manifest: Option<ManifestSource>,
    /// `--verify-each`.
    pub verify_each: bool,
    /// `--dump-ir-after`.
    pub dump_after: DumpAfter,
    /// `--compiler-stats`.
    pub stats: StatsRequest,
    /// Allocation counters for memory statistics.
    pub meter: Option<&'static dyn MemoryMeter>,
    /// Asked before every phase; compilation stops once it returns true
    /// (nvPTXCompiler's flow callback).
    pub cancel: Option<Cancel>,
    /// Threads that compile the functions of a module (`--split-compile`;
    /// 1: this thread only). The output does not depend on it.
    pub threads: usize,
    /// `--jobserver`: the threads beyond the first each hold a token of
    /// GNU make's jobserver (see `jobserver.rs`).
    pub jobserver: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            arch: Sm::DEFAULT,
            check_only: false,
            opt_level: 3,
            opt_level_given: false,
            max_regs: None,
            compile_only: false,
            fmad: true,
            line_info: false,
            device_debug: false,
            entries: Vec::new(),
            default_load_cache: None,
            default_store_cache: None,
            verbose: false,
            warn_on_spills: false,
            warn_on_local_memory_usage: false,
            warn_on_double_precision_use: false,
            warnings_as_errors: false,
            disable_warnings: false,
            manifest: None,
            verify_each: false,
            dump_after: DumpAfter::None,
            stats: StatsRequest::default(),
            meter: None,
            cancel: None,
            threads: 1,
            jobserver: false,
        }
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("arch", &self.arch)
            .field("check_only", &self.check_only)
            .field("opt_level", &self.opt_level)
            .field("max_regs", &self.max_regs)
            .field("compile_only", &self.compile_only)
            .field("manifest", &self.manifest.as_ref().map(|m| &m.file))
            .field("dump_after", &self.dump_after)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}
