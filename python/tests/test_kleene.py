"""The operators built in Python (`&`, `|`, `~`) against the Rust truth
table (SPEC §3.1), exhaustively: each operand is a real predicate whose
outcome on the trace is known, and pactum's evaluator grades the tree."""

from __future__ import annotations

import itertools
from typing import Dict, List

import pytest

import pactum
from pactum import Clause, Contract, Predicate, Trace, contains, tool_called
from pactum import _pactum

# The undetermined operand reads a channel the level never observes, on
# purpose: the run warns so, and that warning is expected here.
pytestmark = pytest.mark.filterwarnings("ignore::pactum.PactumWarning")

OUTCOMES = ["detected", "not_detected", "undetermined"]

# On a response_only trace whose answer is "alpha": `contains("alpha")` is
# detected, `contains("zeta")` is not, and a tool call is undetermined
# (the level does not observe tool calls, SPEC §3.2).
OPERAND: Dict[str, Predicate] = {
    "detected": contains("alpha"),
    "not_detected": contains("zeta"),
    "undetermined": tool_called("lookup"),
}


def _trace() -> Trace:
    return Trace.from_messages(
        [{"role": "user", "content": "say it"}, {"role": "assistant", "content": "alpha"}],
        observability="response_only",
        id="kleene",
    )


def test_operands_have_the_outcomes_assumed() -> None:
    clauses = [Clause(f"op-{o}", f"Show operand {o}", p) for o, p in OPERAND.items()]
    r = pactum.check(_trace(), Contract("operands", required=clauses))
    assert [c.outcome for c in r.clauses] == OUTCOMES


def test_and_or_not_match_the_rust_truth_table() -> None:
    clauses: List[Clause] = []
    expected: Dict[str, str] = {}
    for a, b in itertools.product(OUTCOMES, repeat=2):
        for op, built in (("and", OPERAND[a] & OPERAND[b]), ("or", OPERAND[a] | OPERAND[b])):
            cid = f"{op}-{a}-{b}"
            clauses.append(Clause(cid, f"Show {cid}", built))
            expected[cid] = _pactum.kleene(op, a, b)
    for a in OUTCOMES:
        cid = f"not-{a}"
        clauses.append(Clause(cid, f"Show {cid}", ~OPERAND[a]))
        expected[cid] = _pactum.kleene("not", a)
    for a, b, c in itertools.product(OUTCOMES, repeat=3):
        cid = f"and3-{a}-{b}-{c}"
        clauses.append(Clause(cid, f"Show {cid}", OPERAND[a] & OPERAND[b] & OPERAND[c]))
        expected[cid] = _pactum.kleene("and", _pactum.kleene("and", a, b), c)
    r = pactum.check(_trace(), Contract("kleene", required=clauses))
    got = {c.id: c.outcome for c in r.clauses}
    assert got == expected
    # The table is SPEC §3.1's, spot-checked by hand too.
    assert expected["and-not_detected-undetermined"] == "not_detected"
    assert expected["or-detected-undetermined"] == "detected"
    assert expected["or-not_detected-undetermined"] == "undetermined"
    assert expected["not-undetermined"] == "undetermined"


def test_undetermined_operands_are_listed_even_when_settled() -> None:
    p = OPERAND["not_detected"] & OPERAND["undetermined"]
    r = pactum.check(_trace(), Contract("settled", required=[Clause("s", "Show it", p)]))
    clause = r.clauses[0]
    assert clause.outcome == "not_detected"
    assert clause.undetermined_operands, clause
