//! `pactum grade RUN_DIR…`: a key that reads whole only once the Markdown
//! renders (split by an HTML tag, a character reference or a link) reaches
//! no report and no terminal.

use std::path::Path;

use assert_cmd::Command;

const ENDED_LOG: &str = "# run:r\nroot: root.prose.md\n---end 2026-12-01T10:15:31Z\n";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// The secret part of the keys the tests below write in a run.
const BODY: &str = "Zq9Xw7Lm1234567890abcdef";

/// Asserts that no part of [`BODY`], the key's secret part, is in `text`
/// (`what`, for the message).
fn holds_no_body(key: &str, what: &str, text: &str) {
    for part in [&BODY[..10], &BODY[10..]] {
        assert!(!text.contains(part), "{key}: {what} holds it: {text}");
    }
}

/// A single-service run under `dir` whose contract is the one clause
/// `` `out`: {clause} `` and whose output `out` is `out`; its folder.
fn one_clause_run(dir: &Path, clause: &str, out: &str) -> std::path::PathBuf {
    let run_dir = dir.join("run");
    write(&run_dir.join("vm.log.md"), ENDED_LOG);
    write(
        &run_dir.join("root.prose.md"),
        &format!("---\nname: svc\nkind: service\n---\n## Ensures\n\n- `out`: {clause}\n"),
    );
    write(&run_dir.join("bindings/svc/out.md"), out);
    run_dir
}

/// Every report and the terminal, for a run whose one output is `out`
/// under a clause it violates (its evidence quotes the first paragraph).
fn graded(out: &str) -> Vec<(&'static str, String)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = one_clause_run(dir.path(), "at most 1 paragraph", out);
    let (code, shown) = shown_with_code(dir.path(), &run_dir);
    let stdout = &shown[0].1;
    assert_eq!(code, Some(1), "{stdout}{}", shown[1].1);
    assert!(stdout.contains("redacted-secret"), "{stdout}");
    // Both reports were written: a missing one would hide nothing.
    for (what, text) in &shown[2..] {
        assert!(!text.is_empty(), "no {what} report");
    }
    shown
}

#[test]
fn a_key_split_by_markup_is_redacted_from_every_report() {
    const HEAD: &str = "sk-proj-ABCDEF";
    const TAIL: &str = "0123456789abcdef0123456789";
    for split in [
        format!("{HEAD}<wbr>{TAIL}"),
        format!("{HEAD}<span>{TAIL}</span>"),
        format!("{HEAD}<b></b>{TAIL}"),
        format!("{HEAD}&shy;{TAIL}"),
        format!("{HEAD}[{TAIL}](x)"),
        format!("{HEAD}<br>{TAIL}"),
        // Every piece shorter than a fragment the redactor finds alone.
        "sk-pro<b></b>j-ABCD<b></b>EF0123<b></b>456789<b></b>abcdef<b></b>012345<b></b>6789"
            .to_string(),
    ] {
        let out = format!("Key {split} end.\n\nPrices fell as subsidies grew.\n");
        for (what, text) in graded(&out) {
            // Markup removed, as a reader recovers the key.
            let bare: String = text
                .replace("<b></b>", "")
                .replace("<wbr>", "")
                .replace("<br>", "")
                .replace("<span>", "")
                .replace("&shy;", "")
                .replace('[', "");
            for part in [HEAD, "ABCDEF0123", &TAIL[..10], &TAIL[TAIL.len() - 10..]] {
                assert!(!bare.contains(part), "{split}: {what} holds {part}: {text}");
            }
        }
    }
}

#[test]
fn a_key_written_in_lookalike_characters_is_redacted_from_every_report() {
    const TAIL: &str = "ABCDEF0123456789abcdef0123456789";
    for prefix in [
        "\u{FF53}\u{FF4B}-proj-",
        "sk\u{2010}proj\u{2010}",
        "\u{FF53}\u{FF4B}\u{FF0D}proj\u{2212}",
    ] {
        let out = format!("Key {prefix}{TAIL} end.\n\nPrices fell as subsidies grew.\n");
        for (what, text) in graded(&out) {
            for part in ["ABCDEF0123", &TAIL[10..20], &TAIL[TAIL.len() - 10..]] {
                assert!(
                    !text.contains(part),
                    "{prefix}: {what} holds {part}: {text}"
                );
            }
        }
    }
}

