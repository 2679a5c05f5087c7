//! One benchmark per stage that exists: PTX front end, Ori text, the
//! phase pipeline, and SASS decoding/printing/encoding.

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

/// mercury-encode alone: decode+print and encode of every instruction of
/// the pipeline's sm_90 cubin (tables already indexed).
fn sass(c: &mut Criterion) {
    use mercury_encode::{CodeLabels, Sm, decode, encode, print};
    let source = Source { name: "generated.ori".into(), text: benches::generated_ori(20_000) };
    let options = Options { arch: "sm_90".parse().unwrap(), dump_after: DumpAfter::None, ..Options::default() };
    let cubin = compile_sources(std::slice::from_ref(&source), &options).ok().and_then(|o| o.cubin).unwrap();
    let elf = elfw::read(&cubin).unwrap();
    let words: Vec<[u64; 2]> = elf
        .sections
        .iter()
        .filter(|s| s.name.starts_with(".text."))
        .filter_map(|s| s.bytes())
        .flat_map(|code| {
            code.chunks_exact(16).map(|c| [0, 8].map(|k| u64::from_le_bytes(c[k..k + 8].try_into().unwrap())))
        })
        .collect();
    let mut labels = CodeLabels::new();
    let insts: Vec<_> =
        words.iter().enumerate().map(|(i, w)| decode(Sm::Sm90, *w, 16 * i as u64, &mut labels).unwrap()).collect();
    let mut group = c.benchmark_group("sass");
    group.throughput(Throughput::Elements(words.len() as u64));
    group.bench_function("decode+print sm_90", |b| {
        b.iter(|| {
            let mut labels = CodeLabels::new();
            words
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    print(Sm::Sm90, &decode(Sm::Sm90, *w, 16 * i as u64, &mut labels).unwrap(), &labels).unwrap().len()
                })
                .sum::<usize>()
        })
    });
    group.bench_function("encode sm_90", |b| {
        b.iter(|| {
            insts
                .iter()
                .enumerate()
                .map(|(i, inst)| encode(Sm::Sm90, inst, 16 * i as u64, &labels).unwrap()[0])
                .sum::<u64>()
        })
    });
    group.finish();
}

criterion_group!(stages, front_end, ori_text, pipeline, sass);
criterion_main!(stages);
