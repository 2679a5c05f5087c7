//! Recovering, from a cubin NVIDIA's ptxas wrote, what our compiler would
//! hand to the builder: code bytes and metadata per function, variables,
//! target. The builder test feeds this back to `elfw::build`.

use elfw::nvinfo::{KParamInfo, Value, code};
use elfw::section::SectionData;
use elfw::symbol::{Symbol, bind, sto, stt};
use elfw::{Cubin, Section};
use ori_ir::Pointee;
use ori_ir::object::*;
use std::collections::HashMap;

struct View<'a> {
    cubin: &'a Cubin,
    syms: &'a [Symbol],
}

impl<'a> View<'a> {
    fn sec(&self, name: &str) -> Option<(usize, &'a Section)> {
        self.cubin.sections.iter().enumerate().find(|(_, s)| s.name == name)
    }

    fn attrs(&self, name: &str) -> &'a [elfw::nvinfo::Attribute] {
        self.sec(name).and_then(|(_, s)| s.attributes()).unwrap_or(&[])
    }

    fn sym_name(&self, i: u32) -> String {
        self.syms.get(i as usize).map(|s| s.name.clone()).unwrap_or_default()
    }

    /// Relocations of section `target` (REL or RELA section), in file order,
    /// as (offset, symbol, kind, addend, is_rela).
    fn relocs(&self, prefix: &str, target: &str) -> Vec<(u64, String, u32, i64)> {
        let mut out = Vec::new();
        if let Some((_, s)) = self.sec(&format!("{prefix}{target}")) {
            match &s.data {
                SectionData::Rel(v) => out.extend(v.iter().map(|r| (r.offset, self.sym_name(r.sym), r.kind, 0))),
                SectionData::Rela(v) => {
                    out.extend(v.iter().map(|r| (r.offset, self.sym_name(r.sym), r.kind, r.addend)))
                }
                _ => {}
            }
        }
        out
    }
}

fn words(v: &Value) -> Vec<u32> {
    match v {
        Value::Block(b) => b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
        _ => vec![],
    }
}

fn dim3(v: &Value) -> Option<[u32; 3]> {
    let w = words(v);
    (w.len() == 3).then(|| [w[0], w[1], w[2]])
}

/// The `.ptr` pointee of a KPARAM_INFO packed word (space [11:8], log2
/// alignment [7:0]).
fn pointee(packed: u32) -> Option<Pointee> {
    use ori_ir::PointeeSpace::*;
    let space = match (packed >> 8) & 0xf {
        0 => return None,
        1 => Local,
        2 => Shared,
        3 => Const,
        4 => Global,
        _ => Generic,
    };
    Some(Pointee { space, align: 1 << (packed & 0xff) })
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8).map_or(0, |s| u64::from_le_bytes(s.try_into().unwrap()))
}

fn uleb(b: &[u8], pos: &mut usize) -> u64 {
    let (mut v, mut shift) = (0u64, 0);
    while let Some(&byte) = b.get(*pos) {
        *pos += 1;
        v |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            break;
        }
    }
    v
}

/// `.debug_frame` entries: FDE offset -> (CIE, FDE) frame info.
fn frames(bytes: &[u8]) -> HashMap<u64, FrameInfo> {
    let mut cies: HashMap<u64, (u32, Vec<u8>)> = HashMap::new();
    let mut out = HashMap::new();
    let mut pos = 0usize;
    while pos + 12 <= bytes.len() {
        let len = u64_at(bytes, pos + 4) as usize;
        let body = pos + 12;
        let end = (body + len).min(bytes.len());
        if u64_at(bytes, body) == u64::MAX {
            let mut p = body + 8 + 2; // id, version, empty augmentation
            uleb(bytes, &mut p); // code alignment
            p += 1; // data alignment (-4)
            let ra = uleb(bytes, &mut p) as u32;
            cies.insert(pos as u64, (ra, bytes[p.min(end)..end].to_vec()));
        } else {
            let (ra, cie) = cies.values().next().cloned().unwrap_or_default();
            let cie_at = u64_at(bytes, body);
            let (ra, cie) = cies.get(&cie_at).cloned().unwrap_or((ra, cie));
            let fde = bytes[(body + 24).min(end)..end].to_vec();
            out.insert(
                pos as u64,
                FrameInfo {
                    return_register: ra,
                    cie_instructions: cie,
                    cie_relocations: vec![],
                    fde_instructions: fde,
                    dropped_bytes: 0,
                },
            );
        }
        pos = end;
    }
    // CIEs are per function and precede their FDE: pair each FDE with the CIE just before it.
    let mut starts: Vec<u64> = cies.keys().copied().collect();
    starts.sort();
    for (fde, info) in out.iter_mut() {
        if let Some(c) = starts.iter().rev().find(|&&c| c < *fde) {
            let (ra, cie) = &cies[c];
            info.return_register = *ra;
            info.cie_instructions = cie.clone();
        }
    }
    out
}

