//! # pactum-cli
//!
//! The command-line front end: clap definitions, one call per command
//! into the pipelines of `pactum-pipeline`, reports through `pactum-report`
//! (the `sink` module), and the one exit-code policy ([`exit`], [`error::CliError`]).
//! No grading logic lives here.

pub mod error;
pub mod exit;
mod grade;
mod output;
mod review;
mod run;
mod serve;
pub(crate) mod sink;
mod strength;
mod view;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use error::CliError;
use exit::Exit;

/// pactum — test LLM applications and agents against evaluation contracts.
#[derive(Debug, Parser)]
#[command(name = "pactum", version, after_help = exit::TABLE)]
pub struct Cli {
    /// When to colour terminal output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Colour policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal and NO_COLOR is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Grade recorded traces against contracts.
    #[command(after_help = exit::TABLE)]
    Grade(Box<GradeArgs>),
    /// Validate and lint contract files (no traces).
    #[command(after_help = exit::TABLE)]
    Check(CheckArgs),
    /// Run a suite against live targets: tests × trials, judged, graded,
    /// stored, cached.
    #[command(after_help = exit::TABLE)]
    Run(Box<RunArgs>),
    /// Show how each authored test was restated as a contract (no model
    /// call unless --refresh).
    #[command(after_help = exit::TABLE)]
    Interpret(InterpretArgs),
    /// Grade a stored run's traces again against the contract snapshots
    /// stored with them (never re-interpreting).
    #[command(after_help = exit::TABLE)]
    Rescore(RescoreArgs),
    /// List the runs in the store, newest first.
    Runs(RunsArgs),
    /// Reprint a stored run's report.
    #[command(after_help = exit::TABLE)]
    Show(ShowArgs),
    /// Browse the store in a web browser: a local read-only server with
    /// the run list, each run's HTML report and diffs of two runs.
    #[command(after_help = exit::TABLE)]
    View(ViewArgs),
    /// Receive OpenTelemetry traces live (OTLP/HTTP on 127.0.0.1:4318),
    /// grade each as it completes and store the verdicts (one store run
    /// per session; Ctrl-C or SIGTERM grades what is held and stops).
    #[command(after_help = exit::TABLE)]
    Serve(ServeArgs),
    /// Measure a contract's strength: plant probes in clean traces, grade
    /// them in trials, report catch rates per probe class.
    #[command(after_help = exit::TABLE)]
    Strength(Box<StrengthArgs>),
    /// Run-wide class rates of strength artifacts against declared floors.
    #[command(after_help = exit::TABLE)]
    Aggregate(AggregateArgs),
    /// Which of two contracts is stronger over the same probe set.
    #[command(after_help = exit::TABLE)]
    Compare(CompareArgs),
    /// Print the JSON Schema of a file format.
    Schema {
        /// Which format.
        #[arg(value_enum)]
        format: SchemaKind,
    },
}

/// File formats with a JSON Schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaKind {
    /// Contract files.
    Contract,
    /// Expectations (labels) files.
    Expectations,
    /// pactum's own trace format.
    Trace,
    /// The JSON report.
    Report,
    /// Suite files (`pactum run`).
    Suite,
    /// Scoring policy files.
    Policy,
    /// Authored probe declarations (`pactum strength --probes`).
    Probe,
    /// Strength evidence artifacts.
    StrengthArtifact,
}

/// Trace formats accepted on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Detect from the extension and the first record.
    Auto,
    /// pactum's own trace format (JSON or JSONL).
    Pactum,
    /// OpenAI chat-messages conversations (JSONL or a JSON array).
    Openai,
    /// Single-turn tabular records (CSV, JSONL or JSON) with a column mapping.
    Tabular,
    /// OpenTelemetry OTLP JSON (a `resourceSpans` document, or JSONL of them).
    Otlp,
    /// Jaeger JSON (`data[].spans[]`).
    Jaeger,
    /// A Langfuse trace export of an OpenInference-instrumented run (the
    /// spans' attributes kept in `metadata.attributes`).
    LangfuseOtel,
    /// An OpenAI Agents SDK trace export (JSONL of `{"data": […]}` batches).
    OpenaiAgents,
    /// An Inspect AI evaluation log (`.json` or `.eval`).
    Inspect,
    /// Anthropic Messages traffic: a VCR cassette (YAML) or a Claude Agent
    /// SDK message stream.
    Anthropic,
    /// Gemini `generateContent` traffic: a VCR cassette (YAML).
    Gemini,
    /// A LangSmith run tree (`{post, patch}` runs; `llm` and `tool` runs).
    Langsmith,
    /// A Langfuse trace export read by its own fields (GENERATION and TOOL
    /// observations).
    Langfuse,
    /// Conversations of LangChain messages (dicts or LangChain.js
    /// constructors), read as openai conversations are.
    Langchain,
    /// OpenProse run directories (`pactum grade` only; detected when every
    /// path is a folder holding `root.prose.md`).
    Openprose,
}

