//! `cargo xtask isa-sweep [--target sm_80|sm_90|sm_90a]... [--only PATTERN]
//! [--write-known] [--list] [-v]`: the PTX ISA sweep. Every form of
//! `tests/isa-sweep/forms.toml` (transcribed from NVIDIA's PTX ISA
//! reference) becomes a kernel; NVIDIA's ptxas says whether the form is
//! PTX for the target; where it is, our cubin and NVIDIA's run on the
//! interpreter over the types' edge values and must agree bit for bit;
//! where it is not, ours must reject it with NVIDIA's messages. Prints per
//! family and in total `F forms: NVIDIA accepts A, ours compiles C, same
//! results S` and every form that fails.
//!
//! `tests/isa-sweep/known.txt` lists the forms that fail today (target,
//! form, reason); `--write-known` rewrites the lines of the forms the run
//! checked (all of them, or those `--only` picks). The test
//! command runs a fixed sample of the table (`sampled_sweep_holds`):
//! a form of the sample that fails must be listed, and a listed form
//! that passes must be taken off the list, so the list only shrinks.

mod check;
mod kernel;
mod table;
mod ty;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use check::Verdict;
pub use table::Form;

/// The committed table of forms.
pub fn table_path() -> PathBuf {
    crate::workspace_root().join("tests/isa-sweep/forms.toml")
}

/// The committed list of known failures.
pub fn known_path() -> PathBuf {
    crate::workspace_root().join("tests/isa-sweep/known.txt")
}

/// Every form of the table.
pub fn forms() -> Result<Vec<Form>, String> {
    let path = table_path();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    table::load(&text)
}

/// Forms checked per batch of NVIDIA's ptxas.
const BATCH: usize = 80;

/// The verdict on every form of `forms` for `target`.
pub fn sweep(ptxas: &Path, forms: &[&Form], target: &str, dir: &Path) -> Result<Vec<Verdict>, String> {
    let mut verdicts = Vec::new();
    for chunk in forms.chunks(BATCH) {
        verdicts.extend(check::check(ptxas, chunk, target, dir)?);
    }
    Ok(verdicts)
}

/// The figures of a set of verdicts.
#[derive(Default)]
struct Figures {
    forms: usize,
    accepts: usize,
    compiles: usize,
    same: usize,
    rejects_alike: usize,
    nvidia_unrunnable: usize,
}

impl Figures {
    fn add(&mut self, v: &Verdict) {
        self.forms += 1;
        self.accepts += usize::from(v.nvidia_accepts());
        self.compiles += usize::from(v.ours_compiles());
        self.same += usize::from(*v == Verdict::Same);
        self.rejects_alike += usize::from(matches!(v, Verdict::BothReject(_)));
        self.nvidia_unrunnable += usize::from(matches!(v, Verdict::NvidiaDoesNotRun(_)));
    }

    fn line(&self) -> String {
        format!(
            "{} forms: NVIDIA accepts {}, ours compiles {}, same results {}; NVIDIA rejects {}, ours alike {}; \
             NVIDIA's cubin does not run {}",
            self.forms,
            self.accepts,
            self.compiles,
            self.same,
            self.forms - self.accepts,
            self.rejects_alike,
            self.nvidia_unrunnable
        )
    }
}

/// One line of the known-failure list: `TARGET FORM -- REASON`.
pub fn known_line(target: &str, form: &Form, v: &Verdict) -> Option<String> {
    v.reason().map(|r| format!("{target} {} -- {}", form.name, first_words(r)))
}

/// The `TARGET FORM` keys of the known-failure list.
pub fn known_keys(text: &str) -> std::collections::BTreeSet<String> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_once(" -- ").map_or(l, |x| x.0).trim().to_string())
        .collect()
}

fn first_words(reason: &str) -> String {
    reason.chars().take(160).collect::<String>().replace('\n', " ")
}

