//! `--html` and `--markdown`: rendered from the JSON report's own document
//! (the page embeds it, byte for byte the same values), failures first,
//! deterministic, and hostile trace text stays text (SPEC §4). The same
//! pages in a real browser: `browser.rs`.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::support::*;

/// `grade` of `traces` against `contract` with extra flags.
fn grade(contract: &str, traces: &str, extra: &[&std::ffi::OsStr]) -> Run {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "grade".as_ref(),
        "-c".as_ref(),
        contract.as_ref(),
        traces.as_ref(),
        "--observability".as_ref(),
        "tool_calls".as_ref(),
    ];
    args.extend_from_slice(extra);
    pactum(args)
}

/// The page's document without the `transcript` of each result: the
/// `--json` report.
pub fn without_transcripts(doc: &Value) -> Value {
    let mut doc = doc.clone();
    for r in doc["results"].as_array_mut().expect("results") {
        r.as_object_mut().expect("a result").remove("transcript");
    }
    doc
}

/// The text of the page's `<script type="application/json">` element.
pub fn data_block(html: &str) -> &str {
    let open = "<script type=\"application/json\" id=\"pactum-report\">";
    let start = html.find(open).expect("the data element") + open.len();
    let len = html[start..].find("</script>").expect("its end");
    &html[start..start + len]
}

/// Every start tag of the page: (name, attribute names). The page's own
/// markup is the only markup: untrusted text is escaped, so a `<` followed
/// by a letter is always pactum's.
pub fn tags(html: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut rest = html;
    // Skip the data element's content and the script's: neither is markup.
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if name.is_empty() {
            continue;
        }
        let end = rest.find('>').expect("a closed tag");
        let inside = &rest[name.len()..end];
        let mut attrs = Vec::new();
        let mut chars = inside.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_ascii_alphabetic() {
                let mut a = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '-' {
                        a.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                attrs.push(a);
                if chars.peek() == Some(&'=') {
                    chars.next();
                    assert_eq!(
                        chars.next(),
                        Some('"'),
                        "quoted attribute in <{name}{inside}>"
                    );
                    for v in chars.by_ref() {
                        if v == '"' {
                            break;
                        }
                    }
                }
            }
        }
        out.push((name.to_ascii_lowercase(), attrs));
        rest = &rest[end..];
        if out
            .last()
            .is_some_and(|(n, _)| n == "script" || n == "style")
        {
            let close = rest.find("</").expect("the element's end");
            rest = &rest[close + 1..];
        }
    }
    out
}

/// The page's markup is only pactum's: known elements, known attributes,
/// exactly two scripts (the data block, then the page script; three with
/// the rows block of a large run), no link, no source, no handler.
fn assert_only_pactum_markup(html: &str) {
    assert_only_pactum_markup_with(html, 2);
}

fn assert_only_pactum_markup_with(html: &str, scripts_expected: usize) {
    let elements: BTreeSet<&str> = [
        "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "h4", "p",
        "span", "strong", "code", "main", "section", "table", "caption", "thead", "tbody", "tr",
        "th", "td", "ul", "li", "div", "label", "select", "option", "input", "details", "summary",
        "dl", "dt", "dd", "pre", "mark", "footer", "script",
    ]
    .into();
    let attributes: BTreeSet<&str> = [
        "lang",
        "charset",
        "http-equiv",
        "content",
        "name",
        "class",
        "id",
        "hidden",
        "type",
        "value",
        "autocomplete",
        "data-index",
        "data-status",
        "data-goto",
    ]
    .into();
    let tags = tags(html);
    for (name, attrs) in &tags {
        assert!(elements.contains(name.as_str()), "element <{name}>");
        for a in attrs {
            assert!(attributes.contains(a.as_str()), "attribute {a} on <{name}>");
        }
    }
    let scripts: Vec<&Vec<String>> = tags
        .iter()
        .filter(|(n, _)| n == "script")
        .map(|(_, a)| a)
        .collect();
    assert_eq!(
        scripts.len(),
        scripts_expected,
        "the data block(s) and the page script"
    );
    assert!(html.contains("<script type=\"application/json\" id=\"pactum-report\">"));
    let csp = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'sha256-";
    let head_end = html.find("</head>").expect("head");
    let csp_at = html.find(csp).expect("the CSP meta tag");
    let style_at = html.find("<style>").expect("style");
    assert!(
        csp_at < style_at && style_at < head_end,
        "the CSP comes first"
    );
}

