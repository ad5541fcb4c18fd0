//! Single-turn tabular records (CSV rows, or JSON records) → one-turn traces.
//!
//! One turn: `input` = one user message holding the prompt (no message when
//! the prompt is JSON `null` or absent), `response` = the response cell.
//! An empty CSV cell is a recorded empty answer (`Some("")`); a JSON `null`
//! or absent response is no response (`None`), which is graded `error`,
//! never a pass. `metadata` = every column (CSV: strings keyed by header)
//! or the whole JSON record.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use pactum_core::trace::{Message, ObservabilityLevel, Role, Trace, Turn};
use serde_json::{Map, Value};

use crate::convert::{kind, shown, Conv, RecordCtx};
use crate::error::{ImportError, RecordError};
use crate::pointer::Pointer;
use crate::{ColumnMap, Emitter};

/// Column addresses for JSON records.
#[derive(Debug, Clone)]
pub(crate) struct JsonColumns {
    prompt: Pointer,
    response: Pointer,
    /// `--id-column`, else `--id-field`, with the flag's name.
    id: Option<(Pointer, &'static str)>,
}

impl JsonColumns {
    pub(crate) fn new(map: &ColumnMap, id_field: Option<&Pointer>) -> Result<Self, ImportError> {
        let id = match (&map.id, id_field) {
            (Some(c), _) => Some((Pointer::parse("--id-column", c)?, "--id-column")),
            (None, Some(p)) => Some((p.clone(), "--id-field")),
            (None, None) => None,
        };
        Ok(JsonColumns {
            prompt: Pointer::parse("--prompt-column", &map.prompt)?,
            response: Pointer::parse("--response-column", &map.response)?,
            id,
        })
    }

    /// Whether `record` has a prompt or a response member (for detection).
    pub(crate) fn matches(&self, record: &Value) -> bool {
        self.prompt.get(record).is_some() || self.response.get(record).is_some()
    }
}

fn single_turn(prompt: Option<String>, response: Option<String>) -> Vec<Turn> {
    vec![Turn {
        input: prompt
            .map(|content| {
                vec![Message {
                    role: Role::User,
                    content,
                }]
            })
            .unwrap_or_default(),
        response,
        ..Turn::default()
    }]
}

/// Converts one JSON record.
pub(crate) fn convert_json(bytes: &[u8], ctx: &RecordCtx<'_>, cols: &JsonColumns) -> Conv {
    let record: Value = match ctx.strict_value(bytes) {
        Ok(v) => v,
        Err(e) => return Conv::Error(e),
    };
    if !record.is_object() {
        return Conv::Error(ctx.error(
            None,
            format!("expected a record object, found {}", kind(&record)),
        ));
    }
    let Some(observability) = ctx.level_flag else {
        return Conv::NoLevel;
    };
    let (p, r) = (cols.prompt.get(&record), cols.response.get(&record));
    if p.is_none() && r.is_none() {
        return Conv::Error(ctx.error(
            None,
            format!(
                "neither `{}` nor `{}` is in the record (check --prompt-column and --response-column)",
                cols.prompt.as_str(),
                cols.response.as_str()
            ),
        ));
    }
    let text = |v: Option<&Value>, at: &Pointer| match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ctx.error(
            Some(at.as_str()),
            format!("expected a string or null, found {}", kind(other)),
        )),
    };
    let prompt = match text(p, &cols.prompt) {
        Ok(t) => t,
        Err(e) => return Conv::Error(e),
    };
    let response = match text(r, &cols.response) {
        Ok(t) => t,
        Err(e) => return Conv::Error(e),
    };
    let id = match ctx.trace_id(&record, cols.id.as_ref().map(|(p, flag)| (p, *flag))) {
        Ok(id) => id,
        Err(e) => return Conv::Error(e),
    };
    Conv::Trace(Trace {
        id,
        observability,
        turns: single_turn(prompt, response),
        metadata: record,
        error: None,
        incomplete: None,
        ended_by: None,
        source: Some(ctx.source()),
        offered_tools: None,
    })
}

/// Column indices into each CSV row.
struct CsvColumns {
    prompt: usize,
    response: usize,
    /// Index and whether it was asked for (`--id-column`) or is the
    /// default `id` column.
    id: Option<(usize, bool)>,
    /// Header names, for metadata (duplicates after the first are left out).
    header: Vec<(usize, String)>,
}

