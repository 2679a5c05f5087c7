//! What the cubin builder (`elfw::build`) needs of a compiled module: per
//! function its encoded code and metadata, module variables, target and
//! output mode. Plain data: the back end fills it in, the ELF builder lays it
//! out the way NVIDIA's ptxas does.

/// A compiled module, ready to be written as a cubin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectModule {
    /// The real SM the code is for.
    pub target: Target,
    /// The PTX `.target` (virtual SM), e.g. 80; recorded in `.note.nv.cuinfo`.
    pub ptx_target: u32,
    /// Whole program (ET_EXEC) or `-c` (ET_REL).
    pub mode: OutputMode,
    /// The options as ptxas records them in `.note.nv.tkinfo`, e.g. `"-arch sm_80 "`.
    pub command_line: String,
    /// Functions in the order they were compiled (ptxas's order decides the
    /// order of sections and symbols).
    pub functions: Vec<Function>,
    /// Module-scope variables in declaration order.
    pub variables: Vec<Variable>,
    /// Functions called but not defined here (`vprintf`), in first-use order.
    pub externals: Vec<String>,
    /// EICOMPAT_ATTR_ISA_CLASS (sm_90+): 1 for baseline code, 2 when cluster
    /// or TMA features are used, 4 with `sm_90a`-only instructions (measured).
    pub isa_class: u8,
    /// Functions whose address is taken, with their signatures
    /// (`.nv.callgraph` group -2).
    pub address_taken: Vec<Prototype>,
    /// `extern .shared` arrays (dynamic shared memory), in first-use order.
    pub extern_shared: Vec<ExternShared>,
    /// Call prototypes of called library routines and externals
    /// (`.nv.prototype`), in ptxas's order.
    pub prototypes: Vec<Prototype>,
    /// Whole program: module variables whose 64-bit address the code loads
    /// from constant bank 4 (`.nv.constant4`), in slot order.
    pub address_table: Vec<String>,
    /// The line tables, when ptxas writes them.
    pub line_info: Option<LineInfo>,
    /// `-g`: the PTX's DWARF sections, in ptxas's order.
    pub dwarf: Vec<DebugSection>,
}

/// A DWARF section copied from the PTX (`-g`): its bytes with the values
/// ptxas resolved, and its relocations (always RELA, measured on sm_80 and
/// sm_90).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DebugSection {
    /// Name with its dot, e.g. `.debug_info`.
    pub name: String,
    /// Contents.
    pub bytes: Vec<u8>,
    /// 64-bit code addresses (`R_CUDA_64`), in section order.
    pub relocations: Vec<DebugRelocation>,
}

/// A code address in a [`DebugSection`]: `symbol + addend`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DebugRelocation {
    /// Byte offset in the section.
    pub offset: u64,
    /// The function whose code it points into.
    pub symbol: String,
    /// Offset in that code.
    pub addend: i64,
}

/// An `extern .shared` array (with `-c` an undefined symbol for the linker).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExternShared {
    /// Symbol name.
    pub name: String,
    /// Alignment in bytes.
    pub align: u64,
}

/// The call prototype ptxas records for a callee.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prototype {
    /// The called function (a module function or an external).
    pub function: String,
    /// ptxas's signature string, e.g. `#liiii`.
    pub signature: String,
}

/// The SM and its suffix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Target {
    /// SM number: 75, 80, 86, 89, 90, 100, 120, ...
    pub sm: u32,
    /// `sm_XYa`: architecture-specific features (`.nv.compat` accelerator target).
    pub accelerated: bool,
}

/// Output kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputMode {
    /// Whole-program executable (ET_EXEC), ptxas's default.
    #[default]
    WholeProgram,
    /// Relocatable object for nvlink (`-c`, ET_REL).
    Relocatable,
}

/// Kernel or callable function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FunctionKind {
    /// `.entry`.
    #[default]
    Entry,
    /// `.func` (its own section only with `-c`; cloned into callers otherwise).
    Device,
}