#[test]
fn html_and_markdown_of_the_bundled_example_are_rendered_from_the_json_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (json, html, md) = (
        dir.path().join("r.json"),
        dir.path().join("r.html"),
        dir.path().join("r.md"),
    );
    let plain_json = dir.path().join("plain.json");
    let expect: &[&std::ffi::OsStr] = &["--expect".as_ref(), EX_EXPECT.as_ref()];
    let plain = grade(
        EX_CONTRACTS,
        EX_TRACES,
        &[expect, &["--json".as_ref(), plain_json.as_os_str()]].concat(),
    );
    let run = grade(
        EX_CONTRACTS,
        EX_TRACES,
        &[
            expect,
            &[
                "--json".as_ref(),
                json.as_os_str(),
                "--html".as_ref(),
                html.as_os_str(),
                "--markdown".as_ref(),
                md.as_os_str(),
            ],
        ]
        .concat(),
    );
    // Asking for the page changes nothing else: exit code, terminal, JSON.
    assert_code(&run, 1);
    assert_eq!(run.code, plain.code);
    assert_eq!(
        run.stdout, plain.stdout,
        "the terminal summary is unchanged"
    );
    assert_eq!(run.stderr, "");
    let json_text = std::fs::read_to_string(&json).expect("json");
    assert_eq!(
        json_text,
        std::fs::read_to_string(&plain_json).expect("json"),
        "the JSON report is unchanged"
    );

    let page = std::fs::read_to_string(&html).expect("html");
    let markdown = std::fs::read_to_string(&md).expect("markdown");
    // One source of truth: the page embeds the very document --json wrote,
    // each result with its trace (`transcript`) beside it.
    let embedded: Value = serde_json::from_str(data_block(&page)).expect("embedded JSON");
    let report: Value = serde_json::from_str(&json_text).expect("json");
    assert_eq!(without_transcripts(&embedded), report);
    for r in embedded["results"].as_array().expect("results") {
        assert_eq!(r["transcript"]["id"], r["trace_id"], "{r}");
        assert!(
            r["transcript"].get("metadata").is_none(),
            "no metadata copy"
        );
    }
    assert_only_pactum_markup(&page);

    // Failures first: FAIL, ERR, WARN, PASS, each group in input order.
    let rank = |s: &str| {
        ["fail", "error", "undetermined", "pass"]
            .iter()
            .position(|x| *x == s)
    };
    let listed: Vec<(usize, usize)> = page
        .match_indices("<details class=\"trace\" id=\"t")
        .map(|(i, _)| {
            let tag = &page[i..i + page[i..].find('>').expect("tag end")];
            let attr = |k: &str| {
                let at = tag.find(&format!("{k}=\"")).expect(k) + k.len() + 2;
                tag[at..at + tag[at..].find('"').expect("quote")].to_string()
            };
            (
                rank(&attr("data-status")).expect("a status"),
                attr("data-index").parse().expect("an index"),
            )
        })
        .collect();
    assert_eq!(listed.len(), 24, "every trace");
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(listed, sorted, "failures first, then input order");
    for (rank_of, index) in &listed {
        let status = report["results"][*index]["status"]
            .as_str()
            .expect("status");
        assert_eq!(rank(status), Some(*rank_of), "result {index}");
    }
    // The failing tool call is shown, highlighted, with its arguments.
    assert!(page.contains("<code class=\"tool\">send_money</code>"));
    assert!(page.contains("<mark>{\n  &quot;recipient&quot;: &quot;US133000000121212121212&quot;"));

    // Markdown: every failure with its deciding clause and evidence.
    assert!(markdown
        .starts_with("## pactum grade: 7 fail, 0 error, 1 undetermined, 16 pass (24 traces)\n"));
    assert_eq!(markdown.matches("\n| FAIL | ").count(), 7);
    assert_eq!(markdown.matches("\n| WARN | ").count(), 1);
    assert!(
        !markdown.contains("| PASS |"),
        "passes are counted, not listed"
    );
    assert!(markdown.len() <= pactum_report::MARKDOWN_BYTES);

    // Byte-identical from one run to the next.
    let again = dir.path().join("again.html");
    let again_md = dir.path().join("again.md");
    let rerun = grade(
        EX_CONTRACTS,
        EX_TRACES,
        &[
            expect,
            &[
                "--html".as_ref(),
                again.as_os_str(),
                "--markdown".as_ref(),
                again_md.as_os_str(),
            ],
        ]
        .concat(),
    );
    assert_code(&rerun, 1);
    assert_eq!(std::fs::read_to_string(&again).expect("html"), page);
    assert_eq!(std::fs::read_to_string(&again_md).expect("md"), markdown);

    settings().bind(|| {
        insta::assert_snapshot!("example_markdown", markdown);
        insta::assert_snapshot!("example_html", page);
    });
}

