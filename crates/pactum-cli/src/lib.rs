//! # pactum-cli
//!
//! The command-line front end: clap definitions, dispatch to the library
//! crates, and the one exit-code policy ([`exit`]). No grading logic lives
//! here.

pub mod exit;
mod grade;
mod output;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use exit::Exit;

/// pactum — test LLM applications and agents against evaluation contracts.
#[derive(Debug, Parser)]
#[command(name = "pactum", version, about, long_about = None, after_help = exit::TABLE)]
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
}

/// `pactum grade`.
#[derive(Debug, Args)]
pub struct GradeArgs {
    /// Contract files, or folders of `.yaml`/`.yml`/`.json` contract files
    /// (repeatable).
    #[arg(short = 'c', long = "contract", value_name = "PATH", required = true)]
    pub contracts: Vec<PathBuf>,
    /// Trace files to grade.
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
    /// Write the versioned JSON report here (`-` for stdout, which then
    /// replaces the terminal summary).
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// List every passing trace too.
    #[arg(short, long)]
    pub verbose: bool,
    /// Print no terminal summary (reports and exit code only).
    #[arg(short, long)]
    pub quiet: bool,
}

/// `pactum check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Contract files or folders.
    #[arg(value_name = "CONTRACT", required = true)]
    pub contracts: Vec<PathBuf>,
    /// Also warn about checks on channels this level never observes.
    #[arg(long, value_enum)]
    pub observability: Option<LevelArg>,
}

/// Parses the process arguments, runs the command and returns the exit code.
pub fn main() -> i32 {
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
    match cli.command {
        Command::Grade(args) => grade::grade(*args, color),
        Command::Check(args) => grade::check(args, color),
        Command::Schema { format } => grade::schema(format),
    }
}