/// ELF binding of a symbol.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Linkage {
    /// `.visible` / `.extern`: a GLOBAL symbol.
    #[default]
    Global,
    /// Not visible outside the module: a LOCAL symbol.
    Local,
    /// `.weak`.
    Weak,
}

/// One compiled function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Function {
    /// Symbol name (mangled, as in the PTX).
    pub name: String,
    /// Entry or device function.
    pub kind: FunctionKind,
    /// Binding of the function's symbol.
    pub linkage: Linkage,
    /// One of ptxas's own library routines (`__cuda_sm20_div_u64`, ...),
    /// not from the PTX: it gets no EIATTR_LANGUAGE.
    pub builtin: bool,
    /// Encoded instructions, padded to a multiple of 128 bytes as ptxas pads them.
    pub code: Vec<u8>,
    /// Registers per thread (EIATTR_REGCOUNT).
    pub registers: u32,
    /// Named barriers used (highest id + 1; EIATTR_NUM_BARRIERS).
    pub barriers: u32,
    /// Per-thread stack frame in bytes (EIATTR_FRAME_SIZE).
    pub frame_size: u32,
    /// Stack bytes needed including callees (EIATTR_MIN_STACK_SIZE for whole
    /// programs, EIATTR_MAX_STACK_SIZE with `-c`).
    pub stack_size: u32,
    /// EIATTR_CRS_STACK_SIZE, when ptxas would write it.
    pub crs_stack_size: Option<u32>,
    /// Static shared memory of this function (`.nv.shared.<fn>`).
    pub shared: SharedMemory,
    /// Constant bank 2 (`.nv.constant2.<fn>`, sm_7x/sm_8x): constants the
    /// compiler moved out of the code.
    pub bank2: Option<ConstantBank>,
    /// Kernel parameters in order (entries only).
    pub params: Vec<Param>,
    /// Byte offsets of every EXIT in `code`.
    pub exit_offsets: Vec<u32>,
    /// Launch-bound directives.
    pub launch: LaunchBounds,
    /// Instruction offsets and flags the driver needs.
    pub notes: CodeNotes,
    /// Relocations left in the code for the linker or driver, in the order
    /// the compiler made them (code order); ptxas writes them last-first.
    pub relocations: Vec<CodeRelocation>,
    /// Relocations the compiler applied itself (whole program). ptxas keeps
    /// traces of them: an empty relocation section on sm_90+, section names
    /// in the string tables on sm_7x/sm_8x.
    pub resolved_relocations: Vec<CodeRelocation>,
    /// Callees cloned into this function's code (whole program) with their
    /// place in `code`.
    pub subroutines: Vec<Subroutine>,
    /// Call-frame information for `.debug_frame`.
    pub frame: FrameInfo,
    /// Functions this one calls directly, in call order (`.nv.callgraph`).
    pub callees: Vec<String>,
    /// Functions whose address this one takes (possible indirect callees).
    pub address_taken: Vec<String>,
    /// The signature (as in [`Prototype`]) of each indirect call site.
    pub indirect_calls: Vec<String>,
    /// Its rows of `.debug_line` (source lines of the PTX's `.loc`s);
    /// empty: no sequence.
    pub source_lines: Vec<LineRow>,
    /// Its rows of `.nv_debug_line_sass` (lines of `.nv_debug_ptx_txt`).
    pub ptx_lines: Vec<LineRow>,
}

/// The line tables (`-lineinfo`, or `.loc` in the PTX): `.debug_line`,
/// `.nv_debug_line_sass` and `.nv_debug_ptx_txt`, with the rows of each
/// function in [`Function::source_lines`] and [`Function::ptx_lines`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineInfo {
    /// `.nv_debug_ptx_txt`: the PTX as ptxas keeps it, one NUL-terminated
    /// string per line.
    pub ptx_text: Vec<u8>,
    /// Adler-32 of the PTX file: with `-c` ptxas names the text section
    /// `.nv_debug_ptx_txt.<checksum>` (measured).
    pub ptx_checksum: u32,
    /// `.debug_line`'s include directories.
    pub directories: Vec<String>,
    /// `.debug_line`'s file names.
    pub files: Vec<LineFile>,
    /// `.debug_str`: the PTX's `.debug_str` section (ptxas copies it with
    /// the line tables), which the inlining extension's function names
    /// point into.
    pub debug_str: Option<Vec<u8>>,
    /// NVIDIA's inlining extension is used (rows with
    /// [`LineRow::inline`]): ptxas then ends the `.debug_line` header
    /// with 4 zero bytes (measured on Triton's kernels).
    pub inline_extension: bool,
}

