//! End-to-end tests of the `ptxas` binary: the phase manifest, IR dumps,
//! statistics and the promise that a failure leaves no output file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().to_path_buf()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ptxas(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxas")).args(args).current_dir(cwd).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn default_manifest() -> String {
    std::fs::read_to_string(repo().join("phases.ron")).unwrap()
}

/// The phases whose dumps appear in `--dump-ir-after all` output, in order.
fn dumped_phases(out: &Output) -> Vec<String> {
    stdout(out)
        .lines()
        .filter_map(|l| l.strip_prefix("// ---- IR after ")?.strip_suffix(" ----").map(str::to_string))
        .collect()
}

#[test]
fn unknown_phase_in_manifest_is_named_with_file_and_line() {
    let dir = scratch("unknown_phase");
    let manifest = default_manifest().replacen(
        "\"OriCheckInitialProgram\",",
        "\"OriCheckInitialProgram\",\n                \"NoSuchPhase\",",
        1,
    );
    let line = manifest.lines().position(|l| l.contains("NoSuchPhase")).unwrap() + 1;
    std::fs::write(dir.join("bad.ron"), manifest).unwrap();
    let input = repo().join("tests/data/copy_chain.ori");
    let out = ptxas(&["-arch=sm_90", "--phases", "bad.ron", input.to_str().unwrap(), "-o", "k.cubin"], &dir);
    assert_eq!(out.status.code(), Some(255));
    let err = stderr(&out);
    assert!(err.contains(&format!("bad.ron:{line}: unknown phase 'NoSuchPhase'")), "{err}");
    assert!(!dir.join("k.cubin").exists());
}

#[test]
fn malformed_manifest_reports_line_and_column() {
    let dir = scratch("malformed");
    std::fs::write(dir.join("bad.ron"), "(\n    stages: [\n        (name: \"x\" phases: []),\n    ],\n)\n").unwrap();
    let input = repo().join("tests/data/copy_chain.ori");
    let out = ptxas(&["-arch=sm_90", "--phases", "bad.ron", input.to_str().unwrap()], &dir);
    assert_eq!(out.status.code(), Some(255));
    assert!(stderr(&out).contains("bad.ron:3:"), "{}", stderr(&out));
}

/// The last dump taken after `phase`.
fn dump_after(out: &Output, phase: &str) -> String {
    let text = stdout(out);
    let header = format!("// ---- IR after {phase} ----\n");
    let start = text.rfind(&header).map(|i| i + header.len()).unwrap_or(text.len());
    let end = text[start..].find("// ---- IR after ").map_or(text.len(), |i| start + i);
    text[start..end].to_string()
}

/// The dump of the last phase before register allocation.
fn before_allocation(out: &Output) -> String {
    dump_after(out, &dumped_phases(out).into_iter().take_while(|p| p != "AllocateRegisters").last().unwrap())
}

