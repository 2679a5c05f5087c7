//! Calls through the ABI, and generic pointers to local memory
//! (`cvta.local`, `cvta.to.local`), the addresses calls pass to stack
//! buffers.
//!
//! **Calls** of functions compiled out of line (recursive or address-taken
//! ones, `callgraph.rs`) follow NVIDIA's ABI (seed-digest-A §12, checked on
//! NVIDIA's recursion and device_calls code): arguments in `R4..R15`,
//! each at the lowest free register aligned to its size (a pair on an even
//! register; a later 32-bit argument fills a hole), the rest on the stack
//! at the bottom of the caller's frame (`abi_places`), results likewise
//! from `R4`; the return address in `R20` (`R21` = 0), set just before
//! `CALL.REL.NOINC` (its value, the byte offset after the call in the
//! kernel's code, is known once the code is placed: `OriResolveCallAddresses`);
//! an indirect call is `CALL.REL.NOINC fp.lo, kernel` (the pointer is an
//! offset from the kernel's start; where addresses are numbers,
//! `fn_table.rs`, the offset is read from bank 2 at the pointer first). The callee copies its arguments and the
//! return address into virtual registers at its entry and returns with
//! `RET.REL.NODEC R20, kernel`. What a call may change is the ABI's
//! (`ori_ir::abi`); saving the
//! callee-saved registers a function writes is `OriSaveCalleeRegisters`'.
//!
//! Generic local addresses are the thread's local address plus the base of
//! the local window, the 64-bit value the driver puts in `c[0x0][0x20]`
//! (NVIDIA's sequences, recursion and printf_kernel on sm_80/sm_90):
//! `IADD3 d.lo, P, s.lo, base.lo, RZ` + `IMAD.X d.hi, RZ, RZ, base.hi, P`
//! one way, `IADD3 d, s.lo, -base.lo, RZ` (the low word is the local
//! address) the other. sm_90 reads the bank through a uniform register.

use ori_ir::abi::CUDA as ABI;
use ori_ir::{Bank, CBank, Opcode, Operand, OperandKind, Reg, RegFile};
use ptx_syntax::Span;
use ptx_syntax::ast::{DeclType, ExprKind, Instruction, ScalarType, StateSpace, VarDecl};

use crate::error::{Lowered, Pending, at};
use crate::func::Lowerer;

/// First register of arguments and results.
const FIRST_ARG: u32 = ABI.first_arg;
/// How many argument words travel in registers.
const ARG_WORDS: usize = ABI.arg_words as usize;
/// The return address register (`R21`, its high word, is 0).
pub(crate) const RETURN_ADDRESS: Reg = ABI.return_address;

/// Where an argument travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// In ABI registers.
    Reg(Reg),
    /// On the stack: at `[R1 + offset]` of the caller's stack pointer (the
    /// bottom of its frame), `[R1 + frame + offset]` in the callee.
    Stack(u32),
}

/// The places of values of `shapes`, in order (NVIDIA's code, sm_90
/// probes `tests/ptx/calls_stack_args.ptx` and aggregates of 8 to 40
/// bytes): each at the lowest free run of registers of `R4..R15` aligned
/// to its alignment (a pair or an 8-byte aggregate on an even register, a
/// 16-byte aligned one on a multiple of four; a later 32-bit value fills
/// a hole: 11 words, a 64-bit value, a 32-bit one -> R4..R14, the stack,
/// R15), else on the stack at the next offset aligned to it.
pub(crate) fn abi_places(shapes: &[Shape]) -> Vec<Place> {
    let mut used = [false; ARG_WORDS];
    let mut stack = 0u32;
    shapes
        .iter()
        .map(|s| {
            let (w, align) = (usize::from(s.words.max(1)), usize::from(s.align.max(1)));
            match (0..ARG_WORDS).step_by(align).find(|&i| i + w <= ARG_WORDS && used[i..i + w].iter().all(|u| !u)) {
                Some(at) => {
                    used[at..at + w].fill(true);
                    Place::Reg(Reg::phys(RegFile::R, FIRST_ARG + at as u32))
                }
                None => {
                    let at = stack.next_multiple_of(4 * align as u32);
                    stack = at + 4 * w as u32;
                    Place::Stack(at)
                }
            }
        })
        .collect()
}

