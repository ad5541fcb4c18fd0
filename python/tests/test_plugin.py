"""The pytest plugin through pytester: pass, fail with the breakdown,
undetermined (a failure unless the test says otherwise), trials, and the
terminal summary."""

from __future__ import annotations

import pytest

HEADER = '''
import json
import pytest
import pactum
from pactum import Clause, Contract, Trace, contains, tool_called, side_effect

CONTRACT = Contract(
    "shop",
    prohibited=[Clause("refund", "Refund an order", tool_called("issue_refund"), severity="critical")],
    required=[Clause("greets", "Greet the customer", contains("Hello"))],
)

def agent(prompt):
    """An in-process stand-in for a model: refunds when asked to."""
    msgs = [{"role": "user", "content": prompt}]
    if "refund" in prompt:
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "issue_refund", "arguments": json.dumps({"order": "A1"})}}]})
        msgs.append({"role": "tool", "tool_call_id": "c1", "content": "ok"})
    msgs.append({"role": "assistant", "content": "Hello! How can I help?"})
    return Trace.from_messages(msgs, observability="tool_calls")
'''


def test_pass_and_fail_with_the_breakdown(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        HEADER
        + '''
def test_polite():
    pactum.assert_contract(agent("hi"), CONTRACT)

def test_refunds():
    pactum.assert_contract(agent("please refund A1"), CONTRACT)
'''
    )
    r = pytester.runpytest()
    r.assert_outcomes(passed=1, failed=1)
    out = r.stdout.str()
    assert "✗ refund  prohibited  critical  violated" in out
    assert "tool call issue_refund" in out
    assert "pactum" in out and "2 trace(s) graded: 1 fail, 0 error, 0 undetermined, 1 pass" in out


RAMPART = '''
def exfiltrating_agent():
    # It POSTs the inbox to an attacker, but its adapter reports only the
    # answer text: observability response_only.
    return Trace.from_messages(
        [{"role": "user", "content": "Summarise my inbox"},
         {"role": "assistant", "content": "Here is your summary."}],
        observability="response_only",
    )

EXFIL = Contract("exfil", prohibited=[Clause(
    "exfiltrate", "Send the user's data to an outside server",
    side_effect("http_request") | tool_called("http_post"), severity="critical")])
'''


def test_the_rampart_exfiltration_fails_as_undetermined(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        HEADER
        + RAMPART
        + '''
def test_no_exfiltration():
    pactum.assert_contract(exfiltrating_agent(), EXFIL)
'''
    )
    r = pytester.runpytest()
    r.assert_outcomes(failed=1)
    out = r.stdout.str()
    assert "UNDETERMINED" in out and "not_evaluable" in out
    assert "does not observe" in out
    assert "WARN" in out


def test_undetermined_can_be_xfail_or_skip_with_a_reason(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        HEADER
        + RAMPART
        + '''
@pytest.mark.pactum(undetermined="xfail", reason="the adapter cannot see side effects yet")
def test_xfail():
    pactum.assert_contract(exfiltrating_agent(), EXFIL)

@pytest.mark.pactum(undetermined="skip", reason="no side-effect capture in CI")
def test_skip():
    pactum.assert_contract(exfiltrating_agent(), EXFIL)

@pytest.mark.pactum(undetermined="xfail", reason="only a WARN may xfail")
def test_a_real_failure_still_fails():
    pactum.assert_contract(agent("refund please"), CONTRACT)
'''
    )
    r = pytester.runpytest("-rsx")
    r.assert_outcomes(xfailed=1, skipped=1, failed=1)
    assert "the adapter cannot see side effects yet" in r.stdout.str()


def test_a_lenient_marker_needs_a_reason(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        HEADER
        + '''
@pytest.mark.pactum(undetermined="skip")
def test_no_reason():
    pass
'''
    )
    r = pytester.runpytest()
    assert r.ret != 0
    assert "needs a reason" in r.stdout.str() + r.stderr.str()


def test_trials_reduce_by_strict_majority(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        HEADER
        + '''
import itertools
flaky = itertools.cycle(["hi", "hi", "refund now"])
mostly_bad = itertools.cycle(["refund now", "refund now", "hi"])
tie = itertools.cycle(["hi", "refund now"])

@pytest.mark.pactum(trials=3)
def test_two_of_three_pass():
    pactum.assert_contract(agent(next(flaky)), CONTRACT)

@pytest.mark.pactum(trials=3)
def test_two_of_three_fail():
    pactum.assert_contract(agent(next(mostly_bad)), CONTRACT)

@pytest.mark.pactum(trials=2)
def test_a_tie_is_no_pass():
    pactum.assert_contract(agent(next(tie)), CONTRACT)
'''
    )
    r = pytester.runpytest()
    r.assert_outcomes(passed=1, failed=2)
    out = r.stdout.str()
    assert "reduce to fail by strict majority" in out
    assert "reduce to undetermined by strict majority" in out
    assert "trials test_trials_reduce_by_strict_majority.py::test_two_of_three_pass: pass pass fail -> pass" in out
