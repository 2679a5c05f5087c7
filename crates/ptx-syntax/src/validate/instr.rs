//! Checks of one instruction against its [`InstrSpec`] row.

use super::negation::Negation;
use super::scope::{Scope, SymbolKind};
use super::signature::Signature;
use super::typecheck::{Fit, Kind, Verdict, float_fits, kind, register_fits, special_fits};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::hash::FxHashMap;
use crate::span::Span;
use crate::tables::{self, InstrSpec};
use crate::target::{PtxVersion, Sm};

/// Special registers and predefined names, with the type of each (or of
/// each component for `%tid` and the like).
const SPECIAL: &[(&str, ScalarType)] = &[
    ("%tid", ScalarType::U32),
    ("%ntid", ScalarType::U32),
    ("%laneid", ScalarType::U32),
    ("%warpid", ScalarType::U32),
    ("%nwarpid", ScalarType::U32),
    ("%ctaid", ScalarType::U32),
    ("%nctaid", ScalarType::U32),
    ("%smid", ScalarType::U32),
    ("%nsmid", ScalarType::U32),
    ("%gridid", ScalarType::U64),
    ("%is_explicit_cluster", ScalarType::Pred),
    ("%clusterid", ScalarType::U32),
    ("%nclusterid", ScalarType::U32),
    ("%cluster_ctaid", ScalarType::U32),
    ("%cluster_nctaid", ScalarType::U32),
    ("%cluster_ctarank", ScalarType::U32),
    ("%cluster_nctarank", ScalarType::U32),
    ("%lanemask_eq", ScalarType::U32),
    ("%lanemask_le", ScalarType::U32),
    ("%lanemask_lt", ScalarType::U32),
    ("%lanemask_ge", ScalarType::U32),
    ("%lanemask_gt", ScalarType::U32),
    ("%clock", ScalarType::U32),
    ("%clock_hi", ScalarType::U32),
    ("%clock64", ScalarType::U64),
    ("%globaltimer", ScalarType::U64),
    ("%globaltimer_lo", ScalarType::U32),
    ("%globaltimer_hi", ScalarType::U32),
    ("%total_smem_size", ScalarType::U32),
    ("%aggr_smem_size", ScalarType::U32),
    ("%dynamic_smem_size", ScalarType::U32),
    ("%reserved_smem_offset_begin", ScalarType::B32),
    ("%reserved_smem_offset_end", ScalarType::B32),
    ("%reserved_smem_offset_cap", ScalarType::B32),
    ("%current_graph_exec", ScalarType::U64),
    ("WARP_SZ", ScalarType::U32),
];

/// Special registers that need a newer target or PTX ISA than the rest,
/// with ptxas 13.5's requirements (measured: each read with `.target sm_75`
/// and with `.version 7.0`, and ptxas's message noted).
const SPECIAL_REQUIREMENTS: &[(&str, u32, PtxVersion)] = &[
    ("%clusterid", 90, PtxVersion::new(7, 8)),
    ("%nclusterid", 90, PtxVersion::new(7, 8)),
    ("%cluster_ctaid", 90, PtxVersion::new(7, 8)),
    ("%cluster_nctaid", 90, PtxVersion::new(7, 8)),
    ("%cluster_ctarank", 90, PtxVersion::new(7, 8)),
    ("%cluster_nctarank", 90, PtxVersion::new(7, 8)),
    ("%is_explicit_cluster", 90, PtxVersion::new(7, 8)),
    ("%aggr_smem_size", 90, PtxVersion::new(8, 1)),
    ("%reserved_smem_offset_begin", 80, PtxVersion::new(7, 6)),
    ("%reserved_smem_offset_end", 80, PtxVersion::new(7, 6)),
    ("%reserved_smem_offset_cap", 80, PtxVersion::new(7, 6)),
    ("%current_graph_exec", 0, PtxVersion::new(8, 0)),
];

/// `%tid` and the other special registers that are `.v4` vectors.
const VECTOR_SPECIAL: &[&str] =
    &["%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid"];