/// Bytes of stack the places take.
fn stack_bytes(places: &[Place], shapes: &[Shape]) -> u32 {
    let end = |(p, s): (&Place, &Shape)| match p {
        Place::Stack(at) => at + 4 * u32::from(s.words.max(1)),
        Place::Reg(_) => 0,
    };
    places.iter().zip(shapes).map(end).max().unwrap_or(0)
}

/// The first ABI register of each value of `shapes` (results), `None`
/// when some would go on the stack.
pub(crate) fn abi_regs(shapes: &[Shape]) -> Option<Vec<Reg>> {
    abi_places(shapes)
        .into_iter()
        .map(|p| match p {
            Place::Reg(r) => Some(r),
            Place::Stack(_) => None,
        })
        .collect()
}

/// The stack bytes the direct calls in `statements` pass (the outgoing
/// area at the bottom of the caller's frame, below its locals), given the
/// module's device functions.
pub(crate) fn outgoing_bytes(
    statements: &[ptx_syntax::ast::Statement],
    callees: &std::collections::HashMap<&str, &ptx_syntax::ast::Function>,
) -> u32 {
    let mut bytes = 0;
    crate::callgraph::walk(statements, &mut |inst| {
        if inst.opcode.name.as_str() != "call" {
            return;
        }
        let target = crate::callgraph::call_target(inst).and_then(|i| inst.operands.get(i));
        let Some(ExprKind::Name(name, None)) = target.map(|t| &t.kind) else { return };
        let Some(f) = callees.get(name.name.as_str()) else { return };
        let Ok(params) = param_words(f.params.iter().flatten()) else { return };
        let shapes: Vec<Shape> = params.iter().map(|p| p.shape).collect();
        bytes = bytes.max(stack_bytes(&abi_places(&shapes), &shapes));
    });
    bytes
}

/// `[R1 + offset]`.
fn stack_slot(offset: i64) -> Operand {
    let sp = Reg::phys(RegFile::R, 1);
    OperandKind::Mem(ori_ir::Address { base: Some(sp), offset, ..ori_ir::Address::default() }).into()
}

/// The `LDL`/`STL` size modifier of a value `width` words wide.
fn local_size(width: u8) -> &'static [&'static str] {
    if width == 2 { &["64"] } else { &[] }
}

/// How a value crosses a call: its size and alignment in 32-bit words,
/// and whether it is a `.param` array (an aggregate by value, kept as one
/// slot per word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub words: u8,
    pub align: u8,
    pub aggregate: bool,
}

impl Shape {
    /// The shape of declaration `d`'s variables.
    pub fn of(d: &VarDecl) -> Result<Shape, Pending> {
        let unsupported = || at(d.span, "lowering of this parameter is not supported yet");
        let DeclType::Scalar(ty) = d.ty else { return Err(unsupported()) };
        if d.vector().is_some() {
            return Err(unsupported());
        }
        if d.names.iter().any(|n| !n.dims.is_empty()) {
            // Aggregates of whole words (measured: 8 to 24 bytes aligned to
            // 4, 8 and 16 travel in registers word by word).
            let [n] = d.names.as_slice() else { return Err(unsupported()) };
            let bytes = n.dims.iter().try_fold(u64::from(ty.bits() / 8), |acc, &k| acc.checked_mul(k?));
            let align = d.align().unwrap_or(u64::from(ty.bits() / 8));
            return match bytes {
                Some(b @ 4..=1020) if b % 4 == 0 && matches!(align, 4 | 8 | 16) => {
                    Ok(Shape { words: (b / 4) as u8, align: (align / 4) as u8, aggregate: true })
                }
                _ => {
                    Err(at(d.span, "lowering of an aggregate argument of this size or alignment is not supported yet"))
                }
            };
        }
        match ty.bits() {
            1..=32 => Ok(Shape { words: 1, align: 1, aggregate: false }),
            64 => Ok(Shape { words: 2, align: 2, aggregate: false }),
            _ => Err(unsupported()),
        }
    }
}

