//! The page's tab title must never read as a pass for a run that is not
//! one: a run of only error and undetermined results, or a partial run,
//! is named so in the title (SPEC §4: fail closed), not "N traces, 0 fail".

mod support;

use pactum_core::TestStatus;
use pactum_report::HtmlReporter;
use support::*;

fn title_of(
    results: &[(pactum_core::TraceResult, Option<TestStatus>)],
    errors: &[pactum_report::InputError],
) -> String {
    let mut html = Vec::new();
    let mut r = HtmlReporter::new(&mut html).expect("spool");
    drive(&mut r, &run_info(false), results, errors, &run_end());
    drop(r);
    let page = String::from_utf8(html).expect("utf-8");
    let at = page.find("<title>").expect("a title") + 7;
    page[at..at + page[at..].find("</title>").expect("its end")].to_string()
}

#[test]
fn a_run_without_a_pass_or_a_fail_is_not_titled_as_a_pass() {
    let unsure: Vec<_> = unlabelled(mixed_results())
        .into_iter()
        .filter(|(r, _)| matches!(r.status, TestStatus::Error | TestStatus::Undetermined))
        .collect();
    let errors = unsure
        .iter()
        .filter(|(r, _)| r.status == TestStatus::Error)
        .count();
    let undetermined = unsure.len() - errors;
    assert!(errors > 0 && undetermined > 0, "the fixture has both");
    let title = title_of(&unsure, &[]);
    assert!(
        title.contains(&format!("{errors} error"))
            && title.contains(&format!("{undetermined} undetermined")),
        "{title}"
    );
    assert!(!title.ends_with("0 fail"), "{title}");
}

#[test]
fn a_partial_run_is_titled_partial() {
    let title = title_of(&unlabelled(mixed_results()), &input_errors());
    assert!(title.contains("the run is partial"), "{title}");
}