/// A vector special register used whole, without `.x`/`.y`/`.z`.
fn is_vector_special(operand: &Expr) -> bool {
    matches!(&operand.kind, ExprKind::Name(ident, None) if VECTOR_SPECIAL.contains(&ident.name.as_str()))
}

/// `%pm0`..`%pm7`, `%envreg0`..`%envreg31` (32-bit) and `%pm0_64`..`%pm7_64`
/// (64-bit): the type of a numbered special register.
fn numbered_special(name: &str) -> Option<ScalarType> {
    let numbered = |prefix: &str, max: u32, rest: &str| {
        rest.strip_prefix(prefix).and_then(|n| n.parse::<u32>().ok()).is_some_and(|n| n <= max)
    };
    if let Some(counter) = name.strip_suffix("_64") {
        numbered("%pm", 7, counter).then_some(ScalarType::U64)
    } else {
        (numbered("%pm", 7, name) || numbered("%envreg", 31, name)).then_some(ScalarType::U32)
    }
}

/// The names visible at an instruction.
pub struct Env<'a> {
    pub module: &'a Scope,
    /// The enclosing blocks, outermost first: each one's variables
    /// declared so far and its labels.
    pub locals: &'a [(Scope, Scope)],
    pub signatures: &'a FxHashMap<String, Signature>,
}

/// What a name resolves to, for operand checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// A declared symbol.
    Symbol(SymbolKind),
    /// A special register of this type.
    Special(ScalarType),
}

impl Env<'_> {
    /// Resolves `name`, innermost scope first.
    pub fn lookup(&self, name: &str) -> Option<Resolved> {
        self.locals
            .iter()
            .rev()
            .find_map(|(variables, labels)| variables.get(name).or_else(|| labels.get(name)))
            .or_else(|| self.module.get(name))
            .map(Resolved::Symbol)
            .or_else(|| SPECIAL.iter().find(|(n, _)| *n == name).map(|(_, t)| Resolved::Special(*t)))
            .or_else(|| numbered_special(name).map(Resolved::Special))
    }
}

/// Checks instructions and collects unknown symbols for the end of the function.
pub struct Checker<'a> {
    pub env: Env<'a>,
    pub sm: Option<Sm>,
    pub version: PtxVersion,
    pub diags: &'a mut Vec<Diagnostic>,
    pub unknown: &'a mut Vec<(Name, Span)>,
}