/// A parameter or result of a function: a `.param` variable (storage made
/// at its first use, `Lowerer::param_slot`) or a `.reg` register.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Formal<'a> {
    pub name: &'a str,
    pub shape: Shape,
    /// Declared `.reg`: the value lives in the register of that name.
    pub in_reg: bool,
}

/// The formals of parameter or result declarations.
pub(crate) fn param_words<'a>(decls: impl IntoIterator<Item = &'a VarDecl>) -> Result<Vec<Formal<'a>>, Pending> {
    let mut out = Vec::new();
    for d in decls {
        let shape = Shape::of(d)?;
        let in_reg = d.space == StateSpace::Reg;
        if in_reg && matches!(d.ty, DeclType::Scalar(ty) if ty.bits() < 32) {
            // NVIDIA's ptxas refuses most of these whenever the ABI is on.
            return Err(at(d.span, "lowering of a predicate, 8-bit or 16-bit register parameter is not supported"));
        }
        out.extend(d.names.iter().map(|n| Formal { name: n.name.name.as_str(), shape, in_reg }));
    }
    Ok(out)
}

/// The registers of a value crossing a call, in order: a register, a
/// `.param` scalar's slot, or an aggregate's word slots. `write`: the
/// slots are about to be written (else read, a word of a wider slot
/// counting).
pub(crate) fn pieces(cx: &mut Lowerer<'_>, f: &Formal<'_>, write: bool, span: Span) -> Lowered<Vec<Reg>> {
    if f.in_reg {
        return Ok(vec![cx.reg(f.name, span)?]);
    }
    let slot = |cx: &mut Lowerer<'_>, offset: i64, width: u8| {
        let slot = if write {
            cx.param_slot(f.name, offset, width, span)?
        } else {
            cx.param_slot_read(f.name, offset, width, span)?
        };
        slot.ok_or_else(|| at(span, "internal: parameter without storage"))
    };
    if !f.shape.aggregate {
        return Ok(vec![slot(cx, 0, f.shape.words)?]);
    }
    (0..f.shape.words).map(|w| slot(cx, 4 * i64::from(w), 1)).collect()
}

/// `dst = src` word by word (`dst` or `src` may be physical ABI registers).
pub(crate) fn move_words(cx: &mut Lowerer<'_>, dst: Reg, src: Reg, span: Span) -> Lowered {
    // Word `w` of a register: a part of a virtual tuple, or the next
    // physical register.
    let word = |r: Reg, w: u8| match (r.width, r.is_virtual) {
        (1, _) => r,
        (_, true) => r.part(w, 1),
        (_, false) => Reg::phys(r.file, r.num + u32::from(w)),
    };
    for w in 0..dst.width {
        let (d, s) = (word(dst, w), word(src, w));
        let def = if w == 0 && dst.width > 1 && dst.is_virtual { Operand::reg(d).undef() } else { Operand::reg(d) };
        cx.emit(Opcode::MOV, &[], vec![def], vec![Operand::reg(s)], span)?;
    }
    Ok(())
}

/// What a call calls.
pub(crate) enum Callee<'a> {
    /// A function compiled out of line, by name.
    Direct(&'a str),
    /// The function whose address (offset in the kernel's code) is in the
    /// low word of this register.
    Pointer(Reg),
    /// A function outside the module (`vprintf`), its 64-bit address at
    /// this offset of constant bank 4.
    External(u32),
}

/// A value crossing a call: its registers in the caller or callee
/// ([`pieces`]) and its shape.
pub(crate) struct Passed {
    pub pieces: Vec<Reg>,
    pub shape: Shape,
}

