//! # pactum-trace
//!
//! Streaming trace importers: files → [`pactum_core::trace::Trace`]
//! values, handed one at a time to a sink. Memory stays constant whatever
//! the file size: one record is held at a time (at most
//! [`MAX_RECORD_BYTES`]), no trace is collected.
//!
//! | format | files | module |
//! |---|---|---|
//! | [`TraceFormat::Pactum`]: pactum's own (`schemas/trace.schema.json`) | JSON (one trace or an array), JSONL | `pactum` |
//! | [`TraceFormat::Openai`]: chat messages (OpenAI, AgentDojo, tau-bench; Anthropic, Gemini and LangChain layouts) | JSONL, JSON array | `openai` |
//! | [`TraceFormat::Tabular`]: single-turn prompt/response records (XSTest, JailbreakBench) | CSV, JSONL, JSON | `tabular` |
//! | [`TraceFormat::Otlp`], [`TraceFormat::Jaeger`]: OpenTelemetry spans (GenAI conventions, OpenInference) | JSON, JSONL of documents | `otel` |
//! | [`TraceFormat::OpenaiAgents`]: OpenAI Agents SDK trace exports | JSONL (or JSON) of `{"data": […]}` batches | `agents_sdk` |
//! | [`TraceFormat::Inspect`]: Inspect AI evaluation logs | `.json`, `.eval` (zip) | `inspect` |
//!
//! The observability level (SPEC §2, §3.2) is never guessed: it comes from
//! the record where the format has a place for it, else from
//! [`ImportOptions::observability`], else the file is refused.
//! `docs/traces.md` is the user's guide to all of this.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::ops::ControlFlow;
use std::path::Path;

use pactum_core::trace::{Channel, ObservabilityLevel, Trace};

mod agents_sdk;
mod convert;
mod error;
mod framing;
mod inputs;
mod inspect;
mod langfuse;
mod langsmith;
mod messages;
mod openai;
mod otel;
mod pactum;
mod parallel;
mod pointer;
mod tabular;
mod tally;

pub use error::{ImportError, RecordError};
pub use framing::MAX_RECORD_BYTES;
pub use inputs::{InputNotes, InputWarning};
pub use otel::live;
pub use otel::{MAX_SPANS, MAX_SPANS_PER_TRACE};
pub use parallel::Parallel;
pub use tally::ChannelTally;

use convert::{Conv, RecordCtx};
use framing::{Frame, JsonFrames, LineFrames, NavigateError};
use openai::OpenaiFields;
use pointer::Pointer;
use tabular::JsonColumns;

/// Which importer reads a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TraceFormat {
    /// Chosen from the extension and the first recognisable record: `.csv`
    /// → tabular; `.json`/`.jsonl`/`.ndjson` → the first object record with
    /// `turns` (pactum), or with a messages array at
    /// [`ImportOptions::messages_pointer`] (else `/messages`, `/traj` or
    /// `/contents`: openai), or, when [`ImportOptions::columns`] is set,
    /// with the prompt or response column (tabular); `.eval`, or a `.json`
    /// object with `version`, `status` and `eval` → inspect; a record
    /// `{"data": [{"object": "trace" | "trace.span"}]}` → openai-agents;
    /// OpenTelemetry envelopes → otlp, jaeger, langfuse-otel. A file where no record
    /// fits and one is not JSON is an [`ImportError::Syntax`] naming it;
    /// anything else is an [`ImportError::UnknownFormat`]. In a file read
    /// as chat conversations, a record without messages is skipped only
    /// when it is a summary line: one in another trace format, or holding
    /// messages or tool calls elsewhere, is an [`Item::Error`].
    #[default]
    Auto,
    /// pactum's own format: the serde shape of [`Trace`], strictly.
    Pactum,
    /// OpenAI chat-messages conversations.
    Openai,
    /// Single-turn prompt/response records; needs [`ImportOptions::columns`].
    Tabular,
    /// OpenTelemetry OTLP JSON: one `{"resourceSpans": …}` document (the
    /// OTLP/HTTP JSON body; Tempo's `batches` /
    /// `instrumentationLibrarySpans` too) or JSONL of them (the
    /// Collector's file exporter). Spans are held until the file ends
    /// (see `docs/traces.md`, "OpenTelemetry"); the level comes from the
    /// data, [`ImportOptions::observability`] can only lower it.
    Otlp,
    /// Jaeger JSON (`{"data": [{traceID, spans, processes}]}`), read as
    /// [`TraceFormat::Otlp`] is.
    Jaeger,
    /// A Langfuse trace export (`{trace, observations}`) of an
    /// OpenInference-instrumented run: each observation's
    /// `metadata.attributes` are its span's attributes, read as
    /// [`TraceFormat::Otlp`] reads them.
    LangfuseOtel,
    /// An OpenAI Agents SDK trace export: JSONL of `{"data": [trace and
    /// trace.span records]}` batches (`docs/traces.md`, "OpenAI Agents
    /// SDK"). Records are held until the file ends; the level comes from
    /// the data, [`ImportOptions::observability`] can only lower it.
    OpenaiAgents,
    /// An Inspect AI evaluation log: a `.json` log or a `.eval` zip, one
    /// trace per sample and epoch (`docs/traces.md`, "Inspect AI").
    /// Samples are read one at a time.
    Inspect,
    /// Anthropic Messages traffic: a VCR cassette (YAML) of `/v1/messages`
    /// requests and replies (JSON or streamed), or a Claude Agent SDK
    /// message stream (YAML `messages:`). The level comes from the data.
    Anthropic,
    /// Gemini `generateContent` traffic recorded as a VCR cassette (YAML):
    /// request `contents`, reply `candidates[0].content`.
    Gemini,
    /// A LangSmith run tree (`{post: [run], patch: [run]}`, a run, or
    /// runs with `child_runs`): `llm` runs are LLM calls, `tool` runs tool
    /// executions, read as [`TraceFormat::Otlp`] reads spans.
    Langsmith,
    /// A Langfuse trace export (`{trace, observations}`) read by its own
    /// fields: `GENERATION` input/output messages, `TOOL` observations
    /// (and spans named after a tool), `level: ERROR`. Detected when its
    /// observations carry no OpenInference attributes (else
    /// [`TraceFormat::LangfuseOtel`]).
    Langfuse,
    /// Conversations of LangChain messages: read as [`TraceFormat::Openai`]
    /// (same records, flags and rules), every message without `role`
    /// taken as a LangChain message dict (`type`) or LangChain.js
    /// constructor (`{lc, type: "constructor", id, kwargs}`).
    Langchain,
}