impl Checker<'_> {
    fn error(&mut self, span: Span, message: String) {
        self.diags.push(Diagnostic::error(span, message));
    }

    /// Reports an error (for the family rules in `rules.rs`).
    pub(super) fn report(&mut self, span: Span, message: String) {
        self.error(span, message);
    }

    pub fn check(&mut self, inst: &Instruction) {
        let op = inst.opcode.name.as_str();
        self.collect_unknown(inst);
        if let Some(guard) = &inst.guard
            && self.type_of(&guard.pred.name, false) != Some(Some(ScalarType::Pred))
        {
            self.error(inst.span, "Predicate expression expected".to_owned());
        }
        let Some(spec) = tables::lookup(inst) else {
            self.error(inst.span, format!("Not a name of any known instruction: '{op}'"));
            return;
        };
        let modifiers_ok = self.modifiers(inst, spec);
        if self.mixed_precision(inst) {
            return;
        }
        let ntypes = inst.types().count();
        if modifiers_ok && !(spec.types.0 as usize..=spec.types.1 as usize).contains(&ntypes) {
            self.error(inst.span, format!("Unexpected instruction types specified for '{}'", display_name(inst)));
        }
        self.requirements(inst, spec);
        self.special_register_requirements(inst);
        if modifiers_ok {
            self.family_rules(inst);
        }
        // ptxas checks no operands of a `cvt.pack` whose types it refused.
        if op == "cvt" && inst.has("pack") && !super::rules::is_cvt_pack(&inst.types().collect::<Vec<_>>()) {
            return;
        }
        self.operands(inst, spec);
    }

    /// Unknown words, and words the row does not allow. Returns false when a
    /// word was unknown (ptxas then also complains about the types).
    fn modifiers(&mut self, inst: &Instruction, spec: &InstrSpec) -> bool {
        let mut ok = true;
        for m in inst.modifiers.iter().skip(tables::family_word_count(spec)) {
            let known = tables::is_known_modifier(&m.name) && !looks_like_bad_type(&m.name);
            if !known
                || matches!(m.kind, ModifierKind::Vector(n) if n > 4 && inst.opcode.name != "ld" && inst.opcode.name != "st")
            {
                self.error(inst.span, format!("Unknown modifier '.{}'", m.name));
                if let Some(n) = m.name.strip_prefix('v').filter(|n| n.bytes().all(|b| b.is_ascii_digit())) {
                    self.error(inst.span, format!("Illegal vector size: {n}"));
                }
                ok = false;
                continue;
            }
            if let (Some(allowed), false) = (spec.modifiers, matches!(m.kind, ModifierKind::Type(_)))
                && !allowed.contains(&m.name.as_str())
            {
                self.error(inst.span, format!("Illegal modifier '.{}' for instruction '{}'", m.name, inst.opcode.name));
            }
        }
        ok
    }

    fn requirements(&mut self, inst: &Instruction, spec: &InstrSpec) {
        if let Some(sm) = self.sm {
            // ptxas words the two cases differently: a family that needs a newer
            // target, and one that needs an architecture-specific target.
            let arch_ok = sm.suffix == Some('a') || (sm.suffix == Some('f') && spec.min_sm >= 100);
            if spec.arch_specific && (sm.number < spec.min_sm || !arch_ok) {
                self.error(inst.span, format!("Instruction '{}' not supported on .target '{sm}'", spec.name));
            } else if sm.number < spec.min_sm {
                let name = spec.name;
                self.error(inst.span, format!("Feature '{name}' requires .target sm_{} or higher", spec.min_sm));
            }
        }
        if self.version < spec.min_ptx {
            self.error(
                inst.span,
                format!("Feature '{}' requires PTX ISA .version {} or later", spec.name, spec.min_ptx),
            );
        }
    }

    /// `%rd1[p]` (typically a missing comma, `ld %rd1 [p]`): a register is
    /// not an array.
    fn register_indexing(&mut self, inst: &Instruction) {
        for operand in &inst.operands {
            if let ExprKind::Index(base, _) = &operand.kind
                && let ExprKind::Name(ident, _) = &base.kind
                && matches!(
                    self.env.lookup(&ident.name),
                    Some(
                        Resolved::Symbol(SymbolKind::Variable(StateSpace::Reg, _) | SymbolKind::VectorReg(..))
                            | Resolved::Special(_)
                    )
                )
            {
                self.error(inst.span, "Array indexing on non-array".to_owned());
            }
        }
    }

    /// Special registers newer than the file's target or PTX ISA version,
    /// in ptxas's words (which treat them as features).
    fn special_register_requirements(&mut self, inst: &Instruction) {
        let mut needs = Vec::new();
        for operand in &inst.operands {
            operand.for_each_name(&mut |ident| {
                let name = ident.name.as_str();
                if let Some(&(_, min_sm, min_ptx)) = SPECIAL_REQUIREMENTS.iter().find(|(n, _, _)| *n == name)
                    && matches!(self.env.lookup(name), Some(Resolved::Special(_)))
                {
                    needs.push((name.to_owned(), min_sm, min_ptx));
                }
            });
        }
        // For special registers ptxas names the missing version first.
        for (name, min_sm, min_ptx) in needs {
            if self.version < min_ptx {
                self.error(inst.span, format!("Feature '{name}' requires PTX ISA .version {min_ptx} or later"));
            }
            if self.sm.is_some_and(|sm| sm.number < min_sm) {
                self.error(inst.span, format!("Feature '{name}' requires .target sm_{min_sm} or higher"));
            }
        }
    }

    fn operands(&mut self, inst: &Instruction, spec: &InstrSpec) {
        let op = &inst.opcode.name;
        if op == "call" {
            self.call(inst);
            return;
        }
        self.register_indexing(inst);
        let name = display_name(inst);
        let codes = spec.operand_codes();
        let required = codes.clone().filter(|(_, optional)| !optional).count();
        let n = inst.operands.len();
        if n < required || (n > codes.clone().count() && !spec.variadic()) {
            self.error(inst.span, format!("Arguments mismatch for instruction '{name}'"));
            return;
        }
        // `!` negates predicates only.
        let not_predicate = inst.operands.iter().any(|operand| {
            matches!(&operand.kind, ExprKind::Unary(UnaryOp::Not, inner)
                if matches!(&inner.kind, ExprKind::Name(ident, component)
                    if self.type_of(&ident.name, component.is_some()).is_some_and(|t| t != Some(ScalarType::Pred))))
        });
        if not_predicate {
            self.error(inst.span, "Illegal argument to predicate negation".to_owned());
            return;
        }
        let negation = self.negation(inst);
        if negation == Negation::IllegalMinus {
            self.error(inst.span, "Illegal argument to unary minus".to_owned());
            return;
        }
        let mov = op == "mov";
        if mov && let Some(width) = vector_width(inst) {
            if let Some(message) = self.mov_vector_form(inst, width) {
                self.error(inst.span, message);
            }
            return;
        }
        if mov && let Some(message) = self.mov_vectors(inst) {
            self.error(inst.span, message);
            return;
        }
        if let Some(message) = self.vector_selectors(inst).or_else(|| self.misplaced_vector(inst, spec)) {
            self.error(inst.span, message);
            return;
        }
        let mut verdict = Verdict::Fits;
        for (index, (operand, (code, _))) in inst.operands.iter().zip(codes).enumerate() {
            let fits = match code {
                b'd' => {
                    if !Self::is_result(operand) {
                        self.error(inst.span, format!("Result register required for instruction '{name}'"));
                        continue;
                    }
                    self.fits_type(operand, operand_type(inst, index), mov)
                }
                b's' => self.fits_type(operand, operand_type(inst, index), mov),
                b'P' => {
                    if !Self::is_result(operand) {
                        self.error(inst.span, format!("Result register required for instruction '{name}'"));
                        continue;
                    }
                    self.is_pred_result(operand).into()
                }
                b'p' => self.is_pred_operand(operand).into(),
                b'u' => self.is_u32_operand(operand).into(),
                b'U' => {
                    if !Self::is_result(operand) {
                        self.error(inst.span, format!("Result register required for instruction '{name}'"));
                        continue;
                    }
                    self.is_u32_operand(operand).into()
                }
                b'a' => {
                    if !matches!(operand.kind, ExprKind::Address(_)) {
                        Verdict::Mismatch
                    } else if !self.address_known(operand) {
                        self.error(inst.span, format!("Illegal operand type to instruction '{name}'"));
                        continue;
                    } else {
                        Verdict::Fits
                    }
                }
                b'l' => {
                    let is_label = match &operand.kind {
                        ExprKind::Name(ident, None) => !matches!(
                            self.env.lookup(&ident.name),
                            Some(
                                Resolved::Symbol(SymbolKind::Variable(..) | SymbolKind::VectorReg(..))
                                    | Resolved::Special(_)
                            )
                        ),
                        _ => false,
                    };
                    if !is_label {
                        self.error(inst.span, format!("Label expected for argument {index} of instruction '{name}'"));
                        continue;
                    }
                    Verdict::Fits
                }
                // An undeclared register has no type, so it fits nowhere; labels
                // are operands of branches only.
                _ => (!matches!(&operand.kind, ExprKind::Name(ident, _)
                    if matches!(self.env.lookup(&ident.name), None | Some(Resolved::Symbol(SymbolKind::Label)))))
                .into(),
            };
            match fits {
                Verdict::Fits => {}
                Verdict::Mismatch => {
                    self.error(inst.span, format!("Arguments mismatch for instruction '{name}'"));
                    return;
                }
                // A size mismatch in a later operand is reported instead.
                Verdict::SpecialNotAllowed => verdict = fits,
            }
            if matches!(code, b'd' | b's' | b'u' | b'U' | b'x') && is_vector_special(operand) {
                self.error(inst.span, format!("Argument vector size mismatch for instruction '{name}'"));
                return;
            }
        }
        // Only `mov` and `cvt` read special registers.
        if verdict == Verdict::SpecialNotAllowed || (!mov && op != "cvt" && self.reads_special(inst)) {
            self.error(inst.span, format!("Special register argument not allowed for instruction '{name}'"));
        } else if negation == Negation::NotAllowed {
            self.error(inst.span, format!("Operand negation not allowed for instruction '{name}'"));
        }
    }

    /// The element count of a whole vector register named by `operand`.
    pub(super) fn vector_register(&self, operand: &Expr) -> Option<(ScalarType, u32)> {
        match &operand.kind {
            ExprKind::Name(ident, None) => match self.env.lookup(&ident.name) {
                Some(Resolved::Symbol(SymbolKind::VectorReg(t, n))) => Some((t, n)),
                _ => None,
            },
            _ => None,
        }
    }

    /// `Unknown vector selector` for `%v.q`, or a selector past the
    /// vector's width (where ptxas 13.5 crashes).
    fn vector_selectors(&self, inst: &Instruction) -> Option<String> {
        let mut message = None;
        for operand in &inst.operands {
            operand.for_each_component(&mut |ident, component| {
                if let Some(Resolved::Symbol(SymbolKind::VectorReg(_, n))) = self.env.lookup(&ident.name)
                    && vector_selector(component).is_none_or(|i| i >= n)
                    && message.is_none()
                {
                    message = Some(format!("Unknown vector selector: '{component}'"));
                }
            });
        }
        message
    }

    /// ptxas's message for a vector operand (`{..}` or a whole vector
    /// register) of a family that takes none, or of an `atom`/`red` without
    /// a vector width.
    fn misplaced_vector(&self, inst: &Instruction, spec: &InstrSpec) -> Option<String> {
        let index = inst
            .operands
            .iter()
            .position(|o| matches!(o.kind, ExprKind::Braces(_)) || self.vector_register(o).is_some())?;
        let op = inst.opcode.name.as_str();
        if matches!(op, "atom" | "red") {
            let vector = inst.modifiers.iter().any(|m| matches!(m.kind, ModifierKind::Vector(_)));
            return (!vector).then(|| format!("Vector is not expected for argument {index} of instruction '{op}'"));
        }
        if VECTOR_FAMILIES.contains(&spec.name) || spec.operands == "*" {
            return None;
        }
        Some(format!("Vector operand is not allowed for instruction '{}'", display_name(inst)))
    }

    /// `mov.vN.T a, b`: both operands vectors of N elements of T's size
    /// (vector registers or `{..}`); ptxas's message when they are not.
    fn mov_vector_form(&self, inst: &Instruction, width: u32) -> Option<String> {
        let ty = inst.types().next();
        let name = display_name(inst);
        let mismatch = || Some(format!("Arguments mismatch for instruction '{name}'"));
        let size_mismatch = || Some(format!("Argument vector size mismatch for instruction '{name}'"));
        if inst.operands.len() != 2 {
            return mismatch();
        }
        inst.operands.iter().find_map(|operand| match &operand.kind {
            ExprKind::Braces(items) => match self.vector_type(items, "mov") {
                Err(message) => Some(message),
                Ok(_) if !matches!(items.len(), 2 | 4) => Some(format!("Illegal vector size: {}", items.len())),
                Ok(_) if items.len() != width as usize => size_mismatch(),
                Ok(_) if items.iter().any(|item| self.fits_type(item, ty, true) != Verdict::Fits) => mismatch(),
                Ok(_) => None,
            },
            _ => match self.vector_register(operand) {
                Some((_, n)) if n != width => size_mismatch(),
                Some((element, _)) if ty.is_some_and(|ty| !vector_element_fits(element, ty, Fit::Exact)) => mismatch(),
                Some(_) => None,
                None => mismatch(),
            },
        })
    }

    /// ptxas's message about a vector operand of `mov` (without `.vN`)
    /// whose elements do not go together or are not one, two or four. One
    /// element stands for the scalar, which only a `.bN` move takes; a
    /// vector register is packed into (or unpacked from) a `.bN` value.
    fn mov_vectors(&self, inst: &Instruction) -> Option<String> {
        let is_vector = |o: &Expr| matches!(o.kind, ExprKind::Braces(_)) || self.vector_register(o).is_some();
        if inst.operands.iter().filter(|o| is_vector(o)).count() > 1 {
            return Some(
                "Illegal vector-vector operands for vector-scalar or scalar-vector mov instruction".to_owned(),
            );
        }
        let ty = inst.types().next();
        if inst.operands.iter().any(|o| self.vector_register(o).is_some()) {
            return match ty {
                Some(ScalarType::Pred) => Some("Vector operand is not allowed for instruction 'mov'".to_owned()),
                Some(t) if kind(t) != Kind::Bits => {
                    Some("Argument vector size mismatch for instruction 'mov'".to_owned())
                }
                _ => None,
            };
        }
        inst.operands.iter().find_map(|operand| {
            let ExprKind::Braces(items) = &operand.kind else { return None };
            match self.vector_type(items, "mov") {
                Err(message) => Some(message),
                Ok(_) if ty == Some(ScalarType::Pred) => {
                    Some("Vector operand is not allowed for instruction 'mov'".to_owned())
                }
                Ok(_) if items.len() == 1 && ty.is_some_and(|t| kind(t) != Kind::Bits) => {
                    Some("Argument vector size mismatch for instruction 'mov'".to_owned())
                }
                Ok(_) if !matches!(items.len(), 1 | 2 | 4) => Some(format!("Illegal vector size: {}", items.len())),
                Ok(_) => None,
            }
        })
    }

    /// Whether an operand of `inst` is a special register (vector operands
    /// of `mov` and addresses aside).
    fn reads_special(&self, inst: &Instruction) -> bool {
        inst.operands.iter().any(|operand| {
            let mut operand = operand;
            while let ExprKind::Unary(_, inner) = &operand.kind {
                operand = inner;
            }
            matches!(&operand.kind, ExprKind::Name(ident, _)
                if matches!(self.env.lookup(&ident.name), Some(Resolved::Special(_))))
        })
    }

    /// `call [(rets),] target [, (args)] [, prototype];`: the target must be
    /// a declared function or a register with a prototype.
    fn call(&mut self, inst: &Instruction) {
        let target = inst.operands.iter().find_map(|o| match &o.kind {
            ExprKind::Name(ident, None) => Some(ident),
            _ => None,
        });
        let Some(target) = target else {
            self.error(inst.span, "Arguments mismatch for instruction 'call'".to_owned());
            return;
        };
        if self.env.lookup(&target.name).is_none() {
            self.error(inst.span, format!("Call to '{}' requires call prototype", target.name));
            return;
        }
        // `call (rets), f, (args)`: the lists around the target.
        let list_len = |o: Option<&Expr>| match o.map(|o| &o.kind) {
            Some(ExprKind::List(items)) => items.len(),
            _ => 0,
        };
        let at = inst.operands.iter().position(|o| matches!(&o.kind, ExprKind::Name(i, None) if i == target));
        let (returns, args) = match at {
            Some(at) => {
                (list_len(at.checked_sub(1).and_then(|i| inst.operands.get(i))), list_len(inst.operands.get(at + 1)))
            }
            None => (0, 0),
        };
        // ptxas points at the callee's definition.
        if let Some(signature) = self.env.signatures.get(target.name.as_str())
            && (signature.returns.len() != returns || signature.params.len() != args)
        {
            self.error(signature.span, "Call has wrong number of parameters".to_owned());
        }
    }

    /// The register type of `name`: `None` when undeclared, `Some(None)`
    /// for symbols without one (variables, functions, labels).
    pub(super) fn type_of(&self, name: &str, component: bool) -> Option<Option<ScalarType>> {
        match self.env.lookup(name)? {
            Resolved::Special(t) => Some(Some(t)),
            Resolved::Symbol(SymbolKind::Variable(StateSpace::Reg, DeclType::Scalar(t))) if !component => Some(Some(t)),
            // An element `%v.x`; the selector is checked on its own.
            Resolved::Symbol(SymbolKind::VectorReg(t, _)) if component => Some(Some(t)),
            Resolved::Symbol(_) => Some(None),
        }
    }

    fn is_pred(&self, name: &str) -> bool {
        // Unknown names are reported as unknown symbols, not here.
        matches!(self.type_of(name, false), None | Some(Some(ScalarType::Pred)))
    }

    /// Registers, sinks, vectors and `p|q` pairs can receive results.
    fn is_result(operand: &Expr) -> bool {
        matches!(
            operand.kind,
            ExprKind::Name(..) | ExprKind::Sink | ExprKind::Braces(_) | ExprKind::Binary(BinaryOp::Or, ..)
        )
    }

    /// Whether `operand` can be an operand of type `ty` (`None`: any type).
    /// Whether `operand` may be a `d`/`s` operand of type `ty` (`None`: the
    /// type is not known here, anything goes). `mov` may read special
    /// registers; elsewhere only their size is judged here.
    pub(super) fn fits_type(&self, operand: &Expr, ty: Option<ScalarType>, mov: bool) -> Verdict {
        let Some(ty) = ty else { return Verdict::Fits };
        // A whole vector register: `mov` packs it into a `.bN` value.
        if let Some((element, n)) = self.vector_register(operand) {
            return (mov && kind(ty) == Kind::Bits && element.bits() * n == ty.bits()).into();
        }
        match &operand.kind {
            ExprKind::Name(ident, component) => match self.env.lookup(&ident.name) {
                Some(Resolved::Special(reg)) => match special_fits(&ident.name, reg, ty, Fit::Exact) {
                    Verdict::SpecialNotAllowed if !mov => Verdict::Fits,
                    verdict => verdict,
                },
                _ => match self.type_of(&ident.name, component.is_some()) {
                    // Undeclared registers have no type: ptxas reports a mismatch too.
                    None => Verdict::Mismatch,
                    Some(Some(reg)) => register_fits(reg, ty, Fit::Exact).into(),
                    Some(None) => {
                        (!matches!(self.env.lookup(&ident.name), Some(Resolved::Symbol(SymbolKind::Label)))).into()
                    }
                },
            },
            ExprKind::Int { .. } => ((!ty.is_float() || ty == ScalarType::Pred) && !ty.is_packed_int()).into(),
            ExprKind::Float(lit) => float_fits(lit, ty).into(),
            ExprKind::Unary(UnaryOp::Neg, inner) => self.fits_type(inner, Some(ty), mov),
            // `mov` packs or unpacks a `.bN` value whole: the elements fill it.
            ExprKind::Braces(items) if mov => match self.vector_type(items, "mov") {
                Ok(element) => (kind(ty) == Kind::Bits
                    && element.is_none_or(|e| e.bits() as usize * items.len() == ty.bits() as usize))
                .into(),
                Err(_) => Verdict::Mismatch,
            },
            _ => Verdict::Fits,
        }
    }

    /// Whether `operand` is a 32-bit integer: ptxas takes shift amounts
    /// only from `.b32`/`.u32`/`.s32` registers or integer immediates (for
    /// `shl.b16` as for `shr.s64`; 16-, 64-bit and `.f32` registers are an
    /// argument mismatch).
    fn is_u32_operand(&self, operand: &Expr) -> bool {
        match &operand.kind {
            ExprKind::Name(ident, component) => match self.type_of(&ident.name, component.is_some()) {
                None => false,
                Some(Some(reg)) => matches!(reg, ScalarType::B32 | ScalarType::U32 | ScalarType::S32),
                Some(None) => !matches!(self.env.lookup(&ident.name), Some(Resolved::Symbol(SymbolKind::Label))),
            },
            ExprKind::Float(_) => false,
            ExprKind::Unary(UnaryOp::Neg, inner) => self.is_u32_operand(inner),
            _ => true,
        }
    }

    fn is_pred_result(&self, operand: &Expr) -> bool {
        match &operand.kind {
            ExprKind::Name(ident, None) => self.is_pred(&ident.name),
            ExprKind::Sink => true,
            ExprKind::Binary(BinaryOp::Or, a, b) => self.is_pred_result(a) && self.is_pred_result(b),
            _ => false,
        }
    }

    fn is_pred_operand(&self, operand: &Expr) -> bool {
        match &operand.kind {
            ExprKind::Name(ident, None) => self.is_pred(&ident.name),
            ExprKind::Unary(UnaryOp::Not, inner) => self.is_pred_operand(inner),
            ExprKind::Int { .. } => true,
            _ => false,
        }
    }

    /// False when an address names an undeclared symbol as its base.
    fn address_known(&self, operand: &Expr) -> bool {
        let mut known = true;
        operand.for_each_name(&mut |ident| known &= self.env.lookup(&ident.name).is_some());
        known
    }

    /// Records every name used by `inst` that resolves to nothing.
    fn collect_unknown(&mut self, inst: &Instruction) {
        let env = &self.env;
        let unknown = &mut *self.unknown;
        let mut check = |ident: &Ident| {
            if env.lookup(&ident.name).is_none() {
                unknown.push((ident.name.clone(), ident.span));
            }
        };
        if let Some(guard) = &inst.guard {
            check(&guard.pred);
        }
        for operand in &inst.operands {
            operand.for_each_name(&mut check);
        }
    }
}

