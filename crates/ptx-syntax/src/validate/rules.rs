//! Family-specific rules that do not fit the table's columns: rounding,
//! comparison and signedness requirements, vector widths, state spaces,
//! barrier numbers. Messages are ptxas's.

use super::instr::{Checker, Resolved, display_name, operand_type};
use super::scope::SymbolKind;
use super::typecheck::{Fit, Verdict, float_fits, register_fits, special_fits};
use crate::ast::*;

/// Families whose integer forms take no rounding modifier.
const ARITHMETIC: &[&str] = &["add", "sub", "mul", "mad", "div", "rem", "min", "max", "abs", "neg"];
/// Word modifiers that are comparisons (`setp.lt`).
const COMPARISONS: &[&str] = &[
    "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

fn is_int(t: ScalarType) -> bool {
    !t.is_float() && t != ScalarType::Pred
}

fn is_bits(t: ScalarType) -> bool {
    t.name().starts_with('b') || t == ScalarType::Pred
}

/// Whether `cvt.dst.src` must name a rounding mode (measured on ptxas
/// 13.5 for the scalar types): a float narrowed to a smaller float, an
/// integer to a float, a float to an integer. Packed and 8-bit float
/// formats are left alone here.
fn cvt_needs_rounding(dst: ScalarType, src: ScalarType) -> bool {
    use ScalarType::*;
    let scalar_float = |t: ScalarType| matches!(t, F16 | Bf16 | F32 | F64);
    match (scalar_float(dst), scalar_float(src)) {
        (true, true) => dst.bits() < src.bits(),
        (true, false) => is_int(src),
        (false, true) => is_int(dst),
        (false, false) => false,
    }
}

/// ptxas's complaints about the modifiers of a scalar `cvt.dst.src`, all
/// of them in its order (measured on ptxas 13.5 over every pair of scalar
/// types with every rounding, `.ftz` and `.sat`: the isa-sweep's cvt
/// family).
fn cvt_modifier_errors(
    dst: ScalarType,
    src: ScalarType,
    rounding: Option<Rounding>,
    sat: bool,
    ftz: bool,
) -> Vec<&'static str> {
    use ScalarType::*;
    let scalar_float = |t: ScalarType| matches!(t, F16 | Bf16 | F32 | F64);
    let either = |t: ScalarType| dst == t || src == t;
    if !(scalar_float(dst) || is_int(dst)) || !(scalar_float(src) || is_int(src)) {
        return Vec::new();
    }
    // bfloat16 has no conversion to or from 8-bit integers.
    if either(Bf16) && (dst.bits() == 8 || src.bits() == 8) {
        return vec!["Arguments mismatch for instruction 'cvt'"];
    }
    let mut errors = Vec::new();
    // `.sat` where nothing can saturate, and on any bfloat16 conversion.
    let fits = is_int(dst)
        && is_int(src)
        && match (dst.name().starts_with('s'), src.name().starts_with('s')) {
            (false, false) | (true, true) => dst.bits() >= src.bits(),
            (true, false) => dst.bits() > src.bits(),
            (false, true) => false,
        };
    if sat && (fits || either(Bf16)) {
        errors.push("Illegal modifier '.sat' for instruction 'cvt'");
    }
    // `.ftz` flushes binary32 subnormals: an f32 on one side.
    if ftz && !either(F32) {
        if either(Bf16) {
            errors.push("Illegal modifier '.ftz' for instruction 'cvt'");
        }
        errors.push("Modifier '.ftz' does not apply to this type of convert operation");
    }
    let legal = match rounding {
        None => true,
        Some(r) if scalar_float(dst) && scalar_float(src) => {
            if dst == src {
                is_integer_rounding(r)
            } else {
                // A rounding that cannot round (a widening) is refused,
                // except around bfloat16.
                !is_integer_rounding(r) && (dst.bits() < src.bits() || either(Bf16))
            }
        }
        Some(r) if scalar_float(dst) => !is_integer_rounding(r),
        Some(r) if scalar_float(src) => is_integer_rounding(r),
        Some(_) => false,
    };
    if !legal {
        errors.push("Illegal rounding modifier for instruction 'cvt'");
    } else if rounding.is_none() && cvt_needs_rounding(dst, src) {
        errors.push("Rounding modifier required for instruction 'cvt'");
    }
    errors
}