/// Observability levels accepted on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum LevelArg {
    /// Response text only.
    ResponseOnly,
    /// Response text and tool calls.
    ToolCalls,
    /// Response text, tool calls and side effects.
    Full,
}

/// Channels that can be withheld at import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum ChannelArg {
    /// Tool calls (names, arguments, results).
    ToolCalls,
    /// Side effects.
    SideEffects,
}

/// Severities accepted on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SeverityArg {
    /// low
    Low,
    /// medium
    Medium,
    /// high
    High,
    /// critical
    Critical,
}

/// How trace files are read.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Trace file format.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    pub format: FormatArg,
    /// Observability level of traces whose file does not declare one.
    /// Never guessed: a file without a level needs this flag.
    #[arg(long, value_enum)]
    pub observability: Option<LevelArg>,
    /// JSON pointer to each record's id (default: the record's `id`, else FILE:LINE).
    #[arg(long, value_name = "POINTER")]
    pub id_field: Option<String>,
    /// JSON pointer to the messages array of OpenAI records (default /messages).
    #[arg(long, value_name = "POINTER")]
    pub messages_field: Option<String>,
    /// JSON pointer to the array of records inside a JSON file (e.g. /jailbreaks).
    #[arg(long, value_name = "POINTER")]
    pub records_field: Option<String>,
    /// Tabular: the prompt column (CSV header, or JSON key/pointer).
    #[arg(long, value_name = "COLUMN")]
    pub prompt_column: Option<String>,
    /// Tabular: the response column.
    #[arg(long, value_name = "COLUMN")]
    pub response_column: Option<String>,
    /// Tabular: the id column.
    #[arg(long, value_name = "COLUMN")]
    pub id_column: Option<String>,
    /// Drop these channels while importing, as an adapter that cannot see
    /// them would (repeatable or comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub withhold: Vec<ChannelArg>,
    /// Chat conversations: a last message that ends the conversation, so
    /// the recording is complete there (repeatable): `user:TEXT`, a user
    /// message containing TEXT (tau-bench: `user:###STOP###`), or
    /// `tool:NAME`, the result of the tool NAME
    /// (`tool:transfer_to_human_agents`). Without a match a conversation
    /// reads as it does without the flag.
    #[arg(long, value_name = "MARKER", value_parser = pactum_trace::EndMarker::parse)]
    pub ended_by: Vec<pactum_trace::EndMarker>,
    /// Chat conversations: a tool result whose text starts with PREFIX
    /// (exactly) is the call's error (tau-bench: `Error:`).
    #[arg(long, value_name = "PREFIX")]
    pub tool_error_prefix: Option<String>,
}

