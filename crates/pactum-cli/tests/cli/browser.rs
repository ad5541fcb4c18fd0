//! The HTML report in a real browser: Debian's `chromium`, headless,
//! `--dump-dom` (the DOM after the page's script ran) with the browser's
//! console on stderr.
//!
//! Ignored by `cargo test` (the README's test command needs nothing beside
//! the repository, and a browser is a system package); run by
//! `bash .ci/browser` (called by `.ci/run`), which installs `chromium`
//! when it is missing. A missing browser is a failure, never a skip: each
//! test panics with the install command.

use std::path::Path;
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

/// Opens `page` (a file, with `fragment` after `#`) headless, with no
/// network: the page must not need any.
fn load(page: &Path, fragment: &str) -> Loaded {
    let url = format!("file://{}{fragment}", page.display());
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
        .arg(&url)
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

/// `data-status` of every trace, in page order.
fn statuses_in_order(dom: &str) -> Vec<String> {
    dom.match_indices("<details class=\"trace\"")
        .map(|(i, _)| {
            let tag = &dom[i..i + dom[i..].find('>').expect("tag end")];
            let at = tag.find("data-status=\"").expect("status") + 13;
            tag[at..at + tag[at..].find('"').expect("quote")].to_string()
        })
        .collect()
}

#[test]
#[ignore = "browser: bash .ci/browser"]
fn browser_the_example_report_loads_clean_with_failures_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let html = dir.path().join("report.html");
    let run = pactum([
        "grade".as_ref(),
        "-c".as_ref(),
        EX_CONTRACTS.as_ref(),
        EX_TRACES.as_ref(),
        "--observability".as_ref(),
        "tool_calls".as_ref(),
        "--expect".as_ref(),
        EX_EXPECT.as_ref(),
        "--html".as_ref(),
        html.as_os_str(),
    ]);
    assert_code(&run, 1);
    // Opened on the first trace: the script opens it.
    let page = load(&html, "#t3");
    assert_eq!(
        page.console,
        Vec::<String>::new(),
        "no console line: no error, no blocked load"
    );
    let root = root_tag(&page.dom);
    assert!(
        root.contains("data-pactum-ready=\"24\""),
        "the page script ran: {root}"
    );
    let order = statuses_in_order(&page.dom);
    assert_eq!(order.len(), 24);
    assert!(order[..7].iter().all(|s| s == "fail"), "{order:?}");
    assert_eq!(order[7], "undetermined");
    assert!(order[8..].iter().all(|s| s == "pass"));
    // The failing trace opened by the link shows the highlighted tool call.
    let at = page
        .dom
        .find("<details class=\"trace\" id=\"t3\"")
        .expect("trace t3");
    let block = &page.dom[at..at + page.dom[at..].find("</details>").expect("its end")];
    assert!(
        block.starts_with(
            "<details class=\"trace\" id=\"t3\" data-index=\"3\" data-status=\"fail\" open=\"\">"
        ),
        "{}",
        &block[..120]
    );
    assert!(block.contains("<code class=\"tool\">send_money</code>"));
    assert!(block.contains("<mark>{\n  \"recipient\": \"US133000000121212121212\""));
    // The conversation beside the clauses: the send_money call is marked
    // with the clause it broke, and each links to the other.
    assert!(block.contains("<section class=\"conversation\">"));
    let call = block
        .find("<div class=\"msg call cited\" id=\"t3-call")
        .expect("the cited call in the conversation");
    let call = &block[call..call + block[call..].find("</div>").expect("its end")];
    assert!(
        call.contains("<code class=\"tool\">send_money</code>"),
        "{call}"
    );
    assert!(call.contains("data-goto=\"t3-c0-"), "{call}");
    assert!(call.contains("pay-attacker</span>"), "{call}");
    assert!(block.contains("<div class=\"evidence tool_call\" data-goto=\"t3-call"));
    // The filters are shown once the script runs.
    assert!(
        page.dom.contains("<div id=\"filters\" class=\"filters\">"),
        "filters visible"
    );
}

#[test]
#[ignore = "browser: bash .ci/browser"]
fn browser_script_injections_in_a_trace_never_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let name = "\"><img src=x onerror=document.documentElement.setAttribute('data-'+'pwned','file')>.jsonl";
    let traces = dir.path().join(name);
    std::fs::copy(root().join(fx("traces/hostile-html.jsonl")), &traces).expect("copy");
    let html = dir.path().join("report.html");
    let run = pactum([
        "grade".as_ref(),
        "-c".as_ref(),
        fx("contracts/shop.yaml").as_ref(),
        traces.as_os_str(),
        "--html".as_ref(),
        html.as_os_str(),
    ]);
    assert_code(&run, 1);
    let page = load(&html, "#t1");
    // The sentinel: every payload would set data-pwned on the root.
    let root = root_tag(&page.dom);
    assert!(!root.contains("pwned"), "an injection ran: {root}");
    assert!(
        root.contains("data-pactum-ready=\"3\""),
        "the page script ran: {root}"
    );
    // No payload even tried: a blocked script or load would be logged.
    assert_eq!(page.console, Vec::<String>::new());
    assert_eq!(
        statuses_in_order(&page.dom),
        ["fail", "undetermined", "pass"]
    );
    // Only pactum's two scripts are in the DOM.
    assert_eq!(page.dom.matches("<script").count(), 2);
    assert!(!page.dom.contains("<img") && !page.dom.contains("<svg") && !page.dom.contains("<a "));
}

