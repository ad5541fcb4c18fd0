//! Helpers shared by the test files that build OpenProse runs in a
//! temporary folder and grade them without a judge.

#![allow(dead_code)]

use pactum_core::outcome::Evidence;
use pactum_core::result::ContractResult;
use pactum_core::trace::Trace;
use pactum_core::{Policy, Verdict};
use pactum_eval::CompiledContract;
use pactum_openprose::grade::{grade_run, no_judge, RunGrade};
use pactum_openprose::{import_run, ImportError};

pub fn write(dir: &std::path::Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

pub const OK_LOG: &str =
    "# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---end 2026-12-01T10:15:31Z\n";

/// A single service `svc` whose root holds `body` after its frontmatter,
/// a caller input `topic`, a clean log and `files` (path, text).
pub fn run_with(body: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tempdir");
    write(
        d.path(),
        "root.prose.md",
        &format!(
            "---\nname: svc\nkind: service\n---\n## Requires\n\n- topic: the subject\n\n{body}\n"
        ),
    );
    write(
        d.path(),
        "bindings/caller/topic.md",
        "# topic\nbinding: input\nsource: caller\n---\nSolid-state batteries\n",
    );
    write(d.path(), "vm.log.md", OK_LOG);
    for (p, t) in files {
        write(d.path(), p, t);
    }
    d
}

/// A single service `svc` whose root is `root` whole, a caller input
/// `topic`, a clean log, and `out.md` holding a two-item list.
pub fn run_root(root: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tempdir");
    write(d.path(), "root.prose.md", root);
    write(
        d.path(),
        "bindings/caller/topic.md",
        "# topic\nbinding: input\nsource: caller\n---\nSolid-state batteries\n",
    );
    write(d.path(), "vm.log.md", OK_LOG);
    write(d.path(), "bindings/svc/out.md", "- Daikin\n- Vaillant\n");
    d
}

/// The root `svc` with `body` after its frontmatter.
pub fn root(body: &str) -> String {
    format!("---\nname: svc\nkind: service\n---\n\n{body}\n")
}

pub fn grade_dir(dir: &std::path::Path) -> RunGrade {
    let run = import_run(dir).expect("imports");
    let policy = Policy::default();
    let mut judge = no_judge(policy);
    grade_run(&run, &policy, &mut judge)
}

pub fn by_text(g: &RunGrade) -> Vec<(String, Verdict)> {
    g.contracts
        .iter()
        .flat_map(|c| c.clauses.iter().map(|r| (r.text.clone(), r.verdict)))
        .collect()
}

/// Grades one `summary` clause over one binding, returning its verdict.
pub fn one(clause: &str, binding: &str) -> Verdict {
    one_at(clause, "bindings/svc/summary.md", binding)
}

/// Grades one `summary` clause over one binding at `path`, returning its
/// verdict.
pub fn one_at(clause: &str, path: &str, binding: &str) -> Verdict {
    one_why_at(clause, path, binding).0
}

/// Grades one `summary` clause over one binding at `path`, returning its
/// verdict and its rationale.
pub fn one_why_at(clause: &str, path: &str, binding: &str) -> (Verdict, String) {
    let d = run_with(
        &format!("## Ensures\n\n- `summary`: {clause}\n"),
        &[(path, binding)],
    );
    let g = grade_dir(d.path());
    let v: Vec<(Verdict, String)> = g
        .contracts
        .iter()
        .flat_map(|c| c.clauses.iter().map(|r| (r.verdict, r.rationale.clone())))
        .collect();
    assert_eq!(v.len(), 1, "{clause}: {g:#?}");
    v[0].clone()
}

/// A clause asking only for a shape (a format, a list, a table,
/// headings, JSON) that held over `binding`, nothing else found: the
/// judge's, as any shape is, and for that reason alone.
pub fn only_shape_held(clause: &str, binding: &str) {
    only_shape_held_at(clause, "bindings/svc/summary.md", binding);
}

/// [`only_shape_held`] over a binding at `path`.
pub fn only_shape_held_at(clause: &str, path: &str, binding: &str) {
    let (v, why) = one_why_at(clause, path, binding);
    assert_eq!(
        v,
        Verdict::NotEvaluable,
        "{clause:?} over {binding:?}: {why}"
    );
    assert!(
        why.contains("what held is a shape") && why.matches("for the judge").count() == 1,
        "{clause:?} over {binding:?}: {why}"
    );
}

pub fn never_green(clause: &str, binding: &str) {
    let v = one(clause, binding);
    assert_ne!(
        v,
        Verdict::Satisfied,
        "{clause:?} over {binding:?} came out satisfied"
    );
}

/// [`never_green`] of each `(clause, binding)`.
pub fn none_green(cases: &[(&str, &str)]) {
    for (clause, binding) in cases {
        never_green(clause, binding);
    }
}

/// Each clause over its binding is kept: satisfied, or, for a bound
/// that says "no more than" on items, sources, rows or headings (which a
/// count never meets: it is the judge's), at least never violated.
pub fn green(cases: &[(&str, &str)]) {
    for (clause, binding) in cases {
        let v = one(clause, binding);
        if says_no_more_than(clause) || says_a_quote(clause) {
            assert_ne!(v, Verdict::Violated, "{clause:?} over {binding:?}");
        } else {
            assert_eq!(v, kept(clause), "{clause:?} over {binding:?}");
        }
    }
}

/// Whether a clause only bounds its output from above or forbids
/// something (`at most 5 words`, `not mentioning "x"`, `without
/// headings`): what held is kept by filler too, so a green is the
/// judge's.
pub fn only_bounds_or_forbids(clause: &str) -> bool {
    let c = clause.to_lowercase();
    let upper = [
        "at most",
        "no more than",
        "up to",
        "fewer than",
        "less than",
        "maximum",
        "max ",
        "≤",
        "<=",
        " or fewer",
        " or less",
    ];
    let negated = ["not ", "no ", "without", "never", "n't"];
    let positive = [
        "at least",
        "exactly",
        "between",
        "json",
        "table",
        "list",
        "saying",
        "says",
        "each",
        "heading",
        "+",
        "more than",
        "minimum",
        "min ",
    ];
    let unquoted: String = c.split('"').step_by(2).collect();
    (upper.iter().any(|u| unquoted.contains(u)) || negated.iter().any(|n| unquoted.contains(n)))
        && !positive.iter().any(|p| {
            unquoted.contains(p)
                && !negated.iter().any(|n| {
                    unquoted.contains(&format!("{n}{p}")) || unquoted.contains(&format!("{n}a {p}"))
                })
        })
}

/// Whether a clause asks only for what its output's name names (`a
/// summary`, `a report`): existence is measured, what the output is is
/// the judge's, so a correct output is `not_evaluable` without one.
pub fn asks_only_existence(clause: &str) -> bool {
    matches!(
        clause.trim().trim_end_matches('.').to_lowercase().as_str(),
        "a summary" | "the summary" | "a report" | "a note" | "an answer" | "a brief" | "summary"
    )
}

/// Whether a clause bounds items, sources, rows or headings from above
/// (`at most 2 items`, `exactly 1 source`, `2-3 rows`, `no table`).
pub fn says_no_more_than(clause: &str) -> bool {
    let c = clause.to_lowercase();
    let units = [
        "item",
        "source",
        "row",
        "heading",
        "section",
        "link",
        "url",
        "entr",
        "reference",
        "citation",
    ];
    let upper = [
        "at most",
        "no more than",
        "up to",
        "exactly",
        "fewer than",
        "less than",
        "between",
        "maximum",
        "max ",
        "≤",
        "<=",
        "< ",
        " or fewer",
        " or less",
        "-",
        "–",
        " to ",
    ];
    (units.iter().any(|u| c.contains(u)) && upper.iter().any(|u| c.contains(u)))
        || [
            "no table",
            "no list",
            "without headings",
            "not a list",
            "no headings",
        ]
        .iter()
        .any(|n| c.contains(n))
}

/// Whether a clause requires a quoted text (`saying "x"`, not negated):
/// found anywhere but in an output that is the quote alone, whether it is
/// said is the judge's.
pub fn says_a_quote(clause: &str) -> bool {
    let c = clause.to_lowercase();
    let unquoted: String = c.split('"').step_by(2).collect();
    let verbs = [
        "saying", "says", "say ", "contain", "includ", "mention", "reads", "stating", "states",
    ];
    c.contains('"')
        && verbs.iter().any(|v| c.contains(v))
        && !["not ", "no ", "without", "never", "n't"]
            .iter()
            .any(|n| unquoted.contains(n))
}

/// Whether what a clause asks, read, is met by a short non-answer as
/// well (`- Done.`, "I have no idea."): a format, a list, a table,
/// headings, JSON, or a lower bound under ten words, three paragraphs,
/// two items, rows or headings, or one source. A correct output is then
/// the judge's.
pub fn only_shape_or_a_low_bound(clause: &str) -> bool {
    use pactum_openprose::check::{Measure, Unit};
    let r = pactum_openprose::check::read(clause);
    !r.measures.iter().any(|(_, m)| match m {
        Measure::Count { unit, min, .. } => {
            *min >= match unit {
                Unit::Words => 10,
                Unit::Paragraphs => 3,
                Unit::Sources => 1,
                _ => 2,
            }
        }
        Measure::Contains(q) => q.split_whitespace().count() >= 2,
        Measure::Each { .. } => true,
        _ => false,
    })
}

/// The verdict of a clause that held over a correct output: satisfied,
/// or the judge's for a bound that says "no more than"
/// ([`says_no_more_than`]), a quote said in more than the quote alone
/// ([`says_a_quote`]) or a clause asking only for what its output's
/// name names ([`asks_only_existence`]).
pub fn kept(clause: &str) -> Verdict {
    if says_no_more_than(clause)
        || only_shape_or_a_low_bound(clause)
        || says_a_quote(clause)
        || asks_only_existence(clause)
        || only_bounds_or_forbids(clause)
    {
        Verdict::NotEvaluable
    } else {
        Verdict::Satisfied
    }
}

/// Either the contract is refused naming a line, or a clause saying "at
/// least 5 items" is graded and not satisfied (the output has two).
pub fn five_items_not_dropped(body: &str) {
    let d = run_root(&root(body));
    match import_run(d.path()) {
        Err(ImportError::Contract { line, .. }) => assert!(line > 0, "{body}"),
        Err(e) => panic!("{body}: {e:?}"),
        Ok(_) => {
            let g = grade_dir(d.path());
            let clauses = by_text(&g);
            assert!(
                clauses
                    .iter()
                    .any(|(t, v)| t.contains("at least 5 items") && *v != Verdict::Satisfied),
                "{body}: {clauses:#?}"
            );
        }
    }
}

/// A judge that answers satisfied for every clause it is asked about,
/// quoting `quote` (found at `turn` of the transcript) as its only
/// evidence: what pactum does with a quote is then all that decides.
pub fn satisfied_quoting<'a>(
    policy: &'a Policy,
    turn: usize,
    quote: &'a str,
) -> impl FnMut(&CompiledContract, &Trace) -> ContractResult + 'a {
    move |c: &CompiledContract, t: &Trace| {
        let mut r = c.grade(t, policy, &pactum_eval::NoJudge);
        for cl in &mut r.clauses {
            cl.verdict = Verdict::Satisfied;
            cl.reason = None;
            cl.confidence = 95;
            cl.evidence = vec![Evidence::Quote {
                turn,
                source: "response".into(),
                text: quote.into(),
            }];
        }
        r
    }
}

