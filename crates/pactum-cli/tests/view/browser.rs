//! `pactum view` in a real browser: Debian's `chromium`, headless,
//! `--dump-dom` (the DOM after the page's script ran, if any) with the
//! browser's console on stderr. Ignored by `cargo test`; run by `bash
//! .ci/browser`. A missing browser is a failure, never a skip.

use std::process::Command;

use crate::support::*;

/// The browser: `$PACTUM_CHROMIUM`, else `chromium` on the `PATH`.
fn chromium() -> String {
    let bin = std::env::var("PACTUM_CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let found = Command::new(&bin)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "no browser: `{bin} --version` failed. Install Debian's chromium \
         (`sudo apt-get install -y chromium`, or `bash .ci/browser`, which does it), \
         or set PACTUM_CHROMIUM to a Chromium binary"
    );
    bin
}

/// What the browser made of a page: the DOM after load, and every line
/// the page wrote to the console (CSP violations, errors, logs).
struct Loaded {
    dom: String,
    console: Vec<String>,
}

/// Opens `url` headless. Only the server on loopback is reachable: every
/// other load goes to a proxy that is not there.
fn load(url: &str) -> Loaded {
    let profile = tempfile::tempdir().expect("a profile folder");
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--proxy-server=127.0.0.1:9",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=2000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .expect("the browser runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the browser failed: {stderr}");
    Loaded {
        dom: String::from_utf8(out.stdout).expect("the DOM is UTF-8"),
        console: stderr
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_string)
            .collect(),
    }
}

/// The root element's start tag in the DOM after load.
fn root_tag(dom: &str) -> &str {
    let at = dom.find("<html").expect("the root element");
    &dom[at..at + dom[at..].find('>').expect("its end")]
}

#[test]
#[ignore = "browser: bash .ci/browser"]
fn browser_the_run_list_a_report_and_a_diff_load_and_no_injection_runs() {
    let s = Store3::get();
    let v = s.serve();
    let base = format!("http://127.0.0.1:{}", v.port);

    let list = load(&format!("{base}/"));
    assert!(
        !root_tag(&list.dom).contains("pwned"),
        "{}",
        root_tag(&list.dom)
    );
    assert_eq!(list.console, Vec::<String>::new(), "no console line");
    assert_eq!(
        list.dom.matches("class=\"run-link\"").count(),
        3,
        "{}",
        list.dom
    );
    assert!(!list.dom.contains("<img"), "{}", list.dom);
    assert!(!list.dom.contains("<script"), "our pages have no script");

    // The report: its script ran (under the server's CSP as well as the
    // page's own), and the response's and the test id's injections did not.
    let report = load(&format!("{base}/runs/{}", s.run3));
    let root = root_tag(&report.dom);
    assert!(!root.contains("pwned"), "an injection ran: {root}");
    assert!(
        root.contains("data-pactum-ready=\"2\""),
        "the page script ran: {root}"
    );
    assert_eq!(report.console, Vec::<String>::new(), "no console line");
    assert!(
        report.dom.contains("PWNED"),
        "the sentinel is shown as text"
    );
    assert_eq!(
        report.dom.matches("<script").count(),
        2,
        "only the page's two scripts"
    );
    assert!(!report.dom.contains("<img"));

    let diff = load(&format!("{base}/diff?a={}&b={}", s.run1, s.run2));
    assert!(!root_tag(&diff.dom).contains("pwned"));
    assert_eq!(diff.console, Vec::<String>::new(), "no console line");
    assert!(
        diff.dom
            .contains("<span id=\"changed-count\">1</span> changed"),
        "{}",
        diff.dom
    );
    assert!(!diff.dom.contains("<img"));

    // The refused diff is a page too, as inert.
    let refused = load(&format!("{base}/diff?a={}&b={}", s.run1, s.run3));
    assert!(
        refused.dom.contains("409 Runs of different suites"),
        "{}",
        refused.dom
    );
    assert!(!root_tag(&refused.dom).contains("pwned"));
    assert!(!refused.dom.contains("<img"));
    v.stop();
}
