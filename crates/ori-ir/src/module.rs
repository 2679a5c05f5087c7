//! Modules: the unit the compiler works on.

use crate::function::Function;
use crate::props::PropertySet;
use crate::target::Sm;

/// The state space of a module-scope variable.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum VarSpace {
    /// `.global`: device memory, its 64-bit address in constant bank 4 at
    /// [`Module::address_slot`].
    Global,
    /// `.const`: constant bank 3 at [`Variable::offset`].
    Const,
}

impl VarSpace {
    /// The PTX directive, also the Ori text's (`.global`, `.const`).
    pub fn directive(self) -> &'static str {
        match self {
            VarSpace::Global => ".global",
            VarSpace::Const => ".const",
        }
    }
}

/// A 64-bit word of a variable's initial value that holds another
/// variable's address (`generic(table)` in PTX).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointerInit {
    /// Byte offset in the initial value.
    pub offset: u64,
    /// The variable pointed to.
    pub target: String,
    /// Bytes added to its address.
    pub addend: i64,
}

/// A module-scope variable (`.global`, `.const`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// Symbol name.
    pub name: String,
    /// State space.
    pub space: VarSpace,
    /// `.visible` (a GLOBAL symbol); otherwise local to the module.
    pub visible: bool,
    /// Byte offset: in constant bank 3 for `.const`; in `.nv.global.init`
    /// (initialised) or `.nv.global` (not) for `.global`.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// Alignment in bytes.
    pub align: u64,
    /// Initial bytes (`size` long); `None`: zeros.
    pub init: Option<Vec<u8>>,
    /// Words of `init` that are addresses of variables.
    pub pointers: Vec<PointerInit>,
}

/// A compilation unit: the functions of one PTX module for one target, and
/// the properties every function has reached so far in the pipeline.
#[derive(Clone, Debug)]
pub struct Module {
    /// The SM the code is generated for.
    pub target: Sm,
    /// Functions, in PTX order.
    pub functions: Vec<Function>,
    /// Properties established by the phases that ran so far.
    pub props: PropertySet,
    /// Module-scope variables, in declaration order.
    pub variables: Vec<Variable>,
    /// Functions the code calls that the module does not define (`.extern
    /// .func vprintf`), in declaration order: their addresses come from
    /// constant bank 4, ahead of the variables' ([`Module::address_slot`]).
    pub externals: Vec<String>,
    /// What the PTX says about its source, for the line tables.
    pub debug: DebugInfo,
}

/// The PTX's source-position directives and debug strings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DebugInfo {
    /// `.file` directives, in order: the file table of `.debug_line`.
    pub files: Vec<SourceFile>,
    /// Every `.loc` directive, by the PTX line it is on.
    pub locs: std::collections::BTreeMap<u32, LocDirective>,
    /// The contents of the PTX's `.debug_str` section, if it has one.
    pub strings: Option<Vec<u8>>,
    /// Offsets of the labels inside `.debug_str` (`function_name`s).
    pub string_labels: std::collections::HashMap<String, u32>,
    /// The PTX's other DWARF sections (`.debug_abbrev`, `.debug_info`,
    /// `.debug_loc`, ...), in PTX order: `-g` copies them into the cubin.
    pub dwarf: Vec<DwarfSection>,
    /// The labels of function bodies, which DWARF data points at.
    pub code_labels: std::collections::HashMap<String, CodeLabel>,
}

/// A `.section .debug_*` of the PTX: its bytes with every symbolic value
/// left as zeros, and where those values go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DwarfSection {
    /// Name with its dot, e.g. `.debug_info`.
    pub name: String,
    /// The data.
    pub bytes: Vec<u8>,
    /// The values written as names (`.b64 $L__func_begin0`,
    /// `.b32 .debug_abbrev`), in section order.
    pub refs: Vec<DwarfRef>,
}

/// A value of a DWARF section given by a name plus a constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DwarfRef {
    /// Byte offset in the section.
    pub offset: u32,
    /// Width of the value in bytes (1, 2, 4 or 8).
    pub width: u8,
    /// The name: a label of a function body, a section (with its dot), or
    /// a variable (`__local_depot0`).
    pub name: String,
    /// The constant added to it.
    pub addend: i64,
}

/// Where a label of a function body is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeLabel {
    /// The function it is in.
    pub function: String,
    /// Its PTX line.
    pub line: u32,
    /// The PTX line of the function body's opening brace.
    pub body_start: u32,
    /// The PTX line of the function body's closing brace.
    pub body_end: u32,
    /// It is the body's last statement (NVVM's `$L__func_end`).
    pub ends_body: bool,
}

/// A position in the source: `.file` number, line, column.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SourcePos {
    /// `.file` number.
    pub file: u32,
    /// Line.
    pub line: u32,
    /// Column.
    pub column: u32,
}

/// `.loc file line column [, function_name label, inlined_at file line column]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocDirective {
    /// Where the code is.
    pub pos: SourcePos,
    /// The call this code was inlined into, if any.
    pub inlined_at: Option<SourcePos>,
    /// The `.debug_str` label naming the inlined function.
    pub function_name: Option<String>,
}

/// A `.file N "name" [, mtime, size]` directive.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceFile {
    /// The number `.loc` directives refer to it by.
    pub index: u32,
    /// The name as written (a path, relative or absolute).
    pub name: String,
    /// Modification time, 0 when not given.
    pub mtime: u64,
    /// Size in bytes, 0 when not given.
    pub size: u64,
}

impl Module {
    /// An empty module for `target` with the given starting properties.
    pub fn new(target: Sm, props: PropertySet) -> Module {
        Module {
            target,
            functions: Vec::new(),
            props,
            variables: Vec::new(),
            externals: Vec::new(),
            debug: DebugInfo::default(),
        }
    }

    /// The variable called `name`.
    pub fn variable(&self, name: &str) -> Option<&Variable> {
        self.variables.iter().find(|v| v.name == name)
    }

    /// Byte offset in constant bank 4 of the 64-bit address of `.global`
    /// variable or external function `name`: the external functions, then
    /// the globals, each in declaration order, 8 bytes each (the table
    /// NVIDIA's whole-program cubins carry in `.nv.constant4`: printf_kernel
    /// has `vprintf` at 0, its strings after).
    pub fn address_slot(&self, name: &str) -> Option<u32> {
        let globals = self.variables.iter().filter(|v| v.space == VarSpace::Global).map(|v| v.name.as_str());
        let names = self.externals.iter().map(String::as_str).chain(globals);
        names.enumerate().find(|&(_, n)| n == name).map(|(i, _)| 8 * i as u32)
    }

    /// The function called `name`.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
}