/// `pactum grade`.
#[derive(Debug, Args)]
pub struct GradeArgs {
    /// Contract files, or folders of `.yaml`/`.yml`/`.json` contract files
    /// (repeatable; required for trace files, refused for OpenProse runs,
    /// which carry their own contracts).
    #[arg(short = 'c', long = "contract", value_name = "PATH")]
    pub contracts: Vec<PathBuf>,
    /// Trace files to grade, or OpenProse run directories (a folder
    /// holding `root.prose.md`; see docs/openprose.md).
    #[arg(value_name = "TRACES", required = true)]
    pub traces: Vec<PathBuf>,
    /// How to read the trace files.
    #[command(flatten)]
    pub import: ImportArgs,
    /// Expectations file: each trace's expected status from one of its
    /// fields; prints the agreement table.
    #[arg(long = "expect", value_name = "FILE")]
    pub expectations: Option<PathBuf>,
    /// A not-evaluable clause at or above this severity makes a test
    /// undetermined instead of pass.
    #[arg(long, value_enum, default_value_t = SeverityArg::Medium)]
    pub severity_floor: SeverityArg,
    /// Grade judged clauses with this OpenAI-compatible endpoint
    /// (e.g. http://127.0.0.1:11434/v1 for Ollama); needs --judge-model.
    #[arg(long, value_name = "URL", requires = "judge_model")]
    pub judge_url: Option<String>,
    /// The judge's model name.
    #[arg(long, value_name = "MODEL", requires = "judge_url")]
    pub judge_model: Option<String>,
    /// The environment variable that holds the judge's API key (its name,
    /// never the key).
    #[arg(long, value_name = "VAR", requires = "judge_url")]
    pub judge_api_key_env: Option<String>,
    /// The store whose cache keeps judge answers (default .pactum/pactum.db).
    #[arg(long, value_name = "PATH", requires = "judge_url")]
    pub db: Option<PathBuf>,
    /// Threads that parse and grade JSONL records, 1 to 256 (default: one
    /// per core). Results stay in input order: every report is the same
    /// whatever N.
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = parse_grade_jobs)]
    pub jobs: Option<std::num::NonZeroUsize>,
    /// Which reports to write.
    #[command(flatten)]
    pub report: ReportArgs,
}

/// The most threads `grade -j` starts: each holds batches in flight, so an
/// absurd count is refused rather than allocated.
pub const MAX_GRADE_JOBS: usize = 256;

fn parse_grade_jobs(s: &str) -> Result<std::num::NonZeroUsize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of threads"))?;
    match std::num::NonZeroUsize::new(n) {
        Some(n) if n.get() <= MAX_GRADE_JOBS => Ok(n),
        _ => Err(format!("the number of threads is 1 to {MAX_GRADE_JOBS}")),
    }
}

/// The report flags shared by `grade`, `run` and `show`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Write the versioned JSON report here (`-` for stdout, which then
    /// replaces the terminal summary).
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report here (`-` for stdout, which then replaces
    /// the terminal summary; not with `--json -`).
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Write a single-file HTML report here (docs/html.md; `-` for
    /// stdout): open it in any browser, no network needed.
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
    /// Write a short Markdown summary here (totals, every test that did
    /// not pass with its deciding clause; at most 60,000 bytes) for a CI
    /// step summary or a pull-request comment (`-` for stdout).
    #[arg(long, value_name = "PATH")]
    pub markdown: Option<PathBuf>,
    /// Write each clause verdict as an OpenTelemetry
    /// `gen_ai.evaluation.result` event here: an OTLP JSON logs document,
    /// linked to the graded trace's spans when it came from OTLP
    /// (docs/traces.md; `-` for stdout).
    #[arg(long = "otlp-out", value_name = "PATH")]
    pub otlp_out: Option<PathBuf>,
    /// List every passing test too.
    #[arg(short, long)]
    pub verbose: bool,
    /// Print no terminal summary (reports and exit code only).
    #[arg(short, long)]
    pub quiet: bool,
}

/// The report path that means standard output.
pub(crate) const STDOUT: &str = "-";

impl ReportArgs {
    /// Whether a report goes to standard output (`--json -`, `--junit -`,
    /// `--html -`, `--markdown -`, `--otlp-out -`), which then replaces the
    /// terminal summary.
    pub(crate) fn to_stdout(&self) -> bool {
        [
            &self.json,
            &self.junit,
            &self.html,
            &self.markdown,
            &self.otlp_out,
        ]
        .into_iter()
        .any(|p| p.as_deref().is_some_and(|p| p.as_os_str() == STDOUT))
    }
}

/// `pactum run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The suite file (docs/suites.md).
    #[arg(value_name = "SUITE")]
    pub suite: PathBuf,
    /// Trials in flight at once.
    #[arg(short = 'j', long = "jobs", value_name = "N", default_value_t = 8)]
    pub jobs: usize,
    /// The store (SQLite) that keeps runs, results and the answer cache.
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Send every request, and do not store the answers in the cache.
    #[arg(long, conflicts_with = "refresh_cache")]
    pub no_cache: bool,
    /// Send every request, and replace the cached answers with the new ones.
    #[arg(long)]
    pub refresh_cache: bool,
    /// Resume an interrupted run: RUN (an id or a unique prefix), or this
    /// suite's latest unfinished run. Finished trials are kept and not run
    /// again; the run keeps the cache mode it was started with
    /// (`--no-cache`, `--refresh-cache`).
    #[arg(long, value_name = "RUN", num_args = 0..=1)]
    pub resume: Option<Option<String>>,
    /// Which reports to write.
    #[command(flatten)]
    pub report: ReportArgs,
}

