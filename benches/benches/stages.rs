//! One benchmark per stage that exists: PTX front end, Ori text, and the
//! phase pipeline.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ptxas::{DumpAfter, Options, Source, compile_sources};

/// Lexing, parsing and validation together over `corpus/large`, the
/// throughput issue 3 asks about.
fn front_end(c: &mut Criterion) {
    let dir = benches::corpus().join("large");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("front_end: {} missing, skipped", dir.display());
        return;
    };
    let mut files: Vec<String> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    files.sort();
    let bytes: usize = files.iter().map(String::len).sum();
    let mut group = c.benchmark_group("ptx");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    group.bench_function("parse corpus/large", |b| {
        b.iter(|| files.iter().map(|f| ptx_syntax::parse(f, ptx_syntax::FileId(0)).0.items.len()).sum::<usize>())
    });
    group.bench_function("parse+validate corpus/large", |b| {
        b.iter(|| {
            files
                .iter()
                .map(|f| {
                    let (module, _) = ptx_syntax::parse(f, ptx_syntax::FileId(0));
                    ptx_syntax::validate(&module, &ptx_syntax::ValidateOptions::default()).len()
                })
                .sum::<usize>()
        })
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
