//! The target facts against NVIDIA's code: each probe kernel of
//! `tests/facts/` compiled by NVIDIA's ptxas 13.5 for every SM it accepts,
//! its SASS read back with nvdisasm (relocations with cuobjdump), and each
//! fact of `ori_ir::facts` compared with what the code shows. Facts of an
//! SM are checked on that SM; the instruction choices of a SASS generation
//! ([`ori_ir::Isa`]) on the generation's first SM, where they were measured.

use std::path::Path;
use std::process::Command;

use nv_oracle::Oracle;
use ori_ir::{CallTarget, Family, Fp8Mma, HalfConvert, Halves, ImmAdd, Opcode, Sm, Target, Variant};

/// NVIDIA's code for one probe on one SM.
struct Code {
    /// SASS instructions, one per line, as nvdisasm prints them.
    sass: Vec<String>,
    /// The `.byte` values of the section after the `.dword k` line that
    /// starts the kernel's FDE in `.debug_frame`.
    fde: Vec<u8>,
    /// `cuobjdump -elf` output (relocations).
    elf: String,
}

impl Code {
    fn has(&self, needle: &str) -> bool {
        self.sass.iter().any(|l| l.contains(needle))
    }

    /// Lines whose opcode (first word after any guard) is `op` or `op.*`.
    fn with_opcode(&self, op: &str) -> usize {
        self.sass
            .iter()
            .filter(|l| {
                let word = l.split_whitespace().find(|w| !w.starts_with('@')).unwrap_or_default();
                word == op || word.strip_prefix(op).is_some_and(|rest| rest.starts_with('.'))
            })
            .count()
    }
}

/// Compiles probe `name` for `sm` with NVIDIA's ptxas (extra `args`), and
/// reads the result back;
/// `None` when ptxas rejects it.
fn compile(oracle: &Oracle, dir: &Path, name: &str, sm: &str, args: &[&str]) -> Option<Code> {
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/facts/{name}.ptx")))
        .unwrap()
        .replace("TARGET", sm);
    let tag = format!("{name}.{sm}");
    let ptx = dir.join(format!("{tag}.ptx"));
    let cubin = dir.join(format!("{tag}.cubin"));
    std::fs::write(&ptx, src).unwrap();
    let out =
        Command::new(oracle.ptxas()).args(["-arch", sm]).args(args).arg(&ptx).arg("-o").arg(&cubin).output().unwrap();
    if !out.status.success() {
        return None;
    }
    let text = Command::new(oracle.nvdisasm()).arg(&cubin).output().unwrap();
    assert!(text.status.success(), "nvdisasm on {tag}: {}", String::from_utf8_lossy(&text.stderr));
    let text = String::from_utf8(text.stdout).unwrap();
    let sass = text
        .lines()
        .filter_map(|l| {
            let rest = without_offset(l)?;
            rest.starts_with(|c: char| c == '@' || c.is_ascii_uppercase()).then(|| {
                let end = rest.find(';').unwrap_or(rest.len());
                rest[..end].split_whitespace().collect::<Vec<_>>().join(" ")
            })
        })
        .collect();
    let mut fde = Vec::new();
    let mut lines = text.lines().skip_while(|l| !l.contains(".section\t.debug_frame")).filter_map(without_offset);
    if lines.any(|l| l == ".dword\tk") {
        for l in lines.take_while(|l| l.starts_with(".byte")) {
            fde.extend(
                l[".byte".len()..]
                    .split(',')
                    .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap()),
            );
        }
    }
    let elf = if args.contains(&"-c") {
        let out = Command::new(oracle.cuobjdump()).arg("-elf").arg(&cubin).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    } else {
        String::new()
    };
    Some(Code { sass, fde, elf })
}

/// An nvdisasm line without its `/*offset*/` prefix; `None` for lines
/// without one.
fn without_offset(line: &str) -> Option<&str> {
    Some(line.trim_start().strip_prefix("/*")?.split_once("*/")?.1.trim())
}

/// True when ptxas accepts the `features` probe with `body` for `sm`.
fn accepts(oracle: &Oracle, dir: &Path, sm: &str, body: &str) -> bool {
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/facts/features.ptx"))
        .unwrap()
        .replace("TARGET", sm)
        .replace("// FEATURE", body);
    let ptx = dir.join(format!("features.{sm}.{}.ptx", body.len()));
    std::fs::write(&ptx, src).unwrap();
    let out =
        Command::new(oracle.ptxas()).args(["-arch", sm]).arg(&ptx).arg("-o").arg(ptx.with_extension("cubin")).output();
    out.unwrap().status.success()
}

