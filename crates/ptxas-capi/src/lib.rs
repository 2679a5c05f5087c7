//! nvPTXCompiler's C API over our ptxas (`include/nvPTXCompiler.h`), built
//! as `libnvptxcompiler.so` and `libnvptxcompiler.a`.
//!
//! A handle owns its PTX, the logs (which grow over compilations, as
//! NVIDIA's do) and the cubin of the last successful compilation; nothing
//! is global and nothing touches the file system. The compilation itself
//! is `ptxas::cli::embed`, the command line run in memory. Behaviour that
//! the header leaves open follows NVIDIA's `libnvptxcompiler_static.a`
//! 13.5 (docs/capi.md lists what was measured). No panic crosses the C
//! boundary: one is reported as `NVPTXCOMPILE_ERROR_INTERNAL`.

#![allow(non_camel_case_types, reason = "the C API's own names")]

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use ptxas::cli::embed::{self, Outcome};

/// `nvPTXCompileResult`.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum nvPTXCompileResult {
    NVPTXCOMPILE_SUCCESS = 0,
    NVPTXCOMPILE_ERROR_INVALID_COMPILER_HANDLE = 1,
    NVPTXCOMPILE_ERROR_INVALID_INPUT = 2,
    NVPTXCOMPILE_ERROR_COMPILATION_FAILURE = 3,
    NVPTXCOMPILE_ERROR_INTERNAL = 4,
    NVPTXCOMPILE_ERROR_OUT_OF_MEMORY = 5,
    NVPTXCOMPILE_ERROR_COMPILER_INVOCATION_INCOMPLETE = 6,
    NVPTXCOMPILE_ERROR_UNSUPPORTED_PTX_VERSION = 7,
    NVPTXCOMPILE_ERROR_UNSUPPORTED_DEVSIDE_SYNC = 8,
    NVPTXCOMPILE_ERROR_CANCELLED = 9,
    NVPTXCOMPILE_PARSE_ONLY_SUCCESS = 10,
}

use nvPTXCompileResult::*;

/// The flow callback and its payload.
#[derive(Copy, Clone)]
struct Flow {
    callback: unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int,
    payload: *mut c_void,
}

// The header requires the callback to be thread-safe; the payload is the
// caller's to share.
unsafe impl Send for Flow {}
unsafe impl Sync for Flow {}

impl Flow {
    /// True when the callback says stop (it returns 1).
    fn stop(&self) -> bool {
        // SAFETY: the callback and payload the caller registered.
        unsafe { (self.callback)(self.payload, std::ptr::null_mut()) == 1 }
    }
}

/// What `nvPTXCompilerHandle` points at.
pub struct nvPTXCompiler {
    ptx: String,
    program: Option<Vec<u8>>,
    info_log: String,
    error_log: String,
    flow: Option<Flow>,
}

/// `nvPTXCompilerHandle`.
pub type nvPTXCompilerHandle = *mut nvPTXCompiler;

/// Runs `body`, turning a panic into `NVPTXCOMPILE_ERROR_INTERNAL`.
fn guarded(body: impl FnOnce() -> nvPTXCompileResult) -> nvPTXCompileResult {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(NVPTXCOMPILE_ERROR_INTERNAL)
}

/// The compiler behind `handle`, or the result for a null one.
///
/// # Safety
/// `handle` is null or came from [`nvPTXCompilerCreate`] and was not destroyed.
unsafe fn compiler<'a>(handle: nvPTXCompilerHandle) -> Result<&'a mut nvPTXCompiler, nvPTXCompileResult> {
    // SAFETY: the caller passes a live handle or null.
    unsafe { handle.as_mut() }.ok_or(NVPTXCOMPILE_ERROR_INVALID_COMPILER_HANDLE)
}