/// `pactum interpret`.
#[derive(Debug, Args)]
pub struct InterpretArgs {
    /// The suite file.
    #[arg(value_name = "SUITE")]
    pub suite: PathBuf,
    /// Interpret again, calling the interpreter model when one is
    /// configured (otherwise nothing is sent: stored interpretations are
    /// shown, and the built-in interpreter needs no model).
    #[arg(long)]
    pub refresh: bool,
    /// Print the interpretations as JSON.
    #[arg(long)]
    pub json: bool,
    /// The store that caches interpretations.
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

/// `pactum rescore`.
#[derive(Debug, Args)]
pub struct RescoreArgs {
    /// The run: its id or a unique prefix.
    #[arg(value_name = "RUN")]
    pub run: String,
    /// The suite as it is now (default: the path the run was started
    /// with), to tell whether an authored test's interpretation is stale.
    #[arg(long, value_name = "SUITE")]
    pub suite: Option<PathBuf>,
    /// The store.
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Which reports to write.
    #[command(flatten)]
    pub report: ReportArgs,
}

/// `pactum runs`.
#[derive(Debug, Args)]
pub struct RunsArgs {
    /// The store.
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

/// `pactum show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The run: its id or a unique prefix (`pactum runs` lists them).
    #[arg(value_name = "RUN")]
    pub run: String,
    /// The store.
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Which reports to write.
    #[command(flatten)]
    pub report: ReportArgs,
}

/// `pactum view` (docs/view.md).
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// The store (read only: nothing is ever written to it or beside it).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// The port to listen on; 0 picks a free one (the URL is printed).
    #[arg(long, value_name = "N", default_value_t = pactum_view::DEFAULT_PORT)]
    pub port: u16,
    /// Listen on this address instead of 127.0.0.1. Anyone who can reach
    /// a non-loopback address can read every stored run: a warning says
    /// so.
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<std::net::IpAddr>,
}

/// `pactum serve` (docs/traces.md, "Receiving traces live").
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The contract every trace is graded against (one contract file).
    #[arg(short, long, value_name = "CONTRACT")]
    pub contract: PathBuf,
    /// The store the verdicts go to (created if missing).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// The address to listen on (loopback by default).
    #[arg(long, value_name = "ADDR", default_value = pactum_serve::DEFAULT_LISTEN)]
    pub listen: std::net::SocketAddr,
    /// How long a trace whose root span ended waits for more spans before
    /// it is graded (`2s`, `500ms`).
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_duration)]
    pub quiet_period: std::time::Duration,
    /// Traces held at once; spans of a new trace past this are refused
    /// (said, counted, never graded).
    #[arg(long, value_name = "N", default_value_t = pactum_serve::DEFAULT_LIMITS.max_open_traces)]
    pub max_open_traces: usize,
    /// Spans held per trace; later ones are dropped and the trace can no
    /// longer pass (undetermined at best).
    #[arg(long, value_name = "N", default_value_t = pactum_serve::DEFAULT_LIMITS.max_spans_per_trace)]
    pub max_spans_per_trace: usize,
    /// The largest request body, in bytes (also after gzip): larger ones
    /// are answered 413.
    #[arg(long, value_name = "BYTES", default_value_t = pactum_serve::DEFAULT_MAX_BODY)]
    pub max_body_bytes: usize,
    /// POST each graded trace's verdicts as `gen_ai.evaluation.result`
    /// log records (OTLP/HTTP JSON) to this logs endpoint
    /// (`http://127.0.0.1:4318/v1/logs`).
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// The severity floor (SPEC §3.5).
    #[arg(long, value_enum, default_value_t = SeverityArg::Medium)]
    pub severity_floor: SeverityArg,
}

fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    humantime::parse_duration(s).map_err(|e| format!("`{s}`: {e} (write e.g. 2s or 500ms)"))
}

