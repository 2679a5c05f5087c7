//! `ptxas`: the command-line compiler.

use std::process::ExitCode;

use ptxas::CountingAlloc;
use ptxas::cli::{Io, run};

/// Counts allocations so that `--compiler-stats=memory` has figures.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut stdin, mut stdout, mut stderr) = (std::io::stdin(), std::io::stdout(), std::io::stderr());
    let mut io = Io { stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr };
    ExitCode::from(run(&args, &mut io, Some(&ALLOC)))
}