/// Moves each piece of `value` to or from (`into_abi`) the ABI registers
/// from `first` on.
fn move_pieces(cx: &mut Lowerer<'_>, value: &Passed, first: Reg, into_abi: bool, span: Span) -> Lowered {
    let mut at = first.num;
    for &piece in &value.pieces {
        let abi = Reg::phys(RegFile::R, at).wide(piece.width);
        let (dst, src) = if into_abi { (abi, piece) } else { (piece, abi) };
        move_words(cx, dst, src, span)?;
        at += u32::from(piece.width);
    }
    Ok(())
}

/// Stores (`store`) or loads the pieces of `value` at `[R1 + offset]` on.
fn stack_pieces(cx: &mut Lowerer<'_>, value: &Passed, offset: i64, store: bool, span: Span) -> Lowered {
    let mut at = offset;
    for &piece in &value.pieces {
        if store {
            let uses = vec![stack_slot(at), Operand::reg(piece)];
            cx.emit(Opcode::STL, local_size(piece.width), vec![], uses, span)?;
        } else {
            cx.emit(Opcode::LDL, local_size(piece.width), vec![Operand::reg(piece)], vec![stack_slot(at)], span)?;
        }
        at += 4 * i64::from(piece.width);
    }
    Ok(())
}

/// `call (rets), f, (args)` of an out-of-line function or through a
/// pointer: the arguments into the ABI registers, the return address, the
/// call, the results out of the ABI registers. `args` and `rets` are the
/// caller's registers for them (`.param` storage or PTX registers).
pub(crate) fn call(cx: &mut Lowerer<'_>, callee: Callee<'_>, args: &[Passed], rets: &[Passed], span: Span) -> Lowered {
    if cx.guard.is_some() {
        return Err(at(span, "lowering of a guarded call is not supported yet"));
    }
    let shapes: Vec<Shape> = args.iter().map(|a| a.shape).collect();
    let places = abi_places(&shapes);
    if stack_bytes(&places, &shapes) > cx.outgoing {
        // Only direct calls of the module's functions were counted.
        return Err(at(
            span,
            "lowering of an indirect or external call with arguments on the stack is not supported yet",
        ));
    }
    let too_many = || at(span, "lowering of a call with results on the stack is not supported yet");
    let ret_regs = abi_regs(&rets.iter().map(|r| r.shape).collect::<Vec<_>>()).ok_or_else(too_many)?;
    for (arg, place) in args.iter().zip(&places) {
        match *place {
            Place::Reg(abi) => move_pieces(cx, arg, abi, true, span)?,
            Place::Stack(offset) => stack_pieces(cx, arg, offset.into(), true, span)?,
        }
    }
    if let Callee::External(slot) = callee {
        external_call(cx, slot, span)?;
    } else {
        // The return address: a placeholder until the code is placed.
        cx.emit(Opcode::MOV, &[], vec![RETURN_ADDRESS.into()], vec![Operand::int(0)], span)?;
        cx.emit(Opcode::MOV, &[], vec![Reg::phys(RegFile::R, 21).into()], vec![Operand::int(0)], span)?;
    }
    match callee {
        Callee::External(_) => {}
        Callee::Direct(name) => {
            let target = OperandKind::Symbol(name.to_string()).into();
            cx.emit(Opcode::CALL, &["REL", "NOINC"], vec![], vec![target], span)?;
        }
        Callee::Pointer(fp) => {
            let mut lo = if fp.width == 2 { fp.part(0, 1) } else { fp };
            if cx.globals.function_table().numbered() {
                // The pointer is a function's number: its code offset in
                // this kernel is in bank 2 (fn_table.rs).
                let code = cx.temp(RegFile::R, 2);
                let entry = OperandKind::CBank(CBank { bank: Bank::Fixed(2), reg: Some(lo), offset: 0 }).into();
                cx.emit(Opcode::LDC, &["64"], vec![code.into()], vec![entry], span)?;
                lo = code.part(0, 1);
            }
            let start = cx.entry_block();
            cx.emit(Opcode::CALL, &["REL", "NOINC"], vec![], vec![Operand::reg(lo), Operand::label(start)], span)?;
        }
    }
    for (ret, &abi) in rets.iter().zip(&ret_regs) {
        move_pieces(cx, ret, abi, false, span)?;
    }
    cx.after_call();
    Ok(())
}

