//! The Python bindings: each function takes text from Python, runs the
//! [`crate::api`] call with the GIL released (`Python::detach`; the long
//! ones on a worker thread, so that Ctrl-C is seen), and returns text or
//! raises the `pactum.errors` class the error names.
//!
//! PyO3's macros expand to `unsafe` code (the C-API glue); this module
//! writes none itself, and the rest of the crate denies it.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::api::{self, ApiError, ApiResult};

/// Raises `err` as its `pactum.errors` class, with `file`, `line`,
/// `field` and `diagnostics` set.
fn raise(py: Python<'_>, err: ApiError) -> PyErr {
    let mut err = api::redact_error(err);
    err.message = api::in_python_terms(&err.message);
    let build = || -> PyResult<PyErr> {
        let errors = py.import("pactum.errors")?;
        let cls = errors.getattr(err.kind.class_name())?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("file", err.file.clone())?;
        kwargs.set_item("line", err.line)?;
        kwargs.set_item("field", err.field.clone())?;
        let diags = serde_json::to_string(&err.diagnostics).unwrap_or_else(|_| "[]".into());
        kwargs.set_item("diagnostics_json", diags)?;
        let inst = cls.call((err.message.clone(),), Some(&kwargs))?;
        Ok(PyErr::from_value(inst))
    };
    build().unwrap_or_else(|e| e)
}

fn done(py: Python<'_>, r: ApiResult) -> PyResult<String> {
    r.map_err(|e| raise(py, e))
}

/// The pactum version this module was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// One in-memory record (OpenAI conversation or pactum trace) → a trace
/// in pactum's format, as JSON text.
#[pyfunction]
#[pyo3(signature = (record, name, format, observability=None))]
fn import_record(
    py: Python<'_>,
    record: &str,
    name: &str,
    format: &str,
    observability: Option<&str>,
) -> PyResult<String> {
    let r = py.detach(|| api::import_record(record, name, format, observability));
    done(py, r)
}

/// Every trace of a file, as JSON text. A Ctrl-C raises
/// `KeyboardInterrupt` at once (the read only reads).
#[pyfunction]
#[pyo3(signature = (path, format, observability=None))]
fn read_trace_file(
    py: Python<'_>,
    path: &str,
    format: &str,
    observability: Option<&str>,
) -> PyResult<String> {
    let (path, format) = (path.to_string(), format.to_string());
    let observability = observability.map(str::to_string);
    interruptible(py, OnSignal::Leave, move |_| {
        api::read_trace_file(&path, &format, observability.as_deref())
    })
}

/// A contract's text, validated: JSON text.
#[pyfunction]
fn parse_contract(py: Python<'_>, text: &str, name: &str) -> PyResult<String> {
    let r = py.detach(|| api::parse_contract(text, name));
    done(py, r)
}

/// A contract file, validated: JSON text.
#[pyfunction]
fn load_contract(py: Python<'_>, path: &str) -> PyResult<String> {
    let r = py.detach(|| api::load_contract(path));
    done(py, r)
}

/// JSON text → YAML text.
#[pyfunction]
fn to_yaml(py: Python<'_>, json_text: &str) -> PyResult<String> {
    let r = py.detach(|| api::to_yaml(json_text));
    done(py, r)
}

/// How a call on a worker thread meets a Ctrl-C.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OnSignal {
    /// Raise the stop flag and wait for the work to wind down (it stores
    /// what it finished), then raise `KeyboardInterrupt`.
    StopAndJoin,
    /// Raise `KeyboardInterrupt` at once; the work (it only reads) runs
    /// out on its own and its answer is dropped.
    Leave,
}

