//! Memory order of atomics, loads and stores: the strength NVIDIA gives
//! each scope on global and generic memory and the fences it puts around
//! acquire and release accesses (probes of every semantics and scope on
//! sm_80 and sm_90; `ld.acquire`/`st.release` get the fences of
//! `atom.acquire`/`atom.release`).

use ori_ir::Opcode;
use ptx_syntax::Span;
use ptx_syntax::ast::{Instruction, ModifierKind, StateSpace};

use crate::error::Lowered;
use crate::func::Lowerer;

/// A PTX scope: (name, needs clusters ([`ori_ir::Features::clusters`]),
/// SASS strength, `MEMBAR` scope).
type Scope = (&'static str, bool, &'static str, &'static str);

/// The scopes. A cluster's atomics are GPU-strong: NVIDIA's code on sm_90
/// is the GPU scope's, fences included.
const SCOPES: &[Scope] = &[
    ("cta", false, "SM", "CTA"),
    ("cluster", true, "GPU", "GPU"),
    ("gpu", false, "GPU", "GPU"),
    ("sys", false, "SYS", "SYS"),
];

/// What follows `MEMBAR.ALL` before a release atomic of GPU or system
/// scope, without and with clusters: the error barriers of a fence
/// (`CGAERRBAR` for the cluster's), without its cache invalidation.
const RELEASE_TAIL: [&[Opcode]; 2] = [&[Opcode::ERRBAR], &[Opcode::ERRBAR, Opcode::CGAERRBAR]];

/// The state spaces whose acquire atomics of GPU or system scope
/// invalidate the L1 cache, and whether only with clusters: global memory
/// always, shared memory on sm_90 (a cluster's shared memory is others'
/// too; NVIDIA's sm_80 code has a `NOP`).
const ACQUIRE_INVALIDATES: &[(StateSpace, bool)] = &[(StateSpace::Global, false), (StateSpace::Shared, true)];

/// The semantics and scope of an atomic (`.relaxed.gpu` when absent).
#[derive(Clone, Copy, Debug)]
pub(in crate::ops) struct Order {
    acquire: bool,
    release: bool,
    scope: &'static Scope,
}

/// Whether `word` is a semantics or scope modifier.
pub(in crate::ops) fn is_order_word(word: &str) -> bool {
    matches!(word, "relaxed" | "acquire" | "release" | "acq_rel") || scope(word).is_some()
}

/// The scope named `name`.
fn scope(name: &str) -> Option<&'static Scope> {
    SCOPES.iter().find(|s| s.0 == name)
}

impl Order {
    /// The order of `inst`, `None` for a scope the SM lacks or more than
    /// one semantics or scope.
    pub(in crate::ops) fn of(cx: &Lowerer<'_>, inst: &Instruction) -> Option<Order> {
        let mut sem = None;
        let mut scope = None;
        for m in inst.modifiers.iter().filter(|m| m.kind == ModifierKind::Word) {
            let w = m.name.as_str();
            if matches!(w, "relaxed" | "acquire" | "release" | "acq_rel") {
                if sem.replace(w).is_some() {
                    return None;
                }
            } else if let Some(s) = self::scope(w)
                && (scope.replace(s).is_some() || (s.1 && !cx.target.features.clusters))
            {
                return None;
            }
        }
        let sem = sem.unwrap_or("relaxed");
        Some(Order {
            acquire: matches!(sem, "acquire" | "acq_rel"),
            release: matches!(sem, "release" | "acq_rel"),
            scope: scope.or_else(|| self::scope("gpu"))?,
        })
    }

    /// The `STRONG` modifier's scope for the scope named `word`.
    pub(in crate::ops) fn strength_of(word: &str) -> Option<&'static str> {
        scope(word).map(|s| s.2)
    }

    /// The `STRONG` modifier's scope: `SM`, `GPU` or `SYS`.
    pub(in crate::ops) fn strength(self) -> &'static str {
        self.scope.2
    }

    /// Before a release atomic: `MEMBAR.ALL.{CTA,GPU,SYS}`, then for the
    /// wider scopes the SM's [`RELEASE_TAIL`].
    pub(in crate::ops) fn before(self, cx: &mut Lowerer<'_>, span: Span) -> Lowered {
        if !self.release {
            return Ok(());
        }
        let scope = self.scope.3;
        cx.emit(Opcode::MEMBAR, &["ALL", scope], vec![], vec![], span)?;
        if scope == "CTA" {
            return Ok(());
        }
        let tail = RELEASE_TAIL[usize::from(cx.target.features.clusters)];
        for &op in tail {
            cx.emit(op, &[], vec![], vec![], span)?;
        }
        Ok(())
    }

    /// After an acquire atomic of GPU or system scope: `CCTL.IVALL`
    /// (later loads miss the L1 cache, so they see other SMs' stores), on
    /// shared memory from sm_90 on ([`ACQUIRE_INVALIDATES`]). Elsewhere
    /// NVIDIA leaves a `NOP` (CTA scope: the SM's own stores are in its L1
    /// already); a `NOP` without a control word is removed before
    /// scheduling, so none is emitted.
    pub(in crate::ops) fn after(self, cx: &mut Lowerer<'_>, space: StateSpace, span: Span) -> Lowered {
        let clusters = cx.target.features.clusters;
        let invalidates = ACQUIRE_INVALIDATES.iter().any(|&(s, needs)| s == space && (clusters || !needs));
        if !self.acquire || self.scope.3 == "CTA" || !invalidates {
            return Ok(());
        }
        cx.emit(Opcode::CCTL, &["IVALL"], vec![], vec![], span)
    }
}
