//! One kernel per form: load the sources from global memory, apply the
//! instruction (unguarded, with each immediate, and under a guard that
//! differs between threads), store every result.
//!
//! Kernel parameters: the input buffer and the output buffer. Thread `t`
//! (of the whole grid) reads its guard word and its sources at
//! `in + t * in_stride`, and writes its results at `out + t * out_stride`.
//!
//! An address operand names a memory cell of the thread (32 bytes: four
//! values of its type): in global memory at the start of the thread's
//! output row, in shared memory at `tid.x * 32` of an array of the kernel,
//! or in a local array; a read-only cell (for `.nc` loads) is 32 bytes of
//! the input row. Before each copy of the instruction the cell is
//! set from four source slots; after it, the cell is read back and stored
//! as results.

use std::fmt::Write;

use super::table::{Addr, Form, Operand, Space};
use super::ty::Ty;

/// CTAs and threads per CTA of every launch.
pub const GRID: u32 = 5;
pub const BLOCK: u32 = 128;
pub const THREADS: usize = (GRID * BLOCK) as usize;

/// What a kernel's buffers hold.
pub struct Layout {
    /// The type of each source slot (predicates as words), in order.
    pub sources: Vec<Ty>,
    /// Byte offset of each source slot (slot 0 is the guard word).
    pub source_at: Vec<usize>,
    pub in_stride: usize,
    /// Each result slot: which copy of the instruction wrote it.
    pub results: Vec<(String, Ty)>,
    pub result_at: Vec<usize>,
    pub out_stride: usize,
}

/// A form's kernel.
pub struct Kernel {
    pub name: String,
    pub text: String,
    pub layout: Layout,
}

/// The `.version`/`.target` lines every module starts with.
pub fn header(target: &str) -> String {
    format!(".version 9.2\n.target {target}\n.address_size 64\n\n")
}

/// One copy of the instruction in the kernel.
struct Copy {
    label: String,
    guarded: bool,
    /// Which immediate of each immediate operand's list.
    imm: usize,
}

struct Writer<'a> {
    layout: &'a mut Layout,
    decls: &'a mut Vec<String>,
    body: &'a mut String,
    /// The next source slot (registers are shared by every copy).
    source: usize,
    /// Results of the current copy: register and type.
    dests: Vec<(String, Ty)>,
    copy: usize,
    /// The kernel's name (its arrays are named after it).
    kernel: &'a str,
    /// Memory cells of the current copy: the cell's number, its address
    /// and its four source slots.
    cells: Vec<(usize, Addr, [usize; 4])>,
}

/// Bytes of a memory cell.
const CELL: usize = 32;

