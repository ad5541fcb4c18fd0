//! The reference server against the load client, over real sockets.

use std::sync::Arc;
use std::time::Duration;

use pactum_bench::{load, serve, Stats, COMPLETION};

async fn start(delay: Duration) -> (String, Arc<Stats>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let stats = Arc::new(Stats::default());
    tokio::spawn(serve(listener, delay, stats.clone()));
    (base, stats)
}

#[tokio::test]
async fn every_request_waits_the_delay_and_is_counted() {
    let delay = Duration::from_millis(120);
    let (base, stats) = start(delay).await;
    let url = format!("{base}/v1/chat/completions");
    let r = load(&url, 6, 3).await.expect("load");
    assert_eq!(r.requests, 6);
    // Never answered before the delay: a server that skipped it would
    // make every figure measured against it look better than it is.
    assert!(r.p50 >= delay && r.mean >= delay, "{r:?}");
    // Two rounds of three, not six one after the other.
    assert!(r.wall >= delay * 2 && r.wall < delay * 6, "{r:?}");
    let s = stats.to_json();
    assert_eq!(s["requests"], 6);
    assert_eq!(s["in_flight"], 0);
    assert_eq!(s["max_in_flight"], 3);
}

#[tokio::test]
async fn stats_and_reset_over_http_and_the_answer_is_a_chat_completion() {
    let (base, _) = start(Duration::from_millis(1)).await;
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let answer = http
        .post(format!("{base}/v1/chat/completions"))
        .body(r#"{"model":"bench-model","messages":[]}"#)
        .send()
        .await
        .expect("send");
    assert_eq!(answer.status(), 200);
    assert_eq!(
        answer.headers()["content-type"].to_str().expect("ascii"),
        "application/json"
    );
    let body = answer.text().await.expect("body");
    assert_eq!(body, COMPLETION);
    let v: serde_json::Value = serde_json::from_str(&body).expect("json");
    assert_eq!(v["choices"][0]["message"]["content"], "an answer");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    let stats = |path: &'static str, post: bool| {
        let req = if post {
            http.post(format!("{base}{path}"))
        } else {
            http.get(format!("{base}{path}"))
        };
        async move {
            serde_json::from_str::<serde_json::Value>(
                &req.send().await.expect("send").text().await.expect("body"),
            )
            .expect("json")
        }
    };
    let s = stats("/_stats", false).await;
    assert_eq!(
        (s["requests"].as_u64(), s["max_in_flight"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(stats("/_reset", true).await, serde_json::json!({}));
    let s = stats("/_stats", false).await;
    assert_eq!(
        (s["requests"].as_u64(), s["max_in_flight"].as_u64()),
        (Some(0), Some(0))
    );
}

#[tokio::test]
async fn a_refused_request_is_an_error_not_a_figure() {
    // Nothing listens on this port once the listener is dropped.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let err = load(
        &format!("http://127.0.0.1:{port}/v1/chat/completions"),
        2,
        1,
    )
    .await
    .expect_err("refused");
    assert!(err.contains("request failed"), "{err}");
}

#[test]
fn the_answer_is_the_python_servers_byte_for_byte() {
    // bench/fast_server.py builds its answer with json.dumps: compare
    // with what it would send, when Python is here to say.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/fast_server.py");
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(format!(
            "import importlib.util,sys; s=importlib.util.spec_from_file_location('f', {script:?}); \
             m=importlib.util.module_from_spec(s); s.loader.exec_module(m); sys.stdout.buffer.write(m.COMPLETION)"
        ))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), COMPLETION);
}
