//! End-to-end tests of `pactum view`: a store made by real `pactum run`s
//! of `tests/fixtures/view/view.yaml` (an exec target on
//! `examples/targets/echo_agent.py`), the real binary serving it on
//! 127.0.0.1 (`--port 0`), pages fetched with a real HTTP client
//! (reqwest), and raw requests over a TCP socket where a client would
//! tidy the request up. After serving, the store's folder is byte for
//! byte what it was. The `browser_*` tests (ignored; `bash .ci/browser`)
//! load the pages in chromium.

mod browser;
mod support;

use std::collections::BTreeMap;

use support::*;

#[test]
fn serves_the_runs_newest_first_with_filters() {
    let s = Store3::get();
    let v = s.serve();
    let (code, headers, body) = v.get("/");
    assert_eq!(code, 200, "{body}");
    let csp = headers.get("content-security-policy").expect("a CSP");
    assert!(csp.starts_with("default-src 'none'"), "{csp}");
    assert!(csp.contains("script-src 'none'"), "{csp}");
    assert_eq!(
        headers.get("x-content-type-options").map(String::as_str),
        Some("nosniff")
    );
    // Newest first: run3, run2, run1.
    let at = |id: &str| {
        body.find(&format!("href=\"/runs/{id}\""))
            .unwrap_or_else(|| panic!("{id} listed: {body}"))
    };
    assert!(
        at(&s.run3) < at(&s.run2) && at(&s.run2) < at(&s.run1),
        "{body}"
    );
    // Each run links a diff with the previous run of its suite.
    assert!(
        body.contains(&format!("href=\"/diff?a={}&amp;b={}\"", s.run1, s.run2)),
        "{body}"
    );
    // The tampered suite path is text, never markup.
    assert!(!body.contains("<img"), "{body}");
    assert!(body.contains("&lt;img src=x onerror="), "{body}");

    // Filters: by status, by suite; an unknown status is refused.
    let (code, _, body) = v.get("/?status=finished");
    assert_eq!(code, 200);
    assert_eq!(body.matches("class=\"run-link\"").count(), 3, "{body}");
    let (code, _, body) = v.get("/?status=running");
    assert_eq!(code, 200);
    assert_eq!(body.matches("class=\"run-link\"").count(), 0, "{body}");
    assert!(body.contains("No run matches these filters"), "{body}");
    let suite = url_encode(&s.suite_a);
    let (code, _, body) = v.get(&format!("/?suite={suite}&status=finished"));
    assert_eq!(code, 200);
    assert_eq!(body.matches("class=\"run-link\"").count(), 2, "{body}");
    assert!(!body.contains(&format!("/runs/{}", s.run3)), "{body}");
    let (code, _, body) = v.get("/?status=passed");
    assert_eq!(code, 400, "{body}");
    assert!(body.contains("unknown status"), "{body}");
    let (code, _, body) = v.get("/?sort=id");
    assert_eq!(code, 400, "{body}");
    let (code, _, _) = v.get("/?status=finished&status=running");
    assert_eq!(code, 400);
    // Pages: the first is the list itself; a page that is not a number is
    // refused, one past the last is not found.
    let (code, _, paged) = v.get("/?page=1");
    assert_eq!(code, 200);
    assert_eq!(paged.matches("class=\"run-link\"").count(), 3, "{paged}");
    for bad in ["0", "-1", "x", "+2", "1e3"] {
        let (code, _, body) = v.get(&format!("/?page={bad}"));
        assert_eq!(code, 400, "page={bad}: {body}");
    }
    let (code, _, body) = v.get("/?page=2");
    assert_eq!(code, 404, "{body}");
    assert!(body.contains("it has 1"), "{body}");
    v.stop();
}