/// The facts of `t` that hold per SM, checked on NVIDIA's code for it.
fn check_sm(oracle: &Oracle, dir: &Path, t: &Target) -> Vec<String> {
    let sm = t.sm.to_string();
    let mut wrong = Vec::new();
    let mut expect = |ok: bool, what: &str| {
        if !ok {
            wrong.push(format!("{sm}: {what}"));
        }
    };
    let params = compile(oracle, dir, "params", &sm, &[]).expect("params compiles everywhere");
    expect(params.has(&format!("c[0x0][{:#x}]", t.param_base)), "param_base");
    let low_pair = |l: &&String| {
        (l.starts_with("ULDC.64") || l.starts_with("LDCU.64"))
            && l.split("c[0x0][")
                .nth(1)
                .and_then(|o| u32::from_str_radix(o.trim_start_matches("0x").trim_end_matches(']'), 16).ok())
                .is_some_and(|o| o < t.param_base)
    };
    let desc: Vec<&String> = params.sass.iter().filter(low_pair).collect();
    match t.global_desc {
        Some(off) => expect(desc.iter().any(|l| l.ends_with(&format!("c[0x0][{off:#x}]"))), "global_desc"),
        None => expect(desc.is_empty(), "global_desc: none"),
    }
    expect(params.has("BMOV.32.CLEAR B1, B0") == t.barrier_reset_prologue, "barrier_reset_prologue");
    expect((params.with_opcode("REDUX") > 0) == t.features.redux, "features.redux");

    let frame = compile(oracle, dir, "frame", &sm, &[]).unwrap();
    let top = format!("c[0x0][{:#x}]", t.stack_top);
    expect(frame.sass.iter().any(|l| l.contains("R1, ") && l.ends_with(&top)), "stack_top");

    // Immediate adds and min/max differ within Blackwell (sm_110, sm_120).
    let imm_add = if frame.has("VIADD R1, R1") {
        ImmAdd::Viadd
    } else if frame.has("IADD R1, R1") {
        ImmAdd::Iadd
    } else {
        ImmAdd::Iadd3
    };
    expect(imm_add == t.isa.imm_add, "imm_add");
    let misc = compile(oracle, dir, "misc", &sm, &[]).unwrap();
    let minmax = if t.isa.int_minmax == Opcode::VIMNMX { "VIMNMX" } else { "IMNMX" };
    expect(misc.with_opcode(minmax) > 0, "int_minmax");
    expect(misc.has("VIMNMX.S32") == t.isa.minmax_s32, "minmax_s32");
    let sad = compile(oracle, dir, "sad", &sm, &[]).unwrap();
    expect(sad.with_opcode("VABSDIFF") == usize::from(t.isa.abs_diff) * 4, "abs_diff");

    let convert = compile(oracle, dir, "convert", &sm, &[]).unwrap();
    expect(convert.has("SR_CgaCtaId") == t.shared_window, "shared_window");
    let reserved =
        convert.sass.iter().any(|l| l.starts_with("UMOV") && l.ends_with(&format!(", {:#x}", t.reserved_shared)));
    expect(reserved == (t.reserved_shared != 0), "reserved_shared");

    let fp8 = compile(oracle, dir, "fp8_mma", &sm, &[]);
    let fp8_form = match &fp8 {
        None => Fp8Mma::Absent,
        Some(c) if c.with_opcode("QMMA") > 0 => Fp8Mma::Qmma,
        Some(c) if c.has("UNPACK_B") && c.with_opcode("HMMA") > 0 => Fp8Mma::ViaF16,
        Some(_) => panic!("{sm}: fp8 mma in a form the table has no name for"),
    };
    expect(fp8_form == t.features.fp8_mma, "features.fp8_mma");

    let accepts = |snippet: &str| accepts(oracle, dir, &sm, snippet);
    let async_copy = accepts("cp.async.ca.shared.global [%r1], [%rd1], 16;\ncp.async.wait_all;");
    expect(async_copy == t.features.async_copy, "features.async_copy");
    let mma =
        "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f0,%f1,%f2,%f3}, {%r2,%r3}, {%r4}, {%f4,%f5,%f6,%f7};";
    expect(accepts(mma) == t.features.bf16_tf32_mma, "features.bf16_tf32_mma");
    let cluster = accepts("barrier.cluster.arrive;\nbarrier.cluster.wait;");
    expect(cluster == t.features.clusters, "features.clusters");
    expect(accepts("wgmma.fence.sync.aligned;") == t.features.wgmma, "features.wgmma");
    wrong
}

