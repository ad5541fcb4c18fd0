//! Inspect AI evaluation logs → pactum traces (`docs/traces.md`,
//! "Inspect AI").
//!
//! Two files: a `.json` log (`{version, status, eval, plan, results,
//! stats, samples, reductions}`), whose header is read first by a
//! streaming pass that skips `samples`, then whose samples are framed one
//! at a time; and a `.eval` log, a zip of `header.json` and one
//! `samples/<id>_epoch_<n>.json` per sample, read one entry at a time
//! (entries in name order). One trace per sample × epoch, id
//! `<id>_epoch_<n>`.
//!
//! * **The zip.** An entry outside Inspect's layout, two entries of one
//!   name, a sample entry whose name is not its content's id and epoch,
//!   and a sample the summaries (or a finished log's `total_samples`)
//!   name that has no entry are errors naming the entry: never skipped.
//! * **Source.** The sample's `messages`: `events` repeat the calls (an
//!   `event: tool` per call). Each record of the calls (the tool events,
//!   the model outputs, the sample's output, the approvals) joins the
//!   messages' calls one to one, by id (without an id: by name and
//!   arguments); a joined call naming another tool, or with other
//!   arguments, is a contradiction the trace's error names, as is a
//!   tool message naming another tool than the call it answers. A call
//!   no free message call has (none with its id, or all joined: a reused
//!   id) is a call of its own: the `submit` an agent scaffold removes, a
//!   sub-agent's call, a model output's or an approval's call. It is
//!   added to the last turn, never missed; one that no tool event shows
//!   running, or one the messages show a call after, makes the trace
//!   `incomplete`. An unknown event type, an unknown key in an event that
//!   holds calls, and a model output of several choices are errors.
//! * **Histories.** A model's input (inline, or ranges of the sample's
//!   message pool) and the changes `state` and `sample_init` events make
//!   to the messages replay the conversation: a call or result there that
//!   no message or event shows, or a call changed in place, makes the
//!   trace `incomplete` (the messages lost something).
//! * **Messages** are turned into chat messages and read by the `openai`
//!   importer's rules (turns, joining results by `tool_call_id`), every
//!   call through the one decoder. Content parts: `text` is text;
//!   `reasoning` is the model's thinking, not its answer; `image`,
//!   `audio`, `video`, `document`, `data` add no text in inputs and tool
//!   results, and are refused in the target's own messages; a
//!   `tool_use` part (a server-side tool) is a call. Anything else is an
//!   error naming the field. A tool message's `error` `{type, message}`
//!   makes its call errored; a call with a `parse_error` has unreadable
//!   arguments (`null`) and is errored.
//! * **A result without its call** (a tool message whose `tool_call_id`
//!   no assistant message shows, as in logs trimmed after the fact)
//!   proves the call was made: it is counted, named by the message's
//!   `function`, arguments unknown (`null`), and the trace is
//!   `incomplete`.
//! * **Attachments.** A whole string `attachment://<hash>` is replaced by
//!   `attachments[<hash>]`; a reference with no attachment, or to an
//!   attachment that is itself a reference, is an error, never the
//!   literal text.
//! * **Cut off.** A log whose `status` is not `success` (`error`,
//!   `cancelled`, `started`), or a sample with an `error`, is
//!   `incomplete`: what it shows counts, an absence proves nothing.
//!   Scores stay in metadata (`scores`): never a verdict.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufReader, Read};
use std::ops::ControlFlow;
use std::path::Path;

use pactum_core::chat::{self, kind};
use pactum_core::trace::{ObservabilityLevel, SourceRef, ToolCall, Trace};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::convert::{shown, Conv, RecordCtx};
use crate::error::RecordError;
use crate::framing::Frame;
use crate::openai::{self, OpenaiFields};
use crate::pointer::Pointer;
use crate::{Emitter, Framing, ImportError, MAX_RECORD_BYTES};

/// What a log says about all its samples.
#[derive(Debug, Default, Deserialize)]
struct Header {
    #[serde(default)]
    version: Value,
    #[serde(default)]
    status: Value,
    #[serde(default)]
    eval: Value,
    #[serde(default)]
    error: Value,
    #[serde(default)]
    results: Value,
}

/// The header fields a trace carries, and whether the log was cut off.
struct LogInfo {
    status: String,
    cut_off: Option<String>,
    task: Value,
    model: Value,
    run_id: Value,
    eval_id: Value,
    version: Value,
}

fn log_info(h: &Header) -> Result<LogInfo, String> {
    let status = match &h.status {
        Value::String(s) => s.clone(),
        Value::Null => {
            return Err("the log has no `status`: whether it was cut off is not guessed".into())
        }
        other => {
            return Err(format!(
                "`status`: expected a string, found {}",
                kind(other)
            ))
        }
    };
    let cut_off = match status.as_str() {
        "success" => None,
        "error" => Some(format!(
            "the evaluation ended in an error{}: its samples may stop before the target finished",
            match &h.error {
                Value::Object(e) => e
                    .get("message")
                    .and_then(Value::as_str)
                    .map(|m| format!(" ({})", shown(m)))
                    .unwrap_or_default(),
                _ => String::new(),
            }
        )),
        "cancelled" => Some(
            "the evaluation was cancelled: its samples may stop before the target finished".into(),
        ),
        "started" => Some("the evaluation had not finished when the log was written".into()),
        other => {
            return Err(format!(
                "unknown log status `{}` (expected success, error, cancelled or started)",
                shown(other)
            ))
        }
    };
    if !h.eval.is_object() {
        return Err(format!(
            "`eval`: expected an object, found {}",
            kind(&h.eval)
        ));
    }
    let e = |k: &str| h.eval.get(k).cloned().unwrap_or(Value::Null);
    Ok(LogInfo {
        status,
        cut_off,
        task: e("task"),
        model: e("model"),
        run_id: e("run_id"),
        eval_id: e("eval_id"),
        version: h.version.clone(),
    })
}

/// Whether a `.json` file is a JSON object (its first non-blank byte is
/// `{`): the only shape of an Inspect log.
fn is_object_file(path: &Path) -> bool {
    let Ok(f) = File::open(path) else {
        return false;
    };
    let mut r = BufReader::new(f);
    if crate::framing::skip_bom(&mut r).is_err() {
        return false;
    }
    r.bytes()
        .map_while(Result::ok)
        .find(|b| !b.is_ascii_whitespace())
        == Some(b'{')
}

/// What a `.json` file is, for auto detection: `Ok(true)` for an Inspect
/// log (a top-level object with `version`, `status` and `eval`, read by a
/// streaming pass that skips every value), `Ok(false)` for anything else,
/// and an error naming the key when the object is also another format's.
pub(crate) fn sniff_json(path: &Path) -> Result<bool, String> {
    #[derive(Deserialize)]
    struct Keys {
        #[serde(default)]
        version: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        status: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        eval: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        turns: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        messages: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        traj: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        contents: Option<serde::de::IgnoredAny>,
        #[serde(default, rename = "resourceSpans")]
        resource_spans: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        data: Option<serde::de::IgnoredAny>,
    }
    if !is_object_file(path) {
        return Ok(false);
    }
    let Ok(f) = File::open(path) else {
        return Ok(false);
    };
    let Ok(k) = serde_json::from_reader::<_, Keys>(BufReader::new(f)) else {
        return Ok(false);
    };
    if !(k.version.is_some() && k.status.is_some() && k.eval.is_some()) {
        return Ok(false);
    }
    let other = [
        ("turns", k.turns.is_some()),
        ("messages", k.messages.is_some()),
        ("traj", k.traj.is_some()),
        ("contents", k.contents.is_some()),
        ("resourceSpans", k.resource_spans.is_some()),
        ("data", k.data.is_some()),
    ];
    match other.into_iter().find(|(_, on)| *on) {
        Some((key, _)) => Err(format!(
            "it is both an Inspect log (`version`, `status`, `eval`) and has `{key}`: say which with --format"
        )),
        None => Ok(true),
    }
}

