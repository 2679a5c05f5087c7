//! Capsule Mercury without NVIDIA's tools: the Mercury sections of stored
//! ptxas 13.5 cubins (`data/capmerc/*.ptx` compiled with `ptxas -arch
//! sm_XXXa`) are regenerated from their other sections. Every section the
//! generator makes must equal NVIDIA's byte for byte, and it must make
//! exactly the ones listed (a section that stops being made fails too).
//! Every capsule must parse, re-encode identically and have the header
//! derived from `.text`.

use elfw::capmerc::{self, Unknown, capsule::Capsule, capsule::Header};

/// The sections made in every fixture.
const ALWAYS: &[&str] = &[".nv.merc.nv.callgraph", ".nv.merc.nv.shared.reserved.0"];

/// (fixture, bytes, sections made besides [`ALWAYS`]).
const FIXTURES: &[(&str, &[u8], &[&str])] = &[
    ("empty.sm_100a", include_bytes!("data/capmerc/empty.sm_100a.cubin"), &[".nv.merc.nv.info", ".nv.capmerc.text.k"]),
    // sm_110's Mercury reserved shared memory is 0x80 bytes.
    ("store.sm_110a", include_bytes!("data/capmerc/store.sm_110a.cubin"), &[".nv.merc.nv.info", ".nv.capmerc.text.k"]),
    ("store.sm_120a", include_bytes!("data/capmerc/store.sm_120a.cubin"), &[".nv.merc.nv.info", ".nv.capmerc.text.k"]),
    // MEMBARs with the ERRBAR/CGAERRBAR/CCTL.IVALL/FENCE.VIEW.ASYNC.S the
    // capsule does not count; their records since session 16.
    (
        "fences.sm_100a",
        include_bytes!("data/capmerc/fences.sm_100a.cubin"),
        &[".nv.merc.nv.info", ".nv.capmerc.text.k"],
    ),
    // Initialised globals with a pointer, a constant bank 3 table, bank 4.
    (
        "data.sm_100a",
        include_bytes!("data/capmerc/data.sm_100a.cubin"),
        &[
            ".nv.merc.nv.info",
            ".nv.merc.nv.constant.user",
            ".nv.merc.nv.constant.pic",
            ".nv.merc.nv.global.init",
            ".nv.merc.rela.nv.constant.pic",
            ".nv.merc.rela.nv.global.init",
            // Made since session 16 (the LD.E record).
            ".nv.capmerc.text.k",
        ],
    ),
    // The corpus's vadd (`.target` raised to sm_100a): special registers,
    // parameters, a signed ISETP, IMAD.WIDE, LDG, STG.E, two EXITs.
    ("vadd.sm_100a", include_bytes!("data/capmerc/vadd.sm_100a.cubin"), &[".nv.merc.nv.info", ".nv.capmerc.text.vadd"]),
    // XOR and NOT of registers: LOP3.LUT records.
    ("logic.sm_100a", include_bytes!("data/capmerc/logic.sm_100a.cubin"), &[".nv.merc.nv.info", ".nv.capmerc.text.k"]),
    // A cloned callee with a 0x40 frame, 0 in the Mercury code; its
    // capsule is made since session 16 (LEA and LOP3 forms).
    ("callee.sm_100a", include_bytes!("data/capmerc/callee.sm_100a.cubin"), &[".nv.capmerc.text.k"]),
    // Session 16 probes. Local stores and loads (STL/LDL), the AND with a
    // predicate output; sm_120's IADD with an immediate.
    (
        "local.sm_100a",
        include_bytes!("data/capmerc/local.sm_100a.cubin"),
        &[".nv.merc.nv.info", ".nv.capmerc.text.local_k"],
    ),
    (
        "local.sm_120a",
        include_bytes!("data/capmerc/local.sm_120a.cubin"),
        &[".nv.merc.nv.info", ".nv.capmerc.text.local_k"],
    ),
    // XOR with immediates, uniform and not.
    ("xor.sm_100a", include_bytes!("data/capmerc/xor.sm_100a.cubin"), &[".nv.merc.nv.info", ".nv.capmerc.text.xor_k"]),
    ("xor.sm_120a", include_bytes!("data/capmerc/xor.sm_120a.cubin"), &[".nv.merc.nv.info", ".nv.capmerc.text.xor_k"]),
    // BAR.SYNC and BAR.ARV with immediate and register operands, guarded.
    (
        "bar2.sm_100a",
        include_bytes!("data/capmerc/bar2.sm_100a.cubin"),
        &[".nv.merc.nv.info", ".nv.capmerc.text.bar2_k"],
    ),
    // BAR.RED's record is not derived: the capsule stays unknown; the B2R
    // the finalizer puts after it is not counted.
    ("bar.sm_100a", include_bytes!("data/capmerc/bar.sm_100a.cubin"), &[".nv.merc.nv.info"]),
    ("barred.sm_100a", include_bytes!("data/capmerc/barred.sm_100a.cubin"), &[".nv.merc.nv.info"]),
];

