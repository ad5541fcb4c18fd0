//! `pactum interpret` (review how authored tests were restated as
//! contracts, SPEC §3.6) and `pactum rescore` (grade stored traces again
//! against the contract snapshot stored with each result).

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::sync::{Arc, Mutex};

use pactum_core::text::one_line;
use pactum_core::{Contract, TestStatus};
use pactum_eval::{grade_trace, CompiledContract};
use pactum_interpret::{authored_digest, AuthoredFields, InterpreterSource};
use pactum_report::{ContractInfo, Protected, RunInfo, Warning};
use pactum_runner::{Looked, Runner};
use serde_json::Value;

use crate::exit::Exit;
use crate::grade::{reporters, store_protected};
use crate::output::eprint;
use crate::run::{
    finish_stored, open_existing_store, open_store, prepare, store_failure, stored_gaps,
    stored_run, suite_protected,
};
use crate::sink::CliSink;
use crate::{InterpretArgs, RescoreArgs};

/// The message a stale re-score carries (SPEC §3.6).
pub const STALE: &str =
    "interpretation is stale: the test changed since this run; run the suite again to grade it as it is now";

/// `pactum interpret SUITE [--refresh]`.
pub fn interpret(args: InterpretArgs, color: bool) -> Exit {
    let suite = match prepare(&args.suite, crate::output::stderr_color(color)) {
        Ok(s) => s,
        Err(e) => return e,
    };
    let runner = match Runner::new(suite) {
        Ok(r) => r,
        Err(e) => {
            eprint(&format!("error: {e}"));
            return Exit::Usage;
        }
    };
    let store = match open_store(&args.db) {
        Ok(s) => Arc::new(Mutex::new(s)),
        Err(e) => return e,
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprint(&format!("error: cannot start the async runtime: {e}"));
            return Exit::Failure;
        }
    };
    let reviews = match rt.block_on(runner.review(store, args.refresh)) {
        Ok(r) => r,
        Err(e) => {
            eprint(&format!("error: {e}"));
            return crate::exit::for_run_error(&e);
        }
    };
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
    if incomplete {
        Exit::Incomplete
    } else {
        Exit::Pass
    }
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

/// The authored digest of each test of a suite snapshot (JSON), by test id.
fn authored_digests(snapshot: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for t in snapshot
        .get("tests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(id), Some(a)) = (t.get("id").and_then(Value::as_str), t.get("authored")) else {
            continue;
        };
        if a.is_null() {
            continue;
        }
        let field = |k: &str| {
            a.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        out.insert(
            id.to_string(),
            authored_digest(&AuthoredFields {
                goal: field("goal"),
                instructions: field("instructions"),
                restrictions: field("restrictions"),
                scenario: field("scenario"),
            }),
        );
    }
    out
}