impl TraceFormat {
    /// The `--format` name: `auto`, `pactum`, `openai`, `tabular`, `otlp`,
    /// `jaeger`, `langfuse-otel`, `openai-agents`, `inspect`, `anthropic`,
    /// `gemini`, `langsmith`, `langfuse`, `langchain`.
    pub fn as_str(self) -> &'static str {
        match self {
            TraceFormat::Auto => "auto",
            TraceFormat::Pactum => "pactum",
            TraceFormat::Openai => "openai",
            TraceFormat::Tabular => "tabular",
            TraceFormat::Otlp => "otlp",
            TraceFormat::Jaeger => "jaeger",
            TraceFormat::LangfuseOtel => "langfuse-otel",
            TraceFormat::OpenaiAgents => "openai-agents",
            TraceFormat::Inspect => "inspect",
            TraceFormat::Anthropic => "anthropic",
            TraceFormat::Gemini => "gemini",
            TraceFormat::Langsmith => "langsmith",
            TraceFormat::Langfuse => "langfuse",
            TraceFormat::Langchain => "langchain",
        }
    }
}

/// Where the prompt, the response and (optionally) the id sit in a tabular
/// record. For CSV: column names (the header row). For JSON records: JSON
/// pointers (`/a/b`) or plain top-level keys (`prompt`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnMap {
    /// The prompt: becomes the turn's single user message.
    pub prompt: String,
    /// The response: becomes the turn's response text.
    pub response: String,
    /// The trace id. Without it: the `id` column/member when present and
    /// non-empty, else `{file name}:{line}`.
    pub id: Option<String>,
}

/// How to read a trace file; the CLI fills it from its flags (`--format`,
/// `--observability`, `--id-field`, `--messages-field`, `--records-field`,
/// `--prompt-column`, `--response-column`, `--id-column`, `--withhold`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// The format; [`TraceFormat::Auto`] by default.
    pub format: TraceFormat,
    /// The level for records that do not declare one (the file wins where
    /// it says). Required for tabular records, which never do.
    pub observability: Option<ObservabilityLevel>,
    /// JSON pointer (or top-level key) of the trace id in each record
    /// (OpenAI and tabular JSON records; pactum traces carry their own `id`).
    pub id_pointer: Option<String>,
    /// OpenAI: where the messages array is (default `/messages`;
    /// tau-bench: `/traj`).
    pub messages_pointer: Option<String>,
    /// JSON documents whose records sit in a nested array, e.g.
    /// JailbreakBench `/jailbreaks`. Not for JSONL.
    pub records_pointer: Option<String>,
    /// The column mapping; required for [`TraceFormat::Tabular`].
    pub columns: Option<ColumnMap>,
    /// Channels dropped while importing, as an adapter that cannot see them
    /// would: `response` → every response `None`, `tool_calls` / `side_effects`
    /// → emptied, and the trace's level lowered so that it does not observe
    /// the channel ([`ObservabilityLevel::without`]): what pactum removed
    /// reads as unobserved (undetermined), never as "nothing happened".
    pub withhold: Vec<Channel>,
    /// OpenAI conversations: the messages that end a conversation
    /// (`--ended-by`). A conversation whose last message is one of them
    /// is recorded to its end ([`Trace::ended_by`]); one whose last
    /// message is not stays as it reads without the option (cut off when
    /// it ends on a tool result or on an unanswered input). Empty: no
    /// marker. Other formats refuse it ([`ImportError::UnsupportedOption`]).
    pub ended_by: Vec<EndMarker>,
    /// OpenAI conversations: a tool result recorded as text that starts
    /// with this prefix (exactly, case and spaces included) is the call's
    /// error (`--tool-error-prefix`, tau-bench: `Error:`), as if the
    /// recording had said so; the result is kept too. `None`: only errors
    /// the format states are errors. Other formats refuse it.
    pub tool_error_prefix: Option<String>,
}

/// A message the user says ends a conversation (`--ended-by`,
/// `docs/traces.md` "How a recording ends"). Only the conversation's last
/// message is compared, and only with the speaker named: a marker's text
/// inside a tool result or the target's own answer ends nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndMarker {
    /// `user:TEXT`: the last message is a user message whose text contains
    /// TEXT (case-sensitive), e.g. tau-bench's `user:###STOP###`.
    User(String),
    /// `tool:NAME`: the last message is the result of a call to the tool
    /// NAME (exact name) that did not end in an error, e.g. tau-bench's
    /// `tool:transfer_to_human_agents`.
    Tool(String),
}

