//! The benchmark reference server ([`pactum_bench::serve`]):
//!
//! ```sh
//! pactum-bench-server --delay-ms 50 [--port 0] --port-file PATH
//! ```
//!
//! Binds 127.0.0.1 (`--port 0`: any free port) and writes the port, with a
//! trailing newline, to `--port-file` atomically once it listens. One
//! thread: what it costs per request shows as its own CPU time.

use std::sync::Arc;
use std::time::Duration;

fn main() {
    if let Err(e) = run() {
        eprintln!("pactum-bench-server: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut delay_ms = 50.0_f64;
    let mut port = 0_u16;
    let mut port_file = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--delay-ms" => {
                delay_ms = value("--delay-ms")?
                    .parse()
                    .map_err(|e| format!("--delay-ms: {e}"))?;
            }
            "--port" => {
                port = value("--port")?
                    .parse()
                    .map_err(|e| format!("--port: {e}"))?
            }
            "--port-file" => port_file = Some(value("--port-file")?),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let port_file = port_file.ok_or("--port-file is required")?;
    if !(delay_ms.is_finite() && delay_ms >= 0.0) {
        return Err(format!("--delay-ms must be a number >= 0, not {delay_ms}"));
    }
    let delay = Duration::from_secs_f64(delay_ms / 1000.0);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
        let port = listener
            .local_addr()
            .map_err(|e| format!("no local address: {e}"))?
            .port();
        let tmp = format!("{port_file}.tmp");
        std::fs::write(&tmp, format!("{port}\n")).map_err(|e| format!("{tmp}: {e}"))?;
        std::fs::rename(&tmp, &port_file).map_err(|e| format!("{port_file}: {e}"))?;
        pactum_bench::serve(listener, delay, Arc::new(pactum_bench::Stats::default()))
            .await
            .map_err(|e| format!("accepting a connection: {e}"))
    })
}
