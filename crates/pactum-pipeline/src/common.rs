//! What several pipelines share: the store they open, how a stored run
//! is named, and the warnings every report ends with.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pactum_core::text::one_line;
use pactum_core::TestStatus;
use pactum_report::{MissingTrial, Protected, RunEnd, Warning};
use pactum_store::{RunId, Store, StoreError};
use pactum_suite::{Diagnostic, DiagnosticLevel};

use crate::{PipelineError, Sink};

/// The store a command uses: `db`, else `.pactum/pactum.db`.
pub fn store_path(db: Option<&Path>) -> PathBuf {
    db.map_or_else(
        || PathBuf::from(pactum_store::DEFAULT_PATH),
        Path::to_path_buf,
    )
}

/// The store a command may touch, whether it opens it or not: never a
/// report's destination.
pub fn store_protected(db: Option<&Path>) -> Protected {
    Protected::store(store_path(db))
}

/// Opens a store that must already exist for reading only (`runs`,
/// `show`): works on a read-only file, folder or file system, and creates
/// or changes no file beside the store, not even a `-wal` or `-shm`
/// ([`Store::open_untouched`]; a caller checks [`Store::unchanged`] after
/// reading). A store too old to read as it is is refused, never upgraded.
///
/// # Errors
/// The store's error, naming the path.
pub fn open_store_to_read(db: Option<&Path>) -> Result<Store, StoreError> {
    Store::open_untouched(&store_path(db))
}

/// The run a prefix names, with its row.
///
/// # Errors
/// The store's error (an unknown or ambiguous prefix among them).
pub fn stored_run(
    store: &Store,
    prefix: &str,
) -> Result<(RunId, pactum_store::RunRow), PipelineError> {
    let id = store.resolve_run(prefix)?;
    match store.run(&id)? {
        Some(row) => Ok((id, row)),
        None => Err(PipelineError::Invalid(format!(
            "run {} is not in the store",
            id.as_str()
        ))),
    }
}

/// A stored run's name in reports: `run RUN_ID (SUITE_FILE)`, the suite by
/// its file name (the store keeps the absolute path).
pub fn run_name(id: &str, suite_path: &str) -> String {
    let suite = Path::new(suite_path).file_name().map_or_else(
        || suite_path.to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    format!("run {id} ({suite})")
}

/// The command that resumes run `id` of `suite`, ready to paste into a
/// shell: `--db` is named when the run is not in the default store.
pub fn resume_command(suite: &str, id: &str, db: Option<&Path>) -> String {
    let q = |s: &str| {
        // A path a terminal would mangle (controls, escapes) cannot be shown
        // as typed: say so rather than print a command naming another file.
        if pactum_core::text::strip_terminal_escapes(s) != s || s.contains(['\n', '\t']) {
            return "<PATH: it holds control characters; type it yourself>".to_string();
        }
        shlex::try_quote(s)
            .map(|c| c.into_owned())
            .unwrap_or_else(|_| format!("{s:?}"))
    };
    let mut cmd = format!("pactum run {} --resume {}", q(suite), q(id));
    if let Some(db) = db {
        cmd.push_str(&format!(" --db {}", q(&db.display().to_string())));
    }
    cmd
}

/// Ends a stored run's reports: each planned trial in `missing` is
/// reported missing (the run is then partial, and JUnit counts it as an
/// error), then `warnings`.
pub fn finish_stored(sink: &mut dyn Sink, warnings: Vec<Warning>, missing: &[(String, u32)]) {
    for (test_id, k) in missing {
        sink.missing_trial(&MissingTrial {
            test_id: test_id.clone(),
            trial_index: *k,
            trace_id: pactum_runner::trace_id(test_id, *k),
        });
    }
    sink.finish(&RunEnd {
        inputs: vec![],
        warnings,
        openprose: vec![],
    });
}

/// Counts by status: what a command's exit code is decided from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusCounts(pub BTreeMap<TestStatus, u64>);

impl StatusCounts {
    /// Counts one more of `status`.
    pub fn add(&mut self, status: TestStatus) {
        *self.0.entry(status).or_default() += 1;
    }
    /// How many had `status`.
    pub fn get(&self, status: TestStatus) -> u64 {
        self.0.get(&status).copied().unwrap_or(0)
    }
}

/// The warnings among load diagnostics, as run-level report warnings
/// (`file:line:column: message (hint)`, the code kept), so what loading
/// printed to stderr also reaches the JSON, JUnit and terminal reports.
pub fn diagnostic_warnings(diags: &[Diagnostic]) -> impl Iterator<Item = Warning> + '_ {
    diags
        .iter()
        .filter(|d| d.level == DiagnosticLevel::Warning)
        .map(|d| Warning {
            code: d.code.clone(),
            message: format!(
                "{}:{}:{}: {}{}",
                d.file.display(),
                d.line,
                d.column,
                d.message,
                d.hint.as_ref().map_or(String::new(), |h| format!(" ({h})"))
            ),
        })
}

/// The name tally's warnings (`tool-name-near-miss`, `unoffered-tool`…)
/// as report warnings.
pub fn name_warnings(names: &pactum_eval::NameWarnings) -> impl Iterator<Item = Warning> {
    names.warnings().into_iter().map(|w| Warning {
        code: w.code.into(),
        message: w.message,
    })
}

/// The name tally of a stored run: the names its stored contract
/// snapshots (by digest) check. A snapshot that cannot be read checks
/// nothing here; grading reports it.
pub fn stored_names<'a>(
    store: &Store,
    digests: impl Iterator<Item = &'a String>,
) -> pactum_eval::NameWarnings {
    let contracts: Vec<pactum_core::Contract> = digests
        .filter_map(|d| store.contract(d).ok().flatten())
        .collect();
    pactum_eval::NameWarnings::new(&contracts)
}