/// ptxas's complaints about the types and modifiers of `setp.CMP.T`
/// (`dst` `None`) and `set.CMP.D.T`, in its order (measured on ptxas 13.5:
/// the isa-sweep's setp and set families).
fn comparison_errors(
    op: &str,
    dst: Option<ScalarType>,
    src: ScalarType,
    cmp: &str,
    ftz: bool,
    pair: bool,
) -> Vec<String> {
    use ScalarType::*;
    let mut errors = Vec::new();
    let half = |t: ScalarType| matches!(t, F16 | Bf16 | F16x2 | Bf16x2);
    // A half-precision result is of the source's own type (or bf16 from f16).
    if let Some(d) = dst
        && half(d)
        && !(d == src || (d == Bf16 && src == F16))
    {
        return vec![format!("Unexpected instruction types specified for '{op}'")];
    }
    if ftz && (!matches!(src, F32 | F16 | F16x2) || matches!(dst, Some(Bf16 | Bf16x2))) {
        errors.push(format!("Illegal modifier '.ftz' for instruction '{op}'"));
    }
    let float_only = ["equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"].contains(&cmp);
    let unsigned_only = ["lo", "ls", "hi", "hs"].contains(&cmp);
    let fits = if src.is_float() {
        !unsigned_only
    } else if src.name().starts_with('b') {
        matches!(cmp, "eq" | "ne")
    } else if src.name().starts_with('s') {
        !unsigned_only && !float_only
    } else {
        !float_only
    };
    if !fits {
        errors.push("Mismatch between instruction type and comparison qualifier".to_owned());
    }
    // Scalar half comparisons write no complement (`p|_` is accepted).
    if pair && matches!(src, F16 | Bf16) {
        errors.push(format!("Predicate output not allowed for instruction '{op}'"));
    }
    errors
}

/// `cvt.pack.sat`'s types: `.{u16,s16}.s32` of two sources, or
/// `.{u8,s8}.s32.b32` of three (ptxas 13.5 refuses the other mixtures).
pub(super) fn is_cvt_pack(types: &[ScalarType]) -> bool {
    use ScalarType::*;
    matches!(types, [U16 | S16, S32] | [U8 | S8, S32, B32])
}

fn is_integer_rounding(r: Rounding) -> bool {
    matches!(r, Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi)
}

