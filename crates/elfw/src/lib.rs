//! Cubin (NVIDIA ELF) reader, writer and builder.