/// A run's contract snapshot that does not read back, for `show` (which
/// prints the results as stored) and `rescore` (which cannot grade them
/// again): what is wrong, naming the run and a test that cites it.
pub fn unreadable_snapshot(run: &RunId, test: &str, e: &StoreError) -> Warning {
    let code = match e {
        StoreError::KindlessRefusal { .. } => "outdated-contract",
        _ => "unreadable-contract",
    };
    Warning {
        code: code.into(),
        message: format!("run {}, test `{}`: {e}", run.as_str(), one_line(test, 120)),
    }
}

/// How the authored test of `r` was read, for the reports' interpretation
/// panel (the JSON report's `interpretation`): its authored fields, the
/// interpreter and its confidence (from the trace's metadata), the
/// contract it was scored against with each clause's source field and
/// note (`source_notes`), and where its conversation stopped. `None` when
/// `src` records no authored fields (the test is not an authored one).
pub(crate) fn reading_of(
    r: &pactum_core::TraceResult,
    src: &pactum_runner::ReadingSource,
) -> Option<pactum_report::Reading> {
    use pactum_report::{AuthoredFields, ConversationEnd, ReadClause, ReadContract, Reading};
    use serde_json::Value;
    let meta = &src.metadata;
    let authored: AuthoredFields = serde_json::from_value(meta.get("authored")?.clone()).ok()?;
    let test_id = match meta.get("test").and_then(Value::as_str) {
        Some(t) => t.to_string(),
        None => r
            .trace_id
            .rsplit_once('#')
            .map_or(r.trace_id.as_str(), |(t, _)| t)
            .to_string(),
    };
    let interp = meta.get("interpretation").filter(|i| i.is_object());
    let get = |k: &str| interp.and_then(|i| i.get(k));
    let contract = src.contract.as_ref().map(|snap| {
        let c = &snap.contract;
        let note = |id: &str| {
            let notes: Vec<&pactum_core::contract::SourceNote> =
                c.source_notes.iter().filter(|n| n.clause == id).collect();
            let field = notes.first().map(|n| n.field.clone());
            let text: Vec<&str> = notes
                .iter()
                .map(|n| n.note.as_str())
                .filter(|n| !n.is_empty())
                .collect();
            (field, (!text.is_empty()).then(|| text.join("; ")))
        };
        let clause = |id: &str, kind: &str, text: &str| {
            let (field, note) = note(id);
            ReadClause {
                id: id.to_string(),
                kind: kind.to_string(),
                text: text.to_string(),
                field,
                note,
            }
        };
        let clauses = c
            .required
            .iter()
            .map(|x| clause(&x.id, "required", &x.text))
            .chain(
                c.prohibited
                    .iter()
                    .map(|x| clause(&x.id, "prohibited", &x.text)),
            )
            .chain(
                c.conditional
                    .iter()
                    .map(|x| clause(&x.id, "conditional", &x.then.text)),
            )
            .collect();
        ReadContract {
            id: c.id.clone(),
            digest: snap.digest.clone(),
            simulated_user_objective: c.simulated_user_objective.clone(),
            adversarial: c.adversarial,
            clauses,
        }
    });
    let ended = match (src.turns, meta.get("ended")) {
        (Some(turns), Some(e)) => Some(ConversationEnd {
            turns,
            reason: e
                .get("reason")
                .and_then(Value::as_str)
                .unwrap_or("not recorded")
                .to_string(),
            clause: e.get("clause").and_then(Value::as_str).map(str::to_string),
        }),
        _ => None,
    };
    Some(Reading {
        test_id,
        authored,
        interpreter: get("source").cloned(),
        confidence: get("confidence")
            .and_then(Value::as_u64)
            .and_then(|c| u8::try_from(c).ok()),
        usable: get("usable").and_then(Value::as_bool),
        reason: get("reason").and_then(Value::as_str).map(str::to_string),
        contract,
        ended,
    })
}

/// [`reading_of`] a stored trial, whose result is `r` (the stored one, or
/// a re-score of it): the contract snapshot is read from `store` only for
/// a trial of an authored test.
pub(crate) fn stored_reading(
    store: &Store,
    t: &pactum_store::StoredTrial,
    r: &pactum_core::TraceResult,
) -> Option<pactum_report::Reading> {
    let trace = t.trace.as_ref()?;
    trace.metadata.get("authored").filter(|a| a.is_object())?;
    let contract = t.contract_digest.as_deref().and_then(|d| {
        store
            .contract(d)
            .ok()
            .flatten()
            .map(|c| pactum_store::ContractSnapshot {
                digest: d.to_string(),
                contract: c,
            })
    });
    let src = pactum_runner::ReadingSource::of_stored(Some(trace), contract)?;
    reading_of(r, &src)
}

#[cfg(test)]
mod resume_hint_tests {
    use super::resume_command;
    use std::path::PathBuf;

    #[test]
    fn the_hint_is_ready_to_paste_or_says_why_not() {
        assert_eq!(
            resume_command("suite.yaml", "r1", None),
            "pactum run suite.yaml --resume r1"
        );
        assert_eq!(
            resume_command("my suite.yaml", "r1", Some(&PathBuf::from("/tmp/a b'.db"))),
            "pactum run 'my suite.yaml' --resume r1 --db \"/tmp/a b'.db\""
        );
        let odd = resume_command("s.yaml", "r1", Some(&PathBuf::from("/tmp/x\u{1b}[2J\n.db")));
        assert!(
            odd.ends_with("--db <PATH: it holds control characters; type it yourself>"),
            "{odd}"
        );
    }
}