impl EndMarker {
    /// Reads `user:TEXT` or `tool:NAME`.
    ///
    /// # Errors
    /// A message naming what is wrong: another speaker (the assistant's
    /// own words never end a recording: the target could say anything),
    /// no `:`, or an empty TEXT or NAME.
    pub fn parse(s: &str) -> Result<Self, String> {
        let Some((kind, what)) = s.split_once(':') else {
            return Err(format!(
                "`{}`: expected user:TEXT (a user message containing TEXT) or tool:NAME (the result of the tool NAME)",
                error::quote(s)
            ));
        };
        if what.is_empty() {
            return Err(format!(
                "`{kind}:` names nothing: give the text or tool after the colon"
            ));
        }
        match kind {
            "user" => Ok(Self::User(what.to_string())),
            "tool" => Ok(Self::Tool(what.to_string())),
            other => Err(format!(
                "`{}`: unknown speaker `{}`: expected user:TEXT or tool:NAME (the target's own text never ends a recording)",
                error::quote(s),
                error::quote(other)
            )),
        }
    }
}

impl std::fmt::Display for EndMarker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::User(t) => write!(f, "user:{t}"),
            Self::Tool(n) => write!(f, "tool:{n}"),
        }
    }
}

/// What the sink receives, in file order. `T` is what each trace became
/// ([`read_traces_with`]'s `map`); [`read_traces`] hands the trace itself.
#[derive(Debug, Clone, PartialEq)]
pub enum Item<T = Trace> {
    /// One imported trace (with `withhold` applied and `source` set), or
    /// what `map` made of it.
    Trace(T),
    /// A record that holds no trace, e.g. AgentDojo's summary line.
    Skipped {
        /// 1-based line of the record.
        line: u64,
        /// Why, naming the line.
        reason: String,
    },
    /// A record that could not be read; reading goes on with the next.
    Error(RecordError),
}

/// Counts of one [`read_traces`] call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// [`Item::Trace`]s handed to the sink.
    pub traces: u64,
    /// [`Item::Skipped`]s handed to the sink.
    pub skipped: u64,
    /// [`Item::Error`]s handed to the sink.
    pub errors: u64,
    /// What each declared level reported (after `withhold`).
    pub channel_tally: ChannelTally,
}

/// Reads the traces of one file, handing each record's outcome to `sink`
/// in file order; `sink` returns [`ControlFlow::Break`] to stop early.
///
/// Streaming: one record in memory at a time, whatever the file size; JSON
/// arrays are scanned element by element, not loaded.
///
/// # Errors
/// [`ImportError`] when the file as a whole cannot be read: it cannot be
/// opened or read, `Auto` cannot tell its format, tabular import lacks a
/// column mapping or a level, a mapped CSV column is missing, an option is
/// not a JSON pointer, the records pointer leads nowhere, or the first
/// record needing a level finds none in the record or the options. A bad
/// record is not an `ImportError` but an [`Item::Error`].
pub fn read_traces(
    path: &Path,
    opts: &ImportOptions,
    sink: &mut dyn FnMut(Item) -> ControlFlow<()>,
) -> Result<ReadStats, ImportError> {
    read_traces_with(path, opts, Parallel::sequential(), &|t| t, sink)
}