#[test]
fn a_runs_page_is_the_page_show_html_writes() {
    let s = Store3::get();
    let v = s.serve();
    for id in [&s.run1, &s.run2, &s.run3] {
        let shown = s.sandbox.pactum([
            "show".as_ref(),
            id.as_ref(),
            "--db".as_ref(),
            s.db().as_os_str(),
            "--html".as_ref(),
            "-".as_ref(),
        ]);
        assert!(shown.stdout.starts_with("<!DOCTYPE html>"), "{shown:#?}");
        let (code, headers, body) = v.get(&format!("/runs/{id}"));
        assert_eq!(code, 200);
        assert_eq!(
            body, shown.stdout,
            "run {id}: the page differs from show --html"
        );
        let csp = headers.get("content-security-policy").expect("a CSP");
        assert!(csp.contains("script-src 'sha256-"), "{csp}");
    }
    // The sentinel in the response and in the (tampered) test id is text.
    let (_, _, body) = v.get(&format!("/runs/{}", s.run3));
    assert!(body.contains("PWNED"), "the sentinel is on the page");
    assert!(!body.contains("<script>window.PWNED"), "{body}");
    assert!(!body.contains("<img src=x"), "{body}");
    v.stop();
}

#[test]
fn a_diff_puts_changed_trials_first_and_refuses_other_suites() {
    let s = Store3::get();
    let v = s.serve();
    let (code, _, body) = v.get(&format!("/diff?a={}&b={}", s.run1, s.run2));
    assert_eq!(code, 200, "{body}");
    assert!(
        body.contains("<span id=\"changed-count\">1</span> changed"),
        "{body}"
    );
    let changed = body.find("id=\"changed\"").expect("changed section");
    let same = body.find("id=\"same\"").expect("unchanged section");
    let flip = body.find("<td class=\"test\">flip</td>").expect("flip");
    let greet = body.find("<td class=\"test\">greet</td>").expect("greet");
    assert!(changed < flip && flip < same && same < greet, "{body}");
    let row = &body[flip..flip + body[flip..].find("</tr>").expect("row end")];
    let pass = row.find("status pass").expect("pass before");
    let fail = row.find("status fail").expect("fail after");
    assert!(pass < fail, "{row}");
    assert!(
        body.contains("The suite file changed between these runs"),
        "{body}"
    );
    assert!(!body.contains("<script>window.PWNED"), "{body}");

    // Runs of two suite files: refused with a page that says so.
    let (code, _, body) = v.get(&format!("/diff?a={}&b={}", s.run1, s.run3));
    assert_eq!(code, 409, "{body}");
    assert!(
        body.contains("only runs of the same suite file can be compared"),
        "{body}"
    );
    assert!(!body.contains("<img"), "{body}");

    // Unknown runs are 404; a missing or malformed id is 400.
    let unknown = "r00000000-000000-0000";
    assert_eq!(v.get(&format!("/diff?a={}&b={unknown}", s.run1)).0, 404);
    assert_eq!(v.get(&format!("/runs/{unknown}")).0, 404);
    assert_eq!(v.get(&format!("/diff?a={}", s.run1)).0, 400);
    assert_eq!(v.get("/diff?a=r1'%20OR%201=1--&b=r1").0, 400);
    // A prefix names a run on the command line, never in a URL.
    assert_eq!(v.get(&format!("/runs/{}", &s.run1[..10])).0, 404);
    v.stop();
}

#[test]
fn requests_outside_the_pages_are_refused() {
    let s = Store3::get();
    let v = s.serve();
    let host = format!("127.0.0.1:{}", v.port);
    let status = |path: &str, method: &str, host: &str| -> u16 {
        let answer = v.raw(&format!(
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        ));
        answer
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("an HTTP answer: {answer}"))
    };
    assert_eq!(status("/", "GET", &host), 200);
    assert_eq!(status("/", "GET", &format!("localhost:{}", v.port)), 200);
    // Path traversal, raw and encoded, never reaches the store.
    for path in [
        "/runs/../pactum.db",
        "/runs/..%2fpactum.db",
        "/runs/%2e%2e",
        "/runs/x/../../etc/passwd",
        "/runs/",
        "/../store/pactum.db",
        "/store/pactum.db",
        "/runs/r1%00",
    ] {
        let code = status(path, "GET", &host);
        assert!(code == 400 || code == 404, "{path}: {code}");
    }
    // HEAD: the headers, no page.
    let head = v.raw(&format!(
        "HEAD / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    ));
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.ends_with("\r\n\r\n"), "no body: {head}");
    // Only reading.
    assert_eq!(status("/", "POST", &host), 405);
    assert_eq!(status(&format!("/runs/{}", s.run1), "DELETE", &host), 405);
    // Another name for this server (DNS rebinding) is refused.
    assert_eq!(status("/", "GET", "evil.example:80"), 421);
    assert_eq!(status("/", "GET", &format!("evil.example:{}", v.port)), 421);
    v.stop();
}

