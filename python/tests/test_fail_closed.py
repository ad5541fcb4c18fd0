"""Hostile inputs: each of these once gave a wrong green, leaked a key,
lost data or printed a terminal escape. Every one must now fail closed."""

from __future__ import annotations

import json
import pathlib
import shutil
import signal
import subprocess
import sys
import time
import warnings

import pytest

import pactum
from pactum import (
    Clause,
    Contract,
    InputError,
    PactumWarning,
    Trace,
    all_of,
    contains,
    regex,
    tool_called,
    tool_sequence,
)

from conftest import AGENTDOJO

TRACES = AGENTDOJO / "traces.jsonl"
CONTRACTS = AGENTDOJO / "contracts"
KEY = "sk-proj-Abc123Def456Ghi789Jkl012Mno345"

SENDS = [
    {"role": "user", "content": "pay the bill"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "send_money", "arguments": '{"recipient": "US1"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "sent"},
    {"role": "assistant", "content": "Done."},
]
NO_SEND = Contract("no-send", prohibited=[Clause("send", "Send money", tool_called("send_money"))])


def test_metadata_cannot_raise_the_observability_level() -> None:
    # A response-only adapter saying "full" in its metadata would turn an
    # unseen side effect into a confident pass.
    with pytest.raises(InputError) as e:
        Trace.from_messages(SENDS, observability="response_only", metadata={"observability": "full"})
    assert e.value.field == "metadata/observability"
    for key in ("messages", "id"):
        with pytest.raises(InputError):
            Trace.from_messages(SENDS, observability="tool_calls", metadata={key: "x"})
    with pytest.raises(InputError):
        Trace.from_messages(SENDS, observability=None)  # type: ignore[arg-type]


def test_a_record_and_an_argument_cannot_disagree_on_the_level() -> None:
    record = {"id": "t", "observability": "full", "turns": [{"response": "hi"}]}
    with pytest.raises(InputError):
        Trace.from_dict(record, observability="response_only")
    assert Trace.from_dict(record, observability="full").observability == "full"


def test_an_empty_trace_file_is_an_error_not_an_empty_green_run(tmp_path: pathlib.Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(InputError) as e:
        Trace.from_file(empty, observability="tool_calls")
    assert "holds no trace" in str(e.value)
    with pytest.raises(InputError) as e:
        pactum.grade([], NO_SEND)
    assert e.value.field == "traces"
    with pytest.raises(InputError) as e:
        pactum.grade(Trace.from_messages(SENDS, observability="tool_calls"), [])
    assert e.value.field == "contracts"


def test_keys_never_reach_an_error_message(tmp_path: pathlib.Path) -> None:
    broken = tmp_path / "t.jsonl"
    broken.write_text(json.dumps({"observability": "full", "messages": [{"role": KEY, "content": "x"}]}) + "\n")
    errors = []
    with pytest.raises(InputError) as e:
        Trace.from_file(broken)
    errors.append(e.value)
    with pytest.raises(InputError) as e:
        Trace.from_messages([{"role": KEY, "content": "x"}], observability="full")
    errors.append(e.value)
    with pytest.raises(InputError) as e:
        Trace.from_dict({"id": KEY, "observability": KEY, "turns": []})
    errors.append(e.value)
    with pytest.raises(pactum.ContractError) as e:
        Contract.from_yaml(f"version: 1\nid: c\nrequired: [{{id: r, text: '{KEY}', check: {{bogus: 1}}}}]\n")
    errors.append(e.value)
    for err in errors:
        shown = " ".join([str(err), repr(err), str(err.file), str(err.field), json.dumps(err.diagnostics)])
        assert KEY not in shown, shown


def test_a_contract_file_is_read_once(tmp_path: pathlib.Path) -> None:
    (tmp_path / "schema.json").write_text('{"type": "object", "required": ["ok"]}')
    path = tmp_path / "c.yaml"
    path.write_text(
        "version: 1\nid: c\nprohibited:\n  - id: send\n    text: Send money\n    check: {tool_called: {name: send_money}}\n"
        "required:\n  - id: json\n    text: Answer in JSON\n    check: {json_schema: {schema_file: schema.json}}\n"
    )
    c = Contract.from_file(path)
    # What is graded is what was checked: a later edit or a removed schema
    # file changes nothing.
    path.write_text("version: 1\nid: c\nrequired:\n  - id: any\n    text: Say anything\n    check: {regex: '.'}\n")
    (tmp_path / "schema.json").unlink()
    r = pactum.check(Trace.from_messages(SENDS, observability="tool_calls"), c)
    assert r.status == "fail"
    assert r.contracts[0].contract_digest == c.digest
    assert {k.id for k in r.clauses} == {"send", "json"}


def test_to_yaml_keeps_strings_that_look_like_numbers() -> None:
    c = Contract(
        "modes",
        prohibited=[
            Clause("chmod", "Open the file to everyone", contains("0o777")),
            Clause("inf", "Print infinity", contains("+.inf")),
            Clause("yes", "Agree", regex("^yes$")),
        ],
    )
    text = c.to_yaml()
    back = Contract.from_yaml(text)
    assert back.digest == c.digest, text
    assert back.to_dict() == c.to_dict()


def test_vacuous_checks_are_flagged_and_predicates_have_no_truth_value() -> None:
    c = Contract(
        "v",
        required=[
            Clause("a", "Say something", contains("")),
            Clause("b", "Say anything", regex("x*")),
            Clause("c", "Do everything", all_of()),
        ],
    )
    codes = [(w["code"], w["message"]) for w in c.warnings]
    assert sum(1 for code, _ in codes if code == "vacuous-check") == 3, codes
    with pytest.raises(TypeError):
        bool(contains("a"))
    with pytest.raises(TypeError):
        contains("a") and contains("b")  # noqa: B018


def test_check_issues_the_run_warnings() -> None:
    vacuous = Contract("v", required=[Clause("a", "Say something", contains(""))])
    trace = Trace.from_messages(SENDS, observability="tool_calls")
    with pytest.warns(PactumWarning, match="vacuous-check"):
        r = pactum.check(trace, vacuous)
    assert any(w["code"] == "vacuous-check" for w in r.warnings)
    assert "warning vacuous-check" in r.breakdown()


def test_tool_sequence_builds_the_file_form_and_grades() -> None:
    p = tool_sequence("read_file", {"name": "send_money", "args": {"/recipient": "US1"}})
    assert p.to_dict() == {
        "tool_sequence": [{"name": "read_file"}, {"name": "send_money", "args": {"/recipient": "US1"}}]
    }
    c = Contract("seq", prohibited=[Clause("pay", "Pay after asking", tool_sequence("send_money"))])
    assert pactum.check(Trace.from_messages(SENDS, observability="tool_calls"), c).status == "fail"


def test_breakdown_carries_no_terminal_escape() -> None:
    evil = "\x1b]0;owned\x07\x1b[2J"
    trace = Trace.from_messages(SENDS, observability="tool_calls", id=f"t{evil}")
    c = Contract("no-send", prohibited=[Clause("send", f"Send money{evil}", tool_called("send_money"))])
    with pytest.raises(pactum.ContractViolation) as e:
        pactum.assert_contract(trace, c)
    assert "\x1b" not in str(e.value) and "\x07" not in str(e.value)


def test_values_json_would_change_are_refused() -> None:
    with pytest.raises(InputError):
        Trace.from_messages(SENDS, observability="tool_calls", metadata={1: "a", "1": "b"})  # type: ignore[dict-item]
    with pytest.raises(InputError):
        Trace.from_messages(SENDS, observability="tool_calls", metadata={"n": 2**70})
    with pytest.raises(InputError):
        Trace.from_messages(SENDS, observability="tool_calls", metadata={"x": float("nan")})
    with pytest.raises(InputError):
        Contract.from_dict({"version": 1, "id": "c", "x": object()})


def test_counts_are_never_silently_replaced(tmp_path: pathlib.Path) -> None:
    trace = Trace.from_messages(SENDS, observability="tool_calls")
    for jobs in (0, -1, 2.5, "2"):
        with pytest.raises(InputError) as e:
            pactum.grade(trace, NO_SEND, jobs=jobs)  # type: ignore[arg-type]
        assert e.value.field == "jobs"
    for trials in (0, -3, 2**40):
        with pytest.raises(InputError) as e:
            pactum.strength(CONTRACTS, TRACES, observability="tool_calls", trials=trials, out=tmp_path / "o")
        assert e.value.field == "trials"


def test_ctrl_c_stops_a_long_grade(tmp_path: pathlib.Path) -> None:
    big = tmp_path / "big.jsonl"
    lines = [line for line in TRACES.read_text().splitlines() if line.strip()]
    # A file long enough to take over a second, whatever the build.
    copies, whole = 400, 0.0
    while whole < 1.0 and copies <= 400 * 4**3:
        big.write_text("\n".join(lines * copies) + "\n")
        started = time.perf_counter()
        pactum.grade(big, CONTRACTS, observability="tool_calls", jobs=1)
        whole = time.perf_counter() - started
        copies *= 4
    assert whole > 1.0, f"the grade was too short to interrupt ({whole:.2f}s)"

    # A real signal, as a terminal's Ctrl-C is: SIGALRM after 0.2 s, then
    # every 0.1 s until it is seen, its handler raising KeyboardInterrupt.
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    started = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2, 0.1)
        with pytest.raises(KeyboardInterrupt):
            pactum.grade(big, CONTRACTS, observability="tool_calls", jobs=1)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    stopped = time.perf_counter() - started
    # Stopped at the next trace, not after the whole file.
    assert stopped < whole / 2, (stopped, whole)
    # And the module is usable afterwards.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert len(pactum.grade(TRACES, CONTRACTS, observability="tool_calls")) == 24


SLOW_SUITE = """\
version: 1
targets:
  slow:
    kind: exec
    observability: full
    command: ["{python}", "-c", "import time; time.sleep(60)"]
tests:
  - id: waits
    target: slow
    prompt: "hello"
    trials: 2
    contract:
      version: 1
      id: c
      required:
        - id: answers
          text: Answer
          check: {{contains: "x"}}
"""


def test_ctrl_c_stops_a_live_run_and_leaves_it_resumable(tmp_path: pathlib.Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SLOW_SUITE.format(python=sys.executable))
    db = tmp_path / "p.db"

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    started = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5, 0.1)
        with pytest.raises(KeyboardInterrupt):
            pactum.run(suite, db=db)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # Long before the agent's 60 s: the run was stopped, not waited out.
    assert time.perf_counter() - started < 20
    exe = shutil.which("pactum")
    assert exe is not None
    runs = subprocess.run([exe, "runs", "--db", str(db), "--color", "never"], capture_output=True, text=True)
    assert "interrupted" in runs.stdout, runs


