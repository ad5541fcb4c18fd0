//! Shared helpers: spawning the real binary from the workspace root, the
//! no-panic guard every run goes through, snapshot filters, and read-back
//! checks of the JSON and JUnit reports.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// The workspace root: every command runs there, so the paths in outputs are
/// the relative paths the tests pass (stable in snapshots).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// A fixture path relative to the workspace root, as a user would type it.
pub fn fx(rel: &str) -> String {
    format!("crates/pactum-cli/tests/fixtures/{rel}")
}

/// The bundled example, relative to the workspace root.
pub const EX_CONTRACTS: &str = "examples/agentdojo/contracts";
pub const EX_TRACES: &str = "examples/agentdojo/traces.jsonl";
pub const EX_EXPECT: &str = "examples/agentdojo/expectations.yaml";

/// What one run of `pactum` produced.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout then stderr, for messages that may go to either.
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// Runs `pactum ARGS` from the workspace root, colour off, and checks it did
/// not panic (exit 101 or a "panicked" message): no input may crash it.
pub fn pactum<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    pactum_in(&root(), args)
}

/// As [`pactum`], from another folder.
pub fn pactum_in<I, S>(dir: &Path, args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = Command::cargo_bin("pactum")
        .expect("the pactum binary is built")
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("pactum runs");
    let run = Run {
        code: out
            .status
            .code()
            .expect("pactum exited, not killed by a signal"),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    };
    assert_ne!(run.code, 101, "pactum panicked: {run:#?}");
    assert!(
        !run.stderr.contains("panicked"),
        "pactum panicked: {}",
        run.stderr
    );
    run
}

/// Asserts the exit code, printing the whole run when it differs.
#[track_caller]
pub fn assert_code(run: &Run, code: i32) {
    assert_eq!(run.code, code, "unexpected exit code: {run:#?}");
}

/// Snapshot settings: the pactum version (header, JSON `tool.version`) and
/// any temporary folder are replaced, so snapshots survive a version bump.
pub fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(r"pactum \d+\.\d+\.\d+(-[0-9A-Za-z.]+)?", "pactum [VERSION]");
    s.add_filter(
        r#""name":"pactum","version":"[^"]*""#,
        r#""name":"pactum","version":"[VERSION]""#,
    );
    let tmp = std::env::temp_dir();
    let tmp = regex_escape(&tmp.display().to_string());
    s.add_filter(&format!("{tmp}/[^/ ]+"), "[TMP]");
    s.set_prepend_module_to_snapshot(false);
    s
}

fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A parsed JSON report, validated against `schemas/report.schema.json`.
pub fn read_report(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("the JSON report was written");
    parse_report(&text)
}

/// Parses a JSON report and validates it against the committed schema.
pub fn parse_report(text: &str) -> Value {
    let report: Value = serde_json::from_str(text).expect("the JSON report is JSON");
    let schema_text = std::fs::read_to_string(root().join("schemas/report.schema.json"))
        .expect("the report schema");
    let schema: Value = serde_json::from_str(&schema_text).expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the report schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "report does not fit its schema: {errors:#?}"
    );
    report
}

/// The results of a report, by trace id.
pub fn results_by_id(report: &Value) -> BTreeMap<String, &Value> {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| (r["trace_id"].as_str().expect("trace_id").to_string(), r))
        .collect()
}

/// The statuses of a report, by trace id.
pub fn statuses(report: &Value) -> BTreeMap<String, String> {
    results_by_id(report)
        .into_iter()
        .map(|(id, r)| (id, r["status"].as_str().expect("status").to_string()))
        .collect()
}

/// One `<testsuite>` of a JUnit document: its counting attributes and the
/// test cases it holds.
#[derive(Debug, Default)]
pub struct Suite {
    pub name: String,
    pub attrs: BTreeMap<String, String>,
    pub cases: Vec<Case>,
}

/// One `<testcase>`: name, classname and the `type` of its `<failure>` or
/// `<error>` child, if any.
#[derive(Debug, Default)]
pub struct Case {
    pub name: String,
    pub classname: String,
    pub failure: Option<String>,
    pub error: Option<String>,
}

/// A JUnit document read back with quick-xml: the root's attributes and
/// its suites. Panics (the test fails) on XML that is not well-formed.
#[derive(Debug, Default)]
pub struct Junit {
    pub attrs: BTreeMap<String, String>,
    pub suites: Vec<Suite>,
}

