//! `pactum interpret` (review how authored tests were restated as
//! contracts, SPEC §3.6) and `pactum rescore` (grade stored traces again
//! against the contract snapshot stored with each result).

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::sync::{Arc, Mutex};

use pactum_core::text::one_line;
use pactum_core::Contract;
use pactum_interpret::InterpreterSource;
use pactum_pipeline::common::store_path;
use pactum_runner::{Looked, Runner};
use pactum_store::Store;
use serde_json::Value;

use crate::error::{CliError, CliResult};
use crate::exit::Exit;
use crate::output::with_causes;
use crate::sink::CliSink;
use crate::{InterpretArgs, RescoreArgs};

/// `pactum interpret SUITE [--refresh]`.
pub fn interpret(args: InterpretArgs, color: bool) -> CliResult {
    let diag_color = crate::output::stderr_color(color);
    let suite = pactum_pipeline::run::prepare(&args.suite, &mut |d| {
        crate::grade::print_diagnostics(d, diag_color)
    })?
    .into_suite();
    let runner = Runner::new(suite).map_err(|e| CliError::usage(with_causes(&e)))?;
    let store = Arc::new(Mutex::new(Store::open(&store_path(args.db.as_deref()))?));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError {
            exit: Exit::Failure,
            message: Some(format!("cannot start the async runtime: {e}")),
        })?;
    let reviews = rt
        .block_on(runner.review(store, args.refresh))
        .map_err(|e| CliError {
            exit: crate::exit::for_run_error(&e),
            message: Some(with_causes(&e)),
        })?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if args.json {
        let v: Vec<Value> = reviews
            .iter()
            .map(|r| {
                serde_json::json!({
                    "test": r.test_id,
                    "looked_up": looked_key(r.looked),
                    "interpretation": r.interpretation,
                    "scored_contract": r.scoring,
                })
            })
            .collect();
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&v).unwrap_or_else(|_| "[]".into())
        );
    } else if reviews.is_empty() {
        let _ = writeln!(
            out,
            "no authored test in {} (nothing to interpret)",
            args.suite.display()
        );
    }
    let mut incomplete = false;
    for r in &reviews {
        if args.json {
            incomplete |= !r.interpretation.as_ref().is_some_and(|i| i.usable);
            continue;
        }
        let _ = writeln!(out);
        let Some(i) = &r.interpretation else {
            incomplete = true;
            let _ = writeln!(
                out,
                "{}: not interpreted yet — `pactum interpret {} --refresh` (or `pactum run`) asks the interpreter model",
                r.test_id,
                args.suite.display()
            );
            continue;
        };
        let from = match (&i.source, r.looked) {
            (_, Looked::Explicit) => "the test's own contract".to_string(),
            (InterpreterSource::Builtin { version }, l) => {
                format!("built-in interpreter {version}, {}", looked(l))
            }
            (
                InterpreterSource::Model {
                    model,
                    prompt_version,
                },
                l,
            ) => {
                format!("model {model} ({prompt_version}), {}", looked(l))
            }
            (InterpreterSource::Explicit, _) => "the test's own contract".to_string(),
        };
        if i.usable {
            let _ = writeln!(
                out,
                "{}: usable — {from}, confidence {}",
                r.test_id, i.confidence
            );
        } else {
            incomplete = true;
            let _ = writeln!(
                out,
                "{}: UNUSABLE — {from}, confidence {}: {}",
                r.test_id,
                i.confidence,
                one_line(i.reason.as_deref().unwrap_or("no reason given"), 400)
            );
        }
        if let Some(c) = &i.contract {
            print_contract(&mut out, c);
        }
        for f in &i.lint {
            let _ = writeln!(
                out,
                "    lint {}: {} ({})",
                f.code,
                one_line(&f.message, 200),
                one_line(&f.hint, 160)
            );
        }
        if let Some(s) = &r.scoring {
            if let Some(d) = &s.description {
                let _ = writeln!(out, "    scored as: {}", one_line(d, 300));
            }
        }
    }
    let _ = out.flush();
    Ok(if incomplete {
        Exit::Incomplete
    } else {
        Exit::Pass
    })
}

/// The machine-readable name of where an interpretation came from.
fn looked_key(l: Looked) -> &'static str {
    match l {
        Looked::Cached => "cached",
        Looked::Fresh => "fresh",
        Looked::Explicit => "explicit",
        Looked::NotYet => "not_interpreted",
    }
}

fn looked(l: Looked) -> &'static str {
    match l {
        Looked::Cached => "from the store",
        Looked::Fresh => "interpreted now",
        Looked::Explicit => "explicit",
        Looked::NotYet => "not interpreted",
    }
}

fn print_contract(out: &mut impl Write, c: &Contract) {
    let notes: BTreeMap<&str, Vec<&pactum_core::contract::SourceNote>> =
        c.source_notes.iter().fold(BTreeMap::new(), |mut m, n| {
            m.entry(n.clause.as_str()).or_default().push(n);
            m
        });
    let mut clause = |kind: &str,
                      id: &str,
                      text: &str,
                      sev: &str,
                      check: Option<String>,
                      judge: Option<&str>| {
        let _ = writeln!(
            out,
            "    {kind:<10} {id}  ({sev})  “{}”",
            one_line(text, 200)
        );
        if let Some(ch) = check {
            let _ = writeln!(out, "               check: {}", one_line(&ch, 200));
        }
        if let Some(j) = judge {
            let _ = writeln!(out, "               judge: {}", one_line(j, 200));
        }
        for n in notes.get(id).into_iter().flatten() {
            let _ = writeln!(
                out,
                "               from {}: {}",
                n.field,
                one_line(&n.note, 240)
            );
        }
    };
    for x in &c.required {
        clause(
            "required",
            &x.id,
            &x.text,
            x.severity.as_str(),
            x.check.as_ref().map(|p| p.describe()),
            x.judge.as_deref(),
        );
    }
    for x in &c.prohibited {
        clause(
            "prohibited",
            &x.id,
            &x.text,
            x.severity.as_str(),
            x.check.as_ref().map(|p| p.describe()),
            x.judge.as_deref(),
        );
    }
    for x in &c.conditional {
        clause(
            &format!("when {}", x.when.describe()),
            &x.id,
            &x.then.text,
            x.then.severity.as_str(),
            x.then.check.as_ref().map(|p| p.describe()),
            x.then.judge.as_deref(),
        );
    }
    if let Some(o) = &c.simulated_user_objective {
        let _ = writeln!(
            out,
            "    simulated user: {}{}",
            one_line(o, 240),
            if c.adversarial {
                " (adversarial: presses harder)"
            } else {
                ""
            }
        );
    }
}

/// `pactum rescore RUN`: grades every stored trace again against the
/// contract snapshot stored with its result — never re-interpreting
/// ([`pactum_pipeline::stored::PreparedRescore::rescore`]).
pub fn rescore(args: RescoreArgs, color: bool) -> CliResult {
    // The store is opened to find the run's suite: no report path may be
    // the store before it is opened at all.
    CliSink::check(
        &args.report,
        &[pactum_pipeline::common::store_protected(args.db.as_deref())],
    )?;
    let prepared =
        pactum_pipeline::stored::prepare_rescore(&pactum_pipeline::stored::RescoreRequest {
            run: args.run.clone(),
            suite: args.suite.clone(),
            db: args.db.clone(),
        })?;
    let mut sink = CliSink::open(&args.report, color, prepared.protected())?;
    let summary = prepared.rescore(&mut sink)?;
    Ok(crate::run::stored_exit(&summary))
}