/// Reads a `.json` log.
pub(crate) fn read_json<T>(
    path: &Path,
    level_flag: Option<ObservabilityLevel>,
    emit: &mut Emitter<'_, T>,
) -> Result<(), ImportError> {
    let display = path.display().to_string();
    let name = crate::file_name(path);
    let refuse = |reason: String| ImportError::UnknownFormat {
        path: path.to_path_buf(),
        reason,
    };
    let file = crate::open(path)?;
    let header: Header =
        serde_json::from_reader(BufReader::new(file)).map_err(|e| ImportError::Syntax {
            path: path.to_path_buf(),
            line: u64::try_from(e.line()).unwrap_or(1),
            message: crate::error::serde_message(&e),
        })?;
    let info = log_info(&header).map_err(|m| refuse(format!("an Inspect log: {m}")))?;
    let samples = Pointer::parse("--records-field", "/samples")
        .map_err(|_| refuse("internal: the samples pointer".into()))?;
    let mut failure = None;
    let r = crate::for_each_frame(
        path,
        Framing::Document,
        Some(&samples),
        &mut |frame| match frame {
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
                    line_framed: false,
                    level_flag,
                };
                let conv = match ctx.strict_value(bytes) {
                    Ok(v) => convert_sample(v, &info, &ctx, None),
                    Err(e) => Conv::Error(e),
                };
                match emit.conv(conv, &ctx) {
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
        },
    );
    match r {
        // A header-only log: no sample to grade.
        Err(ImportError::RecordsNotFound { line, .. }) => {
            let _ = emit.deliver(crate::Ready::Skip {
                line,
                reason: format!("line {line}: the Inspect log holds no `samples` (a header-only log): nothing to grade"),
            })?;
        }
        other => other?,
    }
    failure.map_or(Ok(()), Err)
}

/// Reads a `.eval` log (a zip archive).
pub(crate) fn read_eval<T>(
    path: &Path,
    level_flag: Option<ObservabilityLevel>,
    emit: &mut Emitter<'_, T>,
) -> Result<(), ImportError> {
    let display = path.display().to_string();
    let name = crate::file_name(path);
    let refuse = |reason: String| ImportError::UnknownFormat {
        path: path.to_path_buf(),
        reason,
    };
    let file = crate::open(path)?;
    let mut zip = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| {
        refuse(format!(
            "not a readable zip archive (an Inspect `.eval` log is one): {e}"
        ))
    })?;
    let read_entry = |zip: &mut zip::ZipArchive<BufReader<File>>,
                      entry: &str|
     -> Result<Option<Vec<u8>>, String> {
        let mut f = match zip.by_name(entry) {
            Ok(f) => f,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(format!("{entry}: {e}")),
        };
        if f.size() > MAX_RECORD_BYTES as u64 {
            return Err(format!(
                "{entry}: {} bytes uncompressed, more than the {MAX_RECORD_BYTES} pactum reads for one record",
                f.size()
            ));
        }
        let mut buf = Vec::with_capacity(usize::try_from(f.size()).unwrap_or(0));
        f.by_ref()
            .take(MAX_RECORD_BYTES as u64 + 1)
            .read_to_end(&mut buf)
            .map_err(|e| format!("{entry}: {e}"))?;
        if buf.len() > MAX_RECORD_BYTES {
            return Err(format!(
                "{entry}: more than {MAX_RECORD_BYTES} bytes uncompressed"
            ));
        }
        Ok(Some(buf))
    };
    let header: Header = match read_entry(&mut zip, "header.json").map_err(refuse)? {
        Some(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| refuse(format!("header.json: {}", crate::error::serde_message(&e))))?,
        None => {
            // A log still being written has only its journal.
            let Some(start) = read_entry(&mut zip, "_journal/start.json").map_err(refuse)? else {
                return Err(refuse(
                    "a zip without `header.json` or `_journal/start.json`: not an Inspect `.eval` log".into(),
                ));
            };
            let mut h: Header = serde_json::from_slice(&start).map_err(|e| {
                refuse(format!(
                    "_journal/start.json: {}",
                    crate::error::serde_message(&e)
                ))
            })?;
            h.status = json!("started");
            h
        }
    };
    let info = log_info(&header).map_err(|m| refuse(format!("an Inspect log: {m}")))?;
    let mut names: Vec<String> = Vec::new();
    for n in zip.file_names() {
        let n = n.map_err(|e| refuse(format!("an entry name of the zip cannot be read: {e}")))?;
        names.push(n.into_owned());
    }
    names.sort();
    // The zip reader keeps the last of two entries of one name; Inspect
    // reads the last too, but the other is a record of the same sample
    // (an earlier attempt, or an edit): which one to grade is not guessed.
    let repeated = if zip.has_duplicate_names() {
        repeated_names(path).map_err(|e| {
            refuse(format!(
                "the zip names two entries alike, and which ones cannot be told ({e})"
            ))
        })?
    } else {
        BTreeMap::new()
    };
    if let Some((n, _)) = repeated
        .iter()
        .find(|(n, _)| entry_kind(n) != EntryKind::Sample)
    {
        return Err(refuse(format!(
            "the zip holds two entries named `{}`: which one is the log's is ambiguous",
            shown(n)
        )));
    }
    let entry_error = |entry: &str, message: String| {
        RecordError::new(&format!("{display}!{entry}"), 1, None, message)
    };
    let mut problems: Vec<RecordError> = Vec::new();
    let mut samples: Vec<String> = Vec::new();
    let mut summaries: Vec<String> = Vec::new();
    for n in names {
        match entry_kind(&n) {
            EntryKind::Sample => samples.push(n),
            EntryKind::Summaries => summaries.push(n),
            EntryKind::Other => {}
            EntryKind::Unknown => problems.push(entry_error(
                &n,
                format!(
                    "entry `{}` is not one an Inspect log holds (header.json, summaries.json, reductions.json, _journal/…, samples/<id>_epoch_<n>.json): pactum does not read it, and it may hold a sample",
                    shown(&n)
                ),
            )),
        }
    }
    // Samples the log names that the zip lost: the run is partial.
    let mut missing = false;
    let mut named: BTreeSet<String> = BTreeSet::new();
    for entry in &summaries {
        let list = match read_entry(&mut zip, entry) {
            Ok(Some(bytes)) => summary_keys(&bytes),
            Ok(None) => continue,
            Err(msg) => Err(msg),
        };
        let list = match list {
            Ok(l) => l,
            Err(msg) => {
                problems.push(entry_error(entry, msg));
                continue;
            }
        };
        for (id, epoch) in list {
            let want = sample_entry(&id, &epoch);
            if samples.binary_search(&want).is_err() && named.insert(want.clone()) {
                missing = true;
                problems.push(entry_error(
                    entry,
                    format!(
                        "names sample `{}` epoch {epoch}, but the zip holds no `{}`: the log lost that sample, so the run is partial",
                        shown(&id),
                        shown(&want)
                    ),
                ));
            }
        }
    }
    let total = header
        .results
        .get("total_samples")
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok());
    if let Some(total) =
        total.filter(|t| !missing && info.status == "success" && *t > samples.len())
    {
        problems.push(entry_error(
            "header.json",
            format!(
                "`results.total_samples` is {total}, but the zip holds {} sample {}: the log lost samples, so the run is partial",
                samples.len(),
                if samples.len() == 1 { "entry" } else { "entries" }
            ),
        ));
    }
    for p in problems {
        if emit.error(p).is_break() {
            return Ok(());
        }
    }
    if samples.is_empty() {
        let _ = emit.deliver(crate::Ready::Skip {
            line: 1,
            reason: "the Inspect log holds no `samples/` entry: nothing to grade".into(),
        })?;
        return Ok(());
    }
    for entry in samples {
        let file = format!("{display}!{entry}");
        let ctx = RecordCtx {
            file: &file,
            file_name: &name,
            line: 1,
            ordinal: None,
            line_framed: false,
            level_flag,
        };
        let conv = if let Some(n) = repeated.get(&entry) {
            Conv::Error(ctx.error(
                None,
                format!(
                    "{n} entries of the zip are named `{}` (Inspect writes a re-run sample's record after the one it replaces): which record to grade is not guessed",
                    shown(&entry)
                ),
            ))
        } else {
            match read_entry(&mut zip, &entry) {
                Ok(Some(bytes)) => match ctx.strict_value(&bytes) {
                    Ok(v) => convert_sample(v, &info, &ctx, Some(&entry)),
                    Err(e) => Conv::Error(e),
                },
                Ok(None) => continue,
                Err(msg) => Conv::Error(ctx.error(None, msg)),
            }
        };
        if emit.conv(conv, &ctx)?.is_break() {
            break;
        }
    }
    Ok(())
}

/// What an entry of a `.eval` zip is, by its name (Inspect's layout).
#[derive(Debug, PartialEq, Eq)]
enum EntryKind {
    /// `samples/<id>_epoch_<n>.json` (an id may hold `/`).
    Sample,
    /// `summaries.json`, `_journal/summaries/<n>.json`: the samples written.
    Summaries,
    /// The header, the journal's start and config updates, the
    /// reductions, and folders: nothing pactum grades.
    Other,
    /// Anything else.
    Unknown,
}