impl Writer<'_> {
    fn operand(&mut self, o: &Operand, imm: usize) -> String {
        match o {
            Operand::Dest(ty) => {
                let r = format!("%d{}_{}", self.copy, self.dests.len());
                self.decls.push(format!(".reg .b{} {r};", ty.reg_bits()));
                self.dests.push((r.clone(), *ty));
                r
            }
            Operand::PredDest => {
                let r = format!("%p{}_{}", self.copy, self.dests.len());
                self.decls.push(format!(".reg .pred {r};"));
                self.dests.push((r.clone(), Ty::Pred));
                r
            }
            Operand::Src(ty) => format!("%s{}", self.source(*ty)),
            Operand::PredSrc { negated } => {
                format!("{}%q{}", if *negated { "!" } else { "" }, self.source(Ty::Pred))
            }
            Operand::Imm(ty) => {
                let list = ty.immediates();
                list[imm % list.len()].clone()
            }
            Operand::Sink => "_".into(),
            Operand::Literal(s) => s.clone(),
            Operand::Vector(v) => {
                format!("{{{}}}", v.iter().map(|o| self.operand(o, imm)).collect::<Vec<_>>().join(", "))
            }
            Operand::Joined(v) => v.iter().map(|o| self.operand(o, imm)).collect::<Vec<_>>().join("|"),
            Operand::Addr(a) => {
                let i = self.cells.len();
                let slots = if a.space == Space::GlobalReadOnly {
                    let at = self.input_cell();
                    if self.copy == 0 {
                        let _ = writeln!(self.body, "\tadd.s64 %c{i}, %in, {at};");
                    }
                    [0; 4]
                } else {
                    [(); 4].map(|()| self.source(a.ty))
                };
                if self.copy == 0 {
                    self.cell_address(i, a);
                }
                self.cells.push((i, *a, slots));
                match (a.bracket, a.offset) {
                    (false, _) => format!("%a{i}"),
                    (true, 0) => format!("[%a{i}]"),
                    (true, off) => format!("[%a{i}+{off}]"),
                }
            }
        }
    }

    /// Declares cell `i` and computes its address `%c{i}` (in its own
    /// space) and the operand `%a{i}` (generic where asked, `offset`
    /// below the cell).
    fn cell_address(&mut self, i: usize, a: &Addr) {
        let name = self.kernel;
        self.decls.push(format!(".reg .b64 %c{i}, %a{i};"));
        match a.space.home() {
            Space::Shared => {
                self.decls.push(format!(".shared .align {CELL} .b8 {name}_sh{i}[{}];", CELL * BLOCK as usize));
                self.decls.push(".reg .b32 %tx;".into());
                self.decls.push(".reg .b64 %txo;".into());
                let _ = writeln!(
                    self.body,
                    "\tmov.u32 %tx, %tid.x;\n\tmul.wide.u32 %txo, %tx, {CELL};\n\tmov.u64 %c{i}, {name}_sh{i};\n\
                     \tadd.s64 %c{i}, %c{i}, %txo;"
                );
            }
            Space::Local => {
                self.decls.push(format!(".local .align {CELL} .b8 {name}_lc{i}[{CELL}];"));
                let _ = writeln!(self.body, "\tmov.u64 %c{i}, {name}_lc{i};");
            }
            Space::GlobalReadOnly => {}
            _ => {
                let _ = writeln!(self.body, "\tadd.s64 %c{i}, %out, {};", CELL * i);
            }
        }
        let home = a.space.home().name();
        if a.space == a.space.home() {
            let _ = writeln!(self.body, "\tmov.b64 %a{i}, %c{i};");
        } else {
            let _ = writeln!(self.body, "\tcvta.{home}.u64 %a{i}, %c{i};");
        }
        if a.offset > 0 {
            let _ = writeln!(self.body, "\tsub.s64 %a{i}, %a{i}, {};", a.offset);
        }
    }

    /// The register of the next source slot, declared and loaded by the
    /// first copy.
    fn source(&mut self, ty: Ty) -> usize {
        let (k, fresh) = self.slot(ty);
        if fresh {
            let at = self.layout.source_at[k];
            if ty == Ty::Pred {
                self.decls.push(format!(".reg .pred %q{k};"));
                let _ = writeln!(self.body, "\tld.global.u32 %w, [%in+{at}];\n\tsetp.ne.u32 %q{k}, %w, 0;");
            } else {
                let bits = ty.reg_bits();
                self.decls.push(format!(".reg .b{bits} %s{k};"));
                let _ = writeln!(self.body, "\tld.global.b{bits} %s{k}, [%in+{at}];");
            }
        }
        k
    }

    /// The next source slot, and whether this copy is the first to take
    /// it (every copy takes the same slots in the same order).
    fn slot(&mut self, ty: Ty) -> (usize, bool) {
        let k = self.source;
        self.source += 1;
        let fresh = k == self.layout.sources.len();
        if fresh {
            let at = next_slot(self.layout.source_at.last().copied().unwrap_or(0), last_size(&self.layout.sources), ty);
            self.layout.sources.push(ty);
            self.layout.source_at.push(at);
        }
        (k, fresh)
    }

    /// A read-only cell in the input row: four 64-bit slots, 16-byte
    /// aligned (a slot before them is skipped where needed), never loaded
    /// into registers. The offset of the first.
    fn input_cell(&mut self) -> usize {
        loop {
            let (k, _) = self.slot(Ty::B64);
            let at = self.layout.source_at[k];
            if at.is_multiple_of(16) {
                for _ in 1..4 {
                    self.slot(Ty::B64);
                }
                return at;
            }
        }
    }
}

fn last_size(tys: &[Ty]) -> usize {
    tys.last().map_or(8, |t| t.slot_bytes())
}

/// The slot after one at `prev` of `prev_size` bytes, aligned for `ty`.
fn next_slot(prev: usize, prev_size: usize, ty: Ty) -> usize {
    (prev + prev_size).next_multiple_of(ty.slot_bytes())
}

fn has_imm(ops: &[Operand]) -> bool {
    ops.iter().any(|o| match o {
        Operand::Imm(_) => true,
        Operand::Vector(v) | Operand::Joined(v) => has_imm(v),
        _ => false,
    })
}

/// How many memory cells the operands address.
fn cell_count(ops: &[Operand]) -> usize {
    ops.iter()
        .map(|o| match o {
            Operand::Addr(_) => 1,
            Operand::Vector(v) | Operand::Joined(v) => cell_count(v),
            _ => 0,
        })
        .sum()
}

