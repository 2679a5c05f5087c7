//! One kernel per form: load the sources from global memory, apply the
//! instruction (unguarded, with each immediate, and under a guard that
//! differs between threads), store every result.
//!
//! Kernel parameters: the input buffer and the output buffer. Thread `t`
//! (of the whole grid) reads its guard word and its sources at
//! `in + t * in_stride`, and writes its results at `out + t * out_stride`.

use std::fmt::Write;

use super::table::{Form, Operand};
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
}

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
        }
    }

    /// The register of the next source slot, declared and loaded by the
    /// first copy.
    fn source(&mut self, ty: Ty) -> usize {
        let k = self.source;
        self.source += 1;
        if k == self.layout.sources.len() {
            let at = next_slot(self.layout.source_at.last().copied().unwrap_or(0), last_size(&self.layout.sources), ty);
            self.layout.sources.push(ty);
            self.layout.source_at.push(at);
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
    for (i, copy) in copies.iter().enumerate() {
        let mut w =
            Writer { layout: &mut layout, decls: &mut decls, body: &mut body, source: 1, dests: Vec::new(), copy: i };
        let ops: Vec<String> = form.operands.iter().map(|o| w.operand(o, copy.imm)).collect();
        let dests = std::mem::take(&mut w.dests);
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
        for (r, ty) in dests {
            let prev = layout.result_at.last().copied().unwrap_or(0);
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
    layout.out_stride = layout
        .result_at
        .last()
        .map_or(16, |&at| (at + layout.results.last().unwrap().1.slot_bytes()).next_multiple_of(16));
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
