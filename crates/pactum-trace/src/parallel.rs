//! JSONL on several threads: a reader frames lines into batches, workers
//! convert them (and run the caller's `map`), and the calling thread
//! delivers the results in file order. Framing stays with one reader
//! ([`LineFrames`], the sequential framer itself), so line numbers, BOM,
//! blank lines, CRLF and over-long lines are handled exactly as in the
//! sequential path; only conversion moves to the workers.

use std::collections::BTreeMap;
use std::io::BufReader;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

use pactum_core::trace::ObservabilityLevel;

use crate::convert::RecordCtx;
use crate::error::{ImportError, RecordError};
use crate::framing::{Frame, LineFrames, MAX_RECORD_BYTES};
use crate::{file_name, open, prepare, read_error, Emitter, Plan, Ready};

/// How many threads read a JSONL file, and how it is cut into batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parallel {
    /// Worker threads that convert records; 1 reads on the calling thread
    /// alone, exactly as [`crate::read_traces`] does.
    pub jobs: NonZeroUsize,
    /// A batch is closed once its records hold at least this many bytes
    /// (a single longer record is a batch of its own).
    pub batch_bytes: usize,
}

impl Parallel {
    /// The default batch size: large enough that handing a batch to a
    /// worker costs nothing next to parsing it, small enough that the
    /// batches in flight stay a few MiB.
    pub const BATCH_BYTES: usize = 256 << 10;

    /// `jobs` workers, default batches.
    pub fn new(jobs: NonZeroUsize) -> Parallel {
        Parallel {
            jobs,
            batch_bytes: Self::BATCH_BYTES,
        }
    }

    /// Everything on the calling thread.
    pub fn sequential() -> Parallel {
        Parallel::new(NonZeroUsize::MIN)
    }

    /// One worker per core ([`std::thread::available_parallelism`], 1 when
    /// it cannot be told).
    pub fn all_cores() -> Parallel {
        Parallel::new(std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN))
    }

    /// The most batches read ahead of the sink at any time: enough to keep
    /// every worker busy while the sink waits for the oldest one.
    pub fn in_flight(&self) -> usize {
        self.jobs.get().saturating_mul(2).saturating_add(2)
    }
}

impl Default for Parallel {
    fn default() -> Parallel {
        Parallel::sequential()
    }
}

/// One framed place of a batch: a record's range in the batch's bytes, or
/// a line the framer could not read.
enum Framed {
    Record { line: u64, start: usize, end: usize },
    Broken { line: u64, message: String },
}

/// Consecutive frames of the file, numbered from 0.
struct Batch {
    index: u64,
    bytes: Vec<u8>,
    frames: Vec<Framed>,
    /// Reading failed right after these frames: nothing follows.
    failed: Option<std::io::Error>,
    /// The file's last batch (sent even when empty).
    last: bool,
}

/// A converted batch, for the sink.
struct Done<T> {
    index: u64,
    ready: Vec<Ready<T>>,
    failed: Option<std::io::Error>,
    last: bool,
}

