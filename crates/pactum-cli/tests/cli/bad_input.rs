//! Bad contracts and bad trace files: each is reported where it is (file,
//! line, column or field) with a hint, with the documented exit code, and
//! none panics (every run goes through the guard in `support::pactum`).

use std::path::Path;

use crate::support::*;

/// Runs `pactum check PATH` and `pactum grade -c PATH` on a passing trace
/// file; both must refuse with exit 2, print nothing on stdout, and give the
/// same diagnostics on stderr. Returns that stderr.
fn refused_by_check_and_grade(dir: &Path, contract: &str) -> String {
    let check = pactum_in(dir, ["check", contract]);
    assert_code(&check, 2);
    assert_eq!(check.stdout, "", "check: no contract listed as valid");
    let traces = root().join(fx("traces/pass.jsonl"));
    let grade = pactum_in(
        dir,
        [
            "grade".as_ref(),
            "-c".as_ref(),
            contract.as_ref(),
            traces.as_os_str(),
        ],
    );
    assert_code(&grade, 2);
    assert_eq!(grade.stdout, "", "grade: nothing was graded");
    assert_eq!(check.stderr, grade.stderr, "the same diagnostics");
    check.stderr
}

#[test]
fn unknown_key_wrong_type_and_invalid_regex_are_reported_at_once() {
    let file = fx("bad-contracts/three-errors.yaml");
    let stderr = refused_by_check_and_grade(&root(), &file);
    for (code, at) in [
        ("unknown-key", "7:5"),
        ("wrong-type", "15:23"),
        ("invalid-regex", "19:14"),
    ] {
        assert!(
            stderr.contains(&format!("error[{code}]")) && stderr.contains(&format!("{file}:{at}")),
            "{code} at {file}:{at}: {stderr}"
        );
    }
    assert_eq!(stderr.matches("error[").count(), 3, "{stderr}");
    assert_eq!(
        stderr.matches("= hint: ").count(),
        3,
        "a hint each: {stderr}"
    );
    assert!(stderr.contains("did you mean `check`?"), "{stderr}");
    settings().bind(|| insta::assert_snapshot!("three_errors_diagnostics", stderr));
}

#[test]
fn a_negated_prohibition_fails_the_lint_with_a_rewrite() {
    let file = fx("bad-contracts/negated.yaml");
    let stderr = refused_by_check_and_grade(&root(), &file);
    assert!(stderr.contains("error[negated-prohibition]"), "{stderr}");
    assert!(stderr.contains(&format!("{file}:5:11")), "{stderr}");
    assert!(
        stderr.contains("suggested rewrite: “Send money”"),
        "{stderr}"
    );
    settings().bind(|| insta::assert_snapshot!("negated_diagnostics", stderr));
}

#[test]
fn a_file_that_is_not_yaml() {
    let file = fx("bad-contracts/not-yaml.yaml");
    let stderr = refused_by_check_and_grade(&root(), &file);
    assert!(stderr.contains("error[yaml-syntax]"), "{stderr}");
    assert!(stderr.contains(&format!("{file}:1:")), "{stderr}");
}

#[test]
fn an_empty_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("empty.yaml"), "").expect("write");
    let stderr = refused_by_check_and_grade(dir.path(), "empty.yaml");
    assert!(stderr.contains("empty.yaml:1:1"), "{stderr}");
    assert!(stderr.contains("error["), "{stderr}");
}

#[test]
fn a_binary_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes: Vec<u8> = (0u8..=255)
        .rev()
        .chain([0, 0x1b, b'[', b'2', b'J'])
        .collect();
    std::fs::write(dir.path().join("binary.yaml"), bytes).expect("write");
    let stderr = refused_by_check_and_grade(dir.path(), "binary.yaml");
    assert!(stderr.contains("error[not-utf8]"), "{stderr}");
    assert!(stderr.contains("binary.yaml:1:1"), "{stderr}");
    assert_terminal_safe("binary contract diagnostics", &stderr);
}

#[test]
fn a_folder_with_no_contracts() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("nothing-here")).expect("mkdir");
    std::fs::write(dir.path().join("nothing-here/notes.txt"), "not a contract").expect("write");
    let stderr = refused_by_check_and_grade(dir.path(), "nothing-here");
    assert!(
        stderr.contains("nothing-here: folder holds no .yaml, .yml or .json contract file"),
        "{stderr}"
    );
}