/// The instruction choices of `t`'s generation, on NVIDIA's code for `t`.
fn check_isa(oracle: &Oracle, dir: &Path, t: &Target) -> Vec<String> {
    let sm = t.sm.to_string();
    let isa = t.isa;
    let mut wrong = Vec::new();
    let mut expect = |ok: bool, what: &str| {
        if !ok {
            wrong.push(format!("{sm} ({:?}): {what}", isa.generation));
        }
    };
    let params = compile(oracle, dir, "params", &sm, &[]).unwrap();
    let frame = compile(oracle, dir, "frame", &sm, &[]).unwrap();
    expect(frame.has("LDC R1, ") != isa.bank_operands, "bank_operands");
    let wide_ldc = format!("c[0x0][{:#x}]", t.param_base);
    expect(
        params.sass.iter().any(|l| l.starts_with("LDC.64 R") && l.ends_with(&wide_ldc)) != isa.wide_params_in_bank,
        "wide_params_in_bank",
    );
    let (uniform_load, other) = match isa.uniform_const_load {
        Opcode::LDCU => ("LDCU", "ULDC"),
        _ => ("ULDC", "LDCU"),
    };
    expect(params.with_opcode(uniform_load) > 0 && params.with_opcode(other) == 0, "uniform_const_load");
    let red = if isa.global_red == Opcode::REDG { "REDG" } else { "RED" };
    expect(params.with_opcode(red) > 0, "global_red");
    let fde_entry = params.fde.get(8..13) == Some(&[0x04, 0x04, 0, 0, 0][..]);
    expect(fde_entry == isa.fde_entry_row, "fde_entry_row");

    let misc = compile(oracle, dir, "misc", &sm, &[]).unwrap();
    expect(misc.with_opcode("BSSY") > 0 && misc.has("BMOV.32.CLEAR RZ, B0") == isa.bssy_clears, "bssy_clears");

    let convert = compile(oracle, dir, "convert", &sm, &[]).unwrap();
    expect(convert.has("c[0x2][") == isa.literal_pool, "literal_pool");
    expect(convert.has("I2FP.F32.S32") == isa.i2fp, "i2fp");
    let half = if convert.has("F2FP.F16.F32.PACK_AB") {
        Some(HalfConvert::TypedPackAb)
    } else if convert.has("F2FP.PACK_AB") {
        Some(HalfConvert::PackAb)
    } else if convert.has("F2F.F16.F32") {
        Some(HalfConvert::F2f)
    } else {
        None
    };
    expect(half == Some(isa.half_convert), "half_convert");

    let sync = compile(oracle, dir, "sync", &sm, &[]).unwrap();
    let warpsync = if isa.warpsync_all { "WARPSYNC.ALL" } else { "WARPSYNC 0xffffffff" };
    expect(sync.has(warpsync), "warpsync_all");
    if let Some(bf16) = compile(oracle, dir, "bf16x2", &sm, &[]) {
        expect(bf16.has("HFMA2.MMA.BF16_V2") == isa.bf16x2_fma_mma, "bf16x2_fma_mma");
    }

    let spell = compile(oracle, dir, "spellings", &sm, &[]).unwrap();
    let weak: Vec<&String> = spell
        .sass
        .iter()
        .filter(|l| ["LDG.E", "STG.E", "LD.E", "ST.E"].iter().any(|op| l.starts_with(op)) && !l.contains(".STRONG"))
        .collect();
    expect(
        !weak.is_empty() && weak.iter().all(|l| l.split_whitespace().next().unwrap().ends_with(".SYS") == isa.weak_sys),
        "weak_sys",
    );
    expect(spell.has("LDS.U ") == isa.lds_u, "lds_u");
    expect(spell.has("BAR.RED.POPC.DEFER_BLOCKING") == isa.bar_defer_blocking, "bar_defer_blocking");
    expect(spell.has("NANOSLEEP.WARP") == isa.nanosleep_warp, "nanosleep_warp");
    expect(spell.has("ATOMS.POPC.INC.32") == isa.shared_popc_inc, "shared_popc_inc");
    expect(spell.has("VOTE.ALL") == isa.vote_all && spell.with_opcode("VOTE") > 0, "vote_all");
    let cas: Vec<&String> = spell.sass.iter().filter(|l| l.starts_with("ATOMS.CAST.SPIN ")).collect();
    expect(
        !cas.is_empty() && cas.iter().all(|l| l["ATOMS.CAST.SPIN ".len()..].starts_with('P') == isa.cas_spin_predicate),
        "cas_spin_predicate",
    );

    let halves = compile(oracle, dir, "halves", &sm, &[]).unwrap();
    let lane = if isa.hmul2_broadcast_lane == Halves::H1H1 { ".H1_H1" } else { ".H0_H0" };
    let hmul2: Vec<&String> = halves.sass.iter().filter(|l| l.starts_with("HMUL2 ")).collect();
    expect(hmul2.len() == 1 && hmul2[0].contains(lane), "hmul2_broadcast_lane");
    let widen = if isa.f16_widen_zero_second { ".H0_H0, -RZ.H0_H0" } else { ", -RZ, R" };
    expect(halves.sass.iter().any(|l| l.starts_with("HADD2.F32 ") && l.contains(widen)), "f16_widen_zero_second");
    let fused = halves.sass.iter().any(|l| l.starts_with("HADD2.F32 ") && !l.contains("RZ"));
    expect(
        fused == isa.f16_add_widen_fused
            && (fused || halves.sass.iter().filter(|l| l.starts_with("HADD2 ")).count() == 1),
        "f16_add_widen_fused",
    );
    let wmma = compile(oracle, dir, "wmma", &sm, &[]).unwrap();
    let (k16, k8) = (wmma.with_opcode("HMMA") == 2 && wmma.has("HMMA.16816.F32"), wmma.has("HMMA.1688.F32"));
    expect(if isa.hmma_k16 { k16 && !k8 } else { wmma.with_opcode("HMMA") == 4 && k8 }, "hmma_k16");

    let calls = compile(oracle, dir, "calls", &sm, &["-c"]).unwrap();
    let reloc = match isa.call_target {
        CallTarget::Abs47At34 => "R_CUDA_ABS47_34",
        CallTarget::Abs55At16And34 => "R_CUDA_ABS55_16_34",
    };
    expect(calls.elf.contains(reloc), "call_target");
    wrong
}