/// Families whose operands may be `{..}` vectors; `*` rows (tensor core,
/// textures, async copies) are not judged here.
const VECTOR_FAMILIES: &[&str] = &["mov", "ld", "ldu", "st", "st.async", "st.bulk", "atom", "red"];

/// Whether a vector register's element of type `element` may stand for an
/// operand of type `ty`: ptxas is laxer than for scalar registers (an
/// integer element may be moved or loaded as `.f32`), but a float element
/// must be of the type itself.
pub(super) fn vector_element_fits(element: ScalarType, ty: ScalarType, fit: Fit) -> bool {
    let sized = match fit {
        Fit::Exact => element.bits() == ty.bits(),
        Fit::AtLeast => element.bits() >= ty.bits(),
    };
    sized && (!element.is_float() || element == ty)
}

/// The `.vN` width of an instruction, if any.
pub(super) fn vector_width(inst: &Instruction) -> Option<u32> {
    inst.modifiers.iter().find_map(|m| if let ModifierKind::Vector(n) = m.kind { Some(n) } else { None })
}

/// The element a vector selector names: `x`/`r` is 0 ... `w`/`a` is 3.
pub fn vector_selector(component: &str) -> Option<u32> {
    match component {
        "x" | "r" => Some(0),
        "y" | "g" => Some(1),
        "z" | "b" => Some(2),
        "w" | "a" => Some(3),
        _ => None,
    }
}

