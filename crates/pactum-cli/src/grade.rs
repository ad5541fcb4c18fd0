//! `pactum grade`, `pactum check` and `pactum schema`: wiring of the
//! library crates. The grade pipeline is [`pactum_pipeline::grade`];
//! reading, grading and reporting live in their crates.

use std::io::Write;
use std::path::Path;

use pactum_core::lint::lint_contract;
use pactum_core::{Channel, ObservabilityLevel, Policy, Severity, TestStatus};
use pactum_pipeline::grade::{GradeRequest, JudgeConfig};
use pactum_pipeline::openprose::ProseRequest;
use pactum_suite::{CheckedFile, Diagnostic, LoadedContract};
use pactum_trace::{ColumnMap, ImportOptions, Parallel, TraceFormat};

use crate::error::{CliError, CliResult};

use crate::exit::{self, Exit};
use crate::output::{eprint, stderr_color, with_causes};
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

/// `pactum check`: validates and lints contract files, and suite files
/// (recognised by their shape) with every contract they name or hold;
/// no traces.
pub fn check(args: CheckArgs, color: bool) -> CliResult {
    let color = stderr_color(color);
    let paths = pactum_suite::contract_files(&args.contracts)
        .map_err(|e| CliError::usage(with_causes(&e)))?;
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
    for m in pactum_pipeline::grade::duplicate_ids(&loaded) {
        eprint(&format!("error: {m}"));
        ok = false;
    }
    if !ok {
        return Err(CliError::said(Exit::Usage));
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
    Ok(Exit::Pass)
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
pub fn schema(kind: SchemaKind) -> CliResult {
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
    Ok(Exit::Pass)
}

/// The importer's options from the command line.
pub(crate) fn import_options(a: &ImportArgs) -> Result<ImportOptions, String> {
    let format = match a.format {
        FormatArg::Auto => TraceFormat::Auto,
        FormatArg::Pactum => TraceFormat::Pactum,
        FormatArg::Openai => TraceFormat::Openai,
        FormatArg::Tabular => TraceFormat::Tabular,
        FormatArg::Otlp => TraceFormat::Otlp,
        FormatArg::Jaeger => TraceFormat::Jaeger,
        FormatArg::LangfuseOtel => TraceFormat::LangfuseOtel,
        FormatArg::OpenaiAgents => TraceFormat::OpenaiAgents,
        FormatArg::Inspect => TraceFormat::Inspect,
        FormatArg::Anthropic => TraceFormat::Anthropic,
        FormatArg::Gemini => TraceFormat::Gemini,
        FormatArg::Langsmith => TraceFormat::Langsmith,
        FormatArg::Langfuse => TraceFormat::Langfuse,
        FormatArg::Langchain => TraceFormat::Langchain,
        FormatArg::Openprose => return Err(
            "--format openprose reads OpenProse run directories: only `pactum grade` takes them"
                .into(),
        ),
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
    if a.tool_error_prefix
        .as_deref()
        .is_some_and(|p| p.trim().is_empty())
    {
        return Err(
            "--tool-error-prefix is blank: every tool result would read as an error".into(),
        );
    }
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
        ended_by: a.ended_by.clone(),
        tool_error_prefix: a.tool_error_prefix.clone(),
    })
}

/// `pactum grade`: contracts + trace files → terminal summary, JSON report,
/// JUnit XML and the exit code ([`pactum_pipeline::grade`]).
pub fn grade(args: GradeArgs, color: bool) -> CliResult {
    let runs: Vec<bool> = args
        .traces
        .iter()
        .map(|p| pactum_pipeline::openprose::is_run_dir(p))
        .collect();
    let prose = match args.import.format {
        FormatArg::Openprose => true,
        FormatArg::Auto => runs.iter().all(|r| *r),
        _ => false,
    };
    if prose {
        return grade_openprose(args, color);
    }
    // A mistyped path is no reason to ask for contracts, nor a trace file
    // beside runs. (With contracts, a missing trace file is an input
    // error like any unreadable one.)
    if args.contracts.is_empty() || runs.iter().any(|r| *r) {
        if let Some(p) = args.traces.iter().find(|p| {
            std::fs::symlink_metadata(p).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        }) {
            return Err(CliError::usage(format!(
                "{} does not exist (no such file or folder): nothing was graded",
                shown_path(p)
            )));
        }
    }
    if let Some(i) = runs.iter().position(|r| *r) {
        return Err(CliError::usage(format!(
            "{} is an OpenProse run directory: grade runs on their own (`pactum grade RUN_DIR…`), not with trace files",
            shown_path(&args.traces[i])
        )));
    }
    if args.contracts.is_empty() {
        // A folder of runs, or a run's contract file, is a path one step
        // off a run: say which to name.
        for p in &args.traces {
            if p.is_dir() {
                let mut inside: Vec<String> = std::fs::read_dir(p)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path())
                    .filter(|d| pactum_pipeline::openprose::is_run_dir(d))
                    .map(|d| shown_path(&d))
                    .collect();
                inside.sort();
                if !inside.is_empty() {
                    return Err(CliError::usage(format!(
                        "{} is a folder of OpenProse runs, not a run (it holds no root.prose.md): name the runs (`pactum grade {}`): nothing was graded",
                        shown_path(p),
                        inside.join(" ")
                    )));
                }
            }
            if p.is_file() && p.to_string_lossy().ends_with(".prose.md") {
                if let Some(dir) = p
                    .parent()
                    .filter(|d| pactum_pipeline::openprose::is_run_dir(d))
                {
                    return Err(CliError::usage(format!(
                        "{} is a contract of an OpenProse run: grade the run's folder (`pactum grade {}`): nothing was graded",
                        shown_path(p),
                        shown_path(dir)
                    )));
                }
            }
            // A folder or file inside a run (`RUN/bindings`): the run is
            // what is graded.
            if let Some(dir) = p
                .ancestors()
                .skip(1)
                .take(4)
                .filter(|d| !d.as_os_str().is_empty())
                .find(|d| pactum_pipeline::openprose::is_run_dir(d))
            {
                return Err(CliError::usage(format!(
                    "{} is inside the OpenProse run {}: grade the run's folder (`pactum grade {}`): nothing was graded",
                    shown_path(p),
                    shown_path(dir),
                    shown_path(dir)
                )));
            }
        }
        return Err(CliError::usage(
            "name the contracts to grade the traces against (-c CONTRACT_OR_FOLDER); only OpenProse run directories carry their own",
        ));
    }
    let opts = import_options(&args.import).map_err(CliError::usage)?;
    let req = GradeRequest {
        contracts: args.contracts,
        traces: args.traces,
        import: opts,
        policy: Policy {
            severity_floor: args.severity_floor.into(),
            ..Policy::default()
        },
        expectations: args.expectations,
        judge: match (args.judge_url, args.judge_model) {
            (Some(url), Some(model)) => Some(JudgeConfig {
                url,
                model,
                api_key_env: args.judge_api_key_env,
            }),
            _ => None,
        },
        store: args.db,
        parallel: args.jobs.map_or_else(Parallel::all_cores, Parallel::new),
        // No terminal summary will show an unreadable file.
        announce_unreadable: args.report.quiet || args.report.to_stdout(),
        stop: None,
    };
    // Loading shows its diagnostics before any report is opened: a report
    // may not overwrite a file loading found (a contract's schema file).
    let mut stderr = diagnostics_only(color)?;
    // The report paths first: a refused one leaves no store behind.
    CliSink::check(
        &args.report,
        &pactum_pipeline::grade::protected_inputs(&req),
    )?;
    let prepared = pactum_pipeline::grade::prepare(&req, &mut stderr)?;
    let mut sink = CliSink::open(&args.report, color, &prepared.protected())?;
    let outcome = prepared.grade(&mut sink)?;
    // Nothing graded is never a verdict, whatever the reason.
    if outcome.graded == 0 {
        return Ok(Exit::Usage);
    }
    if outcome.report_failed {
        return Ok(Exit::Partial);
    }
    Ok(exit::for_totals(
        outcome.count(TestStatus::Fail),
        outcome.count(TestStatus::Undetermined),
        outcome.count(TestStatus::Error),
        outcome.input_errors,
    ))
}

