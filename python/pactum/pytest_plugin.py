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

import inspect
import unittest
from typing import Any, Dict, Generator, List, Optional, Tuple

import pytest

from . import _api
from ._model import _safe
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
    # Every pactum marker counts (a class's and a method's, or two stacked
    # on one function): for each option the closest one that sets it.
    markers = list(item.iter_markers("pactum"))
    if not markers:
        return 1, "fail", None
    kwargs: Dict[str, Any] = {}
    for marker in markers:
        if marker.args:
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.pactum takes keyword arguments only")
        for k, v in marker.kwargs.items():
            kwargs.setdefault(k, v)
    unknown = set(kwargs) - {"trials", "undetermined", "reason"}
    if unknown:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.pactum: unknown option(s) {sorted(unknown)}")
    trials = kwargs.get("trials", 1)
    if not isinstance(trials, int) or isinstance(trials, bool) or trials < 1:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.pactum: trials must be an integer ≥ 1, got {trials!r}")
    mode = kwargs.get("undetermined", "fail")
    if mode not in _UNDETERMINED_MODES:
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.pactum: undetermined must be one of {', '.join(_UNDETERMINED_MODES)}, got {mode!r}"
        )
    reason = kwargs.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.pactum: reason must be a string, got {reason!r}")
    if mode != "fail" and not (reason and reason.strip() and any(c.isprintable() and not c.isspace() for c in reason)):
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.pactum(undetermined={mode!r}) needs a reason: say why a WARN is acceptable here"
        )
    return trials, mode, reason


def pytest_runtest_setup(item: pytest.Item) -> None:
    # A unittest.TestCase method is called by unittest, never through the
    # hooks that repeat trials or map a WARN: its marker would be ignored.
    cls = getattr(item, "cls", None)
    if cls is not None and issubclass(cls, unittest.TestCase) and item.get_closest_marker("pactum") is not None:
        pytest.fail(
            f"{item.nodeid}: @pytest.mark.pactum does not apply to unittest.TestCase methods "
            "(their trials and undetermined options would be ignored): write the test as a pytest function",
            pytrace=False,
        )


def _trial_status(exc: Optional[BaseException]) -> str:
    if exc is None:
        return "pass"
    if isinstance(exc, ContractViolation):
        status: str = exc.result.status
        return status
    if isinstance(exc, AssertionError):
        return "fail"
    return "error"


def _is_async(func: Any) -> bool:
    return inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func)


@pytest.hookimpl(wrapper=True, specname="pytest_pyfunc_call")
def pytest_pyfunc_call_around(pyfuncitem: pytest.Function) -> Generator[None, Optional[object], Optional[object]]:
    """Around every test call, whoever makes it (pytest, pytest-asyncio,
    the trials below): notes which test grades, and turns an undetermined
    :class:`ContractViolation` into the xfail or skip the marker asks
    for."""
    state = pyfuncitem.config.stash[_KEY]
    _, mode, reason = _options(pyfuncitem)
    state.current = pyfuncitem.nodeid
    try:
        return (yield)
    except ContractViolation as e:
        if e.result.status == "undetermined":
            _undetermined(mode, reason)
        raise
    finally:
        state.current = None


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Optional[bool]:
    """Calls a test marked ``@pytest.mark.pactum(trials=N)``, N > 1, N
    times; any other test is left to pytest or the plugin that owns it."""
    trials, mode, reason = _options(pyfuncitem)
    if trials == 1:
        return None
    if _is_async(pyfuncitem.obj):
        raise pytest.UsageError(
            f"{pyfuncitem.nodeid}: @pytest.mark.pactum(trials={trials}) cannot repeat an async test: "
            "loop over the trials inside the test and reduce them with pactum.reduce_trials"
        )
    _trials(pyfuncitem, pyfuncitem.config.stash[_KEY], trials, mode, reason)
    return True


def _trials(item: pytest.Function, state: _Session, trials: int, mode: str, reason: Optional[str]) -> None:
    func = item.obj
    kwargs: Dict[str, Any] = {n: item.funcargs[n] for n in item._fixtureinfo.argnames}
    statuses: List[str] = []
    failures: List[str] = []
    for i in range(trials):
        try:
            returned = func(**kwargs)
            exc: Optional[BaseException] = None
        except (pytest.skip.Exception, pytest.xfail.Exception) as e:
            if failures:
                # A skip after a trial that failed must not hide the failure.
                raise AssertionError(
                    f"pactum: trial {i + 1} asked to skip or xfail ({e}) after trials that did not pass:\n"
                    + "\n".join(failures)
                ) from e
            raise
        except Exception as e:  # a trial's failure is counted, not raised
            exc = e
        else:
            if returned is not None:
                raise pytest.UsageError(
                    f"{item.nodeid}: trial {i + 1} returned {type(returned).__name__}, not None: "
                    "a test repeated by @pytest.mark.pactum(trials=…) must run to completion when called"
                )
        status = _trial_status(exc)
        statuses.append(status)
        if exc is not None:
            failures.append(_safe(f"trial {i + 1}: {status}: {exc}"))
    reduced = _api.reduce_trials(statuses)
    state.trial_sets.append((item.nodeid, reduced, statuses))
    if reduced == "pass":
        return
    # xfail/skip stands only for undetermined trials: a trial that failed
    # or errored fails the test whatever the marker says.
    if reduced == "undetermined" and all(s in ("pass", "undetermined") for s in statuses):
        _undetermined(mode, reason)
    detail = "\n".join(failures)
    raise AssertionError(
        f"pactum: {trials} trials {statuses} reduce to {reduced} by strict majority (a pass needs more than half)\n{detail}"
    )


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
            tr.write_line(f"  {label:<4} {_safe(nodeid)}  trace {_safe(trace_id)}")
    for nodeid, reduced, statuses in state.trial_sets:
        tr.write_line(f"  trials {_safe(nodeid)}: {' '.join(statuses)} -> {reduced}")