fn entry_kind(n: &str) -> EntryKind {
    let json_in = |dir: &str| {
        n.strip_prefix(dir)
            .and_then(|r| r.strip_suffix(".json"))
            .is_some_and(|r| !r.is_empty() && !r.contains('/'))
    };
    if n.starts_with("samples/") && n.ends_with(".json") && n.len() > "samples/.json".len() {
        EntryKind::Sample
    } else if n == "summaries.json" || json_in("_journal/summaries/") {
        EntryKind::Summaries
    } else if n.ends_with('/')
        || matches!(n, "header.json" | "reductions.json" | "_journal/start.json")
        || json_in("_journal/config_updates/")
    {
        EntryKind::Other
    } else {
        EntryKind::Unknown
    }
}

/// The `(id, epoch)` of each sample a summaries entry lists.
fn summary_keys(bytes: &[u8]) -> Result<Vec<(String, String)>, String> {
    #[derive(Deserialize)]
    struct Key {
        id: Value,
        epoch: Value,
    }
    let list: Vec<Key> = serde_json::from_slice(bytes).map_err(|e| {
        format!(
            "expected a list of sample summaries ({{id, epoch, …}}): {}",
            crate::error::serde_message(&e)
        )
    })?;
    list.into_iter()
        .enumerate()
        .map(|(i, k)| match (crate::convert::id_text(&k.id), &k.epoch) {
            (Some(id), Value::Number(e)) => Ok((id, e.to_string())),
            _ => Err(format!(
                "summary {i}: expected a sample id and a numeric epoch, found {} and {}",
                kind(&k.id),
                kind(&k.epoch)
            )),
        })
        .collect()
}

/// The names a zip's central directory lists more than once, with how
/// many times (the `zip` reader keeps one entry per name and cannot say
/// which names repeat).
fn repeated_names(path: &Path) -> Result<BTreeMap<String, usize>, String> {
    use std::io::{Seek, SeekFrom};
    const EOCD: &[u8] = b"PK\x05\x06";
    const MAX_DIR: u64 = 1 << 28;
    let u16_at = |b: &[u8], i: usize| {
        b.get(i..i + 2)
            .map(|x| u64::from(u16::from_le_bytes([x[0], x[1]])))
    };
    let u32_at = |b: &[u8], i: usize| {
        b.get(i..i + 4)
            .map(|x| u64::from(u32::from_le_bytes([x[0], x[1], x[2], x[3]])))
    };
    let u64_at = |b: &[u8], i: usize| {
        b.get(i..i + 8)
            .and_then(|x| <[u8; 8]>::try_from(x).ok())
            .map(u64::from_le_bytes)
    };
    let bad = || "its central directory cannot be read".to_string();
    let mut f = File::open(path).map_err(|e| e.to_string())?;
    let len = f.seek(SeekFrom::End(0)).map_err(|e| e.to_string())?;
    let tail_len = len.min(22 + 65_535);
    let mut tail = vec![0; usize::try_from(tail_len).map_err(|_| bad())?];
    f.seek(SeekFrom::Start(len - tail_len))
        .map_err(|e| e.to_string())?;
    f.read_exact(&mut tail).map_err(|e| e.to_string())?;
    let at = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| tail[i..].starts_with(EOCD))
        .ok_or_else(bad)?;
    let eocd_pos = len - tail_len + at as u64;
    let (mut size, mut offset) = (
        u32_at(&tail, at + 12).ok_or_else(bad)?,
        u32_at(&tail, at + 16).ok_or_else(bad)?,
    );
    if size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF || u16_at(&tail, at + 10) == Some(0xFFFF) {
        // ZIP64: the locator just before points at the ZIP64 end record.
        let loc = at.checked_sub(20).ok_or_else(bad)?;
        if !tail[loc..].starts_with(b"PK\x06\x07") {
            return Err(bad());
        }
        let rec = u64_at(&tail, loc + 8).ok_or_else(bad)?;
        let mut r = [0u8; 56];
        f.seek(SeekFrom::Start(rec)).map_err(|e| e.to_string())?;
        f.read_exact(&mut r).map_err(|e| e.to_string())?;
        if !r.starts_with(b"PK\x06\x06") {
            return Err(bad());
        }
        size = u64_at(&r, 40).ok_or_else(bad)?;
        offset = u64_at(&r, 48).ok_or_else(bad)?;
    }
    if size > MAX_DIR || size > eocd_pos {
        return Err(bad());
    }
    // Data before the archive shifts every offset: the directory then
    // ends where the end record starts.
    let mut dir = vec![0; usize::try_from(size).map_err(|_| bad())?];
    f.seek(SeekFrom::Start(offset)).map_err(|e| e.to_string())?;
    if f.read_exact(&mut dir).is_err() || !dir.starts_with(b"PK\x01\x02") {
        f.seek(SeekFrom::Start(eocd_pos - size))
            .map_err(|e| e.to_string())?;
        f.read_exact(&mut dir).map_err(|e| e.to_string())?;
    }
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    let mut i = 0;
    while i < dir.len() {
        if !dir[i..].starts_with(b"PK\x01\x02") {
            return Err(bad());
        }
        let n = usize::try_from(u16_at(&dir, i + 28).ok_or_else(bad)?).map_err(|_| bad())?;
        let x = usize::try_from(u16_at(&dir, i + 30).ok_or_else(bad)?).map_err(|_| bad())?;
        let c = usize::try_from(u16_at(&dir, i + 32).ok_or_else(bad)?).map_err(|_| bad())?;
        let name = dir.get(i + 46..i + 46 + n).ok_or_else(bad)?;
        *count
            .entry(String::from_utf8_lossy(name).into_owned())
            .or_default() += 1;
        i += 46 + n + x + c;
    }
    count.retain(|_, n| *n > 1);
    if count.is_empty() {
        return Err(bad());
    }
    Ok(count)
}

/// The entry of a `.eval` zip that holds a sample (Inspect names it so).
fn sample_entry(id: &str, epoch: &str) -> String {
    format!("samples/{id}_epoch_{epoch}.json")
}

/// One sample → one trace.
fn convert_sample(sample: Value, info: &LogInfo, ctx: &RecordCtx<'_>, entry: Option<&str>) -> Conv {
    match sample_trace(sample, info, ctx, entry) {
        Ok(t) => Conv::Trace(t),
        Err(e) => Conv::Error(e),
    }
}

