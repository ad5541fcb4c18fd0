//! Untrusted text (SPEC §4): a trace whose id, response, tool arguments and
//! tool result carry terminal escape sequences, a carriage return and a bidi
//! override. Nothing of it reaches the terminal; the JUnit XML stays
//! well-formed; the JSON report keeps the text verbatim.

use crate::support::*;

#[test]
fn escape_sequences_never_reach_the_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (json, junit) = (dir.path().join("r.json"), dir.path().join("j.xml"));
    let run = pactum([
        "grade".as_ref(),
        "-c".as_ref(),
        fx("contracts/shop.yaml").as_ref(),
        fx("traces/untrusted.jsonl").as_ref(),
        "--verbose".as_ref(),
        "--json".as_ref(),
        json.as_os_str(),
        "--junit".as_ref(),
        junit.as_os_str(),
    ]);
    // Caught: the response leaks the password and the call deletes the account.
    assert_code(&run, 1);
    assert!(!run.stdout.contains('\u{1b}'), "no ESC byte");
    assert!(!run.stdout.contains('\r'), "no carriage return");
    assert_terminal_safe("stdout", &run.stdout);
    assert_terminal_safe("stderr", &run.stderr);
    // The verdicts are still there, with the visible text around the escapes.
    assert!(
        run.stdout.contains("FAIL  evil-red-1  [shop]"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("✗ leak-password"), "{}", run.stdout);
    assert!(run.stdout.contains("✗ delete-account"), "{}", run.stdout);
    assert!(run.stdout.contains("hunter2"), "{}", run.stdout);
    settings().bind(|| insta::assert_snapshot!("untrusted_terminal", run.stdout));

    let xml = std::fs::read_to_string(&junit).expect("JUnit report");
    assert!(!xml.contains('\u{1b}') && !xml.contains('\u{7}'), "{xml:?}");
    let doc = parse_junit(&xml);
    assert_junit_counts_consistent(&doc);
    let case = &doc.suites[0].cases[0];
    assert_eq!(case.name, "evil-red-1");
    assert_eq!(case.failure.as_deref(), Some("fail"));

    // The JSON report keeps what the trace held, verbatim (escaped as JSON).
    let report = read_report(&json);
    let r = &report["results"][0];
    assert_eq!(r["trace_id"], "evil-\u{1b}[1;31mred\u{1b}[0m-1");
    let quote = r["contracts"][0]["clauses"][0]["evidence"][0]["text"]
        .as_str()
        .expect("the quoted response");
    assert!(
        quote.contains("\u{1b}]0;pwned\u{7}") && quote.contains('\r') && quote.contains('\u{202e}'),
        "{quote:?}"
    );
    let text = std::fs::read_to_string(&json).expect("JSON report");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "escaped in the file"
    );
}

#[test]
fn escape_sequences_in_a_bad_record_never_reach_the_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("hostile.jsonl"),
        "{\"id\":\"ok\",\"observability\":\"tool_calls\",\"turns\":[{\"input\":[],\"response\":\"fine\",\"tool_calls\":[]}]}\n\
         \u{1b}]0;owned\u{7}\u{1b}[2J\r\u{202e}not json\n",
    )
    .expect("write");
    let contract = root().join(fx("contracts/shop.yaml"));
    let run = pactum_in(
        dir.path(),
        [
            "grade".as_ref(),
            "-c".as_ref(),
            contract.as_os_str(),
            "hostile.jsonl".as_ref(),
        ],
    );
    assert_code(&run, 5);
    assert!(run.stdout.contains("  hostile.jsonl:2: "), "{}", run.stdout);
    assert_terminal_safe("stdout", &run.stdout);
    assert_terminal_safe("stderr", &run.stderr);
}