/// The type operand `index` (a `d` or `s` operand) must have: the
/// instruction's one type, doubled for `.wide`'s result and `mad.wide`'s
/// addend; `None` when the instruction has several types.
pub(super) fn operand_type(inst: &Instruction, index: usize) -> Option<ScalarType> {
    let mut types = inst.types();
    let (Some(ty), None) = (types.next(), types.next()) else { return None };
    let wide_operand = index == 0 || (index == 3 && inst.opcode.name == "mad");
    if !(inst.has("wide") && wide_operand) {
        return Some(ty);
    }
    match ty {
        ScalarType::U16 => Some(ScalarType::U32),
        ScalarType::S16 => Some(ScalarType::S32),
        ScalarType::U32 => Some(ScalarType::U64),
        ScalarType::S32 => Some(ScalarType::S64),
        _ => None,
    }
}

/// The instruction's name in ptxas's messages: `mul.lo`, `mad.wide`,
/// `cvta.to` carry the modifier that selects their form.
pub(super) fn display_name(inst: &Instruction) -> std::borrow::Cow<'_, str> {
    let op = inst.opcode.name.as_str();
    let forms: &[&str] = match op {
        "mul" | "mad" | "mul24" | "mad24" => &["lo", "hi", "wide"],
        "cvta" => &["to"],
        _ => &[],
    };
    match forms.iter().find(|form| inst.has(form)) {
        Some(form) => format!("{op}.{form}").into(),
        None => op.into(),
    }
}

/// `.f33`, `.u31`, `.v3`: shaped like a type or vector width but not one.
fn looks_like_bad_type(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('b' | 'u' | 's' | 'f' | 'v'))
        && name.len() > 1
        && chars.all(|c| c.is_ascii_digit())
        && matches!(ModifierKind::classify(name), ModifierKind::Word)
}