/// Stores `value` at `out`, or refuses a null `out`.
///
/// # Safety
/// `out` is null or valid for a write of `T`.
unsafe fn put<T>(out: *mut T, value: T) -> nvPTXCompileResult {
    if out.is_null() {
        return NVPTXCOMPILE_ERROR_INVALID_INPUT;
    }
    // SAFETY: checked non-null; valid by the caller's contract.
    unsafe { out.write(value) };
    NVPTXCOMPILE_SUCCESS
}

/// The release whose ptxas this library follows.
///
/// # Safety
/// `major` and `minor` are null or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvPTXCompilerGetVersion(major: *mut c_uint, minor: *mut c_uint) -> nvPTXCompileResult {
    if major.is_null() || minor.is_null() {
        return NVPTXCOMPILE_ERROR_INVALID_INPUT;
    }
    let (ma, mi) = embed::version();
    // SAFETY: both checked non-null.
    unsafe {
        major.write(ma);
        minor.write(mi);
    }
    NVPTXCOMPILE_SUCCESS
}

/// PTX ISA versions as (major, minor).
fn versions() -> impl Iterator<Item = [c_int; 2]> {
    ptxas::version::PTX_VERSIONS.iter().map(|v| {
        let (major, minor) = v.split_once('.').expect("versions are major.minor");
        [major.parse().expect("a number"), minor.parse().expect("a number")]
    })
}

/// How many PTX ISA versions are read.
///
/// # Safety
/// `count` is null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvPTXCompilerGetNumSupportedVersions(count: *mut c_int) -> nvPTXCompileResult {
    // SAFETY: forwarded contract.
    unsafe { put(count, versions().count() as c_int) }
}

/// The PTX ISA versions read, one `{major, minor}` row each.
///
/// # Safety
/// `rows` is null or valid for as many rows as
/// [`nvPTXCompilerGetNumSupportedVersions`] gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvPTXCompilerGetSupportedVersions(rows: *mut [c_int; 2]) -> nvPTXCompileResult {
    if rows.is_null() {
        return NVPTXCOMPILE_ERROR_INVALID_INPUT;
    }
    for (i, row) in versions().enumerate() {
        // SAFETY: the caller sized the array by the count.
        unsafe { rows.add(i).write(row) };
    }
    NVPTXCOMPILE_SUCCESS
}

/// The SM numbers of `--list-arch`.
fn archs() -> impl Iterator<Item = c_int> {
    ptxas::version::list_arch()
        .lines()
        .map(|l| l.parse().expect("list-arch prints numbers"))
        .collect::<Vec<_>>()
        .into_iter()
}

/// How many targets are known.
///
/// # Safety
/// `count` is null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvPTXCompilerGetNumSupportedArchs(count: *mut c_int) -> nvPTXCompileResult {
    // SAFETY: forwarded contract.
    unsafe { put(count, archs().count() as c_int) }
}

/// The SM numbers `--gpu-name` accepts.
///
/// # Safety
/// `out` is null or valid for as many ints as
/// [`nvPTXCompilerGetNumSupportedArchs`] gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvPTXCompilerGetSupportedArchs(out: *mut c_int) -> nvPTXCompileResult {
    if out.is_null() {
        return NVPTXCOMPILE_ERROR_INVALID_INPUT;
    }
    for (i, sm) in archs().enumerate() {
        // SAFETY: the caller sized the array by the count.
        unsafe { out.add(i).write(sm) };
    }
    NVPTXCOMPILE_SUCCESS
}

/// A compiler for the `len` bytes of PTX at `ptx`.
///
/// # Safety
/// `handle` is null or valid for a write; `ptx` is null or valid for
/// `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvPTXCompilerCreate(
    handle: *mut nvPTXCompilerHandle,
    len: usize,
    ptx: *const c_char,
) -> nvPTXCompileResult {
    guarded(|| {
        if handle.is_null() || ptx.is_null() {
            return NVPTXCOMPILE_ERROR_INVALID_INPUT;
        }
        // SAFETY: `ptx` holds `len` bytes by the caller's contract.
        let bytes = unsafe { std::slice::from_raw_parts(ptx.cast::<u8>(), len) };
        // PTX is ASCII; a stray byte (in a comment, say) is the front end's
        // to judge, with NVIDIA's message, not a reason to refuse the handle.
        let ptx = String::from_utf8_lossy(bytes).into_owned();
        let compiler = Box::new(nvPTXCompiler {
            ptx,
            program: None,
            info_log: String::new(),
            error_log: String::new(),
            flow: None,
        });
        // SAFETY: checked non-null.
        unsafe { handle.write(Box::into_raw(compiler)) };
        NVPTXCOMPILE_SUCCESS
    })
}