#[test]
fn a_missing_contract_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let stderr = refused_by_check_and_grade(dir.path(), "absent.yaml");
    assert!(
        stderr.contains("error[io]") && stderr.contains("absent.yaml"),
        "{stderr}"
    );
}

#[test]
fn duplicate_contract_ids_across_two_files() {
    let dir = fx("bad-contracts/duplicate-ids");
    let stderr = refused_by_check_and_grade(&root(), &dir);
    assert!(
        stderr.contains(&format!(
            "contract id `same-id` is declared twice: {dir}/first.yaml and {dir}/second.yaml"
        )),
        "{stderr}"
    );
    // The same when the two files are given one by one.
    let run = pactum([
        "check".to_string(),
        format!("{dir}/first.yaml"),
        format!("{dir}/second.yaml"),
    ]);
    assert_code(&run, 2);
    assert!(run.stderr.contains("declared twice"), "{}", run.stderr);
}

#[test]
fn a_wrong_type_is_reported_once() {
    let file = fx("bad-contracts/severity-number.yaml");
    let stderr = refused_by_check_and_grade(&root(), &file);
    assert_eq!(stderr.matches("error[").count(), 1, "{stderr}");
    assert!(stderr.contains(&format!("{file}:6:15")), "{stderr}");
}

#[test]
fn lines_that_are_not_objects_are_reported_and_the_rest_graded() {
    let file = fx("traces/not-objects.jsonl");
    let run = pactum(["grade", "-c", &fx("contracts/shop.yaml"), &file]);
    assert_code(&run, 5);
    for line in 2..=4 {
        assert!(
            run.stdout.contains(&format!("  {file}:{line}: ")),
            "line {line} reported: {}",
            run.stdout
        );
    }
    assert!(
        run.stdout
            .contains("2 traces: 0 fail, 0 error, 0 undetermined, 2 pass; 3 input errors"),
        "{}",
        run.stdout
    );
}

#[test]
fn openai_lines_that_are_not_objects_say_what_they_are() {
    let example = std::fs::read_to_string(root().join(EX_TRACES)).expect("example");
    let lines: Vec<&str> = example.lines().collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "{}\n\"a JSON string\"\n42\n[1, 2, 3]\n{}\n",
        lines[1], lines[2]
    );
    std::fs::write(dir.path().join("mixed.jsonl"), text).expect("write");
    let contracts = root().join(EX_CONTRACTS);
    let run = pactum_in(
        dir.path(),
        [
            "grade".as_ref(),
            "-c".as_ref(),
            contracts.as_os_str(),
            "mixed.jsonl".as_ref(),
            "--observability".as_ref(),
            "tool_calls".as_ref(),
        ],
    );
    assert_code(&run, 5);
    for (line, what) in [(2, "a string"), (3, "a number"), (4, "an array")] {
        assert!(
            run.stdout.contains(&format!(
                "  mixed.jsonl:{line}: expected a conversation object, found {what}\n"
            )),
            "line {line}: {}",
            run.stdout
        );
    }
    assert!(
        run.stdout
            .contains("2 traces: 0 fail, 0 error, 0 undetermined, 2 pass; 3 input errors"),
        "{}",
        run.stdout
    );
}

#[test]
fn lines_that_are_not_objects_say_what_they_are() {
    let file = fx("traces/not-objects.jsonl");
    let run = pactum(["grade", "-c", &fx("contracts/shop.yaml"), &file]);
    assert_code(&run, 5);
    assert!(!run.stdout.contains("RawTrace"), "{}", run.stdout);
    for (line, what) in [(2, "a string"), (3, "a number"), (4, "an array")] {
        let l = run
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("  {file}:{line}: ")))
            .unwrap_or_else(|| panic!("line {line}: {}", run.stdout));
        assert!(l.contains(&format!("found {what}")), "{l}");
    }
}

