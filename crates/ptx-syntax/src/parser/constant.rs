//! Constant expressions in instruction operands, evaluated while they are
//! parsed: C's operators and precedence over 64-bit integers and decimal
//! floats, `WARP_SZ`, parentheses, unary `+ - ~ !` and `?:`.
//!
//! An operator-precedence parser with explicit stacks, so that neither a
//! 100,000-term chain nor 10,000 nested parentheses recurse. ptxas's parser
//! (a Bison one) gives up with `memory exhausted` when its stack passes
//! 10,000 entries; `Parser::bison_base` and the `depth` here model that stack
//! (measured: each pending `(` costs 1 entry, a prefix operator 2, a value
//! and a pending binary operator 1 each; a statement at brace nesting `n`
//! starts at `9 + 6n`, an operand after `mov.u32 %r1,` 5 entries later).

use super::{PResult, Parser, Reported};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::token::TokenKind;

/// Bison's default stack limit, which ptxas keeps.
pub(super) const BISON_STACK: usize = 10_000;

/// The value of a constant expression.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    /// A 64-bit integer; `unsigned` as C's usual conversions make it.
    Int { bits: u64, unsigned: bool },
    /// A decimal float (PTX evaluates them in double precision).
    Float(f64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prefix {
    Plus,
    Neg,
    BitNot,
    Not,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Paren,
    Prefix(Prefix),
    Binary(BinaryOp, u8),
    /// `c ?` waiting for its `:`.
    Question,
    /// `c ? a :` waiting for the last operand.
    Colon,
}

impl Op {
    /// Entries of ptxas's parser stack the pending operator holds.
    fn cost(self) -> usize {
        match self {
            Op::Prefix(_) => 2,
            _ => 1,
        }
    }
}

/// What went wrong, in ptxas's words.
enum Failure {
    DivisionByZero,
    TypeMismatch,
    IntegerExpected,
}

impl Parser<'_> {
    /// Whether the current token starts a constant expression (rather than
    /// an operand naming a register or symbol).
    pub(super) fn at_constant(&self) -> bool {
        let token = self.tok();
        match token.kind {
            TokenKind::Int => true,
            TokenKind::Float => !is_hex_float(self.text()),
            TokenKind::Ident => self.text() == "WARP_SZ",
            TokenKind::Punct => match self.text() {
                "(" | "+" | "~" => true,
                // `-%r1` and `!%p` are negated operands, not constants.
                "-" | "!" => {
                    let next = self.peek();
                    next.kind != TokenKind::Ident || self.text_of(next) == "WARP_SZ"
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Parses and evaluates a constant expression; `base` is ptxas's stack
    /// depth where it starts.
    pub(super) fn constant(&mut self, base: usize) -> PResult<Expr> {
        let start = self.tok().span;
        let mut values: Vec<Value> = Vec::new();
        let mut ops: Vec<Op> = Vec::new();
        let mut depth = base;
        // The literal itself when no operator applies (`(1.0)` keeps its spelling).
        let mut lone: Option<ExprKind> = None;
        let mut applied = 0usize;
        loop {
            // An operand is expected, after any `(` and prefix operators.
            while self.at(TokenKind::Punct) {
                let (op, cost) = match self.text() {
                    "(" => (Op::Paren, 1),
                    "+" => (Op::Prefix(Prefix::Plus), 2),
                    "-" => (Op::Prefix(Prefix::Neg), 2),
                    "~" => (Op::Prefix(Prefix::BitNot), 2),
                    "!" => (Op::Prefix(Prefix::Not), 2),
                    _ => return Err(self.syntax_error()),
                };
                self.shift(&mut depth, cost)?;
                applied += usize::from(!matches!(op, Op::Paren));
                ops.push(op);
            }
            let token = self.tok();
            let after_prefix = matches!(ops.last(), Some(Op::Prefix(_)));
            let value = match token.kind {
                TokenKind::Int => {
                    let (bits, unsigned, overflow) = super::parse_int_checked(self.text_of(token));
                    if overflow {
                        self.diags.push(Diagnostic::error(token.span, "Constant overflow"));
                    }
                    lone.get_or_insert(ExprKind::Int { value: bits, unsigned });
                    Value::Int { bits, unsigned }
                }
                // ptxas takes `(0f3F800000)` but not `-0f3F800000`.
                TokenKind::Float if !(after_prefix && is_hex_float(self.text_of(token))) => {
                    let lit = super::expr::float_lit(self.text_of(token));
                    let value = match &lit {
                        FloatLit::F32(bits) => f64::from(f32::from_bits(*bits)),
                        FloatLit::F64(bits) => f64::from_bits(*bits),
                        FloatLit::Decimal(text) => text.parse().map_err(|_| self.syntax_error())?,
                    };
                    lone.get_or_insert(ExprKind::Float(lit));
                    Value::Float(value)
                }
                TokenKind::Ident if self.text_of(token) == "WARP_SZ" => Value::Int { bits: 32, unsigned: false },
                _ => return Err(self.syntax_error()),
            };
            self.shift(&mut depth, 1)?;
            values.push(value);
            // An operator, `)`, `?`, `:` or the end is expected.
            loop {
                let text = if self.at(TokenKind::Punct) { self.text() } else { "" };
                if let Some(&(op, _, strength)) = BinaryOp::TABLE.iter().find(|(_, sym, _)| *sym == text) {
                    self.reduce(&mut values, &mut ops, &mut depth, |op| match op {
                        Op::Prefix(_) => true,
                        Op::Binary(_, s) => s >= strength,
                        _ => false,
                    })?;
                    self.shift(&mut depth, 1)?;
                    applied += 1;
                    ops.push(Op::Binary(op, strength));
                    break;
                }
                match text {
                    ")" if ops.iter().any(|op| matches!(op, Op::Paren)) => {
                        self.shift(&mut depth, 1)?;
                        self.reduce(&mut values, &mut ops, &mut depth, |op| !matches!(op, Op::Paren))?;
                        ops.pop();
                        // The `(` and the `)`.
                        depth -= 2;
                    }
                    "?" => {
                        self.reduce(&mut values, &mut ops, &mut depth, |op| {
                            matches!(op, Op::Prefix(_) | Op::Binary(..))
                        })?;
                        self.shift(&mut depth, 1)?;
                        applied += 1;
                        ops.push(Op::Question);
                        break;
                    }
                    ":" if ops.iter().any(|op| matches!(op, Op::Question)) => {
                        self.reduce(&mut values, &mut ops, &mut depth, |op| !matches!(op, Op::Question | Op::Paren))?;
                        if !matches!(ops.last(), Some(Op::Question)) {
                            return Err(self.syntax_error());
                        }
                        self.shift(&mut depth, 1)?;
                        *ops.last_mut().expect("a question") = Op::Colon;
                        break;
                    }
                    _ => {
                        // The end: every parenthesis and `?` must be closed.
                        if ops.iter().any(|op| matches!(op, Op::Paren | Op::Question)) {
                            return Err(self.syntax_error());
                        }
                        self.reduce(&mut values, &mut ops, &mut depth, |_| true)?;
                        let span = self.span_from(start);
                        let value = values.pop().expect("one value");
                        let kind = match lone {
                            Some(kind) if applied == 0 => kind,
                            _ => literal(value),
                        };
                        return Ok(Expr { kind, span });
                    }
                }
            }
        }
    }

    /// Consumes a token worth `cost` stack entries, as ptxas's parser would.
    fn shift(&mut self, depth: &mut usize, cost: usize) -> PResult<()> {
        *depth += cost;
        if *depth > BISON_STACK {
            return Err(self.memory_exhausted());
        }
        self.bump();
        Ok(())
    }

    /// Applies pending operators while `take` says so.
    fn reduce(
        &mut self,
        values: &mut Vec<Value>,
        ops: &mut Vec<Op>,
        depth: &mut usize,
        take: impl Fn(Op) -> bool,
    ) -> PResult<()> {
        while let Some(&op) = ops.last().filter(|&&op| take(op)) {
            ops.pop();
            *depth -= op.cost();
            let result = match op {
                Op::Prefix(p) => {
                    let v = values.pop().expect("operand");
                    prefix(p, v)
                }
                Op::Binary(b, _) => {
                    let rhs = values.pop().expect("rhs");
                    let lhs = values.pop().expect("lhs");
                    *depth -= 1;
                    binary(b, lhs, rhs)
                }
                Op::Colon => {
                    let no = values.pop().expect("else");
                    let yes = values.pop().expect("then");
                    let cond = values.pop().expect("condition");
                    *depth -= 2;
                    match (cond, yes, no) {
                        (Value::Int { bits, .. }, Value::Int { .. }, Value::Int { .. }) => {
                            Ok(if bits != 0 { yes } else { no })
                        }
                        _ => Err(Failure::IntegerExpected),
                    }
                }
                Op::Paren | Op::Question => unreachable!("never taken"),
            };
            match result {
                Ok(v) => values.push(v),
                Err(failure) => {
                    let span = self.tok().span;
                    self.diags.push(match failure {
                        Failure::DivisionByZero => Diagnostic::fatal(span, "Constant expression has division by zero"),
                        Failure::TypeMismatch => Diagnostic::error(span, "Constant expression type mismatch"),
                        Failure::IntegerExpected => Diagnostic::error(span, "Integer constant expression expected"),
                    });
                    return Err(Reported);
                }
            }
        }
        Ok(())
    }
}

fn is_hex_float(text: &str) -> bool {
    matches!(text.as_bytes().get(1), Some(b'f' | b'F' | b'd' | b'D'))
}

/// The AST literal for a computed `value`.
fn literal(value: Value) -> ExprKind {
    match value {
        Value::Int { bits, unsigned } => ExprKind::Int { value: bits, unsigned },
        Value::Float(v) => ExprKind::Float(FloatLit::F64(v.to_bits())),
    }
}

fn prefix(op: Prefix, v: Value) -> Result<Value, Failure> {
    Ok(match (op, v) {
        (Prefix::Plus, v) => v,
        (Prefix::Neg, Value::Int { bits, unsigned }) => Value::Int { bits: bits.wrapping_neg(), unsigned },
        (Prefix::Neg, Value::Float(f)) => Value::Float(-f),
        (Prefix::BitNot, Value::Int { bits, unsigned }) => Value::Int { bits: !bits, unsigned },
        (Prefix::Not, Value::Int { bits, .. }) => Value::Int { bits: u64::from(bits == 0), unsigned: false },
        (Prefix::Not, Value::Float(f)) => Value::Int { bits: u64::from(f == 0.0), unsigned: false },
        (Prefix::BitNot, Value::Float(_)) => return Err(Failure::IntegerExpected),
    })
}

fn binary(op: BinaryOp, lhs: Value, rhs: Value) -> Result<Value, Failure> {
    use BinaryOp::*;
    let truth = |b: bool| Value::Int { bits: u64::from(b), unsigned: false };
    match (lhs, rhs) {
        (Value::Int { bits: a, unsigned: ua }, Value::Int { bits: b, unsigned: ub }) => {
            let unsigned = ua || ub;
            let int = |bits: u64| Value::Int { bits, unsigned };
            let (sa, sb) = (a as i64, b as i64);
            Ok(match op {
                LogOr => truth(a != 0 || b != 0),
                LogAnd => truth(a != 0 && b != 0),
                Or => int(a | b),
                Xor => int(a ^ b),
                And => int(a & b),
                Eq => truth(a == b),
                Ne => truth(a != b),
                Lt => truth(if unsigned { a < b } else { sa < sb }),
                Gt => truth(if unsigned { a > b } else { sa > sb }),
                Le => truth(if unsigned { a <= b } else { sa <= sb }),
                Ge => truth(if unsigned { a >= b } else { sa >= sb }),
                // The shift keeps the left operand's type; counts wrap as on x86.
                Shl => Value::Int { bits: a.wrapping_shl(b as u32), unsigned: ua },
                Shr if ua => Value::Int { bits: a.wrapping_shr(b as u32), unsigned: true },
                Shr => Value::Int { bits: sa.wrapping_shr(b as u32) as u64, unsigned: false },
                Add => int(a.wrapping_add(b)),
                Sub => int(a.wrapping_sub(b)),
                Mul => int(a.wrapping_mul(b)),
                Div | Rem if b == 0 => return Err(Failure::DivisionByZero),
                Div if unsigned => int(a / b),
                Div => int(sa.wrapping_div(sb) as u64),
                Rem if unsigned => int(a % b),
                Rem => int(sa.wrapping_rem(sb) as u64),
            })
        }
        (Value::Float(a), Value::Float(b)) => Ok(match op {
            Add => Value::Float(a + b),
            Sub => Value::Float(a - b),
            Mul => Value::Float(a * b),
            Div if b == 0.0 => return Err(Failure::DivisionByZero),
            Div => Value::Float(a / b),
            Eq => truth(a == b),
            Ne => truth(a != b),
            Lt => truth(a < b),
            Gt => truth(a > b),
            Le => truth(a <= b),
            Ge => truth(a >= b),
            LogOr => truth(a != 0.0 || b != 0.0),
            LogAnd => truth(a != 0.0 && b != 0.0),
            _ => return Err(Failure::IntegerExpected),
        }),
        _ => Err(Failure::TypeMismatch),
    }
}
