//! The form table (`tests/isa-sweep/forms.toml`) and its expansion into
//! forms: every value of every variable, every `[a|b|]` alternative of the
//! instruction, every operand kind an operand allows.
//!
//! A form template is one PTX instruction whose operands say what they
//! are rather than name registers:
//!
//! | operand | meaning |
//! |---|---|
//! | `D:T` | a destination register of type `T` (stored after the instruction) |
//! | `D:T/_` | the same, or the sink `_` (a form of its own) |
//! | `S:T` | a source register of type `T` (loaded from the input) |
//! | `S:T/i` | the same, or an immediate (a form of its own, each notation) |
//! | `I:T` | an immediate only |
//! | `P`, `P/_` | a destination predicate (or the sink) |
//! | `Q`, `!Q` | a source predicate (from the input), negated |
//! | `{...}` | a vector of operands; `x|y` two operands joined by `|` |
//! | `[A:S:T]`, `[A:S:T+N]` | the address of a memory cell of the thread in state space `S`, holding four values of type `T` (from the input; read back after the instruction): `[%a]`, or `[%a+N]` with `%a` `N` bytes below the cell |
//! | `A:S:T` | the same address as a register operand (`cvta`, `isspacep`) |
//! | anything else | written as it is (`0xffffffff`, `%laneid`) |
//!
//! The spaces of a cell (`S`): `global`, `global_ro` (read-only, for
//! `.nc` loads), `shared`, `local`, and their
//! generic addresses `generic` (of a global cell), `generic_shared`,
//! `generic_local`.
//!
//! `$V` is replaced by each value of variable `V`; a value of several
//! words gives `$V.0`, `$V.1`, ... (`$V` is `$V.0`).

use serde::Deserialize;

use super::ty::Ty;

#[derive(Deserialize)]
struct Table {
    group: Vec<Group>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Group {
    family: String,
    #[serde(default)]
    vars: std::collections::BTreeMap<String, Vec<String>>,
    forms: Vec<String>,
    /// Whether a guarded copy of the instruction is also run (not for warp
    /// instructions, whose inactive lanes make the result undefined).
    #[serde(default = "yes")]
    guard: bool,
}

fn yes() -> bool {
    true
}

/// One operand of a concrete form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    Dest(Ty),
    Src(Ty),
    Imm(Ty),
    PredDest,
    PredSrc {
        negated: bool,
    },
    Sink,
    Literal(String),
    Vector(Vec<Operand>),
    /// Operands joined by `|` (`setp`'s `p|q`, `shfl`'s `d|p`).
    Joined(Vec<Operand>),
    /// A memory cell's address, in brackets or as a register.
    Addr(Addr),
}

/// The address of a thread's memory cell (four values of `ty`, set from
/// the input before each copy of the instruction and stored as results
/// after it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addr {
    pub space: Space,
    pub ty: Ty,
    /// `[%a+offset]` with `%a` that far below the cell.
    pub offset: u32,
    /// `[%a]` rather than `%a`.
    pub bracket: bool,
}

/// Where a memory cell lives and how the instruction addresses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global,
    /// 32 bytes of the input, which the kernel never writes (`.nc`, `ldu`).
    GlobalReadOnly,
    Shared,
    Local,
    /// A generic address of a global cell.
    Generic,
    GenericShared,
    GenericLocal,
}

const SPACES: &[(&str, Space)] = &[
    ("global", Space::Global),
    ("global_ro", Space::GlobalReadOnly),
    ("shared", Space::Shared),
    ("local", Space::Local),
    ("generic", Space::Generic),
    ("generic_shared", Space::GenericShared),
    ("generic_local", Space::GenericLocal),
];

impl Space {
    fn parse(name: &str) -> Option<Space> {
        SPACES.iter().find(|(n, _)| *n == name).map(|&(_, s)| s)
    }

    pub fn name(self) -> &'static str {
        SPACES.iter().find(|(_, s)| *s == self).map_or("?", |(n, _)| n)
    }

    /// The space the cell itself is in (where it is set and read back).
    pub fn home(self) -> Space {
        match self {
            Space::Generic => Space::Global,
            Space::GenericShared => Space::Shared,
            Space::GenericLocal => Space::Local,
            s => s,
        }
    }
}