/// [`read_traces`], with `map` applied to every trace before it reaches
/// `sink`: on `parallel.jobs` threads for a JSONL file (a reader cuts it
/// into batches of whole lines, workers parse, convert and `map` them,
/// and `sink` receives the results on the calling thread in file order),
/// on the calling thread for everything else (a JSON document or CSV is
/// framed by a scanner that must see every byte before the next record,
/// so it is read sequentially).
///
/// Whatever `parallel` says, `sink` sees the same items in the same order,
/// with the same ids, lines and messages, and the same [`ReadStats`] or
/// [`ImportError`] come back: lines are numbered by the reader, which
/// frames exactly as the sequential path does. Memory stays flat: at most
/// [`Parallel::in_flight`] batches of about [`Parallel::batch_bytes`]
/// bytes each (one line of up to [`MAX_RECORD_BYTES`] is one batch) are
/// read ahead of `sink`. `map` may run on records after the one where
/// `sink` breaks or the file turns out unreadable; its results are then
/// dropped.
///
/// # Errors
/// As [`read_traces`].
pub fn read_traces_with<T: Send>(
    path: &Path,
    opts: &ImportOptions,
    parallel: Parallel,
    map: &(dyn Fn(Trace) -> T + Sync),
    sink: &mut dyn FnMut(Item<T>) -> ControlFlow<()>,
) -> Result<ReadStats, ImportError> {
    let id_field = parse_opt("--id-field", opts.id_pointer.as_deref())?;
    let records = parse_opt("--records-field", opts.records_pointer.as_deref())?;
    let messages = parse_opt("--messages-field", opts.messages_pointer.as_deref())?;
    let ext = extension(path);
    let mut emit = Emitter::new(path, &opts.withhold, map, sink);

    let tabular_setup = || -> Result<(&ColumnMap, ObservabilityLevel), ImportError> {
        let map = opts
            .columns
            .as_ref()
            .ok_or_else(|| ImportError::MissingColumns {
                path: path.to_path_buf(),
            })?;
        let level = opts
            .observability
            .ok_or_else(|| ImportError::TabularNeedsObservability {
                path: path.to_path_buf(),
            })?;
        Ok((map, level))
    };

    // The end of a conversation and errors told as text are read from
    // chat messages only: another format refuses them rather than ignore
    // what the user stated.
    let chat_only = || -> Result<(), ImportError> {
        let option = if !opts.ended_by.is_empty() {
            "--ended-by"
        } else if opts.tool_error_prefix.is_some() {
            "--tool-error-prefix"
        } else {
            return Ok(());
        };
        Err(ImportError::UnsupportedOption {
            path: path.to_path_buf(),
            option,
            reason: "it reads chat-message conversations (the openai format) only",
        })
    };
    if matches!(opts.format, TraceFormat::Pactum | TraceFormat::Tabular)
        || (opts.format == TraceFormat::Auto && ext == "csv")
    {
        chat_only()?;
    }
    let (framing, plan) = match opts.format {
        TraceFormat::Tabular => {
            let (map, level) = tabular_setup()?;
            let framing = framing_of(path, &ext, true)?;
            if framing == Framing::Csv {
                let file = open(path)?;
                tabular::read_csv(path, file, map, level, &mut emit)?;
                return Ok(emit.stats);
            }
            (
                framing,
                Plan::TabularJson(JsonColumns::new(map, id_field.as_ref())?),
            )
        }
        TraceFormat::Pactum => (framing_of(path, &ext, false)?, Plan::Pactum),
        TraceFormat::Otlp
        | TraceFormat::Jaeger
        | TraceFormat::LangfuseOtel
        | TraceFormat::Langsmith
        | TraceFormat::Langfuse => {
            otel_options(path, opts)?;
            let which = match opts.format {
                TraceFormat::Otlp => otel::OtelKind::Otlp,
                TraceFormat::Jaeger => otel::OtelKind::Jaeger,
                TraceFormat::Langsmith => otel::OtelKind::Langsmith,
                TraceFormat::Langfuse => otel::OtelKind::Langfuse,
                _ => otel::OtelKind::LangfuseOtel,
            };
            let framing = framing_of(path, &ext, false)?;
            read_spans(path, framing, which, opts.observability, &mut emit)?;
            return Ok(emit.stats);
        }
        TraceFormat::OpenaiAgents => {
            otel_options(path, opts)?;
            if matches!(ext.as_str(), "yaml" | "yml") {
                return Err(ImportError::UnknownFormat {
                    path: path.to_path_buf(),
                    reason: CASSETTE.into(),
                });
            }
            let framing = framing_of(path, &ext, false)?;
            agents_sdk::read(path, framing, opts.observability, &mut emit)?;
            return Ok(emit.stats);
        }
        TraceFormat::Inspect => {
            otel_options(path, opts)?;
            if ext == "eval" {
                inspect::read_eval(path, opts.observability, &mut emit)?;
            } else {
                inspect::read_json(path, opts.observability, &mut emit)?;
            }
            return Ok(emit.stats);
        }
        TraceFormat::Anthropic | TraceFormat::Gemini => {
            recording_options(path, opts)?;
            if matches!(ext.as_str(), "json" | "jsonl" | "ndjson" | "csv") {
                return Err(ImportError::UnknownFormat {
                    path: path.to_path_buf(),
                    reason: format!(
                        "--format {} reads YAML recordings (VCR cassettes{}); conversations of its messages in JSON are read by --format openai",
                        opts.format.as_str(),
                        if opts.format == TraceFormat::Anthropic {
                            ", Claude Agent SDK streams"
                        } else {
                            ""
                        }
                    ),
                });
            }
            let provider = if opts.format == TraceFormat::Anthropic {
                messages::Provider::Anthropic
            } else {
                messages::Provider::Gemini
            };
            messages::read_yaml(path, Some(provider), opts.observability, &mut emit)?;
            return Ok(emit.stats);
        }
        TraceFormat::Openai | TraceFormat::Langchain => (
            framing_of(path, &ext, false)?,
            Plan::Openai(OpenaiFields {
                messages: messages.unwrap_or_else(|| Pointer::key("messages")),
                id: id_field,
                ended_by: opts.ended_by.clone(),
                error_prefix: opts.tool_error_prefix.clone(),
                langchain: opts.format == TraceFormat::Langchain,
            }),
        ),
        TraceFormat::Auto => match ext.as_str() {
            "yaml" | "yml" => {
                recording_options(path, opts)?;
                messages::read_yaml(path, None, opts.observability, &mut emit)?;
                return Ok(emit.stats);
            }
            "csv" => {
                let (map, level) = tabular_setup()?;
                let file = open(path)?;
                tabular::read_csv(path, file, map, level, &mut emit)?;
                return Ok(emit.stats);
            }
            "eval" => {
                otel_options(path, opts)?;
                inspect::read_eval(path, opts.observability, &mut emit)?;
                return Ok(emit.stats);
            }
            "json"
                if inspect::sniff_json(path).map_err(|reason| ImportError::UnknownFormat {
                    path: path.to_path_buf(),
                    reason,
                })? =>
            {
                otel_options(path, opts)?;
                inspect::read_json(path, opts.observability, &mut emit)?;
                return Ok(emit.stats);
            }
            "json" | "jsonl" | "ndjson" => {
                let framing = framing_of(path, &ext, false)?;
                match detect(
                    path,
                    framing,
                    records.as_ref(),
                    messages.as_ref(),
                    opts,
                    id_field,
                )? {
                    Detected::Plan(plan) => {
                        if matches!(plan, Plan::TabularJson(_)) {
                            tabular_setup()?;
                        }
                        if !matches!(plan, Plan::Openai(_)) {
                            chat_only()?;
                        }
                        (framing, plan)
                    }
                    Detected::Otel(which) => {
                        otel_options(path, opts)?;
                        read_spans(path, framing, which, opts.observability, &mut emit)?;
                        return Ok(emit.stats);
                    }
                    Detected::AgentsSdk => {
                        otel_options(path, opts)?;
                        agents_sdk::read(path, framing, opts.observability, &mut emit)?;
                        return Ok(emit.stats);
                    }
                    Detected::Empty => return Ok(emit.stats),
                }
            }
            _ => {
                return Err(ImportError::UnknownFormat {
                    path: path.to_path_buf(),
                    reason:
                        "its extension is not .json, .jsonl, .ndjson, .csv, .eval, .yaml or .yml"
                            .into(),
                })
            }
        },
    };
    if framing == Framing::Lines && records.is_none() && parallel.jobs.get() > 1 {
        parallel::read_lines(path, &plan, opts.observability, parallel, &mut emit)?;
    } else {
        read_json(
            path,
            framing,
            records.as_ref(),
            &plan,
            opts.observability,
            &mut emit,
        )?;
    }
    Ok(emit.stats)
}

