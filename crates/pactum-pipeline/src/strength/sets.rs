//! `aggregate` and `compare`: artifact sets read back from their folders
//! and judged by `pactum_core::strength`.

use std::fs;
use std::path::{Path, PathBuf};

use pactum_core::policy::Policy;
use pactum_core::strength::{
    Aggregate, AggregateRefusal, ClassFloors, Comparison, EvidenceArtifact, EvidenceSet,
    PolicyRecord,
};
use pactum_core::text::one_line;
use pactum_report::strength::{explain_comparison, CompareSummary, SideSummary, SUMMARY_VERSION};
use pactum_report::{with_causes, OutputFolder};
use pactum_suite::load_policy;

use crate::{PipelineError, Sink};

/// The artifact files named by `args`: a folder's top-level `*.json`
/// files (sorted by name; only those its manifest lists when it has one,
/// so a file of the user's beside the artifacts is not read as one), a
/// file as given.
///
/// # Errors
/// [`PipelineError::Invalid`] naming a path that does not exist, a folder
/// with no artifact, or an unreadable folder or manifest.
pub fn artifact_files(args: &[PathBuf]) -> Result<Vec<PathBuf>, PipelineError> {
    let mut out = Vec::new();
    for p in args {
        if p.is_dir() {
            let listed =
                OutputFolder::listed(p).map_err(|e| PipelineError::Invalid(with_causes(&e)))?;
            let mut files: Vec<PathBuf> = fs::read_dir(p)
                .map_err(|e| PipelineError::Invalid(format!("{}: {e}", p.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "json"))
                .filter(|f| {
                    listed.as_ref().is_none_or(|l| {
                        f.file_name()
                            .is_some_and(|n| l.contains(n.to_string_lossy().as_ref()))
                    })
                })
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(PipelineError::Invalid(format!(
                    "{}: the folder holds no strength artifact (*.json); name the --out folder of a `pactum strength` run",
                    p.display()
                )));
            }
            out.extend(files);
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            return Err(PipelineError::Invalid(format!(
                "{}: no such file or folder",
                p.display()
            )));
        }
    }
    Ok(out)
}

/// Reads each of `files` as one strength artifact, in order.
///
/// # Errors
/// [`PipelineError::Invalid`] naming the file (and line and column) that
/// cannot be read or is not an artifact; an artifact of another format
/// version is named by its version and what to do.
pub fn read_artifacts(files: &[PathBuf]) -> Result<Vec<EvidenceArtifact>, PipelineError> {
    files.iter().map(|f| read_artifact(f)).collect()
}

fn read_artifact(f: &Path) -> Result<EvidenceArtifact, PipelineError> {
    let bytes = fs::read(f).map_err(|e| PipelineError::Invalid(format!("{}: {e}", f.display())))?;
    serde_json::from_slice::<EvidenceArtifact>(&bytes).map_err(|e| {
        // An artifact of another format version fails on its first
        // changed field; name the version instead.
        let version = serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .and_then(|v| v.get("version").and_then(serde_json::Value::as_u64));
        let current = u64::from(pactum_core::strength::STRENGTH_ARTIFACT_VERSION);
        if let Some(v) = version.filter(|v| *v != current) {
            let fix = if v > current {
                "a newer pactum wrote it: upgrade pactum to read it"
            } else {
                "run `pactum strength` again to regenerate it"
            };
            return PipelineError::Invalid(format!(
                "{}: a strength artifact of format version {v}; this pactum reads version {current}: {fix}",
                f.display()
            ));
        }
        PipelineError::Invalid(format!(
            "{}:{}:{}: not a strength artifact: {}",
            f.display(),
            e.line(),
            e.column(),
            one_line(&e.to_string(), 200)
        ))
    })
}