#[test]
fn openai_arguments_that_are_not_json_are_kept_and_graded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let run = pactum([
        "grade".as_ref(),
        "-c".as_ref(),
        fx("contracts/shop.yaml").as_ref(),
        fx("traces/openai-bad-args.jsonl").as_ref(),
        "--observability".as_ref(),
        "tool_calls".as_ref(),
        "--json".as_ref(),
        json.as_os_str(),
    ]);
    // The call was made, whatever its arguments: delete-account is violated.
    assert_code(&run, 1);
    assert!(run.stdout.contains("FAIL  oa-bad-args"), "{}", run.stdout);
    let report = read_report(&json);
    assert_eq!(report["totals"]["input_errors"], 0);
    let r = results_by_id(&report)["oa-bad-args"];
    let clause = r["contracts"][0]["clauses"]
        .as_array()
        .expect("clauses")
        .iter()
        .find(|c| c["id"] == "delete-account")
        .expect("delete-account");
    assert_eq!(clause["verdict"], "violated");
    assert_eq!(clause["evidence"][0]["kind"], "tool_call");
    assert_eq!(clause["evidence"][0]["name"], "delete_account");
    assert_eq!(
        clause["evidence"][0]["arguments"], "{\"user\": \"emma\", oops",
        "kept as the string it was"
    );
}

#[test]
fn a_trace_file_without_any_level_and_no_flag() {
    let file = fx("traces/no-level.jsonl");
    let run = pactum(["grade", "-c", &fx("contracts/shop.yaml"), &file]);
    assert_code(&run, 2);
    let all = run.all();
    assert!(all.contains("no observability level"), "{all}");
    assert!(all.contains(&file), "names the file: {all}");
    // Both ways to declare it.
    assert!(all.contains("add an `observability` member"), "{all}");
    assert!(all.contains("pass --observability"), "{all}");
    // With the flag, the same file grades.
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/shop.yaml"),
        &file,
        "--observability",
        "tool_calls",
    ]);
    assert_code(&run, 0);
}

#[test]
fn a_file_level_error_is_located_once() {
    let file = fx("traces/no-level.jsonl");
    let run = pactum(["grade", "-c", &fx("contracts/shop.yaml"), &file]);
    assert_code(&run, 2);
    assert!(!run.all().contains(&format!("{file}:0:")), "{run:#?}");
    assert_eq!(run.all().matches(file.as_str()).count(), 1, "{run:#?}");
}

#[test]
fn a_csv_whose_mapped_columns_are_missing() {
    let file = fx("traces/tabular.csv");
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/shop.yaml"),
        &file,
        "--observability",
        "response_only",
        "--prompt-column",
        "question",
        "--response-column",
        "answer",
    ]);
    assert_code(&run, 2);
    let all = run.all();
    assert!(
        all.contains("column `question` (from --prompt-column) is not in the header")
            && all.contains("the columns are: id, prompt, response"),
        "{all}"
    );
    // Only one of the two column flags: refused before reading anything.
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/shop.yaml"),
        &file,
        "--observability",
        "response_only",
        "--prompt-column",
        "prompt",
    ]);
    assert_code(&run, 2);
    assert!(
        run.stderr
            .contains("need both --prompt-column and --response-column"),
        "{}",
        run.stderr
    );
    // The right columns grade (the tool-call clause is undetermined at
    // response_only, so WARN).
    let run = pactum([
        "grade",
        "-c",
        &fx("contracts/shop.yaml"),
        &file,
        "--observability",
        "response_only",
        "--prompt-column",
        "prompt",
        "--response-column",
        "response",
    ]);
    assert_code(&run, 3);
    assert!(run.stdout.contains("WARN  row-1"), "{}", run.stdout);
    assert!(run.stdout.contains("WARN  row-2"), "{}", run.stdout);
}

#[test]
fn a_csv_row_with_missing_fields_is_an_input_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("short.csv"),
        "id,prompt,response\nr1,hi,hello\nr2,only a prompt\nr3,bye,goodbye\n",
    )
    .expect("write");
    let contract = root().join(fx("contracts/judged-low.yaml"));
    let run = pactum_in(
        dir.path(),
        [
            "grade".as_ref(),
            "-c".as_ref(),
            contract.as_os_str(),
            "short.csv".as_ref(),
            "--observability".as_ref(),
            "response_only".as_ref(),
            "--prompt-column".as_ref(),
            "prompt".as_ref(),
            "--response-column".as_ref(),
            "response".as_ref(),
        ],
    );
    assert_code(&run, 5);
    assert!(run.stdout.contains("  short.csv:3: "), "{}", run.stdout);
    assert!(run.stdout.contains("PASS  r1"), "{}", run.stdout);
    assert!(run.stdout.contains("PASS  r3"), "{}", run.stdout);
}

