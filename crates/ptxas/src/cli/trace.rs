//! `--fdevice-time-trace FILE`: appends Chrome trace events to an existing
//! trace file, as ptxas 13.5 does (the file must already hold a JSON object
//! with a `traceEvents` array; keys come out sorted, as ptxas writes them).

use serde_json::{Value, json};

use crate::Report;
use crate::diag::Diagnostic;

/// Appends the compilation's events to `file`.
pub fn append(file: &str, input: &str, report: &Report) -> Result<(), Diagnostic> {
    let text =
        std::fs::read_to_string(file).map_err(|_| Diagnostic::fatal(format!("File '{file}' could not be opened")))?;
    let trace = merge(file, &text, input, report)?;
    let out = serde_json::to_string(&trace).expect("a JSON value always serialises");
    std::fs::write(file, out).map_err(|_| Diagnostic::fatal(format!("File '{file}' could not be opened")))
}

fn merge(file: &str, text: &str, input: &str, report: &Report) -> Result<Value, Diagnostic> {
    let bad = |why: &str| Diagnostic::fatal(format!("Parsed trace file not in expected format : {why}"));
    let mut trace: Value = serde_json::from_str(text).map_err(|_| bad("Error reading input trace file to buffer"))?;
    let object = trace
        .as_object_mut()
        .ok_or_else(|| Diagnostic::fatal(format!("Input file '{file}' not in expected format")))?;
    let events =
        object.get_mut("traceEvents").and_then(Value::as_array_mut).ok_or_else(|| bad("expected key 'traceEvents'"))?;
    let pid = std::process::id();
    let micros = |d: std::time::Duration| d.as_micros() as u64;
    events.push(json!({
        "name": "Total PTXAS Time", "ph": "X", "pid": pid, "tid": 0, "ts": 0,
        "dur": micros(report.compile_time), "args": {"name": input},
    }));
    for span in &report.timeline {
        events.push(json!({
            "name": span.name, "ph": "X", "pid": pid, "tid": 0,
            "ts": micros(span.start), "dur": micros(span.duration), "args": {"name": span.detail},
        }));
    }
    Ok(trace)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::Span;

    fn report() -> Report {
        Report {
            compile_time: Duration::from_micros(50),
            timeline: vec![Span {
                name: "Post processing",
                detail: String::new(),
                start: Duration::from_micros(40),
                duration: Duration::from_micros(10),
            }],
            ..Report::default()
        }
    }

    #[test]
    fn appends_to_the_existing_events() {
        let merged = merge("t.json", r#"{"traceEvents":[{"name":"x"}],"other":1}"#, "k.ptx", &report()).unwrap();
        let events = merged["traceEvents"].as_array().unwrap();
        assert_eq!(events.len(), 3);
        assert_eq!(events[1]["name"], "Total PTXAS Time");
        assert_eq!(events[1]["args"]["name"], "k.ptx");
        assert_eq!(events[2]["ts"], 40);
        assert_eq!(merged["other"], 1);
    }

    #[test]
    fn refuses_what_ptxas_refuses() {
        let message = |text: &str| merge("t.json", text, "k.ptx", &report()).unwrap_err().message;
        assert_eq!(message(""), "Parsed trace file not in expected format : Error reading input trace file to buffer");
        assert_eq!(message("[]"), "Input file 't.json' not in expected format");
        assert_eq!(message(r#"{"x":1}"#), "Parsed trace file not in expected format : expected key 'traceEvents'");
    }
}