impl Checker<'_> {
    /// ptxas's complaints about `cvt.RND[.satfinite][.relu].tf32.f32`
    /// (`.relu` not with `.rna`; `.satfinite` with `.rn`/`.rz` from
    /// sm_100); true when there was one.
    fn tf32_errors(&mut self, inst: &Instruction, rounding: Option<Rounding>) -> bool {
        let span = inst.span;
        if inst.has("relu") && rounding == Some(Rounding::Rna) {
            self.report(span, "Modifier '.relu' cannot be combined with modifier '.rna'".to_owned());
            self.report(span, "Illegal rounding modifier for instruction 'cvt'".to_owned());
            return true;
        }
        let directed = match rounding {
            Some(Rounding::Rn) => "rn",
            Some(Rounding::Rz) => "rz",
            _ => return false,
        };
        if inst.has("satfinite") && self.sm.is_some_and(|sm| sm.number < 100) {
            let message =
                format!("Modifier '.satfinite' on 'cvt.tf32.f32.{directed}' requires .target sm_100 or higher");
            self.report(span, message);
            return true;
        }
        false
    }

    /// The sm_89/sm_90 features ptxas names before any other complaint
    /// about the instruction: the fp8 pair conversions (sm_89), bfloat16
    /// `add`/`sub`/`mul`/`setp`/`set`/`ex2`/`tanh` (named by the first
    /// bfloat16 type) and integer `min`/`max.relu` (sm_90).
    fn sm90_features(&mut self, inst: &Instruction, op: &str, types: &[ScalarType]) {
        let Some(sm) = self.sm.filter(|sm| sm.number < 90) else { return };
        // The fp8 pair conversions are sm_89's.
        if let ("cvt", [d, s]) = (op, types)
            && [d, s].iter().any(|t| matches!(t, ScalarType::E4m3x2 | ScalarType::E5m2x2))
        {
            if sm.number < 89 {
                let feature = format!("cvt.{}.{}", d.name(), s.name());
                self.report(inst.span, format!("Feature '{feature}' requires .target sm_89 or higher"));
            }
            return;
        }
        let bf16 = types.iter().find(|t| matches!(t, ScalarType::Bf16 | ScalarType::Bf16x2));
        // A comparison of a half literal draws "Arguments mismatch" alone.
        let literal = inst.operands.iter().any(|o| matches!(o.kind, ExprKind::Int { .. } | ExprKind::Float(_)));
        if matches!(op, "setp" | "set") && literal {
            return;
        }
        // So does an operand of another type (`add.bf16` of an `.f16`
        // register): ptxas reports the mismatch, not the feature.
        if matches!(op, "add" | "sub" | "mul")
            && let [ty] = types
            && inst.operands.iter().any(|o| self.fits_type(o, Some(*ty), false) == Verdict::Mismatch)
        {
            return;
        }
        let packed = |t: &ScalarType| matches!(t, ScalarType::F16x2 | ScalarType::Bf16x2);
        let feature = match (op, types) {
            // ptxas complains about the types alone where a half result
            // and its sources differ in packing, where a binary16 result
            // has bfloat16 sources, and where packed ones differ in format.
            ("set", [d, s]) if matches!(d, ScalarType::F16 | ScalarType::Bf16) || packed(d) => {
                let brain = |t: &ScalarType| matches!(t, ScalarType::Bf16 | ScalarType::Bf16x2);
                if packed(d) != packed(s) || (brain(s) && !brain(d)) || (packed(d) && brain(d) != brain(s)) {
                    return;
                }
                bf16.map(|t| format!("set.{}", t.name()))
            }
            ("add" | "sub" | "mul" | "setp" | "set" | "ex2" | "tanh", _) => bf16.map(|t| format!("{op}.{}", t.name())),
            ("min" | "max", [t]) if inst.has("relu") && is_int(*t) => Some(format!("{op}.relu")),
            _ => None,
        };
        if let Some(feature) = feature {
            self.report(inst.span, format!("Feature '{feature}' requires .target sm_90 or higher"));
        }
    }

    /// `add`/`sub`/`fma` of a half source into a binary32 result
    /// (`add.rn.f32.f16 d, a, c`, PTX 8.6): ptxas 13.5 names the pair as an
    /// sm_100 feature below sm_100 and says nothing else of the
    /// instruction. True when the instruction is such a form (checked no
    /// further; from sm_100 ours does not lower it yet).
    pub(super) fn mixed_precision(&mut self, inst: &Instruction) -> bool {
        let op = inst.opcode.name.as_str();
        if !matches!(op, "add" | "sub" | "fma") {
            return false;
        }
        let mut types = inst.types();
        let (Some(ScalarType::F32), Some(half @ (ScalarType::F16 | ScalarType::Bf16)), None) =
            (types.next(), types.next(), types.next())
        else {
            return false;
        };
        if self.sm.is_some_and(|sm| sm.number < 100) {
            self.report(inst.span, format!("Feature '{op}.f32.{}' requires .target sm_100 or higher", half.name()));
        }
        true
    }

    /// `.u16x2`/`.s16x2` (ptxas 13.5): only `add`, `min` and `max` take
    /// them, from sm_90 (named after `.relu`'s own target and type
    /// complaints: `.relu` is signed only); `add.sat` of them is no
    /// target's (sm_75 to sm_120 measured).
    fn packed_int(&mut self, inst: &Instruction, op: &str, types: &[ScalarType], packed: ScalarType) {
        let span = inst.span;
        if !matches!(op, "add" | "min" | "max") || types.len() != 1 {
            self.report(span, format!("Unexpected instruction types specified for '{}'", display_name(inst)));
            return;
        }
        // Float modifiers, each named (the order written).
        for m in &inst.modifiers {
            if matches!(m.name.as_str(), "ftz" | "xorsign" | "abs" | "NaN") {
                self.report(span, format!("Illegal modifier '.{}' for instruction '{op}'", m.name.as_str()));
            }
        }
        let before_sm90 = self.sm.filter(|sm| sm.number < 90);
        let relu = inst.has("relu") && op != "add";
        if relu && before_sm90.is_some() {
            self.report(span, format!("Feature '{op}.relu' requires .target sm_90 or higher"));
        }
        if relu && packed == ScalarType::U16x2 {
            self.report(span, format!("Illegal modifier '.relu' for instruction '{op}' with type '.u16x2'"));
        }
        if before_sm90.is_some() {
            self.report(span, format!("Feature '{op}.{}' requires .target sm_90 or higher", packed.name()));
        }
        if op == "add"
            && inst.has("sat")
            && let Some(sm) = self.sm
        {
            self.report(span, format!("Feature 'add.sat' not supported on .target '{sm}'"));
        }
    }

    /// Runs every rule that applies to `inst`.
    pub(super) fn family_rules(&mut self, inst: &Instruction) {
        let op = inst.opcode.name.as_str();
        // At most three types occur (`cvt.pack` has three); a buffer avoids
        // allocating for every instruction.
        let mut buffer = [ScalarType::Pred; 3];
        let mut count = 0;
        for t in inst.types() {
            if let Some(slot) = buffer.get_mut(count) {
                *slot = t;
            }
            count += 1;
        }
        let Some(types) = buffer.get(..count) else { return };
        let rounding = inst.modifiers.iter().find_map(|m| match m.kind {
            ModifierKind::Rounding(r) => Some(r),
            _ => None,
        });
        let span = inst.span;
        if let Some(packed) = types.iter().copied().find(|t| t.is_packed_int()) {
            self.packed_int(inst, op, types, packed);
            return;
        }
        self.sm90_features(inst, op, types);
        match (op, types) {
            (_, [t]) if ARITHMETIC.contains(&op) && is_int(*t) && rounding.is_some() => {
                self.report(span, format!("Illegal rounding modifier for instruction '{op}'"));
            }
            ("cvt", _) if inst.has("pack") && !is_cvt_pack(types) => {
                self.report(span, "Unexpected instruction types specified for 'cvt.pack'".to_owned());
            }
            // `cvt.pack.sat.{u16,s16}.s32 d, a, b` (both halves in one
            // 32-bit result) and `.{u8,s8}.s32.b32 d, a, b, c` (a source
            // per type).
            ("cvt", [_, src, ..]) if inst.has("pack") => {
                let typed = |i: usize| match i {
                    0 => ScalarType::B32,
                    1 | 2 => *src,
                    _ => types.get(2).copied().unwrap_or(*src),
                };
                let mismatch = inst.operands.len() != types.len() + 1
                    || inst.operands.iter().enumerate().any(|(i, o)| self.holds(o, typed(i)) == Verdict::Mismatch);
                if mismatch {
                    self.report(span, "Arguments mismatch for instruction 'cvt.pack'".to_owned());
                }
            }
            ("cvt", [dst, src]) => {
                if (*dst, *src) == (ScalarType::Tf32, ScalarType::F32) && self.tf32_errors(inst, rounding) {
                    return;
                }
                // bfloat16 conversions other than to and from f32 (without
                // `.ftz`) are sm_90's (ptxas 13.5 names the pair).
                let bf16 = [*dst, *src].contains(&ScalarType::Bf16);
                let f32 = [*dst, *src].contains(&ScalarType::F32);
                let byte = dst.bits() == 8 || src.bits() == 8;
                let exempt = f32 && (!inst.has("ftz") || *dst == ScalarType::Bf16);
                if bf16 && !exempt && !byte && self.sm.is_some_and(|sm| sm.number < 90) {
                    let ftz = if f32 { ".ftz" } else { "" };
                    let feature = format!("cvt with .{}.{}{ftz}", dst.name(), src.name());
                    self.report(span, format!("Feature '{feature}' requires .target sm_90 or higher"));
                }
                for message in cvt_modifier_errors(*dst, *src, rounding, inst.has("sat"), inst.has("ftz")) {
                    self.report(span, message.to_owned());
                }
                // As for loads: registers at least as wide as their type.
                let (dst, src) = (*dst, *src);
                let (mut mismatch, mut special) = (false, false);
                for (i, operand) in inst.operands.iter().enumerate() {
                    match self.holds(operand, if i == 0 { dst } else { src }) {
                        // A conversion to or from a float type reads no special register.
                        Verdict::Fits if dst.is_float() && self.is_special(operand) => special = true,
                        Verdict::Fits => {}
                        Verdict::Mismatch => mismatch = true,
                        Verdict::SpecialNotAllowed => special = true,
                    }
                }
                if mismatch {
                    self.report(span, "Arguments mismatch for instruction 'cvt'".to_owned());
                } else if special {
                    self.report(span, "Special register argument not allowed for instruction 'cvt'".to_owned());
                }
            }
            ("div" | "sqrt" | "rcp", [ScalarType::F32 | ScalarType::F64])
                if rounding.is_none() && !inst.has("approx") && !inst.has("full") =>
            {
                self.report(span, format!("Rounding modifier or '.approx' modifier required for instruction '{op}'"));
            }
            ("ex2", [ScalarType::F16 | ScalarType::F16x2]) if inst.has("ftz") => {
                self.report(span, "Illegal modifier '.ftz' for instruction 'ex2'".to_owned());
            }
            // Integer `.sat` is `s32`'s (and `add.sat.u32` sm_12x's).
            ("add" | "sub" | "mad" | "mad24", [t]) if inst.has("sat") && is_int(*t) && *t != ScalarType::S32 => {
                match self.sm {
                    Some(sm) if op == "add" && *t == ScalarType::U32 => {
                        if sm.number / 10 != 12 {
                            self.report(span, format!("Feature 'add.sat' not supported on .target '{sm}'"));
                        }
                    }
                    _ => self.report(span, format!("Modifier '.sat' does not apply to '.{}' type", t.name())),
                }
            }
            // `.xorsign.abs` is sm_86's, on every type.
            ("min" | "max", _)
                if (inst.has("abs") || inst.has("xorsign")) && self.sm.is_some_and(|sm| sm.number < 86) =>
            {
                if inst.has("abs") {
                    self.report(span, "Feature '.abs' requires .target sm_86 or higher".to_owned());
                }
                if inst.has("xorsign") {
                    self.report(span, "Modifier '.xorsign' requires .target sm_86 or higher".to_owned());
                }
            }
            ("min" | "max", [t]) if inst.has("relu") && is_int(*t) && *t != ScalarType::S32 => {
                self.report(span, format!("Illegal modifier '.relu' for instruction '{op}' with type '.{}'", t.name()));
            }
            ("match", [t]) if !matches!(t, ScalarType::B32 | ScalarType::B64) => {
                self.report(span, "Unexpected instruction types specified for 'match'".to_owned());
            }
            // binary32 reductions are sm_10x's, `a`/`f` targets only.
            ("redux", [ScalarType::F32]) => {
                if let Some(sm) = self.sm {
                    if inst.has("abs") && sm.number < 86 {
                        self.report(span, "Feature '.abs' requires .target sm_86 or higher".to_owned());
                    }
                    if sm.number / 10 != 10 || sm.suffix.is_none() {
                        self.report(span, format!("Instruction 'redux.f32' not supported on .target '{sm}'"));
                    }
                }
            }
            ("min" | "max", [ScalarType::F64]) if inst.has("NaN") => {
                self.report(span, format!("Illegal modifier '.NaN' for instruction '{op}'"));
            }
            ("bfe" | "bfi", _) => {
                // The field's position and length are bytes.
                let first = if op == "bfe" { 2 } else { 3 };
                for (i, operand) in inst.operands.iter().enumerate().skip(first) {
                    let value = match &operand.kind {
                        ExprKind::Int { value, .. } => Some(*value as i64),
                        ExprKind::Unary(UnaryOp::Neg, inner) => match inner.kind {
                            ExprKind::Int { value, .. } => Some((value as i64).wrapping_neg()),
                            _ => None,
                        },
                        _ => None,
                    };
                    if let Some(v) = value.filter(|v| !(0..=255).contains(v)) {
                        self.report(
                            span,
                            format!("Argument {i} of instruction '{op}': value '{v}' out of range, expected to be in range [0..255]"),
                        );
                    }
                }
            }
            ("mad", [ScalarType::F32]) if rounding.is_none() && !["lo", "hi", "wide"].iter().any(|m| inst.has(m)) => {
                self.report(span, "Rounding modifier required for instruction 'mad'".to_owned());
            }
            ("mul" | "mad", [t]) if is_int(*t) != ["lo", "hi", "wide"].iter().any(|m| inst.has(m)) => {
                // Integer forms need `.lo`/`.hi`/`.wide`, float forms refuse them.
                self.report(span, format!("Unexpected instruction types specified for '{}'", display_name(inst)));
            }
            ("setp" | "set", _) if !COMPARISONS.iter().any(|c| inst.has(c)) => {
                self.report(span, format!("Comparison modifier required for instruction '{op}'"));
            }
            ("setp" | "set", [.., src]) => {
                let dst = (op == "set").then(|| types[0]);
                let cmp = COMPARISONS.iter().find(|c| inst.has(c)).copied().unwrap_or("eq");
                let pair = matches!(&inst.operands.first().map(|o| &o.kind),
                    Some(ExprKind::Binary(BinaryOp::Or, _, q)) if !matches!(q.kind, ExprKind::Sink));
                // ptxas refuses a literal of a half type ("Arguments
                // mismatch") and then says nothing of `.ftz`.
                let half = matches!(src, ScalarType::F16 | ScalarType::Bf16 | ScalarType::F16x2 | ScalarType::Bf16x2);
                let literal = inst.operands.iter().any(|o| matches!(o.kind, ExprKind::Int { .. } | ExprKind::Float(_)));
                let ftz = inst.has("ftz") && !(half && literal);
                for message in comparison_errors(op, dst, *src, cmp, ftz, pair) {
                    self.report(span, message);
                }
            }
            ("neg" | "abs", [t]) if !t.is_float() && !t.name().starts_with('s') => {
                self.report(span, format!("Instruction '{op}' applies only to signed numeric types"));
            }
            ("and" | "or" | "xor" | "not" | "cnot", [t]) if !is_bits(*t) => {
                self.report(span, format!("Unexpected instruction types specified for '{op}'"));
            }
            ("shl", [t]) if !t.name().starts_with('b') => {
                self.report(span, "Unexpected instruction types specified for 'shl'".to_owned());
            }
            ("shfl" | "vote", _) => {
                self.sync_required(inst);
                // The `.sync` forms add the member mask operand.
                let expected = if op == "shfl" { 4 } else { 2 } + usize::from(inst.has("sync"));
                if inst.operands.len() + 1 == expected {
                    self.report(span, format!("Arguments mismatch for instruction '{op}'"));
                }
            }
            // The elected thread's number may be dropped, its predicate not.
            ("elect", _)
                if matches!(inst.operands.first().map(|o| &o.kind),
                    Some(ExprKind::Binary(BinaryOp::Or, _, p)) if matches!(p.kind, ExprKind::Sink)) =>
            {
                self.report(span, "Predicate output expected for instruction 'elect'".to_owned());
            }
            ("bar" | "barrier", _) => self.barrier(inst),
            ("ld" | "ldu" | "st", _) if self.memory_qualifiers(inst, types) => self.memory(inst),
            ("atom" | "red", _) if self.atomic_operation(inst, types) => self.atomic_operand_count(inst),
            _ => {}
        }
    }

    /// What ptxas refuses of a load's or store's type, width and
    /// qualifiers before its operands: binary16 and bfloat16 types, pairs
    /// included (their bits are `.b16`/`.b32`), vectors wider than 128 bits before sm_100 and in
    /// a state space other than global, memory-model qualifiers on local
    /// memory, and before sm_90 the `::cluster` spaces.
    /// Whether the operands are checked further.
    fn memory_qualifiers(&mut self, inst: &Instruction, types: &[ScalarType]) -> bool {
        let (op, span) = (inst.opcode.name.as_str(), inst.span);
        let before_sm90 = self.sm.is_some_and(|sm| sm.number < 90);
        if before_sm90 && inst.modifiers.iter().any(|m| m.name.ends_with("::cluster")) {
            self.report(span, "Feature '::cluster' requires .target sm_90 or higher".to_owned());
            return false;
        }
        if types
            .iter()
            .any(|t| matches!(t, ScalarType::F16 | ScalarType::Bf16 | ScalarType::F16x2 | ScalarType::Bf16x2))
        {
            self.report(span, format!("Unexpected instruction types specified for '{op}'"));
            return false;
        }
        let width = inst.modifiers.iter().find_map(|m| match m.kind {
            ModifierKind::Vector(n) => Some(n),
            _ => None,
        });
        if let (Some(n), [t]) = (width, types)
            && n * t.bits() > 128
        {
            if self.sm.is_some_and(|sm| sm.number < 100) {
                self.report(span, "Feature '256 bit wide load/store' requires .target sm_100 or higher".to_owned());
            }
            // Generic addresses may point to global memory.
            if inst.space().is_some_and(|s| s != StateSpace::Global) {
                self.report(span, "global state space expected for feature '256 bit wide load/store'".to_owned());
            }
        }
        if inst.space() == Some(StateSpace::Local)
            && let Some(sem) = ["relaxed", "acquire", "release"].into_iter().find(|s| inst.has(s))
        {
            self.report(span, format!("Modifier '.{sem}' cannot be applied to '.local' space"));
            return false;
        }
        true
    }

    /// What ptxas refuses of an atomic's operation and type: before sm_90
    /// vectors and sm_90's operations; `red.exch`, and binary16/bfloat16
    /// `min`/`max` (`.noftz`, and a vector width ptxas asks for). Whether
    /// the operands are checked further.
    fn atomic_operation(&mut self, inst: &Instruction, types: &[ScalarType]) -> bool {
        let (op, span) = (inst.opcode.name.as_str(), inst.span);
        if op == "red" && inst.has("exch") {
            self.report(span, "Illegal operation '.exch' for instruction 'red'".to_owned());
            // ptxas's message has no type name in it.
            self.report(span, "Operation .exch requires  type for instruction 'red'".to_owned());
            return false;
        }
        let half = types.iter().find(|t| matches!(t, ScalarType::F16 | ScalarType::Bf16));
        let minmax = ["min", "max"].into_iter().find(|m| inst.has(m));
        let vector = inst.modifiers.iter().any(|m| matches!(m.kind, ModifierKind::Vector(_)));
        if self.sm.is_some_and(|sm| sm.number < 90) {
            if vector {
                self.report(
                    span,
                    format!("Feature '{op} instruction with vector types' requires .target sm_90 or higher"),
                );
                return false;
            }
            // sm_90's operations: bfloat16 adds, 128-bit exchanges, binary16
            // and bfloat16 minimum and maximum (named as ptxas names them).
            let operation = ["add", "min", "max", "exch", "cas"].into_iter().find(|o| inst.has(o));
            let newer = |t: &ScalarType| {
                matches!(
                    (operation, t),
                    (Some("add"), ScalarType::Bf16 | ScalarType::Bf16x2)
                        | (Some("min" | "max"), ScalarType::F16 | ScalarType::Bf16)
                        | (Some("exch" | "cas"), ScalarType::B128)
                )
            };
            if let (Some(operation), Some(t), Some(space)) = (operation, types.iter().find(|t| newer(t)), inst.space())
            {
                let name = format!("{op}.{operation}.{}.{}", t.name(), space.name());
                self.report(span, format!("Instruction '{name}' requires .target sm_90 or higher"));
                return false;
            }
        }
        if let (Some(t), Some(m), false) = (half, minmax, vector) {
            if !inst.has("noftz") {
                self.report(
                    span,
                    format!("'.noftz' modifier required for instruction '{op}' with type '.{}'", t.name()),
                );
            }
            let name = match inst.space() {
                Some(space) => format!("{op}.{m}.{}.{}", t.name(), space.name()),
                None => format!("{op}.{m}.{} with generic state space", t.name()),
            };
            self.report(span, format!("Vector modifier required for instruction '{name}'"));
            return false;
        }
        true
    }

    /// `atom` takes result, address and one source (two for `.cas`), `red`
    /// no result; `.L2::cache_hint` (not with `.cas`) adds the cache policy.
    fn atomic_operand_count(&mut self, inst: &Instruction) {
        let op = &inst.opcode.name;
        if inst.has("cas") && inst.has("L2::cache_hint") {
            self.report(inst.span, format!("Illegal modifier '.L2::cache_hint' for instruction '{op}'"));
            return;
        }
        let base = if op == "atom" { 3 } else { 2 };
        let expected = base + usize::from(inst.has("cas")) + usize::from(inst.has("L2::cache_hint"));
        // Counts outside the table row's range are reported by the row check.
        let in_row_range = (base..=base + 2).contains(&inst.operands.len());
        if in_row_range && inst.operands.len() != expected {
            self.report(inst.span, format!("Arguments mismatch for instruction '{op}'"));
            return;
        }
        // The row types the first source only; `.cas` has a second.
        if inst.has("cas")
            && let Some(swap) = inst.operands.get(3)
            && self.fits_type(swap, operand_type(inst, 3), false) == Verdict::Mismatch
        {
            self.report(inst.span, format!("Arguments mismatch for instruction '{op}'"));
        }
    }

    /// Since PTX 6.4, sm_70 and later only have the `.sync` forms.
    fn sync_required(&mut self, inst: &Instruction) {
        let op = &inst.opcode.name;
        let newer = self.sm.is_some_and(|sm| sm.number >= 70) && self.version >= crate::PtxVersion::new(6, 4);
        if newer && !inst.has("sync") {
            self.report(
                inst.span,
                format!("Instruction '{op}' without '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4"),
            );
        }
    }

    /// `bar.sync`/`bar.arrive`/`barrier.sync`: a barrier number (0..15) and
    /// an optional thread count, a multiple of the warp size.
    fn barrier(&mut self, inst: &Instruction) {
        let op = &inst.opcode.name;
        if inst.has("warp") || inst.has("cluster") || inst.has("red") {
            return;
        }
        let operand_ok = |o: &Expr| match &o.kind {
            ExprKind::Int { .. } => true,
            ExprKind::Name(ident, component) => {
                !matches!(self.type_of(&ident.name, component.is_some()), Some(Some(ScalarType::Pred)))
            }
            _ => false,
        };
        if !(1..=2).contains(&inst.operands.len()) || !inst.operands.iter().all(operand_ok) {
            self.report(inst.span, format!("Arguments mismatch for instruction '{op}'"));
            return;
        }
        if let Some(ExprKind::Int { value, .. }) = inst.operands.first().map(|o| &o.kind)
            && *value > 15
        {
            self.report(inst.span, format!("Barrier number '{value}' out of range, expected to be in range [0..15]"));
        }
        if let Some(ExprKind::Int { value, .. }) = inst.operands.get(1).map(|o| &o.kind)
            && value % 32 != 0
        {
            self.report(
                inst.span,
                "Number of threads participating in barrier must be in multiple of warp size".to_owned(),
            );
        }
    }

    /// Vector width against the `{..}` operand, and the state space of the
    /// address's variable against the instruction's.
    fn memory(&mut self, inst: &Instruction) {
        let op = &inst.opcode.name;
        let is_store = op == "st";
        if is_store && matches!(inst.space(), Some(StateSpace::Const | StateSpace::Tex)) {
            self.report(inst.span, format!("State space incorrect for instruction '{op}'"));
            return;
        }
        let (address, value) = if is_store { (0, 1) } else { (1, 0) };
        let width = inst.modifiers.iter().find_map(|m| match m.kind {
            ModifierKind::Vector(n) => Some(n as usize),
            _ => None,
        });
        // A one-element `{x}` without a width is the scalar `x` (Triton writes
        // `ld.global.b32 { %r1 }, [a]`).
        let elements = match inst.operands.get(value) {
            Some(Expr { kind: ExprKind::Braces(items), .. }) if !(width.is_none() && items.len() == 1) => {
                Some(items.len())
            }
            Some(operand) => self.vector_register(operand).map(|(_, n)| n as usize),
            None => None,
        };
        if inst.operands.len() > value && width != elements && matches!(width, None | Some(2 | 4 | 8)) {
            self.report(inst.span, format!("Argument vector size mismatch for instruction '{op}'"));
        }
        if !is_store && inst.operands.get(value).is_some_and(has_immediate) {
            self.report(inst.span, format!("Result register required for instruction '{op}'"));
            return;
        }
        let mut types = inst.types();
        if let (Some(ty), None, Some(operand)) = (types.next(), types.next(), inst.operands.get(value)) {
            let fits = match &operand.kind {
                ExprKind::Braces(items) => match self.vector_type(items, op) {
                    Err(message) => {
                        self.report(inst.span, message);
                        return;
                    }
                    Ok(element) => {
                        element.is_none_or(|e| register_fits(e, ty, Fit::AtLeast))
                            && items
                                .iter()
                                .filter(|item| matches!(item.kind, ExprKind::Int { .. } | ExprKind::Float(_)))
                                .all(|item| self.holds(item, ty) != Verdict::Mismatch)
                    }
                },
                _ => match self.vector_register(operand) {
                    Some((element, _)) => super::instr::vector_element_fits(element, ty, Fit::AtLeast),
                    None => self.holds(operand, ty) != Verdict::Mismatch,
                },
            };
            if !fits {
                self.report(inst.span, format!("Arguments mismatch for instruction '{op}'"));
                return;
            }
        }
        let Some(space) = inst.space() else { return };
        let Some(ExprKind::Address(items)) = inst.operands.get(address).map(|o| &o.kind) else { return };
        let base = items.first().and_then(|e| base_name(e));
        if let Some(Resolved::Symbol(SymbolKind::Variable(var_space, _))) = base.and_then(|b| self.env.lookup(b))
            && var_space != StateSpace::Reg
            && var_space != space
        {
            self.report(
                inst.span,
                format!("State space mismatch between instruction and address in instruction '{op}'"),
            );
        }
    }
}

