//! # pactum-view
//!
//! `pactum view` (`docs/view.md`): a local web server over the store that
//! only reads. Three pages, all plain server-side HTML:
//!
//! * `/` — the stored runs, newest first, filtered by suite and status;
//! * `/runs/{id}` — that run's report: the very page `pactum show RUN
//!   --html` writes ([`pactum_pipeline::stored::show_in`] into
//!   [`pactum_report::HtmlReporter`]);
//! * `/diff?a=ID&b=ID` — two runs of the same suite, trial by trial,
//!   the trials whose status changed first.
//!
//! Reading never writes: each page opens the store with
//! [`pactum_store::Store::open_untouched`], which creates and changes no
//! file beside it, and reads again if a writer changed the file meanwhile
//! (the `snapshot` module). Every text from a store is hostile (SPEC §4): it reaches
//! a page only through the report's own escaping
//! ([`pactum_report::html::visible_text`]); ids in URLs are checked before
//! any lookup, and no query text reaches SQL.
//!
//! The server listens on loopback unless told otherwise, and answers only
//! requests whose `Host` names that loopback address (a web page elsewhere
//! cannot read the store by DNS rebinding).

mod pages;
mod routes;
mod snapshot;

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use pactum_store::StoreError;

/// The port `pactum view` listens on unless `--port` says otherwise.
pub const DEFAULT_PORT: u16 = 7437;

/// How long a client may take to send a request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// What to serve and where.
#[derive(Debug, Clone)]
pub struct ViewConfig {
    /// The store file.
    pub db: PathBuf,
    /// The store as the user named it (`--db`), `None` for the default:
    /// the resume command a run's warning prints names it as `pactum
    /// show` does.
    pub db_arg: Option<PathBuf>,
    /// The address to listen on (loopback unless the user asked).
    pub bind: IpAddr,
    /// The port; 0 picks a free one.
    pub port: u16,
}

/// Why the viewer could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The store cannot be read (missing, not a store, damaged, locked,
    /// from a newer pactum): checked before listening.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The address cannot be listened on (taken, not this machine's, not
    /// allowed).
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The server itself failed (its runtime, its socket).
    #[error("the web server failed: {0}")]
    Server(#[source] std::io::Error),
}

impl From<snapshot::Changed> for ViewError {
    fn from(_: snapshot::Changed) -> ViewError {
        ViewError::Server(std::io::Error::other(
            "the store kept changing while it was read; try again",
        ))
    }
}

/// What every request handler shares: where the store is and which
/// `Host` headers name this server.
#[derive(Debug)]
pub(crate) struct State {
    db: PathBuf,
    db_arg: Option<PathBuf>,
    /// Lower-case `host:port` values accepted; `None`: any (an address
    /// the user chose to expose).
    hosts: Option<Vec<String>>,
}

/// A viewer listening, not yet serving.
#[derive(Debug)]
pub struct Viewer {
    listener: TcpListener,
    addr: SocketAddr,
    state: Arc<State>,
}

impl Viewer {
    /// Checks the store can be read (opening it as every page will, so a
    /// missing, damaged or foreign file is an error now, not a page
    /// later), then listens on `config.bind:config.port`.
    ///
    /// # Errors
    /// [`ViewError::Store`] naming the store; [`ViewError::Bind`] naming
    /// the address.
    pub fn bind(config: &ViewConfig) -> Result<Viewer, ViewError> {
        snapshot::read(&config.db, |store| {
            store.runs().map(|_| ()).map_err(ViewError::from)
        })?;
        let asked = SocketAddr::new(config.bind, config.port);
        let listener = TcpListener::bind(asked).map_err(|source| ViewError::Bind {
            addr: asked,
            source,
        })?;
        let addr = listener.local_addr().map_err(ViewError::Server)?;
        let hosts = is_loopback_bind(config.bind).then(|| loopback_hosts(addr));
        Ok(Viewer {
            listener,
            addr,
            state: Arc::new(State {
                db: config.db.clone(),
                db_arg: config.db_arg.clone(),
                hosts,
            }),
        })
    }

    /// The address listened on (the port chosen when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The run list's URL, `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// The store served.
    pub fn db(&self) -> &Path {
        &self.state.db
    }

    /// Serves until SIGINT (Ctrl-C) or SIGTERM, then returns `Ok`.
    ///
    /// # Errors
    /// [`ViewError::Server`] when the runtime or the socket fails.
    pub fn serve(self) -> Result<(), ViewError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(ViewError::Server)?;
        rt.block_on(serve_until_signal(self.listener, self.state))
            .map_err(ViewError::Server)
    }
}

/// The `Host` values that name a loopback listener: its address, and
/// `localhost`, each with the port.
/// Whether `bind` is a loopback address, IPv4-mapped ones included
/// (`::ffff:127.0.0.1`): only then is the `Host` header checked and no
/// warning printed.
pub fn is_loopback_bind(bind: std::net::IpAddr) -> bool {
    bind.to_canonical().is_loopback()
}

fn loopback_hosts(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    let mut hosts = vec![
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        addr.to_string(),
    ];
    hosts.dedup();
    hosts
}

async fn serve_until_signal(listener: TcpListener, state: Arc<State>) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let stop = stop_signal()?;
    tokio::pin!(stop);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let state = Arc::clone(&state);
                    tokio::spawn(connection(stream, state));
                }
                // Out of file descriptors and the like: wait, do not spin.
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            },
            () = &mut stop => return Ok(()),
        }
    }
}

/// Resolves on SIGINT or SIGTERM.
fn stop_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {},
                _ = int.recv() => {},
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

async fn connection(stream: tokio::net::TcpStream, state: Arc<State>) {
    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
        let state = Arc::clone(&state);
        async move { Ok::<_, Infallible>(respond(state, req).await) }
    });
    // A client that hangs up is not the server's failure.
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
        .await;
}

async fn respond(state: Arc<State>, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let method = req.method().clone();
    let uri = req.uri().clone();
    let host = req
        .headers()
        .get(hyper::header::HOST)
        .map(|h| h.to_str().map(str::to_string).map_err(|_| ()));
    // SQLite reads block: off the runtime's thread.
    let page = tokio::task::spawn_blocking(move || routes::handle(&state, &method, &uri, host))
        .await
        .unwrap_or_else(|_| {
            pages::Page::error(500, "Internal error", "the page could not be made")
        });
    page.into_response()
}

#[cfg(test)]
mod bind_tests {
    use super::is_loopback_bind;

    #[test]
    fn mapped_loopback_is_loopback_and_other_addresses_are_not() {
        for a in ["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"] {
            assert!(is_loopback_bind(a.parse().unwrap()), "{a}");
        }
        for a in [
            "0.0.0.0",
            "::",
            "10.0.0.1",
            "::ffff:10.0.0.1",
            "192.168.1.2",
        ] {
            assert!(!is_loopback_bind(a.parse().unwrap()), "{a}");
        }
    }
}