/// The hostile fixture, copied under a file name that is itself an
/// injection (the page shows file names).
fn hostile_copy(dir: &Path) -> String {
    let name = "\"><img src=x onerror=document.documentElement.setAttribute('data-'+'pwned','file')>.jsonl";
    let path = dir.join(name);
    std::fs::copy(root().join(fx("traces/hostile-html.jsonl")), &path).expect("copy");
    path.display().to_string()
}

#[test]
fn hostile_trace_text_stays_text_in_the_html_page_and_the_markdown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let traces = hostile_copy(dir.path());
    let (json, html, md) = (
        dir.path().join("r.json"),
        dir.path().join("r.html"),
        dir.path().join("r.md"),
    );
    let run = grade(
        &fx("contracts/shop.yaml"),
        &traces,
        &[
            "--json".as_ref(),
            json.as_os_str(),
            "--html".as_ref(),
            html.as_os_str(),
            "--markdown".as_ref(),
            md.as_os_str(),
        ],
    );
    // The injections do not change the verdict: the trace leaks and deletes.
    assert_code(&run, 1);
    let page = std::fs::read_to_string(&html).expect("html");
    assert_only_pactum_markup(&page);
    // No link at all, so none from a trace: the trace's `<a href=…>` is
    // text (the conversation shows it), never an attribute.
    assert!(tags(&page)
        .iter()
        .all(|(n, a)| n != "a" && !a.iter().any(|a| a == "href" || a == "src")));
    assert!(page.contains("&lt;a href=&quot;javascript:"));
    assert!(!page.contains("<img") && !page.contains("<svg") && !page.contains("<a "));
    // What the trace said is there, as text.
    assert!(page.contains("&lt;img src=x onerror=&quot;document.documentElement"));
    assert!(page.contains("&lt;&#x2f;script&gt;&lt;script&gt;"));
    assert!(page.contains("undetermined-&lt;b&gt;bold&lt;&#x2f;b&gt;"));
    // Invisible and direction-changing characters are shown.
    assert!(
        page.contains("<span class=\"ctl\">U+2028</span>"),
        "U+2028 shown"
    );
    assert!(!page.contains('\u{2028}') && !page.contains('\u{202e}'));
    // The data block reads back to the JSON report, and holds no markup.
    let block = data_block(&page);
    assert!(!block.contains(['<', '>', '&', '\u{2028}', '\u{2029}']));
    let embedded: Value = serde_json::from_str(block).expect("embedded JSON");
    assert_eq!(without_transcripts(&embedded), read_report(&json));
    // The failing trace comes first, before the clean one read first.
    let first = page.find("<details class=\"trace\"").expect("a trace");
    assert!(page[first..]
        .starts_with("<details class=\"trace\" id=\"t1\" data-index=\"1\" data-status=\"fail\">"));

    let markdown = std::fs::read_to_string(&md).expect("markdown");
    for line in markdown.lines().filter(|l| l.starts_with("| ")) {
        let unescaped_pipes = line
            .char_indices()
            .filter(|(i, c)| *c == '|' && (*i == 0 || line.as_bytes()[i - 1] != b'\\'))
            .count();
        assert_eq!(unescaped_pipes, 5, "four cells: {line}");
    }
    // Every table row is trace text: no character in it can start markup.
    for line in markdown.lines().filter(|l| l.starts_with("| ")) {
        for special in ['<', '>', '[', ']', '(', ')', '`', '!', '*', '_'] {
            for (i, _) in line.match_indices(special) {
                assert_eq!(
                    line.as_bytes()[i - 1],
                    b'\\',
                    "unescaped {special:?} in {line}"
                );
            }
        }
    }
    assert!(markdown.contains("| FAIL | \\<\\/script\\>\\<script\\>"));
}