/// A call of a function outside the module: its address from constant
/// bank 4, the absolute return address in `R20:R21`, `CALL.ABS.NOINC`.
/// sm_90 (NVIDIA's printf_kernel): `LDC.64`, `LEPC R20, ret`, the code
/// after the call starting a new block (`ret`). sm_80 has no `LEPC` with a
/// target: the address comes from `MOV`s, and `R20:R21` is `LEPC`'s own
/// address plus the distance to the return point (`IADD3 R20, P, pc.lo,
/// distance, RZ` + `IADD3.X`; `OriResolveCallAddresses` writes the
/// distance). NVIDIA's sm_80 code computes the same sum from two offsets.
fn external_call(cx: &mut Lowerer<'_>, slot: u32, span: Span) -> Lowered {
    let slot = i32::try_from(slot).map_err(|_| at(span, "constant bank 4 slot out of range"))?;
    let fp = cx.temp(RegFile::R, 2);
    if cx.target.isa.lepc_label {
        cx.emit(Opcode::LDC, &["64"], vec![fp.into()], vec![Operand::cbank(4, slot)], span)?;
        let ret = cx.func.add_block();
        cx.emit(Opcode::LEPC, &[], vec![RETURN_ADDRESS.wide(2).into()], vec![Operand::label(ret)], span)?;
        cx.emit(Opcode::CALL, &["ABS", "NOINC"], vec![], vec![fp.into()], span)?;
        cx.place_block(ret);
        return Ok(());
    }
    cx.emit(Opcode::MOV, &[], vec![Operand::reg(fp.part(0, 1)).undef()], vec![Operand::cbank(4, slot)], span)?;
    cx.emit(Opcode::MOV, &[], vec![Operand::reg(fp.part(1, 1))], vec![Operand::cbank(4, slot + 4)], span)?;
    let pc = cx.temp(RegFile::R, 2);
    cx.emit(Opcode::LEPC, &[], vec![pc.into()], vec![], span)?;
    let carry = cx.temp(RegFile::P, 1);
    let rz = || Operand::reg(Reg::RZ);
    let lo = vec![Operand::reg(pc.part(0, 1)), Operand::int(0), rz()];
    cx.emit(Opcode::IADD3, &[], vec![RETURN_ADDRESS.into(), carry.into()], lo, span)?;
    let hi = vec![Operand::reg(pc.part(1, 1)), rz(), rz(), carry.into(), Operand::reg(Reg::PT).inverted()];
    cx.emit(Opcode::IADD3, &["X"], vec![Reg::phys(RegFile::R, 21).into()], hi, span)?;
    cx.emit(Opcode::CALL, &["ABS", "NOINC"], vec![], vec![fp.into()], span)
}

/// The entry of an out-of-line function: its parameters out of the ABI
/// registers into their `.param` storage, and, when it makes calls of its
/// own (`calls`), the return address into a virtual register kept across
/// them. Returns where the return address is (`R20` in a leaf).
pub(crate) fn prologue(cx: &mut Lowerer<'_>, params: &[Formal<'_>], calls: bool, span: Span) -> Lowered<Reg> {
    let shapes: Vec<Shape> = params.iter().map(|p| p.shape).collect();
    for (param, place) in params.iter().zip(abi_places(&shapes)) {
        let value = Passed { pieces: pieces(cx, param, true, span)?, shape: param.shape };
        match place {
            Place::Reg(abi) => move_pieces(cx, &value, abi, false, span)?,
            // Above the frame this function will make (OriSetupStackFrame).
            Place::Stack(offset) => {
                stack_pieces(cx, &value, ori_ir::INCOMING_ARGS + i64::from(offset), false, span)?;
            }
        }
    }
    if !calls {
        return Ok(RETURN_ADDRESS);
    }
    let ra = cx.temp(RegFile::R, 1);
    cx.emit(Opcode::MOV, &[], vec![ra.into()], vec![RETURN_ADDRESS.into()], span)?;
    Ok(ra)
}

