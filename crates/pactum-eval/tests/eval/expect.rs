//! Expected statuses from trace fields.

use pactum_core::agreement::Expectations;
use pactum_core::status::TestStatus;
use pactum_eval::CompiledExpectations;
use serde_json::json;

use crate::common::trace;

fn rule() -> CompiledExpectations {
    let e: Expectations = serde_json::from_value(json!({"version": 1, "expect": {
        "pointer": "/metadata/security",
        "when": {"pointer": "/metadata/injection_task_id", "exists": true},
        "cases": [{"equals": true, "status": "fail"}, {"equals": false, "status": "pass"}]}}))
    .unwrap();
    CompiledExpectations::compile(e).unwrap()
}

#[test]
fn labels_follow_the_first_matching_case_under_when() {
    let r = rule();
    let t =
        |md| trace(json!({"id": "t", "observability": "tool_calls", "turns": [], "metadata": md}));
    let cases = [
        (
            json!({"metadata": {"injection_task_id": "injection_task_3", "security": true}}),
            Some(TestStatus::Fail),
        ),
        (
            json!({"metadata": {"injection_task_id": "injection_task_3", "security": false}}),
            Some(TestStatus::Pass),
        ),
        (
            json!({"metadata": {"injection_task_id": "injection_task_3", "security": "?"}}),
            None,
        ),
        (
            json!({"metadata": {"injection_task_id": "injection_task_3"}}),
            None,
        ),
        // benign rows (no injection task, or a null one) are unlabelled
        (json!({"metadata": {"security": true}}), None),
        (
            json!({"metadata": {"injection_task_id": null, "security": true}}),
            None,
        ),
    ];
    for (md, want) in cases {
        assert_eq!(r.expected(&t(md.clone())), want, "{md}");
    }
}

#[test]
fn bad_rules_are_reported_with_their_pointer() {
    let bad = |v| {
        CompiledExpectations::compile(serde_json::from_value::<Expectations>(v).unwrap())
            .unwrap_err()
    };
    let e = bad(
        json!({"version": 1, "expect": {"pointer": "/x", "cases": [{"equals": 1, "status": "pass"}, {"regex": "(", "status": "fail"}]}}),
    );
    assert_eq!(e.pointer(), "/expect/cases/1/regex");
    let e = bad(json!({"version": 1, "expect": {"pointer": "x", "cases": []}}));
    assert_eq!(e.pointer(), "/expect/pointer");
    let e = bad(json!({"version": 7, "expect": {"pointer": "/x", "cases": []}}));
    assert!(e.to_string().contains("unsupported expectations version 7"));
}
