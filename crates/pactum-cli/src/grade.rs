//! `pactum grade`, `pactum check` and `pactum schema`: wiring of the
//! library crates. Reading, grading and reporting live in their crates.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pactum_core::lint::{lint_contract, LintLevel};
use pactum_core::{Channel, ObservabilityLevel, Policy, Severity, TestStatus};
use pactum_eval::{grade_trace, CompiledContract, CompiledExpectations, NoJudge};
use pactum_report::{
    ContractInfo, ExpectationsInfo, InputError, InputFile, Protected, RunEnd, RunInfo, Warning,
};
use pactum_suite::{
    load_contract, load_expectations, CheckedFile, Diagnostic, DiagnosticLevel, LoadedContract,
};
use pactum_trace::{read_traces, ColumnMap, ImportOptions, Item, TraceFormat};

pub(crate) use pactum_pipeline::inputs::{
    contract_protected, input_warnings, store_protected, unusable_trace_path,
};

use crate::exit::{self, Exit};
use crate::output::{eprint, stderr_color};
use crate::sink::CliSink;
use crate::{
    ChannelArg, CheckArgs, FormatArg, GradeArgs, ImportArgs, LevelArg, ReportArgs, SchemaKind,
    SeverityArg,
};

impl From<LevelArg> for ObservabilityLevel {
    fn from(l: LevelArg) -> Self {
        match l {
            LevelArg::ResponseOnly => ObservabilityLevel::ResponseOnly,
            LevelArg::ToolCalls => ObservabilityLevel::ToolCalls,
            LevelArg::Full => ObservabilityLevel::Full,
        }
    }
}

impl From<SeverityArg> for Severity {
    fn from(s: SeverityArg) -> Self {
        match s {
            SeverityArg::Low => Severity::Low,
            SeverityArg::Medium => Severity::Medium,
            SeverityArg::High => Severity::High,
            SeverityArg::Critical => Severity::Critical,
        }
    }
}

/// Prints diagnostics to stderr, each with its source excerpt.
pub(crate) fn print_diagnostics(diags: &[Diagnostic], color: bool) {
    for d in diags {
        let source = std::fs::read_to_string(&d.file).ok();
        crate::output::eprint_styled(&d.render(source.as_deref(), color));
    }
}

/// The warnings among load diagnostics, as run-level report warnings
/// (`file:line:column: message (hint)`, the code kept), so what loading printed
/// to stderr also reaches the JSON, JUnit and terminal reports.
pub(crate) fn diagnostic_warnings(diags: &[Diagnostic]) -> impl Iterator<Item = Warning> + '_ {
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
pub(crate) fn name_warnings(names: &pactum_eval::NameWarnings) -> impl Iterator<Item = Warning> {
    names.warnings().into_iter().map(|w| Warning {
        code: w.code.into(),
        message: w.message,
    })
}

/// Loads every contract, printing all diagnostics of all files at once.
/// `None` when any file has an error.
fn load_contracts(paths: &[PathBuf], color: bool) -> Option<Vec<LoadedContract>> {
    let paths = match pactum_suite::contract_files(paths) {
        Ok(p) => p,
        Err(e) => {
            eprint(&format!("error: {e}"));
            return None;
        }
    };
    let mut loaded = Vec::new();
    let mut ok = true;
    for p in &paths {
        match load_contract(p) {
            Ok(c) => {
                print_diagnostics(&c.warnings, color);
                loaded.push(c);
            }
            Err(diags) => {
                print_diagnostics(&diags, color);
                ok = false;
            }
        }
    }
    ok &= ids_unique(&loaded);
    ok.then_some(loaded)
}

/// Prints an error for each contract id declared by two files; `false`
/// when there is one.
fn ids_unique(loaded: &[LoadedContract]) -> bool {
    let mut ok = true;
    let mut seen: BTreeMap<&str, &Path> = BTreeMap::new();
    for c in loaded {
        if let Some(first) = seen.insert(&c.contract.id, &c.path) {
            eprint(&format!(
                "error: contract id `{}` is declared twice: {} and {}",
                c.contract.id,
                first.display(),
                c.path.display()
            ));
            ok = false;
        }
    }
    ok
}