fn imm_count(ops: &[Operand]) -> usize {
    ops.iter()
        .map(|o| match o {
            Operand::Imm(t) => t.immediates().len(),
            Operand::Vector(v) | Operand::Joined(v) => imm_count(v),
            _ => 1,
        })
        .max()
        .unwrap_or(1)
}

/// The kernel `name` for `form`.
pub fn kernel(form: &Form, name: &str) -> Kernel {
    let mut copies = Vec::new();
    let n = if has_imm(&form.operands) { imm_count(&form.operands) } else { 1 };
    for imm in 0..n {
        copies.push(Copy { label: format!("immediate {imm}"), guarded: false, imm });
    }
    if n == 1 {
        copies[0].label = "unguarded".into();
    }
    if form.guard {
        copies.push(Copy { label: "guarded".into(), guarded: true, imm: 0 });
    }
    let mut layout = Layout {
        sources: vec![Ty::U32],
        source_at: vec![0],
        in_stride: 0,
        results: Vec::new(),
        result_at: Vec::new(),
        out_stride: 0,
    };
    let (mut decls, mut body) = (Vec::new(), String::new());
    let mut code = String::new();
    let mut stores = Vec::new();
    // Global cells come first in each output row.
    let cells_bytes = CELL * cell_count(&form.operands);
    for (i, copy) in copies.iter().enumerate() {
        let mut w = Writer {
            layout: &mut layout,
            decls: &mut decls,
            body: &mut body,
            source: 1,
            dests: Vec::new(),
            copy: i,
            kernel: name,
            cells: Vec::new(),
        };
        let ops: Vec<String> = form.operands.iter().map(|o| w.operand(o, copy.imm)).collect();
        let mut dests = std::mem::take(&mut w.dests);
        // Read-only cells are neither set nor read back.
        let cells: Vec<_> =
            std::mem::take(&mut w.cells).into_iter().filter(|c| c.1.space != Space::GlobalReadOnly).collect();
        for (c, a, slots) in &cells {
            let (space, bits, size) = (a.space.home().name(), a.ty.bits(), a.ty.bits() as usize / 8);
            for (k, slot) in slots.iter().enumerate() {
                let _ = writeln!(code, "\tst.{space}.b{bits} [%c{c}+{}], %s{slot};", k * size);
            }
        }
        if copy.guarded {
            // A value the instruction does not write where the guard is off.
            for (r, ty) in &dests {
                match ty {
                    Ty::Pred => {
                        let _ = writeln!(code, "\tsetp.ne.u32 {r}, %sent, 0;");
                    }
                    t if t.reg_bits() <= 64 => {
                        let b = t.reg_bits();
                        let _ = writeln!(code, "\tmov.b{b} {r}, {:#x};", 0x5a5a_5a5a_5a5a_5a5au64 >> (64 - b));
                    }
                    _ => {
                        let _ = writeln!(code, "\tmov.b128 {r}, {{%sent64, %sent64}};");
                    }
                }
            }
        }
        let guard = if copy.guarded { "@%pg " } else { "" };
        let operands = if ops.is_empty() { String::new() } else { format!(" {}", ops.join(", ")) };
        let _ = writeln!(code, "\t{guard}{}{operands};", form.opcode);
        for (c, a, _) in &cells {
            let (space, bits, size) = (a.space.home().name(), a.ty.bits(), a.ty.bits() as usize / 8);
            for k in 0..4 {
                let r = format!("%m{i}_{c}_{k}");
                decls.push(format!(".reg .b{} {r};", a.ty.reg_bits()));
                let _ = writeln!(code, "\tld.{space}.b{bits} {r}, [%c{c}+{}];", k * size);
                dests.push((r, a.ty));
            }
        }
        for (r, ty) in dests {
            let prev = layout.result_at.last().copied().unwrap_or(cells_bytes);
            let at = next_slot(prev, layout.results.last().map_or(0, |r| r.1.slot_bytes()), ty);
            layout.results.push((copy.label.clone(), ty));
            layout.result_at.push(at);
            stores.push((r, ty, at));
        }
        for (r, ty, at) in stores.drain(..) {
            if ty == Ty::Pred {
                let _ = writeln!(code, "\tselp.u32 %w, 1, 0, {r};\n\tst.global.u32 [%out+{at}], %w;");
            } else {
                let _ = writeln!(code, "\tst.global.b{} [%out+{at}], {r};", ty.reg_bits());
            }
        }
    }
    layout.in_stride = (layout.source_at.last().unwrap() + last_size(&layout.sources)).next_multiple_of(16);
    // Rows of cells stay aligned for 32-byte vectors.
    let row_align = if cells_bytes > 0 { CELL } else { 16 };
    layout.out_stride = layout
        .result_at
        .last()
        .map_or(16, |&at| (at + layout.results.last().unwrap().1.slot_bytes()).next_multiple_of(row_align));
    decls.sort();
    decls.dedup();
    let mut text = String::new();
    let _ = writeln!(text, "// {}", form.name);
    let _ = writeln!(text, ".visible .entry {name}(.param .u64 {name}_in, .param .u64 {name}_out)\n{{");
    let _ =
        writeln!(text, "\t.reg .pred %pg;\n\t.reg .b32 %t, %c, %n, %w, %sent;\n\t.reg .b64 %in, %out, %o, %sent64;");
    for d in &decls {
        let _ = writeln!(text, "\t{d}");
    }
    let _ = writeln!(
        text,
        "\tmov.u32 %t, %tid.x;\n\tmov.u32 %c, %ctaid.x;\n\tmov.u32 %n, %ntid.x;\n\tmad.lo.s32 %t, %c, %n, %t;\n\
         \tld.param.u64 %in, [{name}_in];\n\tld.param.u64 %out, [{name}_out];\n\
         \tcvta.to.global.u64 %in, %in;\n\tcvta.to.global.u64 %out, %out;\n\
         \tmul.wide.u32 %o, %t, {};\n\tadd.s64 %in, %in, %o;\n\tmul.wide.u32 %o, %t, {};\n\tadd.s64 %out, %out, %o;\n\
         \tld.global.u32 %w, [%in];\n\tsetp.ne.u32 %pg, %w, 0;\n\tmov.b32 %sent, 0x5a5a5a5a;\n\tmov.b64 %sent64, 0x5a5a5a5a5a5a5a5a;",
        layout.in_stride, layout.out_stride
    );
    text.push_str(&body);
    text.push_str(&code);
    text.push_str("\tret;\n}\n\n");
    Kernel { name: name.to_string(), text, layout }
}