/// A service `svc` with a degraded path for `search-failed`, its output
/// the degraded note, and `error` as its `__error.md`.
pub fn degraded(error: &str) -> tempfile::TempDir {
    let d = run_root(&root(
        "## Ensures\n\n- `out`: at least 3 items\n- if search-failed: `out` says \"no sources were found\"\n\n## Errors\n\n- search-failed: the search tool failed",
    ));
    write(
        d.path(),
        "bindings/svc/out.md",
        "No sources were found for this topic.\n",
    );
    write(d.path(), "workspace/svc/__error.md", error);
    d
}

/// Either the run with `error` as its `__error.md` ([`degraded`]) is
/// refused (`Some(the file named)`), or the second error is read and the
/// contract is not a pass (`None`).
pub fn second_error_counts(error: &str) -> Option<String> {
    let d = degraded(error);
    match import_run(d.path()) {
        Err(ImportError::RunFile { file, .. }) => Some(file),
        Err(e) => panic!("{error:?}: {e:?}"),
        Ok(run) => {
            assert!(run.errors.len() >= 2, "{error:?}: {:?}", run.errors);
            let g = grade_dir(d.path());
            assert!(
                by_text(&g).iter().any(|(_, v)| *v == Verdict::Violated),
                "{error:?}: {g:#?}"
            );
            None
        }
    }
}