#[test]
fn facts_are_nvidia_s() {
    let Some(oracle) = Oracle::for_test("facts_are_nvidia_s") else { return };
    let dir = std::env::temp_dir().join(format!("ori-facts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Every SM whose row differs from the others' somewhere (sm_103 and
    // 121 have sm_100's and sm_120's), and sm_90a for wgmma.
    let sms = [
        "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_107", "sm_110", "sm_120",
    ];
    let targets: Vec<Target> = sms.iter().map(|s| s.parse::<Sm>().unwrap().target()).collect();
    // The first SM of each generation, where its instruction choices were
    // measured.
    let reference = |g: Family| match g {
        Family::Turing => 75,
        Family::Ampere => 80,
        Family::Hopper => 90,
        Family::Blackwell => 100,
        Family::Ada => unreachable!("Ada uses Ampere's generation"),
    };
    let wrong: Vec<String> = std::thread::scope(|s| {
        let jobs: Vec<_> = targets
            .iter()
            .map(|t| {
                let (oracle, dir) = (&oracle, &dir);
                s.spawn(move || {
                    let mut wrong = check_sm(oracle, dir, t);
                    if t.sm.variant == Variant::Base && t.sm.version == reference(t.isa.generation) {
                        wrong.extend(check_isa(oracle, dir, t));
                    }
                    wrong
                })
            })
            .collect();
        jobs.into_iter().flat_map(|j| j.join().unwrap()).collect()
    });
    std::fs::remove_dir_all(&dir).ok();
    assert!(wrong.is_empty(), "facts NVIDIA's code contradicts:\n{}", wrong.join("\n"));
}
