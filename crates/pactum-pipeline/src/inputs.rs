//! Input checks every pipeline shares: which paths a run may not write
//! over (SPEC §4: nothing overwrites an input), which trace paths cannot
//! be read, and the notes on the inputs as report warnings.

use std::path::Path;

use pactum_report::{Protected, Warning};
use pactum_suite::LoadedContract;
use pactum_trace::InputNotes;

/// The files of loaded contracts no output may overwrite: each contract
/// file and every `schema_file` it names ([`LoadedContract::files`]).
pub fn contract_protected<'a>(
    loaded: impl IntoIterator<Item = &'a LoadedContract>,
) -> Vec<Protected> {
    let mut out = Vec::new();
    for c in loaded {
        for (i, f) in c.files.iter().enumerate() {
            out.push(Protected::input(
                if i == 0 && *f == c.path {
                    "the contract"
                } else {
                    "a schema file the contract names"
                },
                f,
            ));
        }
    }
    out
}

pub use crate::common::store_protected;

/// The notes on a run's inputs (`repeated-input`, `empty-trace-id`,
/// `repeated-trace-id`) as report warnings (`docs/traces.md`,
/// "Warnings"), for `grade` and `strength` alike.
pub fn input_warnings(notes: &InputNotes) -> Vec<Warning> {
    notes
        .warnings()
        .into_iter()
        .map(|w| Warning {
            code: w.code.into(),
            message: w.message,
        })
        .collect()
}

/// Why `path` cannot be read as a trace file, or `None` when it can. A
/// pipe or a device (`/dev/stdin`, `<(…)`) is refused by name: the
/// importers read a file twice (to detect its format, then to import it).
/// A folder passes: each command says what to do with one.
pub fn unusable_trace_path(path: &Path) -> Option<&'static str> {
    if path.as_os_str() == "-" {
        return Some(
            "standard input cannot be read as a trace file (it is read twice, to detect its format and to import it); save it to a file first",
        );
    }
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("no such trace file"),
        Err(_) => Some("cannot read this trace file's metadata (check its permissions)"),
        Ok(m) if m.is_dir() => None, // reported with its own advice by the caller
        Ok(m) if !m.is_file() => Some(
            "not a regular file (a pipe or a device): pactum reads a trace file twice, to detect its format and to import it; save it to a file first",
        ),
        Ok(_) => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn unusable_trace_paths_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.jsonl");
        std::fs::write(&file, "{}\n").unwrap();
        assert_eq!(unusable_trace_path(&file), None);
        assert_eq!(unusable_trace_path(dir.path()), None);
        assert_eq!(
            unusable_trace_path(&dir.path().join("missing.jsonl")),
            Some("no such trace file")
        );
        assert!(unusable_trace_path(Path::new("-"))
            .unwrap()
            .starts_with("standard input"));
    }
}
