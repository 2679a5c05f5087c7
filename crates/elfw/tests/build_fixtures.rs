//! The builder without NVIDIA's tools: the stored ptxas cubins are rebuilt
//! from their own code and metadata byte for byte, and a module written by
//! hand gets the sections and records ptxas would give it.

#[path = "common/extract.rs"]
mod extract;

use elfw::nvinfo::{Value, code};
use ori_ir::object::*;

const FIXTURES: &[(&str, &[u8])] = &[
    ("simple.sm_80", include_bytes!("data/simple.sm_80.cubin")),
    ("simple.sm_90", include_bytes!("data/simple.sm_90.cubin")),
    ("device_calls.sm_80.rel", include_bytes!("data/device_calls.sm_80.rel.cubin")),
    ("vadd.sm_75", include_bytes!("data/vadd.sm_75.cubin")),
    ("complex.sm_100", include_bytes!("data/complex.sm_100.cubin")),
    // Line tables (`.loc` in the PTX): Triton's vector add; Triton's softmax,
    // with NVIDIA's inlining extension, on sm_90a (RELA); an NVRTC
    // `-lineinfo` module whose kernel calls a device function.
    ("lines_triton_add.sm_80", include_bytes!("data/lines_triton_add.sm_80.cubin")),
    ("lines_triton_softmax.sm_90a", include_bytes!("data/lines_triton_softmax.sm_90a.cubin")),
    // The same kernel's PTX for sm_80 with `inlined_at` removed: its
    // `.debug_str` comes last.
    ("lines_triton_softmax_no_inlining.sm_80", include_bytes!("data/lines_triton_softmax_no_inlining.sm_80.cubin")),
    ("lines_nvrtc_calls.sm_80", include_bytes!("data/lines_nvrtc_calls.sm_80.cubin")),
    ("lines_nvrtc_calls.sm_80.rel", include_bytes!("data/lines_nvrtc_calls.sm_80.rel.cubin")),
];

#[test]
fn stored_cubins_rebuild_identically() {
    for (name, bytes) in FIXTURES {
        let nv = elfw::read(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let module = extract::extract(&nv);
        let built = match extract::extract_mercury(&nv) {
            Some(mercury) => elfw::build_with_mercury(&module, &mercury),
            None => elfw::build(&module),
        };
        let ours = built.unwrap_or_else(|e| panic!("{name}: {e}"));
        if ours != *bytes {
            let diff = elfw::diff::byte_differences(&nv, bytes, &ours, 5).join("\n");
            panic!("{name} differs:\n{diff}");
        }
    }
}

/// A kernel `k(u64, u32)` with 128 bytes of code and one EXIT.
fn kernel(sm: u32, mode: OutputMode) -> ObjectModule {
    ObjectModule {
        target: Target { sm, accelerated: false },
        ptx_target: sm,
        mode,
        command_line: format!("-arch sm_{sm} "),
        isa_class: 1,
        functions: vec![Function {
            name: "k".into(),
            code: vec![0; 128],
            registers: 8,
            params: vec![Param { offset: 0, size: 8, pointee: None }, Param { offset: 8, size: 4, pointee: None }],
            exit_offsets: vec![0x40],
            frame: FrameInfo {
                return_register: u32::MAX,
                cie_instructions: vec![0x0c, 0x81, 0x80, 0x80, 0x28, 0x00],
                fde_instructions: vec![],
                ..FrameInfo::default()
            },
            ..Function::default()
        }],
        ..ObjectModule::default()
    }
}

#[test]
fn hand_made_kernel_gets_ptxas_sections() {
    for (sm, mode) in [(80, OutputMode::WholeProgram), (90, OutputMode::WholeProgram), (90, OutputMode::Relocatable)] {
        let bytes = elfw::build(&kernel(sm, mode)).expect("build");
        let cubin = elfw::read(&bytes).expect("read back");
        assert_eq!(elfw::write(&cubin).as_deref(), Ok(bytes.as_slice()));
        assert_eq!(cubin.header.eflags().sm(), sm);
        let names: Vec<&str> = cubin.sections.iter().map(|s| s.name.as_str()).collect();
        for want in [".nv.info", ".nv.info.k", ".text.k", ".nv.constant0.k", ".note.nv.cuinfo", ".debug_frame"] {
            assert!(names.contains(&want), "sm_{sm} {mode:?}: no {want} in {names:?}");
        }
        assert_eq!(names.contains(&".nv.compat"), sm >= 90);
        assert_eq!(names.contains(&".nv.rel.action"), sm < 90 && mode == OutputMode::WholeProgram);
        let (_, c0) = cubin.section(".nv.constant0.k").unwrap();
        let base = if sm >= 90 { 0x210 } else { 0x160 };
        assert_eq!(c0.size(), base + 12);
        let info = cubin.section(".nv.info.k").unwrap().1.attributes().unwrap();
        let cbank = info.iter().find(|a| a.code == code::PARAM_CBANK).and_then(|a| a.as_words()).unwrap();
        assert_eq!(cbank[1], (12 << 16) | base as u32);
        let kparams = info.iter().filter(|a| a.code == code::KPARAM_INFO).count();
        assert_eq!(kparams, 2);
        let exits = info.iter().find(|a| a.code == code::EXIT_INSTR_OFFSETS).and_then(|a| a.as_words()).unwrap();
        assert_eq!(exits, vec![0x40]);
        let regs = cubin.section(".nv.info").unwrap().1.attributes().unwrap();
        assert!(regs.iter().any(|a| a.code == code::REGCOUNT && a.as_words().is_some_and(|w| w[1] == 8)));
        let maxreg = info.iter().find(|a| a.code == code::MAXREG_COUNT).map(|a| a.value.clone());
        assert_eq!(maxreg, Some(Value::Half(0xff)));
        let entry = cubin.symbols().iter().find(|s| s.name == "k").unwrap();
        assert_eq!((entry.other, entry.size), (elfw::symbol::sto::CUDA_ENTRY, 128));
    }
}

#[test]
fn bad_input_is_an_error() {
    let mut m = kernel(80, OutputMode::WholeProgram);
    m.target.sm = 61;
    assert!(matches!(elfw::build(&m), Err(elfw::Error::Input(_))));
    let mut m = kernel(80, OutputMode::WholeProgram);
    m.functions[0].kind = FunctionKind::Device;
    assert!(matches!(elfw::build(&m), Err(elfw::Error::Input(_))));
    let mut m = kernel(80, OutputMode::WholeProgram);
    m.functions[0].callees.push("nowhere".into());
    assert!(matches!(elfw::build(&m), Err(elfw::Error::Input(_))));
    let mut m = kernel(80, OutputMode::WholeProgram);
    m.functions[0].params[0].size = 1 << 14;
    assert!(matches!(elfw::build(&m), Err(elfw::Error::Input(_))));
}
