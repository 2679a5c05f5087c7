//! The workspace's layering: the crates of the pipeline meet only in
//! `ori-ir` (design card). Each crate may depend, among the workspace's
//! crates, only on those its row below names; a new workspace dependency
//! has to be argued here, where the whole graph is visible.

use std::collections::BTreeMap;
use std::path::Path;

/// Workspace crates each crate may depend on (normal dependencies; dev
/// dependencies are free). Pass crates see only the IR and the analyses.
const ALLOWED: &[(&str, &[&str])] = &[
    ("ori-ir", &[]),
    ("ptx-syntax", &[]),
    ("nv-oracle", &[]),
    ("cfg", &["ori-ir"]),
    ("passes-early", &["ori-ir", "cfg"]),
    ("passes-late", &["ori-ir", "cfg"]),
    ("regalloc-fatpoint", &["ori-ir", "cfg"]),
    ("sched", &["ori-ir", "cfg"]),
    ("mercury-encode", &["ori-ir"]),
    ("elfw", &["ori-ir"]),
    // DAGgen reads the front end's AST and writes Ori.
    ("ptx-lower", &["ori-ir", "ptx-syntax"]),
    // The interpreter loads cubins and decodes their code.
    ("ori-interp", &["ori-ir", "mercury-encode", "elfw"]),
    // The C API wraps the driver.
    ("ptxas-capi", &["ptxas"]),
];

/// The workspace crates `crates/NAME/Cargo.toml` lists under `[dependencies]`.
fn workspace_deps(manifest: &Path, members: &[String]) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let doc: toml::Table = text.parse().unwrap();
    let deps = doc.get("dependencies").and_then(|d| d.as_table()).cloned().unwrap_or_default();
    deps.keys().filter(|k| members.contains(k)).cloned().collect()
}

#[test]
fn pipeline_crates_meet_only_in_the_ir() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut manifests = BTreeMap::new();
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        if dir.join("Cargo.toml").is_file() {
            manifests.insert(dir.file_name().unwrap().to_string_lossy().into_owned(), dir.join("Cargo.toml"));
        }
    }
    let members: Vec<String> = manifests.keys().cloned().collect();
    assert!(members.len() >= ALLOWED.len(), "crates/ holds {members:?}");
    let mut wrong = Vec::new();
    for (name, manifest) in &manifests {
        if name == "ptxas" {
            continue; // the driver assembles the pipeline: it may use every crate
        }
        let Some((_, allowed)) = ALLOWED.iter().find(|(n, _)| n == name) else {
            wrong.push(format!("{name}: a new crate; give it a row in ALLOWED"));
            continue;
        };
        for dep in workspace_deps(manifest, &members) {
            if !allowed.contains(&dep.as_str()) {
                wrong.push(format!("{name} depends on {dep}"));
            }
        }
    }
    assert!(wrong.is_empty(), "layering broken:\n{}", wrong.join("\n"));
}