#[test]
fn dump_after_all_follows_the_manifest() {
    let dir = scratch("dump_all");
    let input = repo().join("tests/data/copy_chain.ori");
    let input = input.to_str().unwrap();
    let run = |manifest: Option<&str>, extra: &[&str]| {
        let mut args = vec!["-arch=sm_90", "--dump-ir-after", "all", input];
        if let Some(text) = manifest {
            std::fs::write(dir.join("m.ron"), text).unwrap();
            args.extend(["--phases", "m.ron"]);
        }
        args.extend(extra);
        ptxas(&args, &dir)
    };
    let default = run(None, &[]);
    assert_eq!(
        dumped_phases(&default),
        [
            "OriCheckInitialProgram",
            "EarlyOriSimpleLiveDead",
            "OriCopyProp",
            "GvnCse",
            "FoldConstantOperands",
            "RematConstantLoads",
            "ConvertToUniformReg",
            "OriCopyProp",
            "UniformConstantPairs",
            "OriBranchOpt",
            "EarlyOriSimpleLiveDead",
            "SinkRemat",
            "OriMarkUndefParts",
            "OriDoPredication",
            "OriBranchOpt",
            "LateExpandSyncInstructions",
            "OptimizeSyncInstructions",
            "ScheduleBeforeAllocation",
            "AllocateRegisters",
            "OriSaveCalleeRegisters",
            "OriSetupStackFrame",
            "OriLinkCallees",
            "OriClearConvergenceBarriers",
            "OriResetBarriersPrologue",
            "OriRemoveNopCode",
            "ScheduleInstructions",
            "ComputeScoreboards",
            "OriResolveCallAddresses",
            "MercEncodeAndDecode"
        ]
    );
    let optimized = before_allocation(&default);
    assert!(!optimized.contains("= MOV"), "copies propagated and removed: {optimized}");
    assert!(optimized.contains("%r3 = IADD3 %r0, 0x1, RZ"), "{optimized}");
    let allocated = dump_after(&default, "OriRemoveNopCode");
    assert!(allocated.contains(".props PhysicalRegs") && allocated.contains("R0 = S2R SR_TID.X"), "{allocated}");
    let scheduled = dump_after(&default, "ComputeScoreboards");
    assert!(scheduled.contains(".props PhysicalRegs, Scheduled"), "{scheduled}");
    assert!(
        scheduled.contains(":W0:Y:S") && scheduled.contains("R0 = S2R SR_TID.X"),
        "S2R gets a scoreboard: {scheduled}"
    );

    // Removing the dead-code pass after copy propagation leaves the copies.
    let manifest = default_manifest();
    let second_dce = "\"OriBranchOpt\",\n                // Stands in for the seed's OriPerformLiveDeadFirst: removes\n                // the copies OriCopyProp made dead.\n                \"EarlyOriSimpleLiveDead\",";
    assert!(manifest.contains(second_dce), "phases.ron changed; update this test");
    let removed = run(Some(&manifest.replace(second_dce, "\"OriBranchOpt\",")), &[]);
    assert_eq!(dumped_phases(&removed).len(), 28);
    assert!(before_allocation(&removed).contains("%r2 = MOV %r0"), "{}", before_allocation(&removed));

    // Moving copy propagation after the last dead-code pass does the same
    // (without GvnCse, which propagates copies too).
    let reordered = manifest.replace("\"OriCopyProp\",", "").replace("\"GvnCse\",", "").replace(
        "\"AdvancedPhaseEarlyEnforceArgs\",",
        "\"OriCopyProp\",\n                \"AdvancedPhaseEarlyEnforceArgs\",",
    );
    let moved = run(Some(&reordered), &[]);
    assert_eq!(dumped_phases(&moved)[6..9], ["OriBranchOpt", "EarlyOriSimpleLiveDead", "SinkRemat"]);
    assert!(before_allocation(&moved).contains("= MOV"), "{}", before_allocation(&moved));

    // The -O0 recipe keeps the literal translation.
    let o0 = run(None, &["-O0"]);
    assert_eq!(
        dumped_phases(&o0),
        [
            "OriCheckInitialProgram",
            "LateExpandSyncInstructions",
            "AllocateRegisters",
            "OriSaveCalleeRegisters",
            "OriSetupStackFrame",
            "OriLinkCallees",
            "OriClearConvergenceBarriers",
            "OriResetBarriersPrologue",
            "OriRemoveNopCode",
            "ProcessO0WaitsAndSBs",
            "OriResolveCallAddresses",
            "MercEncodeAndDecode"
        ]
    );
}

#[test]
fn maxrregcount_reaches_the_allocator() {
    let dir = scratch("maxrregcount");
    // 40 values live at once: more than 24 registers can hold. Loads, so
    // that no phase shares or moves them.
    let mut text = String::from(".target sm_90\n.props VirtualRegs\n.entry pressure {\nbb0:\n");
    text += "    %r100.64 = LDC.64 c[0x0][0x210]\n    %ur0.64 = ULDC.64 c[0x0][0x208]\n";
    for i in 0..40 {
        text += &format!("    %r{i} = LDG.E desc[%ur0.64][%r100.64+0x{:x}]\n", 4 * i + 0x100);
    }
    for i in 0..40 {
        text += &format!("    STG.E desc[%ur0.64][%r100.64+0x{:x}], %r{i}\n", 4 * i);
    }
    text += "    EXIT\n}\n";
    std::fs::write(dir.join("pressure.ori"), text).unwrap();
    let spills = |args: &[&str]| {
        let mut all = vec!["-arch=sm_90", "--dump-ir-after", "AllocateRegisters", "pressure.ori"];
        all.extend(args);
        stdout(&ptxas(&all, &dir)).matches("= LDL").count()
    };
    assert_eq!(spills(&[]), 0);
    assert!(spills(&["--maxrregcount=24"]) > 0, "a 24-register limit must spill");
}