/// One instruction form: what the sweep compiles and runs.
#[derive(Clone, Debug)]
pub struct Form {
    pub family: String,
    /// The instruction with its operand kinds (`add.s32 d, a, i`): the
    /// form's name in reports and in the known-failure list.
    pub name: String,
    pub opcode: String,
    pub operands: Vec<Operand>,
    pub guard: bool,
}

/// An operand of a template, with the kinds it may take.
#[derive(Clone, Debug)]
enum Template {
    Dest { ty: Ty, sink: bool },
    Src { ty: Ty, imm: bool },
    Imm(Ty),
    PredDest { sink: bool },
    PredSrc { negated: bool },
    Literal(String),
    Vector(Vec<Template>),
    Joined(Vec<Template>),
    Addr(Addr),
}

/// Reads and expands the table.
pub fn load(text: &str) -> Result<Vec<Form>, String> {
    let table: Table = toml::from_str(text).map_err(|e| format!("form table: {e}"))?;
    let mut forms = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for group in &table.group {
        for template in &group.forms {
            for line in substitute(template, &group.vars)? {
                for line in alternatives(&line) {
                    for form in expand(&group.family, &line, group.guard)? {
                        if seen.insert(form.name.clone()) {
                            forms.push(form);
                        }
                    }
                }
            }
        }
    }
    Ok(forms)
}

/// Every substitution of the variables `template` uses.
fn substitute(template: &str, vars: &std::collections::BTreeMap<String, Vec<String>>) -> Result<Vec<String>, String> {
    let used: Vec<&String> = vars.keys().filter(|v| template.contains(&format!("${v}"))).collect();
    let mut lines = vec![template.to_string()];
    for var in used {
        let values = &vars[var];
        lines = lines
            .iter()
            .flat_map(|line| {
                values.iter().map(move |value| {
                    let words: Vec<&str> = value.split_whitespace().collect();
                    let mut out = line.clone();
                    for (i, w) in words.iter().enumerate().rev() {
                        out = out.replace(&format!("${var}.{i}"), w);
                    }
                    out.replace(&format!("${var}"), words.first().copied().unwrap_or(""))
                })
            })
            .collect();
    }
    if let Some(line) = lines.iter().find(|l| l.contains('$')) {
        return Err(format!("form table: unknown variable in `{line}`"));
    }
    Ok(lines)
}

/// Every choice of the `[a|b|]` alternatives in `line`, leftmost first.
/// (A bracket without `|` is PTX's, an address.)
fn alternatives(line: &str) -> Vec<String> {
    let choice = line.match_indices('[').find_map(|(open, _)| {
        let close = open + line[open..].find(']')?;
        line[open..close].contains('|').then_some((open, close))
    });
    let Some((open, close)) = choice else { return vec![line.to_string()] };
    line[open + 1..close]
        .split('|')
        .flat_map(|choice| alternatives(&format!("{}{choice}{}", &line[..open], &line[close + 1..])))
        .collect()
}