impl Checker<'_> {
    fn is_special(&self, operand: &Expr) -> bool {
        matches!(&operand.kind, ExprKind::Name(ident, _)
            if matches!(self.env.lookup(&ident.name), Some(Resolved::Special(_))))
    }

    /// Whether `value` can be loaded into or stored from or converted as
    /// type `ty`: a register at least as wide (ptxas extends and truncates),
    /// or an immediate of the right kind. Special registers are judged as
    /// `cvt` reads them (`st` refuses them later, as every instruction but
    /// `mov` and `cvt` does).
    fn holds(&self, value: &Expr, ty: ScalarType) -> Verdict {
        match &value.kind {
            ExprKind::Name(ident, component) => match self.env.lookup(&ident.name) {
                Some(Resolved::Special(reg)) => special_fits(&ident.name, reg, ty, Fit::AtLeast),
                _ => match self.type_of(&ident.name, component.is_some()) {
                    Some(Some(reg)) => register_fits(reg, ty, Fit::AtLeast).into(),
                    Some(None) => Verdict::Fits,
                    None => Verdict::Mismatch,
                },
            },
            ExprKind::Int { .. } => (!ty.is_float()).into(),
            ExprKind::Float(lit) => float_fits(lit, ty).into(),
            _ => Verdict::Fits,
        }
    }
}

/// Whether `value` is an immediate or a vector holding one.
fn has_immediate(value: &Expr) -> bool {
    match &value.kind {
        ExprKind::Int { .. } | ExprKind::Float(_) => true,
        ExprKind::Braces(items) => items.iter().any(has_immediate),
        _ => false,
    }
}

/// The variable an address expression starts from: `x` in `[x+4]`.
fn base_name(expr: &Expr) -> Option<&str> {
    match &expr.kind {
        ExprKind::Name(ident, _) => Some(&ident.name),
        ExprKind::Binary(_, lhs, _) | ExprKind::Index(lhs, _) => base_name(lhs),
        _ => None,
    }
}
