//! One benchmark per stage that exists: PTX front end, Ori text, and the
//! phase pipeline.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ptxas::{DumpAfter, Options, Source, compile_sources};

fn front_end(c: &mut Criterion) {
    let path = benches::corpus().join("large/large_regtile_gemm.sm90.ptx");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("front_end: {} missing, skipped", path.display());
        return;
    };
    let mut group = c.benchmark_group("ptx");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse large_regtile_gemm", |b| b.iter(|| ptx_syntax::parse(&text, ptx_syntax::FileId(0))));
    let (module, _) = ptx_syntax::parse(&text, ptx_syntax::FileId(0));
    group.bench_function("validate large_regtile_gemm", |b| {
        b.iter(|| ptx_syntax::validate(&module, &ptx_syntax::ValidateOptions::default()))
    });
    group.finish();
}

fn ori_text(c: &mut Criterion) {
    let text = benches::generated_ori(20_000);
    let mut group = c.benchmark_group("ori");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse 20k instructions", |b| b.iter(|| ori_ir::text::parse_module(&text).unwrap()));
    let module = ori_ir::text::parse_module(&text).unwrap();
    group.bench_function("print 20k instructions", |b| b.iter(|| ori_ir::text::print_module(&module)));
    group.bench_function("verify 20k instructions", |b| b.iter(|| ori_ir::verify_module(&module)));
    group.finish();
}

fn pipeline(c: &mut Criterion) {
    let source = Source { name: "generated.ori".into(), text: benches::generated_ori(20_000) };
    let options = Options { arch: "sm_90".parse().unwrap(), dump_after: DumpAfter::None, ..Options::default() };
    c.bench_function("pipeline 20k instructions (phases.ron up to encoding)", |b| {
        b.iter(|| compile_sources(std::slice::from_ref(&source), &options))
    });
}

criterion_group!(stages, front_end, ori_text, pipeline);
criterion_main!(stages);
