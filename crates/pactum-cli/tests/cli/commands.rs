//! `pactum check`, `pactum schema` and `--help`.

use serde_json::Value;

use crate::support::*;

#[test]
fn check_lists_the_example_contracts_with_their_digests() {
    let run = pactum(["check", EX_CONTRACTS]);
    assert_code(&run, 0);
    assert_eq!(run.stderr, "");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{}", run.stdout);
    for (line, suite) in lines
        .iter()
        .zip(["banking", "slack", "travel", "workspace"])
    {
        assert!(
            line.starts_with(&format!(
                "ok  {EX_CONTRACTS}/{suite}.yaml  agentdojo-{suite}  (0 required, 1 prohibited, 0 conditional)  sha256:"
            )),
            "{line}"
        );
        let digest = line.rsplit("sha256:").next().expect("digest");
        assert!(
            digest.len() == 64 && digest.chars().all(|c| c.is_ascii_hexdigit()),
            "{line}"
        );
    }
    assert_eq!(lines[4], "4 contract(s) valid, 0 warning(s)");
    // Deterministic.
    assert_eq!(pactum(["check", EX_CONTRACTS]).stdout, run.stdout);
}

#[test]
fn check_at_response_only_warns_about_the_tool_call_checks() {
    let run = pactum(["check", EX_CONTRACTS, "--observability", "response_only"]);
    assert_code(&run, 0);
    assert!(
        run.stdout.ends_with("4 contract(s) valid, 4 warning(s)\n"),
        "{}",
        run.stdout
    );
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning["))
        .collect();
    assert_eq!(warnings.len(), 4, "{}", run.stderr);
    for w in warnings {
        assert!(
            w.contains("tool_called") && w.contains("tool_calls") && w.contains("response_only"),
            "{w}"
        );
    }
    // At a level that sees tool calls there is nothing to warn about.
    let run = pactum(["check", EX_CONTRACTS, "--observability", "tool_calls"]);
    assert_code(&run, 0);
    assert_eq!(run.stderr, "");
}

#[test]
fn check_refuses_a_bad_contract() {
    let run = pactum([
        "check",
        EX_CONTRACTS,
        &fx("bad-contracts/three-errors.yaml"),
    ]);
    assert_code(&run, 2);
    assert_eq!(run.stdout, "", "no partial listing");
    assert!(
        run.stderr.contains("error[invalid-regex]"),
        "{}",
        run.stderr
    );
}

#[test]
fn schema_prints_each_committed_schema() {
    for (kind, file) in [
        ("contract", "contract.schema.json"),
        ("trace", "trace.schema.json"),
        ("expectations", "expectations.schema.json"),
        ("report", "report.schema.json"),
        ("suite", "suite.schema.json"),
        ("policy", "policy.schema.json"),
        ("probe", "probe.schema.json"),
        ("strength-artifact", "strength-artifact.schema.json"),
    ] {
        let run = pactum(["schema", kind]);
        assert_code(&run, 0);
        let schema: Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("schema {kind} is not JSON: {e}"));
        // The suite schema refers to the contract schema by file name (for
        // editors), so it compiles only beside it.
        if kind != "suite" {
            assert!(
                jsonschema::validator_for(&schema).is_ok(),
                "schema {kind} compiles"
            );
        }
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{kind}"
        );
        let committed =
            std::fs::read_to_string(root().join("schemas").join(file)).expect("committed schema");
        assert_eq!(run.stdout, committed, "{kind}: the committed file");
    }
    let run = pactum(["schema", "nope"]);
    assert_code(&run, 2);
}

#[test]
fn the_contract_schema_refuses_an_unknown_key() {
    let run = pactum(["schema", "contract"]);
    let schema: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let validator = jsonschema::validator_for(&schema).expect("compiles");
    let wrong = serde_json::json!({"version": 1, "id": "x", "prohibited": [{"id": "a", "text": "Send money", "chek": {"contains": "sent"}}]});
    assert!(!validator.is_valid(&wrong), "a misspelt key is refused");
    let right = serde_json::json!({"version": 1, "id": "x", "prohibited": [{"id": "a", "text": "Send money", "check": {"contains": "sent"}}]});
    assert!(validator.is_valid(&right), "a minimal contract fits");
}

#[test]
fn help_carries_the_exit_code_table() {
    for args in [
        &["--help"][..],
        &["grade", "--help"][..],
        &["check", "--help"][..],
    ] {
        let run = pactum(args);
        assert_code(&run, 0);
        assert!(
            run.stdout.contains(pactum_cli::exit::TABLE),
            "{args:?}: {}",
            run.stdout
        );
    }
    let run = pactum(["--help"]);
    for code in [0, 1, 2, 3, 4, 5] {
        assert!(run.stdout.contains(&format!("\n  {code}  ")), "code {code}");
    }
}

#[test]
fn help_says_what_pactum_is() {
    let run = pactum(["--help"]);
    assert_code(&run, 0);
    assert!(!run.stdout.contains("clap definitions"), "{}", run.stdout);
    assert!(
        run.stdout.contains("evaluation contracts"),
        "{}",
        run.stdout
    );
}
