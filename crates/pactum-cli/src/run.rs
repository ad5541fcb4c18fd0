//! `pactum run`, `pactum runs` and `pactum show`: flags to the pipelines
//! of `pactum-pipeline` (live runs, stored runs), reports through
//! [`CliSink`], outcomes to exit codes.

use std::io::{BufWriter, Write};

use pactum_core::TestStatus;
use pactum_pipeline::common::store_path;
use pactum_runner::CacheMode;

use crate::error::CliResult;
use crate::exit::{self, Exit};
use crate::grade::print_diagnostics;
use crate::output::{eprint, stderr_color};
use crate::sink::CliSink;
use crate::{RunArgs, RunsArgs, ShowArgs};

/// `pactum run SUITE`: flags to a [`pactum_pipeline::run`] request, the
/// reports through [`CliSink`], the outcome to an exit code.
pub fn run(args: RunArgs, color: bool) -> CliResult {
    use pactum_pipeline::run::{prepare, Resume, RunRequest};
    let diag_color = stderr_color(color);
    let prepared = prepare(&args.suite, &mut |d| print_diagnostics(d, diag_color))?;
    // Before anything is written: a report path that is an input or the
    // store is refused here.
    let mut sink = CliSink::open(&args.report, color, &prepared.protected(args.db.as_deref()))?;
    let req = RunRequest {
        jobs: args.jobs.max(1),
        db: args.db.clone(),
        cache: if args.no_cache {
            CacheMode::Bypass
        } else if args.refresh_cache {
            CacheMode::Refresh
        } else {
            CacheMode::Use
        },
        resume: match &args.resume {
            None => None,
            Some(None) => Some(Resume::Latest),
            Some(Some(prefix)) => Some(Resume::Run(prefix.clone())),
        },
        cancel_on_signals: true,
        stop: None,
    };
    let summary = prepared.run(&req, &mut sink)?;
    let partial = if summary.report_failed {
        Exit::Partial
    } else {
        let s = &summary.statuses;
        exit::for_totals(
            s.get(TestStatus::Fail),
            s.get(TestStatus::Undetermined),
            s.get(TestStatus::Error),
            summary.missing,
        )
    };
    if let Some(cause) = &summary.stopped {
        let code = exit::for_run_error(cause);
        // A refusal before anything ran (a run another process holds) is
        // that refusal; otherwise the run was cut short.
        return Ok(if code == Exit::Usage {
            code
        } else {
            code.max(partial)
        });
    }
    let c = summary.calls;
    if !args.report.quiet {
        eprint(&format!(
            "run {}: target calls {}, {} from cache; judge calls {} sent, {} from cache",
            summary.run_id.as_str(),
            c.target_sent(),
            c.target_cached,
            c.judge.network,
            c.judge.cached
        ));
    }
    if summary.interrupted {
        return Ok(Exit::Interrupted);
    }
    Ok(partial)
}

/// `pactum runs`: the stored runs, newest first.
pub fn runs(args: RunsArgs) -> CliResult {
    let rows = pactum_pipeline::stored::runs(args.db.as_deref())?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if rows.is_empty() {
        let _ = writeln!(
            out,
            "no run in {}",
            store_path(args.db.as_deref()).display()
        );
        return Ok(Exit::Pass);
    }
    let _ = writeln!(
        out,
        "{:<22}  {:<11}  {:<24}  {:>5} {:>5} {:>5} {:>5}  suite",
        "run", "status", "started", "pass", "fail", "warn", "err"
    );
    for (r, status) in rows {
        let _ = writeln!(
            out,
            "{:<22}  {:<11}  {:<24}  {:>5} {:>5} {:>5} {:>5}  {}",
            r.id.as_str(),
            status,
            r.started_at,
            r.counts.pass,
            r.counts.fail,
            r.counts.undetermined,
            r.counts.error,
            pactum_core::text::one_line(&r.suite_path, 80)
        );
    }
    Ok(Exit::Pass)
}

/// `pactum show RUN`: reprints a stored run's report
/// ([`pactum_pipeline::stored::show`]).
pub fn show(args: ShowArgs, color: bool) -> CliResult {
    let protected = pactum_pipeline::stored::show_protected(&args.run, args.db.as_deref());
    let mut sink = CliSink::open(&args.report, color, &protected)?;
    let summary = pactum_pipeline::stored::show(&args.run, args.db.as_deref(), &mut sink)?;
    Ok(stored_exit(&summary))
}

/// The exit code of a stored run's report: partial when a report could
/// not be written in full or a planned trial is missing, else by status.
pub(crate) fn stored_exit(s: &pactum_pipeline::stored::StoredSummary) -> Exit {
    if s.report_failed {
        return Exit::Partial;
    }
    exit::for_totals(
        s.statuses.get(TestStatus::Fail),
        s.statuses.get(TestStatus::Undetermined),
        s.statuses.get(TestStatus::Error),
        s.missing,
    )
}