#[test]
fn an_html_or_markdown_path_is_checked_like_every_report_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let traces = dir.path().join("t.jsonl");
    std::fs::copy(root().join(fx("traces/pass.jsonl")), &traces).expect("copy");
    let before = std::fs::read(&traces).expect("read");
    for flag in ["--html", "--markdown"] {
        let run = grade(
            &fx("contracts/shop.yaml"),
            &traces.display().to_string(),
            &[flag.as_ref(), traces.as_os_str()],
        );
        assert_code(&run, 2);
        assert!(
            run.stderr.contains("a report never overwrites an input"),
            "{}",
            run.stderr
        );
        assert_eq!(std::fs::read(&traces).expect("read"), before, "{flag}");
    }
    // Two reports on standard output are refused before anything runs.
    let run = grade(
        &fx("contracts/shop.yaml"),
        &traces.display().to_string(),
        &[
            "--html".as_ref(),
            "-".as_ref(),
            "--json".as_ref(),
            "-".as_ref(),
        ],
    );
    assert_code(&run, 2);
    assert!(
        run.stderr.contains("both write to standard output"),
        "{}",
        run.stderr
    );
    // The page and the summary on standard output replace the terminal.
    let run = grade(
        &fx("contracts/shop.yaml"),
        &traces.display().to_string(),
        &["--markdown".as_ref(), "-".as_ref()],
    );
    assert_code(&run, 0);
    assert!(
        run.stdout
            .starts_with("## pactum grade: 0 fail, 0 error, 0 undetermined, 2 pass (2 traces)\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Every test passed."));
    // The same report, whatever the spelling: the HTML report and the JSON
    // report may not be one file.
    let out = dir.path().join("r.out");
    let run = grade(
        &fx("contracts/shop.yaml"),
        &traces.display().to_string(),
        &[
            "--html".as_ref(),
            out.as_os_str(),
            "--json".as_ref(),
            out.as_os_str(),
        ],
    );
    assert_code(&run, 2);
    assert!(!out.exists(), "nothing was written");
}

#[test]
fn the_markdown_summary_is_bounded_and_says_what_it_left_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let traces = dir.path().join("many.jsonl");
    // 3,000 traces that each leak the password: every one fails.
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&format!(
            "{{\"id\": \"leak-{i}-{}\", \"observability\": \"tool_calls\", \"turns\": [{{\"input\": [{{\"role\": \"user\", \"content\": \"hi\"}}], \"response\": \"the password is hunter2\", \"tool_calls\": []}}]}}\n",
            "x".repeat(60)
        ));
    }
    std::fs::write(&traces, text).expect("write");
    let run = grade(
        &fx("contracts/shop.yaml"),
        &traces.display().to_string(),
        &["--markdown".as_ref(), "-".as_ref()],
    );
    assert_code(&run, 1);
    let md = &run.stdout;
    assert!(
        md.len() <= pactum_report::MARKDOWN_BYTES,
        "{} bytes",
        md.len()
    );
    let listed = md.matches("\n| FAIL | ").count();
    assert!(listed > 100, "{listed}");
    let closing = format!(
        "{} more test(s) that did not pass are not listed: this summary is bounded to 60000 bytes",
        3000 - listed
    );
    assert!(
        md.contains(&closing),
        "{}",
        &md[md.len().saturating_sub(400)..]
    );
    assert!(md.starts_with(
        "## pactum grade: 3000 fail, 0 error, 0 undetermined, 0 pass (3000 traces)\n"
    ));
}