/// Reads a file of spans ([`otel::read`]). A LangSmith or Langfuse export
/// is first scanned whole for what its spans alone do not say (a run cut
/// off or placed in two traces, an observation pactum cannot classify):
/// the notes are applied to each trace once built.
fn read_spans<T>(
    path: &Path,
    framing: Framing,
    which: otel::OtelKind,
    level_flag: Option<ObservabilityLevel>,
    emit: &mut Emitter<'_, T>,
) -> Result<(), ImportError> {
    emit.notes = match which {
        otel::OtelKind::Langsmith => langsmith::notes(path, framing)?,
        otel::OtelKind::Langfuse => langfuse::notes(path, framing)?,
        _ => convert::Notes::new(),
    };
    otel::read(path, framing, which, level_flag, emit)
}

/// Every record of the file that is JSON, with its line; records that are
/// not are left to the reading pass, which reports them.
fn each_record(
    path: &Path,
    framing: Framing,
    f: &mut dyn FnMut(u64, serde_json::Value),
) -> Result<(), ImportError> {
    for_each_frame(path, framing, None, &mut |frame| {
        if let Frame::Record { line, bytes, .. } = frame {
            if let Ok(v) = pactum_core::json::parse_strict(bytes) {
                f(line, v);
            }
        }
        ControlFlow::Continue(())
    })
}

/// Why a VCR cassette (`.yaml`) is refused as an Agents SDK export.
const CASSETTE: &str = "a YAML file: pactum reads the Agents SDK's trace export (the `{\"data\": […]}` ingest bodies, one per line), not a VCR cassette of a test run's HTTP interactions; the response text the export lacks (its `response` spans carry only `response_id`) is not joined from a cassette either, so response checks on such traces answer undetermined";

/// Imports one record held in memory (not a file): an OpenAI-style
/// conversation (`{"messages": [...], ...}`, [`TraceFormat::Openai`]) or a
/// trace in pactum's own format ([`TraceFormat::Pactum`]), by the same
/// converters the file importers use. `name` stands for the file in the
/// trace's source and in errors (line 1); `observability` is the level for
/// a record that does not declare one (the record wins where it says).
///
/// # Errors
/// A [`RecordError`] naming `name`, the line and the field: the record is
/// not valid JSON or not a conversation, holds no messages array, gives no
/// observability level (and `observability` is `None`), or `format` is
/// neither `Openai` nor `Pactum`.
pub fn import_record(
    bytes: &[u8],
    name: &str,
    format: TraceFormat,
    observability: Option<ObservabilityLevel>,
) -> Result<Trace, RecordError> {
    let ctx = RecordCtx {
        file: name,
        file_name: name,
        line: 1,
        ordinal: None,
        line_framed: false,
        level_flag: observability,
    };
    let conv = match format {
        TraceFormat::Openai => openai::convert(
            bytes,
            &ctx,
            &OpenaiFields {
                messages: Pointer::key("messages"),
                id: None,
                ended_by: Vec::new(),
                error_prefix: None,
                langchain: false,
            },
        ),
        TraceFormat::Pactum => pactum::convert(bytes, &ctx),
        _ => return Err(ctx.error(
            None,
            "an in-memory record is read as openai or pactum; other formats are read from files",
        )),
    };
    match conv {
        Conv::Trace(t) => Ok(t),
        Conv::Skip(_) => Err(ctx.error(
            Some("/messages"),
            "no messages array: a conversation needs its messages",
        )),
        Conv::Error(e) => Err(e),
        Conv::NoLevel => Err(ctx.error(
            Some("/observability"),
            "no observability level: the record declares none and none was given (response_only, tool_calls or full); it is never guessed",
        )),
    }
}

/// The flags that say where things sit in a record do not apply to
/// OpenTelemetry spans: given, they would be ignored, so they are refused.
fn otel_options(path: &Path, opts: &ImportOptions) -> Result<(), ImportError> {
    const PLACED: &str = "OpenTelemetry spans are read by their conventions: the trace id is the conversation, session or trace id";
    const CHAT: &str = "it reads chat-message conversations (the openai format) only; a span's status says whether a call failed, and a trace ends when its spans do";
    let given = [
        ("--records-field", opts.records_pointer.is_some(), PLACED),
        ("--id-field", opts.id_pointer.is_some(), PLACED),
        ("--messages-field", opts.messages_pointer.is_some(), PLACED),
        ("--prompt-column", opts.columns.is_some(), PLACED),
        ("--ended-by", !opts.ended_by.is_empty(), CHAT),
        (
            "--tool-error-prefix",
            opts.tool_error_prefix.is_some(),
            CHAT,
        ),
    ];
    match given.into_iter().find(|(_, on, _)| *on) {
        Some((option, _, reason)) => Err(ImportError::UnsupportedOption {
            path: path.to_path_buf(),
            option,
            reason,
        }),
        None => Ok(()),
    }
}

/// Provider recordings say where everything is: the flags that place
/// things in a record, or read chat conversations, are refused.
fn recording_options(path: &Path, opts: &ImportOptions) -> Result<(), ImportError> {
    const PLACED: &str =
        "a provider recording is read by its API's shape: the request's messages and the reply";
    const CHAT: &str = "it reads chat-message conversations (the openai format) only";
    let given = [
        ("--records-field", opts.records_pointer.is_some(), PLACED),
        ("--id-field", opts.id_pointer.is_some(), PLACED),
        ("--messages-field", opts.messages_pointer.is_some(), PLACED),
        ("--prompt-column", opts.columns.is_some(), PLACED),
        ("--ended-by", !opts.ended_by.is_empty(), CHAT),
        (
            "--tool-error-prefix",
            opts.tool_error_prefix.is_some(),
            CHAT,
        ),
    ];
    match given.into_iter().find(|(_, on, _)| *on) {
        Some((option, _, reason)) => Err(ImportError::UnsupportedOption {
            path: path.to_path_buf(),
            option,
            reason,
        }),
        None => Ok(()),
    }
}