/// The four `.nv.callgraph` groups without their sentinels.
fn call_groups(graph: &[elfw::callgraph::CallEdge]) -> [Vec<elfw::callgraph::CallEdge>; 4] {
    let mut groups: [Vec<_>; 4] = Default::default();
    let mut current = 0;
    for e in graph {
        if let Some(g) = elfw::callgraph::SENTINELS.iter().position(|&s| e.caller == 0 && e.callee == s) {
            current = g;
        } else {
            groups[current].push(*e);
        }
    }
    groups
}

/// (CIE offset, offset of its initial instructions) of every CIE.
fn cie_spans(bytes: &[u8]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos + 12 <= bytes.len() {
        let len = u64_at(bytes, pos + 4) as usize;
        let body = pos + 12;
        if u64_at(bytes, body) == u64::MAX {
            let mut p = body + 10;
            uleb(bytes, &mut p);
            p += 1;
            uleb(bytes, &mut p);
            out.push((pos as u64, p as u64));
        }
        pos = body + len;
    }
    out
}

/// Offset of the entry after the one at `at`.
fn next_entry(bytes: &[u8], at: u64) -> u64 {
    at + 12 + u64_at(bytes, at as usize + 4)
}

/// What the compiler would have handed to the builder for this cubin.
pub fn extract(cubin: &Cubin) -> ObjectModule {
    let syms = cubin.symbols();
    let v = View { cubin, syms };
    let sm = cubin.header.eflags().sm();
    let compat = v.attrs(".nv.compat");
    let compat_byte = |c: u8| compat.iter().find(|a| a.code == c).and_then(|a| a.as_scalar());
    let notes = |name: &str| match v.sec(name).map(|(_, s)| &s.data) {
        Some(SectionData::Notes(n)) => n.first().map(|n| n.desc.clone()).unwrap_or_default(),
        _ => vec![],
    };
    let cu = elfw::notes::CuInfo::decode(&notes(".note.nv.cuinfo"));
    let tk = elfw::notes::TkInfo::decode(&notes(".note.nv.tkinfo"));
    let rel = cubin.header.e_type == elfw::header::ET_REL;
    let sym_index: HashMap<&str, usize> = syms.iter().enumerate().rev().map(|(i, s)| (s.name.as_str(), i)).collect();
    let global = v.attrs(".nv.info");
    let per_sym = |c: u8, sym: usize| {
        global
            .iter()
            .filter(|a| a.code == c)
            .map(|a| words(&a.value))
            .find(|w| w.len() == 2 && w[0] as usize == sym)
            .map(|w| w[1])
    };
    let debug = v.sec(".debug_frame").and_then(|(_, s)| s.bytes()).unwrap_or(&[]);
    let frames = frames(debug);
    let mut frame_of: HashMap<(String, u64), FrameInfo> = HashMap::new();
    let cie_spans = cie_spans(debug);
    let mut cie_relocs: Vec<(u64, FrameRelocation)> = Vec::new();
    let mut fde_key: HashMap<u64, (String, u64)> = HashMap::new();
    // What RELA targets hold in each FDE's location field.
    let mut fde_location: HashMap<(String, u64), u64> = HashMap::new();
    for prefix in [".rel", ".rela"] {
        for (off, sym, kind, addend) in v.relocs(prefix, ".debug_frame") {
            if kind != 2 || sym == ".debug_frame" {
                continue;
            }
            let at = if prefix == ".rel" { u64_at(debug, off as usize) } else { addend as u64 };
            if let Some(&(cie, instr)) =
                cie_spans.iter().find(|(c, i)| *i <= off && off < *c + 12 + u64_at(debug, *c as usize + 4))
            {
                cie_relocs.push((cie, FrameRelocation { offset: (off - instr) as u32, addend: at }));
                continue;
            }
            let fde = off - 20;
            if prefix == ".rela" {
                fde_location.insert((sym.clone(), at), u64_at(debug, off as usize));
            }
            if let Some(f) = frames.get(&fde) {
                fde_key.insert(fde, (sym.clone(), at));
                frame_of.insert((sym, at), f.clone());
            }
        }
    }
    // CIE-pointer addends beyond the real CIE offsets: bytes dropped from the FDE before.
    let mut cie_ptr: Vec<(u64, i64)> = [".rel", ".rela"]
        .iter()
        .flat_map(|p| v.relocs(p, ".debug_frame"))
        .filter(|r| r.1 == ".debug_frame")
        .map(|r| (r.0 - 12, r.3))
        .collect();
    cie_ptr.sort();
    let mut counted = 0i64;
    let mut previous: Option<u64> = None;
    for (fde, addend) in cie_ptr {
        let cie = cie_spans.iter().rev().find(|c| c.0 < fde).map_or(0, |c| c.0 as i64);
        let excess = if addend == 0 { 0 } else { addend - cie - counted };
        let dropped = previous.filter(|_| excess > 0).and_then(|prev| fde_key.get(&prev));
        if let Some(info) = dropped.and_then(|k| frame_of.get_mut(k)) {
            info.dropped_bytes = excess as u32;
            counted += excess;
        }
        previous = Some(fde);
    }
    // Attach CIE relocations to the frame of the FDE that follows the CIE.
    for (cie, r) in &cie_relocs {
        if let Some(info) = fde_key.get(&next_entry(debug, *cie)).and_then(|k| frame_of.get_mut(k)) {
            info.cie_relocations.push(*r);
            info.cie_relocations.sort_by_key(|r| r.offset);
        }
    }
    let shstr = v.sec(".shstrtab").and_then(|(_, s)| s.bytes()).unwrap_or(&[]);
    let shnames: Vec<String> = shstr.split(|&b| b == 0).map(|s| String::from_utf8_lossy(s).into_owned()).collect();

    // `extern .shared` arrays: undefined shared symbols (with `-c`).
    let extern_shared: Vec<ExternShared> = syms
        .iter()
        .filter(|y| y.shndx == 0 && y.kind() == stt::CUDA_OBJECT && y.other == 0x40)
        .map(|y| ExternShared { name: y.name.clone(), align: y.value })
        .collect();
    let mut extern_users: Vec<String> = Vec::new();
    for s in &cubin.sections {
        let Some(f) = s.name.strip_prefix(".rela.text.").or_else(|| s.name.strip_prefix(".rel.text.")) else {
            continue;
        };
        let hits = match &s.data {
            SectionData::Rel(r) => r.iter().any(|r| extern_shared.iter().any(|e| e.name == v.sym_name(r.sym))),
            SectionData::Rela(r) => r.iter().any(|r| extern_shared.iter().any(|e| e.name == v.sym_name(r.sym))),
            _ => false,
        };
        if hits {
            extern_users.push(f.to_string());
        }
    }
    let mut functions = Vec::new();
    for (ti, s) in cubin.sections.iter().enumerate() {
        let Some(name) = s.name.strip_prefix(".text.") else { continue };
        let Some(&si) = sym_index.get(name) else { continue };
        let fsym = &syms[si];
        let info = v.attrs(&format!(".nv.info.{name}"));
        let find = |c: u8| info.iter().find(|a| a.code == c);
        let kind = if fsym.other & sto::CUDA_ENTRY != 0 { FunctionKind::Entry } else { FunctionKind::Device };
        let mut params: Vec<(u16, Param)> = info
            .iter()
            .filter(|a| a.code == code::KPARAM_INFO)
            .filter_map(|a| match &a.value {
                Value::Block(b) => KParamInfo::decode(b),
                _ => None,
            })
            .map(|k| (k.ordinal, Param { offset: k.offset.into(), size: k.size(), pointee: pointee(k.packed) }))
            .collect();
        params.sort_by_key(|p| p.0);
        let shared_name = format!(".nv.shared.{name}");
        let uses_extern =
            extern_users.contains(&name.to_string()) || v.sec(&shared_name).is_some_and(|(_, sh)| sh.size() == 0);
        let shared = match v.sec(&shared_name) {
            Some((shi, sh)) => SharedMemory {
                uses_extern,
                declared: syms.iter().any(|y| y.shndx as usize == shi && y.kind() == stt::SECTION),
                size: sh.size(),
                align: sh.align,
                variables: syms
                    .iter()
                    .filter(|y| y.shndx as usize == shi && y.kind() != stt::SECTION)
                    .map(|y| SharedVariable { name: y.name.clone(), offset: y.value, size: y.size })
                    .collect(),
            },
            None => SharedMemory { uses_extern, ..SharedMemory::default() },
        };
        let bank2 = v.sec(&format!(".nv.constant2.{name}")).map(|(ci, c)| ConstantBank {
            bytes: c.bytes().unwrap_or(&[]).to_vec(),
            align: c.align,
            symbols: syms
                .iter()
                .filter(|y| y.shndx as usize == ci && y.kind() != stt::SECTION)
                .map(|y| SharedVariable { name: y.name.clone(), offset: y.value, size: y.size })
                .collect(),
        });
        let mut relocations = Vec::new();
        let mut order: Vec<(usize, &str)> =
            [".rel", ".rela"].iter().filter_map(|p| v.sec(&format!("{p}.text.{name}")).map(|(i, _)| (i, *p))).collect();
        order.sort();
        for (_, prefix) in &order {
            for (offset, symbol, kind, addend) in v.relocs(prefix, &format!(".text.{name}")).into_iter().rev() {
                relocations.push(CodeRelocation { offset, kind, symbol, addend });
            }
        }
        // ptxas makes them in code order (and writes each list last-first).
        relocations.sort_by_key(|r| r.offset);
        let mut resolved_relocations = Vec::new();
        if !rel {
            if sm >= 90 {
                if v.sec(&format!(".rela.text.{name}")).is_some_and(|(_, s)| s.size() == 0) {
                    resolved_relocations.push(CodeRelocation::default());
                }
            } else {
                for n in &shnames {
                    if *n == format!(".rela.text.{name}") || *n == format!(".rel.text.{name}") {
                        let addend = i64::from(n.starts_with(".rela"));
                        resolved_relocations.push(CodeRelocation { addend, ..Default::default() });
                    }
                }
            }
            relocations.clear();
        }
        let subroutines = syms
            .iter()
            .enumerate()
            .filter(|(_, y)| y.shndx as usize == ti && y.kind() == stt::FUNC && y.name != name)
            .map(|(i, y)| Subroutine {
                name: y.name.clone(),
                offset: y.value,
                size: y.size,
                frame_size: per_sym(code::FRAME_SIZE, i).unwrap_or(0),
                frame: frame_of.get(&(name.to_string(), y.value)).cloned().unwrap_or_default(),
                mercury_offset: fde_location.get(&(name.to_string(), y.value)).copied(),
            })
            .collect();
        let graph = match v.sec(".nv.callgraph").map(|(_, s)| &s.data) {
            Some(SectionData::CallGraph(e)) => e.clone(),
            _ => vec![],
        };
        let groups = call_groups(&graph);
        let callees: Vec<String> =
            groups[0].iter().filter(|e| e.caller as usize == si).map(|e| v.sym_name(e.callee)).collect();
        let address_taken: Vec<String> =
            groups[3].iter().filter(|e| e.caller as usize == si).map(|e| v.sym_name(e.callee)).collect();
        let strtab = v.sec(".strtab").and_then(|(_, s)| s.bytes()).unwrap_or(&[]);
        let indirect_calls: Vec<String> = groups[2]
            .iter()
            .filter(|e| e.caller as usize == si)
            .map(|e| elfw::strtab::lookup(strtab, e.callee).unwrap_or_default())
            .collect();
        let coop_off = find(0x28).map(|a| words(&a.value)).unwrap_or_default();
        let coop_reg = find(0x29).map(|a| words(&a.value)).unwrap_or_default();
        functions.push(Function {
            name: name.to_string(),
            kind,
            linkage: match fsym.bind() {
                bind::GLOBAL => Linkage::Global,
                bind::WEAK => Linkage::Weak,
                _ => Linkage::Local,
            },
            builtin: find(code::LANGUAGE).is_none(),
            code: s.bytes().unwrap_or(&[]).to_vec(),
            registers: per_sym(code::REGCOUNT, si).unwrap_or(0),
            barriers: find(code::NUM_BARRIERS).and_then(|a| a.as_scalar()).map_or(0, u32::from),
            frame_size: per_sym(code::FRAME_SIZE, si).unwrap_or(0),
            stack_size: per_sym(if rel { code::MAX_STACK_SIZE } else { code::MIN_STACK_SIZE }, si).unwrap_or(0),
            crs_stack_size: find(code::CRS_STACK_SIZE).and_then(|a| words(&a.value).first().copied()),
            shared,
            bank2,
            params: params.into_iter().map(|p| p.1).collect(),
            exit_offsets: find(code::EXIT_INSTR_OFFSETS).map(|a| words(&a.value)).unwrap_or_default(),
            launch: LaunchBounds {
                max_threads: find(code::MAX_THREADS).and_then(|a| dim3(&a.value)),
                req_threads: find(code::REQNTID).and_then(|a| dim3(&a.value)),
                max_registers: find(code::MAXREG_COUNT)
                    .and_then(|a| a.as_scalar())
                    .map(u32::from)
                    .filter(|&n| n != 0xff),
                min_ctas_per_sm: None,
                cluster_dims: find(0x3d).and_then(|a| dim3(&a.value)),
            },
            notes: CodeNotes {
                coop_group: coop_off.into_iter().zip(coop_reg).collect(),
                int_warp_wide: find(0x31).map(|a| words(&a.value)).unwrap_or_default(),
                syscalls: find(0x46).map(|a| words(&a.value)).unwrap_or_default(),
                mbarrier_instrs: find(0x39).map(|a| words(&a.value)).unwrap_or_default(),
                mbarriers: find(0x38).and_then(|a| a.as_scalar()),
                uses_wmma: find(0x2b).is_some(),
                uses_ctaid_z: find(code::CTAIDZ_USED).is_some(),
                annotations: find(0x55).and_then(|a| match &a.value {
                    Value::Block(b) => Some(b.clone()),
                    _ => None,
                }),
            },
            relocations,
            resolved_relocations,
            subroutines,
            frame: frame_of.get(&(name.to_string(), 0)).cloned().unwrap_or_default(),
            callees,
            address_taken,
            indirect_calls,
            source_lines: Vec::new(),
            ptx_lines: Vec::new(),
        });
    }

    let mut variables = Vec::new();
    for (space, section) in [
        (VariableSpace::Const, ".nv.constant3"),
        (VariableSpace::Global, ".nv.global"),
        (VariableSpace::Global, ".nv.global.init"),
    ] {
        let Some((si, s)) = v.sec(section) else { continue };
        let init = s.bytes();
        let ptrs = [".rel", ".rela"].iter().flat_map(|p| v.relocs(p, section)).collect::<Vec<_>>();
        for (i, y) in syms.iter().enumerate() {
            if y.shndx as usize != si || y.kind() == stt::SECTION {
                continue;
            }
            let range = y.value..y.value + y.size;
            let mut pointers: Vec<PointerInit> = ptrs
                .iter()
                .filter(|p| range.contains(&p.0))
                .map(|p| PointerInit { offset: p.0 - y.value, target: p.1.clone(), addend: p.3 })
                .collect();
            pointers.reverse();
            variables.push((
                i,
                Variable {
                    name: y.name.clone(),
                    space,
                    linkage: if y.bind() == bind::LOCAL { Linkage::Local } else { Linkage::Global },
                    offset: y.value,
                    size: y.size,
                    align: s.align,
                    init: init.map(|b| b[y.value as usize..(y.value + y.size) as usize].to_vec()),
                    pointers,
                },
            ));
        }
    }
    variables.sort_by_key(|v| v.0);
    let mut table: Vec<(u64, String)> =
        [".rel", ".rela"].iter().flat_map(|p| v.relocs(p, ".nv.constant4")).map(|r| (r.0, r.1)).collect();
    table.sort();

    let strtab = v.sec(".strtab").and_then(|(_, s)| s.bytes()).unwrap_or(&[]);
    let prototypes = v
        .sec(".nv.prototype")
        .and_then(|(_, s)| s.bytes())
        .unwrap_or(&[])
        .chunks_exact(8)
        .map(|c| Prototype {
            function: v.sym_name(u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            signature: elfw::strtab::lookup(strtab, u32::from_le_bytes([c[4], c[5], c[6], c[7]])).unwrap_or_default(),
        })
        .collect();
    let graph = match v.sec(".nv.callgraph").map(|(_, s)| &s.data) {
        Some(SectionData::CallGraph(e)) => e.clone(),
        _ => vec![],
    };
    let address_taken = call_groups(&graph)[1]
        .iter()
        .map(|e| Prototype {
            function: v.sym_name(e.caller),
            signature: elfw::strtab::lookup(strtab, e.callee).unwrap_or_default(),
        })
        .collect();
    let (line_info, mut rows) = line_tables(&v);
    let mut functions = functions;
    for f in &mut functions {
        if let Some((source, ptx)) = rows.remove(&f.name) {
            (f.source_lines, f.ptx_lines) = (source, ptx);
        }
    }
    ObjectModule {
        line_info,
        address_taken,
        extern_shared,
        prototypes,
        target: Target { sm, accelerated: compat_byte(0x09) == Some(1) },
        ptx_target: cu.map_or(0, |c| c.virtual_sm.into()),
        mode: if rel { OutputMode::Relocatable } else { OutputMode::WholeProgram },
        command_line: tk.map(|t| t.command_line).unwrap_or_default(),
        functions,
        variables: variables.into_iter().map(|v| v.1).collect(),
        externals: syms.iter().filter(|y| y.kind() == stt::FUNC && y.shndx == 0).map(|y| y.name.clone()).collect(),
        isa_class: compat_byte(0x02).map_or(1, |b| b as u8),
        address_table: table.into_iter().map(|t| t.1).collect(),
        dwarf: dwarf(&v),
    }
}

/// `-g`'s DWARF sections copied from the PTX, with their relocations (a
/// REL relocation's address is the field's value).
fn dwarf(v: &View) -> Vec<DebugSection> {
    let copied = |n: &str| n.starts_with(".debug_") && ![".debug_frame", ".debug_line", ".debug_str"].contains(&n);
    let sections = v.cubin.sections.iter().filter(|s| copied(&s.name));
    sections
        .map(|s| {
            let bytes = s.bytes().unwrap_or_default().to_vec();
            let field = |at: u64| {
                bytes.get(at as usize..at as usize + 8).map_or(0, |f| i64::from_le_bytes(f.try_into().unwrap()))
            };
            let mut relocations: Vec<DebugRelocation> = [".rel", ".rela"]
                .iter()
                .flat_map(|prefix| v.relocs(prefix, &s.name))
                .map(|(offset, symbol, _, addend)| DebugRelocation {
                    offset,
                    symbol,
                    addend: if addend != 0 { addend } else { field(offset) },
                })
                .collect();
            // ptxas lists them last-first.
            relocations.reverse();
            DebugSection { name: s.name.clone(), bytes, relocations }
        })
        .collect()
}

/// The line tables, and per function its `.debug_line` and
/// `.nv_debug_line_sass` rows (sequences belong to the function their
/// address relocation names).
fn line_tables(v: &View) -> (Option<LineInfo>, HashMap<String, (Vec<LineRow>, Vec<LineRow>)>) {
    let mut rows: HashMap<String, (Vec<LineRow>, Vec<LineRow>)> = HashMap::new();
    let bytes = |name: &str| v.sec(name).and_then(|(_, s)| s.bytes());
    let text = v.cubin.sections.iter().find(|s| s.name.starts_with(".nv_debug_ptx_txt"));
    let ptx_checksum = text.and_then(|s| s.name.strip_prefix(".nv_debug_ptx_txt.")).map_or(0, |c| c.parse().unwrap());
    let (Some(source), Some(sass), Some(text)) = (bytes(".debug_line"), bytes(".nv_debug_line_sass"), text) else {
        return (None, rows);
    };
    let text = text.bytes().unwrap_or_default();
    let owner = |section: &str, field: u64| {
        [".rel", ".rela"]
            .iter()
            .flat_map(|p| v.relocs(p, section))
            .find(|r| r.0 == field)
            .map(|r| r.1)
            .expect("a relocated sequence address")
    };
    let program = elfw::lines::decode(source).expect(".debug_line");
    for (field, r) in program.sequences {
        rows.entry(owner(".debug_line", field)).or_default().0 = r;
    }
    for (field, r) in elfw::lines::decode(sass).expect(".nv_debug_line_sass").sequences {
        rows.entry(owner(".nv_debug_line_sass", field)).or_default().1 = r;
    }
    let info = LineInfo {
        ptx_text: text.to_vec(),
        ptx_checksum,
        directories: program.directories,
        files: program.files,
        debug_str: v.sec(".debug_str").and_then(|(_, s)| s.bytes()).map(<[u8]>::to_vec),
        inline_extension: program.header_padding == 4,
    };
    (Some(info), rows)
}

/// The Mercury form of each function of an sm_100+ cubin, in the order of
/// `extract(cubin).functions`; `None` without Mercury sections.
///
/// The `.nv.merc.*` sections are renamed to their finalized names (capmerc
/// code as `.text.<fn>`, Mercury relocation types of `.debug_frame` mapped
/// to R_CUDA ones) and the result is read like any cubin.
pub fn extract_mercury(cubin: &Cubin) -> Option<Vec<elfw::MercuryFunction>> {
    cubin.section(".nv.merc.symtab")?;
    let mut view = cubin.clone();
    for s in &mut view.sections {
        if s.flags & elfw::section::shf::NV_MERCURY == 0 && !s.name.is_empty() && s.name != ".strtab" {
            s.name = format!("{}.finalized", s.name);
        }
    }
    for s in &mut view.sections {
        if let Some(f) = s.name.strip_prefix(".nv.capmerc.text.") {
            s.name = format!(".text.{f}");
        } else if let Some(rest) = s.name.strip_prefix(".nv.merc") {
            s.name = rest.strip_prefix(".nv.info").map_or(rest.to_string(), |i| format!(".nv.info{i}"));
        }
        if let (true, SectionData::Rela(list)) = (s.name == ".rela.debug_frame", &mut s.data) {
            for r in list.iter_mut() {
                r.kind = match r.kind {
                    elfw::r_merc::UNUSED_CLEAR64 => elfw::reloc::r_cuda::UNUSED_CLEAR64,
                    _ => elfw::reloc::r_cuda::R_64,
                };
            }
        }
    }
    let merc = extract(&view);
    let syms = view.symbols();
    let finalized = extract(cubin);
    let out = finalized
        .functions
        .iter()
        .map(|f| {
            let m = merc.functions.iter().find(|m| m.name == f.name).cloned().unwrap_or_default();
            let info = view.section(&format!(".nv.info.{}", f.name)).and_then(|(_, s)| s.attributes()).unwrap_or(&[]);
            let digest = info.iter().find(|a| a.code == 0x5a).map(|a| match &a.value {
                Value::Block(b) => b.clone(),
                _ => vec![],
            });
            elfw::MercuryFunction {
                code_size: syms.iter().find(|y| y.name == f.name && y.kind() == stt::FUNC).map_or(0, |y| y.size),
                capmerc: m.code,
                digest: digest.unwrap_or_default(),
                frame_size: m.frame_size,
                stack_size: m.stack_size,
                exit_offsets: m.exit_offsets,
                notes: m.notes,
                // Whole programs keep Mercury relocations (the finalized code has none).
                relocations: match view.section(&format!(".rela.text.{}", f.name)).map(|(_, s)| &s.data) {
                    Some(SectionData::Rela(list)) => list
                        .iter()
                        .rev()
                        .map(|r| CodeRelocation {
                            offset: r.offset,
                            kind: r.kind,
                            symbol: syms.get(r.sym as usize).map(|y| y.name.clone()).unwrap_or_default(),
                            addend: r.addend,
                        })
                        .collect(),
                    _ => vec![],
                },
                subroutines: m.subroutines,
                frame: m.frame,
            }
        })
        .collect();
    Some(out)
}