/// The forms of one instruction line: all registers, then each operand
/// that allows it as an immediate or a sink.
fn expand(family: &str, line: &str, guard: bool) -> Result<Vec<Form>, String> {
    let line = line.trim();
    let (opcode, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let templates = split_top(rest).iter().map(|o| parse_operand(o)).collect::<Result<Vec<_>, _>>()?;
    let choices = count_choices(&templates);
    let mut forms = Vec::new();
    for variant in 0..=choices {
        let mut next = 0;
        let operands: Vec<Operand> = templates.iter().map(|t| concrete(t, variant, &mut next)).collect();
        let name = format!("{opcode} {}", operands.iter().map(show).collect::<Vec<_>>().join(", "));
        forms.push(Form {
            family: family.to_string(),
            name: name.trim().to_string(),
            opcode: opcode.to_string(),
            operands,
            guard,
        });
    }
    Ok(forms)
}

/// Splits operands at the commas outside braces.
fn split_top(text: &str) -> Vec<String> {
    let (mut out, mut depth, mut cur) = (Vec::new(), 0i32, String::new());
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn parse_operand(text: &str) -> Result<Template, String> {
    let text = text.trim();
    if let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        return Ok(Template::Vector(split_top(inner).iter().map(|o| parse_operand(o)).collect::<Result<_, _>>()?));
    }
    if let Some(addr) = parse_address(text)? {
        return Ok(Template::Addr(addr));
    }
    if text.contains('|') && !text.starts_with('[') {
        return Ok(Template::Joined(text.split('|').map(parse_operand).collect::<Result<_, _>>()?));
    }
    let ty = |t: &str| Ty::parse(t).ok_or_else(|| format!("form table: unknown type `{t}` in `{text}`"));
    Ok(match text {
        "P" => Template::PredDest { sink: false },
        "P/_" => Template::PredDest { sink: true },
        "Q" => Template::PredSrc { negated: false },
        "!Q" => Template::PredSrc { negated: true },
        _ => match text.split_once(':') {
            Some(("D", t)) => match t.strip_suffix("/_") {
                Some(t) => Template::Dest { ty: ty(t)?, sink: true },
                None => Template::Dest { ty: ty(t)?, sink: false },
            },
            Some(("S", t)) => match t.strip_suffix("/i") {
                Some(t) => Template::Src { ty: ty(t)?, imm: true },
                None => Template::Src { ty: ty(t)?, imm: false },
            },
            Some(("I", t)) => Template::Imm(ty(t)?),
            _ => Template::Literal(text.to_string()),
        },
    })
}

/// `[A:S:T]`, `[A:S:T+N]` or `A:S:T`: a memory cell's address.
fn parse_address(text: &str) -> Result<Option<Addr>, String> {
    let inner = text.strip_prefix('[').and_then(|t| t.strip_suffix(']'));
    let Some(rest) = inner.unwrap_or(text).strip_prefix("A:") else { return Ok(None) };
    let (rest, offset) = match rest.split_once('+') {
        Some((r, n)) => (r, n.parse().map_err(|_| format!("form table: bad offset in `{text}`"))?),
        None => (rest, 0),
    };
    let bad = || format!("form table: bad address `{text}` (A:SPACE:TYPE)");
    let (space, ty) = rest.split_once(':').ok_or_else(bad)?;
    let space = Space::parse(space).ok_or_else(bad)?;
    let ty = Ty::parse(ty).filter(|t| (8..=64).contains(&t.bits())).ok_or_else(bad)?;
    if inner.is_none() && offset != 0 {
        return Err(bad());
    }
    Ok(Some(Addr { space, ty, offset, bracket: inner.is_some() }))
}

/// How many operands may take another kind.
fn count_choices(templates: &[Template]) -> usize {
    templates
        .iter()
        .map(|t| match t {
            Template::Dest { sink: true, .. } | Template::Src { imm: true, .. } | Template::PredDest { sink: true } => {
                1
            }
            Template::Vector(v) | Template::Joined(v) => count_choices(v),
            _ => 0,
        })
        .sum()
}

/// The operand for `variant` (0: every operand a register; `k`: the
/// `k`-th operand that allows it as an immediate or a sink).
fn concrete(t: &Template, variant: usize, next: &mut usize) -> Operand {
    let mut chosen = |allowed: bool| {
        if !allowed {
            return false;
        }
        *next += 1;
        *next == variant
    };
    match t {
        Template::Dest { ty, sink } => {
            if chosen(*sink) {
                Operand::Sink
            } else {
                Operand::Dest(*ty)
            }
        }
        Template::Src { ty, imm } => {
            if chosen(*imm) {
                Operand::Imm(*ty)
            } else {
                Operand::Src(*ty)
            }
        }
        Template::PredDest { sink } => {
            if chosen(*sink) {
                Operand::Sink
            } else {
                Operand::PredDest
            }
        }
        Template::Imm(ty) => Operand::Imm(*ty),
        Template::PredSrc { negated } => Operand::PredSrc { negated: *negated },
        Template::Literal(s) => Operand::Literal(s.clone()),
        Template::Addr(a) => Operand::Addr(*a),
        Template::Vector(v) => Operand::Vector(v.iter().map(|t| concrete(t, variant, next)).collect()),
        Template::Joined(v) => Operand::Joined(v.iter().map(|t| concrete(t, variant, next)).collect()),
    }
}

fn show(o: &Operand) -> String {
    match o {
        Operand::Dest(t) => format!("d.{t}"),
        Operand::Src(t) => format!("a.{t}"),
        Operand::Imm(t) => format!("i.{t}"),
        Operand::PredDest => "p".into(),
        Operand::PredSrc { negated } => if *negated { "!q" } else { "q" }.into(),
        Operand::Sink => "_".into(),
        Operand::Literal(s) => s.clone(),
        Operand::Addr(a) => {
            let at = format!(
                "{}.{}{}",
                a.space.name(),
                a.ty,
                if a.offset > 0 { format!("+{}", a.offset) } else { String::new() }
            );
            if a.bracket { format!("[{at}]") } else { at }
        }
        Operand::Vector(v) => format!("{{{}}}", v.iter().map(show).collect::<Vec<_>>().join(", ")),
        Operand::Joined(v) => v.iter().map(show).collect::<Vec<_>>().join("|"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_variables_alternatives_and_operand_kinds() {
        let text = r#"
            [[group]]
            family = "int"
            vars = { T = ["s32", "u32"], W = ["u16 u32"] }
            forms = ["add[|.sat].$T D:$T, S:$T, S:$T/i", "mul.wide.$W D:$W.1, S:$W.0, S:$W"]
        "#;
        let names: Vec<String> = load(text).unwrap().into_iter().map(|f| f.name).collect();
        assert_eq!(
            names,
            [
                "add.s32 d.s32, a.s32, a.s32",
                "add.s32 d.s32, a.s32, i.s32",
                "add.sat.s32 d.s32, a.s32, a.s32",
                "add.sat.s32 d.s32, a.s32, i.s32",
                "add.u32 d.u32, a.u32, a.u32",
                "add.u32 d.u32, a.u32, i.u32",
                "add.sat.u32 d.u32, a.u32, a.u32",
                "add.sat.u32 d.u32, a.u32, i.u32",
                "mul.wide.u16 d.u32, a.u16, a.u16",
            ]
        );
    }

    #[test]
    fn reads_predicates_vectors_and_sinks() {
        let text = r#"
            [[group]]
            family = "cmp"
            forms = ["setp.lt.s32 P|P/_, S:s32, S:s32, !Q", "mov.b32 D:b32, {S:f16, S:f16}"]
        "#;
        let forms = load(text).unwrap();
        let names: Vec<&str> = forms.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["setp.lt.s32 p|p, a.s32, a.s32, !q", "setp.lt.s32 p|_, a.s32, a.s32, !q", "mov.b32 d.b32, {a.f16, a.f16}"]
        );
        assert!(load("[[group]]\nfamily = \"x\"\nforms = [\"add.$T D:s32\"]").is_err());
    }

    #[test]
    fn reads_addresses() {
        let text = r#"
            [[group]]
            family = "ld"
            forms = ["ld.shared.u32 D:u32, [A:shared:u32+8]", "atom.add.u64 D:u64, [A:generic:u64], S:u64", "isspacep.local P, A:generic_local:u32"]
        "#;
        let forms = load(text).unwrap();
        let names: Vec<&str> = forms.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "ld.shared.u32 d.u32, [shared.u32+8]",
                "atom.add.u64 d.u64, [generic.u64], a.u64",
                "isspacep.local p, generic_local.u32"
            ]
        );
        assert_eq!(
            forms[0].operands[1],
            Operand::Addr(Addr { space: Space::Shared, ty: Ty::U32, offset: 8, bracket: true })
        );
        for bad in ["[A:heap:u32]", "[A:global:b128]", "A:global:u32+4", "[A:global]"] {
            assert!(load(&format!("[[group]]\nfamily = \"x\"\nforms = [\"ld.u32 D:u32, {bad}\"]")).is_err(), "{bad}");
        }
        assert!(load("[[group]]\nfamily = \"x\"\nforms = [\"add D:s33\"]").is_err());
    }
}
