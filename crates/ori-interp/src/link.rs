//! The code of a kernel whose calls the driver links at load time: cubins
//! nvlink makes from `-c` objects keep every function in its own
//! `.text.<function>` section and leave the calls relocated
//! (`CALL.ABS.NOINC `(f)`, the absolute return address in `MOV R20`/`MOV
//! R21`). As the driver does, the loader places the kernel's code and every
//! function it reaches in one address space (the kernel at 0, each callee
//! after it at 128-byte alignment, as sections are aligned) and applies the
//! code relocations; the result runs as one function.

use elfw::Cubin;
use elfw::reloc::r_cuda;
use elfw::section::SectionData;

use crate::Error;

/// Alignment of a function's code in the image (the `.text` sections').
const ALIGN: usize = 128;

/// A relocation of code in the image: where, what kind, the symbol's
/// `.text` section and the addend.
struct Fixup {
    at: usize,
    kind: u32,
    section: usize,
    addend: i64,
}

/// The code image of the kernel whose code is section `text`: its own bytes
/// when its code has no relocations against other functions.
pub(crate) fn image(cubin: &Cubin, text: usize) -> Result<Vec<u8>, Error> {
    let symbols = cubin.symbols();
    let mut placed: Vec<(usize, usize)> = Vec::new(); // (section, base)
    let mut image: Vec<u8> = Vec::new();
    let mut fixups = Vec::new();
    let mut next = 0;
    let mut queue = vec![text];
    while next < queue.len() {
        let section = queue[next];
        next += 1;
        let bytes = cubin.sections[section].bytes().unwrap_or(&[]);
        image.resize(image.len().next_multiple_of(ALIGN), 0);
        let base = image.len();
        image.extend_from_slice(bytes);
        placed.push((section, base));
        let name = &cubin.sections[section].name;
        // sm_8x keeps the relocations without addend in `.rel` sections.
        let mut list: Vec<elfw::reloc::Rela> = Vec::new();
        for prefix in [".rela", ".rel"] {
            match cubin.section(&format!("{prefix}{name}")).map(|(_, s)| &s.data) {
                Some(SectionData::Rela(l)) => list.extend(l),
                Some(SectionData::Rel(l)) => list.extend(l.iter().map(|r| elfw::reloc::Rela {
                    offset: r.offset,
                    sym: r.sym,
                    kind: r.kind,
                    addend: 0,
                })),
                _ => {}
            }
        }
        for r in &list {
            if ![r_cuda::ABS32_LO_32, r_cuda::ABS32_HI_32, r_cuda::ABS55_16_34, r_cuda::ABS47_34].contains(&r.kind) {
                continue;
            }
            let target = symbols.get(r.sym as usize).map(|s| usize::from(s.shndx)).filter(|&s| s != 0);
            let target = target.ok_or_else(|| {
                Error::Load(format!("{name}+{:#x}: relocation against an undefined symbol", r.offset))
            })?;
            if !queue.contains(&target) {
                queue.push(target);
            }
            fixups.push(Fixup { at: base + r.offset as usize, kind: r.kind, section: target, addend: r.addend });
        }
    }
    for f in fixups {
        let base = placed.iter().find(|p| p.0 == f.section).map_or(0, |p| p.1);
        let value = (base as i64 + f.addend) as u64;
        let word = image
            .get_mut(f.at..f.at + 16)
            .ok_or_else(|| Error::Load(format!("code relocation at {:#x} outside the code", f.at)))?;
        let mut bits = u128::from_le_bytes(word.try_into().unwrap_or([0; 16]));
        match f.kind {
            // A 32-bit immediate at bits 32..63 (`MOV R20, 32@lo(...)`).
            r_cuda::ABS32_LO_32 => set(&mut bits, 32, 32, value & 0xffff_ffff),
            r_cuda::ABS32_HI_32 => set(&mut bits, 32, 32, value >> 32),
            // sm_8x's `CALL.ABS.NOINC`: address bits 2..48 at 34..80.
            r_cuda::ABS47_34 => set(&mut bits, 34, 47, value >> 2),
            // sm_90's: address bits 2..9 at 16..23, 10..56 at 34..80.
            _ => {
                set(&mut bits, 16, 8, value >> 2);
                set(&mut bits, 34, 47, value >> 10);
            }
        }
        word.copy_from_slice(&bits.to_le_bytes());
    }
    Ok(image)
}

/// Writes the low `len` bits of `value` at bit `pos` of `bits`.
fn set(bits: &mut u128, pos: u32, len: u32, value: u64) {
    let mask = ((1u128 << len) - 1) << pos;
    *bits = (*bits & !mask) | ((u128::from(value) << pos) & mask);
}
