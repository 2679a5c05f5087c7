//! What the cubin builder needs of a compiled function: code bytes and metadata.