fn sample_trace(
    sample: Value,
    info: &LogInfo,
    ctx: &RecordCtx<'_>,
    entry: Option<&str>,
) -> Result<Trace, RecordError> {
    let Value::Object(mut s) = sample else {
        return Err(ctx.error(
            None,
            format!("expected a sample object, found {}", kind(&sample)),
        ));
    };
    let id = s
        .get("id")
        .and_then(crate::convert::id_text)
        .ok_or_else(|| {
            ctx.error(
                Some("/id"),
                "expected the sample id (a non-empty string or a number)",
            )
        })?;
    let epoch = match s.get("epoch") {
        Some(Value::Number(n)) => n.to_string(),
        other => {
            return Err(ctx.error(
                Some("/epoch"),
                format!(
                    "expected the epoch (a number), found {}",
                    other.map_or("nothing", kind)
                ),
            ))
        }
    };
    if let Some(e) = entry {
        let named = sample_entry(&id, &epoch);
        if e != named {
            return Err(ctx.error(
                None,
                format!(
                    "the entry holds sample `{}` epoch {epoch}, whose entry is `{}`: the name and the content disagree, so which sample this is is not guessed",
                    shown(&id),
                    shown(&named)
                ),
            ));
        }
    }
    let attachments = match s.remove("attachments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(other) => {
            return Err(ctx.error(
                Some("/attachments"),
                format!("expected an object, found {}", kind(&other)),
            ))
        }
    };
    let mut messages = match s.remove("messages") {
        Some(Value::Array(a)) => a,
        other => {
            return Err(ctx.error(
                Some("/messages"),
                format!(
                    "expected an array of messages, found {}",
                    other.as_ref().map_or("nothing", kind)
                ),
            ))
        }
    };
    // As recorded: a history message equal to one of them shows nothing new.
    let known: BTreeMap<String, Value> = messages
        .iter()
        .filter_map(|m| Some((m.get("id")?.as_str()?.to_string(), m.clone())))
        .collect();
    for (i, m) in messages.iter_mut().enumerate() {
        resolve(m, &attachments, &mut format!("/messages/{i}"))
            .map_err(|(at, msg)| ctx.error(Some(&at), msg))?;
    }
    let mut chat_msgs = Vec::with_capacity(messages.len());
    // Ids of the calls the target's messages show so far, and the calls
    // no result has answered yet (id, name).
    let mut seen_calls: BTreeSet<String> = BTreeSet::new();
    let mut unanswered: Vec<(String, String)> = Vec::new();
    let mut orphan = None;
    let mut contradiction = None;
    for (i, m) in messages.iter().enumerate() {
        let at = format!("/messages/{i}");
        let msg = normalize(m, &at).map_err(|(at, msg)| ctx.error(Some(&at), msg))?;
        if let Some(Value::Array(calls)) = msg.get("tool_calls") {
            for c in calls {
                if let Some(id) = c.get("id").and_then(crate::convert::id_text) {
                    seen_calls.insert(id.clone());
                    let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
                    unanswered.push((id, name.to_string()));
                }
            }
        }
        if msg.get("role").and_then(Value::as_str) == Some("tool") {
            let id = msg.get("tool_call_id").and_then(crate::convert::id_text);
            let name = m
                .get("function")
                .and_then(Value::as_str)
                .filter(|n| !n.trim().is_empty());
            if let (Some(id), Some(name)) = (id, name) {
                if let Some(k) = unanswered.iter().position(|(c, _)| *c == id) {
                    let (_, called) = unanswered.remove(k);
                    if called != name {
                        // One id, two tools: which one ran is not recorded.
                        contradiction.get_or_insert_with(|| {
                            format!(
                                "tool call id `{}`: the messages name the tool `{}` and its result {at} names `{}`",
                                shown(&id),
                                shown(&called),
                                shown(name)
                            )
                        });
                    }
                } else if seen_calls.insert(id.clone()) {
                    // A result proves its call was made, though no message
                    // of the target shows it: counted, arguments unknown.
                    orphan.get_or_insert_with(|| {
                        format!("{at} is the result of a call to `{}` (`{}`) that no assistant message shows", shown(name), shown(&id))
                    });
                    chat_msgs.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "name": name}]}));
                }
            }
        }
        chat_msgs.push(msg);
    }
    let fields = OpenaiFields {
        messages: Pointer::key("messages"),
        id: None,
        ended_by: Vec::new(),
        error_prefix: None,
        langchain: false,
    };
    let built = openai::build_turns(chat_msgs, "/messages", ctx, &fields)?;
    // Calls the events (and the model outputs) record and the messages do
    // not show were made: they are added to the last turn.
    let mut turns = built.turns;
    let mut in_messages = Shown {
        calls: turns
            .iter()
            .flat_map(|t| t.tool_calls.iter().cloned())
            .collect(),
        joined: BTreeSet::new(),
    };
    // Newer logs keep the models' inputs once, in a pool the events refer to.
    let pool = match s.get("events_data") {
        None | Some(Value::Null) => None,
        Some(Value::Object(d)) => match d.get("messages") {
            None | Some(Value::Null) => None,
            Some(Value::Array(p)) => Some((p, "/events_data/messages")),
            Some(other) => {
                return Err(ctx.error(
                    Some("/events_data/messages"),
                    format!("expected an array of messages, found {}", kind(other)),
                ))
            }
        },
        Some(other) => {
            return Err(ctx.error(
                Some("/events_data"),
                format!("expected an object, found {}", kind(other)),
            ))
        }
    };
    let pool = match (pool, s.get("message_pool")) {
        (Some(p), _) => Some(p),
        (None, None | Some(Value::Null)) => None,
        (None, Some(Value::Array(p))) => Some((p, "/message_pool")),
        (None, Some(other)) => {
            return Err(ctx.error(
                Some("/message_pool"),
                format!("expected an array of messages, found {}", kind(other)),
            ))
        }
    };
    let mut walker = Walker {
        shown: &mut in_messages,
        attachments: &attachments,
        known: &known,
        pooled: BTreeSet::new(),
        pool_len: pool.map(|(p, _)| p.len()),
        seen: Vec::new(),
        replays: Vec::new(),
        contradiction: None,
        tool_spans: Vec::new(),
        tool_event_functions: Vec::new(),
    };
    walker
        .sample(&s, pool)
        .map_err(|(at, msg)| ctx.error(Some(&at), msg))?;
    let Walker {
        seen,
        replays,
        contradiction: event_contradiction,
        tool_spans,
        mut tool_event_functions,
        ..
    } = walker;
    // Each tool span has its tool event (one to one, by the tool's name):
    // a span without one ran a tool the log does not record.
    let unrecorded = tool_spans.iter().find_map(|(name, at)| {
        match tool_event_functions.iter().position(|f| f == name) {
            Some(i) => {
                tool_event_functions.swap_remove(i);
                None
            }
            None => Some(format!(
                "{at}: a tool span `{}` has no tool event: the tool it ran is not recorded",
                shown(name)
            )),
        }
    });
    let contradiction = contradiction.or(event_contradiction);
    let (extras, unshown) = place(seen);
    let counted: Vec<&ToolCall> = in_messages
        .calls
        .iter()
        .chain(extras.iter().map(|x| &x.call))
        .collect();
    let lost = unreplayed(&replays, &counted);
    let unran = extras.iter().find(|x| !x.ran()).map(|x| {
        format!(
            "{}: the model's output asks for a call to `{}`{} that no message or tool event shows running: whether it ran is not recorded",
            x.at,
            shown(&x.call.name),
            x.call.id.as_deref().map(|id| format!(" (`{}`)", shown(id))).unwrap_or_default()
        )
    });
    if !extras.is_empty() {
        s.insert("calls_from_events".into(), json!(extras.len()));
        if turns.is_empty() {
            turns.push(pactum_core::trace::Turn::default());
        }
        if let Some(last) = turns.last_mut() {
            last.tool_calls.extend(extras.into_iter().map(|x| x.call));
        }
    }
    let sample_error = match s.get("error") {
        None | Some(Value::Null) => None,
        Some(Value::Object(e)) => Some(
            e.get("message")
                .and_then(Value::as_str)
                .map_or_else(|| Value::Object(e.clone()).to_string(), str::to_string),
        ),
        Some(Value::String(e)) => Some(e.clone()),
        Some(other) => Some(other.to_string()),
    };
    let incomplete = unshown
        .or(unran)
        .or(unrecorded)
        .or(lost)
        .or(orphan)
        .or_else(|| {
            sample_error
                .as_ref()
                .map(|e| format!("the sample ended in an error: {}", shown(e)))
        })
        .or_else(|| info.cut_off.clone())
        .or(built.incomplete);
    let data_level = ObservabilityLevel::ToolCalls;
    let mut md = Map::new();
    md.insert("format".into(), json!("inspect"));
    md.insert("log_status".into(), json!(info.status));
    md.insert("log_version".into(), info.version.clone());
    md.insert("task".into(), info.task.clone());
    md.insert("model".into(), info.model.clone());
    md.insert("run_id".into(), info.run_id.clone());
    md.insert("eval_id".into(), info.eval_id.clone());
    md.insert(
        "sample_id".into(),
        s.get("id").cloned().unwrap_or(Value::Null),
    );
    md.insert(
        "epoch".into(),
        s.get("epoch").cloned().unwrap_or(Value::Null),
    );
    if let Some(e) = entry {
        md.insert("log_entry".into(), json!(e));
    }
    md.insert(
        "observed".into(),
        json!({"response": true, "tool_calls": true, "side_effects": false}),
    );
    md.insert("source_of_calls".into(), json!("messages"));
    for k in [
        "target",
        "scores",
        "metadata",
        "limit",
        "error",
        "uuid",
        "calls_from_events",
    ] {
        if let Some(v) = s.get(k).filter(|v| !v.is_null()) {
            md.insert(k.into(), v.clone());
        }
    }
    let observability = match ctx.level_flag {
        None => data_level,
        Some(declared) => {
            md.insert("observability_declared".into(), json!(declared.as_str()));
            if declared > data_level {
                md.insert(
                    "observability_warning".into(),
                    json!(format!(
                        "declared {}, but an Inspect log shows {}: it reports no side effects",
                        declared.as_str(),
                        data_level.as_str()
                    )),
                );
            }
            declared.min(data_level)
        }
    };
    Ok(Trace {
        id: format!("{id}_epoch_{epoch}"),
        observability,
        turns,
        metadata: Value::Object(md),
        error: contradiction,
        incomplete,
        ended_by: None,
        source: Some(SourceRef {
            file: ctx.file.to_string(),
            line: ctx.line,
        }),
        offered_tools: None,
    })
}

