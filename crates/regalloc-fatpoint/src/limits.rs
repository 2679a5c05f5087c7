//! How many registers a function may use, and how many it is reported to
//! use.
//!
//! The limit follows NVIDIA's ptxas 13.5, measured with `-v`: a limit
//! derived from the launch bounds (`.maxntid`/`.reqntid` with
//! `.minnctapersm`) and `.maxnreg` override `--maxrregcount` (ptxas prints
//! "Overriding global maxrregcount 24 with entry-specific value 64
//! computed using thread count"); the smaller of the two applies when both
//! are given; the result is clamped to the target's range (values below
//! the ABI minimum are raised to it).

use ori_ir::{Function, RegFile, Target};

/// The register limit of `func`: the count ptxas would report at most.
/// `max_regs_knob` is `--maxrregcount` (0: not given). The rule is
/// [`FunctionAttrs::register_limit`](ori_ir::FunctionAttrs::register_limit)'s,
/// shared with the pre-allocation scheduler.
pub fn register_limit(func: &Function, target: &Target, max_regs_knob: u32) -> u32 {
    func.attrs.register_limit(target, max_regs_knob)
}

/// Number of registers of `file` the allocator may hand out (registers
/// `0..n`), given the function's register limit for the R file.
pub(crate) fn allocatable(file: RegFile, target: &Target, limit: u32) -> u32 {
    match file {
        // The reported count is the highest register + 1 + the reserved
        // ones, so the highest allowed is `limit - 1 - reserved`.
        RegFile::R => limit.saturating_sub(target.reserved_regs),
        RegFile::UR => target.uniform_regs,
        RegFile::P | RegFile::UP => 7,
        RegFile::B => RegFile::B.physical_count(),
    }
}

/// The register count ptxas reports for `func` (`-v`, `EIATTR_REGCOUNT`):
/// the highest general register written or read, plus one, plus the
/// target's reserved registers. `R1` counts (every kernel sets it), `RZ`
/// does not. Measured: a kernel using R0-R9 reports 12, an empty kernel
/// (only `R1`) reports 4.
pub fn registers_used(func: &Function, target: &Target) -> u32 {
    let highest = func
        .insts_in_order()
        .flat_map(|(_, _, inst)| inst.read_regs().chain(inst.written_regs()).collect::<Vec<_>>())
        .filter(|r| r.file == RegFile::R && !r.is_virtual && !r.is_zero())
        .map(|r| r.num + u32::from(r.width))
        .max();
    highest.unwrap_or(0) + target.reserved_regs
}

#[cfg(test)]
mod tests {
    use super::*;
    use ori_ir::Sm;

    fn limit(attrs: &str, knob: u32) -> u32 {
        let text = format!(".entry k {{\n{attrs}\nbb0:\n    EXIT\n}}\n");
        let func = ori_ir::text::parse_function(&text).unwrap();
        register_limit(&func, &Sm::new(90).target(), knob)
    }

    /// Figures measured with ptxas 13.5 on the corpus kernel
    /// `launch_bounds` (sm_90), with and without `--maxrregcount=24`.
    #[test]
    fn launch_bounds_and_maxnreg_override_the_option() {
        assert_eq!(limit("", 0), 255);
        assert_eq!(limit("", 32), 32);
        assert_eq!(limit("", 8), 24, "raised to the ABI minimum");
        assert_eq!(limit("", 300), 255);
        assert_eq!(limit(".maxnreg 40", 24), 40);
        assert_eq!(limit(".maxntid 1024, 1, 1", 24), 64);
        assert_eq!(limit(".maxntid 1024, 1, 1\n.minnctapersm 2", 0), 32);
        assert_eq!(limit(".maxntid 512, 1, 1\n.minnctapersm 3", 0), 40);
        assert_eq!(limit(".maxntid 1000, 1, 1\n.minnctapersm 2", 0), 32, "threads round up to warps");
        assert_eq!(limit(".maxntid 256, 1, 1\n.minnctapersm 4\n.maxnreg 32", 0), 32);
        assert_eq!(limit(".maxntid 640, 1, 1", 0), 96);
    }

    #[test]
    fn reported_count_is_highest_plus_reserved() {
        let target = Sm::new(90).target();
        let func = ori_ir::text::parse_function(
            ".entry k {\nbb0:\n    R1 = LDC c[0x0][0x28]\n    R8.64 = LDC.64 c[0x0][0x210]\n    STG.E [R8.64], RZ\n    EXIT\n}\n",
        )
        .unwrap();
        assert_eq!(registers_used(&func, &target), 12);
        let empty = ori_ir::text::parse_function(".entry k {\nbb0:\n    R1 = LDC c[0x0][0x28]\n    EXIT\n}\n").unwrap();
        assert_eq!(registers_used(&empty, &target), 4);
        assert_eq!(allocatable(RegFile::R, &target, 24), 22);
    }
}