/// Copies the folder `from` into `to`, every file and folder.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
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

/// Grades the run at `dir` with a judge that answers satisfied quoting
/// `quote` ([`satisfied_quoting`], turn 1): the first clause's verdict
/// and reason.
pub fn judged_run(
    dir: &std::path::Path,
    quote: &str,
) -> (Verdict, Option<pactum_core::NotEvaluableReason>) {
    let run = import_run(dir).expect("imports");
    let policy = Policy::default();
    let mut judge = satisfied_quoting(&policy, 1, quote);
    let g = grade_run(&run, &policy, &mut judge);
    let c = &g.contracts[0].clauses[0];
    (c.verdict, c.reason)
}

/// A service whose workspace holds `name` with `body`: either refused
/// naming that file, or graded with no clause satisfied.
pub fn workspace_file_never_passed_over(name: &str, body: &str) {
    let d = run_root(&root("## Ensures\n\n- `out`: at least 2 items"));
    write(d.path(), &format!("workspace/svc/{name}"), body);
    match import_run(d.path()) {
        Err(ImportError::RunFile { file, .. }) => {
            let base = name.rsplit('/').next().unwrap_or(name);
            assert!(file.ends_with(base), "{name:?}: {file}");
        }
        Err(e) => panic!("{name:?}: {e:?}"),
        Ok(_) => {
            let g = grade_dir(d.path());
            assert!(
                by_text(&g).iter().all(|(_, v)| *v != Verdict::Satisfied),
                "{name:?} {body:?}: {g:#?}"
            );
        }
    }
}

/// A service whose root is `body` after its Requires, with `summary.md`
/// holding `summary` bound: refused, naming a line of the root.
pub fn refused_with(body: &str, summary: &str) {
    let d = run_with(body, &[("bindings/svc/summary.md", summary)]);
    match import_run(d.path()) {
        Err(ImportError::Contract { file, line, .. }) => {
            assert!(file.ends_with("root.prose.md"), "{body:?}: {file}");
            assert!(line > 0, "{body:?}");
        }
        Err(e) => panic!("{body:?}: {e}"),
        Ok(_) => panic!("{body:?} was graded: {:#?}", by_text(&grade_dir(d.path()))),
    }
}
