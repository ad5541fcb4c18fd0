//! A commitment written outside every section of clauses on an output of
//! the run: another node's output, a binding the run holds beside the
//! declared ones, or the contract's own in another spelling. Each is
//! refused, never dropped.

use pactum_openprose::{import_run, ImportError};

mod common;
use common::*;

/// A system of two inline services whose root ends with `tail`.
fn system(tail: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tempdir");
    let root = format!(
        "---\nname: brief-sys\nkind: system\n---\n\n## Requires\n\n- market: the market\n\n## researcher\n\n### Ensures\n\n- `notes`: at least 10 words\n\n## analyst\n\n### Requires\n\n- `notes`: the researcher's notes\n\n### Ensures\n\n- `brief`: at least 3 items\n{tail}"
    );
    write(d.path(), "root.prose.md", &root);
    write(d.path(), "sources/brief-sys.prose.md", &root);
    write(
        d.path(),
        "bindings/caller/market.md",
        "# market\nbinding: input\nsource: caller\n---\nHeat pumps in Europe\n",
    );
    write(
        d.path(),
        "bindings/root.researcher/notes.md",
        "Heat pumps are spreading fast across Europe because subsidies grew and the price of gas rose sharply.\n",
    );
    write(
        d.path(),
        "bindings/root.analyst/brief.md",
        "- Daikin makes heat pumps in Belgium\n- Vaillant builds boilers in Remscheid\n- Bosch sells heat pumps in Germany\n",
    );
    write(
        d.path(),
        "forme.manifest.json",
        r#"{"id":"r1","systemName":"brief-sys","sourcePath":"brief-sys.prose.md",
 "caller":{"requires":[{"name":"market"}],"returns":[{"name":"brief","source":"root.analyst"}]},
 "graph":[{"id":"root.researcher","sourcePath":"brief-sys.prose.md","outputs":[{"name":"notes"}]},
          {"id":"root.analyst","sourcePath":"brief-sys.prose.md","outputs":[{"name":"brief"}]}]}"#,
    );
    write(
        d.path(),
        "vm.log.md",
        "# run:r1 brief-sys\nroot: root.prose.md\n1→ root.researcher ✓\n2→ root.analyst ✓\n---end 2026-12-01T10:15:31Z\n",
    );
    d
}

