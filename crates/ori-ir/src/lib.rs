//! Ori: the one IR of the compiler.
//!
//! Every phase reads and writes Ori; the crates of the pipeline never call
//! each other, they meet here. A [`Module`] holds [`Function`]s; a function
//! holds blocks and instructions in typed arenas, with the block layout as
//! a separate list. Instructions already use SASS opcodes ([`Opcode`]) and
//! registers of the SASS register files ([`RegFile`]), virtual until
//! register allocation. The module records which [`Property`]s the pipeline
//! has established so far, and [`verify`] checks the invariants behind
//! them. [`text`] gives the printable, parsable form used by IR dumps and
//! single-phase tests; [`phase`] defines what a phase is.

pub mod abi;
pub mod builder;
pub mod facts;
pub mod function;
pub mod fxhash;
pub mod inst;
pub mod module;
pub mod object;
pub mod opcode;
pub mod operand;
pub mod phase;
pub mod props;
pub mod reg;
pub mod target;
pub mod text;
pub mod verify;

pub use builder::Builder;
pub use facts::{
    CallTarget, ClusterBank, Family, Features, Fp8Mma, HalfConvert, ImmAdd, Isa, LaunchBank, Target, WarpSlots,
};
pub use facts::SmemSizeBank;
pub use facts::ParamWindow;
pub use function::{
    Block, BlockId, Function, FunctionAttrs, FunctionKind, INCOMING_ARGS, InstId, ParamSlot, Pointee, PointeeSpace,
    Subroutine,
};
pub use fxhash::{FxHashMap, FxHashSet, FxHasher};
pub use inst::{Ctrl, Guard, Inst, SrcLoc};
pub use module::{
    CodeLabel, DebugInfo, DwarfRef, DwarfSection, LocDirective, Module, PointerInit, SourceFile, SourcePos, VarSpace,
    Variable,
};
pub use opcode::{Latency, Modifier, OpFlags, OpInfo, Opcode};
pub use operand::{Address, Bank, CBank, Halves, Imm, Layout, Operand, OperandFlags, OperandKind, Scale};
pub use phase::{Forms, Knob, KnobValue, Knobs, NoForms, Phase, PhaseContext, PhaseError};
pub use props::{Property, PropertySet};
pub use reg::{Reg, RegFile, SpecialReg};
pub use target::{Sm, Variant};
pub use verify::{VerifyError, undefined_reads, verify_function, verify_module};