/// A key in a path given on the command line (a run folder named after
/// one) is redacted from every refusal, printed before any input is read:
/// a report inside the run, a run that does not exist, a report path that
/// names a folder, two reports on one file.
#[test]
fn a_key_in_a_path_argument_is_redacted_from_every_refusal() {
    const KEY: &str = "sk-proj-Zq8vT3xLm9Pw2Rk7Nf4Hb6Jd1Yc5Gs0A";
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = dir.path().join(KEY);
    write(&run_dir.join("vm.log.md"), ENDED_LOG);
    write(
        &run_dir.join("root.prose.md"),
        "---\nname: svc\nkind: service\n---\n## Ensures\n\n- `out`: at least 1 items\n",
    );
    write(&run_dir.join("bindings/svc/out.md"), "- a\n");
    let folder = dir.path().join(format!("reports-{KEY}"));
    std::fs::create_dir_all(&folder).expect("mkdir");
    let same = dir.path().join(format!("{KEY}.json"));
    let missing = dir.path().join(format!("old-{KEY}"));
    let cases: Vec<Vec<std::ffi::OsString>> = vec![
        vec![
            run_dir.clone().into(),
            "--json".into(),
            run_dir.join("report.json").into(),
        ],
        vec![
            run_dir.clone().into(),
            "--junit".into(),
            run_dir.join("bindings/svc/r.xml").into(),
        ],
        vec![missing.into()],
        vec![run_dir.clone().into(), "--json".into(), folder.into()],
        vec![
            run_dir.clone().into(),
            "--json".into(),
            same.clone().into(),
            "--junit".into(),
            same.into(),
        ],
    ];
    for args in cases {
        let output = Command::cargo_bin("pactum")
            .expect("the pactum binary is built")
            .env("NO_COLOR", "1")
            .arg("grade")
            .args(&args)
            .output()
            .expect("pactum runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stdout}{stderr}");
        assert!(stderr.contains("[redacted]"), "{args:?}: {stderr}");
        for text in [&stdout, &stderr] {
            assert!(!text.contains("Zq8vT3xLm9"), "{args:?}: {text}");
        }
    }
}

/// The prefixes a key is written with and still read as `sk-`: NFKC folds
/// a long s and mathematical letters, the look-alike skeleton a Cyrillic
/// dze and small capitals, and a key opening a sentence is capitalised.
const FOLDED_PREFIXES: [&str; 6] = [
    "\u{017F}k-",
    "\u{1D42C}\u{1D424}-",
    "\u{0455}k-",
    "\u{A731}\u{1D0B}-",
    "Sk-",
    "SK-",
];

/// A key whose prefix is NFKC-folded, a look-alike or capitalised is
/// redacted from the terminal, every report and what the judge reads.
#[test]
fn a_key_with_a_folded_lookalike_or_capitalised_prefix_is_redacted_everywhere() {
    use pactum_llm::testing::ScriptedServer;
    let server = ScriptedServer::start(&serde_json::json!([{
        "name": "any",
        "match": {"system_contains": "You are a judge for pactum"},
        "judge": {"verdict": "violated", "confidence": 90,
                  "evidence": ["Battery costs fell"]}
    }]))
    .expect("the scripted server starts");
    for prefix in FOLDED_PREFIXES {
        for proj in ["proj-", "PROJ-"] {
            let key = format!("{prefix}{proj}{BODY}");
            let out = format!(
                "Battery costs fell; debug key {key} shown.\n\nPrices fell as subsidies grew.\n"
            );
            for (what, text) in graded(&out) {
                holds_no_body(&key, what, &text);
            }
            // Judged: what the judge reads, the JSON report, the terminal.
            let dir = tempfile::tempdir().expect("tempdir");
            let run_dir = one_clause_run(
                dir.path(),
                "a credible summary of the topic",
                &format!("Battery costs fell; debug key {key} shown.\n"),
            );
            let json = dir.path().join("r.json");
            server.reset().expect("reset");
            let output = Command::cargo_bin("pactum")
                .expect("the pactum binary is built")
                .env("NO_COLOR", "1")
                .args(["grade", "-v"])
                .arg(&run_dir)
                .arg("--json")
                .arg(&json)
                .arg("--judge-url")
                .arg(server.openai_base_url())
                .args(["--judge-model", "m", "--db"])
                .arg(dir.path().join("p.db"))
                .output()
                .expect("pactum runs");
            let bodies = server.stats().expect("stats")["bodies"].to_string();
            assert!(
                server.requests().expect("requests") > 0,
                "{key}: no judge request"
            );
            for (what, text) in [
                (
                    "stdout",
                    String::from_utf8_lossy(&output.stdout).to_string(),
                ),
                (
                    "stderr",
                    String::from_utf8_lossy(&output.stderr).to_string(),
                ),
                ("json", std::fs::read_to_string(&json).expect("json")),
                ("judge request", bodies),
            ] {
                holds_no_body(&key, what, &text);
            }
        }
    }
}

/// The same key in a `vm.log.md` step line and as an output's name (the
/// clause id, its text, the binding's path) reaches no report.
#[test]
fn a_key_with_a_folded_prefix_in_a_log_line_or_an_output_name_is_redacted() {
    for prefix in FOLDED_PREFIXES {
        let key = format!("{prefix}proj-{BODY}");
        let dir = tempfile::tempdir().expect("tempdir");
        let logged = dir.path().join("logged");
        write(
            &logged.join("vm.log.md"),
            &format!("# run:r\nroot: root.prose.md\n1→ svc ✗ crashed {key}\n---end 2026-12-01T10:15:31Z\n"),
        );
        write(
            &logged.join("root.prose.md"),
            "---\nname: svc\nkind: service\n---\n## Ensures\n\n- `out`: at least 1 items\n",
        );
        write(&logged.join("bindings/svc/out.md"), "- a\n");
        let named = dir.path().join("named");
        write(&named.join("vm.log.md"), ENDED_LOG);
        write(
            &named.join("root.prose.md"),
            &format!(
                "---\nname: svc\nkind: service\n---\n## Ensures\n\n- `{key}`: at least 1 items\n"
            ),
        );
        write(&named.join(format!("bindings/svc/{key}.md")), "- a\n");
        for run_dir in [logged, named] {
            for (what, text) in shown(dir.path(), &run_dir) {
                holds_no_body(&key, what, &text);
            }
        }
    }
}