fn column(
    path: &Path,
    headers: &csv::StringRecord,
    name: &str,
    option: &'static str,
) -> Result<usize, ImportError> {
    let at: Vec<usize> = headers
        .iter()
        .enumerate()
        .filter(|(_, h)| *h == name)
        .map(|(i, _)| i)
        .collect();
    match at.as_slice() {
        [] => Err(ImportError::UnknownColumn {
            path: path.to_path_buf(),
            column: shown(name),
            option,
            header: shown(&headers.iter().collect::<Vec<_>>().join(", ")),
        }),
        [i] => Ok(*i),
        // Reading either column would be a guess, as for a JSON key given
        // twice in one record.
        several => Err(ImportError::CsvHeader {
            path: path.to_path_buf(),
            message: format!(
                "the header names column `{}` {} times (columns {}): which one {option} means cannot be told; rename them",
                shown(name),
                several.len(),
                several
                    .iter()
                    .map(|i| (i + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
}

/// Counts the file's lines for CSV records. csv-core's own line number is
/// one short for CRLF files (a record's start byte is the `\n` ending the
/// line before), so lines are counted here from byte offsets: the offsets
/// of newlines read ahead by the csv reader but not yet passed by a record
/// are queued (at most one read buffer plus one record's worth).
struct LineCounter<R> {
    inner: R,
    /// Bytes read so far.
    offset: u64,
    /// Offsets of newlines not yet passed.
    pending: VecDeque<u64>,
    /// Newlines passed.
    passed: u64,
}

impl<R: Read> Read for LineCounter<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for (i, b) in buf.iter().take(n).enumerate() {
            if *b == b'\n' {
                self.pending.push_back(self.offset + i as u64);
            }
        }
        self.offset += n as u64;
        Ok(n)
    }
}

impl<R> LineCounter<R> {
    fn new(inner: R) -> Self {
        LineCounter {
            inner,
            offset: 0,
            pending: VecDeque::new(),
            passed: 0,
        }
    }

    /// The 1-based line of a record whose first byte is at `start`. A
    /// newline at `start` itself ends the previous line (CRLF, blank line).
    fn line_at(&mut self, start: u64) -> u64 {
        while self.pending.front().is_some_and(|&o| o <= start) {
            self.pending.pop_front();
            self.passed += 1;
        }
        self.passed + 1
    }
}

/// Reads a CSV file (header row first) through `emit`.
pub(crate) fn read_csv<T>(
    path: &Path,
    file: File,
    map: &ColumnMap,
    level: ObservabilityLevel,
    emit: &mut Emitter<'_, T>,
) -> Result<(), ImportError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(LineCounter::new(file));
    let headers = reader
        .headers()
        .map_err(|e| csv_header_error(path, e))?
        .clone();
    let cols = CsvColumns {
        prompt: column(path, &headers, &map.prompt, "--prompt-column")?,
        response: column(path, &headers, &map.response, "--response-column")?,
        id: match &map.id {
            Some(name) => Some((column(path, &headers, name, "--id-column")?, true)),
            None if headers.iter().any(|h| h == "id") => Some((
                column(path, &headers, "id", "the default `id` column")?,
                false,
            )),
            None => None,
        },
        header: {
            let mut seen = std::collections::HashSet::new();
            headers
                .iter()
                .enumerate()
                .filter(|(_, h)| seen.insert(*h))
                .map(|(i, h)| (i, h.to_string()))
                .collect()
        },
    };
    let display = path.display().to_string();
    let file_name = crate::file_name(path);
    let mut row = csv::StringRecord::new();
    loop {
        let byte_before = reader.position().byte();
        match reader.read_record(&mut row) {
            Ok(false) => return Ok(()),
            Ok(true) => {
                let start = row.position().map_or(byte_before, csv::Position::byte);
                let line = reader.get_mut().line_at(start);
                let ctx = RecordCtx {
                    file: &display,
                    file_name: &file_name,
                    line,
                    ordinal: None,
                    line_framed: true,
                    level_flag: Some(level),
                };
                let conv = csv_row(&row, &cols, map, &ctx, level);
                if emit.conv(conv, &ctx)?.is_break() {
                    return Ok(());
                }
            }
            Err(e) => {
                let start = e.position().map_or(byte_before, csv::Position::byte);
                let line = reader.get_mut().line_at(start);
                let message = match e.kind() {
                    csv::ErrorKind::UnequalLengths {
                        expected_len, len, ..
                    } => {
                        format!("row has {len} field(s), the header has {expected_len}")
                    }
                    csv::ErrorKind::Utf8 { err, .. } => {
                        format!("field {} is not valid UTF-8", err.field() + 1)
                    }
                    csv::ErrorKind::Io(_) => {
                        return Err(ImportError::Read {
                            path: path.to_path_buf(),
                            source: std::io::Error::other(e.to_string()),
                        })
                    }
                    _ => e.to_string(),
                };
                let err = RecordError::new(&display, line, None, message);
                if emit.error(err).is_break() {
                    return Ok(());
                }
            }
        }
    }
}

fn csv_header_error(path: &Path, e: csv::Error) -> ImportError {
    match e.into_kind() {
        csv::ErrorKind::Io(source) => ImportError::Read {
            path: path.to_path_buf(),
            source,
        },
        other => ImportError::CsvHeader {
            path: path.to_path_buf(),
            message: match other {
                csv::ErrorKind::Utf8 { .. } => "the header is not valid UTF-8".into(),
                other => format!("{other:?}"),
            },
        },
    }
}

fn csv_row(
    row: &csv::StringRecord,
    cols: &CsvColumns,
    map: &ColumnMap,
    ctx: &RecordCtx<'_>,
    level: ObservabilityLevel,
) -> Conv {
    let cell = |i: usize, name: &str| {
        row.get(i)
            .map(str::to_string)
            .ok_or_else(|| ctx.error(Some(name), "missing cell"))
    };
    let prompt = match cell(cols.prompt, &map.prompt) {
        Ok(s) => s,
        Err(e) => return Conv::Error(e),
    };
    let response = match cell(cols.response, &map.response) {
        Ok(s) => s,
        Err(e) => return Conv::Error(e),
    };
    let id = match cols.id {
        Some((i, asked)) => match row.get(i).filter(|s| !s.is_empty()) {
            Some(s) => s.to_string(),
            None if asked => {
                return Conv::Error(ctx.error(map.id.as_deref(), "empty trace id (--id-column)"));
            }
            None => ctx.fallback_id(),
        },
        None => ctx.fallback_id(),
    };
    let metadata: Map<String, Value> = cols
        .header
        .iter()
        .filter_map(|(i, name)| {
            row.get(*i)
                .map(|v| (name.clone(), Value::String(v.to_string())))
        })
        .collect();
    Conv::Trace(Trace {
        id,
        observability: level,
        turns: single_turn(Some(prompt), Some(response)),
        metadata: Value::Object(metadata),
        error: None,
        incomplete: None,
        ended_by: None,
        source: Some(ctx.source()),
        offered_tools: None,
    })
}