const ATTACHMENT: &str = "attachment://";

/// Replaces every whole-string `attachment://<hash>` in `v` by the
/// attachment; one that names no attachment, or an attachment that is
/// itself a reference, is an error at its pointer.
fn resolve(
    v: &mut Value,
    att: &Map<String, Value>,
    at: &mut String,
) -> Result<(), (String, String)> {
    match v {
        Value::String(s) => {
            if let Some(hash) = s.strip_prefix(ATTACHMENT) {
                match att.get(hash) {
                    // Inspect resolves one level: the text would be the
                    // literal reference, which was hardly what was meant.
                    Some(Value::String(text)) if text.starts_with(ATTACHMENT) => {
                        return Err((
                            at.clone(),
                            format!(
                                "attachment `{}` holds another reference (`{}`): which text is meant is not guessed",
                                shown(hash),
                                shown(text)
                            ),
                        ))
                    }
                    Some(Value::String(text)) => *s = text.clone(),
                    Some(other) => {
                        return Err((at.clone(), format!("attachment `{}` is {}, not a text", shown(hash), kind(other))))
                    }
                    None => {
                        return Err((
                            at.clone(),
                            format!(
                                "`{}` names no attachment of the sample: its text is not in the log (never read as the literal reference)",
                                shown(s)
                            ),
                        ))
                    }
                }
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter_mut().enumerate() {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                resolve(x, att, at)?;
                at.truncate(len);
            }
        }
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                let len = at.len();
                at.push('/');
                at.push_str(&pactum_core::json::escape_pointer_token(k));
                resolve(x, att, at)?;
                at.truncate(len);
            }
        }
        _ => {}
    }
    Ok(())
}

type Fail = (String, String);

fn known(m: &Map<String, Value>, allowed: &[&str], what: &str, at: &str) -> Result<(), Fail> {
    match m.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) => Err((
            format!("{at}/{}", pactum_core::json::escape_pointer_token(k)),
            format!(
                "unknown key `{}` in {what} (expected: {}): pactum does not read it, and it may hold what a check needs",
                shown(k),
                allowed.join(", ")
            ),
        )),
    }
}

/// One Inspect message → a chat message the `openai` rules read.
fn normalize(m: &Value, at: &str) -> Result<Value, Fail> {
    let Some(o) = m.as_object() else {
        return Err((
            at.into(),
            format!("expected a message object, found {}", kind(m)),
        ));
    };
    let role = match o.get("role") {
        Some(Value::String(r)) => r.as_str(),
        other => {
            return Err((
                format!("{at}/role"),
                format!(
                    "expected system, user, assistant or tool, found {}",
                    other.map_or("nothing", kind)
                ),
            ))
        }
    };
    let common = ["id", "role", "content", "source", "metadata", "internal"];
    let allowed: Vec<&str> = match role {
        "system" => common.to_vec(),
        "user" => [&common[..], &["tool_call_id"]].concat(),
        "assistant" => [&common[..], &["model", "tool_calls"]].concat(),
        "tool" => [&common[..], &["tool_call_id", "function", "error"]].concat(),
        other => {
            return Err((
                format!("{at}/role"),
                format!(
                    "unknown role `{}` (expected system, user, assistant or tool)",
                    shown(other)
                ),
            ))
        }
    };
    known(o, &allowed, &format!("an Inspect `{role}` message"), at)?;
    let mut calls: Vec<Value> = Vec::new();
    let text = content(
        o.get("content"),
        role == "assistant",
        &format!("{at}/content"),
        &mut calls,
    )?;
    let mut out = Map::new();
    out.insert("role".into(), json!(role));
    out.insert("content".into(), text.map_or(Value::Null, Value::String));
    match role {
        "assistant" => {
            match o.get("tool_calls") {
                None | Some(Value::Null) => {}
                Some(Value::Array(a)) => {
                    let mut listed = Vec::with_capacity(a.len());
                    for (i, c) in a.iter().enumerate() {
                        listed.push(tool_call(c, &format!("{at}/tool_calls/{i}"))?);
                    }
                    listed.extend(calls);
                    calls = listed;
                }
                Some(other) => {
                    return Err((
                        format!("{at}/tool_calls"),
                        format!("expected an array of tool calls, found {}", kind(other)),
                    ))
                }
            }
            if !calls.is_empty() {
                out.insert("tool_calls".into(), Value::Array(calls));
            }
        }
        "tool" => {
            if let Some(id) = o.get("tool_call_id") {
                out.insert("tool_call_id".into(), id.clone());
            }
            match o.get("error") {
                None | Some(Value::Null) => {}
                Some(Value::Object(e)) => {
                    let ty = e.get("type").and_then(Value::as_str).unwrap_or("error");
                    let msg = e.get("message").and_then(Value::as_str).unwrap_or_default();
                    out.insert("error".into(), json!(format!("{ty}: {msg}")));
                }
                Some(Value::String(e)) => {
                    out.insert("error".into(), json!(e));
                }
                Some(other) => {
                    return Err((
                        format!("{at}/error"),
                        format!("expected null or {{type, message}}, found {}", kind(other)),
                    ))
                }
            }
        }
        _ => {}
    }
    Ok(Value::Object(out))
}

/// The text of a message's content; `tool_use` parts of the target's
/// messages are added to `calls`.
fn content(
    v: Option<&Value>,
    own: bool,
    at: &str,
    calls: &mut Vec<Value>,
) -> Result<Option<String>, Fail> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Array(parts)) => {
            let mut texts = Vec::new();
            for (i, p) in parts.iter().enumerate() {
                let pat = format!("{at}/{i}");
                let ty = p.get("type").and_then(Value::as_str).unwrap_or_default();
                match ty {
                    "text" => match p.get("text") {
                        Some(Value::String(t)) => texts.push(t.clone()),
                        other => {
                            return Err((
                                format!("{pat}/text"),
                                format!(
                                    "expected a string, found {}",
                                    other.map_or("nothing", kind)
                                ),
                            ))
                        }
                    },
                    "reasoning" => {}
                    "image" | "audio" | "video" | "document" | "data" if !own => {}
                    "tool_use" if own => {
                        let Some(o) = p.as_object() else { continue };
                        calls.push(tool_use_call(o, &pat)?);
                    }
                    other => {
                        return Err((
                            format!("{pat}/type"),
                            if own {
                                format!(
                                    "content part `{}` in the target's message: pactum reads text, reasoning and tool_use parts there",
                                    shown(other)
                                )
                            } else {
                                format!(
                                    "unknown content part `{}` (pactum reads text, reasoning, image, audio, video, document and data)",
                                    shown(other)
                                )
                            },
                        ))
                    }
                }
            }
            Ok(chat::join_texts(texts))
        }
        Some(other) => Err((
            at.into(),
            format!(
                "expected a string or an array of content parts, found {}",
                kind(other)
            ),
        )),
    }
}

/// A `tool_use` content part (a server-side tool) → a flat call for the
/// one decoder.
fn tool_use_call(o: &Map<String, Value>, at: &str) -> Result<Value, Fail> {
    known(
        o,
        &[
            "type",
            "tool_type",
            "id",
            "name",
            "context",
            "arguments",
            "result",
            "error",
            "internal",
        ],
        "a `tool_use` part",
        at,
    )?;
    let mut c = Map::new();
    for k in ["id", "name", "arguments", "result", "error"] {
        if let Some(x) = o.get(k) {
            c.insert(k.into(), x.clone());
        }
    }
    Ok(Value::Object(c))
}

/// The event types Inspect writes (`inspect_ai.event.Event`). Any other
/// is an error: it may record a call pactum would miss. `branch` (a
/// trajectory replaying another's prefix) is left out on purpose: which of
/// its calls ran anew is not read.
const EVENT_TYPES: [&str; 20] = [
    "sample_init",
    "sample_limit",
    "sandbox",
    "state",
    "store",
    "model",
    "tool",
    "approval",
    "input",
    "score",
    "score_edit",
    "error",
    "logger",
    "info",
    "span_begin",
    "span_end",
    "step",
    "subtask",
    "compaction",
    "anchor",
];

/// Keys every event may carry (Inspect's `BaseEvent`).
const BASE_KEYS: [&str; 7] = [
    "event",
    "uuid",
    "span_id",
    "timestamp",
    "working_start",
    "metadata",
    "pending",
];