/// A file of a line table's header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineFile {
    /// The name, without its directory.
    pub name: String,
    /// 1-based index into [`LineInfo::directories`]; 0: none.
    pub directory: u32,
    /// Modification time (`.file`'s optional second argument).
    pub mtime: u64,
    /// Size in bytes (`.file`'s optional third argument).
    pub size: u64,
}

/// One row of a line table: from `offset` on, the code is at `line` of
/// `file`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineRow {
    /// Byte offset in the function's code.
    pub offset: u32,
    /// File number (`.nv_debug_line_sass`: the PTX text, 0 in whole
    /// programs and 1 with `-c`, whose table names the text section).
    pub file: u32,
    /// 1-based line.
    pub line: u32,
    /// The row is marked `prologue_end` (each function's second row).
    pub prologue_end: bool,
    /// NVIDIA's inlining extension (extended opcode 0x90), written before
    /// the row when set: its two operands,
    /// the 1-based row number of the call site (0: not inlined) and a
    /// function-name offset into `.debug_str`.
    pub inline: Option<[u32; 2]>,
}

/// Static shared memory of a function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedMemory {
    /// Bytes of the `.nv.shared.<fn>` section (0: no section).
    pub size: u64,
    /// Alignment of the section.
    pub align: u64,
    /// Named function-scope variables inside it (given symbols with `-c`).
    pub variables: Vec<SharedVariable>,
    /// The function declares `.shared` variables of its own (the section then
    /// gets a section symbol; sections holding only ptxas's reserved area
    /// for `extern .shared` users do not).
    pub declared: bool,
    /// The function uses `extern .shared` (dynamic) memory: whole programs
    /// then get a `.nv.shared.<fn>` section even without static shared memory.
    pub uses_extern: bool,
}

/// A named piece of a function's shared memory or constant bank.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedVariable {
    /// Symbol name (`$___ZZ...`).
    pub name: String,
    /// Offset in `.nv.shared.<fn>`.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

/// A per-function constant bank.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConstantBank {
    /// Contents.
    pub bytes: Vec<u8>,
    /// Section alignment.
    pub align: u64,
    /// Named pieces (`<fn>.const_opt.<from>.<to>`, symbols with `-c`).
    pub symbols: Vec<SharedVariable>,
}

/// One kernel parameter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Param {
    /// Offset within the parameter block (PTX layout).
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// What it points to, when declared `.ptr`.
    pub pointee: Option<crate::function::Pointee>,
}

/// `.maxntid`, `.reqntid`, `.maxnreg`, `.minnctapersm`, `.reqnctapercluster`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchBounds {
    /// `.maxntid x, y, z`.
    pub max_threads: Option<[u32; 3]>,
    /// `.reqntid x, y, z`.
    pub req_threads: Option<[u32; 3]>,
    /// `.maxnreg n` (EIATTR_MAXREG_COUNT; 0xff when absent).
    pub max_registers: Option<u32>,
    /// `.minnctapersm n` (ptxas 13.5 records no attribute for it).
    pub min_ctas_per_sm: Option<u32>,
    /// `.reqnctapercluster x, y, z` / `__cluster_dims__` (sm_90+).
    pub cluster_dims: Option<[u32; 3]>,
}

