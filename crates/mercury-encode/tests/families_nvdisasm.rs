//! Every word of every family field (`src/families.rs`), on every learned
//! form of the family: the instruction is built with the new modifiers,
//! encoded, and listed by `nvdisasm -b`; nvdisasm must print our text, and
//! decoding our word must give the same text and bits back. This re-runs
//! the probes the family table was made from, on learned and derived
//! forms.

mod common;

use std::collections::BTreeSet;
use std::ffi::OsStr;

use mercury_encode::families::{FAMILIES, Slot, probed_rows};
use mercury_encode::form::Tables;
use mercury_encode::listing::parse_listing;
use mercury_encode::{CodeLabels, Sm, decode, encode, print};
use ori_ir::{Inst, Modifier};

/// Families with at most this many field combinations are checked in
/// full.
const ALL_COMBINATIONS: usize = 128;

/// Random combinations per form of a larger family.
const RANDOM_COMBINATIONS: usize = 16;

/// The instructions to check: (our text, our word).
fn variants(sm: Sm, unrepresentable: &mut BTreeSet<String>, failures: &mut Vec<String>) -> Vec<(String, [u64; 2])> {
    let tables = Tables::full(sm);
    let mut rng = common::Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::new();
    // The rows `sm` uses: its own, and those for every SM it has none for.
    for fam in FAMILIES.iter().filter(|f| probed_rows(sm, f.opcode).any(|g| std::ptr::eq(g, *f))) {
        // Learned and derived forms (derive.rs): the fields compose with
        // the derived operand shapes.
        for form in tables.forms {
            let Some(values) = fam.parse(form.mnemonic).filter(|_| fam.holds_for(form)) else { continue };
            // The form with its atoms at 0 (R0, P0), guard PT.
            // Address offsets 0x10, so that they print.
            let mut w = form.bits | (7 << 12);
            for i in common::offset_atoms(form) {
                w |= form.atoms[i].place(0x10).expect("0x10 fits an offset");
            }
            let bits = [w as u64, mercury_encode::ctrl::encode_ctrl((w >> 64) as u64, &mercury_encode::UNSCHEDULED)];
            let mut labels = CodeLabels::new();
            let Ok(base) = decode(sm, bits, 0, &mut labels) else {
                failures.push(format!("{sm:?}: learned form {} does not decode", form.mnemonic));
                continue;
            };
            // Every combination of the field values; where that is more
            // than `ALL_COMBINATIONS` (the memory families: 672 for LDG),
            // every value of each field alone and random combinations.
            let mut insts = Vec::new();
            let sizes: Vec<usize> = fam.slots.iter().map(|slot| slot.value_words().map_or(1, |w| w.len())).collect();
            let mut combos = vec![values.clone()];
            if sizes.iter().product::<usize>() <= ALL_COMBINATIONS {
                for (i, &n) in sizes.iter().enumerate() {
                    if !matches!(fam.slots[i], Slot::Word(_)) {
                        combos = combos
                            .iter()
                            .flat_map(|c| {
                                (0..n).map(move |v| {
                                    let mut c = c.clone();
                                    c[i] = v as u8;
                                    c
                                })
                            })
                            .collect();
                    }
                }
            } else {
                for (i, &n) in sizes.iter().enumerate() {
                    if !matches!(fam.slots[i], Slot::Word(_)) {
                        for v in 0..n {
                            let mut c = values.clone();
                            c[i] = v as u8;
                            combos.push(c);
                        }
                    }
                }
                for _ in 0..RANDOM_COMBINATIONS {
                    let mut c = values.clone();
                    for (i, &n) in sizes.iter().enumerate() {
                        if !matches!(fam.slots[i], Slot::Word(_)) {
                            c[i] = rng.below(n as u64) as u8;
                        }
                    }
                    combos.push(c);
                }
            }
            for vals in combos {
                let Some(mnemonic) = fam.render(&vals) else { continue };
                let mods: Option<Vec<Modifier>> = mnemonic.split('.').skip(1).map(Modifier::from_name).collect();
                let Some(mods) = mods else {
                    unrepresentable.insert(mnemonic);
                    continue;
                };
                insts.push(Inst { mods, encoding: None, ..base.clone() });
            }
            // The other negation of the last predicate (FMNMX min/max).
            let pred_pos = fam.negate.as_ref().map(|n| n.pred_pos);
            let negatable = form.operands.last().is_some_and(|l| l.ends_with("{P}"))
                && form.atoms.last().and_then(|a| a.fields.first()).is_some_and(|f| Some(f.pos) == pred_pos);
            if negatable {
                let mut inst = Inst { encoding: None, ..base.clone() };
                if let Some(last) = inst.uses.last_mut() {
                    last.flags.not = !last.flags.not;
                }
                insts.push(inst);
            }
            for inst in insts {
                let labels = CodeLabels::new();
                match (print(sm, &inst, &labels), encode(sm, &inst, 0, &labels)) {
                    (Ok(text), Ok(bits)) => out.push((text, bits)),
                    (text, bits) => failures.push(format!("{sm:?}: {text:?} does not encode: {bits:?}")),
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_family_word_matches_nvdisasm() {
    let Some(oracle) = nv_oracle::Oracle::for_test("every_family_word_matches_nvdisasm") else { return };
    let scratch = common::scratch("families");
    let mut failures = Vec::new();
    let mut unrepresentable = BTreeSet::new();
    for sm in [Sm::Sm75, Sm::Sm80, Sm::Sm90, Sm::Sm100, Sm::Sm120] {
        let insts = variants(sm, &mut unrepresentable, &mut failures);
        let file = scratch.join(format!("{sm:?}.bin"));
        let bytes: Vec<u8> =
            insts.iter().flat_map(|(_, [lo, hi])| lo.to_le_bytes().into_iter().chain(hi.to_le_bytes())).collect();
        std::fs::write(&file, bytes).expect("write raw code");
        let listing = match common::run(
            &oracle.nvdisasm(),
            &[OsStr::new("-b"), OsStr::new(sm.nvdisasm_name()), file.as_os_str()],
        ) {
            Ok(l) => l,
            Err(e) => panic!("{sm:?}: nvdisasm rejects a family word: {e}"),
        };
        let listed = parse_listing(&listing).remove("").unwrap_or_default();
        let by_addr: std::collections::HashMap<u64, &str> =
            listed.insts.iter().map(|l| (l.addr, l.text.trim_end_matches(';').trim_end())).collect();
        let mut matched = 0;
        let mut mnemonics = BTreeSet::new();
        for (i, (text, bits)) in insts.iter().enumerate() {
            let addr = 16 * i as u64;
            let theirs = by_addr.get(&addr).copied();
            let mut labels = CodeLabels::new();
            let again = decode(sm, *bits, addr, &mut labels).and_then(|inst| {
                let t = print(sm, &inst, &labels)?;
                Ok((t, encode(sm, &inst, addr, &labels)?))
            });
            match (theirs, &again) {
                (Some(t), Ok((ours, re))) if t == text && ours == text && re == bits => {
                    matched += 1;
                    mnemonics.insert(text.split(' ').next().unwrap_or_default().to_string());
                }
                _ => failures.push(format!("{sm:?}: ours {text:?} {bits:x?}, nvdisasm {theirs:?}, decoded {again:?}")),
            }
        }
        // The spellings lowering asked for (docs/mercury-encode.md).
        let wanted = [
            "ISETP.LE.AND",
            "ISETP.LE.U32.OR",
            "ISETP.NE.U32.XOR",
            "FSETP.EQ.AND",
            "FSETP.NE.AND",
            "FSETP.LT.AND",
            "FSETP.LE.FTZ.AND",
            "DSETP.LE.AND",
            "DSETP.LT.OR",
            "HSETP2.LT.OR",
            "HSETP2.NE.AND",
        ];
        for m in wanted.iter().filter(|_| sm != Sm::Sm75) {
            if !mnemonics.contains(*m) {
                failures.push(format!("{sm:?}: no {m} was checked"));
            }
        }
        // Memory spellings lowering asks for, with and without offsets.
        let wanted_text = [
            "LDG.E.64 R0, desc[UR0][R0.64+0x",
            "LDG.E.S8 R0, desc[UR0][R0.64+0x",
            "LDG.E.STRONG.GPU R0, desc[UR0][R0.64]",
            "LDG.E.EF R0, desc[UR0][R0.64+0x",
            "STG.E.U8 desc[UR0][R0.64+0x",
            "STG.E.STRONG.SYS desc[UR0][R0.64+0x",
            "STG.E.S16 desc[UR0][R0.64]",
            "LDL.LU R0, [R0+0x",
            "STL.S8 [R0",
            "LDS.U16 R0, [R0+0x",
            "STS.128 [R0+0x",
            "LD.E.STRONG.GPU R0, desc[UR0][R0.64",
            "ST.E.128 desc[UR0][R0.64+0x",
            "LDC.S8 R0, c[0x0][R0",
        ];
        // Turing's spellings (no descriptor; scope words of their own).
        let wanted_text_75 = [
            "LDG.E.U8.CONSTANT.SYS R0, [R0",
            "LDG.E.64.STRONG.GPU R0, [R0",
            "STG.E.U8.SYS [R0",
            "RED.E.ADD.64.STRONG.GPU [R0",
            "ATOMG.E.EXCH.STRONG.GPU P0, R0, [UR0",
            "ISETP.LE.U32.OR",
            "FSETP.NE.AND",
        ];
        let wanted_text: Vec<&str> = match sm {
            Sm::Sm75 => wanted_text_75.to_vec(),
            // NVIDIA's Blackwell code of the corpus has no generic `ST` to
            // derive from.
            Sm::Sm100 | Sm::Sm120 => wanted_text.iter().copied().filter(|w| !w.starts_with("ST.E")).collect(),
            _ => wanted_text.to_vec(),
        };
        for w in wanted_text {
            let w = if sm == Sm::Sm80 { w.replace("desc[UR0]", "") } else { w.to_string() };
            if !insts.iter().any(|(t, _)| t.starts_with(&w)) {
                failures.push(format!("{sm:?}: nothing like {w:?} was checked"));
            }
        }
        if !insts.iter().any(|(t, _)| t.starts_with("FMNMX ") && !t.contains('!')) {
            failures.push(format!("{sm:?}: no FMNMX minimum (without `!`) was checked"));
        }
        eprintln!(
            "{sm:?}: {} family instructions, {matched} print as nvdisasm does and round-trip; {} mnemonics",
            insts.len(),
            mnemonics.len()
        );
    }
    let sample: Vec<&String> = unrepresentable.iter().take(20).collect();
    eprintln!("{} mnemonics not representable in Ori (modifier unknown), e.g. {sample:?}", unrepresentable.len());
    for f in failures.iter().take(40) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} family instructions disagree", failures.len());
}