#[test]
fn input_past_a_phase_requirement_is_refused() {
    let dir = scratch("requirement");
    let allocated = ".target sm_90\n.props PhysicalRegs\n.entry k {\nbb0:\n    R0 = S2R SR_TID.X\n    EXIT\n}\n";
    std::fs::write(dir.join("late.ori"), allocated).unwrap();
    let out = ptxas(&["-arch=sm_90", "late.ori"], &dir);
    assert_eq!(out.status.code(), Some(255));
    assert!(
        stderr(&out)
            .contains("phase 'EarlyOriSimpleLiveDead' requires VirtualRegs, which no earlier phase establishes"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn output_is_written_whole_or_not_at_all() {
    let dir = scratch("output");
    let input = repo().join("tests/data/copy_chain.ori");
    let input = input.to_str().unwrap();
    let out = ptxas(&["-arch=sm_90", input, "-o", "out.cubin"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let cubin = std::fs::read(dir.join("out.cubin")).unwrap();
    assert_eq!(&cubin[..4], b"\x7fELF");
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary files left: {leftovers:?}");

    // Without the encoding phase there is nothing to write.
    std::fs::write(dir.join("m.ron"), default_manifest().replace("\"MercEncodeAndDecode\",", "")).unwrap();
    let out = ptxas(&["-arch=sm_90", "--phases", "m.ron", input, "-o", "none.cubin"], &dir);
    assert_eq!(out.status.code(), Some(255));
    assert!(stderr(&out).contains("a cubin needs Encoded code"), "{}", stderr(&out));
    assert!(!dir.join("none.cubin").exists());

    // An unwritable output is ptxas's fatal error.
    let out = ptxas(&["-arch=sm_90", input, "-o", "/nonexistent/dir/x.cubin"], &dir);
    assert_eq!(out.status.code(), Some(255));
    assert!(stderr(&out).contains("ptxas fatal   : Output file '/nonexistent/dir/x.cubin' could not be opened"));
}

/// An output that is not a regular file (`-o /dev/null`, a FIFO) is
/// written in place: the rename that keeps regular outputs whole replaced
/// the machine's `/dev/null` with a regular file. A FIFO stands in for
/// the device here, so that a regression breaks only this test.
#[test]
fn special_outputs_are_written_in_place() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("fifo");
    let fifo = dir.join("out.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            std::fs::File::open(fifo).unwrap().read_to_end(&mut bytes).unwrap();
            bytes
        })
    };
    let input = repo().join("tests/data/copy_chain.ori");
    let out = ptxas(&["-arch=sm_90", input.to_str().unwrap(), "-o", "out.fifo"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Checked before joining: a reader whose FIFO was renamed away would
    // wait for a writer forever.
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO was replaced");
    let bytes = reader.join().unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF");
}

#[test]
fn ori_syntax_errors_have_file_line_and_column() {
    let dir = scratch("ori_syntax");
    std::fs::write(dir.join("bad.ori"), ".target sm_90\n.entry k {\nbb0:\n    %r0 = FROB %r1\n    EXIT\n}\n").unwrap();
    let out = ptxas(&["-arch=sm_90", "bad.ori"], &dir);
    assert_eq!(out.status.code(), Some(255));
    assert!(stderr(&out).starts_with("ptxas bad.ori, line 4; error   : unknown opcode `FROB`\n"), "{}", stderr(&out));
    let human = ptxas(&["-arch=sm_90", "--diagnostics-format=human", "bad.ori"], &dir);
    let text = stderr(&human);
    assert!(text.starts_with("bad.ori:4:11: error: unknown opcode `FROB`\n"), "{text}");
    assert!(text.contains("4 |     %r0 = FROB %r1\n  |           ^\n"), "{text}");
}

#[test]
fn compiler_stats_report_every_phase_and_the_total() {
    let dir = scratch("stats");
    let input = repo().join("tests/data/copy_chain.ori");
    let out = ptxas(&["-arch=sm_90", "--compiler-stats=time,memory", input.to_str().unwrap()], &dir);
    let err = stderr(&out);
    let stat_lines: Vec<&str> = err.lines().filter(|l| l.starts_with("ptxas info    : STAT: ")).collect();
    assert!(stat_lines[0].contains("OriCheckInitialProgram") && stat_lines[0].contains("[Time "), "{err}");
    assert!(stat_lines.iter().any(|l| l.contains("All Phases Summary") && l.contains("[Allocated ")), "{err}");
    assert!(stat_lines.iter().any(|l| l.contains("STAT: CompileTime = ")), "{err}");
    assert!(stat_lines.iter().any(|l| l.contains("STAT: PeakMemoryUsage = ")), "{err}");
}

#[test]
fn version_satisfies_tools_that_parse_it() {
    let out = ptxas(&["--version"], &repo());
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("release 13.5"), "Triton looks for `release X.Y`: {}", stdout(&out));
}

#[test]
fn phases_can_be_listed() {
    let out = ptxas(&["--list-phases", "-arch=sm_90"], &repo());
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("OriCheckInitialProgram"));
    assert!(stdout(&out).contains("plan for sm_90 at -O3:"));
}

#[test]
fn device_time_trace_appends_events_after_the_output() {
    let dir = scratch("trace");
    std::fs::write(dir.join("tt.json"), r#"{"traceEvents":[]}"#).unwrap();
    let input = repo().join("tests/data/copy_chain.ori");
    let out = ptxas(&["-arch=sm_90", input.to_str().unwrap(), "-o", "k.cubin", "--fdevice-time-trace=tt.json"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let trace = std::fs::read_to_string(dir.join("tt.json")).unwrap();
    for name in ["Total PTXAS Time", "PTX parsing and setup time", "Optimizing compilation unit", "Post processing"] {
        assert!(trace.contains(&format!("\"name\":\"{name}\"")), "{name} missing: {trace}");
    }
    assert!(trace.contains(r#""args":{"name":"copy_chain"}"#), "{trace}");
    std::fs::remove_file(dir.join("k.cubin")).unwrap();
    let missing =
        ptxas(&["-arch=sm_90", input.to_str().unwrap(), "-o", "k.cubin", "--fdevice-time-trace", "no.json"], &dir);
    assert_eq!(stderr(&missing), "ptxas fatal   : File 'no.json' could not be opened\n");
    assert!(dir.join("k.cubin").exists(), "ptxas writes the cubin before the trace");
}

#[test]
fn manifest_breaking_a_requirement_names_both_phases() {
    let dir = scratch("broken_requirement");
    // Copy propagation needs virtual registers; moving it after register
    // allocation breaks that.
    let manifest = default_manifest()
        .replace("\"OriCopyProp\",", "")
        .replace("\"AdvancedPhasePostSched\",", "\"AdvancedPhasePostSched\",\n                \"OriCopyProp\",");
    let line = manifest.lines().position(|l| l.contains("\"OriCopyProp\"")).unwrap() + 1;
    let alloc_line = manifest.lines().position(|l| l.contains("\"AdvancedPhaseAllocReg\",")).unwrap() + 1;
    std::fs::write(dir.join("late_copyprop.ron"), manifest).unwrap();
    let input = repo().join("tests/data/copy_chain.ori");
    let out = ptxas(&["-arch=sm_90", "--phases", "late_copyprop.ron", input.to_str().unwrap()], &dir);
    assert_eq!(out.status.code(), Some(255));
    let expected = format!(
        "late_copyprop.ron:{line}: phase 'OriCopyProp' requires VirtualRegs, which phase 'AllocateRegisters' (line {alloc_line}) invalidated"
    );
    assert!(stderr(&out).contains(&expected), "expected `{expected}` in {}", stderr(&out));
}

/// Input is bytes, not UTF-8: ptxas takes any byte in a comment (Latin-1
/// text, say) and names the line of one elsewhere.
#[test]
fn non_utf8_bytes_are_judged_as_ptxas_judges_them() {
    let dir = scratch("non_utf8");
    let kernel = |extra: &[u8]| {
        let mut text = b".version 8.5\n.target sm_90\n.address_size 64\n// caf\xe9\n.entry k()\n{\n\tret;".to_vec();
        text.extend_from_slice(extra);
        text.extend_from_slice(b"\n}\n");
        text
    };
    std::fs::write(dir.join("comment.ptx"), kernel(b" // \xff")).unwrap();
    let out = ptxas(&["-arch=sm_90", "comment.ptx", "-o", "comment.cubin"], &dir);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(dir.join("code.ptx"), kernel(b" \xe9")).unwrap();
    let out = ptxas(&["-arch=sm_90", "code.ptx", "-o", "code.cubin"], &dir);
    assert_eq!(out.status.code(), Some(255));
    assert_eq!(
        stderr(&out),
        "ptxas fatal   : Unexpected non-ASCII character encountered on line 7\n\
         ptxas fatal   : Ptx assembly aborted due to errors\n"
    );
    assert!(!dir.join("code.cubin").exists());
}

/// `ptxas --jobserver --split-compile 4` on a two-kernel module under
/// `MAKEFLAGS` (None: unset).
fn jobserver_run(dir: &Path, makeflags: Option<&str>, split: bool) -> Output {
    let input = repo().join("tests/lineinfo/calls.sm80.ptx");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxas"));
    cmd.args(["-arch", "sm_80", "--jobserver"]);
    if split {
        cmd.args(["--split-compile", "4"]);
    }
    cmd.arg(&input).args(["-o", "k.cubin"]).current_dir(dir).env_remove("MAKEFLAGS");
    if let Some(flags) = makeflags {
        cmd.env("MAKEFLAGS", flags);
    }
    cmd.output().unwrap()
}

#[test]
fn jobserver_messages_are_nvidias() {
    let dir = scratch("jobserver_messages");
    // No jobserver in the environment: a warning, and the option is ignored.
    let out = jobserver_run(&dir, None, true);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "ptxas warning : GNU Jobserver support requested, but no compatible jobserver found. Ignoring '--jobserver'\n"
    );
    // Make's old `--jobserver-fds` spelling does not count either.
    let out = jobserver_run(&dir, Some("-j4 --jobserver-fds=3,4"), true);
    assert!(stderr(&out).contains("no compatible jobserver found"), "{}", stderr(&out));
    // Without --split-compile the option has nothing to do.
    let out = jobserver_run(&dir, Some("-j4 --jobserver-auth=fifo:/nonexistent"), false);
    assert_eq!((out.status.code(), stderr(&out).as_str()), (Some(0), ""));
    // A jobserver that cannot be used stops the compile, without output.
    std::fs::remove_file(dir.join("k.cubin")).unwrap();
    let out = jobserver_run(&dir, Some("-j4 --jobserver-auth=fifo:/nonexistent"), true);
    assert_eq!(out.status.code(), Some(255));
    assert_eq!(stderr(&out), "ptxas fatal   : Jobserver requested, but an error occurred\n");
    assert!(!dir.join("k.cubin").exists());
}

#[test]
fn jobserver_tokens_are_taken_and_given_back() {
    use std::io::{Read, Write};
    let dir = scratch("jobserver_tokens");
    let fifo = dir.join("jobserver");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo");
    // Opened for reading and writing, a FIFO opens without a peer.
    let mut pipe = std::fs::OpenOptions::new().read(true).write(true).open(&fifo).unwrap();
    pipe.write_all(b"++").unwrap();
    let out = jobserver_run(&dir, Some(&format!("-j3 --jobserver-auth=fifo:{}", fifo.display())), true);
    assert_eq!((out.status.code(), stderr(&out).as_str()), (Some(0), ""));
    let split = std::fs::read(dir.join("k.cubin")).unwrap();
    // Both tokens are back: they and a marker written now are all there is.
    pipe.write_all(b"x").unwrap();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut back = [0u8; 3];
        let _ = send.send(pipe.read_exact(&mut back).map(|_| back));
    });
    let back = receive.recv_timeout(std::time::Duration::from_secs(30)).expect("the tokens came back").unwrap();
    assert_eq!(&back, b"++x");
    // The cubin does not depend on the threads.
    let out = ptxas(
        &["-arch", "sm_80", repo().join("tests/lineinfo/calls.sm80.ptx").to_str().unwrap(), "-o", "one.cubin"],
        &dir,
    );
    assert!(out.status.success());
    assert_eq!(std::fs::read(dir.join("one.cubin")).unwrap(), split);
}

/// README's first command: a `.target sm_75` file with no `-arch` is
/// compiled for ptxas's default target into `elf.o`.
#[test]
fn readme_first_command_writes_elf_o_for_sm_75() {
    let dir = scratch("readme_first_command");
    let input = repo().join("examples/vadd.sm75.ptx");
    let out = ptxas(&[input.to_str().unwrap()], &dir);
    assert_eq!((out.status.code(), stderr(&out).as_str()), (Some(0), ""));
    let cubin = elfw::read(&std::fs::read(dir.join("elf.o")).expect("elf.o")).unwrap();
    assert_eq!(cubin.header.eflags().sm(), 75);
    assert!(cubin.sections.iter().any(|s| s.name == ".text.vadd"));
}

/// `--input-as-string` takes the PTX whole: its commas do not split it
/// (ptxas 13.5 compiles it to the cubin of the same file); each use is one
/// more input.
#[test]
fn input_as_string_keeps_commas() {
    let dir = scratch("input-as-string");
    let file = repo().join("tests/lineinfo/calls.sm90.ptx");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(','));
    let from_file = ptxas(&["-arch=sm_90", file.to_str().unwrap(), "-o", "file.cubin"], &dir);
    assert!(from_file.status.success(), "{}", stderr(&from_file));
    let from_string = ptxas(&["-arch=sm_90", "--input-as-string", &text, "-o", "string.cubin"], &dir);
    assert!(from_string.status.success(), "{}", stderr(&from_string));
    assert_eq!(std::fs::read(dir.join("string.cubin")).unwrap(), std::fs::read(dir.join("file.cubin")).unwrap());
}