/// `pactum grade RUN_DIR…`: OpenProse runs → the usual reports plus the
/// contract grader's report ([`pactum_pipeline::openprose`]).
fn grade_openprose(args: GradeArgs, color: bool) -> CliResult {
    if !args.contracts.is_empty() {
        return Err(CliError::usage(
            "-c is not used with OpenProse runs: each run carries its own contracts (root.prose.md and sources/)",
        ));
    }
    if args.expectations.is_some() {
        return Err(CliError::usage(
            "--expect reads labels from trace records; OpenProse runs have none",
        ));
    }
    let req = ProseRequest {
        runs: args.traces,
        policy: Policy {
            severity_floor: args.severity_floor.into(),
            ..Policy::default()
        },
        judge: match (args.judge_url, args.judge_model) {
            (Some(url), Some(model)) => Some(JudgeConfig {
                url,
                model,
                api_key_env: args.judge_api_key_env,
            }),
            _ => None,
        },
        store: args.db,
    };
    // The report paths first: a refused one leaves no store behind.
    CliSink::check(&args.report, &pactum_pipeline::openprose::protected(&req))?;
    let prepared = pactum_pipeline::openprose::prepare(&req)?;
    let mut sink = CliSink::open(&args.report, color, &prepared.protected())?;
    let outcome = prepared.grade(&mut sink)?;
    if outcome.graded == 0 {
        return Ok(Exit::Usage);
    }
    if outcome.report_failed {
        return Ok(Exit::Partial);
    }
    // A contract that does not pass (a clause only partly kept) is never
    // the exit of every contract passing.
    Ok(exit::for_totals(
        outcome.count(TestStatus::Fail) + outcome.partly_kept,
        outcome.count(TestStatus::Undetermined),
        outcome.count(TestStatus::Error),
        outcome.input_errors,
    ))
}

/// A sink for what a pipeline says before its reports are open:
/// diagnostics and messages on stderr, no report.
fn diagnostics_only(color: bool) -> Result<CliSink, CliError> {
    let none = ReportArgs {
        json: None,
        junit: None,
        html: None,
        markdown: None,
        otlp_out: None,
        verbose: false,
        quiet: true,
    };
    CliSink::open(&none, color, &[])
}

/// A path as a terminal may show it: a file name found in a folder is
/// untrusted text (SPEC §4), so escapes and controls are stripped.
pub(crate) fn shown_path(path: &Path) -> String {
    pactum_core::text::strip_terminal_escapes(&path.display().to_string())
}
