//! DAGgen: lowers a validated PTX module to Ori IR with virtual registers.
