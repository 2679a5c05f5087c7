//! `cargo xtask check-ptx FILE_OR_DIR...`: parses and validates PTX files,
//! each for its own `.target`, with the `ptx-syntax` front end.

use ptx_syntax::{FileId, ValidateOptions, parse, validate};
use std::path::{Path, PathBuf};

pub fn run(args: &[String]) -> Result<(), String> {
    if args.is_empty() {
        return Err("usage: cargo xtask check-ptx FILE_OR_DIR...".to_owned());
    }
    let mut files = Vec::new();
    for arg in args {
        collect(Path::new(arg), &mut files)?;
    }
    let mut rejected = 0;
    for (id, path) in files.iter().enumerate() {
        if let Some(line) = check(path, FileId(u32::try_from(id).unwrap_or(u32::MAX)))? {
            println!("{line}");
            rejected += 1;
        }
    }
    println!("checked {} files, accepted {}, rejected {rejected}", files.len(), files.len() - rejected);
    if rejected > 0 { Err(format!("{rejected} PTX files rejected")) } else { Ok(()) }
}

/// `file:line: message` for the first error of a rejected file.
fn check(path: &Path, file: FileId) -> Result<Option<String>, String> {
    let source = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (module, mut diags) = parse(&source, file);
    if diags.is_empty() {
        let options = ValidateOptions { file_name: Some(path.display().to_string()), ..ValidateOptions::default() };
        diags = validate(&module, &options);
    }
    Ok(diags.iter().find(|d| d.is_error()).map(|d| {
        let line = d.line(&source).map_or(String::new(), |n| format!("{n}:"));
        format!("{}:{line} {}", path.display(), d.message)
    }))
}

/// `path` itself, or the `.ptx` files below it, in name order.
fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if !path.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .map(|entry| entry.map(|e| e.path()).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            collect(&entry, out)?;
        } else if entry.extension().is_some_and(|e| e == "ptx") {
            out.push(entry);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_first_error_with_line_and_recurses_into_directories() {
        let dir = std::env::temp_dir().join(format!("check-ptx-{}", std::process::id()));
        let sub = dir.join("sub");
        std::fs::create_dir_all(&sub).expect("temp dir");
        let good = ".version 9.5\n.target sm_90\n.address_size 64\n.entry k()\n{\n\tret;\n}\n";
        std::fs::write(dir.join("good.ptx"), good).expect("write");
        std::fs::write(sub.join("bad.ptx"), good.replace("ret;", "retq;")).expect("write");
        std::fs::write(sub.join("notes.txt"), "not ptx").expect("write");
        let mut files = Vec::new();
        collect(&dir, &mut files).expect("collect");
        assert_eq!(files.len(), 2);
        assert_eq!(check(&dir.join("good.ptx"), FileId(0)), Ok(None));
        let bad = sub.join("bad.ptx");
        let expected = format!("{}:6: Not a name of any known instruction: 'retq'", bad.display());
        assert_eq!(check(&bad, FileId(1)), Ok(Some(expected)));
        assert!(run(&[dir.display().to_string()]).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
