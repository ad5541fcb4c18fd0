//! `pactum grade RUN_DIR…` end to end: the real binary on the bundled
//! OpenProse examples (terminal summary and JSON report pinned by
//! snapshots, the JSON report checked against its schema), every import
//! error's exit code, and judged clauses through the scripted judge server
//! with the same quote verification as every judged clause.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use pactum_llm::testing::ScriptedServer;
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn pactum<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    pactum_env(args, &[])
}

fn pactum_env<I, S>(args: I, env: &[(&str, &str)]) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::cargo_bin("pactum").expect("the pactum binary is built");
    let args: Vec<std::ffi::OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    cmd.current_dir(root()).env("NO_COLOR", "1").args(&args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("pactum runs");
    let run = Run {
        code: out.status.code().expect("pactum exited"),
        stdout: String::from_utf8(out.stdout).expect("UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8"),
    };
    assert_ne!(run.code, 101, "pactum panicked: {}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(r"pactum \d+\.\d+\.\d+(-[0-9A-Za-z.]+)?", "pactum [VERSION]");
    s.add_filter(
        r#""name":"pactum","version":"[^"]*""#,
        r#""name":"pactum","version":"[VERSION]""#,
    );
    s
}

/// The report, validated against the committed schema.
fn report(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("the JSON report was written");
    let report: Value = serde_json::from_str(&text).expect("JSON");
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/report.schema.json")).expect("schema"),
    )
    .expect("schema JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    report
}

fn grade_example(name: &str, json: &Path) -> Run {
    pactum([
        "grade".as_ref(),
        format!("examples/openprose/{name}").as_ref(),
        "--json".as_ref(),
        json.as_os_str(),
    ])
}

#[test]
fn the_bundled_examples() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, code) in [("satisfied", 0), ("degraded", 3)] {
        let json = dir.path().join(format!("{name}.json"));
        let run = grade_example(name, &json);
        assert_eq!(run.code, code, "{name}: {}{}", run.stdout, run.stderr);
        assert_eq!(run.stderr, "", "{name}");
        let text = std::fs::read_to_string(&json).expect("report");
        settings().bind(|| {
            insta::assert_snapshot!(format!("openprose_{name}_terminal"), run.stdout);
            insta::assert_snapshot!(format!("openprose_{name}_json"), text);
        });
        let r = report(&json);
        let runs = r["openprose"].as_array().expect("the grader's report");
        assert_eq!(runs.len(), 1);
        // Every declared clause is accounted for, once, in both shapes.
        let clauses: usize = runs[0]["contracts"]
            .as_array()
            .expect("contracts")
            .iter()
            .map(|c| c["clauses"].as_array().map_or(0, Vec::len))
            .sum();
        let listed: usize = r["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|x| x["contracts"][0]["clauses"].as_array().map_or(0, Vec::len))
            .sum();
        assert_eq!(clauses, listed, "{name}");
        // The same inputs give the same bytes.
        let again = dir.path().join(format!("{name}-again.json"));
        let run2 = grade_example(name, &again);
        assert_eq!(run2.stdout, run.stdout, "{name}");
        assert_eq!(
            std::fs::read(&again).expect("again"),
            std::fs::read(&json).expect("first"),
            "{name}"
        );
    }
    // JUnit: one test suite per run, one test case per contract.
    let junit = dir.path().join("junit.xml");
    let run = pactum([
        "grade".as_ref(),
        "examples/openprose/degraded".as_ref(),
        "--junit".as_ref(),
        junit.as_os_str(),
    ]);
    assert_eq!(run.code, 3);
    let xml = std::fs::read_to_string(&junit).expect("JUnit report");
    assert!(
        xml.contains(r#"<testsuite name="examples/openprose/degraded" tests="1" failures="1""#),
        "{xml}"
    );
    assert!(xml.contains(r#"<failure type="undetermined""#), "{xml}");
    let r = report(&dir.path().join("satisfied.json"));
    assert_eq!(r["openprose"][0]["overall_verdict"], "satisfied");
    assert_eq!(r["openprose"][0]["overall_score"], 100.0);
    assert_eq!(
        r["openprose"][0]["untested_paths"],
        json!([
            "market-brief/if-research-failed",
            "analyst/if-sources-empty"
        ])
    );
    let r = report(&dir.path().join("degraded.json"));
    let g = &r["openprose"][0];
    assert_eq!(g["conditional_clauses"][0]["triggered"], true);
    assert_eq!(
        g["conditional_clauses"][0]["degraded_output_provided"],
        true
    );
    let reasons: Vec<&str> = g["unevaluable_clauses"]
        .as_array()
        .expect("unevaluable clauses")
        .iter()
        .filter_map(|u| u["reason"].as_str())
        .collect();
    assert!(reasons.contains(&"vague"), "{reasons:?}");
    assert!(g["recommendations"]
        .as_array()
        .expect("recommendations")
        .iter()
        .any(|r| r["suggestion"]
            .as_str()
            .is_some_and(|s| s.contains("measurable"))));
}

#[test]
fn import_errors_exit_2_naming_the_error() {
    let fx = "crates/pactum-openprose/fixtures";
    for (dir, needle) in [
        ("current", "unsupported-layout"),
        ("errors/missing-root", "missing-root"),
        ("errors/missing-manifest", "missing-manifest"),
        ("errors/no-outputs", "no-outputs"),
        ("errors/manifest-outside", "graph[0].outputs[0].bindingPath"),
        ("errors/manifest-no-source", "graph[0].sourcePath"),
    ] {
        let run = pactum(["grade".to_string(), format!("{fx}/{dir}")]);
        assert_eq!(run.code, 2, "{dir}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(needle), "{dir}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{dir}: nothing graded, nothing printed");
    }
    // --format openprose forces a folder to be read as a run.
    let run = pactum([
        "grade",
        "--format",
        "openprose",
        "crates/pactum-openprose/fixtures/errors",
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("missing-root"), "{}", run.stderr);
    // Runs carry their contracts; trace files need them; the two do not mix.
    let run = pactum(["grade", "-c", "x.yaml", "examples/openprose/satisfied"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("-c is not used"), "{}", run.stderr);
    let run = pactum([
        "grade",
        "-c",
        "examples/agentdojo/contracts",
        "examples/agentdojo/traces.jsonl",
        "examples/openprose/satisfied",
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("is an OpenProse run"), "{}", run.stderr);
    let run = pactum(["grade", "examples/agentdojo/traces.jsonl"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("-c"), "{}", run.stderr);
    // A report may not overwrite a file of the run.
    let run = pactum([
        "grade",
        "examples/openprose/satisfied",
        "--json",
        "examples/openprose/satisfied/bindings/analyst/brief.md",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let brief = std::fs::read_to_string(
        root().join("examples/openprose/satisfied/bindings/analyst/brief.md"),
    )
    .expect("the binding");
    assert!(brief.contains("Home heat pumps in Europe"));
}

/// A log that says only that the run ended: the runs these tests write are
/// about something else.
const ENDED_LOG: &str = "# run:r\nroot: root.prose.md\n---end 2026-12-01T10:15:31Z\n";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

const JUDGE_MARK: &str = "You are a judge for pactum";

/// `pactum grade RUN_DIR` with the scripted `server` as its judge, its
/// store and JSON report in `dir`: the run and the report.
fn judged(dir: &Path, run_dir: &Path, server: &ScriptedServer) -> (Run, Value) {
    let json_path = dir.join("report.json");
    let db = dir.join("pactum.db");
    let run = pactum([
        "grade".as_ref(),
        run_dir.as_os_str(),
        "--judge-url".as_ref(),
        server.openai_base_url().as_ref(),
        "--judge-model".as_ref(),
        "judge-model".as_ref(),
        "--db".as_ref(),
        db.as_os_str(),
        "--json".as_ref(),
        json_path.as_os_str(),
    ]);
    let r = report(&json_path);
    (run, r)
}

/// Judged clauses go through the judge's quote verification: a quote from
/// a binding backs a verdict; a quote nowhere in the run, or only in the
/// caller's input, is `fabricated-evidence` and never a pass.
#[test]
fn judged_clauses_through_the_scripted_judge() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    write(&run_dir.join("vm.log.md"), ENDED_LOG);
    write(
        &run_dir.join("root.prose.md"),
        "---\nname: writer\nkind: service\n---\n## Ensures\n\n- a summary that names the Oxford study\n- a summary that cites the invented paper\n- a summary that repeats the topic\n",
    );
    write(
        &run_dir.join("bindings/caller/topic.md"),
        "# topic\nbinding: input\nsource: caller\n---\nperovskite tandem cells under humid conditions\n",
    );
    write(
        &run_dir.join("bindings/writer/summary.md"),
        // The topic is in the output only as a copy of the input: a quote
        // of it is no evidence that the summary repeats it in its own words.
        "The Oxford study found that encapsulation doubles the cells' lifetime.\n\nperovskite tandem cells under humid conditions\n",
    );
    let rule = |id: &str, quote: &str| {
        json!({
            "name": id,
            "match": {"system_contains": JUDGE_MARK,
                      "last_user_contains": format!("\"clause_id\":\"{id}\"")},
            "judge": {"verdict": "satisfied", "confidence": 95, "evidence": [quote]}
        })
    };
    let server = ScriptedServer::start(&json!([
        rule(
            "a-summary-that-names-the-oxford",
            "The Oxford study found that encapsulation doubles"
        ),
        rule(
            "a-summary-that-cites-the-invented",
            "the invented paper proves everything"
        ),
        rule(
            "a-summary-that-repeats-the-topic",
            "perovskite tandem cells under humid conditions"
        ),
    ]))
    .expect("the scripted server starts");
    let (run, r) = judged(dir.path(), &run_dir, &server);
    let clauses = r["openprose"][0]["contracts"][0]["clauses"]
        .as_array()
        .expect("clauses")
        .clone();
    let by_id = |id: &str| {
        clauses
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("{id}: {clauses:#?}"))
            .clone()
    };
    let held = by_id("a-summary-that-names-the-oxford");
    assert_eq!(held["verdict"], "satisfied", "{held:#}");
    assert_eq!(held["confidence"], 95);
    assert_eq!(
        held["evidence"][0]["text"],
        "The Oxford study found that encapsulation doubles"
    );
    for id in [
        "a-summary-that-cites-the-invented",
        "a-summary-that-repeats-the-topic",
    ] {
        let c = by_id(id);
        assert_eq!(c["verdict"], "not_evaluable", "{id}: {c:#}");
        assert_eq!(c["reason"], "fabricated-evidence", "{id}: {c:#}");
    }
    // The topic is in the output, but only as a copy of the input.
    let copied = by_id("a-summary-that-repeats-the-topic");
    assert!(
        copied["rationale"]
            .as_str()
            .is_some_and(|t| t.contains("only copied from its input")),
        "{copied:#}"
    );
    assert_eq!(r["openprose"][0]["status"], "undetermined");
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    // One judge request per judged clause; the second run answers from
    // the cache.
    assert_eq!(server.requests().expect("stats"), 3);
    // Again, with a key: the reports then redact it from every event, the
    // grader's report included, which must pass through whole.
    let again = dir.path().join("again.json");
    let run2 = pactum_env(
        [
            "grade".as_ref(),
            run_dir.as_os_str(),
            "--judge-url".as_ref(),
            server.openai_base_url().as_ref(),
            "--judge-model".as_ref(),
            "judge-model".as_ref(),
            "--judge-api-key-env".as_ref(),
            "PACTUM_OPENPROSE_TEST_KEY".as_ref(),
            "--db".as_ref(),
            dir.path().join("pactum.db").as_os_str(),
            "--json".as_ref(),
            again.as_os_str(),
        ],
        &[("PACTUM_OPENPROSE_TEST_KEY", "sk-test-0123456789abcdef")],
    );
    assert_eq!(run2.code, 3, "{}{}", run2.stdout, run2.stderr);
    assert_eq!(report(&again)["openprose"], r["openprose"]);
}

/// A measure counts what is written: three rows, one of them a maker
/// from Atlantis, are three rows. With a judge, every measured green is read by the
/// judge too: its `violated` stands, and a `satisfied` whose quote is in
/// no output is `fabricated-evidence`; without one, the green stands and
/// the terminal and the report say no judge read it.
#[test]
fn a_measured_green_is_read_by_the_judge() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    write(&run_dir.join("vm.log.md"), ENDED_LOG);
    write(
        &run_dir.join("root.prose.md"),
        "---\nname: svc\nkind: service\n---\n## Ensures\n\n- `makers`: a markdown table of at least 3 rows\n- `brands`: a markdown table of at least 3 rows\n",
    );
    let rows = "| maker | country |\n|---|---|\n| Daikin | Japan |\n| Vaillant | Germany |\n| Polarheat | Atlantis |\n";
    write(&run_dir.join("bindings/svc/makers.md"), rows);
    write(&run_dir.join("bindings/svc/brands.md"), rows);
    let plain = pactum(["grade".as_ref(), run_dir.as_os_str()]);
    assert_eq!(plain.code, 0, "{}{}", plain.stdout, plain.stderr);
    assert!(
        plain
            .stdout
            .contains("satisfied by a measure alone, read by no judge (it counts what is written, not what it means): svc/makers, svc/brands"),
        "{}",
        plain.stdout
    );
    let server = ScriptedServer::start(&json!([
        {
            "name": "makers",
            "match": {"system_contains": JUDGE_MARK,
                      "last_user_contains": "\"clause_id\":\"makers\""},
            "judge": {"verdict": "violated", "confidence": 90, "evidence": ["| Polarheat | Atlantis |"],
                      "rationale": "made up; the output leaks sk-proj-Zq8RkT3vW9xY2bN5mL7pQ4sD1fG6hJ0"}
        },
        {
            "name": "brands",
            "match": {"system_contains": JUDGE_MARK,
                      "last_user_contains": "\"clause_id\":\"brands\""},
            "judge": {"verdict": "satisfied", "confidence": 90, "evidence": ["| Bosch | Germany |"]}
        }
    ]))
    .expect("the scripted server starts");
    let (run, r) = judged(dir.path(), &run_dir, &server);
    let clauses = r["openprose"][0]["contracts"][0]["clauses"]
        .as_array()
        .expect("clauses")
        .clone();
    assert_eq!(clauses[0]["verdict"], "violated", "{:#}", clauses[0]);
    assert_eq!(clauses[1]["verdict"], "not_evaluable", "{:#}", clauses[1]);
    assert_eq!(
        clauses[1]["reason"], "fabricated-evidence",
        "{:#}",
        clauses[1]
    );
    assert_eq!(r["openprose"][0]["measured_only"], json!([]));
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(server.requests().expect("stats"), 2);
    // A key-shaped token in the judge's own words is redacted too.
    let key = "sk-proj-Zq8RkT3vW9xY2bN5mL7pQ4sD1fG6hJ0";
    let json = std::fs::read_to_string(dir.path().join("report.json")).expect("report");
    assert!(!json.contains(&key[..16]), "{json}");
    assert!(!run.stdout.contains(&key[..16]), "{}", run.stdout);
    assert!(clauses[0]["rationale"]
        .as_str()
        .is_some_and(|t| t.contains("[redacted]")));
}

/// A folder of runs, or a run's contract file, is named as such, with
/// the paths to grade instead.
#[test]
fn a_folder_of_runs_or_a_runs_contract_names_what_to_grade() {
    let run = pactum(["grade", "examples/openprose"]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("is a folder of OpenProse runs")
            && run.stderr.contains("examples/openprose/degraded")
            && run.stderr.contains("examples/openprose/satisfied"),
        "{}",
        run.stderr
    );
    let run = pactum(["grade", "examples/openprose/degraded/root.prose.md"]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("grade the run's folder"),
        "{}",
        run.stderr
    );
    // A folder or a file inside a run names the run.
    for inside in [
        "examples/openprose/degraded/bindings",
        "examples/openprose/degraded/bindings/researcher/notes.md",
    ] {
        let run = pactum(["grade", inside]);
        assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
        assert!(
            run.stderr.contains(
                "is inside the OpenProse run examples/openprose/degraded: grade the run's folder"
            ),
            "{}",
            run.stderr
        );
    }
}

/// Text from the run reaches the terminal without escapes, bounded.
#[test]
fn untrusted_run_text_is_made_safe() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    let long = "x".repeat(5000);
    write(&run_dir.join("vm.log.md"), ENDED_LOG);
    write(
        &run_dir.join("root.prose.md"),
        &format!(
            "---\nname: evil\u{1b}]0;title\u{7}\nkind: service\n---\n## Ensures\n\n- `out`: a good \u{1b}[31mred\u{1b}[0m report {long}\n"
        ),
    );
    write(
        &run_dir.join("bindings/evil\u{1b}]0;title\u{7}/out.md"),
        "text\u{1b}[2J\n",
    );
    let run = pactum(["grade".as_ref(), run_dir.as_os_str()]);
    assert!(!run.stdout.contains('\u{1b}'), "{}", run.stdout);
    assert!(!run.stdout.contains('\u{7}'), "{}", run.stdout);
    assert!(
        run.stdout.lines().all(|l| l.chars().count() < 1200),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("no-judge"), "{}", run.stdout);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
}

/// The Markdown summary (`--markdown`) and the HTML page (`--html`) of
/// the bundled examples: each run's overall score and verdict, its
/// contracts' table and lists, the summary pinned by a snapshot, both
/// with the same numbers as the JSON report.
#[test]
fn the_bundled_examples_in_markdown_and_html() {
    let dir = tempfile::tempdir().expect("tempdir");
    let md = dir.path().join("summary.md");
    let json = dir.path().join("r.json");
    let html = dir.path().join("report.html");
    let run = pactum([
        "grade".as_ref(),
        "examples/openprose/satisfied".as_ref(),
        "examples/openprose/degraded".as_ref(),
        "--markdown".as_ref(),
        md.as_os_str(),
        "--json".as_ref(),
        json.as_os_str(),
        "--html".as_ref(),
        html.as_os_str(),
    ]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let text = std::fs::read_to_string(&md).expect("the summary");
    settings().bind(|| insta::assert_snapshot!("openprose_examples_markdown", text));
    let r = report(&json);
    let page = std::fs::read_to_string(&html).expect("the page");
    for g in r["openprose"].as_array().expect("runs") {
        let heading = format!(
            "overall score {:.1} — {}",
            g["overall_score"].as_f64().expect("score"),
            g["overall_verdict"].as_str().expect("verdict")
        );
        assert!(text.contains(&heading), "{heading}: {text}");
        let heading = format!(
            "<h3>OpenProse run {}: {heading}</h3>",
            g["run_id"].as_str().expect("run id")
        );
        assert!(page.contains(&heading), "{heading}: {page}");
    }
    assert!(
        page.contains("Untested paths (a conditional clause never triggered): market-brief&#x2f;if-research-failed, analyst&#x2f;if-sources-empty"),
        "{page}"
    );
    assert!(
        page.contains("<br>suggested: change &quot;a good summary&quot;"),
        "{page}"
    );
    // Each contract's row has its eight cells.
    for line in text
        .lines()
        .filter(|l| l.starts_with("| PASS") || l.starts_with("| WARN"))
    {
        let cells = line.matches(" | ").count();
        assert!(cells == 7 || cells == 3, "{line}");
    }
}

/// Text from the run reaches the Markdown summary and the HTML page as
/// inert text: no link, image, HTML, table cell or mention.
#[test]
fn untrusted_run_text_is_inert_in_markdown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    copy_dir(&root().join("examples/openprose/degraded"), &run_dir);
    // A run id is one word: the log's header names the program after it.
    let evil = "[x](http://e.example)<img/src=x>|cell|@team#12![i](http://e.example/i.png)";
    let log = std::fs::read_to_string(run_dir.join("vm.log.md")).expect("log");
    write(
        &run_dir.join("vm.log.md"),
        &log.replace("9f3c7d researcher", &format!("9f3c7d{evil} researcher")),
    );
    let md = dir.path().join("summary.md");
    let html = dir.path().join("report.html");
    let run = pactum([
        "grade".as_ref(),
        run_dir.as_os_str(),
        "--markdown".as_ref(),
        md.as_os_str(),
        "--html".as_ref(),
        html.as_os_str(),
    ]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    // The HTML page escapes it in the run's section.
    let page = std::fs::read_to_string(&html).expect("the page");
    let section = page
        .split("<section class=\"openprose\">")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .expect("the run's section");
    assert!(section.contains("&lt;img&#x2f;src=x&gt;"), "{section}");
    assert!(!section.contains("<img"), "{section}");
    assert!(!section.contains("<a "), "{section}");
    let text = std::fs::read_to_string(&md).expect("the summary");
    assert!(text.contains("### OpenProse run"), "{text}");
    // What is left once every escaped character is taken out.
    let mut bare = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            chars.next();
        } else {
            bare.push(c);
        }
    }
    for bad in ["](", "<img", "|cell|", "@team", "#12"] {
        assert!(!bare.contains(bad), "{bad}: {text}");
    }
    assert!(text.contains("`@`team"), "{text}");
}

/// A report inside a run being graded is refused before anything is
/// written (on the next grade it would be read as part of the run), by
/// any spelling of the path; a report beside the run is written.
#[test]
fn a_report_inside_the_run_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    copy_dir(&root().join("examples/openprose/satisfied"), &run_dir);
    #[cfg(unix)]
    std::os::unix::fs::symlink(run_dir.join("bindings"), dir.path().join("link")).expect("link");
    let mut inside = vec![
        ("--json", run_dir.join("report.json")),
        ("--junit", run_dir.join("bindings/analyst/extra.xml")),
        ("--json", run_dir.join("new/folder/report.json")),
        ("--json", run_dir.join("bindings/../report.json")),
    ];
    if cfg!(unix) {
        inside.push(("--json", dir.path().join("link/analyst/report.json")));
    }
    for (flag, path) in inside {
        let run = pactum([
            "grade".as_ref(),
            run_dir.as_os_str(),
            flag.as_ref(),
            path.as_os_str(),
        ]);
        assert_eq!(
            run.code,
            2,
            "{flag} {}: {}{}",
            path.display(),
            run.stdout,
            run.stderr
        );
        assert!(run.stderr.contains(flag), "{}", run.stderr);
        assert!(
            run.stderr.contains(&path.display().to_string()),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.contains(&run_dir.display().to_string()),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("OpenProse run"), "{}", run.stderr);
        assert!(!path.exists(), "{} was written", path.display());
    }
    assert!(!run_dir.join("new").exists());
    let beside = dir.path().join("report.json");
    let run = pactum([
        "grade".as_ref(),
        run_dir.as_os_str(),
        "--json".as_ref(),
        beside.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(beside.is_file());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

/// A report that cannot be created is named with the reason (here, a
/// file where a folder of its path should be), and nothing is graded
/// into the void.
#[test]
fn an_uncreatable_report_says_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("a-file");
    write(&file, "kept\n");
    let json = file.join("r.json");
    let run = pactum([
        "grade".as_ref(),
        "examples/openprose/satisfied".as_ref(),
        "--json".as_ref(),
        json.as_os_str(),
    ]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "cannot create it: {} is a file, not a folder",
            file.display()
        )),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
    assert_eq!(std::fs::read_to_string(&file).expect("kept"), "kept\n");
}

/// A report sent to standard output (`-`) and another whose path is the
/// file standard output goes to (`> PATH`, `/dev/stdout`) would replace
/// one another: refused before anything is written.
#[test]
fn a_report_path_that_is_standard_output_is_refused_beside_dash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.md");
    for markdown in [out.clone(), PathBuf::from("/dev/stdout")] {
        let file = std::fs::File::create(&out).expect("stdout file");
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_pactum"))
            .current_dir(root())
            .args(["grade", "examples/openprose/satisfied", "-q", "--json", "-"])
            .arg("--markdown")
            .arg(&markdown)
            .stdout(file)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("pactum runs");
        assert_eq!(status.status.code(), Some(2), "{markdown:?}");
        let stderr = String::from_utf8_lossy(&status.stderr);
        assert!(
            stderr.contains("that is where standard output goes"),
            "{stderr}"
        );
        assert_eq!(std::fs::read_to_string(&out).expect("out"), "");
    }
}

/// `--json -` with standard output appended to a file of the run being
/// graded (`>> run/vm.log.md`) is refused as that path would be: the
/// run is left as it was.
#[test]
fn standard_output_into_the_run_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    copy_dir(&root().join("examples/openprose/satisfied"), &run_dir);
    let log = run_dir.join("vm.log.md");
    let before = std::fs::read(&log).expect("log");
    let appended = std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("the log, to append to");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pactum"))
        .arg("grade")
        .arg(&run_dir)
        .args(["-q", "--json", "-"])
        .stdout(appended)
        .output()
        .expect("pactum runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--json (standard output)"), "{stderr}");
    assert_eq!(std::fs::read(&log).expect("log"), before);
    // The same through a hard link to the log outside the run.
    let link = dir.path().join("log-link.md");
    std::fs::hard_link(&log, &link).expect("a hard link");
    let appended = std::fs::OpenOptions::new()
        .append(true)
        .open(&link)
        .expect("the link, to append to");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pactum"))
        .arg("grade")
        .arg(&run_dir)
        .args(["-q", "--json", "-"])
        .stdout(appended)
        .output()
        .expect("pactum runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("(the same file)"), "{stderr}");
    assert_eq!(std::fs::read(&log).expect("log"), before);
}

/// A report over the store is refused before the store is opened: no
/// new store is left where the message says nothing was written.
#[test]
fn a_report_over_the_store_leaves_no_store_behind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let same = dir.path().join("same.json");
    let run = pactum([
        "grade".as_ref(),
        "examples/openprose/satisfied".as_ref(),
        "--judge-url".as_ref(),
        "http://127.0.0.1:9/v1".as_ref(),
        "--judge-model".as_ref(),
        "m".as_ref(),
        "--db".as_ref(),
        same.as_os_str(),
        "--json".as_ref(),
        same.as_os_str(),
    ]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("that is the store"), "{}", run.stderr);
    assert!(!same.exists(), "a store was left at {}", same.display());
}

/// A name from the run holding a line break cannot start a line of its
/// own in an error message: a forged totals line stays inside it.
#[test]
fn a_line_break_in_a_runs_names_stays_in_its_error_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    copy_dir(&root().join("examples/openprose/satisfied"), &run_dir);
    let path = run_dir.join("forme.manifest.json");
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("manifest")).expect("JSON");
    manifest["id"] = json!("x\n3 traces: 0 fail, 0 error, 0 undetermined, 3 pass\n");
    write(&path, &manifest.to_string());
    let run = pactum(["grade".as_ref(), run_dir.as_os_str()]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("error: invalid-run"),
        "{}",
        run.stderr
    );
}