fn parse_opt(option: &'static str, s: Option<&str>) -> Result<Option<Pointer>, ImportError> {
    s.map(|s| Pointer::parse(option, s)).transpose()
}

/// The file's last path component, for fallback ids.
pub(crate) fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

fn open(path: &Path) -> Result<File, ImportError> {
    File::open(path).map_err(|source| ImportError::Open {
        path: path.to_path_buf(),
        source,
    })
}

fn read_error(path: &Path, source: std::io::Error) -> ImportError {
    ImportError::Read {
        path: path.to_path_buf(),
        source,
    }
}

/// How a file is cut into records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    /// JSONL: one record per line.
    Lines,
    /// A JSON document (array elements, or top-level values).
    Document,
    /// CSV rows.
    Csv,
}

/// `.jsonl`/`.ndjson` → lines, `.json` → document, `.csv` → CSV (tabular
/// only); otherwise by the first non-blank byte: `[` → document, `{` →
/// lines, anything else → CSV for tabular, lines otherwise.
fn framing_of(path: &Path, ext: &str, tabular: bool) -> Result<Framing, ImportError> {
    match ext {
        "jsonl" | "ndjson" => return Ok(Framing::Lines),
        "json" => return Ok(Framing::Document),
        "csv" if tabular => return Ok(Framing::Csv),
        _ => {}
    }
    let mut r = BufReader::new(open(path)?);
    framing::skip_bom(&mut r).map_err(|e| read_error(path, e))?;
    let first = loop {
        let buf = r.fill_buf().map_err(|e| read_error(path, e))?;
        if buf.is_empty() {
            break None;
        }
        let n = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let next = buf.get(n).copied();
        r.consume(n);
        if next.is_some() {
            break next;
        }
    };
    Ok(match first {
        Some(b'[') => Framing::Document,
        Some(b'{') => Framing::Lines,
        _ if tabular => Framing::Csv,
        _ => Framing::Lines,
    })
}

/// What each record becomes.
#[derive(Debug, Clone)]
enum Plan {
    Pactum,
    Openai(OpenaiFields),
    TabularJson(JsonColumns),
}

impl Plan {
    /// Converts one record's bytes.
    fn convert(&self, bytes: &[u8], ctx: &RecordCtx<'_>) -> Conv {
        match self {
            Plan::Pactum => pactum::convert(bytes, ctx),
            Plan::Openai(fields) => openai::convert(bytes, ctx, fields),
            Plan::TabularJson(cols) => tabular::convert_json(bytes, ctx, cols),
        }
    }
}

enum Detected {
    Plan(Plan),
    /// An OpenTelemetry export, read by `otel`.
    Otel(otel::OtelKind),
    /// An OpenAI Agents SDK export, read by `agents_sdk`.
    AgentsSdk,
    /// The file holds no record at all: nothing to import.
    Empty,
}

/// Where a conversation's messages are looked for when `--messages-field`
/// is not given: OpenAI and AgentDojo, tau-bench, Gemini.
const DEFAULT_MESSAGES: [&str; 3] = ["messages", "traj", "contents"];

