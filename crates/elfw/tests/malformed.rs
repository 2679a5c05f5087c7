//! The reader on damaged input: truncated and garbled files give errors, never
//! panics; the writer never panics on whatever the reader accepts. Uses small
//! ptxas 13.5 cubins stored in `tests/data` (no NVIDIA tools needed).

use elfw::Error;

const FIXTURES: &[(&str, &[u8])] = &[
    ("simple.sm_80", include_bytes!("data/simple.sm_80.cubin")),
    ("simple.sm_90", include_bytes!("data/simple.sm_90.cubin")),
    ("complex.sm_100", include_bytes!("data/complex.sm_100.cubin")),
    ("device_calls.sm_80.rel", include_bytes!("data/device_calls.sm_80.rel.cubin")),
    ("vadd.sm_75", include_bytes!("data/vadd.sm_75.cubin")),
];

#[test]
fn fixtures_roundtrip() {
    for (name, bytes) in FIXTURES {
        let model = elfw::read(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(elfw::write(&model).as_deref(), Ok(*bytes), "{name}");
        // ptxas's layout, recomputed from the section list, is the same.
        let arch = elfw::arch::arch(model.header.eflags().sm()).expect("known SM");
        let mut again = model.clone();
        for s in &mut again.sections {
            s.offset = 0;
        }
        again.program_headers.clear();
        elfw::layout::assign(&mut again, arch.segments).expect("layout");
        assert_eq!(again, model, "{name}: layout");
    }
}

#[test]
fn every_truncation_is_an_error() {
    for (name, bytes) in FIXTURES {
        // The last byte of a cubin belongs to the section or program header table.
        for len in 0..bytes.len() {
            assert!(elfw::read(&bytes[..len]).is_err(), "{name} truncated to {len} bytes was accepted");
        }
    }
}

#[test]
fn garbled_files_never_panic() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut accepted = 0;
    for (_, bytes) in FIXTURES {
        for _ in 0..3000 {
            let mut b = bytes.to_vec();
            for _ in 0..1 + next() % 4 {
                let at = (next() % b.len() as u64) as usize;
                b[at] = next() as u8;
            }
            if let Ok(model) = elfw::read(&b) {
                accepted += 1;
                let _ = elfw::write(&model);
            }
        }
    }
    // Most single-byte changes hit code or padding, which stays readable.
    assert!(accepted > 0);
}

#[test]
fn specific_damage_is_named() {
    let (_, simple) = FIXTURES[0];
    let mut b = simple.to_vec();
    b[0] = b'X';
    assert!(matches!(elfw::read(&b), Err(Error::Malformed(m)) if m.contains("magic")));
    assert!(matches!(elfw::read(&simple[..40]), Err(Error::Truncated { .. })));
    let mut b = simple.to_vec();
    b[18] = 3; // e_machine EM_386
    assert!(matches!(elfw::read(&b), Err(Error::Malformed(m)) if m.contains("EM_CUDA")));
    // An .nv.info record whose payload runs past the section end.
    let model = elfw::read(simple).unwrap();
    let (_, info) = model.section(".nv.info").unwrap();
    let mut b = simple.to_vec();
    b[info.offset as usize + 2] = 0xff;
    b[info.offset as usize + 3] = 0xff;
    let err = elfw::read(&b).unwrap_err();
    assert!(err.to_string().contains(".nv.info"), "{err}");
}