/// `pactum check`: validates and lints contract files, and suite files
/// (recognised by their shape) with every contract they name or hold;
/// no traces.
pub fn check(args: CheckArgs, color: bool) -> Exit {
    let color = stderr_color(color);
    let paths = match pactum_suite::contract_files(&args.contracts) {
        Ok(p) => p,
        Err(e) => {
            eprint(&format!("error: {e}"));
            return Exit::Usage;
        }
    };
    let mut loaded: Vec<LoadedContract> = Vec::new();
    let mut suites = Vec::new();
    let mut ok = true;
    for p in &paths {
        match pactum_suite::load_contract_or_suite(p) {
            Ok(CheckedFile::Contract(c)) => {
                print_diagnostics(&c.warnings, color);
                loaded.push(*c);
            }
            Ok(CheckedFile::Suite(s)) => {
                print_diagnostics(&s.warnings, color);
                suites.push(s);
            }
            Err(diags) => {
                print_diagnostics(&diags, color);
                ok = false;
            }
        }
    }
    if !(ids_unique(&loaded) && ok) {
        return Exit::Usage;
    }
    let mut warnings = loaded.iter().map(|c| c.warnings.len()).sum::<usize>()
        + suites.iter().map(|s| s.warnings.len()).sum::<usize>();
    let flag = args.observability.map(ObservabilityLevel::from);
    // A suite's contracts are linted at the level of the targets that run
    // them, unless --observability names one.
    let mut linted: Vec<(
        String,
        &pactum_core::contract::Contract,
        Vec<ObservabilityLevel>,
    )> = Vec::new();
    for c in &loaded {
        linted.push((shown_path(&c.path), &c.contract, flag.into_iter().collect()));
    }
    for s in &suites {
        for (c, levels) in s.contracts() {
            let levels = flag.map_or(levels, |l| vec![l]);
            linted.push((suite_contract_place(s, c), &c.contract, levels));
        }
    }
    for (place, contract, levels) in &linted {
        for level in levels {
            for f in lint_contract(contract, Some(*level)) {
                if f.code == "unobserved-channel" {
                    warnings += 1;
                    eprint(&format!(
                        "warning[{}]: {place}: {}\n  = hint: {}",
                        f.code, f.message, f.hint
                    ));
                }
            }
        }
    }
    let mut out = std::io::stdout().lock();
    let ok_line = |out: &mut std::io::StdoutLock<'_>,
                   place: &str,
                   c: &pactum_core::contract::Contract,
                   digest: &str| {
        let _ = writeln!(
            out,
            "ok  {place}  {}  ({} required, {} prohibited, {} conditional)  {digest}",
            pactum_core::text::one_line(&c.id, 200),
            c.required.len(),
            c.prohibited.len(),
            c.conditional.len(),
        );
    };
    for c in &loaded {
        ok_line(&mut out, &shown_path(&c.path), &c.contract, &c.digest);
    }
    let mut count = loaded.len();
    for s in &suites {
        let of_suite = s.contracts();
        let authored = s
            .suite
            .tests
            .iter()
            .filter(|t| t.contract.is_none())
            .count();
        let _ = writeln!(
            out,
            "ok  {}  suite: {} test(s), {} contract(s){}",
            shown_path(&s.suite.path),
            s.suite.tests.len(),
            of_suite.len(),
            if authored > 0 {
                format!(", {authored} authored test(s) interpreted when run (`pactum interpret`)")
            } else {
                String::new()
            }
        );
        for (c, _) in &of_suite {
            ok_line(
                &mut out,
                &suite_contract_place(s, c),
                &c.contract,
                &c.digest,
            );
        }
        count += of_suite.len();
    }
    let _ = writeln!(out, "{count} contract(s) valid, {warnings} warning(s)");
    Exit::Pass
}

