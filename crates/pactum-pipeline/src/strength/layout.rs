//! The artifact folders of a `pactum strength` run: where each measured
//! contract's artifacts go, and how they are written (one canonical JSON
//! file per probe, plus the probe set).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pactum_core::strength::EvidenceArtifact;
use pactum_probe::{artifact_file_name, ProbeCase};
use pactum_report::{OutputFolder, ReportError};

use super::schedule::workers;

/// The file in an output folder that lists the probe set (and marks the
/// folder as pactum's, so a later run may clear it).
pub const PROBE_SET_FILE: &str = "probes.jsonl";

/// The artifact folder of the contract `contract_id`: `out` itself when
/// it is the only contract measured, `out/<id>` when `several` are, and
/// `.pactum/strength/<id>` (relative to the working folder) without
/// `out`. `<id>` is the id as a safe file name
/// ([`artifact_file_name`] without `.json`).
pub fn artifact_folder(out: Option<&Path>, several: bool, contract_id: &str) -> PathBuf {
    let folder = artifact_file_name(contract_id)
        .trim_end_matches(".json")
        .to_string();
    match (out, several) {
        (Some(dir), false) => dir.to_path_buf(),
        (Some(dir), true) => dir.join(folder),
        (None, _) => Path::new(".pactum").join("strength").join(folder),
    }
}

/// Writes one artifact per probe and the probe set into `dir`, replacing
/// or deleting only files an earlier pactum run wrote there (listed in the
/// folder's manifest, [`OutputFolder`]); any other file is kept, and one
/// pactum would have to replace is refused before anything is written.
///
/// # Errors
/// [`ReportError::ForeignFile`], [`ReportError::NotAFolder`] or
/// [`ReportError::BadName`] before anything is written; any other variant
/// when writing failed (the disk's).
pub fn write_run(
    dir: &Path,
    artifacts: &[EvidenceArtifact],
    cases: &[ProbeCase],
) -> Result<(), ReportError> {
    let mut names: BTreeSet<String> = artifacts
        .iter()
        .map(|a| artifact_file_name(&a.probe.id))
        .collect();
    names.insert(PROBE_SET_FILE.to_string());
    let folder = OutputFolder::prepare(dir, names)?;
    // Canonicalising is most of the cost: spread it over the cores. Each
    // file's bytes depend on its artifact alone, so the order of work
    // never shows in the output.
    let folder_ref = &folder;
    let write_artifacts = |part: &[EvidenceArtifact]| -> Result<(), ReportError> {
        for a in part {
            folder_ref.write(&artifact_file_name(&a.probe.id), &a.canonical_bytes())?;
        }
        Ok(())
    };
    let lost = |what: &str| ReportError::Create {
        path: dir.to_path_buf(),
        source: std::io::Error::other(what.to_string()),
    };
    let mut sorted: Vec<&ProbeCase> = cases.iter().collect();
    sorted.sort_by(|a, b| a.probe.id.cmp(&b.probe.id));
    let lines = |part: &[&ProbeCase]| -> String {
        let mut out = String::new();
        for c in part {
            // Plain serde_json: deterministic for the same inputs, and
            // several times faster than canonicalising 20 MB of traces.
            // The artifacts, which are digested, are the canonical ones.
            out.push_str(&pactum_report::terminal_safe_json(
                &serde_json::to_string(c).unwrap_or_else(|_| "null".into()),
            ));
            out.push('\n');
        }
        out
    };
    let chunk = artifacts.len().div_ceil(workers()).max(1);
    let line_chunk = sorted.len().div_ceil(workers()).max(1);
    let (written, probe_lines) = std::thread::scope(|s| {
        let writers: Vec<_> = artifacts
            .chunks(chunk)
            .map(|part| s.spawn(move || write_artifacts(part)))
            .collect();
        let liners: Vec<_> = sorted
            .chunks(line_chunk)
            .map(|part| s.spawn(move || lines(part)))
            .collect();
        let written: Result<(), ReportError> = writers.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| Err(lost("writing an artifact failed")))
        });
        let probe_lines: Option<String> = liners.into_iter().map(|h| h.join().ok()).collect();
        (written, probe_lines)
    });
    written?;
    let probe_lines = probe_lines.ok_or_else(|| lost("listing the probes failed"))?;
    folder.write(PROBE_SET_FILE, probe_lines.as_bytes())?;
    folder.finish()
}

/// Whether a [`write_run`] error came before anything was written (a
/// folder pactum may not write into: the user's to fix), rather than
/// from the disk while writing.
pub fn refused_before_writing(e: &ReportError) -> bool {
    matches!(
        e,
        ReportError::ForeignFile { .. }
            | ReportError::NotAFolder { .. }
            | ReportError::BadName { .. }
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn one_folder_per_contract_only_when_several() {
        let out = Path::new("o");
        assert_eq!(artifact_folder(Some(out), false, "c"), out);
        assert_eq!(artifact_folder(Some(out), true, "c"), out.join("c"));
        assert_eq!(
            artifact_folder(None, false, "c"),
            Path::new(".pactum/strength/c")
        );
        // An id is never a path: no folder outside `out`.
        let odd = artifact_folder(Some(out), true, "../../etc");
        assert_eq!(odd.parent(), Some(out), "{}", odd.display());
    }

    #[test]
    fn a_file_pactum_did_not_write_is_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(PROBE_SET_FILE), "mine\n").unwrap();
        let e = write_run(dir.path(), &[], &[]).unwrap_err();
        assert!(refused_before_writing(&e), "{e}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(PROBE_SET_FILE)).unwrap(),
            "mine\n"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_second_run_replaces_what_the_first_wrote() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), &[], &[]).unwrap();
        write_run(dir.path(), &[], &[]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join(PROBE_SET_FILE)).unwrap(),
            ""
        );
    }
}
