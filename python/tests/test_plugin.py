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


def test_the_plugin_never_claims_a_test_it_does_not_run(pytester: pytest.Pytester) -> None:
    # An async test the plugin called and never awaited once passed
    # without running: now pytest (or its async plugin) owns it.
    pytester.makepyfile(
        '''
import pytest

async def test_async_violation():
    assert False, "never reached when the coroutine is dropped"

@pytest.mark.pactum(trials=3)
async def test_async_trials():
    assert False
'''
    )
    r = pytester.runpytest("-p", "no:asyncio")
    outcomes = r.parseoutcomes()
    assert outcomes.get("passed", 0) == 0, r.stdout.str()
    assert "cannot repeat an async test" in r.stdout.str() + r.stderr.str()


def test_xfail_and_skip_never_hide_a_failed_trial(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        HEADER
        + RAMPART
        + '''
import itertools
mixed = itertools.cycle(["refund", "warn", "hi"])
skip_later = itertools.cycle(["refund", "skip"])

@pytest.mark.pactum(trials=3, undetermined="xfail", reason="WARN tolerated")
def test_fail_warn_pass():
    step = next(mixed)
    if step == "warn":
        pactum.assert_contract(exfiltrating_agent(), EXFIL)
    else:
        pactum.assert_contract(agent("refund now" if step == "refund" else "hi"), CONTRACT)

@pytest.mark.pactum(trials=2)
def test_skip_after_a_violation():
    if next(skip_later) == "skip":
        pytest.skip("environment went away")
    pactum.assert_contract(agent("refund now"), CONTRACT)

@pytest.mark.pactum(trials=3, undetermined="skip", reason="WARN tolerated")
def test_only_warns_may_skip():
    pactum.assert_contract(exfiltrating_agent(), EXFIL)
'''
    )
    r = pytester.runpytest("-rsx")
    r.assert_outcomes(failed=2, skipped=1)
    out = r.stdout.str()
    assert "asked to skip or xfail" in out


def test_a_blank_reason_is_no_reason(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        HEADER
        + '''
@pytest.mark.pactum(undetermined="xfail", reason="   ")
def test_blank():
    pass
'''
    )
    r = pytester.runpytest()
    assert r.ret != 0
    assert "needs a reason" in r.stdout.str() + r.stderr.str()


def test_the_summary_carries_no_terminal_escape(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        HEADER
        + '''
def test_evil_id():
    t = Trace.from_messages([{"role": "user", "content": "refund"}, {"role": "assistant", "content": "Hello"}],
                            observability="tool_calls", id="t\\x1b]0;owned\\x07\\x1b[2J")
    pactum.check(t, CONTRACT)
    pactum.assert_contract(agent("please refund"), CONTRACT)
'''
    )
    r = pytester.runpytest()
    r.assert_outcomes(failed=1)
    assert "\x1b]0;owned" not in r.stdout.str()
    assert "\x1b[2J" not in r.stdout.str()


def test_every_pactum_marker_counts(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        HEADER
        + '''
import itertools, unittest
seq_a = itertools.cycle(["hi", "refund now", "refund now"])
seq_b = itertools.cycle(["hi", "refund now", "refund now"])

@pytest.mark.pactum(trials=3)
class TestAgent:
    @pytest.mark.pactum(undetermined="xfail", reason="WARN tolerated")
    def test_class_trials(self):
        pactum.assert_contract(agent(next(seq_a)), CONTRACT)

@pytest.mark.pactum(undetermined="xfail", reason="WARN tolerated")
@pytest.mark.pactum(trials=3)
def test_stacked():
    pactum.assert_contract(agent(next(seq_b)), CONTRACT)

class TestUnit(unittest.TestCase):
    @pytest.mark.pactum(trials=3)
    def test_unit(self):
        pass
'''
    )
    r = pytester.runpytest()
    # The unittest method errors in setup: its marker is refused, not ignored.
    r.assert_outcomes(failed=2, errors=1)
    out = r.stdout.str()
    # Counted in the tracebacks only: the short summary repeats the message
    # when the terminal is wide enough, so a count over all output varies.
    raised = [ln for ln in r.stdout.lines if ln.startswith("E ") and "reduce to fail by strict majority" in ln]
    assert len(raised) == 2, raised
    assert "does not apply to unittest.TestCase methods" in out