#[test]
fn derived_sections_equal_nvidias() {
    for &(name, bytes, made) in FIXTURES {
        let cubin = elfw::read(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut ours = Vec::new();
        for r in capmerc::regenerate(&cubin) {
            let theirs = &cubin.sections[r.index];
            assert_eq!(theirs.name, r.name, "{name}");
            let Ok(data) = r.data else { continue };
            let mine = elfw::Section { data, ..theirs.clone() };
            assert_eq!(mine.size(), theirs.size(), "{name}: {} size", r.name);
            assert_eq!(elfw::section_bytes(&mine), elfw::section_bytes(theirs), "{name}: {}", r.name);
            ours.push(r.name);
        }
        let mut expected: Vec<String> = ALWAYS.iter().chain(made).map(|s| s.to_string()).collect();
        expected.sort();
        ours.sort();
        assert_eq!(ours, expected, "{name}: sections made");
    }
}

#[test]
fn callee_frames_are_mercury_only() {
    let cubin = elfw::read(include_bytes!("data/capmerc/callee.sm_100a.cubin")).unwrap();
    let info = capmerc::regenerate(&cubin).into_iter().find(|r| r.name == ".nv.merc.nv.info").unwrap();
    assert_eq!(info.data, Err(Unknown::MercuryFrames));
}

#[test]
fn capsules_parse_reencode_and_match_text() {
    for &(name, bytes, _) in FIXTURES {
        let cubin = elfw::read(bytes).unwrap();
        for s in cubin.sections.iter().filter(|s| s.name.starts_with(".nv.capmerc.text.")) {
            let raw = s.bytes().unwrap();
            let c = Capsule::parse(raw).unwrap_or_else(|e| panic!("{name} {}: {e}", s.name));
            assert_eq!(c.encode(), raw, "{name} {}", s.name);
            let function = &s.name[".nv.capmerc.text.".len()..];
            let (i, text) = cubin.section(&format!(".text.{function}")).unwrap();
            assert_eq!(Header::of_text(i as u32, text.bytes().unwrap()), c.header, "{name} {}", s.name);
            let with_record = (0..c.header.instructions).filter(|&i| c.plain[i as usize / 32] >> (i % 32) & 1 == 0);
            assert_eq!(with_record.count(), c.records.len(), "{name} {}", s.name);
        }
    }
}

#[test]
fn fences_count_once() {
    // fences.ptx: fence.sc.gpu and membar.sys become MEMBAR, ERRBAR,
    // CGAERRBAR, CCTL.IVALL; fence.proxy.async MEMBAR.ALL.GPU,
    // FENCE.VIEW.ASYNC.S; fence.acq_rel.cta a lone MEMBAR.ALL.CTA: 7
    // instructions the capsule does not count.
    let cubin = elfw::read(include_bytes!("data/capmerc/fences.sm_100a.cubin")).unwrap();
    let (i, text) = cubin.section(".text.k").unwrap();
    let code = text.bytes().unwrap();
    let real = code.chunks_exact(16).filter(|w| u16::from_le_bytes([w[0], w[1]]) & 0xfff != 0x918).count() as u32;
    assert_eq!(Header::of_text(i as u32, code).instructions, real - 7);
}

#[test]
fn malformed_capsules_are_errors() {
    let cubin = elfw::read(include_bytes!("data/capmerc/fences.sm_100a.cubin")).unwrap();
    let raw = cubin.section(".nv.capmerc.text.k").unwrap().1.bytes().unwrap().to_vec();
    for n in 0..raw.len() {
        assert!(Capsule::parse(&raw[..n]).is_err(), "truncated to {n} bytes");
    }
    let mut longer = raw.clone();
    longer.push(0);
    assert!(Capsule::parse(&longer).is_err());
    let mut magic = raw.clone();
    magic[7] ^= 1;
    assert!(Capsule::parse(&magic).is_err());
    // A count whose mask cannot fit.
    let mut huge = raw.clone();
    huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(Capsule::parse(&huge).is_err());
    // Every single-byte change parses or fails, never panics.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..5000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut b = raw.clone();
        let at = (seed % b.len() as u64) as usize;
        b[at] = (seed >> 32) as u8;
        let _ = Capsule::parse(&b);
    }
}