/// Runs `work` on a thread of its own so that a Ctrl-C reaches Python
/// while it works: the signals are checked every 50 ms with the GIL held,
/// the work's answer waited for with it released.
fn interruptible(
    py: Python<'_>,
    on_signal: OnSignal,
    work: impl FnOnce(Arc<AtomicBool>) -> ApiResult + Send + 'static,
) -> PyResult<String> {
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let raised = Arc::clone(&stop);
    let worker = std::thread::spawn(move || {
        let _ = tx.send(work(raised));
    });
    let mut rx = rx;
    loop {
        // The receiver moves into the detached wait and back (it is not
        // `Sync`, so it cannot be borrowed there).
        let (answer, back) = py.detach(move || {
            let a = rx.recv_timeout(std::time::Duration::from_millis(50));
            (a, rx)
        });
        rx = back;
        match answer {
            Ok(r) => {
                let _ = py.detach(move || worker.join());
                return done(py, r);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(signal) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    if on_signal == OnSignal::StopAndJoin {
                        let _ = py.detach(move || worker.join());
                    }
                    return Err(signal);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let _ = py.detach(move || worker.join());
                return done(
                    py,
                    Err(ApiError {
                        kind: api::ErrorKind::Internal,
                        message: "the worker thread stopped without an answer".into(),
                        file: None,
                        line: None,
                        field: None,
                        diagnostics: vec![],
                    }),
                );
            }
        }
    }
}

/// The grade pipeline over a JSON request: a Ctrl-C stops the grading
/// before its next trace, and `KeyboardInterrupt` is raised.
#[pyfunction]
fn grade(py: Python<'_>, request: &str) -> PyResult<String> {
    let request = request.to_string();
    interruptible(py, OnSignal::StopAndJoin, move |stop| {
        api::grade_until(&request, Some(stop))
    })
}

/// The run pipeline over a JSON request: a Ctrl-C stops the run as it
/// stops `pactum run` (every finished trial stored, the run resumable),
/// then `KeyboardInterrupt` is raised.
#[pyfunction]
fn run(py: Python<'_>, request: &str) -> PyResult<String> {
    let request = request.to_string();
    interruptible(py, OnSignal::StopAndJoin, move |stop| {
        api::run_until(&request, Some(stop))
    })
}

/// The strength pipeline over a JSON request.
#[pyfunction]
fn strength(py: Python<'_>, request: &str) -> PyResult<String> {
    let r = py.detach(|| api::strength(request));
    done(py, r)
}

/// SPEC §3.1's operators on outcomes.
#[pyfunction]
#[pyo3(signature = (op, a, b=""))]
fn kleene(py: Python<'_>, op: &str, a: &str, b: &str) -> PyResult<String> {
    done(py, api::kleene(op, a, b))
}

/// A trial set's status by strict majority.
#[pyfunction]
fn reduce_trials(py: Python<'_>, statuses: Vec<String>) -> PyResult<String> {
    done(py, api::reduce_trials(&statuses))
}

/// Untrusted text made safe for a terminal (escapes and control
/// characters removed, invisible characters named).
#[pyfunction]
fn terminal_safe(text: &str) -> String {
    api::terminal_safe(text)
}

/// Text with every secret redacted (pactum's one rule).
#[pyfunction]
fn redact(text: &str) -> String {
    api::redact_text(text)
}

/// `pactum._pactum`.
#[pymodule]
fn _pactum(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(import_record, m)?)?;
    m.add_function(wrap_pyfunction!(read_trace_file, m)?)?;
    m.add_function(wrap_pyfunction!(parse_contract, m)?)?;
    m.add_function(wrap_pyfunction!(load_contract, m)?)?;
    m.add_function(wrap_pyfunction!(to_yaml, m)?)?;
    m.add_function(wrap_pyfunction!(grade, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(strength, m)?)?;
    m.add_function(wrap_pyfunction!(kleene, m)?)?;
    m.add_function(wrap_pyfunction!(reduce_trials, m)?)?;
    m.add_function(wrap_pyfunction!(terminal_safe, m)?)?;
    m.add_function(wrap_pyfunction!(redact, m)?)?;
    Ok(())
}
