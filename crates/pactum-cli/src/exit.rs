//! The one exit-code table of the `pactum` binary. README.md and `--help`
//! print [`TABLE`]; every code is covered by an end-to-end test.

/// How a `pactum` command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// 0: every graded test passed.
    Pass = 0,
    /// 1: at least one test failed (a clause was violated).
    Fail = 1,
    /// 2: usage error or invalid input (a contract, expectations or policy
    /// file with errors, an unreadable trace file, an input with no
    /// readable trace, a bad flag): nothing was graded.
    Usage = 2,
    /// 3: no test failed, but some ended undetermined (WARN) or error (ERR):
    /// the verdicts are incomplete.
    Incomplete = 3,
    /// 4: refused: an inconsistent set of artifacts (reserved for
    /// `pactum aggregate`).
    Refused = 4,
    /// 5: partial: some records or files could not be read (each reported
    /// with file and line; everything readable was graded), a stored run
    /// is missing some of its planned trials, or a requested report could
    /// not be written in full.
    Partial = 5,
    /// 6: the store or the machine failed: the store could not be opened,
    /// read or written (disk full, read-only file system, a damaged or
    /// truncated file, a store from a newer pactum), or pactum failed
    /// internally. The message names the cause; nothing stored before is
    /// lost, and a run stopped this way can be resumed.
    Failure = 6,
    /// 130: interrupted (Ctrl-C or SIGTERM): every finished trial is
    /// stored; resume with `pactum run SUITE --resume`.
    Interrupted = 130,
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// The exit-code table, as printed by `--help` and README.md.
pub const TABLE: &str = "\
Exit codes:
  0  every graded test passed
     strength: the measurement passed (PASS); aggregate: every declared floor
     met; compare: the comparison was made (whatever its answer)
  1  at least one test failed (a clause was violated; for OpenProse runs,
     also a contract holding a clause only partly kept)
     strength: FAIL (a probe missed, a canary passed, a clean control failed,
     a broken measurement); aggregate: a class below its floor
  2  usage error or invalid input (contract, suite, expectations or policy
     file with errors, unreadable trace file, no readable trace in the
     input, an OpenProse run that cannot be read, missing API key
     variable): nothing was graded
  3  no failure, but some tests were undetermined (WARN) or error (ERR)
     strength: CONCERNS (too few trials, an unreached oracle, a coverage gap);
     interpret: some authored test is unusable or not interpreted yet
  4  refused: inconsistent set of artifacts (pactum aggregate)
  5  partial: some records or files could not be read (the rest was graded),
     a stored run lacks some of its planned trials (show and rescore say
     N of M trials stored), or a requested report could not be written in
     full; takes precedence over 1 and 3
  6  the store or the machine failed: disk full, read-only file system, a
     damaged or truncated store, a store from a newer pactum, an internal
     error; the message names the cause, nothing stored is lost, and a run
     stopped this way prints its partial report and how to resume it
  130 interrupted (Ctrl-C or SIGTERM) during `pactum run`: finished trials
     are stored; resume with `pactum run SUITE --resume`";

/// The exit code of a grading run from its totals. Partial input (records
/// that could not be read, planned trials never stored) takes precedence
/// (a failure is still printed and reported), then failure, then
/// incomplete verdicts.
pub fn for_totals(fail: u64, undetermined: u64, error: u64, partial: u64) -> Exit {
    if partial > 0 {
        Exit::Partial
    } else if fail > 0 {
        Exit::Fail
    } else if undetermined > 0 || error > 0 {
        Exit::Incomplete
    } else {
        Exit::Pass
    }
}

/// The exit code of a store failure: what the user named wrongly (no store
/// at that path, a folder, an unknown or finished run, a run another
/// process is running) is a usage error; everything else — the file, the
/// disk, the machine — is [`Exit::Failure`], never "usage".
pub fn for_store_error(e: &pactum_store::StoreError) -> Exit {
    use pactum_store::StoreError as E;
    match e {
        E::Missing { .. }
        | E::WrongKind { .. }
        | E::UnknownRun { .. }
        | E::RunNotFound { .. }
        | E::AmbiguousRun { .. }
        | E::RunState { .. }
        | E::Leased { .. } => Exit::Usage,
        _ => Exit::Failure,
    }
}

/// The exit code of a run that could not start or go on: bad input (a
/// target or judge that cannot be built, a contract that does not compile,
/// a run of another suite or already finished) is a usage error; a store
/// failure is classed by [`for_store_error`]; an internal failure is
/// [`Exit::Failure`].
pub fn for_run_error(e: &pactum_runner::RunError) -> Exit {
    use pactum_runner::RunError as R;
    match e {
        R::Store(s) => for_store_error(s),
        R::Batch(s) => for_store_error(s),
        R::Stopped { cause, .. } => for_run_error(cause),
        R::Target { .. }
        | R::Judge(_)
        | R::Interpreter(_)
        | R::SimulatedUser(_)
        | R::Contract { .. }
        | R::UnknownTarget { .. }
        | R::WrongSuite { .. }
        | R::AlreadyFinished(_) => Exit::Usage,
        _ => Exit::Failure,
    }
}

/// The exit code of a pipeline that could not start or go on: invalid
/// input and a refused report path are usage errors; the store and a run
/// are classed by [`for_store_error`] and [`for_run_error`]; an internal
/// failure is [`Exit::Failure`].
pub fn for_pipeline_error(e: &pactum_pipeline::PipelineError) -> Exit {
    use pactum_pipeline::PipelineError as P;
    match e {
        P::Invalid(_) | P::Rejected | P::Report(_) => Exit::Usage,
        P::Store(s) => for_store_error(s),
        P::Run(r) => for_run_error(r),
        P::Internal(_) => Exit::Failure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence() {
        assert_eq!(for_totals(0, 0, 0, 0), Exit::Pass);
        assert_eq!(for_totals(1, 1, 1, 0), Exit::Fail);
        assert_eq!(for_totals(0, 1, 0, 0), Exit::Incomplete);
        assert_eq!(for_totals(0, 0, 1, 0), Exit::Incomplete);
        assert_eq!(for_totals(1, 0, 0, 1), Exit::Partial);
    }

    #[test]
    fn table_lists_every_code() {
        for e in [
            Exit::Pass,
            Exit::Fail,
            Exit::Usage,
            Exit::Incomplete,
            Exit::Refused,
            Exit::Partial,
            Exit::Failure,
        ] {
            assert!(TABLE.contains(&format!("  {}  ", e.code())), "{e:?}");
        }
        assert!(TABLE.contains(&format!("  {} ", Exit::Interrupted.code())));
    }
}
