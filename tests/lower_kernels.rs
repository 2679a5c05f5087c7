//! Hand-written PTX kernels for the lowering tests (`lower.rs` encodes and
//! disassembles them, `lower_semantics.rs` runs them): forms of the bit,
//! division, conversion and half-precision families that the corpus
//! kernels do not all reach. Each takes the SM to target.

/// `divs`: div/rem on s32 and u32 (registers, immediates, a guarded one).
pub fn integer_division(sm: u32) -> String {
    format!(
        ".version 8.0\n.target sm_{sm}\n.address_size 64\n\
         .visible .entry divs(.param .u64 pa, .param .u64 pb, .param .u64 po, .param .u32 n)\n{{\n\
         .reg .pred %p<3>; .reg .b32 %r<20>; .reg .b64 %rd<10>;\n\
         ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [po]; ld.param.u32 %r1, [n];\n\
         mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mad.lo.s32 %r5, %r3, %r4, %r2;\n\
         setp.ge.s32 %p1, %r5, %r1; @%p1 bra $L_end;\n\
         cvta.to.global.u64 %rd4, %rd1; cvta.to.global.u64 %rd5, %rd2; cvta.to.global.u64 %rd6, %rd3;\n\
         mul.wide.s32 %rd7, %r5, 4; add.s64 %rd8, %rd4, %rd7; ld.global.u32 %r6, [%rd8];\n\
         add.s64 %rd8, %rd5, %rd7; ld.global.u32 %r7, [%rd8];\n\
         mul.wide.s32 %rd7, %r5, 32; add.s64 %rd9, %rd6, %rd7;\n\
         div.s32 %r8, %r6, %r7; st.global.u32 [%rd9], %r8;\n\
         rem.s32 %r9, %r6, %r7; st.global.u32 [%rd9+4], %r9;\n\
         div.u32 %r10, %r6, %r7; st.global.u32 [%rd9+8], %r10;\n\
         rem.u32 %r11, %r6, %r7; st.global.u32 [%rd9+12], %r11;\n\
         div.s32 %r12, %r6, 7; st.global.u32 [%rd9+16], %r12;\n\
         rem.u32 %r13, %r6, 10; st.global.u32 [%rd9+20], %r13;\n\
         mov.u32 %r14, 5; setp.lt.s32 %p2, %r6, 0; @%p2 rem.s32 %r14, %r14, %r7; st.global.u32 [%rd9+24], %r14;\n\
         div.u32 %r6, -1000, %r6; st.global.u32 [%rd9+28], %r6;\n\
         $L_end:\nret;\n}}\n"
    )
}

/// `fields`: bfi/bfe with constant fields, bfind, bfi.b64, brev.b64, sad,
/// prmt, clamped funnel shifts, a guarded clz.b64, mul.hi.u32.
pub fn bit_fields(sm: u32) -> String {
    format!(
        ".version 8.0\n.target sm_{sm}\n.address_size 64\n\
         .visible .entry fields(.param .u64 pa, .param .u64 po, .param .u32 n)\n{{\n\
         .reg .pred %p<3>; .reg .b32 %r<40>; .reg .b64 %rd<12>;\n\
         ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [po]; ld.param.u32 %r1, [n];\n\
         mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mad.lo.s32 %r5, %r3, %r4, %r2;\n\
         setp.ge.s32 %p1, %r5, %r1; @%p1 bra $L_end;\n\
         cvta.to.global.u64 %rd3, %rd1; cvta.to.global.u64 %rd4, %rd2;\n\
         mul.wide.s32 %rd5, %r5, 8; add.s64 %rd6, %rd3, %rd5; ld.global.u32 %r6, [%rd6]; ld.global.u32 %r7, [%rd6+4];\n\
         mul.wide.s32 %rd5, %r5, 64; add.s64 %rd7, %rd4, %rd5;\n\
         bfi.b32 %r8, %r6, %r7, 2, 30; st.global.u32 [%rd7], %r8;\n\
         bfi.b32 %r9, %r6, %r7, 1, 1; st.global.u32 [%rd7+4], %r9;\n\
         bfi.b32 %r10, %r6, %r7, 8, 40; st.global.u32 [%rd7+8], %r10;\n\
         bfe.u32 %r11, %r6, 3, 5; st.global.u32 [%rd7+12], %r11;\n\
         bfe.s32 %r12, %r6, 20, 12; st.global.u32 [%rd7+16], %r12;\n\
         bfind.u32 %r13, %r6; st.global.u32 [%rd7+20], %r13;\n\
         ld.global.u64 %rd8, [%rd6]; bfi.b64 %rd9, %rd8, %rd8, 32, 32; brev.b64 %rd10, %rd9;\n\
         st.global.u32 [%rd7+24], %rd10; shr.b32 %r14, %r6, 0; st.global.u32 [%rd7+28], %r14;\n\
         mov.u32 %r15, 100; sad.u32 %r16, %r6, %r7, %r7; st.global.u32 [%rd7+32], %r16;\n\
         mov.u32 %r17, 0x3210; prmt.b32 %r18, %r7, %r6, %r17; st.global.u32 [%rd7+36], %r18;\n\
         shf.r.clamp.b32 %r19, %r6, %r7, 40; st.global.u32 [%rd7+40], %r19;\n\
         shf.l.clamp.b32 %r20, %r6, %r7, 7; st.global.u32 [%rd7+44], %r20;\n\
         mov.u32 %r21, 9; setp.lt.u32 %p2, %r6, 0x80000000; @%p2 clz.b64 %r21, %rd9; st.global.u32 [%rd7+48], %r21;\n\
         mul.hi.u32 %r22, %r6, 3000000000; st.global.u32 [%rd7+52], %r22;\n\
         $L_end:\nret;\n}}\n"
    )
}