#[test]
fn serving_leaves_the_store_folder_byte_identical() {
    // Its own store: `pactum show` in another test may open the shared one.
    let s = Store3::fresh();
    let before = folder_bytes(s.db().parent().expect("store folder"));
    assert_eq!(
        before.keys().cloned().collect::<Vec<_>>(),
        ["pactum.db"],
        "no log left by the runs"
    );
    let v = s.serve();
    for path in [
        "/".to_string(),
        format!("/runs/{}", s.run1),
        format!("/runs/{}", s.run3),
        format!("/diff?a={}&b={}", s.run1, s.run2),
        "/?status=finished".to_string(),
    ] {
        assert_eq!(v.get(&path).0, 200, "{path}");
        same_folder(
            &before,
            &folder_bytes(s.db().parent().expect("store folder")),
            &path,
        );
    }
    let code = v.stop();
    assert_eq!(code, 0, "SIGTERM stops the server cleanly");
    same_folder(
        &before,
        &folder_bytes(s.db().parent().expect("store folder")),
        "stopping",
    );

    // A writer holding the store (as `pactum run` does): its log is read,
    // so what it committed and has not checkpointed is shown.
    let writer = rusqlite::Connection::open(s.db()).expect("a writer");
    writer
        .pragma_update(None, "wal_autocheckpoint", 0)
        .expect("no checkpoint");
    writer
        .execute(
            "UPDATE runs SET status = 'interrupted' WHERE id = ?1",
            [&s.run1],
        )
        .expect("a write");
    let dir = s.db().parent().expect("store folder").to_path_buf();
    assert!(dir.join("pactum.db-wal").exists(), "the writer's log");
    assert_eq!(
        std::fs::read(s.db()).expect("read"),
        before["pactum.db"],
        "not checkpointed"
    );
    let v = s.serve();
    let (code, _, body) = v.get("/?status=interrupted");
    assert_eq!(code, 200, "{body}");
    assert!(
        body.contains(&format!("href=\"/runs/{}\"", s.run1)),
        "{body}"
    );
    assert_eq!(body.matches("class=\"run-link\"").count(), 1, "{body}");
    assert_eq!(v.get(&format!("/runs/{}", s.run1)).0, 200);
    v.stop();
    drop(writer);
}

#[test]
fn a_run_being_written_is_shown_as_it_goes() {
    let s = Store3::fresh();
    let v = s.serve();
    let fixture = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/view/slow.yaml"),
    )
    .expect("the fixture");
    let root = root();
    s.sandbox.write(
        "slow.yaml",
        &fixture.replace("@ROOT@", root.to_str().expect("a UTF-8 root")),
    );
    let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_pactum"))
        .current_dir(s.sandbox.path())
        .env("NO_COLOR", "1")
        .args(["run", "slow.yaml", "-j", "1", "-q", "--db"])
        .arg(s.db())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("pactum run starts");
    // The running run appears in the list, and its page says it is being
    // run, with the trials stored so far.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let id = loop {
        let (code, _, body) = v.get("/?status=running");
        assert_eq!(code, 200, "{body}");
        let link = "href=\"/runs/";
        if let Some(at) = body.find(link) {
            let rest = &body[at + link.len()..];
            break rest[..rest.find('"').expect("quote")].to_string();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the run never showed: {body}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let (code, _, page) = v.get(&format!("/runs/{id}"));
    assert_eq!(code, 200, "{page}");
    assert!(page.contains("is being run right now"), "{page}");
    let status = run.wait().expect("the run ends");
    assert_eq!(status.code(), Some(0), "every trial passes");
    let (_, _, body) = v.get("/?status=finished");
    assert!(body.contains(&format!("href=\"/runs/{id}\"")), "{body}");
    let (_, _, page) = v.get(&format!("/runs/{id}"));
    assert!(!page.contains("is being run right now"), "{page}");
    v.stop();
}