/// Where a suite's contract was written: its file, or the suite file
/// (inline).
fn suite_contract_place(
    s: &pactum_suite::LoadedSuite,
    c: &pactum_suite::ResolvedContract,
) -> String {
    match &c.source {
        pactum_suite::ContractSource::File(p) => shown_path(p),
        pactum_suite::ContractSource::Inline => {
            format!("{} (inline)", shown_path(&s.suite.path))
        }
    }
}

/// `pactum schema`: prints a committed JSON Schema.
pub fn schema(kind: SchemaKind) -> Exit {
    let text = match kind {
        SchemaKind::Contract => include_str!("../../../schemas/contract.schema.json"),
        SchemaKind::Expectations => include_str!("../../../schemas/expectations.schema.json"),
        SchemaKind::Trace => include_str!("../../../schemas/trace.schema.json"),
        SchemaKind::Report => include_str!("../../../schemas/report.schema.json"),
        SchemaKind::Suite => include_str!("../../../schemas/suite.schema.json"),
        SchemaKind::Policy => include_str!("../../../schemas/policy.schema.json"),
        SchemaKind::Probe => include_str!("../../../schemas/probe.schema.json"),
        SchemaKind::StrengthArtifact => {
            include_str!("../../../schemas/strength-artifact.schema.json")
        }
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    Exit::Pass
}

/// The importer's options from the command line.
pub(crate) fn import_options(a: &ImportArgs) -> Result<ImportOptions, String> {
    let format = match a.format {
        FormatArg::Auto => TraceFormat::Auto,
        FormatArg::Pactum => TraceFormat::Pactum,
        FormatArg::Openai => TraceFormat::Openai,
        FormatArg::Tabular => TraceFormat::Tabular,
    };
    let columns = match (&a.prompt_column, &a.response_column) {
        (Some(p), Some(r)) => Some(ColumnMap {
            prompt: p.clone(),
            response: r.clone(),
            id: a.id_column.clone(),
        }),
        (None, None) => {
            if a.id_column.is_some() {
                return Err("--id-column needs --prompt-column and --response-column".into());
            }
            None
        }
        _ => return Err("tabular records need both --prompt-column and --response-column".into()),
    };
    Ok(ImportOptions {
        format,
        observability: a.observability.map(Into::into),
        id_pointer: a.id_field.clone(),
        messages_pointer: a.messages_field.clone(),
        records_pointer: a.records_field.clone(),
        columns,
        withhold: a
            .withhold
            .iter()
            .map(|c| match c {
                ChannelArg::ToolCalls => Channel::ToolCalls,
                ChannelArg::SideEffects => Channel::SideEffects,
            })
            .collect(),
    })
}

/// An import error names its own location (`` `path`: … `` or
/// `path:line: …`); reports show the location once, so split it off.
fn split_location(message: &str, file: &str) -> (u64, String) {
    let quoted = format!("`{file}`: ");
    if let Some(rest) = message.strip_prefix(&quoted) {
        return (0, rest.to_string());
    }
    if let Some(rest) = message.strip_prefix(file).and_then(|r| r.strip_prefix(':')) {
        if let Some((n, tail)) = rest.split_once(": ") {
            if let Ok(line) = n.parse::<u64>() {
                return (line, tail.to_string());
            }
        }
    }
    (0, message.to_string())
}

#[derive(Default)]
struct Totals {
    by_status: BTreeMap<TestStatus, u64>,
    input_errors: u64,
}

/// The reports a command's flags ask for ([`CliSink::open`]); a refused
/// path is printed and is a usage error.
pub(crate) fn reporters(
    args: &ReportArgs,
    color: bool,
    protected: &[Protected],
) -> Result<CliSink, Exit> {
    CliSink::open(args, color, protected).map_err(|e| e.report())
}

/// A judge for `pactum grade`: the client, the cache it answers through,
/// and the runtime its calls run on.
struct GradeJudge {
    setup: pactum_runner::JudgeSetup,
    cache: pactum_runner::Cache,
    rt: tokio::runtime::Runtime,
}

fn judge_setup(args: &GradeArgs) -> Result<Option<GradeJudge>, Exit> {
    let (Some(url), Some(model)) = (&args.judge_url, &args.judge_model) else {
        return Ok(None);
    };
    let fail = |e: String| {
        eprint(&format!("error: {e}"));
        Exit::Usage
    };
    let mut ep = pactum_llm::Endpoint::new(url.clone(), model.clone());
    ep.api_key_env = args.judge_api_key_env.clone();
    let client = pactum_llm::ChatClient::new(ep).map_err(|e| fail(format!("judge: {e}")))?;
    let db = args
        .db
        .clone()
        .unwrap_or_else(|| PathBuf::from(pactum_store::DEFAULT_PATH));
    let mut store = pactum_store::Store::open(&db).map_err(|e| crate::run::store_failure(&e))?;
    store
        .redact_with(client.redactor())
        .map_err(|e| crate::run::store_failure(&e))?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprint(&format!("error: cannot start the async runtime: {e}"));
            Exit::Failure
        })?;
    Ok(Some(GradeJudge {
        setup: pactum_runner::JudgeSetup {
            client,
            malformed_retries: 2,
        },
        cache: pactum_runner::Cache::new(
            std::sync::Arc::new(std::sync::Mutex::new(store)),
            pactum_runner::CacheMode::Use,
        ),
        rt,
    }))
}