/// Instruction offsets and usage flags recorded in `.nv.info.<fn>`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeNotes {
    /// Warp-synchronous instructions with a mask operand, with the mask
    /// register (0xffffffff for an immediate mask).
    pub coop_group: Vec<(u32, u32)>,
    /// Warp-wide integer instructions (EIATTR_INT_WARP_WIDE_INSTR_OFFSETS).
    pub int_warp_wide: Vec<u32>,
    /// System-call sites (`vprintf`, ...).
    pub syscalls: Vec<u32>,
    /// mbarrier instructions: the EIATTR_MBARRIER_INSTR_OFFSETS payload words.
    pub mbarrier_instrs: Vec<u32>,
    /// Number of mbarriers (EIATTR_NUM_MBARRIERS), if any.
    pub mbarriers: Option<u16>,
    /// The kernel uses `wmma`.
    pub uses_wmma: bool,
    /// The kernel reads `%ctaid.z`.
    pub uses_ctaid_z: bool,
    /// EIATTR_ANNOTATIONS payload (spill annotations of `.maxnreg` kernels).
    pub annotations: Option<Vec<u8>>,
}

/// A relocation against this function's code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeRelocation {
    /// Byte offset of the patched instruction.
    pub offset: u64,
    /// R_CUDA relocation type.
    pub kind: u32,
    /// Target symbol: a function, variable or section name.
    pub symbol: String,
    /// Addend.
    pub addend: i64,
}

/// A callee cloned into its caller's code (whole program): a LOCAL FUNC symbol.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subroutine {
    /// Symbol name (`$caller$callee`).
    pub name: String,
    /// Offset in the caller's code.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// Its stack frame (EIATTR_FRAME_SIZE).
    pub frame_size: u32,
    /// Its call-frame information.
    pub frame: FrameInfo,
    /// Its offset in the caller's code as ptxas laid the code out before
    /// finalization (the Mercury form, sm_90+), where a cloned callee sits
    /// 0x10-0x50 bytes further on than in the final code. ptxas writes this
    /// offset into the callee's `.debug_frame` FDE location field on RELA
    /// targets (the relocation's addend stays `offset`). `None`: `offset`.
    pub mercury_offset: Option<u64>,
}

/// Call-frame information of one function for `.debug_frame` (DWARF CFI,
/// 64-bit format, code alignment 4, data alignment -4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameInfo {
    /// Return-address register (0xffffffff for kernels).
    pub return_register: u32,
    /// The CIE's initial instructions.
    pub cie_instructions: Vec<u8>,
    /// 64-bit code addresses inside `cie_instructions` (cloned callees):
    /// relocated against the function that contains the code.
    pub cie_relocations: Vec<FrameRelocation>,
    /// The FDE's instructions.
    pub fde_instructions: Vec<u8>,
    /// Bytes ptxas dropped from the FDE after placing `.debug_frame`
    /// entries (sm_90+ drops the leading advance of kernels without calls);
    /// `-c` CIE-pointer relocations of later entries still count them.
    pub dropped_bytes: u32,
}

/// A code address inside call-frame instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameRelocation {
    /// Offset of the 64-bit field in the instructions.
    pub offset: u32,
    /// Offset of the address in the containing function's code.
    pub addend: u64,
}

/// Where a module variable lives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VariableSpace {
    /// `.global` (`.nv.global` / `.nv.global.init`).
    #[default]
    Global,
    /// `.const` (constant bank 3, `.nv.constant3`).
    Const,
}

/// A module-scope variable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variable {
    /// Symbol name.
    pub name: String,
    /// Address space.
    pub space: VariableSpace,
    /// Binding.
    pub linkage: Linkage,
    /// Offset in its section (`.nv.global`, `.nv.global.init` or `.nv.constant3`).
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// Alignment in bytes.
    pub align: u64,
    /// Initial bytes (`size` long) or `None` for zero-initialised.
    pub init: Option<Vec<u8>>,
    /// Addresses inside `init` that point at other variables (64-bit).
    pub pointers: Vec<PointerInit>,
}

/// A pointer-valued initialiser word.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PointerInit {
    /// Offset in the variable's initial bytes.
    pub offset: u64,
    /// Variable pointed to.
    pub target: String,
    /// Byte offset added to the target's address.
    pub addend: i64,
}
