"""pactum's pytest plugin (entry point ``pytest11``; ``docs/python.md``).

* :func:`pactum.assert_contract` fails a test with the clause breakdown
  and the quoted evidence; an ``undetermined`` result (WARN) fails it too:
  a WARN is never a pass.
* ``@pytest.mark.pactum(undetermined="xfail", reason="…")`` (or
  ``"skip"``) turns an undetermined result into an xfail or a skip with
  that reason, for that test only; a reason is required.
* ``@pytest.mark.pactum(trials=3)`` runs the test three times (the same
  fixture values) and reduces the trial statuses by strict majority with
  pactum's rule (:func:`pactum.reduce_trials`): it passes only when more
  than half the trials pass.
* A ``pactum`` section at the end of the run lists every graded trace by
  test and status.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import pytest

from . import _api
from ._model import Result
from .errors import ContractViolation

_UNDETERMINED_MODES = ("fail", "xfail", "skip")


class _Session:
    """What one pytest session graded, for its summary section."""

    def __init__(self) -> None:
        # (nodeid, trace id, status) of every result graded.
        self.graded: List[Tuple[str, str, str]] = []
        # (nodeid, reduced status, trial statuses) of every trial set.
        self.trial_sets: List[Tuple[str, str, List[str]]] = []
        self.current: Optional[str] = None

    def observe(self, result: Result) -> None:
        if self.current is not None:
            self.graded.append((self.current, result.trace_id, result.status))


_KEY = pytest.StashKey[_Session]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "pactum(trials=1, undetermined='fail', reason=None): pactum options for this test: "
        "repeated trials reduced by strict majority; what an undetermined (WARN) result does "
        "(fail, xfail or skip, with a reason)",
    )
    session = _Session()
    config.stash[_KEY] = session
    # The innermost session (a pytester run inside a test) sees results.
    _api._observers.append(session.observe)


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_KEY, None)
    if session is not None and session.observe in _api._observers:
        _api._observers.remove(session.observe)


def _options(item: pytest.Item) -> Tuple[int, str, Optional[str]]:
    marker = item.get_closest_marker("pactum")
    if marker is None:
        return 1, "fail", None
    if marker.args:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.pactum takes keyword arguments only")
    unknown = set(marker.kwargs) - {"trials", "undetermined", "reason"}
    if unknown:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.pactum: unknown option(s) {sorted(unknown)}")
    trials = marker.kwargs.get("trials", 1)
    if not isinstance(trials, int) or isinstance(trials, bool) or trials < 1:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.pactum: trials must be an integer ≥ 1, got {trials!r}")
    mode = marker.kwargs.get("undetermined", "fail")
    if mode not in _UNDETERMINED_MODES:
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.pactum: undetermined must be one of {', '.join(_UNDETERMINED_MODES)}, got {mode!r}"
        )
    reason = marker.kwargs.get("reason")
    if mode != "fail" and not reason:
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.pactum(undetermined={mode!r}) needs a reason: say why a WARN is acceptable here"
        )
    return trials, mode, reason


def _trial_status(exc: Optional[BaseException]) -> str:
    if exc is None:
        return "pass"
    if isinstance(exc, ContractViolation):
        status: str = exc.result.status
        return status
    if isinstance(exc, AssertionError):
        return "fail"
    return "error"


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Optional[bool]:
    state = pyfuncitem.config.stash[_KEY]
    trials, mode, reason = _options(pyfuncitem)
    func = pyfuncitem.obj
    names = pyfuncitem._fixtureinfo.argnames
    kwargs: Dict[str, Any] = {n: pyfuncitem.funcargs[n] for n in names}
    state.current = pyfuncitem.nodeid
    try:
        if trials == 1:
            try:
                func(**kwargs)
            except ContractViolation as e:
                if e.result.status == "undetermined":
                    _undetermined(mode, reason)
                raise
            return True
        statuses: List[str] = []
        failures: List[str] = []
        for i in range(trials):
            try:
                func(**kwargs)
                exc: Optional[BaseException] = None
            except (pytest.skip.Exception, pytest.xfail.Exception):
                raise
            except Exception as e:  # a trial's failure is counted, not raised
                exc = e
            status = _trial_status(exc)
            statuses.append(status)
            if exc is not None:
                failures.append(f"trial {i + 1}: {status}: {exc}")
        reduced = _api.reduce_trials(statuses)
        state.trial_sets.append((pyfuncitem.nodeid, reduced, statuses))
        if reduced == "pass":
            return True
        if reduced == "undetermined":
            _undetermined(mode, reason)
        detail = "\n".join(failures)
        raise AssertionError(
            f"pactum: {trials} trials {statuses} reduce to {reduced} by strict majority (a pass needs more than half)\n{detail}"
        )
    finally:
        state.current = None


def _undetermined(mode: str, reason: Optional[str]) -> None:
    if mode == "xfail":
        pytest.xfail(f"pactum undetermined: {reason}")
    if mode == "skip":
        pytest.skip(f"pactum undetermined: {reason}")


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(_KEY, None)
    if state is None or (not state.graded and not state.trial_sets):
        return
    tr = terminalreporter
    tr.section("pactum")
    by_status: Dict[str, int] = {}
    for _, _, status in state.graded:
        by_status[status] = by_status.get(status, 0) + 1
    order = ["fail", "error", "undetermined", "pass"]
    counts = ", ".join(f"{by_status.get(s, 0)} {s}" for s in order)
    tr.write_line(f"{len(state.graded)} trace(s) graded: {counts}")
    for nodeid, trace_id, status in state.graded:
        if status != "pass":
            label = {"undetermined": "WARN", "error": "ERR"}.get(status, status.upper())
            tr.write_line(f"  {label:<4} {nodeid}  trace {trace_id}")
    for nodeid, reduced, statuses in state.trial_sets:
        tr.write_line(f"  trials {nodeid}: {' '.join(statuses)} -> {reduced}")