/// Frees the compiler and nulls the handle.
///
/// # Safety
/// `handle` is null or points at a handle that is null or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvPTXCompilerDestroy(handle: *mut nvPTXCompilerHandle) -> nvPTXCompileResult {
    if handle.is_null() {
        return NVPTXCOMPILE_ERROR_INVALID_INPUT;
    }
    // SAFETY: checked non-null.
    let raw = unsafe { handle.read() };
    if raw.is_null() {
        return NVPTXCOMPILE_ERROR_INVALID_COMPILER_HANDLE;
    }
    // SAFETY: a live handle from `nvPTXCompilerCreate`, owned by the box.
    drop(unsafe { Box::from_raw(raw) });
    // SAFETY: checked non-null.
    unsafe { handle.write(std::ptr::null_mut()) };
    NVPTXCOMPILE_SUCCESS
}

/// Compiles with ptxas's command-line options.
///
/// # Safety
/// `handle` is null or live; `options` is null (with a count of 0) or holds
/// `count` pointers to NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvPTXCompilerCompile(
    handle: nvPTXCompilerHandle,
    count: c_int,
    options: *const *const c_char,
) -> nvPTXCompileResult {
    guarded(|| {
        // SAFETY: forwarded contract.
        let compiler = match unsafe { compiler(handle) } {
            Ok(c) => c,
            Err(e) => return e,
        };
        let count = usize::try_from(count).unwrap_or(0);
        if count > 0 && options.is_null() {
            return NVPTXCOMPILE_ERROR_INVALID_INPUT;
        }
        let mut args = Vec::with_capacity(count);
        for i in 0..count {
            // SAFETY: `options` holds `count` pointers.
            let arg = unsafe { options.add(i).read() };
            if arg.is_null() {
                return NVPTXCOMPILE_ERROR_INVALID_INPUT;
            }
            // SAFETY: each is a NUL-terminated string.
            args.push(unsafe { CStr::from_ptr(arg) }.to_string_lossy().into_owned());
        }
        let cancel = compiler.flow.map(|flow| Arc::new(move || flow.stop()) as ptxas::Cancel);
        let run = embed::compile(&args, &compiler.ptx, cancel);
        compiler.info_log += &run.info_log;
        compiler.error_log += &run.error_log;
        match run.outcome {
            Outcome::Compiled(cubin) => {
                compiler.program = Some(cubin);
                NVPTXCOMPILE_SUCCESS
            }
            Outcome::ParseOnly => NVPTXCOMPILE_PARSE_ONLY_SUCCESS,
            Outcome::Failed => NVPTXCOMPILE_ERROR_COMPILATION_FAILURE,
            Outcome::Cancelled => NVPTXCOMPILE_ERROR_CANCELLED,
        }
    })
}

/// Size of the last cubin.
///
/// # Safety
/// `handle` is null or live; `size` is null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvPTXCompilerGetCompiledProgramSize(
    handle: nvPTXCompilerHandle,
    size: *mut usize,
) -> nvPTXCompileResult {
    // SAFETY: forwarded contract.
    let compiler = match unsafe { compiler(handle) } {
        Ok(c) => c,
        Err(e) => return e,
    };
    match &compiler.program {
        // SAFETY: forwarded contract.
        Some(program) => unsafe { put(size, program.len()) },
        None => NVPTXCOMPILE_ERROR_COMPILER_INVOCATION_INCOMPLETE,
    }
}

