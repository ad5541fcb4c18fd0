//! `pactum strength`, `pactum aggregate` and `pactum compare` (SPEC §3.8;
//! `docs/strength.md`): flags to a request, one call to
//! `pactum_pipeline::strength`, the result rendered by
//! `pactum_report::strength`, and the exit code.

use std::io::Write;

use pactum_core::digest::canonical_json;
use pactum_core::strength::Ladder;
use pactum_pipeline::strength::{AggregateRequest, CompareRequest, StrengthRequest};
use pactum_report::strength::{render_aggregate, render_compare, render_refusal, render_summary};

use crate::error::{CliError, CliResult};
use crate::exit::Exit;
use crate::grade::import_options;
use crate::sink::CliSink;
use crate::{AggregateArgs, CompareArgs, StrengthArgs};

/// Prints `text` (or, with `--json`, the canonical JSON of `model`) on
/// stdout; a closed stdout is not an error.
fn print(json: bool, model: &impl serde::Serialize, text: impl FnOnce() -> String) {
    let mut stdout = std::io::stdout().lock();
    let _ = if json {
        writeln!(
            stdout,
            "{}",
            pactum_report::terminal_safe_json(&canonical_json(model))
        )
    } else {
        stdout.write_all(text().as_bytes())
    };
}

/// `pactum strength`: contracts + clean traces (+ authored probes) →
/// artifacts per contract and a summary; exit 0 PASS, 1 FAIL, 3 CONCERNS
/// (the worst contract's verdict), 5 when some trace records could not be
/// read, 2 on bad input.
pub fn strength(args: StrengthArgs, color: bool) -> Exit {
    strength_inner(args, color).unwrap_or_else(CliError::report)
}

fn strength_inner(args: StrengthArgs, color: bool) -> CliResult {
    let mut sink = CliSink::stderr_only(color);
    let req = StrengthRequest {
        import: import_options(&args.import).map_err(CliError::usage)?,
        contracts: args.contracts,
        traces: args.traces,
        policy: args.policy,
        trials: args.trials,
        probes: args.probes,
        probes_from: args.probes_from,
        out: args.out,
        html: args.html.clone(),
    };
    let page_to_stdout = args.html.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if page_to_stdout && args.json {
        return Err(CliError::usage(
            "--json and --html - both write to standard output (`-`); give the page a file: nothing was run",
        ));
    }
    let outcome = pactum_pipeline::strength::strength(&req, &mut sink)?;
    let s = &outcome.summary;
    if !page_to_stdout {
        print(args.json, s, || render_summary(s));
    }
    if let Some(path) = &args.html {
        if let Err(e) = pactum_report::html::write_strength_html(path, s) {
            if !e.is_broken_pipe() {
                crate::output::eprint(&format!(
                    "error: HTML report: {}; it was not written (its file keeps its previous content)",
                    pactum_report::with_causes(&e)
                ));
                return Ok(Exit::Partial);
            }
        }
    }
    Ok(if s.input_errors > 0 {
        Exit::Partial
    } else {
        match s.verdict {
            Ladder::Pass => Exit::Pass,
            Ladder::Concerns => Exit::Incomplete,
            Ladder::Fail => Exit::Fail,
        }
    })
}

/// `pactum aggregate`: run-wide class rates against declared floors;
/// exit 0 every declared floor met, 1 one not met, 4 refused (nothing on
/// stdout), 2 bad input.
pub fn aggregate_cmd(args: AggregateArgs, color: bool) -> Exit {
    aggregate_inner(args, color).unwrap_or_else(CliError::report)
}

fn aggregate_inner(args: AggregateArgs, color: bool) -> CliResult {
    let mut sink = CliSink::stderr_only(color);
    let req = AggregateRequest {
        artifacts: args.artifacts,
        policy: args.policy,
        floors: args.floors,
    };
    let outcome = pactum_pipeline::strength::aggregate(&req, &mut sink)?;
    let agg = outcome.result.map_err(|refusal| CliError {
        exit: Exit::Refused,
        message: Some(render_refusal(&refusal, &outcome.files)),
    })?;
    print(args.json, &agg, || {
        render_aggregate(&agg, outcome.files.len())
    });
    Ok(
        if agg.classes.iter().any(|c| c.meets_floor == Some(false)) {
            Exit::Fail
        } else {
            Exit::Pass
        },
    )
}

/// `pactum compare A B`: the four-valued dominance of two artifact sets;
/// exit 0 whenever the comparison was made (whatever its answer), 2 on
/// bad input.
pub fn compare_cmd(args: CompareArgs, color: bool) -> Exit {
    compare_inner(args, color).unwrap_or_else(CliError::report)
}

fn compare_inner(args: CompareArgs, color: bool) -> CliResult {
    let mut sink = CliSink::stderr_only(color);
    let page_to_stdout = args.html.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if page_to_stdout && args.json {
        return Err(CliError::usage(
            "--json and --html - both write to standard output (`-`); give the page a file: nothing was compared",
        ));
    }
    let req = CompareRequest {
        a: args.a,
        b: args.b,
        policy: args.policy,
        html: args.html.clone(),
    };
    let summary = pactum_pipeline::strength::compare(&req, &mut sink)?;
    if !page_to_stdout {
        print(args.json, &summary, || render_compare(&summary));
    }
    if let Some(path) = &args.html {
        if let Err(e) = pactum_report::html::write_compare_html(path, &summary) {
            if !e.is_broken_pipe() {
                crate::output::eprint(&format!(
                    "error: HTML report: {}; it was not written (its file keeps its previous content)",
                    pactum_report::with_causes(&e)
                ));
                return Ok(Exit::Partial);
            }
        }
    }
    Ok(Exit::Pass)
}