pub fn run(args: &[String]) -> Result<(), String> {
    let mut targets = Vec::new();
    let mut only: Option<String> = None;
    let mut write_known = false;
    let mut list = false;
    let mut verbose = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--target" => targets.push(it.next().ok_or("--target needs sm_XX")?.clone()),
            "--only" => only = Some(it.next().ok_or("--only needs a pattern")?.clone()),
            "--write-known" => write_known = true,
            "--list" => list = true,
            "-v" | "--verbose" => verbose = true,
            other => return Err(format!("isa-sweep: unknown argument `{other}`")),
        }
    }
    if targets.is_empty() {
        targets = ["sm_80", "sm_90", "sm_90a"].map(String::from).to_vec();
    }
    let oracle = nv_oracle::Oracle::find().ok_or("NVIDIA's tools are missing: run `cargo xtask oracle`")?;
    let all = forms()?;
    let forms_all = &all;
    let forms: Vec<&Form> =
        all.iter().filter(|f| only.as_ref().is_none_or(|p| f.name.contains(p.as_str()) || f.family == *p)).collect();
    if list {
        for f in &forms {
            println!("{:<10} {}", f.family, f.name);
        }
        println!("{} forms", forms.len());
        return Ok(());
    }
    // Our compiler's panics are verdicts, not crashes of the sweep.
    std::panic::set_hook(Box::new(|_| {}));
    let listed = std::fs::read_to_string(known_path()).map(|t| known_keys(&t)).unwrap_or_default();
    let mut known = Vec::new();
    let mut swept = std::collections::BTreeSet::new();
    for target in &targets {
        // A directory per run: sweeps may run side by side.
        let dir = crate::workspace_root().join("target/isa-sweep").join(format!("{target}-{}", std::process::id()));
        let verdicts = sweep(&oracle.ptxas(), &forms, target, &dir)?;
        // Only scratch files are lost if this fails.
        let _ = std::fs::remove_dir_all(&dir);
        let mut families: BTreeMap<&str, Figures> = BTreeMap::new();
        let mut total = Figures::default();
        println!("== {target}");
        for (form, v) in forms.iter().zip(&verdicts) {
            families.entry(&form.family).or_default().add(v);
            total.add(v);
            if let Some(r) = v.reason() {
                println!("  FAIL {}: {}", form.name, first_words(r));
            } else if let Verdict::NvidiaDoesNotRun(r) = v {
                println!("  NORUN {}: {}", form.name, first_words(r));
            } else if verbose {
                match v {
                    Verdict::BothReject(why) => println!("  REJECT {}: {why}", form.name),
                    _ => println!("  SAME {}", form.name),
                }
            }
            known.extend(known_line(target, form, v));
            swept.insert(format!("{target} {}", form.name));
        }
        for (family, f) in &families {
            println!("{target} {family:<10} {}", f.line());
        }
        println!("{target} {:<10} {}", "total", total.line());
        let failing: Vec<String> = forms
            .iter()
            .zip(&verdicts)
            .filter(|(_, v)| v.reason().is_some())
            .map(|(f, _)| format!("{target} {}", f.name))
            .collect();
        let new = failing.iter().filter(|k| !listed.contains(*k)).count();
        let fixed = listed.iter().filter(|k| k.starts_with(&format!("{target} ")) && !failing.contains(k)).count();
        println!("{target} against known.txt: {new} new failures, {fixed} listed forms pass (or were not run)");
    }
    if write_known {
        // The lines of forms this run did not check stay as they were.
        let old = std::fs::read_to_string(known_path()).unwrap_or_default();
        let kept = old.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).filter(|l| {
            let key = l.split_once(" -- ").map_or(*l, |x| x.0).trim();
            let in_table = key.split_once(' ').is_some_and(|(_, name)| forms_all.iter().any(|f| f.name == name));
            !swept.contains(key) && in_table
        });
        let mut lines: Vec<String> = kept.map(str::to_owned).chain(known).collect();
        lines.sort();
        let mut text = String::from(
            "# Forms of tests/isa-sweep/forms.toml that fail today (cargo xtask isa-sweep --write-known).\n\
             # The test command's sampled sweep fails on a failure not listed here and on a listed form that passes.\n",
        );
        for line in lines {
            text.push_str(&line);
            text.push('\n');
        }
        std::fs::write(known_path(), text).map_err(|e| format!("{}: {e}", known_path().display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed sample of the table on sm_80 and sm_90: every failure is
    /// a listed one, and every listed form of the sample still fails.
    #[test]
    fn sampled_sweep_holds() {
        let Some(oracle) = nv_oracle::Oracle::for_test("sampled_sweep_holds") else { return };
        let all = forms().unwrap();
        let sample: Vec<&Form> = all.iter().step_by(SAMPLE_STEP).collect();
        let known_text = std::fs::read_to_string(known_path()).unwrap();
        let known = known_keys(&known_text);
        let mut problems = Vec::new();
        for target in ["sm_80", "sm_90"] {
            let dir = std::env::temp_dir().join(format!("isa-sweep-{}-{target}", std::process::id()));
            let verdicts = sweep(&oracle.ptxas(), &sample, target, &dir).unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            for (form, v) in sample.iter().zip(&verdicts) {
                let key = format!("{target} {}", form.name);
                match (v.reason(), known.contains(&key)) {
                    (Some(r), false) => problems.push(format!("new failure: {key}: {}", first_words(r))),
                    (None, true) => problems.push(format!("passes now, take it off known.txt: {key}")),
                    _ => {}
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// Every form of the table is checked by one run or another of the
    /// sample over time: the step stays small.
    const SAMPLE_STEP: usize = 7;
}