#[test]
fn an_input_with_no_trace_is_never_a_pass() {
    let dir = tempfile::tempdir().expect("tmp");
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").expect("write");
    let run = pactum([
        "grade".as_ref(),
        "-c".as_ref(),
        fx("contracts/shop.yaml").as_ref(),
        empty.as_os_str(),
        "--observability".as_ref(),
        "full".as_ref(),
    ]);
    assert_code(&run, 2);
    assert!(
        run.stdout
            .contains("empty.jsonl: holds no trace: an input with no trace is never a pass"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("nothing was graded"), "{}", run.stdout);

    // Next to a good file, an empty one makes the run partial, never green.
    let run = pactum([
        "grade".as_ref(),
        "-c".as_ref(),
        fx("contracts/shop.yaml").as_ref(),
        empty.as_os_str(),
        root().join(fx("traces/pass.jsonl")).as_os_str(),
    ]);
    assert_code(&run, 5);
    assert!(run.stdout.contains("the run is partial"), "{}", run.stdout);

    // Every record unreadable: nothing was graded, and the summary says so.
    let garbage = dir.path().join("garbage.jsonl");
    std::fs::write(&garbage, "garbage\n").expect("write");
    let run = pactum([
        "grade".as_ref(),
        "-c".as_ref(),
        fx("contracts/shop.yaml").as_ref(),
        garbage.as_os_str(),
    ]);
    assert_code(&run, 2);
    assert!(
        run.stdout.contains("1 input error — nothing was graded"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("partial"), "{}", run.stdout);
}

#[test]
fn a_pipe_is_refused_by_name_not_called_missing() {
    let dir = tempfile::tempdir().expect("tmp");
    let fifo = dir.path().join("traces.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let run = pactum([
        "grade".as_ref(),
        "-c".as_ref(),
        fx("contracts/shop.yaml").as_ref(),
        fifo.as_os_str(),
    ]);
    assert_code(&run, 2);
    assert!(
        run.stderr
            .contains("not a regular file (a pipe or a device)"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("no such trace file"), "{}", run.stderr);

    let run = pactum(["grade", "-c", &fx("contracts/shop.yaml"), "-"]);
    assert_code(&run, 2);
    assert!(
        run.stderr
            .contains("-: standard input cannot be read as a trace file"),
        "{}",
        run.stderr
    );
}

#[test]
fn reading_commands_never_create_a_store() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("typo").join("pactum.db");
    for cmd in [
        vec!["runs".as_ref(), "--db".as_ref(), db.as_os_str()],
        vec![
            "show".as_ref(),
            "r1".as_ref(),
            "--db".as_ref(),
            db.as_os_str(),
        ],
        vec![
            "rescore".as_ref(),
            "r1".as_ref(),
            "--db".as_ref(),
            db.as_os_str(),
        ],
    ] {
        let run = pactum(&cmd);
        assert_code(&run, 2);
        assert!(
            run.stderr.contains("no pactum store here"),
            "{}",
            run.stderr
        );
        assert!(!dir.path().join("typo").exists(), "{cmd:?} created a store");
    }
}

/// A one-record file that is not JSON (NaN, a number out of range, deep
/// nesting, a lone surrogate) gets its parse error with line and column,
/// not advice to pass --format; a wrong-typed `observability` names the
/// field and its values, not "invalid JSON".
#[test]
fn a_trace_file_that_is_not_json_gets_its_parse_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let contract = root().join(fx("contracts/shop.yaml"));
    let deep = format!(
        "{{\"id\": \"d\", \"turns\": [], \"x\": {}0{}}}\n",
        "[".repeat(300),
        "]".repeat(300)
    );
    for (name, text, says) in [
        (
            "nan.jsonl",
            "{\"id\": \"a\", \"turns\": [], \"x\": NaN}\n".to_string(),
            "nan.jsonl:1: invalid JSON: expected value (column 31)",
        ),
        (
            "big.json",
            "{\"id\": \"a\",\n \"x\": 1e400, \"turns\": []}\n".to_string(),
            "big.json:2: invalid JSON: number out of range (column 11)",
        ),
        (
            "deep.jsonl",
            deep,
            "deep.jsonl:1: invalid JSON: recursion limit exceeded",
        ),
        (
            "surrogate.jsonl",
            "{\"id\": \"a\", \"turns\": [], \"x\": \"\\udc00!\"}\n".to_string(),
            "surrogate.jsonl:1: invalid JSON:",
        ),
    ] {
        std::fs::write(dir.path().join(name), text).expect("write");
        let run = pactum_in(
            dir.path(),
            [
                "grade".as_ref(),
                "-c".as_ref(),
                contract.as_os_str(),
                name.as_ref(),
                "--observability".as_ref(),
                "full".as_ref(),
            ],
        );
        assert_code(&run, 2);
        assert!(run.all().contains(says), "{name}: {}", run.all());
        assert!(
            !run.all().contains("--format"),
            "{name}: wrong advice: {}",
            run.all()
        );
    }
    std::fs::write(
        dir.path().join("level.jsonl"),
        "{\"id\": \"a\", \"observability\": 5, \"turns\": []}\n",
    )
    .expect("write");
    let run = pactum_in(
        dir.path(),
        [
            "grade".as_ref(),
            "-c".as_ref(),
            contract.as_os_str(),
            "level.jsonl".as_ref(),
        ],
    );
    assert_code(&run, 2);
    assert!(
        run.all().contains("/observability: expected an observability level (response_only, tool_calls or full), found a number"),
        "{}",
        run.all()
    );
    assert!(!run.all().contains("invalid JSON"), "{}", run.all());
}