/// `floors` (each `CLASS=RATE`, as `--floors` takes them) over the
/// policy file's `base`: a class given here replaces the policy's floor.
///
/// # Errors
/// A message naming the item that is not `CLASS=RATE`, not a number, or
/// not a class with a floor (SPEC §3.8: defect, gameability, zero_action).
pub fn parse_floors(items: &[String], mut floors: ClassFloors) -> Result<ClassFloors, String> {
    for item in items {
        let Some((class, value)) = item.split_once('=') else {
            return Err(format!(
                "--floors: `{}` is not CLASS=RATE (e.g. defect=0.75)",
                one_line(item, 60)
            ));
        };
        let rate: f64 = value.trim().parse().map_err(|_| {
            format!(
                "--floors: `{}` is not a number (a rate in [0, 1])",
                one_line(value, 60)
            )
        })?;
        match class.trim() {
            "defect" => floors.defect = Some(rate),
            "gameability" => floors.gameability = Some(rate),
            "zero_action" => floors.zero_action = Some(rate),
            other => {
                return Err(format!(
                    "--floors: unknown class `{}` (defect, gameability or zero_action)",
                    one_line(other, 60)
                ))
            }
        }
    }
    Ok(floors)
}

/// What `pactum aggregate` is asked.
#[derive(Debug, Clone)]
pub struct AggregateRequest {
    /// Artifact folders or files ([`artifact_files`]).
    pub artifacts: Vec<PathBuf>,
    /// The scoring policy file the artifacts must have been scored under.
    pub policy: PathBuf,
    /// `CLASS=RATE` floors over the policy's ([`parse_floors`]).
    pub floors: Vec<String>,
}

/// What `pactum aggregate` found.
#[derive(Debug)]
pub struct AggregateOutcome {
    /// The artifact files read, in order (a refusal's `#N` is `files[N]`).
    pub files: Vec<PathBuf>,
    /// The aggregate, or why the set is not one consistent measurement
    /// (SPEC §3.8: refused, never a number).
    pub result: Result<Aggregate, AggregateRefusal>,
}

/// `pactum aggregate`: the run-wide class rates of an artifact set against
/// the declared floors (SPEC §3.8; the rules are
/// [`pactum_core::strength::aggregate`]'s).
///
/// # Errors
/// [`PipelineError::Rejected`] after the policy file's diagnostics went to
/// `sink`; [`PipelineError::Invalid`] for a bad `--floors` item or an
/// unreadable artifact set.
pub fn aggregate(
    req: &AggregateRequest,
    sink: &mut dyn Sink,
) -> Result<AggregateOutcome, PipelineError> {
    let loaded = match load_policy(&req.policy) {
        Ok(p) => p,
        Err(diags) => {
            sink.diagnostics(&diags);
            return Err(PipelineError::Rejected);
        }
    };
    let floors = parse_floors(&req.floors, loaded.floors).map_err(PipelineError::Invalid)?;
    let files = artifact_files(&req.artifacts)?;
    let artifacts = read_artifacts(&files)?;
    let result = pactum_core::strength::aggregate(
        &artifacts,
        &loaded.policy,
        &floors,
        env!("CARGO_PKG_VERSION"),
    );
    Ok(AggregateOutcome { files, result })
}

/// What `pactum compare` is asked.
#[derive(Debug, Clone)]
pub struct CompareRequest {
    /// The first side's artifact folder (or file).
    pub a: PathBuf,
    /// The second side's.
    pub b: PathBuf,
    /// The scoring policy file (default: the one A's first artifact
    /// records, else B's).
    pub policy: Option<PathBuf>,
    /// Where the caller will write the comparison's HTML page: checked
    /// here, before anything is read, never to be one of the inputs (an
    /// artifact, the policy).
    pub html: Option<PathBuf>,
}