fn attributes(e: &quick_xml::events::BytesStart<'_>) -> BTreeMap<String, String> {
    e.attributes()
        .map(|a| {
            let a = a.expect("a well-formed attribute");
            let key = a.key.as_ref().to_string();
            let value = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .expect("the attribute value unescapes")
                .into_owned();
            (key, value)
        })
        .collect()
}

/// Parses a JUnit document. Checks well-formedness (every start tag closed,
/// one root) and that every character is allowed by XML 1.0.
pub fn parse_junit(xml: &str) -> Junit {
    use quick_xml::events::Event;
    for c in xml.chars() {
        let allowed = matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}');
        assert!(allowed, "character {c:?} is not allowed in XML 1.0");
    }
    let mut reader = quick_xml::Reader::from_str(xml);
    reader.config_mut().check_end_names = true;
    let mut doc = Junit::default();
    let mut depth = 0usize;
    let mut roots = 0;
    loop {
        let event = reader.read_event().expect("well-formed XML");
        let (e, empty) = match event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                depth = depth.checked_sub(1).expect("balanced tags");
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let name = e.name().as_ref().to_string();
        let attrs = attributes(&e);
        match (depth, name.as_str()) {
            (0, "testsuites") => {
                roots += 1;
                doc.attrs = attrs;
            }
            (1, "testsuite") => doc.suites.push(Suite {
                name: attrs.get("name").cloned().unwrap_or_default(),
                attrs,
                cases: Vec::new(),
            }),
            (2, "testcase") => doc
                .suites
                .last_mut()
                .expect("a test case inside a suite")
                .cases
                .push(Case {
                    name: attrs.get("name").cloned().unwrap_or_default(),
                    classname: attrs.get("classname").cloned().unwrap_or_default(),
                    ..Case::default()
                }),
            (3, "failure" | "error") => {
                let case = doc
                    .suites
                    .last_mut()
                    .and_then(|s| s.cases.last_mut())
                    .expect("a failure inside a test case");
                let ty = attrs.get("type").cloned().unwrap_or_default();
                if name == "failure" {
                    case.failure = Some(ty);
                } else {
                    case.error = Some(ty);
                }
            }
            // A suite's output: the run-level warnings.
            (2, "system-out") => {}
            (3, "system-out") => {}
            (d, n) => panic!("unexpected element <{n}> at depth {d}"),
        }
        if !empty {
            depth += 1;
        }
    }
    assert_eq!(depth, 0, "unclosed elements");
    assert_eq!(roots, 1, "one <testsuites> root");
    doc
}

/// Checks that the counting attributes of a JUnit document equal what it
/// holds, on the root and on every suite.
pub fn assert_junit_counts_consistent(doc: &Junit) {
    let count = |cases: &[&Case]| {
        (
            cases.len(),
            cases.iter().filter(|c| c.failure.is_some()).count(),
            cases.iter().filter(|c| c.error.is_some()).count(),
        )
    };
    let attr = |m: &BTreeMap<String, String>, k: &str| -> usize {
        m.get(k)
            .unwrap_or_else(|| panic!("attribute {k} missing"))
            .parse()
            .expect("a count")
    };
    let mut all = Vec::new();
    for s in &doc.suites {
        let cases: Vec<&Case> = s.cases.iter().collect();
        let (t, f, e) = count(&cases);
        assert_eq!(attr(&s.attrs, "tests"), t, "suite {} tests", s.name);
        assert_eq!(attr(&s.attrs, "failures"), f, "suite {} failures", s.name);
        assert_eq!(attr(&s.attrs, "errors"), e, "suite {} errors", s.name);
        assert_eq!(attr(&s.attrs, "skipped"), 0, "suite {} skipped", s.name);
        all.extend(cases);
    }
    let (t, f, e) = count(&all);
    assert_eq!(attr(&doc.attrs, "tests"), t, "root tests");
    assert_eq!(attr(&doc.attrs, "failures"), f, "root failures");
    assert_eq!(attr(&doc.attrs, "errors"), e, "root errors");
}

/// Asserts a text a terminal will show carries no escape byte, no carriage
/// return, no other C0/C1 control but newline, and no bidi control.
#[track_caller]
pub fn assert_terminal_safe(what: &str, text: &str) {
    for (i, c) in text.char_indices() {
        let bad = (c.is_control() && c != '\n')
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}');
        assert!(
            !bad,
            "{what}: character {c:?} at byte {i} reaches the terminal: {text:?}"
        );
    }
}
