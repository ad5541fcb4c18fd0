//! `pactum serve`: flags to a [`pactum_serve::Server`], its lines on
//! stdout and stderr, its summary to an exit code
//! ([`crate::exit::for_totals`]: drops and refused bodies make the session
//! partial; a session that graded nothing is not a pass).

use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use pactum_core::{Policy, TestStatus};
use pactum_pipeline::common::store_path;
use pactum_serve::{LiveLimits, Say, ServeConfig, ServeError, Server};

use crate::error::{CliError, CliResult};
use crate::exit::{for_store_error, for_totals, Exit};
use crate::output::{eprint, with_causes};
use crate::ServeArgs;

/// Serves until Ctrl-C or SIGTERM, then prints the summary.
pub fn serve(args: ServeArgs) -> CliResult {
    let config = ServeConfig {
        contract: args.contract,
        store: store_path(args.db.as_deref()),
        listen: args.listen,
        quiet_period: args.quiet_period,
        limits: LiveLimits {
            max_open_traces: args.max_open_traces,
            max_spans_per_trace: args.max_spans_per_trace,
        },
        max_body_bytes: args.max_body_bytes,
        policy: Policy {
            severity_floor: args.severity_floor.into(),
            ..Policy::default()
        },
        otlp_endpoint: args.otlp_endpoint,
        env_keys: pactum_runner::env_keys([]),
    };
    let server = Server::bind(config.clone()).map_err(serve_error)?;
    if !server.local_addr().ip().to_canonical().is_loopback() {
        eprint(&format!(
            "warning: listening on {}, not on loopback: anyone who can reach it can send traces (no password, no TLS)",
            server.local_addr()
        ));
    }
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "pactum serve: receiving OTLP traces at http://{}/v1/traces (run {}, store {}); Ctrl-C stops",
            server.local_addr(),
            server.run_id(),
            config.store.display()
        );
        let _ = out.flush();
    }
    let say: Arc<dyn Fn(Say) + Send + Sync> = Arc::new(|s: Say| match s {
        Say::Graded(line) => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
        Say::Notice(line) => eprint(&line),
    });
    let summary = server
        .serve(Arc::new(AtomicBool::new(false)), say)
        .map_err(serve_error)?;
    {
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "{}", summary.text());
        let _ = out.flush();
    }
    let partial = u64::from(summary.lost_anything());
    let undetermined = summary.count(TestStatus::Undetermined) + u64::from(summary.graded() == 0);
    Ok(for_totals(
        summary.count(TestStatus::Fail),
        undetermined,
        summary.count(TestStatus::Error),
        partial,
    ))
}

fn serve_error(e: ServeError) -> CliError {
    match e {
        ServeError::Store(s) => CliError {
            exit: for_store_error(&s),
            message: Some(with_causes(&s)),
        },
        e @ (ServeError::Invalid(_) | ServeError::Bind { .. }) => CliError::usage(with_causes(&e)),
        e @ ServeError::Server(_) => CliError {
            exit: Exit::Failure,
            message: Some(with_causes(&e)),
        },
    }
}
