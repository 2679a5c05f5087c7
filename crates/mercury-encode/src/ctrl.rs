//! The scheduling control field of an sm_70+ instruction (bits 105..=125,
//! oracle-facts §6): stall, yield, write/read scoreboards, wait mask and
//! the operand reuse flags.

use ori_ir::Ctrl;

const STALL: (u32, u32) = (41, 4);
const YIELD: (u32, u32) = (45, 1);
const WRITE_SB: (u32, u32) = (46, 3);
const READ_SB: (u32, u32) = (49, 3);
const WAIT: (u32, u32) = (52, 6);
const REUSE: (u32, u32) = (58, 4);

/// Scoreboard field value meaning "no scoreboard".
const NO_SB: u64 = 7;

fn get(hi: u64, (pos, len): (u32, u32)) -> u64 {
    (hi >> pos) & ((1 << len) - 1)
}

fn put(hi: u64, (pos, len): (u32, u32), value: u64) -> u64 {
    let mask = ((1u64 << len) - 1) << pos;
    (hi & !mask) | ((value << pos) & mask)
}

/// Reads the control word from the high 64 bits of an instruction.
pub fn decode_ctrl(hi: u64) -> Ctrl {
    let sb = |field| match get(hi, field) {
        NO_SB => None,
        n => Some(n as u8),
    };
    Ctrl {
        stall: get(hi, STALL) as u8,
        yield_: get(hi, YIELD) != 0,
        write_sb: sb(WRITE_SB),
        read_sb: sb(READ_SB),
        wait: get(hi, WAIT) as u8,
    }
}

/// Writes a control word into the high 64 bits of an instruction.
pub fn encode_ctrl(hi: u64, ctrl: &Ctrl) -> u64 {
    let sb = |s: Option<u8>| s.map_or(NO_SB, u64::from);
    let hi = put(hi, STALL, ctrl.stall.into());
    let hi = put(hi, YIELD, ctrl.yield_.into());
    let hi = put(hi, WRITE_SB, sb(ctrl.write_sb));
    let hi = put(hi, READ_SB, sb(ctrl.read_sb));
    put(hi, WAIT, ctrl.wait.into())
}

/// The 4-bit operand reuse field (bit i = source slot i stays in the
/// operand reuse cache).
pub fn reuse_bits(hi: u64) -> u8 {
    get(hi, REUSE) as u8
}

/// Sets the operand reuse field.
pub fn with_reuse(hi: u64, reuse: u8) -> u64 {
    put(hi, REUSE, reuse.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked examples of oracle-facts §6 (NVIDIA's sm_80/sm_90 vadd).
    #[test]
    fn oracle_facts_examples() {
        let s2r = decode_ctrl(0x000e_2800_0000_2500);
        assert_eq!((s2r.stall, s2r.yield_, s2r.write_sb, s2r.read_sb, s2r.wait), (4, true, Some(0), None, 0));
        let imad = decode_ctrl(0x001f_ca00_078e_0203);
        assert_eq!((imad.stall, imad.yield_, imad.write_sb, imad.wait), (5, false, None, 1));
        assert_eq!(reuse_bits(0x0c0f_e400_078e_0207), 0b0011);
        for hi in [0x000e_2800_0000_2500u64, 0x001f_ca00_078e_0203, 0x0c0f_e400_078e_0207, 0x000f_c000_0383_ffff] {
            assert_eq!(with_reuse(encode_ctrl(hi & 0x1ff_ffff_ffff, &decode_ctrl(hi)), reuse_bits(hi)), hi);
        }
    }
}