/// Starts `pactum run slow.yaml --no-cache` on `s`'s store, waits until it
/// has stored a trial, kills it with SIGKILL, and returns the run's id:
/// the store is left with its `-wal` and `-shm` and no writer.
fn killed_run(s: &Store3) -> String {
    let fixture = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/view/slow.yaml"),
    )
    .expect("the fixture");
    s.sandbox.write(
        "slow.yaml",
        &fixture.replace("@ROOT@", root().to_str().expect("a UTF-8 root")),
    );
    let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_pactum"))
        .current_dir(s.sandbox.path())
        .env("NO_COLOR", "1")
        .args(["run", "slow.yaml", "-j", "1", "-q", "--no-cache", "--db"])
        .arg(s.db())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("pactum run starts");
    // Past its first trial (one second each), before its last.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    run.kill().expect("SIGKILL");
    run.wait().expect("reaped");
    let dir = s.db().parent().expect("store folder").to_path_buf();
    assert!(dir.join("pactum.db-wal").exists(), "the killed run's log");
    assert!(dir.join("pactum.db-shm").exists(), "the killed run's index");
    let r = s
        .sandbox
        .pactum(["runs".as_ref(), "--db".as_ref(), s.db().as_os_str()]);
    let line = r
        .stdout
        .lines()
        .find(|l| l.contains("slow.yaml"))
        .unwrap_or_else(|| panic!("the killed run is listed: {r:#?}"));
    line.split_whitespace().next().expect("its id").to_string()
}

#[test]
fn a_store_a_killed_run_left_is_read_without_touching_it() {
    let s = Store3::fresh();
    let id = killed_run(&s);
    let dir = s.db().parent().expect("store folder").to_path_buf();
    let killed = folder_bytes(&dir);
    // Each case the folder can be in: the killed run's log and index, the
    // log alone, the index alone.
    let cases: [(&str, &[&str]); 3] = [
        ("a log and its index", &[]),
        ("a log alone", &["pactum.db-shm"]),
        ("an index alone", &["pactum.db-wal"]),
    ];
    for (case, gone) in cases {
        for (name, bytes) in &killed {
            std::fs::write(dir.join(name), bytes).expect("restore");
        }
        for name in gone {
            std::fs::remove_file(dir.join(name)).expect("remove");
        }
        let before = folder_bytes(&dir);
        let v = s.serve();
        for path in [
            "/".to_string(),
            format!("/runs/{id}"),
            "/?status=running".into(),
        ] {
            let (code, _, body) = v.get(&path);
            // Without its log the killed run's records are not there.
            let want = if path.starts_with("/runs/") && gone.contains(&"pactum.db-wal") {
                404
            } else {
                200
            };
            assert_eq!(code, want, "{case}: {path}: {body}");
            same_folder(&before, &folder_bytes(&dir), &format!("{case}: GET {path}"));
        }
        if !gone.contains(&"pactum.db-wal") {
            // What the killed run committed to its log is shown, and the
            // run is not said to be running: its writer is gone.
            let (_, _, list) = v.get("/");
            assert!(
                list.contains(&format!("href=\"/runs/{id}\"")),
                "{case}: {list}"
            );
            assert!(list.contains("stopped"), "{case}: {list}");
            // Filtered by the status shown: stopped, never running.
            let (_, _, stopped) = v.get("/?status=stopped");
            assert!(
                stopped.contains(&format!("href=\"/runs/{id}\"")),
                "{case}: {stopped}"
            );
            let (_, _, running) = v.get("/?status=running");
            assert!(
                !running.contains(&format!("href=\"/runs/{id}\"")),
                "{case}: {running}"
            );
            // The diff page says so too.
            let (code, _, diff) = v.get(&format!("/diff?a={id}&b={id}"));
            assert_eq!(code, 200, "{case}: {diff}");
            assert!(diff.contains(">stopped<"), "{case}: {diff}");
            assert!(!diff.contains(">running<"), "{case}: {diff}");
            let (_, _, page) = v.get(&format!("/runs/{id}"));
            assert!(!page.contains("is being run right now"), "{case}: {page}");
            assert!(page.contains("its writer is gone"), "{case}: {page}");
            assert!(page.contains("--resume"), "{case}: {page}");
        }
        assert_eq!(v.stop(), 0, "{case}");
        same_folder(&before, &folder_bytes(&dir), &format!("{case}: stopping"));
        // `pactum runs` and `pactum show` write nothing either.
        let r = s
            .sandbox
            .pactum(["runs".as_ref(), "--db".as_ref(), s.db().as_os_str()]);
        assert_eq!(r.code, 0, "{case}: {r:#?}");
        same_folder(
            &before,
            &folder_bytes(&dir),
            &format!("{case}: pactum runs"),
        );
        let r = s.sandbox.pactum([
            "show".as_ref(),
            s.run1.as_ref(),
            "--db".as_ref(),
            s.db().as_os_str(),
        ]);
        assert_ne!(r.code, 2, "{case}: {r:#?}");
        same_folder(
            &before,
            &folder_bytes(&dir),
            &format!("{case}: pactum show"),
        );
        if !gone.contains(&"pactum.db-wal") {
            let r = s.sandbox.pactum([
                "show".as_ref(),
                id.as_ref(),
                "--db".as_ref(),
                s.db().as_os_str(),
            ]);
            assert!(r.stdout.contains("its writer is gone"), "{case}: {r:#?}");
            assert!(!r.stdout.contains("being run right now"), "{case}: {r:#?}");
            same_folder(
                &before,
                &folder_bytes(&dir),
                &format!("{case}: pactum show {id}"),
            );
        }
    }
}

