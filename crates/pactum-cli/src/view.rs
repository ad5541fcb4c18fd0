//! `pactum view`: flags to a [`pactum_view::Viewer`], its URL on stdout,
//! its failures to exit codes.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr};

use pactum_pipeline::common::store_path;
use pactum_view::{ViewConfig, ViewError, Viewer};

use crate::error::{CliError, CliResult};
use crate::exit::Exit;
use crate::output::{eprint, with_causes};
use crate::ViewArgs;

/// Serves the store until Ctrl-C or SIGTERM (exit 0). A store that
/// cannot be read is refused before anything listens.
pub fn view(args: ViewArgs) -> CliResult {
    let bind = args.bind.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let config = ViewConfig {
        db: store_path(args.db.as_deref()),
        db_arg: args.db.clone(),
        bind,
        port: args.port,
    };
    let viewer = Viewer::bind(&config).map_err(view_error)?;
    if !pactum_view::is_loopback_bind(bind) {
        eprint(&format!(
            "warning: listening on {bind}, not on loopback: anyone who can reach this machine on port {} can read every run in {} (no password, no TLS)",
            viewer.local_addr().port(),
            config.db.display()
        ));
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "pactum view: {} (read-only) at {}",
        config.db.display(),
        viewer.url()
    );
    let _ = out.flush();
    drop(out);
    viewer.serve().map_err(view_error)?;
    Ok(Exit::Pass)
}

fn view_error(e: ViewError) -> CliError {
    match e {
        ViewError::Store(s) => s.into(),
        // A port taken or an address not this machine's: the user named it.
        e @ ViewError::Bind { .. } => CliError::usage(with_causes(&e)),
        e @ ViewError::Server(_) => CliError {
            exit: Exit::Failure,
            message: Some(with_causes(&e)),
        },
    }
}