/// The input buffer of a kernel: every thread's guard word and sources,
/// from the types' edge values (pairs of them across threads), then
/// pseudo-random bits and small numbers.
pub fn inputs(layout: &Layout) -> Vec<u8> {
    let mut buf = vec![0u8; THREADS * layout.in_stride];
    let srcs = &layout.sources[1..];
    let edges: Vec<Vec<u128>> = srcs.iter().map(|t| t.edges()).collect();
    let covered: usize = edges.iter().take(2).map(Vec::len).product();
    for t in 0..THREADS {
        let row = &mut buf[t * layout.in_stride..(t + 1) * layout.in_stride];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (t as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
        let guard = (rng.next() >> 17) & 1;
        row[..4].copy_from_slice(&(guard as u32).to_le_bytes());
        let mut period = 1;
        for (k, ty) in srcs.iter().enumerate() {
            let e = &edges[k];
            let v = if t < covered && k < 2 {
                let v = e[(t / period) % e.len()];
                period *= e.len();
                v
            } else if t < covered {
                e[(rng.next() as usize) % e.len()]
            } else {
                match rng.next() % 3 {
                    0 => e[(rng.next() as usize) % e.len()],
                    1 => (rng.next() as u128) << 64 | rng.next() as u128,
                    _ => small(*ty, &mut rng),
                }
            };
            let bytes = if *ty == Ty::Pred { 4 } else { (ty.reg_bits() / 8) as usize };
            let at = layout.source_at[k + 1];
            row[at..at + bytes].copy_from_slice(&v.to_le_bytes()[..bytes]);
        }
    }
    buf
}

/// A small number of the type (sums and conversions of ordinary values).
fn small(ty: Ty, rng: &mut Rng) -> u128 {
    let n = (rng.next() % 600) as i64 - 300;
    let x = n as f64 / 4.0;
    match ty {
        Ty::F32 | Ty::Tf32 => (x as f32).to_bits() as u128,
        Ty::F64 => x.to_bits() as u128,
        Ty::Pred => (n & 1) as u128,
        Ty::F16 | Ty::Bf16 | Ty::F16x2 | Ty::Bf16x2 | Ty::E4m3x2 | Ty::E5m2x2 => {
            let e = ty.edges();
            e[(rng.next() as usize) % e.len()]
        }
        _ => n as i128 as u128,
    }
}

/// xorshift64*: deterministic inputs.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}