/// `pactum grade`: contracts + trace files → terminal summary, JSON report,
/// JUnit XML and the exit code.
pub fn grade(args: GradeArgs, color: bool) -> Exit {
    let diag_color = stderr_color(color);
    let policy = Policy {
        severity_floor: args.severity_floor.into(),
        ..Policy::default()
    };
    let opts = match import_options(&args.import) {
        Ok(o) => o,
        Err(e) => {
            eprint(&format!("error: {e}"));
            return Exit::Usage;
        }
    };
    let Some(loaded) = load_contracts(&args.contracts, diag_color) else {
        return Exit::Usage;
    };
    let mut contracts = Vec::new();
    let mut infos = Vec::new();
    for c in &loaded {
        infos.push(ContractInfo {
            id: c.contract.id.clone(),
            path: c.path.display().to_string(),
            digest: c.digest.clone(),
        });
        match CompiledContract::compile(c.contract.clone(), c.digest.clone()) {
            Ok(cc) => contracts.push(cc),
            Err(e) => {
                eprint(&format!("error: {}: {e}", c.path.display()));
                return Exit::Usage;
            }
        }
    }
    let expectations = match &args.expectations {
        None => None,
        Some(p) => match load_expectations(p) {
            Ok(e) => {
                let info = ExpectationsInfo {
                    path: p.display().to_string(),
                    pointer: e.expect.pointer.clone(),
                };
                match CompiledExpectations::compile(e) {
                    Ok(c) => Some((c, info)),
                    Err(err) => {
                        eprint(&format!("error: {}: {err}", p.display()));
                        return Exit::Usage;
                    }
                }
            }
            Err(diags) => {
                print_diagnostics(&diags, diag_color);
                return Exit::Usage;
            }
        },
    };
    for t in &args.traces {
        if t.is_dir() {
            eprint(&format!(
                "error: {}: is a folder; name the trace files (a shell glob such as {}/*.jsonl works)",
                t.display(),
                t.display()
            ));
            return Exit::Usage;
        }
        if let Some(why) = unusable_trace_path(t) {
            eprint(&format!("error: {}: {why}", t.display()));
            return Exit::Usage;
        }
    }

    let judge = match judge_setup(&args) {
        Ok(j) => j,
        Err(e) => return e,
    };
    let mut protected = contract_protected(&loaded);
    protected.extend(
        args.traces
            .iter()
            .map(|p| Protected::input("the trace file", p)),
    );
    protected.extend(
        args.expectations
            .iter()
            .map(|p| Protected::input("the expectations file", p)),
    );
    protected.push(store_protected(args.db.as_deref()));
    let mut fan = match reporters(&args.report, color, &protected) {
        Ok(f) => f,
        Err(e) => return e,
    };
    if let Some(j) = &judge {
        fan.redact_with(j.setup.client.redactor());
    }
    let info = RunInfo {
        command: "grade".into(),
        pactum_version: env!("CARGO_PKG_VERSION").into(),
        policy,
        contracts: infos,
        authored_tests: 0,
        expectations: expectations.as_ref().map(|(_, i)| i.clone()),
        run: None,
    };
    fan.each(|r| r.begin(&info));

    let contract_refs: Vec<&CompiledContract> = contracts.iter().collect();
    let mut totals = Totals::default();
    let mut inputs = Vec::new();
    let mut warnings: Vec<Warning> = Vec::new();
    let mut tally = pactum_trace::ChannelTally::default();
    let mut notes = pactum_trace::InputNotes::default();
    let mut secrets = pactum_report::RedactedSecrets::default();
    let mut names = pactum_eval::NameWarnings::new(loaded.iter().map(|c| &c.contract));
    let mut graded = 0u64;
    let mut labelled = 0u64;
    for path in &args.traces {
        let file = path.display().to_string();
        let mut first_skip: Option<String> = None;
        notes.file(path);
        let mut sink = |item: Item| {
            match item {
                Item::Trace(mut trace) => {
                    notes.trace(&trace);
                    // The judge's key never reaches its prompt, and a check
                    // reads what the judge is shown.
                    if let Some(j) = &judge {
                        j.setup.client.redactor().redact_trace(&mut trace);
                    }
                    secrets.add(&trace.id, &trace.redactions());
                    names.add(&trace);
                    let result = match &judge {
                        None => grade_trace(&contracts, &trace, &policy, &NoJudge),
                        Some(j) => {
                            let judged = j.rt.block_on(pactum_runner::judge_trace(
                                Some(&j.setup),
                                &contract_refs,
                                &trace,
                                &j.cache,
                                None,
                            ));
                            match judged {
                                Ok((judgments, _, _)) => {
                                    grade_trace(&contracts, &trace, &policy, &judgments)
                                }
                                Err(e) => {
                                    eprint(&format!("error: judge cache: {e}"));
                                    grade_trace(&contracts, &trace, &policy, &NoJudge)
                                }
                            }
                        }
                    };
                    let expected = expectations.as_ref().and_then(|(e, _)| e.expected(&trace));
                    labelled += u64::from(expected.is_some());
                    *totals.by_status.entry(result.status).or_default() += 1;
                    graded += 1;
                    fan.each(|r| r.result(&result, expected));
                }
                Item::Skipped { line, reason } => {
                    if first_skip.is_none() {
                        first_skip = Some(if reason.starts_with("line ") {
                            reason
                        } else {
                            format!("line {line}: {reason}")
                        });
                    }
                }
                Item::Error(e) => {
                    totals.input_errors += 1;
                    let err = InputError {
                        file: e.file.clone(),
                        line: e.line,
                        field: e.field.clone(),
                        message: e.message.clone(),
                    };
                    fan.each(|r| r.input_error(&err));
                }
            }
            ControlFlow::Continue(())
        };
        match read_traces(path, &opts, &mut sink) {
            Ok(stats) => {
                if stats.skipped > 0 {
                    warnings.push(Warning {
                        code: "skipped-records".into(),
                        message: format!(
                            "{file}: skipped {} record(s) that hold no trace (first: {})",
                            stats.skipped,
                            first_skip.unwrap_or_default()
                        ),
                    });
                }
                if stats.traces == 0 && stats.errors == 0 {
                    // An export that came out empty must not let the rest
                    // of the run show green: the run is partial.
                    totals.input_errors += 1;
                    let err = InputError {
                        file: file.clone(),
                        line: 0,
                        field: None,
                        message: if stats.skipped > 0 {
                            format!(
                                "holds no trace (its {} record(s) were skipped): an input with no trace is never a pass",
                                stats.skipped
                            )
                        } else {
                            "holds no trace: an input with no trace is never a pass".to_string()
                        },
                    };
                    fan.each(|r| r.input_error(&err));
                }
                tally.merge(&stats.channel_tally);
                inputs.push(InputFile {
                    path: file,
                    format: format!("{:?}", opts.format).to_lowercase(),
                    traces: stats.traces,
                    skipped: stats.skipped,
                    errors: stats.errors,
                });
            }
            Err(e) => {
                totals.input_errors += 1;
                let message = e.to_string();
                if args.report.quiet || args.report.to_stdout() {
                    // No terminal summary will show it.
                    eprint(&format!("error: {message}"));
                }
                let (line, message) = split_location(&message, &file);
                let err = InputError {
                    file: file.clone(),
                    line,
                    field: None,
                    message,
                };
                fan.each(|r| r.input_error(&err));
                inputs.push(InputFile {
                    path: file,
                    format: format!("{:?}", opts.format).to_lowercase(),
                    traces: 0,
                    skipped: 0,
                    errors: 1,
                });
            }
        }
    }

    warnings.extend(secrets.warning());
    warnings.extend(name_warnings(&names));
    warnings.extend(input_warnings(&notes));
    for (level, channel, traces) in tally.silent_channels() {
        warnings.push(Warning {
            code: "silent-channel".into(),
            message: format!(
                "{traces} trace(s) declared `{}` observe {}, but none reported anything on it: if the adapter cannot see {} the level is declared wrongly, and an absence there will read as compliance",
                level.as_str(),
                channel.as_str(),
                channel.as_str()
            ),
        });
    }
    let levels: BTreeSet<ObservabilityLevel> = tally.levels().collect();
    for c in &loaded {
        for level in &levels {
            for f in lint_contract(&c.contract, Some(*level)) {
                if f.code == "unobserved-channel" && f.level == LintLevel::Warning {
                    warnings.push(Warning {
                        code: "unobserved-channel".into(),
                        message: format!("{} ({}): {}", c.contract.id, c.path.display(), f.message),
                    });
                }
            }
        }
    }
    for c in &loaded {
        warnings.extend(diagnostic_warnings(&c.warnings));
    }

    let judged: usize = loaded
        .iter()
        .map(|c| {
            let k = &c.contract;
            k.required
                .iter()
                .chain(&k.prohibited)
                .filter(|x| x.judge.is_some())
                .count()
                + k.conditional
                    .iter()
                    .filter(|x| x.then.judge.is_some())
                    .count()
        })
        .sum();
    if judged > 0 && judge.is_none() {
        warnings.push(Warning {
            code: "no-judge".into(),
            message: format!(
                "{judged} clause(s) carry a judge rubric but no judge is configured: each is not evaluable with reason no-judge (and a clause that also has a check can only be settled by its check detecting the behaviour)"
            ),
        });
    }
    if let Some((_, info)) = &expectations {
        if labelled == 0 && graded > 0 {
            warnings.push(Warning {
                code: "no-label".into(),
                message: format!(
                    "{}: no trace was labelled: `{}` (with its `when`) matched none of the {graded} traces. Pointers resolve against each trace's metadata: for an OpenAI-format record that is the whole record minus its messages (AgentDojo: /metadata/security); for pactum's own format, its `metadata` object",
                    info.path, info.pointer
                ),
            });
        }
    }
    let end = RunEnd { inputs, warnings };
    fan.finish(&end);

    // Nothing graded is never a verdict, whatever the reason.
    if graded == 0 {
        return Exit::Usage;
    }
    if fan.failed() {
        return Exit::Partial;
    }
    let count = |s: TestStatus| totals.by_status.get(&s).copied().unwrap_or(0);
    exit::for_totals(
        count(TestStatus::Fail),
        count(TestStatus::Undetermined),
        count(TestStatus::Error),
        totals.input_errors,
    )
}

/// A path as a terminal may show it: a file name found in a folder is
/// untrusted text (SPEC §4), so escapes and controls are stripped.
pub(crate) fn shown_path(path: &Path) -> String {
    pactum_core::text::strip_terminal_escapes(&path.display().to_string())
}