/// The keys of the events pactum reads, beside [`BASE_KEYS`]: these hold
/// calls, so a key pactum does not know may hold one too.
fn event_keys(ty: &str) -> &'static [&'static str] {
    match ty {
        "tool" => &[
            "type",
            "id",
            "function",
            "arguments",
            "view",
            "result",
            "truncated",
            "error",
            "events",
            "completed",
            "working_time",
            "agent",
            "agent_span_id",
            "failed",
            "message_id",
        ],
        "subtask" => &[
            "name",
            "type",
            "input",
            "result",
            "events",
            "completed",
            "working_time",
        ],
        "model" => &[
            "model",
            "role",
            "input",
            "input_refs",
            "tools",
            "tool_choice",
            "config",
            "output",
            "retries",
            "error",
            "traceback",
            "traceback_ansi",
            "cache",
            "call",
            "completed",
            "working_time",
        ],
        "approval" => &[
            "message",
            "call",
            "view",
            "approver",
            "stage",
            "decision",
            "modified",
            "explanation",
        ],
        _ => &[],
    }
}

/// Which record of the calls an event's call comes from. Each record
/// repeats the calls the messages show, one event per call, so each joins
/// them one to one on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    /// A `tool` event: the call ran.
    Run,
    /// A `model` event's output: the model asked for the call.
    ModelOutput,
    /// The sample's own `output` (a copy of the last model output).
    SampleOutput,
    /// An `approval` event's `call`.
    Approval,
    /// An `approval` event's `modified` call: the approver changed its
    /// arguments, so only its name is compared.
    Modified,
}

impl Source {
    fn what(self) -> &'static str {
        match self {
            Source::Run => "the tool event",
            Source::ModelOutput => "the model output",
            Source::SampleOutput => "the sample's output",
            Source::Approval => "the approval",
            Source::Modified => "the approval's modified call",
        }
    }
}

/// The calls the messages show, in order, and which of them each source
/// has joined.
struct Shown {
    calls: Vec<ToolCall>,
    joined: BTreeSet<(Source, usize)>,
}

impl Shown {
    /// Joins `c` to the first call of the messages this source has not
    /// joined yet with its id (without an id: its name and arguments).
    /// `Ok(true)`: the messages show it; `Ok(false)`: they do not (an id
    /// no free call has is a call of its own, as when a model reuses
    /// ids). `Err`: one id with two tools, or two sets of arguments.
    fn join(&mut self, source: Source, c: &ToolCall, at: &str) -> Result<bool, String> {
        let free = |i: usize| !self.joined.contains(&(source, i));
        let found = self.calls.iter().enumerate().position(|(i, m)| {
            free(i)
                && match &c.id {
                    Some(id) => m.id.as_ref() == Some(id),
                    None => m.name == c.name && m.arguments == c.arguments,
                }
        });
        let Some(i) = found else {
            return Ok(false);
        };
        self.joined.insert((source, i));
        let m = &self.calls[i];
        let id = c.id.as_deref().unwrap_or_default();
        if m.name != c.name {
            return Err(format!(
                "tool call id `{}`: the messages name the tool `{}` and {} {at} names `{}`",
                shown(id),
                shown(&m.name),
                source.what(),
                shown(&c.name)
            ));
        }
        if source != Source::Modified
            && m.readable_arguments().is_some()
            && c.readable_arguments().is_some()
            && m.arguments != c.arguments
        {
            return Err(format!(
                "tool call `{}` (`{}`): the arguments in the messages differ from those of {} {at}",
                shown(&m.name),
                shown(id),
                source.what()
            ));
        }
        Ok(true)
    }

    /// Whether `c` is one of `calls`: the same id and name, or without an
    /// id the same name and arguments.
    fn among<'a>(calls: impl IntoIterator<Item = &'a ToolCall>, c: &ToolCall) -> bool {
        calls.into_iter().any(|m| match &c.id {
            Some(id) => m.id.as_ref() == Some(id) && m.name == c.name,
            None => m.name == c.name && m.arguments == c.arguments,
        })
    }
}

/// A call the events record beside the messages, in the order written.
enum Seen {
    /// One the messages show.
    Shown,
    /// One they do not.
    Extra(Box<Extra>),
}

struct Extra {
    at: String,
    call: ToolCall,
    /// The sources that recorded it: a `Run` when a tool event shows it
    /// running, not when only a model's output (or an approval) asks.
    sources: BTreeSet<Source>,
}

impl Extra {
    fn ran(&self) -> bool {
        self.sources.contains(&Source::Run)
    }
}

/// What a history shows: a model's input, or a change of the messages
/// in a `state` event (`sample_init` included).
enum Replayed {
    Call(ToolCall),
    /// A tool result: the id of its call, and the tool it names.
    Result(String, Option<String>),
    /// A change inside a call or a result (its name, arguments or id).
    InPlace,
}

/// Walks a sample's events (nested lists too) and its output.
struct Walker<'a> {
    shown: &'a mut Shown,
    attachments: &'a Map<String, Value>,
    /// The sample's messages by id, as recorded: a history message equal
    /// to one of them shows nothing new.
    known: &'a BTreeMap<String, Value>,
    /// The indices of the sample's message pool (`events_data.messages`)
    /// a model input refers to.
    pooled: BTreeSet<usize>,
    pool_len: Option<usize>,
    seen: Vec<Seen>,
    replays: Vec<(String, Replayed)>,
    /// The first contradiction between the messages and an event.
    contradiction: Option<String>,
    /// The tool spans (`span_begin` of type `tool`): their name and
    /// pointer. Inspect opens one around each tool it runs (what the tool
    /// does happens inside it) and writes the tool event beside it.
    tool_spans: Vec<(String, String)>,
    /// The function of every tool event, in the order met.
    tool_event_functions: Vec<String>,
}