/// The same file given twice (under another spelling, or through a
/// link), an empty trace id and two traces with one id are graded with a
/// named warning, in the terminal and the JSON report.
#[test]
fn repeated_inputs_and_trace_ids_are_warned_about() {
    let dir = tempfile::tempdir().expect("tmp");
    let contract = root().join(fx("contracts/shop.yaml"));
    let pass = std::fs::read_to_string(root().join(fx("traces/pass.jsonl"))).expect("fixture");
    std::fs::write(dir.path().join("a.jsonl"), &pass).expect("write");
    let first = pass.lines().next().expect("a line");
    let ids = format!(
        "{}\n{}\n{}\n",
        first.replace("\"id\":\"refund-1\"", "\"id\":\"\""),
        first,
        first.replace("\"id\":\"refund-1\"", "\"id\":\"other\"")
    );
    std::fs::write(dir.path().join("ids.jsonl"), ids).expect("write");
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("a.jsonl"), dir.path().join("link.jsonl"))
        .expect("symlink");
    let link = if cfg!(unix) { "link.jsonl" } else { "a.jsonl" };
    let run = pactum_in(
        dir.path(),
        [
            "grade".as_ref(),
            "-c".as_ref(),
            contract.as_os_str(),
            "a.jsonl".as_ref(),
            "./a.jsonl".as_ref(),
            link.as_ref(),
            "ids.jsonl".as_ref(),
            "--json".as_ref(),
            "r.json".as_ref(),
        ],
    );
    let report = read_report(&dir.path().join("r.json"));
    let warnings: Vec<(String, String)> = report["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| {
            (
                w["code"].as_str().expect("code").to_string(),
                w["message"].as_str().expect("message").to_string(),
            )
        })
        .collect();
    let of = |code: &str| {
        warnings
            .iter()
            .filter(|(c, _)| c == code)
            .map(|(_, m)| m.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        of("repeated-input"),
        [
            "./a.jsonl is the same file as a.jsonl: its traces are graded twice".to_string(),
            format!("{link} is the same file as a.jsonl: its traces are graded twice"),
        ],
        "{warnings:?}"
    );
    let empty = of("empty-trace-id");
    assert!(
        empty.len() == 1
            && empty[0].starts_with("1 trace(s) have an empty id (first: ids.jsonl:1)"),
        "{warnings:?}"
    );
    let repeated = of("repeated-trace-id");
    assert!(
        repeated.len() == 1 && repeated[0].starts_with("1 trace(s) reuse the id of an earlier trace (first: `refund-1` again at ids.jsonl:2)"),
        "{warnings:?}"
    );
    for code in ["repeated-input", "empty-trace-id", "repeated-trace-id"] {
        assert!(
            run.stdout.contains(&format!("{code}: ")),
            "{code}: {}",
            run.stdout
        );
    }
}