/// Looks at records one at a time until one shows the format (see
/// [`TraceFormat::Auto`]); the caller re-opens the file to import it. When
/// none does and a record is not JSON at all, that record's parse error
/// (line and column) is the error: no format would read it.
fn detect(
    path: &Path,
    framing: Framing,
    records: Option<&Pointer>,
    messages: Option<&Pointer>,
    opts: &ImportOptions,
    id_field: Option<Pointer>,
) -> Result<Detected, ImportError> {
    let candidates: Vec<Pointer> = match messages {
        Some(p) => vec![p.clone()],
        None => DEFAULT_MESSAGES.iter().map(|k| Pointer::key(k)).collect(),
    };
    let columns = opts
        .columns
        .as_ref()
        .map(|m| JsonColumns::new(m, id_field.as_ref()))
        .transpose()?;
    let mut seen = 0u64;
    let mut found = None;
    // The first record that is not JSON: when no record shows the format,
    // its parse error is the real problem, not the format.
    let mut broken: Option<(u64, String)> = None;
    let mut otel_found = None;
    let mut agents_found = false;
    let mut ambiguous: Option<(u64, String)> = None;
    let mut flat: Option<(u64, String)> = None;
    for_each_frame(path, framing, records, &mut |frame| {
        let (line, bytes) = match frame {
            Frame::Record { line, bytes, .. } => (line, bytes),
            Frame::Broken { line, message } => {
                broken.get_or_insert((line, message));
                return ControlFlow::Continue(());
            }
        };
        seen += 1;
        let v = match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(v) => v,
            Err(e) => {
                broken.get_or_insert_with(|| {
                    let rel = u64::try_from(e.line()).unwrap_or(1).saturating_sub(1);
                    (
                        line + rel,
                        format!("{} (column {})", error::serde_message(&e), e.column()),
                    )
                });
                return ControlFlow::Continue(());
            }
        };
        if !v.is_object() {
            return ControlFlow::Continue(());
        }
        if agents_sdk::sniff(&v) {
            let other = [
                "turns",
                "messages",
                "traj",
                "contents",
                "resourceSpans",
                "batches",
            ]
            .into_iter()
            .find(|k| v.get(*k).is_some());
            if let Some(k) = other {
                ambiguous = Some((
                    line,
                    format!("it is both an OpenAI Agents SDK export and has `{k}`: say which with --format"),
                ));
            } else {
                agents_found = true;
            }
            return ControlFlow::Break(());
        }
        if let Some(which) = otel::sniff(&v) {
            let other = ["turns", "messages", "traj", "contents"]
                .into_iter()
                .find(|k| v.get(*k).is_some());
            if let Some(k) = other {
                ambiguous = Some((
                    line,
                    format!(
                        "it is both an OpenTelemetry export and has `{k}`: say which with --format"
                    ),
                ));
            } else {
                otel_found = Some(which);
            }
            return ControlFlow::Break(());
        }
        if let Some(k) = flat_span_key(&v) {
            flat = Some((line, k));
        }
        if v.get("turns").is_some() {
            found = Some(Plan::Pactum);
        } else if let Some(p) = candidates
            .iter()
            .find(|p| p.get(&v).is_some_and(serde_json::Value::is_array))
        {
            found = Some(Plan::Openai(OpenaiFields {
                messages: p.clone(),
                id: id_field.clone(),
                ended_by: opts.ended_by.clone(),
                error_prefix: opts.tool_error_prefix.clone(),
                langchain: opts.format == TraceFormat::Langchain,
            }));
        } else if let Some(c) = columns.as_ref().filter(|c| c.matches(&v)) {
            found = Some(Plan::TabularJson(c.clone()));
        }
        if found.is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    if let Some((line, reason)) = ambiguous {
        return Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: format!("line {line}: {reason}"),
        });
    }
    if let Some(which) = otel_found {
        return Ok(Detected::Otel(which));
    }
    if agents_found {
        return Ok(Detected::AgentsSdk);
    }
    if let (None, Some((line, key))) = (&found, flat) {
        return Err(ImportError::UnknownFormat {
            path: path.to_path_buf(),
            reason: format!(
                "line {line}: a flat map of one span's attributes (`{key}`), without the OTLP envelope (`resourceSpans`) that gives its trace, parent and times: wrap it in an OTLP document"
            ),
        });
    }
    match (found, broken) {
        (Some(plan), _) => Ok(Detected::Plan(plan)),
        (None, Some((line, message))) => Err(ImportError::Syntax {
            path: path.to_path_buf(),
            line,
            message,
        }),
        (None, None) if seen == 0 => Ok(Detected::Empty),
        (None, None) => {
            let where_messages = match messages {
                Some(p) => format!("`{}`", p.as_str()),
                None => "`/messages`, `/traj` or `/contents`".into(),
            };
            let where_messages = format!("{where_messages} (openai), nor `resourceSpans` / `batches` (otlp) or `data[].spans` (jaeger)");
            let tabular = if opts.columns.is_some() {
                ", nor has the prompt or response column"
            } else {
                ""
            };
            Err(ImportError::UnknownFormat {
                path: path.to_path_buf(),
                reason: format!(
                    "none of its {seen} record(s) is an object with `turns` (pactum) or a messages array at {where_messages}{tabular}"
                ),
            })
        }
    }
}

/// The trace format a record is recognisably in, other than a chat
/// conversation: a record of a file of conversations in one of these is
/// an error, never a summary line passed over. It asks the sniffers
/// `detect` picks a format by.
pub(crate) fn record_format(v: &serde_json::Value) -> Option<&'static str> {
    if agents_sdk::sniff(v) {
        return Some("openai-agents");
    }
    if let Some(k) = otel::sniff(v) {
        return Some(match k {
            otel::OtelKind::Otlp => "otlp",
            otel::OtelKind::Jaeger => "jaeger",
            otel::OtelKind::LangfuseOtel => "langfuse-otel",
            otel::OtelKind::Langsmith => "langsmith",
            otel::OtelKind::Langfuse => "langfuse",
        });
    }
    if ["version", "status", "eval"]
        .iter()
        .all(|k| v.get(*k).is_some())
    {
        return Some("inspect");
    }
    if v.get("turns").is_some() {
        return Some("pactum");
    }
    flat_span_key(v).map(|_| "one span's attributes, without the OTLP envelope")
}

/// The first key of a record that is one span's attributes laid flat
/// (`gen_ai.*`, `llm.*`, `openinference.*`): no format reads it.
fn flat_span_key(v: &serde_json::Value) -> Option<String> {
    let m = v.as_object()?;
    m.keys()
        .find(|k| {
            k.starts_with("gen_ai.") || k.starts_with("llm.") || k.starts_with("openinference.")
        })
        .map(|k| error::quote(k))
}