/// Reads a JSONL file through `plan` on `parallel.jobs` workers; `emit`
/// receives every record in file order on the calling thread.
pub(crate) fn read_lines<T: Send>(
    path: &Path,
    plan: &Plan,
    level_flag: Option<ObservabilityLevel>,
    parallel: Parallel,
    emit: &mut Emitter<'_, T>,
) -> Result<(), ImportError> {
    let reader = BufReader::with_capacity(1 << 16, open(path)?);
    let mut frames = LineFrames::new(reader, MAX_RECORD_BYTES).map_err(|e| read_error(path, e))?;
    let display = path.display().to_string();
    let name = file_name(path);
    let withhold = emit.withhold;
    let map = emit.map;
    let in_flight = parallel.in_flight();
    let stop = AtomicBool::new(false);

    // A batch may be read only with a token; the sink returns one per
    // batch delivered, so at most `in_flight` batches exist at once.
    let (token_tx, token_rx) = mpsc::sync_channel::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = token_tx.send(());
    }
    let (work_tx, work_rx) = mpsc::sync_channel::<Batch>(in_flight);
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<Done<T>>();

    std::thread::scope(|s| {
        let stop = &stop;
        s.spawn(move || {
            let mut index = 0u64;
            let mut batch = Batch::new(0);
            loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let last = match frames.next_frame() {
                    Ok(Some(Frame::Record { line, bytes, .. })) => {
                        let start = batch.bytes.len();
                        batch.bytes.extend_from_slice(bytes);
                        batch.frames.push(Framed::Record {
                            line,
                            start,
                            end: batch.bytes.len(),
                        });
                        false
                    }
                    Ok(Some(Frame::Broken { line, message })) => {
                        batch.frames.push(Framed::Broken { line, message });
                        false
                    }
                    Ok(None) => true,
                    Err(e) => {
                        batch.failed = Some(e);
                        true
                    }
                };
                let full = batch.bytes.len() >= parallel.batch_bytes
                    || batch.frames.len() >= parallel.batch_bytes.max(1);
                if last || full {
                    batch.last = last;
                    if token_rx.recv().is_err() {
                        return;
                    }
                    index += 1;
                    let next = std::mem::replace(&mut batch, Batch::new(index));
                    if work_tx.send(next).is_err() {
                        return;
                    }
                }
                if last {
                    return;
                }
            }
        });
        for _ in 0..parallel.jobs.get() {
            let done_tx = done_tx.clone();
            let work_rx = &work_rx;
            let (display, name) = (&display, &name);
            s.spawn(move || loop {
                let batch = {
                    let Ok(rx) = work_rx.lock() else { return };
                    match rx.recv() {
                        Ok(b) => b,
                        Err(_) => return,
                    }
                };
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let ready = batch
                    .frames
                    .into_iter()
                    .map(|f| match f {
                        Framed::Record { line, start, end } => {
                            let ctx = RecordCtx {
                                file: display,
                                file_name: name,
                                line,
                                ordinal: None,
                                line_framed: true,
                                level_flag,
                            };
                            let bytes = batch.bytes.get(start..end).unwrap_or_default();
                            prepare(plan.convert(bytes, &ctx), &ctx, withhold, map)
                        }
                        Framed::Broken { line, message } => {
                            Ready::Error(RecordError::new(display, line, None, message))
                        }
                    })
                    .collect();
                let done = Done {
                    index: batch.index,
                    ready,
                    failed: batch.failed,
                    last: batch.last,
                };
                if done_tx.send(done).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);

        let result = deliver(&done_rx, &token_tx, emit, path);
        // Whatever ended delivery, the reader and the workers stop: no
        // more tokens, no more results wanted.
        stop.store(true, Ordering::Relaxed);
        drop(token_tx);
        drop(done_rx);
        result
    })
}

impl Batch {
    fn new(index: u64) -> Batch {
        Batch {
            index,
            bytes: Vec::new(),
            frames: Vec::new(),
            failed: None,
            last: false,
        }
    }
}

/// Hands converted batches to `emit` in file order until the last one,
/// a break, or an error. Results that stop before the last batch (a
/// thread that died) are a read error, never a shorter file.
fn deliver<T>(
    done_rx: &mpsc::Receiver<Done<T>>,
    token_tx: &mpsc::SyncSender<()>,
    emit: &mut Emitter<'_, T>,
    path: &Path,
) -> Result<(), ImportError> {
    let mut pending: BTreeMap<u64, Done<T>> = BTreeMap::new();
    let mut next = 0u64;
    while let Ok(done) = done_rx.recv() {
        pending.insert(done.index, done);
        while let Some(done) = pending.remove(&next) {
            next += 1;
            for ready in done.ready {
                if emit.deliver(ready)?.is_break() {
                    return Ok(());
                }
            }
            if let Some(e) = done.failed {
                return Err(read_error(path, e));
            }
            if done.last {
                return Ok(());
            }
            let _ = token_tx.send(());
        }
    }
    Err(read_error(
        path,
        std::io::Error::other("reading stopped before the end of the file"),
    ))
}