/// `cvts`: cvt in its rounding forms, f16 and bf16 conversions.
pub fn conversions(sm: u32) -> String {
    format!(
        ".version 8.0\n.target sm_{sm}\n.address_size 64\n\
         .visible .entry cvts(.param .u64 px, .param .u64 pd, .param .u64 po, .param .u32 n)\n{{\n\
         .reg .pred %p<3>; .reg .b16 %h<4>; .reg .b32 %r<40>; .reg .f32 %f<20>; .reg .f64 %fd<10>; .reg .b64 %rd<20>;\n\
         ld.param.u64 %rd1, [px]; ld.param.u64 %rd2, [pd]; ld.param.u64 %rd3, [po]; ld.param.u32 %r1, [n];\n\
         mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mad.lo.s32 %r5, %r3, %r4, %r2;\n\
         setp.ge.s32 %p1, %r5, %r1; @%p1 bra $L_end;\n\
         cvta.to.global.u64 %rd4, %rd1; cvta.to.global.u64 %rd5, %rd2; cvta.to.global.u64 %rd6, %rd3;\n\
         mul.wide.s32 %rd7, %r5, 4; add.s64 %rd8, %rd4, %rd7; ld.global.f32 %f1, [%rd8];\n\
         mul.wide.s32 %rd7, %r5, 8; add.s64 %rd8, %rd5, %rd7; ld.global.f64 %fd1, [%rd8];\n\
         mul.wide.s32 %rd7, %r5, 128; add.s64 %rd9, %rd6, %rd7;\n\
         cvt.rni.s32.f32 %r6, %f1; st.global.u32 [%rd9], %r6;\n\
         cvt.rmi.s32.f32 %r7, %f1; st.global.u32 [%rd9+4], %r7;\n\
         cvt.rpi.s32.f32 %r8, %f1; st.global.u32 [%rd9+8], %r8;\n\
         cvt.rzi.s32.f32 %r9, %f1; st.global.u32 [%rd9+12], %r9;\n\
         cvt.rni.f32.f32 %f2, %f1; st.global.f32 [%rd9+16], %f2;\n\
         cvt.rzi.f32.f32 %f3, %f1; st.global.f32 [%rd9+20], %f3;\n\
         cvt.rmi.f32.f32 %f4, %f1; st.global.f32 [%rd9+24], %f4;\n\
         cvt.rpi.f32.f32 %f5, %f1; st.global.f32 [%rd9+28], %f5;\n\
         cvt.sat.f32.f32 %f6, %f1; st.global.f32 [%rd9+32], %f6;\n\
         cvt.rn.f32.f64 %f7, %fd1; st.global.f32 [%rd9+36], %f7;\n\
         cvt.rp.f32.f64 %f8, %fd1; st.global.f32 [%rd9+40], %f8;\n\
         cvt.rni.s32.f64 %r10, %fd1; st.global.u32 [%rd9+44], %r10;\n\
         cvt.f64.f32 %fd2, %f1; st.global.f64 [%rd9+48], %fd2;\n\
         cvt.rzi.s64.f64 %rd10, %fd1; st.global.u64 [%rd9+56], %rd10;\n\
         cvt.rmi.s64.f32 %rd11, %f1; st.global.u64 [%rd9+64], %rd11;\n\
         cvt.rn.f32.s64 %f9, %rd10; st.global.f32 [%rd9+72], %f9;\n\
         cvt.u32.u64 %r11, %rd11; st.global.u32 [%rd9+76], %r11;\n\
         cvt.rn.f64.s64 %fd3, %rd11; st.global.f64 [%rd9+80], %fd3;\n\
         mul.lo.s32 %r12, %r10, 33333; cvt.rz.f32.s32 %f10, %r12; st.global.f32 [%rd9+88], %f10;\n\
         cvt.rp.f32.u32 %f11, %r12; st.global.f32 [%rd9+92], %f11;\n\
         cvt.s32.s8 %r13, %r6; st.global.u32 [%rd9+96], %r13;\n\
         cvt.rn.f16.f32 %h1, %f1; cvt.f32.f16 %f12, %h1; st.global.f32 [%rd9+100], %f12;\n\
         cvt.u16.u32 %h2, %r6; cvt.f32.bf16 %f13, %h2; st.global.f32 [%rd9+104], %f13;\n\
         cvt.s32.u8 %r14, %r6; st.global.u32 [%rd9+108], %r14;\n\
         cvt.rn.f64.s32 %fd4, %r6; st.global.f64 [%rd9+112], %fd4;\n\
         $L_end:\nret;\n}}\n"
    )
}