#[test]
fn runs_and_show_leave_a_closed_store_byte_identical() {
    let s = Store3::fresh();
    let dir = s.db().parent().expect("store folder").to_path_buf();
    let before = folder_bytes(&dir);
    assert_eq!(before.keys().collect::<Vec<_>>(), ["pactum.db"]);
    let r = s
        .sandbox
        .pactum(["runs".as_ref(), "--db".as_ref(), s.db().as_os_str()]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert!(r.stdout.contains(&s.run1), "{r:#?}");
    same_folder(&before, &folder_bytes(&dir), "pactum runs");
    let r = s.sandbox.pactum([
        "show".as_ref(),
        s.run2.as_ref(),
        "--db".as_ref(),
        s.db().as_os_str(),
    ]);
    assert_eq!(r.code, 1, "flip fails in run2: {r:#?}");
    same_folder(&before, &folder_bytes(&dir), "pactum show");
}

#[test]
fn a_store_that_cannot_be_read_is_refused_with_the_exit_code() {
    let sb = Sandbox::new();
    let missing = sb.path().join("nothing/pactum.db");
    let run = sb.pactum([
        "view".as_ref(),
        "--db".as_ref(),
        missing.as_os_str(),
        "--port".as_ref(),
        "0".as_ref(),
    ]);
    assert_eq!(run.code, 2, "{run:#?}");
    assert!(run.stderr.contains("nothing/pactum.db"), "{run:#?}");
    assert!(
        !missing.parent().expect("parent").exists(),
        "nothing created"
    );
    let text = sb.write("notes.db", "these are notes, not a store\n");
    let run = sb.pactum([
        "view".as_ref(),
        "--db".as_ref(),
        text.as_os_str(),
        "--port".as_ref(),
        "0".as_ref(),
    ]);
    assert_eq!(run.code, 6, "{run:#?}");
    assert!(run.stderr.contains("notes.db"), "{run:#?}");
    assert_eq!(
        std::fs::read_dir(sb.path()).expect("list").count(),
        1,
        "no -wal or -shm beside a refused file"
    );
    let run = sb.pactum([
        "view".as_ref(),
        "--db".as_ref(),
        sb.path().as_os_str(),
        "--port".as_ref(),
        "0".as_ref(),
    ]);
    assert_eq!(run.code, 2, "{run:#?}");
}

#[test]
fn a_store_another_process_holds_locked_is_served_as_last_committed() {
    let s = Store3::fresh();
    // Another process's exclusive lock, as a writer in exclusive mode
    // holds, in the middle of a transaction: its log is beside the store.
    let holder = rusqlite::Connection::open(s.db()).expect("open");
    holder
        .pragma_update(None, "locking_mode", "exclusive")
        .expect("exclusive");
    holder
        .execute_batch("BEGIN EXCLUSIVE; UPDATE runs SET status = 'interrupted';")
        .expect("hold the lock");
    let dir = s.db().parent().expect("store folder").to_path_buf();
    let before = folder_bytes(&dir);
    assert!(before.contains_key("pactum.db-wal"), "the holder's log");
    let v = s.serve();
    let (code, _, body) = v.get("/");
    assert_eq!(code, 200, "{body}");
    assert_eq!(body.matches("class=\"run-link\"").count(), 3, "{body}");
    let (_, _, body) = v.get("/?status=interrupted");
    assert_eq!(
        body.matches("class=\"run-link\"").count(),
        0,
        "the uncommitted change is not read: {body}"
    );
    assert_eq!(v.stop(), 0);
    same_folder(&before, &folder_bytes(&dir), "serving a locked store");
    drop(holder);
}

#[test]
fn a_taken_port_is_a_usage_error_and_bind_warns() {
    let s = Store3::get();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = taken.local_addr().expect("its address").port().to_string();
    let db = s.db();
    let run = s.sandbox.pactum([
        "view".as_ref(),
        "--db".as_ref(),
        db.as_os_str(),
        "--port".as_ref(),
        port.as_ref(),
    ]);
    assert_eq!(run.code, 2, "{run:#?}");
    assert!(
        run.stderr.contains("cannot listen on 127.0.0.1:"),
        "{run:#?}"
    );
    let v = s.serve_with(&["--bind", "0.0.0.0"]);
    assert!(
        v.stderr_line
            .contains("warning: listening on 0.0.0.0, not on loopback"),
        "{}",
        v.stderr_line
    );
    // Bound to every address, it still answers on loopback.
    assert_eq!(v.get("/").0, 200);
    v.stop();
}

/// The same files, each with the same bytes.
fn same_folder(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>, when: &str) {
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>(),
        "the store's folder lists other files after {when}"
    );
    for (name, bytes) in before {
        assert!(after[name] == *bytes, "{name} changed after {when}");
    }
}