#[test]
#[ignore = "browser: bash .ci/browser"]
fn browser_the_strength_chart_shows_the_measured_numbers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, html) = (dir.path().join("out"), dir.path().join("strength.html"));
    let args = |extra: &[&std::ffi::OsStr]| {
        let mut a: Vec<&std::ffi::OsStr> = [
            "strength",
            "-c",
            "examples/strength/contracts/tool-call.yaml",
            "-c",
            "examples/strength/contracts/text-only.yaml",
            "--policy",
            "examples/strength/policy.yaml",
            "--observability",
            "tool_calls",
            "examples/strength/traces.jsonl",
            "--out",
        ]
        .iter()
        .map(|s| s.as_ref())
        .collect();
        a.push(out.as_os_str());
        a.extend_from_slice(extra);
        pactum(a)
    };
    let json = args(&["--json".as_ref()]);
    let summary: serde_json::Value = serde_json::from_str(&json.stdout).expect("summary");
    let run = args(&["--html".as_ref(), html.as_os_str()]);
    assert_eq!(run.code, json.code, "{run:#?}");
    let page = load(&html, "");
    assert_eq!(page.console, Vec::<String>::new());
    // Each contract's chart, in the DOM the browser built, reads the
    // numbers of the summary `--json` printed.
    let mut charts = page.dom.split("<svg class=\"chart\"").skip(1);
    for c in summary["contracts"].as_array().expect("contracts") {
        let chart = charts.next().expect("a chart per contract");
        let chart = &chart[..chart.find("</svg>").expect("its end")];
        for (class, rate) in c["strength"].as_object().expect("vector") {
            let label = match rate["rate"].as_f64() {
                Some(r) => format!("{}/{} caught ({r:.2})", rate["caught"], rate["exercised"]),
                None => "not measured (0 exercised)".to_string(),
            };
            assert!(chart.contains(&label), "{class}: {label} in {chart}");
        }
    }
}

#[test]
#[ignore = "browser: bash .ci/browser"]
fn browser_a_large_page_lists_traces_by_pages_and_draws_one_on_demand() {
    let dir = tempfile::tempdir().expect("tempdir");
    let traces = dir.path().join("many.jsonl");
    // 2,100 hostile traces: 210 fail, so failures beyond the first 200
    // are drawn by the script from the embedded data.
    crate::html::many_traces(&traces, 2100, true);
    let html = dir.path().join("report.html");
    let run = pactum([
        "grade".as_ref(),
        "-c".as_ref(),
        fx("contracts/shop.yaml").as_ref(),
        traces.as_os_str(),
        "--html".as_ref(),
        html.as_os_str(),
    ]);
    assert_code(&run, 1);
    // Trace 2093 is the 210th failure: third page, drawn on demand.
    let page = load(&html, "#t2093");
    let root = root_tag(&page.dom);
    assert!(!root.contains("pwned"), "an injection ran: {root}");
    assert!(root.contains("data-pactum-ready=\"2100\""), "{root}");
    assert_eq!(page.console, Vec::<String>::new());
    assert_eq!(page.dom.matches("<script").count(), 3);
    assert!(!page.dom.contains("<img") && !page.dom.contains("<svg") && !page.dom.contains("<a "));
    assert!(page.dom.contains("<span> page 3 of 21 </span>"));
    let order = statuses_in_order(&page.dom);
    assert_eq!(order.len(), 100, "one page");
    assert!(order[..10].iter().all(|s| s == "fail") && order[10..].iter().all(|s| s == "pass"));
    let at = page
        .dom
        .find("<details class=\"trace\" id=\"t2093\"")
        .expect("trace t2093");
    let block = &page.dom[at..at + page.dom[at..].find("</details>").expect("its end")];
    assert!(
        block.contains("data-status=\"fail\" open=\"\""),
        "{}",
        &block[..200]
    );
    assert!(block.contains("<code class=\"tool\">delete_account</code>"));
    assert!(
        block.contains("<mark>{\n  \"customer\": \"c-2093\","),
        "{block}"
    );
    assert!(block.contains("<span class=\"ctl\">U+2028</span>"));
    assert!(block.contains("<tr class=\"broken\" id=\"t2093-c0-1\"><td class=\"mark\">✗</td>"));
    // The conversation beside it, drawn from the transcript: the call that
    // broke the clause is marked and names it; the evidence points back.
    assert!(
        block.contains("<section class=\"conversation\">"),
        "{block}"
    );
    assert!(block.contains("<div class=\"msg call cited\" id=\"t2093-call0\">"));
    assert!(block
        .contains("<span class=\"cite broken\" data-goto=\"t2093-c0-1\">✗ delete-account</span>"));
    assert!(block.contains("<div class=\"evidence tool_call\" data-goto=\"t2093-call0\">"));
    assert!(block.contains("<div class=\"msg user\"><span class=\"role\">user</span><pre>Where is order 2093?</pre></div>"));
}