impl Walker<'_> {
    /// A sample's events, its output, and the pooled messages the models'
    /// inputs refer to (`pool`: the messages and their pointer).
    fn sample(
        &mut self,
        s: &Map<String, Value>,
        pool: Option<(&Vec<Value>, &str)>,
    ) -> Result<(), Fail> {
        match s.get("events") {
            None | Some(Value::Null) => {}
            Some(Value::Array(events)) => self.events(events, "/events")?,
            Some(other) => {
                return Err((
                    "/events".to_string(),
                    format!("expected an array of events, found {}", kind(other)),
                ))
            }
        }
        self.model_output(s.get("output"), "/output", Source::SampleOutput)?;
        if let Some((p, base)) = pool {
            for i in std::mem::take(&mut self.pooled) {
                if let Some(m) = p.get(i) {
                    self.replayed(m, &format!("{base}/{i}"))?;
                }
            }
        }
        Ok(())
    }

    fn events(&mut self, events: &[Value], at: &str) -> Result<(), Fail> {
        for (i, e) in events.iter().enumerate() {
            let eat = format!("{at}/{i}");
            let Some(o) = e.as_object() else {
                return Err((eat, format!("expected an event object, found {}", kind(e))));
            };
            let ty = match o.get("event") {
                Some(Value::String(t)) => t.as_str(),
                other => {
                    return Err((
                        format!("{eat}/event"),
                        format!(
                            "expected the event type (a string), found {}",
                            other.map_or("nothing", kind)
                        ),
                    ))
                }
            };
            if !EVENT_TYPES.contains(&ty) {
                return Err((
                    format!("{eat}/event"),
                    format!(
                        "unknown event type `{}` (pactum reads {}): it may record a call pactum would miss",
                        shown(ty),
                        EVENT_TYPES.join(", ")
                    ),
                ));
            }
            let extra = event_keys(ty);
            if !extra.is_empty() {
                known(
                    o,
                    &[&BASE_KEYS[..], extra].concat(),
                    &format!("an Inspect `{ty}` event"),
                    &eat,
                )?;
            }
            match ty {
                "tool" => {
                    if let Some(Value::String(f)) = o.get("function") {
                        self.tool_event_functions.push(f.clone());
                    }
                    let mut e = Value::Object(o.clone());
                    if let Some(m) = e.as_object_mut() {
                        m.remove("events");
                    }
                    resolve(&mut e, self.attachments, &mut eat.clone())?;
                    let call = event_call(&e).map_err(|(p, m)| (format!("{eat}{p}"), m))?;
                    self.note(Source::Run, call, eat.clone());
                    self.nested(o.get("events"), &eat)?;
                }
                "subtask" => self.nested(o.get("events"), &eat)?,
                "span_begin"
                    if o.get("type")
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.trim().eq_ignore_ascii_case("tool")) =>
                {
                    let name = o.get("name").and_then(Value::as_str).unwrap_or_default();
                    self.tool_spans.push((name.to_string(), eat.clone()));
                }
                "model" => {
                    self.model_input(o, &eat)?;
                    self.model_output(
                        o.get("output"),
                        &format!("{eat}/output"),
                        Source::ModelOutput,
                    )?;
                }
                "approval" => {
                    for (k, source) in [("call", Source::Approval), ("modified", Source::Modified)]
                    {
                        match o.get(k) {
                            None | Some(Value::Null) => {}
                            Some(c) => {
                                let cat = format!("{eat}/{k}");
                                let mut c = c.clone();
                                resolve(&mut c, self.attachments, &mut cat.clone())?;
                                let flat = tool_call(&c, &cat)?;
                                self.requested(&flat, &cat, source)?;
                            }
                        }
                    }
                }
                "state" => self.state(o, &eat)?,
                "sample_init" => {
                    if let Some(Value::Array(ms)) = o.get("state").and_then(|s| s.get("messages")) {
                        for (k, m) in ms.iter().enumerate() {
                            self.replayed(m, &format!("{eat}/state/messages/{k}"))?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The `events` of a tool or subtask event (older logs nest a
    /// sub-agent's transcript there).
    fn nested(&mut self, v: Option<&Value>, at: &str) -> Result<(), Fail> {
        match v {
            None | Some(Value::Null) => Ok(()),
            Some(Value::Array(a)) => self.events(a, &format!("{at}/events")),
            Some(other) => Err((
                format!("{at}/events"),
                format!("expected an array of events, found {}", kind(other)),
            )),
        }
    }

    /// Records a call an event holds: joined to the messages' calls, or a
    /// call of its own.
    fn note(&mut self, source: Source, call: ToolCall, at: String) {
        match self.shown.join(source, &call, &at) {
            Ok(true) => self.seen.push(Seen::Shown),
            Ok(false) => self.seen.push(Seen::Extra(Box::new(Extra {
                at,
                call,
                sources: BTreeSet::from([source]),
            }))),
            Err(m) => {
                self.contradiction.get_or_insert(m);
                self.seen.push(Seen::Shown);
            }
        }
    }

    /// A model's input: the history it was sent, inline (`input`) or as
    /// ranges of the sample's message pool (`input_refs`, read once per
    /// pooled message after the walk).
    fn model_input(&mut self, o: &Map<String, Value>, at: &str) -> Result<(), Fail> {
        match o.get("input") {
            None | Some(Value::Null) => {}
            Some(Value::Array(ms)) => {
                for (k, m) in ms.iter().enumerate() {
                    self.replayed(m, &format!("{at}/input/{k}"))?;
                }
            }
            Some(other) => {
                return Err((
                    format!("{at}/input"),
                    format!("expected an array of messages, found {}", kind(other)),
                ))
            }
        }
        let refs = match o.get("input_refs") {
            None | Some(Value::Null) => return Ok(()),
            Some(Value::Array(r)) => r,
            Some(other) => {
                return Err((
                    format!("{at}/input_refs"),
                    format!(
                        "expected an array of [start, end] ranges, found {}",
                        kind(other)
                    ),
                ))
            }
        };
        for (k, r) in refs.iter().enumerate() {
            let rat = format!("{at}/input_refs/{k}");
            let Some(len) = self.pool_len else {
                return Err((
                    rat,
                    "a range of the sample's message pool (`events_data.messages`), which the sample does not hold: the model's input is not in the log".into(),
                ));
            };
            let bounds = r.as_array().and_then(|b| match b.as_slice() {
                [s, e] => Some((s.as_u64()?, e.as_u64()?)),
                _ => None,
            });
            match bounds.and_then(|(s, e)| Some((usize::try_from(s).ok()?, usize::try_from(e).ok()?))) {
                Some((s, e)) if s <= e && e <= len => self.pooled.extend(s..e),
                _ => {
                    return Err((
                        rat,
                        format!(
                            "expected a range [start, end] of the sample's {len} pooled messages, found {}",
                            shown(&r.to_string())
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    /// The changes a `state` event makes to the messages (JSON Patch
    /// operations on the task state).
    fn state(&mut self, o: &Map<String, Value>, at: &str) -> Result<(), Fail> {
        let changes = match o.get("changes") {
            None | Some(Value::Null) => return Ok(()),
            Some(Value::Array(c)) => c,
            Some(other) => {
                return Err((
                    format!("{at}/changes"),
                    format!("expected an array of changes, found {}", kind(other)),
                ))
            }
        };
        for (j, ch) in changes.iter().enumerate() {
            let cat = format!("{at}/changes/{j}");
            let (Some(op), Some(path)) = (
                ch.get("op").and_then(Value::as_str),
                ch.get("path").and_then(Value::as_str),
            ) else {
                return Err((
                    cat,
                    "expected a JSON Patch operation (`op` and `path` strings)".into(),
                ));
            };
            let segs: Vec<&str> = match path.strip_prefix("/messages") {
                Some("") => Vec::new(),
                Some(rest) if rest.starts_with('/') => rest[1..].split('/').collect(),
                _ => continue,
            };
            match op {
                // What they remove or move was added by an earlier change.
                "remove" | "move" | "copy" | "test" => continue,
                "add" | "replace" => {}
                other => {
                    return Err((
                        format!("{cat}/op"),
                        format!("unknown JSON Patch operation `{}`", shown(other)),
                    ))
                }
            }
            let value = ch.get("value").unwrap_or(&Value::Null);
            let vat = format!("{cat}/value");
            match segs.as_slice() {
                [] => {
                    if let Value::Array(ms) = value {
                        for (k, m) in ms.iter().enumerate() {
                            self.replayed(m, &format!("{vat}/{k}"))?;
                        }
                    }
                }
                [_] => self.replayed(value, &vat)?,
                [_, "tool_calls"] => {
                    if let Value::Array(cs) = value {
                        for (k, c) in cs.iter().enumerate() {
                            self.replayed_call(c, &format!("{vat}/{k}"))?;
                        }
                    }
                }
                [_, "tool_calls", _] => self.replayed_call(value, &vat)?,
                [_, "tool_calls", ..] | [_, "function" | "tool_call_id", ..] => {
                    self.replays.push((cat, Replayed::InPlace));
                }
                [_, "content", ..] => {
                    let parts = match value {
                        Value::Array(p) => p.iter().collect(),
                        other => vec![other],
                    };
                    for (k, p) in parts.into_iter().enumerate() {
                        if let Some(o) = p
                            .as_object()
                            .filter(|o| o.get("type").and_then(Value::as_str) == Some("tool_use"))
                        {
                            let pat = if value.is_array() {
                                format!("{vat}/{k}")
                            } else {
                                vat.clone()
                            };
                            let flat = tool_use_call(o, &pat)?;
                            let call = chat::decode_call(&flat)
                                .map_err(|e| (format!("{pat}{}", e.pointer), e.message))?;
                            self.replays.push((pat, Replayed::Call(call)));
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A message of a history: its calls and the result it holds.
    fn replayed(&mut self, m: &Value, at: &str) -> Result<(), Fail> {
        if let Some(id) = m.get("id").and_then(Value::as_str) {
            if self.known.get(id) == Some(m) {
                return Ok(());
            }
        }
        let mut m = m.clone();
        resolve(&mut m, self.attachments, &mut at.to_string())?;
        let msg = normalize(&m, at)?;
        if let Some(Value::Array(calls)) = msg.get("tool_calls") {
            let listed = m
                .get("tool_calls")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            for (k, c) in calls.iter().enumerate() {
                let cat = if k < listed {
                    format!("{at}/tool_calls/{k}")
                } else {
                    format!("{at}/content")
                };
                let call =
                    chat::decode_call(c).map_err(|e| (format!("{cat}{}", e.pointer), e.message))?;
                self.replays.push((cat, Replayed::Call(call)));
            }
        }
        if msg.get("role").and_then(Value::as_str) == Some("tool") {
            if let Some(id) = msg.get("tool_call_id").and_then(crate::convert::id_text) {
                let name = m
                    .get("function")
                    .and_then(Value::as_str)
                    .filter(|n| !n.trim().is_empty())
                    .map(str::to_string);
                self.replays
                    .push((at.to_string(), Replayed::Result(id, name)));
            }
        }
        Ok(())
    }

    /// An Inspect tool call a history holds.
    fn replayed_call(&mut self, c: &Value, at: &str) -> Result<(), Fail> {
        let mut c = c.clone();
        resolve(&mut c, self.attachments, &mut at.to_string())?;
        let flat = tool_call(&c, at)?;
        let call =
            chat::decode_call(&flat).map_err(|e| (format!("{at}{}", e.pointer), e.message))?;
        self.replays.push((at.to_string(), Replayed::Call(call)));
        Ok(())
    }

    /// A model's output (`{model, choices, …}`): the calls of its one
    /// choice. Several choices are refused: which one the solver acted on
    /// is not recorded.
    fn model_output(&mut self, v: Option<&Value>, at: &str, source: Source) -> Result<(), Fail> {
        let o = match v {
            None | Some(Value::Null) => return Ok(()),
            Some(Value::Object(o)) => o,
            Some(other) => {
                return Err((
                    at.into(),
                    format!("expected a model output object, found {}", kind(other)),
                ))
            }
        };
        known(
            o,
            &[
                "model",
                "choices",
                "completion",
                "usage",
                "time",
                "metadata",
                "error",
            ],
            "an Inspect model output",
            at,
        )?;
        let choices = match o.get("choices") {
            None | Some(Value::Null) => return Ok(()),
            Some(Value::Array(c)) => c,
            Some(other) => {
                return Err((
                    format!("{at}/choices"),
                    format!("expected an array of choices, found {}", kind(other)),
                ))
            }
        };
        if choices.len() > 1 {
            return Err((
                format!("{at}/choices"),
                format!(
                    "{} choices: which one the solver acted on is not recorded, and reading one would drop the others' calls",
                    choices.len()
                ),
            ));
        }
        let Some(choice) = choices.first() else {
            return Ok(());
        };
        let cat = format!("{at}/choices/0");
        let Some(c) = choice.as_object() else {
            return Err((
                cat,
                format!("expected a choice object, found {}", kind(choice)),
            ));
        };
        known(c, &["message", "stop_reason", "logprobs"], "a choice", &cat)?;
        let mat = format!("{cat}/message");
        let mut m = c.get("message").cloned().unwrap_or(Value::Null);
        resolve(&mut m, self.attachments, &mut mat.clone())?;
        if m.get("role").and_then(Value::as_str) != Some("assistant") {
            return Err((
                format!("{mat}/role"),
                "a model output's message must be the assistant's".into(),
            ));
        }
        let msg = normalize(&m, &mat)?;
        if let Some(Value::Array(calls)) = msg.get("tool_calls") {
            for (i, c) in calls.iter().enumerate() {
                self.requested(c, &format!("{mat}/tool_calls/{i}"), source)?;
            }
        }
        Ok(())
    }

    /// A call a model asked for (a flat call for the one decoder).
    fn requested(&mut self, flat: &Value, at: &str, source: Source) -> Result<(), Fail> {
        let call =
            chat::decode_call(flat).map_err(|e| (format!("{at}{}", e.pointer), e.message))?;
        self.note(source, call, at.into());
        Ok(())
    }
}

/// The calls the events record that the messages do not show, and why
/// the trace is incomplete when one of them comes before a call the
/// messages show (where it belongs is unknown). Each source records a
/// call once: a tool event that runs a call a model output asked for
/// gives it its result, the sample's output repeats the last model
/// output, and a second record from one source is a second call.
fn place(seen: Vec<Seen>) -> (Vec<Extra>, Option<String>) {
    let mut extras: Vec<Extra> = Vec::new();
    let mut unshown = None;
    for s in seen {
        match s {
            Seen::Shown => {
                if let Some(x) = extras.first() {
                    unshown.get_or_insert_with(|| {
                        format!(
                            "event {} records a call to `{}` that the messages do not show, made before a call they show: where it belongs in the conversation is unknown",
                            x.at,
                            shown(&x.call.name)
                        )
                    });
                }
            }
            Seen::Extra(x) => {
                let Some(&source) = x.sources.first() else {
                    continue;
                };
                let same = extras
                    .iter()
                    .position(|e| !e.sources.contains(&source) && Shown::among([&e.call], &x.call));
                match same {
                    Some(j) => {
                        let e = &mut extras[j];
                        e.sources.insert(source);
                        if source == Source::Run {
                            // What ran: its arguments, result and error.
                            e.call = x.call;
                        }
                    }
                    None => extras.push(*x),
                }
            }
        }
    }
    (extras, unshown)
}

/// Why the trace is incomplete when a history shows a call or a result
/// that neither the messages nor an event does: the messages were
/// rewritten, and what else they lost is unknown.
fn unreplayed(replays: &[(String, Replayed)], counted: &[&ToolCall]) -> Option<String> {
    replays.iter().find_map(|(at, r)| match r {
        Replayed::Call(c) if !Shown::among(counted.iter().copied(), c) => Some(format!(
            "{at} replays a call to `{}`{} that no message or event of the sample shows: the messages may have lost calls",
            shown(&c.name),
            c.id.as_deref().map(|id| format!(" (`{}`)", shown(id))).unwrap_or_default()
        )),
        Replayed::Result(id, name)
            if !counted.iter().any(|m| {
                m.id.as_ref() == Some(id) && name.as_ref().is_none_or(|n| *n == m.name)
            }) =>
        {
            Some(format!(
                "{at} replays the result of a call{} (`{}`) that no message or event of the sample shows: the messages may have lost calls",
                name.as_deref().map(|n| format!(" to `{}`", shown(n))).unwrap_or_default(),
                shown(id)
            ))
        }
        Replayed::InPlace => Some(format!(
            "{at} changes a tool call of the messages in place: the calls they show may not be the ones made"
        )),
        _ => None,
    })
}

/// A `tool` event → the call it records, through the one decoder; its
/// `error` `{type, message}` is the call's error.
fn event_call(e: &Value) -> Result<ToolCall, Fail> {
    let name = match e.get("function") {
        Some(Value::String(n)) if !n.trim().is_empty() => n.clone(),
        other => {
            return Err((
                "/function".into(),
                format!(
                    "expected the tool name (a non-empty string), found {}",
                    other.map_or("nothing", kind)
                ),
            ))
        }
    };
    let mut c = Map::new();
    c.insert("name".into(), json!(name));
    for k in ["id", "arguments", "result"] {
        if let Some(v) = e.get(k).filter(|v| !v.is_null()) {
            c.insert(k.into(), v.clone());
        }
    }
    match e.get("error") {
        None | Some(Value::Null) => {}
        Some(Value::Object(er)) => {
            let ty = er.get("type").and_then(Value::as_str).unwrap_or("error");
            let msg = er
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            c.insert("error".into(), json!(format!("{ty}: {msg}")));
        }
        Some(other) => {
            c.insert("error".into(), other.clone());
        }
    }
    chat::decode_call(&Value::Object(c)).map_err(|e| (e.pointer, e.message))
}

/// An Inspect tool call `{id, function, arguments, type, view,
/// parse_error, internal}` → a flat call for the one decoder.
fn tool_call(c: &Value, at: &str) -> Result<Value, Fail> {
    let Some(o) = c.as_object() else {
        return Err((
            at.into(),
            format!("expected a tool call object, found {}", kind(c)),
        ));
    };
    known(
        o,
        &[
            "id",
            "function",
            "arguments",
            "type",
            "view",
            "parse_error",
            "internal",
        ],
        "an Inspect tool call",
        at,
    )?;
    match o.get("type") {
        None | Some(Value::Null) => {}
        Some(Value::String(t)) if t == "function" => {}
        Some(other) => {
            return Err((
                format!("{at}/type"),
                format!(
                    "unknown tool call type {} (pactum reads `function`)",
                    shown(&other.to_string())
                ),
            ))
        }
    }
    let name = match o.get("function") {
        Some(Value::String(n)) if !n.trim().is_empty() => n.clone(),
        other => {
            return Err((
                format!("{at}/function"),
                format!(
                    "expected the tool name (a non-empty string), found {}",
                    other.map_or("nothing", kind)
                ),
            ))
        }
    };
    let mut out = Map::new();
    out.insert("name".into(), json!(name));
    if let Some(id) = o.get("id") {
        out.insert("id".into(), id.clone());
    }
    match o.get("parse_error") {
        None | Some(Value::Null) => {
            if let Some(a) = o.get("arguments") {
                out.insert("arguments".into(), a.clone());
            }
        }
        Some(e) => {
            // The model's arguments could not be parsed: not readable, and
            // the call did not run as asked.
            let msg = e.as_str().map_or_else(|| e.to_string(), str::to_string);
            out.insert("error".into(), json!(format!("parse error: {msg}")));
        }
    }
    Ok(Value::Object(out))
}