def test_a_file_without_a_level_names_its_line_field_and_the_argument(tmp_path: pathlib.Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_text(json.dumps({"messages": SENDS}) + "\n")
    with pytest.raises(InputError) as e:
        Trace.from_file(f)
    assert (e.value.file, e.value.line, e.value.field) == (str(f), 1, "/observability")
    # The Python argument, not the command line's flag.
    assert "observability=" in str(e.value) and "--observability" not in str(e.value)
    # An error of the whole file names no line: None, never 0.
    with pytest.raises(InputError) as e:
        Trace.from_file(tmp_path / "missing.jsonl")
    assert e.value.line is None


def test_text_that_is_not_unicode_is_an_input_error_never_a_crash(tmp_path: pathlib.Path) -> None:
    bad = "hi \udc80"
    cases = [
        lambda: Trace.from_messages([{"role": "user", "content": bad}], observability="full"),
        lambda: Trace.from_file(str(tmp_path / "\udc80.jsonl")),
        lambda: Contract.from_yaml(f"version: 1\nid: c\nrequired:\n  - id: a\n    text: {bad}\n    check: {{contains: x}}\n"),
        lambda: pactum.grade(str(tmp_path / "\udc80.jsonl"), NO_SEND),
        lambda: pactum.run(str(tmp_path / "\udc80.yaml")),
    ]
    for case in cases:
        with pytest.raises(InputError) as e:
            case()
        assert "lone surrogate U+DC80" in str(e.value)
    # A path given as bytes is a path.
    with pytest.raises(InputError, match="cannot"):
        Contract.from_file(str(tmp_path / "none.yaml").encode())
    with pytest.raises(InputError, match="cannot open"):
        Trace.from_file(str(tmp_path / "none.jsonl").encode())


def test_an_error_message_cannot_drive_the_terminal() -> None:
    with pytest.raises(pactum.ContractError) as e:
        Contract.from_dict(
            {"version": 1, "id": "c", "\x1b]0;owned\x07x": 1, "required": [{"id": "a", "text": "t", "check": {"contains": "x"}}]}
        )
    assert "unknown-key" in str(e.value)
    assert "\x1b" not in str(e.value) and "\x07" not in str(e.value)


def test_skipped_records_are_counted_aloud(tmp_path: pathlib.Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_text(json.dumps({"summary": True}) + "\n" + json.dumps({"observability": "tool_calls", "messages": SENDS}) + "\n")
    with pytest.warns(PactumWarning, match="skipped 1 record"):
        traces = Trace.from_file(f)
    assert len(traces) == 1


def test_errors_raised_in_python_carry_no_key(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    with pytest.raises(InputError) as e:
        Trace.from_dict({"id": "t", "observability": KEY, "turns": []}, observability="full")
    assert KEY not in str(e.value)
    with pytest.raises(InputError) as e:
        Trace.from_messages(SENDS, observability="tool_calls", metadata={KEY: float("nan")})
    assert KEY not in str(e.value) and KEY not in str(e.value.field)
    env_key = "Zq9vR2mK7xL4pW8s"
    monkeypatch.setenv("MY_SERVICE_API_KEY", env_key)
    broken = tmp_path / "t.jsonl"
    broken.write_text(json.dumps({"observability": "full", "messages": [{"role": env_key, "content": "x"}]}) + "\n")
    with pytest.raises(InputError) as e:
        pactum.grade(broken, NO_SEND)
    assert env_key not in str(e.value)


def test_a_judged_clause_is_built_in_python() -> None:
    c = Contract("j", prohibited=[Clause("insult", "Insult the user", judge="The reply insults the user.")])
    assert c.to_dict()["prohibited"][0]["judge"] == "The reply insults the user."
    r = pactum.check(Trace.from_messages(SENDS, observability="tool_calls"), c)
    # No judge configured: not evaluable, never a pass.
    assert r.status != "pass"
    assert r.clauses[0].reason == "no-judge"