/// Keys of the model, search and cloud providers with prefixes of their
/// own reach no report and no terminal, written in an output or quoted in
/// a clause.
#[test]
fn provider_keys_of_every_prefix_are_redacted_from_outputs_and_clauses() {
    for prefix in [
        "tvly-", "gsk_", "xai-", "pplx-", "r8_", "nvapi-", "csk-", "fw_", "whsec_", "GOCSPX-",
        "ya29.",
    ] {
        let key = format!("{prefix}{BODY}");
        let out = format!("Token used by the agent: {key}\n\nPrices fell as subsidies grew.\n");
        for (what, text) in graded(&out) {
            holds_no_body(&key, what, &text);
        }
        // The same key quoted in a clause of the contract.
        let dir = tempfile::tempdir().expect("tempdir");
        let run_dir = one_clause_run(
            dir.path(),
            &format!("a note saying \"{key}\""),
            "Heat pump sales rose.\n",
        );
        for (what, text) in shown(dir.path(), &run_dir) {
            holds_no_body(&key, what, &text);
        }
    }
}

/// The terminal and the JSON and JUnit reports (written in `scratch`) of
/// `pactum grade -v` over `run_dir`, whatever its exit code.
fn shown(scratch: &Path, run_dir: &Path) -> Vec<(&'static str, String)> {
    shown_with_code(scratch, run_dir).1
}

/// [`shown`], and the exit code.
fn shown_with_code(scratch: &Path, run_dir: &Path) -> (Option<i32>, Vec<(&'static str, String)>) {
    let json = scratch.join("r.json");
    let junit = scratch.join("r.xml");
    let output = Command::cargo_bin("pactum")
        .expect("the pactum binary is built")
        .env("NO_COLOR", "1")
        .args(["grade", "-v"])
        .arg(run_dir)
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(&junit)
        .output()
        .expect("pactum runs");
    (
        output.status.code(),
        vec![
            (
                "stdout",
                String::from_utf8_lossy(&output.stdout).to_string(),
            ),
            (
                "stderr",
                String::from_utf8_lossy(&output.stderr).to_string(),
            ),
            ("json", std::fs::read_to_string(&json).unwrap_or_default()),
            ("junit", std::fs::read_to_string(&junit).unwrap_or_default()),
        ],
    )
}

/// Keys of providers without a prefix, split keys and keys a sentence
/// gives a name, in an output, in an error file and as the run's folder.
#[test]
fn keys_without_a_prefix_split_or_given_in_a_sentence_are_redacted_everywhere() {
    let bare = "Tz0Cd4Hq7Lm2Zx9Vb4Nc8Rt1Yu6Io3Pa";
    for (out, secret) in [
        (format!("Mistral key: {bare}\n\nPrices fell.\n"), bare),
        (
            "Key `sk-proj-Hq7Lm2` `Zx9Vb4Nc8Rt1Yu6Io3Pa5Sd0Fg7Hj2Kl9Qw4Er8Ty1`\n\nPrices fell.\n"
                .to_string(),
            "Zx9Vb4Nc8Rt1Yu6Io3Pa5Sd0",
        ),
        (
            "The password is Rv8Gh2Kl6Op0St4Wx8Ab2, keep it.\n\nPrices fell.\n".to_string(),
            "Rv8Gh2Kl6Op0St4Wx8Ab2",
        ),
    ] {
        for (what, text) in graded(&out) {
            assert!(
                !text.contains(&secret[..12]),
                "{what} holds {secret}: {text}"
            );
        }
    }
    // In a service's error file, and as the name of the run's folder.
    let dir = tempfile::tempdir().expect("tempdir");
    let run_dir = one_clause_run(dir.path(), "a short note", "Heat pump sales rose.\n");
    write(
        &run_dir.join("workspace/svc/__error.md"),
        &format!("# Error: auth-failed\n\nThe API rejected key {bare} (HTTP 401).\n"),
    );
    for (what, text) in shown(dir.path(), &run_dir) {
        assert!(!text.contains(&bare[..12]), "{what} holds it: {text}");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let named = dir.path().join(bare);
    let run_dir = one_clause_run(&named, "a short note", "Heat pump sales rose.\n");
    for (what, text) in shown(dir.path(), &run_dir) {
        assert!(!text.contains(&bare[..12]), "{what} holds it: {text}");
    }
}
