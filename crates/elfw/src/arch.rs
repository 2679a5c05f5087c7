//! What differs between SMs in the files ptxas 13.5 writes (measured on the
//! corpus, see `docs/elfw.md`).

/// How relocations are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelocForm {
    /// `.rel.*`, 16-byte entries, addend in the patched field.
    Rel,
    /// `.rela.*`, 24-byte entries.
    Rela,
}

/// How loadable segments of whole-program output are grouped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segments {
    /// sm_7x/sm_8x: read-only data and code in one R+X segment, writable
    /// data in another, the program header table last; PHDR is R+X.
    Merged,
    /// sm_90+: the program header table first, then one segment per run of
    /// alloc sections with the same permissions; PHDR is R.
    PerPermission,
}

/// Per-SM facts the writer and builder switch on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arch {
    /// SM number (80 for sm_80).
    pub sm: u32,
    /// `e_flags` bits 0-7.
    pub eflags_mode: u32,
    /// Where kernel parameters start in constant bank 0.
    pub param_base: u32,
    /// Relocation form of ptxas's own relocations.
    pub relocs: RelocForm,
    /// `.text.<fn>` `sh_info` carries the register count in bits 24-31.
    pub regs_in_text_info: bool,
    /// `.nv.rel.action` is written.
    pub rel_action: bool,
    /// `.nv.compat` is written.
    pub compat: bool,
    /// `.nv.merc.*` / `.nv.capmerc.*` sections are written.
    pub mercury: bool,
    /// Segment grouping of whole-program output.
    pub segments: Segments,
    /// Size of `.nv.shared.reserved.0`, if the section exists.
    pub reserved_smem: Option<u64>,
}

const fn turing_ampere(sm: u32) -> Arch {
    Arch {
        sm,
        eflags_mode: 4,
        param_base: 0x160,
        relocs: RelocForm::Rel,
        regs_in_text_info: true,
        rel_action: true,
        compat: false,
        mercury: false,
        segments: Segments::Merged,
        reserved_smem: None,
    }
}

const fn hopper(sm: u32) -> Arch {
    Arch {
        sm,
        eflags_mode: 4,
        param_base: 0x210,
        relocs: RelocForm::Rela,
        regs_in_text_info: false,
        rel_action: false,
        compat: true,
        mercury: false,
        segments: Segments::PerPermission,
        reserved_smem: Some(0),
    }
}

const fn blackwell(sm: u32) -> Arch {
    Arch { eflags_mode: 2, param_base: 0x380, mercury: true, reserved_smem: Some(0x40), ..hopper(sm) }
}

/// Every SM ptxas 13.5 accepts from sm_75 on.
pub const ARCHS: &[Arch] = &[
    turing_ampere(75),
    turing_ampere(80),
    turing_ampere(86),
    turing_ampere(87),
    turing_ampere(88),
    turing_ampere(89),
    hopper(90),
    blackwell(100),
    blackwell(103),
    blackwell(110),
    blackwell(120),
    blackwell(121),
];

/// The facts for `sm`, if it is one ptxas 13.5 supports.
pub fn arch(sm: u32) -> Option<Arch> {
    ARCHS.iter().copied().find(|a| a.sm == sm)
}

impl Arch {
    /// `e_flags` for plain (non-debug) output.
    pub fn eflags(&self) -> u32 {
        (6 << 24) | (self.sm << 8) | self.eflags_mode
    }
}