/// `pactum compare A B`: the four-valued dominance of two artifact sets
/// (SPEC §3.8; the rules are [`pactum_core::strength::compare`]'s), as
/// the summary `--json` prints.
///
/// # Errors
/// [`PipelineError::Invalid`] for an unreadable side or when neither side
/// holds an artifact; [`PipelineError::Rejected`] after the policy file's
/// diagnostics went to `sink`.
pub fn compare(req: &CompareRequest, sink: &mut dyn Sink) -> Result<CompareSummary, PipelineError> {
    if let Some(html) = &req.html {
        let mut protected = vec![
            pactum_report::Protected::folder("an artifact set", &req.a),
            pactum_report::Protected::folder("an artifact set", &req.b),
        ];
        protected.extend(
            req.policy
                .iter()
                .map(|p| pactum_report::Protected::input("the policy", p)),
        );
        if let Err(e) =
            pactum_report::check_outputs(&[pactum_report::Output::file("--html", html)], &protected)
        {
            return Err(PipelineError::Invalid(e.to_string()));
        }
    }
    let read = |p: &PathBuf| -> Result<Vec<EvidenceArtifact>, PipelineError> {
        read_artifacts(&artifact_files(std::slice::from_ref(p))?)
    };
    let (a, b) = match (read(&req.a), read(&req.b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let policy: Policy = match &req.policy {
        Some(p) => match load_policy(p) {
            Ok(l) => l.policy,
            Err(diags) => {
                sink.diagnostics(&diags);
                return Err(PipelineError::Rejected);
            }
        },
        None => match a.first().or(b.first()) {
            Some(x) => x.policy.policy(),
            None => {
                return Err(PipelineError::Invalid(
                    "neither side holds an artifact".into(),
                ))
            }
        },
    };
    let (a, b) = (EvidenceSet::new(a), EvidenceSet::new(b));
    let Comparison {
        dominance,
        reason,
        a: va,
        b: vb,
    } = pactum_core::strength::compare(&a, &b, &policy);
    Ok(CompareSummary {
        version: SUMMARY_VERSION,
        command: "compare",
        dominance,
        explanation: explain_comparison(&reason),
        reason,
        a: SideSummary::of(&req.a, &a.artifacts, va),
        b: SideSummary::of(&req.b, &b.artifacts, vb),
        policy: PolicyRecord::of(&policy),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn floors_override_the_policy_and_refuse_what_they_do_not_know() {
        let base = ClassFloors {
            defect: Some(0.5),
            gameability: Some(0.25),
            ..ClassFloors::default()
        };
        let f = parse_floors(&["defect=0.75".into(), " zero_action = 1".into()], base).unwrap();
        assert_eq!(f.defect, Some(0.75));
        assert_eq!(f.gameability, Some(0.25));
        assert_eq!(f.zero_action, Some(1.0));
        for (bad, says) in [
            ("defect", "is not CLASS=RATE"),
            ("defect=high", "is not a number"),
            ("canary=0.5", "unknown class `canary`"),
            ("clean_control=1", "unknown class"),
        ] {
            let e = parse_floors(&[bad.into()], ClassFloors::default()).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn a_user_file_beside_the_artifacts_is_not_read_as_one() {
        let dir = tempfile::tempdir().unwrap();
        let folder = OutputFolder::prepare(dir.path(), ["a.json".to_string()].into()).unwrap();
        folder.write("a.json", b"{}").unwrap();
        folder.finish().unwrap();
        std::fs::write(dir.path().join("mine.json"), "{}").unwrap();
        let files = artifact_files(&[dir.path().to_path_buf()]).unwrap();
        assert_eq!(files, vec![dir.path().join("a.json")]);
        // Not an artifact: named with line and column, never a default.
        let e = read_artifacts(&files).unwrap_err().to_string();
        assert!(
            e.contains("a.json:1:") && e.contains("not a strength artifact"),
            "{e}"
        );
    }

    #[test]
    fn an_empty_folder_or_a_missing_path_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = artifact_files(&[dir.path().to_path_buf()]).unwrap_err();
        assert!(e.to_string().contains("holds no strength artifact"), "{e}");
        let e = artifact_files(&[dir.path().join("nope")]).unwrap_err();
        assert!(e.to_string().contains("no such file or folder"), "{e}");
    }
}