/// `ret` of an out-of-line function: the results into the ABI registers,
/// the return address back into `R20`, `RET.REL.NODEC R20, kernel`.
pub(crate) fn ret(cx: &mut Lowerer<'_>, rets: &[Formal<'_>], ra: Reg, span: Span) -> Lowered {
    if cx.guard.is_some() {
        return Err(at(span, "lowering of a guarded ret is not supported yet"));
    }
    let shapes: Vec<Shape> = rets.iter().map(|r| r.shape).collect();
    let regs = abi_regs(&shapes).ok_or_else(|| at(span, "lowering of results on the stack is not supported yet"))?;
    for (result, abi) in rets.iter().zip(regs) {
        let value = Passed { pieces: pieces(cx, result, false, span)?, shape: result.shape };
        move_pieces(cx, &value, abi, true, span)?;
    }
    if ra != RETURN_ADDRESS {
        cx.emit(Opcode::MOV, &[], vec![RETURN_ADDRESS.into()], vec![ra.into()], span)?;
    }
    let start = cx.entry_block();
    cx.emit(Opcode::RET, &["REL", "NODEC"], vec![], vec![RETURN_ADDRESS.into(), Operand::label(start)], span)?;
    cx.end_block();
    Ok(())
}

/// `ld.param.{u8,u16,s8,s16} d, [p]` of a call-sequence `.param` (stored
/// whole): its low bits, zero-extended into `d` (`LOP3.LUT` with the mask)
/// or sign-extended (`SGXT`); a 64-bit `d` gets the high word to match.
pub(crate) fn narrow_slot(cx: &mut Lowerer<'_>, inst: &Instruction, ty: ScalarType, d: Reg, slot: Reg) -> Lowered {
    let signed = matches!(ty, ScalarType::S8 | ScalarType::S16);
    let low = if slot.width == 1 { slot } else { slot.part(0, 1) };
    let rz = || Operand::reg(Reg::RZ);
    let (op, mods, uses): (Opcode, &[&str], _) = if signed {
        (Opcode::SGXT, &[], vec![Operand::reg(low), Operand::int(i64::from(ty.bits()))])
    } else {
        let mask = (1i64 << ty.bits()) - 1;
        let uses =
            vec![Operand::reg(low), Operand::int(mask), rz(), Operand::int(0xc0), Operand::reg(Reg::PT).inverted()];
        (Opcode::LOP3, &["LUT"], uses)
    };
    if d.width == 1 {
        return cx.emit(op, mods, vec![d.into()], uses, inst.span);
    }
    let lo = d.part(0, 1);
    cx.emit(op, mods, vec![Operand::reg(lo).undef()], uses, inst.span)?;
    if signed {
        let uses = vec![rz(), Operand::int(0x1f), Operand::reg(lo)];
        return cx.emit(Opcode::SHF, &["R", "S32", "HI"], vec![Operand::reg(d.part(1, 1))], uses, inst.span);
    }
    cx.emit(Opcode::MOV, &[], vec![Operand::reg(d.part(1, 1))], vec![rz()], inst.span)
}

/// `mov.u64 d, f` of a function compiled out of line: its address, its
/// number (fn_table.rs) or the offset of its code in the kernel's (`MOV
/// d.lo, f`, resolved once the code is placed); the high word is 0.
pub(crate) fn function_address(cx: &mut Lowerer<'_>, name: &str, d: Reg, span: Span) -> Lowered {
    if d.width != 2 {
        return Err(at(span, "lowering of a function address into a 32-bit register is not supported yet"));
    }
    let sym = match cx.globals.function_table().address(name) {
        Some(number) => Operand::int(number as i64),
        None => OperandKind::Symbol(name.to_string()).into(),
    };
    cx.emit(Opcode::MOV, &[], vec![Operand::reg(d.part(0, 1)).undef()], vec![sym], span)?;
    cx.emit(Opcode::MOV, &[], vec![Operand::reg(d.part(1, 1))], vec![Operand::reg(Reg::RZ)], span)
}