/// `bf`: bf16x2 fma and max with a constant pair, unpacking, bf16 to f32.
pub fn bf16(sm: u32) -> String {
    format!(
        ".version 8.0\n.target sm_{sm}\n.address_size 64\n\
         .visible .entry bf(.param .u64 pa, .param .u64 po, .param .u32 n)\n{{\n\
         .reg .pred %p<3>; .reg .b16 %h<4>; .reg .b32 %r<20>; .reg .f32 %f<4>; .reg .b64 %rd<12>;\n\
         ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [po]; ld.param.u32 %r1, [n];\n\
         mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mad.lo.s32 %r5, %r3, %r4, %r2;\n\
         setp.ge.s32 %p1, %r5, %r1; @%p1 bra $L_end;\n\
         cvta.to.global.u64 %rd3, %rd1; cvta.to.global.u64 %rd4, %rd2;\n\
         mul.wide.s32 %rd5, %r5, 12; add.s64 %rd6, %rd3, %rd5;\n\
         ld.global.u32 %r6, [%rd6]; ld.global.u32 %r7, [%rd6+4]; ld.global.u32 %r8, [%rd6+8];\n\
         fma.rn.bf16x2 %r9, %r6, %r7, %r8;\n\
         mov.f32 %f1, 0fC0800000;\n\
         {{ .reg .b16 low; cvt.rn.bf16.f32 low, %f1; mov.b32 %r10, {{low,low}}; }}\n\
         max.bf16x2 %r11, %r9, %r10;\n\
         mul.wide.s32 %rd5, %r5, 12; add.s64 %rd7, %rd4, %rd5; st.global.u32 [%rd7], %r11;\n\
         mov.b32 {{%h1, %h2}}, %r11; cvt.f32.bf16 %f2, %h2; st.global.f32 [%rd7+4], %f2;\n\
         cvt.f32.bf16 %f3, %h1; st.global.f32 [%rd7+8], %f3;\n\
         $L_end:\nret;\n}}\n"
    )
}

/// `div64`: div.u64, div.s64, mul.hi.u64 by a constant and, with
/// `registers`, of two registers (a form the encoder does not know).
pub fn division_64(sm: u32, registers: bool) -> String {
    let by_register = if registers { "mul.hi.u64 %rd12, %rd7, %rd8; st.global.u64 [%rd9+16], %rd12;" } else { "" };
    format!(
        ".version 8.0\n.target sm_{sm}\n.address_size 64\n\
         .visible .entry div64(.param .u64 pa, .param .u64 pb, .param .u64 po, .param .u32 n)\n{{\n\
         .reg .pred %p<3>; .reg .b32 %r<20>; .reg .b64 %rd<20>;\n\
         ld.param.u64 %rd1, [pa]; ld.param.u64 %rd15, [pb]; ld.param.u64 %rd2, [po]; ld.param.u32 %r1, [n];\n\
         mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mad.lo.s32 %r5, %r3, %r4, %r2;\n\
         setp.ge.s32 %p1, %r5, %r1; @%p1 bra $L_end;\n\
         cvta.to.global.u64 %rd3, %rd1; cvta.to.global.u64 %rd4, %rd2; cvta.to.global.u64 %rd16, %rd15;\n\
         mul.wide.s32 %rd5, %r5, 8; add.s64 %rd6, %rd3, %rd5; ld.global.u64 %rd7, [%rd6];\n\
         add.s64 %rd17, %rd16, %rd5; ld.global.u64 %rd8, [%rd17];\n\
         mul.wide.s32 %rd5, %r5, 32; add.s64 %rd9, %rd4, %rd5;\n\
         div.u64 %rd10, %rd7, %rd8; st.global.u64 [%rd9], %rd10;\n\
         div.s64 %rd11, %rd7, %rd8; st.global.u64 [%rd9+8], %rd11;\n\
         {by_register}\n\
         mul.hi.u64 %rd13, %rd7, -8543223828751151131; st.global.u64 [%rd9+24], %rd13;\n\
         $L_end:\nret;\n}}\n"
    )
}