#[test]
fn a_page_that_cannot_be_written_is_an_error_never_a_silent_success() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    for flag in ["--html", "--markdown"] {
        let run = grade(
            &fx("contracts/shop.yaml"),
            &fx("traces/pass.jsonl"),
            &[flag.as_ref(), "/dev/full".as_ref(), "-q".as_ref()],
        );
        // Every test passed, but a requested report is missing: partial.
        assert_code(&run, 5);
        assert!(
            run.stderr.contains("report: cannot write /dev/full"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn nothing_graded_or_a_partial_run_is_never_every_test_passed() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Nothing readable: nothing graded (exit 2), and the summary says so.
    let unreadable = dir.path().join("bad.jsonl");
    std::fs::write(&unreadable, "not json\n").expect("write");
    let run = grade(
        &fx("contracts/shop.yaml"),
        &unreadable.display().to_string(),
        &["--markdown".as_ref(), "-".as_ref()],
    );
    assert_code(&run, 2);
    assert!(
        run.stdout.contains("**Nothing was graded.**"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("Every test passed"), "{}", run.stdout);
    // Two passes and an unreadable line: partial (exit 5), not a clean pass.
    let partial = dir.path().join("partial.jsonl");
    let mut text = std::fs::read_to_string(root().join(fx("traces/pass.jsonl"))).expect("read");
    text.push_str("not json\n");
    std::fs::write(&partial, text).expect("write");
    let run = grade(
        &fx("contracts/shop.yaml"),
        &partial.display().to_string(),
        &["--markdown".as_ref(), "-".as_ref()],
    );
    assert_code(&run, 5);
    assert!(!run.stdout.contains("Every test passed."), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("Every graded test passed, but the run is partial"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("**The run is partial**"),
        "{}",
        run.stdout
    );
}

/// The payload every generated hostile trace carries in its id, response
/// and tool arguments: each part would set `data-pwned` on the root if it
/// ran.
pub const PAYLOAD: &str = "</script><script>document.documentElement.setAttribute('data-'+'pwned','gen')</script><img src=x onerror=\"document.documentElement.setAttribute('data-'+'pwned','img')\"> <!-- \u{2028} \u{202e}";

/// Writes `n` traces graded by the `shop` contract: trace `i` fails (it
/// calls `delete_account`) when `i % 10 == 3`, else passes; with
/// `hostile`, each carries [`PAYLOAD`] (as `bench/gen_html_traces.py`).
pub fn many_traces(path: &Path, n: usize, hostile: bool) {
    let extra = if hostile { PAYLOAD } else { "" };
    let mut out = String::new();
    for i in 0..n {
        let calls = if i % 10 == 3 {
            serde_json::json!([{"name": "delete_account", "arguments": {"customer": format!("c-{i}"), "why": extra}}])
        } else {
            serde_json::json!([])
        };
        let trace = serde_json::json!({
            "id": format!("t-{i}{extra}"),
            "observability": "tool_calls",
            "turns": [{"input": [{"role": "user", "content": format!("Where is order {i}?")}],
                       "response": format!("Order {i} is on its way.{extra}"),
                       "tool_calls": calls}]
        });
        out.push_str(&trace.to_string());
        out.push('\n');
    }
    std::fs::write(path, out).expect("write the traces");
}

/// The text of the rows block of a large run's page.
fn rows_block(html: &str) -> Option<&str> {
    let open = "<script type=\"application/json\" id=\"pactum-rows\">";
    let start = html.find(open)? + open.len();
    let len = html[start..].find("</script>").expect("its end");
    Some(&html[start..start + len])
}

#[test]
fn a_large_run_renders_its_first_traces_failures_first_and_lists_every_trace() {
    let dir = tempfile::tempdir().expect("tempdir");
    let traces = dir.path().join("many.jsonl");
    // 450 traces: 45 fail, 405 pass; the page renders 200 of them.
    many_traces(&traces, 450, true);
    let (json, html) = (dir.path().join("r.json"), dir.path().join("r.html"));
    let run = grade(
        &fx("contracts/shop.yaml"),
        &traces.display().to_string(),
        &[
            "--json".as_ref(),
            json.as_os_str(),
            "--html".as_ref(),
            html.as_os_str(),
        ],
    );
    assert_code(&run, 1);
    let page = std::fs::read_to_string(&html).expect("html");
    assert_only_pactum_markup_with(&page, 3);
    assert!(!page.contains("<img") && !page.contains('\u{2028}'));
    // Without a script: the first 200, every failure before any pass, and
    // a note saying how many more the data holds.
    let statuses: Vec<&str> = page
        .match_indices("<details class=\"trace\"")
        .map(|(i, _)| {
            let tag = &page[i..i + page[i..].find('>').expect("tag end")];
            let at = tag.find("data-status=\"").expect("status") + 13;
            &tag[at..at + tag[at..].find('"').expect("quote")]
        })
        .collect();
    assert_eq!(statuses.len(), 200);
    assert!(statuses[..45].iter().all(|s| *s == "fail"), "{statuses:?}");
    assert!(statuses[45..].iter().all(|s| *s == "pass"));
    assert!(page.contains("The first 200 traces are shown above (failures first); 250 more"));
    // The rows block: every result, failures first, input order within a
    // status, each with its label and one mark per clause; no markup in it.
    let rows = rows_block(&page).expect("the rows block");
    assert!(!rows.contains(['<', '>', '&', '\u{2028}', '\u{2029}']));
    let rows: Vec<Value> = serde_json::from_str(rows).expect("rows JSON");
    let report = read_report(&json);
    let results = report["results"].as_array().expect("results");
    let mut expected: Vec<usize> = (0..450).filter(|i| i % 10 == 3).collect();
    expected.extend((0..450).filter(|i| i % 10 != 3));
    let order: Vec<usize> = rows
        .iter()
        .map(|r| r[0].as_u64().expect("index") as usize)
        .collect();
    assert_eq!(order, expected);
    for row in &rows {
        let r = &results[row[0].as_u64().expect("index") as usize];
        let fail = r["status"] == "fail";
        assert_eq!(row[2], if fail { "FAIL" } else { "PASS" });
        assert_eq!(
            row[3], "side_effects",
            "the channel tool_calls does not observe"
        );
        let marks = row[4].as_array().expect("marks");
        assert_eq!(marks.len(), 2, "one per clause");
        assert_eq!(marks[1][0], if fail { "✗" } else { "✓" });
        if fail {
            assert!(
                row[1]
                    .as_str()
                    .expect("decided")
                    .starts_with("violated delete-account (high)"),
                "{row}"
            );
        }
    }
    // The data block is still the JSON report.
    let embedded: Value = serde_json::from_str(data_block(&page)).expect("embedded");
    assert_eq!(without_transcripts(&embedded), report);
}

#[test]
fn a_run_of_at_most_200_traces_is_rendered_whole_without_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (n, rows) in [(200, false), (201, true)] {
        let traces = dir.path().join(format!("t{n}.jsonl"));
        many_traces(&traces, n, false);
        let html = dir.path().join(format!("r{n}.html"));
        let run = grade(
            &fx("contracts/shop.yaml"),
            &traces.display().to_string(),
            &["--html".as_ref(), html.as_os_str()],
        );
        assert_code(&run, 1);
        let page = std::fs::read_to_string(&html).expect("html");
        assert_eq!(page.matches("<details class=\"trace\"").count(), 200, "{n}");
        assert_eq!(rows_block(&page).is_some(), rows, "{n}");
        assert_eq!(page.contains("id=\"more\""), rows, "{n}");
    }
}