fn refused_on_line(d: &tempfile::TempDir, line: usize, why: &str) {
    match import_run(d.path()) {
        Err(ImportError::Contract {
            line: l, message, ..
        }) => {
            assert_eq!(l, line, "{why}: {message}");
            assert!(
                message.contains("would never be graded"),
                "{why}: {message}"
            );
        }
        other => panic!("{why}: expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_commitment_on_a_nodes_output_in_the_system_root_is_refused() {
    // The root holds 24 lines before the tail, which opens with a blank one.
    for tail in [
        "\n## Output details\n\n- `brief`: at least 9 items\n",
        "\n## Output details\n\n| output | requirement |\n|---|---|\n| `brief` | at least 9 items |\n",
        "\n## Output details\n\n- The `notes` hold at least 90 words\n",
        "\n## Output details\n\n- Brief has at least 9 items.\n",
    ] {
        let d = system(tail);
        let line = 25 + tail.lines().position(|l| l.contains("rief") || l.contains("notes")).expect("a line");
        refused_on_line(&d, line, tail);
    }
    // The same names in the sections of inputs are what a node reads.
    let d = system("");
    assert!(import_run(d.path()).is_ok());
}

#[test]
fn a_commitment_on_a_binding_the_run_holds_beside_the_declared_ones_is_refused() {
    let d = run_with(
        "## Ensures\n\n- `summary`: at least 10 words\n\n## Output details\n\n- `sources`: at least 9 sources\n",
        &[
            (
                "bindings/svc/summary.md",
                "Heat pumps are spreading fast across Europe because subsidies grew and gas rose.\n",
            ),
            ("bindings/svc/sources.md", "- https://www.daikin.com/\n"),
        ],
    );
    refused_on_line(&d, 15, "sources");
}

#[test]
fn a_commitment_on_the_contracts_own_output_is_refused_in_every_spelling() {
    let good = "Heat pumps are spreading fast across Europe because subsidies grew and the price of gas rose sharply in 2022.\n";
    for bullet in [
        "- `summary.md`: at least 90 words",
        "- summary → at least 90 words",
        "- Summary has at least 90 words.",
        "- `ѕummary`: at least 90 words",
        "- `Summary`: at least 90 words",
        "| Summary | at least 90 words |",
    ] {
        let d = run_with(
            &format!(
                "## Ensures\n\n- `summary`: at least 10 words\n\n## Output details\n\n{bullet}\n"
            ),
            &[("bindings/svc/summary.md", good)],
        );
        assert!(
            matches!(
                import_run(d.path()),
                Err(ImportError::Contract { line: 15, .. })
            ),
            "{bullet}: {:?}",
            import_run(d.path()).map(|_| ())
        );
    }
    // A line of prose naming it is no bullet.
    let d = run_with(
        "## Ensures\n\n- `summary`: at least 10 words\n\n## Output details\n\nThe summary is read by the editor.\n",
        &[("bindings/svc/summary.md", good)],
    );
    assert!(import_run(d.path()).is_ok());
}

const GOOD: &str = "Heat pumps are spreading fast across Europe because subsidies grew and the price of gas rose sharply in 2022.\n";

/// A single service whose root has `tail` after `## Ensures` /
/// `` - `summary`: at least 10 words ``, its summary of 19 words.
fn service(tail: &str) -> Result<(), ImportError> {
    let d = run_with(
        &format!("## Ensures\n\n- `summary`: at least 10 words\n\n{tail}"),
        &[("bindings/svc/summary.md", GOOD)],
    );
    import_run(d.path()).map(drop)
}

#[test]
fn a_commitment_in_an_errors_section_under_a_heading_named_like_it_or_below_a_pointer_is_refused() {
    for tail in [
        "## Errors\n\n- `summary`: at least 90 words\n",
        "## Error\n\n- summary → at least 90 words\n",
        "## Output details\n\n### summary\n\n- at least 90 words\n",
        "## Output details\n\n### `Summary`\n\n- at least 90 words\n",
        "## Output details\n\nsummary: at least 90 words\n",
        "## Output details\n\nSee below.\n\nThe summary has at least 90 words.\n",
        "## Output details\n\nDetails below.\n\n### Length\n\nThe summary has at least 90 words.\n",
        "## Strategies\n\n- [x] summary: at least 90 words\n",
        "## Notes\n\n- {summary}: at least 90 words\n",
        "## Notes\n\n- bindings/svc/summary.md: at least 90 words\n",
    ] {
        assert!(
            matches!(service(tail), Err(ImportError::Contract { .. })),
            "{tail}: {:?}",
            service(tail)
        );
    }
}

#[test]
fn sections_of_inputs_and_wiring_may_name_any_output_however_their_heading_is_written() {
    for tail in [
        "## Tools\n\n- web-search: used to gather facts for the `summary`\n",
        "## Parameters\n\n- `summary_style`: style of the **summary** (default: short)\n",
        "## Environment\n\n- `SUMMARY_MODEL`: model used to write the `summary`\n",
        "## Services\n\n- `writer`: writes `summary`\n",
        "## Errors\n\n- summary-failed: the summary could not be written\n",
        "## Output details\n\nThe summary is read by the editor.\n",
        "## Output details\n\n### Summary of the approach\n\n- search first\n",
    ] {
        assert!(service(tail).is_ok(), "{tail}: {:?}", service(tail));
    }
    for heading in [
        "## Requires:",
        "## Requires (from researcher)",
        "## 2. Requires",
        "## Inputs — upstream",
    ] {
        let d = system(&format!(
            "\n{heading}\n\n- `brief`: the analyst's brief, read again\n"
        ));
        assert!(
            import_run(d.path()).is_ok(),
            "{heading}: {:?}",
            import_run(d.path()).map(drop)
        );
    }
}

#[test]
fn a_commitment_in_the_root_on_a_nested_runs_output_is_refused() {
    let d = run_with(
        "## Ensures\n\n- `summary`: at least 10 words\n\n## Output details\n\n- `facts`: at least 9 items\n",
        &[
            ("bindings/svc/summary.md", GOOD),
            (
                "imports/lib--facts/root.prose.md",
                "---\nname: factsvc\nkind: service\n---\n\n## Ensures\n\n- `facts`: a bulleted list of at least 2 items\n",
            ),
            (
                "imports/lib--facts/bindings/factsvc/facts.md",
                "- Heat pumps move heat from outside air into the house\n- Subsidies in Germany cover part of the cost\n",
            ),
            (
                "imports/lib--facts/vm.log.md",
                "# run:i1 factsvc\nroot: root.prose.md\n1→ factsvc ✓\n---end 2026-12-01T10:15:31Z\n",
            ),
        ],
    );
    refused_on_line(&d, 15, "facts");
}

#[test]
fn a_title_named_like_an_output_is_no_heading_over_its_bullets() {
    let d = run_with(
        "# Summary\n\n## Ensures\n\n- `summary`: at least 10 words\n\n## Strategies\n\n- search first\n",
        &[("bindings/svc/summary.md", GOOD)],
    );
    assert!(
        import_run(d.path()).is_ok(),
        "{:?}",
        import_run(d.path()).map(drop)
    );
}

#[test]
fn the_steps_of_the_work_may_be_named_after_the_outputs_they_make() {
    let d = run_with(
        "## Ensures\n\n- `report`: at least 10 words\n\n## Execution\n\nThe work runs in two phases.\n\n#### collect\n\nGathers the sources.\n\n#### report\n\nProduces one entry per finding. Each report has: title, source, verdict (\"kept\" / \"dropped\").\n\nStrategies:\n- report each finding on its own — one finding never sways another\n- when a finding cites at least 3 sources, say so\n",
        &[("bindings/svc/report.md", GOOD)],
    );
    assert!(
        import_run(d.path()).is_ok(),
        "{:?}",
        import_run(d.path()).map(drop)
    );
    // A label naming the output there still commits on it.
    let d = run_with(
        "## Ensures\n\n- `report`: at least 10 words\n\n## Execution\n\n- report: at least 90 words\n",
        &[("bindings/svc/report.md", GOOD)],
    );
    assert!(import_run(d.path()).is_err());
}

#[test]
fn a_line_stating_a_count_of_an_output_it_names_anywhere_is_refused() {
    for tail in [
        "## Output details\n\n- (a) summary: at least 90 words\n",
        "## Output details\n\nsummary → at least 90 words\n",
        "## Output details\n\nsummary = at least 90 words\n",
        "## Notes\n\n<table><tr><td>summary</td><td>at least 90 words</td></tr></table>\n",
        "## Notes\n\nIn the sum\u{ad}mary, use at least 90 words.\n",
        "## Notes\n\nSee section 4.\n\n## 4. Appendix\n\nThe summary has at least 90 words.\n",
        "## Errors\n\n- search-failed: `summary` then has at least 90 words\n",
        "## Errors\n\n### search-failed\n\nsummary → says \"none\"\n",
        "## Output details\n\nsummary\n-------\n\n- at least 90 words\n",
        "## Output details\n\n<h3>summary</h3>\n\n- at least 90 words\n",
        "## Output details\n\n### Summary (markdown)\n\n- at least 90 words\n",
        "## Output details\n\n### summary\n\n#### Length\n\n- at least 90 words\n",
        "## Output details\n\n### The summary\n\n- at least 90 words\n",
    ] {
        assert!(
            matches!(service(tail), Err(ImportError::Contract { .. })),
            "{tail}: {:?}",
            service(tail)
        );
    }
    // A format alone is how a description says what an output is.
    assert!(service("## Notes\n\nThe summary is written as a bulleted list.\n").is_ok());
}

#[test]
fn counts_the_judge_reads_and_quotes_of_any_verb_commit_outside_the_clauses_too() {
    for tail in [
        "## Notes\n\nThe summary has at least 3 and at most 4 paragraphs.\n",
        "## Notes\n\nThe summary has 3 paragraphs minimum.\n",
        "## Notes\n\nThe summary runs over 90 words.\n",
        "## Notes\n\nThe summary must be \"No sources were found.\"\n",
        "## Notes\n\nThe summary never uses \"lithium\".\n",
    ] {
        assert!(
            matches!(service(tail), Err(ImportError::Contract { .. })),
            "{tail}: {:?}",
            service(tail)
        );
    }
    // A record of the past is no commitment.
    assert!(service("## Changelog\n\n- 0.13: summary limit raised from 60 to 90 words\n").is_ok());
}

#[test]
fn an_errors_heading_inside_a_section_of_clauses_is_refused() {
    for heading in ["### Errors", "### Error"] {
        let tail = format!("{heading}\n\n- at least 90 words\n");
        assert!(
            matches!(service(&tail), Err(ImportError::Contract { .. })),
            "{heading}: {:?}",
            service(&tail)
        );
    }
}