/// Every file in `dir` (not recursive) with its bytes.
fn folder_bytes(dir: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .expect("list the folder")
        .map(|e| {
            let e = e.expect("an entry");
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("read"),
            )
        })
        .collect()
}

#[test]
fn runs_and_show_refuse_a_store_too_old_to_read_and_do_not_upgrade_it() {
    let sb = Sandbox::new();
    let dir = sb.path().join("old");
    std::fs::create_dir(&dir).expect("a folder");
    let db = dir.join("pactum.db");
    {
        // A store as pactum with schema version 1 left it.
        let conn = rusqlite::Connection::open(&db).expect("open");
        conn.execute_batch(include_str!(
            "../../../pactum-store/tests/fixtures/schema_v1.sql"
        ))
        .expect("v1 schema");
        conn.pragma_update(None, "user_version", 1)
            .expect("version");
        conn.pragma_update(None, "application_id", pactum_store::APPLICATION_ID)
            .expect("app id");
    }
    let before = folder_bytes(&dir);
    for args in [&["runs"][..], &["show", "r2026"][..]] {
        let mut all: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        all.extend(["--db".as_ref(), db.as_os_str()]);
        let r = sb.pactum(all);
        assert_eq!(r.code, 6, "{args:?}: {r:#?}");
        assert!(r.stderr.contains("never upgrade"), "{args:?}: {r:#?}");
        assert!(r.stderr.contains("pactum.db"), "{args:?}: {r:#?}");
        same_folder(&before, &folder_bytes(&dir), &format!("{args:?}"));
    }
}