/// `pactum check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Contract or suite files (a suite is checked with every contract
    /// it names or holds), or folders of them.
    #[arg(value_name = "CONTRACT_OR_SUITE", required = true)]
    pub contracts: Vec<PathBuf>,
    /// Also warn about checks on channels this level never observes.
    #[arg(long, value_enum)]
    pub observability: Option<LevelArg>,
}

/// `pactum strength` (docs/strength.md).
#[derive(Debug, Args)]
pub struct StrengthArgs {
    /// The contract to measure, or a folder of `.yaml`/`.yml`/`.json`
    /// contract files as `grade -c` takes (repeatable: several contracts
    /// are measured on one probe set, each in its own artifact folder).
    #[arg(short = 'c', long = "contract", value_name = "PATH", required = true)]
    pub contracts: Vec<PathBuf>,
    /// Clean trace files: probes are planted in every trace that passes
    /// every contract given (the others are listed and skipped).
    #[arg(value_name = "TRACES", required_unless_present = "probes")]
    pub traces: Vec<PathBuf>,
    /// How to read the trace files.
    #[command(flatten)]
    pub import: ImportArgs,
    /// Scoring policy file (default: the built-in policy).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Trials per probe (default: the policy's minimum_trials).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub trials: Option<u32>,
    /// Authored probe files (repeatable).
    #[arg(long = "probes", value_name = "FILE")]
    pub probes: Vec<PathBuf>,
    /// Plant the defect probes from this contract's clauses (default: the
    /// first --contract, a folder's first file by name); a clean trace must
    /// pass it too.
    #[arg(long, value_name = "FILE")]
    pub probes_from: Option<PathBuf>,
    /// Artifact folder (default .pactum/strength/<contract id>/; with
    /// several contracts, one subfolder per contract id).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the summary as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write the summary as a single-file HTML page (docs/html.md):
    /// the strength vector as a chart, the verdict ladder, the missed
    /// probes (`-` for stdout, instead of the text summary).
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
}

/// `pactum aggregate`.
#[derive(Debug, Args)]
pub struct AggregateArgs {
    /// Artifact folders (their top-level *.json files) or files.
    #[arg(value_name = "ARTIFACTS", required = true)]
    pub artifacts: Vec<PathBuf>,
    /// The scoring policy the artifacts must have been scored under (its
    /// `floors` are the default floors).
    #[arg(long, value_name = "FILE")]
    pub policy: PathBuf,
    /// Class floors, e.g. defect=0.75,gameability=0.5 (override the
    /// policy file's).
    #[arg(long, value_name = "CLASS=RATE", value_delimiter = ',')]
    pub floors: Vec<String>,
    /// Print the aggregate as canonical JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `pactum compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The first contract's artifact folder.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// The second contract's artifact folder.
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// The scoring policy (default: the one A's artifacts record).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Print the comparison as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write the comparison as a single-file HTML page
    /// (docs/html.md): the dominance answer and each side's strength
    /// vector as a chart (`-` for stdout, instead of the text).
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
}

/// Parses the process arguments, runs the command and returns the exit code.
pub fn main() -> i32 {
    // A full file-size limit fails a write (reported), it does not kill.
    pactum_runner::survive_file_size_limit();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                Exit::Usage.code()
            } else {
                0
            };
            let _ = e.print();
            return code;
        }
    };
    run(cli).code()
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Exit {
    let color = output::color_enabled(cli.color);
    let ended = |r: error::CliResult| r.unwrap_or_else(error::CliError::report);
    match cli.command {
        Command::Grade(args) => ended(grade::grade(*args, color)),
        Command::Check(args) => ended(grade::check(args, color)),
        Command::Run(args) => ended(run::run(*args, color)),
        Command::Interpret(args) => ended(review::interpret(args, color)),
        Command::Rescore(args) => ended(review::rescore(args, color)),
        Command::Runs(args) => ended(run::runs(args)),
        Command::Show(args) => ended(run::show(args, color)),
        Command::View(args) => ended(view::view(args)),
        Command::Serve(args) => ended(serve::serve(args)),
        Command::Strength(args) => strength::strength(*args, color),
        Command::Aggregate(args) => strength::aggregate_cmd(args, color),
        Command::Compare(args) => strength::compare_cmd(args, color),
        Command::Schema { format } => grade::schema(format).unwrap_or_else(CliError::report),
    }
}