/// `pactum rescore RUN`: grades every stored trace again against the
/// contract snapshot stored with its result — never re-interpreting. A test
/// whose authored fields changed since the run re-scores to `error`.
pub fn rescore(args: RescoreArgs, color: bool) -> Exit {
    let store = match open_existing_store(&args.db) {
        Ok(s) => s,
        Err(e) => return e,
    };
    let (id, row) = match stored_run(&store, &args.run) {
        Ok(r) => r,
        Err(e) => return e,
    };
    let then = store
        .suite_snapshot(&id)
        .ok()
        .flatten()
        .map(|s| authored_digests(&s))
        .unwrap_or_default();
    // The suite as it is now, to tell whether an interpretation is stale
    // (and which judge to ask, through the cache).
    let suite_path = args
        .suite
        .clone()
        .unwrap_or_else(|| row.suite_path.clone().into());
    let current = pactum_suite::load_suite(&suite_path);
    let now: Result<BTreeMap<String, String>, String> = match &current {
        Ok(s) => Ok(serde_json::from_str::<Value>(&s.snapshot)
            .map(|v| authored_digests(&v))
            .unwrap_or_default()),
        Err(d) => Err(format!(
            "cannot read the suite {} to check the interpretation ({} problem(s), first: {})",
            suite_path.display(),
            d.len(),
            d.first().map(|x| x.message.clone()).unwrap_or_default()
        )),
    };
    // The keys of the suite as it is now: the judge may be asked again.
    let secrets = match current
        .as_ref()
        .ok()
        .map(|s| pactum_runner::run_secrets(&s.suite))
    {
        None => pactum_core::secret::Redactor::default(),
        Some(Ok(s)) => s.redactor,
        Some(Err(e)) => {
            eprint(&format!("error: {e}"));
            return Exit::Usage;
        }
    };
    let judge = match current.as_ref().ok().and_then(|s| s.suite.judge.as_ref()) {
        None => None,
        Some(spec) => match pactum_llm::ChatClient::new_redacting(
            pactum_runner::model_endpoint(spec),
            &secrets,
        ) {
            Ok(client) => Some(pactum_runner::JudgeSetup {
                client,
                malformed_retries: spec.malformed_retries,
            }),
            Err(e) => {
                eprint(&format!("error: judge: {e}"));
                return Exit::Usage;
            }
        },
    };
    let mut protected = vec![store_protected(args.db.as_deref())];
    match &current {
        Ok(s) => protected.extend(suite_protected(s)),
        Err(_) => protected.push(Protected::input("the suite", suite_path.clone())),
    }
    let mut fan: CliSink = match reporters(&args.report, color, &protected) {
        Ok(f) => f,
        Err(e) => return e,
    };
    fan.redact_with(&secrets);
    // First pass: the contracts the results cite (the second pass streams
    // the results, so memory stays flat).
    let mut infos: BTreeMap<String, ContractInfo> = BTreeMap::new();
    let first = store.trials(&id, &mut |t| {
        if let Some(d) = t.contract_digest {
            if let std::collections::btree_map::Entry::Vacant(v) = infos.entry(d.clone()) {
                if let Ok(Some(c)) = store.contract(&d) {
                    v.insert(ContractInfo {
                        id: c.id.clone(),
                        path: format!("snapshot stored with run {}", id.as_str()),
                        digest: d,
                    });
                }
            }
        }
        std::ops::ControlFlow::Continue(())
    });
    if let Err(e) = first {
        return store_failure(&e);
    }
    fan.each(|r| {
        r.begin(&RunInfo {
            command: format!("rescore {}", id.as_str()),
            pactum_version: env!("CARGO_PKG_VERSION").into(),
            policy: row.policy,
            contracts: infos.values().cloned().collect(),
            authored_tests: 0,
            expectations: None,
            run: Some(crate::run::run_name(id.as_str(), &row.suite_path)),
        })
    });
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprint(&format!("error: cannot start the async runtime: {e}"));
            return Exit::Failure;
        }
    };
    // The judge answers through the cache of a second connection to the
    // same store, so an unchanged trace re-scores to the same verdicts.
    let cache = match pactum_store::Store::open(store.path())
        .and_then(|mut s| s.redact_with(&secrets).map(|()| s))
    {
        Ok(s) => pactum_runner::Cache::new(Arc::new(Mutex::new(s)), pactum_runner::CacheMode::Use),
        Err(e) => return store_failure(&e),
    };
    let mut compiled: BTreeMap<String, Result<CompiledContract, String>> = BTreeMap::new();
    let mut statuses: BTreeMap<TestStatus, u64> = BTreeMap::new();
    let mut unreadable: Vec<Warning> = Vec::new();
    let mut secrets = pactum_report::RedactedSecrets::default();
    let mut names = stored_names(&store, infos.keys());
    let second = store.trials(&id, &mut |t| {
        if let Some(trace) = &t.trace {
            secrets.add(&t.result.trace_id, &trace.redactions());
            names.add(trace);
        }
        let level = t.result.observability;
        let trace_id = t.result.trace_id.clone();
        let stale = match (then.get(&t.test_id), &now) {
            (None, _) => None,
            // Unknown is not stale: refreshing would not help, naming the
            // suite would.
            (Some(_), Err(e)) => Some(format!(
                "cannot tell whether the interpretation is stale: {e}; name the suite with `--suite`"
            )),
            (Some(old), Ok(now)) => match now.get(&t.test_id) {
                Some(new) if new == old => None,
                Some(_) => Some(STALE.to_string()),
                None => Some(format!("{STALE} (the test is no longer in the suite)")),
            },
        };
        let result = if let Some(why) = stale {
            error_result(&trace_id, level, &why)
        } else {
            match (&t.trace, &t.contract_digest) {
                (Some(trace), Some(d)) => {
                    let c = compiled
                        .entry(d.clone())
                        .or_insert_with(|| match store.contract(d) {
                            Ok(Some(c)) => {
                                CompiledContract::compile(c, d.clone()).map_err(|e| e.to_string())
                            }
                            Ok(None) => Err(format!(
                                "the contract snapshot {d} is missing from the store"
                            )),
                            // Never graded with a guessed meaning: each
                            // of its traces is an error saying why.
                            Err(e) => {
                                unreadable.push(crate::run::unreadable_snapshot(
                                    &id, &t.test_id, &e,
                                ));
                                Err(e.to_string())
                            }
                        });
                    match c {
                        Ok(c) => {
                            let judged = rt.block_on(pactum_runner::judge_trace(
                                judge.as_ref(),
                                &[&*c],
                                trace,
                                &cache,
                                None,
                            ));
                            match judged {
                                Ok((j, _, _)) => {
                                    grade_trace(std::slice::from_ref(c), trace, &row.policy, &j)
                                }
                                Err(e) => error_result(&trace_id, level, &e.to_string()),
                            }
                        }
                        Err(e) => error_result(
                            &trace_id,
                            level,
                            &format!("run {}, test `{}`: {e}", id.as_str(), t.test_id),
                        ),
                    }
                }
                // A trial that never ran a conversation (an unusable
                // contract, a failed target) keeps its stored result.
                _ => t.result.clone(),
            }
        };
        *statuses.entry(result.status).or_default() += 1;
        fan.each(|r| r.result(&result, None));
        std::ops::ControlFlow::Continue(())
    });
    if let Err(e) = second {
        return store_failure(&e);
    }
    let (missing, gap) = match stored_gaps(&store, &id, &row, &args.db) {
        Ok(g) => g,
        Err(e) => return e,
    };
    let mut warnings: Vec<Warning> = gap.into_iter().collect();
    warnings.extend(unreadable);
    warnings.extend(secrets.warning());
    warnings.extend(crate::grade::name_warnings(&names));
    if judge.is_none() {
        warnings.push(Warning {
            code: "no-judge".into(),
            message: "re-scored without a judge (the suite configures none, or cannot be read): judged clauses are not evaluable (no-judge)".into(),
        });
    }
    finish_stored(&mut fan, warnings, &statuses, &missing)
}

/// The name tally of a stored run: the names its stored contract
/// snapshots (by digest) check. A snapshot that cannot be read checks
/// nothing here; grading reports it.
pub(crate) fn stored_names<'a>(
    store: &pactum_store::Store,
    digests: impl Iterator<Item = &'a String>,
) -> pactum_eval::NameWarnings {
    let contracts: Vec<pactum_core::Contract> = digests
        .filter_map(|d| store.contract(d).ok().flatten())
        .collect();
    pactum_eval::NameWarnings::new(&contracts)
}

fn error_result(
    trace_id: &str,
    level: pactum_core::ObservabilityLevel,
    why: &str,
) -> pactum_core::TraceResult {
    pactum_core::TraceResult {
        trace_id: trace_id.to_string(),
        source: None,
        observability: level,
        status: TestStatus::Error,
        summary: format!("error: {}", one_line(why, 300)),
        contracts: vec![],
        overall_score: None,
        error: Some(why.to_string()),
    }
}
