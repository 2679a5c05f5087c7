//! Comparisons and predicate combination (ISETP, FSETP, PLOP3).

/// A comparison as SASS names it (`.LT`, `.GEU`, ...).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// Never true (`.F`).
    False,
    Lt,
    Eq,
    Le,
    Gt,
    Ne,
    Ge,
    /// Both operands are numbers.
    Num,
    /// Either operand is NaN.
    Nan,
    Ltu,
    Equ,
    Leu,
    Gtu,
    Neu,
    Geu,
    /// Always true (`.T`).
    True,
}

impl Cmp {
    /// The comparison named by modifier `name`.
    pub fn from_name(name: &str) -> Option<Cmp> {
        Some(match name {
            "F" => Cmp::False,
            "LT" => Cmp::Lt,
            "EQ" => Cmp::Eq,
            "LE" => Cmp::Le,
            "GT" => Cmp::Gt,
            "NE" => Cmp::Ne,
            "GE" => Cmp::Ge,
            "NUM" => Cmp::Num,
            "NAN" => Cmp::Nan,
            "LTU" => Cmp::Ltu,
            "EQU" => Cmp::Equ,
            "LEU" => Cmp::Leu,
            "GTU" => Cmp::Gtu,
            "NEU" => Cmp::Neu,
            "GEU" => Cmp::Geu,
            "T" => Cmp::True,
            _ => return None,
        })
    }

    /// Applies the comparison to an ordering (`None` = unordered, NaN).
    pub fn test(self, ord: Option<std::cmp::Ordering>) -> bool {
        use std::cmp::Ordering::*;
        match (self, ord) {
            (Cmp::False, _) => false,
            (Cmp::True, _) => true,
            (Cmp::Num, o) => o.is_some(),
            (Cmp::Nan, o) => o.is_none(),
            (Cmp::Ltu | Cmp::Equ | Cmp::Leu | Cmp::Gtu | Cmp::Neu | Cmp::Geu, None) => true,
            (_, None) => false,
            (Cmp::Lt | Cmp::Ltu, Some(o)) => o == Less,
            (Cmp::Eq | Cmp::Equ, Some(o)) => o == Equal,
            (Cmp::Le | Cmp::Leu, Some(o)) => o != Greater,
            (Cmp::Gt | Cmp::Gtu, Some(o)) => o == Greater,
            (Cmp::Ne | Cmp::Neu, Some(o)) => o != Equal,
            (Cmp::Ge | Cmp::Geu, Some(o)) => o != Less,
        }
    }
}

/// How a comparison combines with the accumulated predicate (`.AND`, ...).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

impl BoolOp {
    /// The operation named by modifier `name`.
    pub fn from_name(name: &str) -> Option<BoolOp> {
        Some(match name {
            "AND" => BoolOp::And,
            "OR" => BoolOp::Or,
            "XOR" => BoolOp::Xor,
            _ => return None,
        })
    }

    /// `a op b`.
    pub fn apply(self, a: bool, b: bool) -> bool {
        match self {
            BoolOp::And => a && b,
            BoolOp::Or => a || b,
            BoolOp::Xor => a != b,
        }
    }
}

/// The two results of a `*SETP`: `cmp op acc` and `!cmp op acc`.
pub fn setp(cmp: bool, op: BoolOp, acc: bool) -> (bool, bool) {
    (op.apply(cmp, acc), op.apply(!cmp, acc))
}

/// Integer comparison of 32-bit values, or of 64-bit ones when `wide`
/// (sm_120's `ISETP.GE.U64`). With `.EX` (`low` = the predicate the low
/// words' comparison left), equal high words defer to the low words'
/// result, so a pair of ISETPs compares 64-bit values.
pub fn icmp(cmp: Cmp, a: u64, b: u64, signed: bool, wide: bool, low: Option<bool>) -> bool {
    let ord = match (signed, wide) {
        (true, false) => (a as i32).cmp(&(b as i32)),
        (false, false) => (a as u32).cmp(&(b as u32)),
        (true, true) => (a as i64).cmp(&(b as i64)),
        (false, true) => a.cmp(&b),
    };
    match low {
        None => cmp.test(Some(ord)),
        Some(lo) if ord == std::cmp::Ordering::Equal => match cmp {
            Cmp::Eq | Cmp::Le | Cmp::Ge => lo,
            Cmp::Ne | Cmp::Lt | Cmp::Gt => lo,
            other => other.test(Some(ord)),
        },
        Some(_) => cmp.test(Some(ord)),
    }
}
