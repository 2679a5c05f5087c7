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
    /// Size and alignment of `.nv.shared.reserved.0`, if the section exists.
    pub reserved_smem: Option<(u64, u64)>,
    /// EIATTR_SW_WAR payload, if written (1 on sm_75, 2 on sm_87, 8 on sm_90+).
    pub sw_war: Option<u32>,
    /// EIATTR_SW2861232_WAR (0x35) is written (sm_80, sm_86, sm_87, sm_88).
    pub sw2861232_war: bool,
    /// Value of EIATTR_MERCURY_ISA_VERSION (0x5f), which `.nv.compat`
    /// records again as its attribute 0x0d (0x101; sm_107: 0x103 in both).
    pub mercury_isa_version: u16,
    /// EIATTR_VRC_CTA_INIT_COUNT is written (sm_100+).
    pub vrc_cta_init: bool,
    /// EICOMPAT_ATTR_CAN_FASTPATH_FINALIZE payload for plain and `a` targets.
    pub fastpath_finalize: [u64; 2],
    /// `.nv.compat` carries attribute 0x07 (sm_100 and sm_120 only).
    pub compat_attr_07: bool,
    /// Size of `.nv.merc.nv.shared.reserved.0` (Mercury's reserved area).
    pub merc_reserved_smem: u64,
    /// Every `.nv.info.<fn>` ends with EIATTR 0x67, a byte 0 (cuobjdump:
    /// "unknown Attribute"; every function of NVIDIA's sm_107a cubins of
    /// the corpus, no other SM's).
    pub attr_0x67: bool,
}

const fn turing_ampere(sm: u32, sw_war: Option<u32>, sw2861232_war: bool) -> Arch {
    Arch {
        sm,
        eflags_mode: 4,
        relocs: RelocForm::Rel,
        regs_in_text_info: true,
        rel_action: true,
        compat: false,
        mercury: false,
        segments: Segments::Merged,
        reserved_smem: None,
        sw_war,
        sw2861232_war,
        mercury_isa_version: 0,
        vrc_cta_init: false,
        fastpath_finalize: [0, 0],
        compat_attr_07: false,
        merc_reserved_smem: 0,
        attr_0x67: false,
    }
}

const fn hopper(sm: u32) -> Arch {
    Arch {
        sm,
        eflags_mode: 4,
        relocs: RelocForm::Rela,
        regs_in_text_info: false,
        rel_action: false,
        compat: true,
        mercury: false,
        segments: Segments::PerPermission,
        reserved_smem: Some((0, 1)),
        sw_war: Some(8),
        sw2861232_war: false,
        mercury_isa_version: 0x101,
        vrc_cta_init: false,
        fastpath_finalize: [0, 0],
        compat_attr_07: false,
        merc_reserved_smem: 0,
        attr_0x67: false,
    }
}

/// sm_100+: which SM, `.nv.shared.reserved.0` (size, alignment), the
/// fast-path payloads, EIATTR_SW_WAR, `.nv.compat` attribute 0x07 and
/// Mercury's reserved shared memory.
struct Blackwell {
    sm: u32,
    reserved_smem: (u64, u64),
    fastpath_finalize: [u64; 2],
    sw_war: u32,
    compat_attr_07: bool,
    merc_reserved_smem: u64,
}

const fn blackwell(b: Blackwell) -> Arch {
    Arch {
        eflags_mode: 2,
        mercury: true,
        reserved_smem: Some(b.reserved_smem),
        sw_war: Some(b.sw_war),
        vrc_cta_init: true,
        fastpath_finalize: b.fastpath_finalize,
        compat_attr_07: b.compat_attr_07,
        merc_reserved_smem: b.merc_reserved_smem,
        ..hopper(b.sm)
    }
}

const fn bw(sm: u32, fastpath_finalize: [u64; 2], sw_war: u32, compat_attr_07: bool) -> Blackwell {
    Blackwell { sm, reserved_smem: (0x40, 1), fastpath_finalize, sw_war, compat_attr_07, merc_reserved_smem: 0 }
}

/// Every SM ptxas 13.5 accepts from sm_75 on.
pub const ARCHS: &[Arch] = &[
    turing_ampere(75, Some(1), false),
    turing_ampere(80, None, true),
    turing_ampere(86, None, true),
    turing_ampere(87, Some(2), true),
    turing_ampere(88, None, true),
    turing_ampere(89, None, false),
    hopper(90),
    blackwell(bw(100, [9, 9], 8, true)),
    blackwell(bw(103, [0, 0], 8, false)),
    // sm_121's container but for the Mercury ISA version and EIATTR 0x67
    // (NVIDIA's sm_107a cubins of the corpus, against sm_121a's).
    Arch { mercury_isa_version: 0x103, attr_0x67: true, ..blackwell(bw(107, [0, 0], 0, false)) },
    blackwell(Blackwell { reserved_smem: (0xc0, 16), merc_reserved_smem: 0x80, ..bw(110, [0, 0], 8, false) }),
    blackwell(bw(120, [0x50, 0x10], 0, true)),
    blackwell(bw(121, [0, 0], 0, false)),
];

/// `e_flags` debug level of a cubin without line tables.
pub const DEBUG_PLAIN: u32 = 6;
/// With line tables (`-lineinfo`, or `.loc` in the PTX).
pub const DEBUG_LINES: u32 = 9;
/// With line tables and `.debug_str` (the PTX has a `.debug_str` section,
/// as Triton's always has; measured with and without `inlined_at`).
pub const DEBUG_LINES_STRINGS: u32 = 0xa;
/// `-g` with the PTX's DWARF sections (NVRTC `-G` PTX), without
/// `.debug_loc`.
pub const DEBUG_FULL: u32 = 0xe;
/// The same with a `.debug_loc` section (measured on the 44 corpus
/// kernels NVRTC `-G` compiles: 0xf exactly when the PTX has one).
pub const DEBUG_FULL_LOC: u32 = 0xf;

/// The facts for `sm`, if it is one ptxas 13.5 supports.
pub fn arch(sm: u32) -> Option<Arch> {
    ARCHS.iter().copied().find(|a| a.sm == sm)
}

impl Arch {
    /// Where kernel parameters start in constant bank 0: the compiler's
    /// fact ([`ori_ir::Target::param_base`]), which the cubin records.
    pub fn param_base(&self) -> u32 {
        ori_ir::Sm::new(self.sm as u16).target().param_base
    }

    /// `e_flags` for output with `debug_level` in bits 24-31
    /// ([`DEBUG_PLAIN`], [`DEBUG_LINES`], [`DEBUG_LINES_STRINGS`], [`DEBUG_FULL`], [`DEBUG_FULL_LOC`]).
    pub fn eflags(&self, debug_level: u32) -> u32 {
        (debug_level << 24) | (self.sm << 8) | self.eflags_mode
    }
}