/// Copies the last cubin to `image`.
///
/// # Safety
/// `handle` is null or live; `image` is null or valid for as many bytes as
/// [`nvPTXCompilerGetCompiledProgramSize`] gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvPTXCompilerGetCompiledProgram(
    handle: nvPTXCompilerHandle,
    image: *mut c_void,
) -> nvPTXCompileResult {
    // SAFETY: forwarded contract.
    let compiler = match unsafe { compiler(handle) } {
        Ok(c) => c,
        Err(e) => return e,
    };
    let Some(program) = &compiler.program else { return NVPTXCOMPILE_ERROR_COMPILER_INVOCATION_INCOMPLETE };
    if image.is_null() {
        return NVPTXCOMPILE_ERROR_INVALID_INPUT;
    }
    // SAFETY: the caller sized `image` by the program's size.
    unsafe { std::ptr::copy_nonoverlapping(program.as_ptr(), image.cast::<u8>(), program.len()) };
    NVPTXCOMPILE_SUCCESS
}

/// A log's size as the API gives it: with its NUL, 0 when empty.
fn log_size(log: &str) -> usize {
    if log.is_empty() { 0 } else { log.len() + 1 }
}

/// Copies `log` and its NUL to `out` (only the NUL when empty, as NVIDIA's
/// library does).
///
/// # Safety
/// `out` is null or valid for `log.len() + 1` bytes.
unsafe fn copy_log(log: &str, out: *mut c_char) -> nvPTXCompileResult {
    if out.is_null() {
        return NVPTXCOMPILE_ERROR_INVALID_INPUT;
    }
    // SAFETY: the caller sized `out` by the log's size.
    unsafe {
        std::ptr::copy_nonoverlapping(log.as_ptr(), out.cast::<u8>(), log.len());
        out.add(log.len()).write(0);
    }
    NVPTXCOMPILE_SUCCESS
}

macro_rules! log_functions {
    ($size:ident, $get:ident, $field:ident, $what:literal) => {
        #[doc = concat!("Size of the ", $what, " log, its NUL included (0 when empty).")]
        ///
        /// # Safety
        /// `handle` is null or live; `size` is null or valid for a write.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $size(handle: nvPTXCompilerHandle, size: *mut usize) -> nvPTXCompileResult {
            // SAFETY: forwarded contract.
            match unsafe { compiler(handle) } {
                // SAFETY: forwarded contract.
                Ok(c) => unsafe { put(size, log_size(&c.$field)) },
                Err(e) => e,
            }
        }

        #[doc = concat!("Copies the ", $what, " log with its NUL.")]
        ///
        /// # Safety
        /// `handle` is null or live; `log` is null or valid for the log's size.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $get(handle: nvPTXCompilerHandle, log: *mut c_char) -> nvPTXCompileResult {
            // SAFETY: forwarded contract.
            match unsafe { compiler(handle) } {
                // SAFETY: forwarded contract.
                Ok(c) => unsafe { copy_log(&c.$field, log) },
                Err(e) => e,
            }
        }
    };
}

log_functions!(nvPTXCompilerGetErrorLogSize, nvPTXCompilerGetErrorLog, error_log, "error");
log_functions!(nvPTXCompilerGetInfoLogSize, nvPTXCompilerGetInfoLog, info_log, "information");

/// Registers the flow callback, asked before compiling and between phases.
///
/// # Safety
/// `handle` is null or live; `callback` is null or a thread-safe function.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvPTXCompilerSetFlowCallback(
    handle: nvPTXCompilerHandle,
    callback: Option<unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int>,
    payload: *mut c_void,
) -> nvPTXCompileResult {
    // SAFETY: forwarded contract.
    let compiler = match unsafe { compiler(handle) } {
        Ok(c) => c,
        Err(e) => return e,
    };
    let Some(callback) = callback else { return NVPTXCOMPILE_ERROR_INVALID_INPUT };
    compiler.flow = Some(Flow { callback, payload });
    NVPTXCOMPILE_SUCCESS
}