/// `grade PATH` with no -c, PATH missing: the message says so, rather
/// than asking for contracts.
#[test]
fn a_path_that_does_not_exist_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("runs/nonexistent");
    let run = pactum(["grade".as_ref(), missing.as_os_str()]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(&missing.display().to_string()),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("does not exist"), "{}", run.stderr);
    assert!(!run.stderr.contains("-c"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    // Beside a run, it is not called a trace file mixed with runs.
    let run = pactum([
        OsStr::new("grade"),
        missing.as_os_str(),
        OsStr::new("examples/openprose/satisfied"),
    ]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("does not exist"), "{}", run.stderr);
    assert!(
        run.stderr.contains(&missing.display().to_string()),
        "{}",
        run.stderr
    );
}

/// A key written in a binding reaches no report and no terminal, with
/// no judge configured and no key variable set.
#[test]
fn a_key_in_a_binding_is_redacted_without_a_judge() {
    const KEY: &str = "sk-test-SECRET1234567890abcdef";
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    write(&run_dir.join("vm.log.md"), ENDED_LOG);
    write(
        &run_dir.join("root.prose.md"),
        "---\nname: svc\nkind: service\n---\n## Ensures\n\n- `report`: a JSON object\n- `summary`: explains why the topic matters to car makers\n",
    );
    write(
        &run_dir.join("bindings/svc/report.md"),
        &format!("{KEY} is the key\n"),
    );
    write(
        &run_dir.join("bindings/svc/summary.md"),
        &format!("Car makers care. debug: OPENAI_API_KEY={KEY}\n"),
    );
    let json = dir.path().join("r.json");
    let junit = dir.path().join("r.xml");
    let markdown = dir.path().join("r.md");
    let run = pactum([
        "grade".as_ref(),
        "-v".as_ref(),
        run_dir.as_os_str(),
        "--json".as_ref(),
        json.as_os_str(),
        "--junit".as_ref(),
        junit.as_os_str(),
        "--markdown".as_ref(),
        markdown.as_os_str(),
    ]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let json = std::fs::read_to_string(&json).expect("json");
    let junit = std::fs::read_to_string(&junit).expect("junit");
    let markdown = std::fs::read_to_string(&markdown).expect("markdown");
    assert!(markdown.contains("### OpenProse run"), "{markdown}");
    for (what, text) in [
        ("stdout", &run.stdout),
        ("stderr", &run.stderr),
        ("json", &json),
        ("junit", &junit),
        ("markdown", &markdown),
    ] {
        for part in [KEY, &KEY[..8], &KEY[KEY.len() - 8..]] {
            assert!(!text.contains(part), "{what} holds {part}: {text}");
        }
    }
    assert!(
        run.stdout.contains("[redacted] is the key"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("redacted-secret"), "{}", run.stdout);
    assert!(json.contains("redacted-secret"), "{json}");
}

/// A key quoted in a clause reaches neither the judge (the clause is its
/// rubric) nor the store, nor any report.
#[test]
fn a_key_in_a_clause_never_reaches_the_judge_or_the_store() {
    const KEY: &str = "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy2z3A";
    // A clause with no output named: its id is a slug of its words.
    const OTHER: &str = "ghp_Zy9xWv8uTs7rQp6oNm5lKj4iHg3fEd2cBa1Z";
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    write(&run_dir.join("vm.log.md"), ENDED_LOG);
    write(
        &run_dir.join("root.prose.md"),
        &format!("---\nname: svc\nkind: service\n---\n## Ensures\n\n- `summary`: explains the topic without quoting {KEY}\n\n## Maintains\n\n- never quotes {OTHER}\n"),
    );
    write(
        &run_dir.join("bindings/svc/summary.md"),
        "Heat pumps spread because subsidies grew.\n",
    );
    // The judge's own words hold a key of its own.
    const ITS_KEY: &str = "glrt-t1_Qq9wWe8rRt7yYu6iIo5p";
    let server = ScriptedServer::start(&json!([{
        "match": {"system_contains": JUDGE_MARK},
        "judge": {"verdict": "satisfied", "confidence": 95,
                  "evidence": ["Heat pumps spread because subsidies grew."],
                  "rationale": format!("kept; the key is {ITS_KEY}")}
    }]))
    .expect("server");
    let (run, r) = judged(dir.path(), &run_dir, &server);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(r["openprose"][0]["overall_verdict"], "satisfied");
    let bodies = server.stats().expect("stats")["bodies"].to_string();
    assert!(
        bodies.contains("explains the topic without quoting"),
        "{bodies}"
    );
    assert!(bodies.contains("[redacted]"), "{bodies}");
    let store = std::fs::read(dir.path().join("pactum.db")).expect("store");
    let report = std::fs::read_to_string(dir.path().join("report.json")).expect("report");
    for part in [ITS_KEY, &ITS_KEY[ITS_KEY.len() - 12..]] {
        assert!(!report.contains(part), "the report holds {part}");
        assert!(
            !store.windows(part.len()).any(|w| w == part.as_bytes()),
            "the store holds the judge's {part}"
        );
    }
    let lower = OTHER.to_ascii_lowercase();
    let clauses = &r["openprose"][0]["contracts"][0]["clauses"];
    assert_eq!(clauses[1]["id"], "never-quotes-redacted", "{clauses:#}");
    for part in [
        KEY,
        &KEY[..12],
        &KEY[KEY.len() - 12..],
        OTHER,
        &OTHER[OTHER.len() - 12..],
        &lower[lower.len() - 12..],
    ] {
        assert!(!bodies.contains(part), "the judge read {part}: {bodies}");
        assert!(!report.contains(part), "the report holds {part}");
        assert!(
            !store.windows(part.len()).any(|w| w == part.as_bytes()),
            "the store holds {part}"
        );
    }
}

/// A key written with an invisible character inside it (zero-width
/// space, soft hyphen) or wrapped over two lines is redacted from every
/// report and the terminal all the same: no eight characters of it show,
/// even once the invisible characters and line breaks are removed.
#[test]
fn a_key_with_invisible_characters_or_a_wrap_is_redacted() {
    const KEY: &str = "sk-test-SECRET1234567890abcdef";
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    write(&run_dir.join("vm.log.md"), ENDED_LOG);
    write(
        &run_dir.join("root.prose.md"),
        "---\nname: svc\nkind: service\n---\n## Ensures\n\n- `report`: a JSON object\n- `summary`: a JSON object\n- `notes`: a JSON object\n",
    );
    write(
        &run_dir.join("bindings/svc/report.md"),
        "sk-test-SEC\u{200b}RET1234567890abcdef is the key\n",
    );
    write(
        &run_dir.join("bindings/svc/summary.md"),
        "debug: sk-test-SECRET12345\n67890abcdef then more\n",
    );
    write(
        &run_dir.join("bindings/svc/notes.md"),
        "noted: sk-test-SECRET\u{ad}1234567890\u{2060}abcdef.\n",
    );
    let json = dir.path().join("r.json");
    let junit = dir.path().join("r.xml");
    let run = pactum([
        "grade".as_ref(),
        "-v".as_ref(),
        run_dir.as_os_str(),
        "--json".as_ref(),
        json.as_os_str(),
        "--junit".as_ref(),
        junit.as_os_str(),
    ]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let json = std::fs::read_to_string(&json).expect("json");
    let junit = std::fs::read_to_string(&junit).expect("junit");
    let bare_key: String = KEY.chars().filter(char::is_ascii_alphanumeric).collect();
    for (what, text) in [
        ("stdout", &run.stdout),
        ("stderr", &run.stderr),
        ("json", &json),
        ("junit", &junit),
    ] {
        // The JSON report escapes the invisible characters: undo that too.
        let shown = text
            .replace("\\u200b", "")
            .replace("\\u00ad", "")
            .replace("\\u2060", "")
            .replace("\\n", "");
        let bare: String = shown.chars().filter(char::is_ascii_alphanumeric).collect();
        for i in 0..=bare_key.len() - 8 {
            let part = &bare_key[i..i + 8];
            assert!(!bare.contains(part), "{what} holds {part}: {text}");
        }
    }
    assert!(run.stdout.contains("[redacted]"), "{}", run.stdout);
}

/// A key used as the run id, an input's name or a file's name, or written
/// with a Markdown escape, a character reference or emphasis inside it, or
/// an AWS or Hugging Face key, reaches no report and no terminal.
#[test]
fn keys_in_names_and_escaped_keys_are_redacted() {
    const KEY: &str = "sk-test-NAME1234567890abcdef";
    const INPUT_KEY: &str = "sk-test-INPT1234567890abcdef";
    const DIR_KEY: &str = "sk-test-FOLD1234567890abcdef";
    const AWS: &str = "AKIAIOSFODNN7EXAMPLE";
    const HF: &str = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH";
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join(DIR_KEY);
    write(
        &run_dir.join("root.prose.md"),
        "---\nname: svc\nkind: service\n---\n## Ensures\n\n- `report`: a JSON object\n",
    );
    write(
        &run_dir.join("vm.log.md"),
        &format!("# run:{KEY} svc\nroot: root.prose.md\n1→ svc ✓\n---end 2026-12-01T10:15:31Z\n"),
    );
    write(
        &run_dir.join(format!("bindings/caller/{INPUT_KEY}.md")),
        &format!("# {INPUT_KEY}\nbinding: input\nsource: caller\n---\nthe topic\n"),
    );
    write(
        &run_dir.join("bindings/svc/report.md"),
        &format!("escaped sk\\_live\\_4f8Ab2c9Zq7w, referenced sk&#45;proj&#45;4f8Ab2c9Zq7wXy, emphasised sk_live_9f8A**b2c9**Zq7v, {AWS}, {HF}\n"),
    );
    let json = dir.path().join("r.json");
    let junit = dir.path().join("r.xml");
    let markdown = dir.path().join("r.md");
    let run = pactum([
        "grade".as_ref(),
        "-v".as_ref(),
        run_dir.as_os_str(),
        "--json".as_ref(),
        json.as_os_str(),
        "--junit".as_ref(),
        junit.as_os_str(),
        "--markdown".as_ref(),
        markdown.as_os_str(),
    ]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let json = std::fs::read_to_string(&json).expect("json");
    let junit = std::fs::read_to_string(&junit).expect("junit");
    let markdown = std::fs::read_to_string(&markdown).expect("markdown");
    assert!(markdown.contains("### OpenProse run"), "{markdown}");
    for (what, text) in [
        ("stdout", &run.stdout),
        ("stderr", &run.stderr),
        ("json", &json),
        ("junit", &junit),
        ("markdown", &markdown),
    ] {
        for part in [
            "NAME12345",
            "INPT12345",
            "FOLD12345",
            "4f8Ab2c9",
            "9f8A",
            "Zq7w",
            "Zq7v",
            "IOSFODNN7",
            "aBcDeFgHiJk",
        ] {
            assert!(!text.contains(part), "{what} holds {part}: {text}");
        }
    }
    assert!(run.stdout.contains("[redacted]"), "{}", run.stdout);
}

/// Every key shape of the fourth review, and the values of credential
/// variables in the environment however short, are redacted from the
/// terminal, the JSON and the HTML report of an OpenProse grade.
#[test]
fn every_key_shape_and_credential_variable_is_redacted() {
    let keys = [
        "Zq9vLp2wXk7Rt4Yb3Nm8",
        "hunter2hunter2hunter2",
        "Pa55w0rdPa55w0rd",
        "glpat-Ab12Cd34Ef56Gh78Ij90",
        "xoxa-2-Ab12Cd34Ef56Gh78",
        "ghs_Ab12Cd34Ef56Gh78Ij90Kl12",
        "gho_Ab12Cd34Ef56Gh78Ij90Kl12",
        "npm_Ab12Cd34Ef56Gh78Ij90Kl12",
        "pypi-AgEIcHlwaS5vcmcAb12Cd34",
        "rk_live_Ab12Cd34Ef56Gh78Ij90",
        "SG.Ab12Cd34Ef56Gh78.Ij90Kl12Mn34Op56",
        "dop_v1_Ab12Cd34Ef56Gh78Ij90Kl12",
        "shpat_Ab12Cd34Ef56Gh78Ij90Kl12",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "Zx81kLmQ02pWeRt5YuIo",
        "gldt-Xy3kP9qR2sT7uV1wZ8aB",
        "glrt-Xy3kP9qR2sT7uV1wZ8aB",
        "glptt-0123456789abcdef0123456789abcdef01234567",
        "GR1348941Xy3kP9qR2sT7uV1wZ8aB",
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    write(&run_dir.join("vm.log.md"), ENDED_LOG);
    // One output per key, each quoting its one item as the counterexample.
    let mut root = String::from("---\nname: svc\nkind: service\n---\n## Ensures\n\n");
    for (i, k) in keys.iter().enumerate() {
        root.push_str(&format!("- `n{i}`: each item has: title, url\n"));
        let k = match i {
            13 => format!("aws {k}"),
            14 => format!("api_key={k} and https://u:{k}@h.example/"),
            _ => format!("env {k}"),
        };
        write(
            &run_dir.join(format!("bindings/svc/n{i}.md")),
            &format!("- note: {k}\n"),
        );
    }
    write(&run_dir.join("root.prose.md"), &root);
    let json = dir.path().join("r.json");
    let html = dir.path().join("r.html");
    let run = pactum_env(
        [
            "grade".as_ref(),
            "-v".as_ref(),
            run_dir.as_os_str(),
            "--json".as_ref(),
            json.as_os_str(),
            "--html".as_ref(),
            html.as_os_str(),
        ],
        &[
            ("MYAPP_API_KEY", keys[0]),
            ("SERVICE_TOKEN", keys[1]),
            ("DB_PASSWORD", keys[2]),
        ],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let json = std::fs::read_to_string(&json).expect("json");
    let html = std::fs::read_to_string(&html).expect("html");
    for (what, text) in [
        ("stdout", &run.stdout),
        ("stderr", &run.stderr),
        ("json", &json),
        ("html", &html),
    ] {
        for k in keys {
            assert!(!text.contains(k), "{what} holds {k}: {text}");
        }
    }
}

/// The same run given twice, or two runs with one run id and service,
/// would give two results one trace id: refused, exit 2.
#[test]
fn two_runs_with_one_trace_id_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    for name in ["a", "b"] {
        let run_dir = dir.path().join(name);
        write(&run_dir.join("vm.log.md"), ENDED_LOG);
        write(
            &run_dir.join("root.prose.md"),
            "---\nname: svc\nkind: service\n---\n## Ensures\n\n- `summary`: a summary\n",
        );
        write(&run_dir.join("bindings/svc/summary.md"), "Some text.\n");
    }
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for pair in [[&a, &a], [&a, &b]] {
        let run = pactum(["grade".as_ref(), pair[0].as_os_str(), pair[1].as_os_str()]);
        assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains("trace id"), "{}", run.stderr);
    }
}

/// A clause the judge finds only partly kept leaves its contract's status
/// `pass` (SPEC §3.5), but the contract does not pass by the grader's
/// rule: the run's verdict is `partial`, a warning says why, and the exit
/// is never 0.
#[test]
fn a_clause_only_partly_kept_never_exits_zero() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    write(&run_dir.join("vm.log.md"), ENDED_LOG);
    write(
        &run_dir.join("root.prose.md"),
        "---\nname: svc\nkind: service\n---\n## Ensures\n\n- `out`: written in French\n",
    );
    write(
        &run_dir.join("bindings/svc/out.md"),
        "Les batteries sont bonnes. The rest of this answer is in English.\n",
    );
    let server = ScriptedServer::start(&json!([{
        "name": "partly",
        "match": {"system_contains": JUDGE_MARK},
        "judge": {"verdict": "partially_satisfied", "confidence": 90,
                  "evidence": ["Les batteries sont bonnes."]}
    }]))
    .expect("the scripted server starts");
    let (run, r) = judged(dir.path(), &run_dir, &server);
    let prose = &r["openprose"][0];
    assert_eq!(
        prose["contracts"][0]["clauses"][0]["verdict"], "partially_satisfied",
        "{prose:#}"
    );
    assert_eq!(prose["overall_verdict"], "partial", "{prose:#}");
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("partly-kept"), "{}", run.stdout);
    // No summary reads it as a pass: the result line counts the clause
    // as kept in part, the run's block and the Markdown summary say so.
    assert_eq!(
        r["results"][0]["summary"], "0 clause(s) held, 1 only in part: out",
        "{r:#}"
    );
    assert!(
        run.stdout.contains("  PART svc  score 50.0"),
        "{}",
        run.stdout
    );
    let md = dir.path().join("summary.md");
    let again = pactum([
        "grade".as_ref(),
        run_dir.as_os_str(),
        "--judge-url".as_ref(),
        server.openai_base_url().as_ref(),
        "--judge-model".as_ref(),
        "judge-model".as_ref(),
        "--db".as_ref(),
        dir.path().join("pactum.db").as_os_str(),
        "--markdown".as_ref(),
        md.as_os_str(),
    ]);
    assert_eq!(again.code, 1, "{}{}", again.stdout, again.stderr);
    let md = std::fs::read_to_string(&md).expect("summary");
    assert!(!md.contains("Every test passed"), "{md}");
    assert!(md.contains("| PART | svc | 50.0 |"), "{md}");
    assert!(md.contains("the run does not pass"), "{md}");
}

/// An output too long for one judge request is judged in windows; a judge
/// finding the commitment kept in one window says nothing of the others,
/// so over several windows `satisfied` is never taken: the clause is
/// `not_evaluable` (`transcript-too-long`) and the run never exits 0.
#[test]
fn a_judged_clause_over_several_windows_is_never_satisfied() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join("run");
    write(&run_dir.join("vm.log.md"), ENDED_LOG);
    write(
        &run_dir.join("root.prose.md"),
        "---\nname: svc\nkind: service\n---\n## Ensures\n\n- `out`: does not recommend a competitor's product\n",
    );
    let mut out = String::from("Our battery is the best choice for most homes.\n\n");
    for i in 0..2_000 {
        out.push_str(&format!(
            "Paragraph {i}: the storage system keeps the lights on through the evening peak.\n\n"
        ));
    }
    out.push_str("For most homes we recommend the Tesla Powerwall instead of our own battery.\n");
    assert!(out.len() > 150_000);
    write(&run_dir.join("bindings/svc/out.md"), &out);
    let server = ScriptedServer::start(&json!([{
        "name": "clean",
        "match": {"system_contains": JUDGE_MARK},
        "judge": {"verdict": "satisfied", "confidence": 95,
                  "evidence": ["Our battery is the best choice for most homes."]}
    }]))
    .expect("the scripted server starts");
    let (run, r) = judged(dir.path(), &run_dir, &server);
    let clause = &r["openprose"][0]["contracts"][0]["clauses"][0];
    assert_eq!(clause["verdict"], "not_evaluable", "{clause:#}");
    assert_eq!(clause["reason"], "transcript-too-long", "{clause:#}");
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
}