/// Frames `path` and hands every frame to `f` until it breaks.
fn for_each_frame(
    path: &Path,
    framing: Framing,
    records: Option<&Pointer>,
    f: &mut dyn FnMut(Frame<'_>) -> ControlFlow<()>,
) -> Result<(), ImportError> {
    let reader = BufReader::with_capacity(1 << 16, open(path)?);
    match framing {
        Framing::Lines | Framing::Csv => {
            if records.is_some() {
                return Err(ImportError::UnsupportedOption {
                    path: path.to_path_buf(),
                    option: "--records-field",
                    reason: "it applies to JSON documents, not to JSONL or CSV",
                });
            }
            let mut frames =
                LineFrames::new(reader, MAX_RECORD_BYTES).map_err(|e| read_error(path, e))?;
            while let Some(frame) = frames.next_frame().map_err(|e| read_error(path, e))? {
                if f(frame).is_break() {
                    break;
                }
            }
        }
        Framing::Document => {
            let tokens = records.map(Pointer::tokens);
            let mut frames =
                JsonFrames::new(reader, tokens, MAX_RECORD_BYTES).map_err(|e| match e {
                    NavigateError::Io(source) => read_error(path, source),
                    NavigateError::Syntax { line, message } => ImportError::Syntax {
                        path: path.to_path_buf(),
                        line,
                        message,
                    },
                    NavigateError::NotFound { line, found } => ImportError::RecordsNotFound {
                        path: path.to_path_buf(),
                        line,
                        pointer: records.map(|p| p.as_str().to_string()).unwrap_or_default(),
                        found,
                    },
                })?;
            while let Some(frame) = frames.next_frame().map_err(|e| read_error(path, e))? {
                if f(frame).is_break() {
                    break;
                }
            }
        }
    }
    Ok(())
}

/// Reads a JSON or JSONL file record by record through `plan`.
fn read_json<T>(
    path: &Path,
    framing: Framing,
    records: Option<&Pointer>,
    plan: &Plan,
    level_flag: Option<ObservabilityLevel>,
    emit: &mut Emitter<'_, T>,
) -> Result<(), ImportError> {
    let display = path.display().to_string();
    let name = file_name(path);
    let mut failure = None;
    for_each_frame(path, framing, records, &mut |frame| match frame {
        Frame::Record {
            line,
            ordinal,
            bytes,
        } => {
            let ctx = RecordCtx {
                file: &display,
                file_name: &name,
                line,
                ordinal,
                line_framed: framing == Framing::Lines,
                level_flag,
            };
            match emit.conv(plan.convert(bytes, &ctx), &ctx) {
                Ok(flow) => flow,
                Err(e) => {
                    failure = Some(e);
                    ControlFlow::Break(())
                }
            }
        }
        Frame::Broken { line, message } => {
            emit.error(RecordError::new(&display, line, None, message))
        }
    })?;
    failure.map_or(Ok(()), Err)
}

/// One converted record, ready for [`Emitter::deliver`]: `withhold`
/// applied and `map` run, which any thread may do.
pub(crate) enum Ready<T> {
    /// A trace (as `map` made it) and what it reported, for the tally.
    Trace(T, tally::Shape),
    /// A record that holds no trace.
    Skip {
        /// The record's line.
        line: u64,
        /// Why, naming the line.
        reason: String,
    },
    /// A record that could not be read.
    Error(RecordError),
    /// A record with no observability level (see [`Emitter::deliver`]).
    NoLevel {
        /// The record's line.
        line: u64,
        /// The record error it is once a trace was delivered.
        error: RecordError,
    },
}

/// Applies `withhold` to a converted record and `map` to its trace.
pub(crate) fn prepare<T>(
    conv: Conv,
    ctx: &RecordCtx<'_>,
    withhold: &[Channel],
    map: &(dyn Fn(Trace) -> T + Sync),
) -> Ready<T> {
    match conv {
        Conv::Trace(mut trace) => {
            for ch in withhold {
                // pactum removed the channel itself: it is unobserved,
                // whatever the file declared (SPEC §3.2).
                trace.observability = trace.observability.without(*ch);
                for turn in &mut trace.turns {
                    match ch {
                        Channel::Response => turn.response = None,
                        Channel::ToolCalls => turn.tool_calls.clear(),
                        Channel::SideEffects => turn.side_effects.clear(),
                    }
                }
            }
            let shape = tally::Shape::of(&trace);
            Ready::Trace(map(trace), shape)
        }
        Conv::Skip(reason) => Ready::Skip {
            line: ctx.line,
            reason,
        },
        Conv::Error(e) => Ready::Error(e),
        Conv::NoLevel => Ready::NoLevel {
            line: ctx.line,
            error: ctx.error(
                Some("/observability"),
                format!("no observability level: {}", error::NO_LEVEL_HINT),
            ),
        },
    }
}

/// Applies `withhold` and `map`, keeps the counts, and feeds the sink.
pub(crate) struct Emitter<'s, T = Trace> {
    path: &'s Path,
    withhold: &'s [Channel],
    map: &'s (dyn Fn(Trace) -> T + Sync),
    sink: &'s mut dyn FnMut(Item<T>) -> ControlFlow<()>,
    stats: ReadStats,
    /// What a scan of the whole file found about its traces
    /// ([`convert::apply_notes`]); empty for every other format.
    notes: convert::Notes,
}

impl<'s, T> Emitter<'s, T> {
    fn new(
        path: &'s Path,
        withhold: &'s [Channel],
        map: &'s (dyn Fn(Trace) -> T + Sync),
        sink: &'s mut dyn FnMut(Item<T>) -> ControlFlow<()>,
    ) -> Self {
        Emitter {
            path,
            withhold,
            map,
            sink,
            stats: ReadStats::default(),
            notes: convert::Notes::new(),
        }
    }

    /// Delivers one converted record ([`prepare`] then [`Emitter::deliver`]).
    pub(crate) fn conv(
        &mut self,
        conv: Conv,
        ctx: &RecordCtx<'_>,
    ) -> Result<ControlFlow<()>, ImportError> {
        let conv = match conv {
            Conv::Trace(t) if !self.notes.is_empty() => convert::apply_notes(&self.notes, t),
            other => other,
        };
        let ready = prepare(conv, ctx, self.withhold, self.map);
        self.deliver(ready)
    }

    /// Counts one prepared record and hands it to the sink, in file order.
    /// A missing level is a file-level error while no trace has been
    /// delivered (the file says nothing about levels), a record error
    /// after that.
    pub(crate) fn deliver(&mut self, ready: Ready<T>) -> Result<ControlFlow<()>, ImportError> {
        Ok(match ready {
            Ready::Trace(t, shape) => {
                self.stats.traces += 1;
                self.stats.channel_tally.add(shape);
                (self.sink)(Item::Trace(t))
            }
            Ready::Skip { line, reason } => {
                self.stats.skipped += 1;
                (self.sink)(Item::Skipped { line, reason })
            }
            Ready::Error(e) => self.error(e),
            Ready::NoLevel { line, error } => {
                if self.stats.traces == 0 {
                    return Err(ImportError::NoObservability {
                        path: self.path.to_path_buf(),
                        line,
                    });
                }
                self.error(error)
            }
        })
    }

    /// Delivers a record error.
    pub(crate) fn error(&mut self, e: RecordError) -> ControlFlow<()> {
        self.stats.errors += 1;
        (self.sink)(Item::Error(e))
    }
}
