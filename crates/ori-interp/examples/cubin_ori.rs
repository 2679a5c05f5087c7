//! Prints the kernel `NAME` of a cubin as Ori text (physical registers, a
//! block per branch target): `cargo run -p ori-interp --example cubin_ori -- FILE NAME`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, file, name] = &args[..] else {
        eprintln!("usage: cubin_ori FILE.cubin KERNEL");
        std::process::exit(2);
    };
    let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let kernel = ori_interp::load_kernel(&bytes, name).unwrap_or_else(|e| panic!("{file}: {e}"));
    print!("{}", ori_ir::text::print_function(&kernel.func));
}
