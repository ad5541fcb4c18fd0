"""pactum's pipelines from Python. Each call hands a request to the Rust
library (the same pipelines as the ``pactum`` command), with the GIL
released while it works, and returns typed results."""

from __future__ import annotations

import dataclasses
import json
import os
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from . import _pactum
from ._model import Contract, Observability, PathLike, Result, Trace, _json_text, _safe
from .errors import ContractViolation, InputError, PactumWarning

__all__ = [
    "Judge",
    "GradeRun",
    "SuiteRun",
    "grade",
    "run",
    "strength",
    "check",
    "assert_contract",
    "reduce_trials",
    "version",
]

TraceInput = Union[Trace, PathLike]
# The last is called with every result `check` grades (the pytest
# plugin's summary; the innermost session when pytest runs pytest).
_observers: List[Callable[[Result], None]] = []
ContractInput = Union[Contract, PathLike]


@dataclass(frozen=True)
class Judge:
    """An OpenAI-compatible judge endpoint (SPEC §3.4): ``url``, ``model``
    and the *name* of the environment variable holding its key."""

    url: str
    model: str
    api_key_env: Optional[str] = None


@dataclass(frozen=True)
class GradeRun:
    """What :func:`grade` returns: the results in input order, and what
    the run warned about (``warnings``: dicts with ``code`` and
    ``message``; ``messages``; lint ``diagnostics``)."""

    results: List[Result]
    warnings: List[Dict[str, Any]]
    messages: List[Dict[str, Any]]
    diagnostics: List[Dict[str, Any]]

    def __iter__(self) -> Any:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def __getitem__(self, i: int) -> Result:
        return self.results[i]

    def count(self, status: str) -> int:
        """How many results have ``status``."""
        return sum(1 for r in self.results if r.status == status)


@dataclass(frozen=True)
class SuiteRun:
    """What :func:`run` returns: the run id, the trial results, counts by
    status, planned trials no result came for, and why the run stopped
    early (``None``: it did not)."""

    run_id: str
    results: List[Result]
    statuses: Dict[str, int]
    missing: int
    stopped: Optional[str]
    warnings: List[Dict[str, Any]]


def _listify(x: Any) -> List[Any]:
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _trace_item(t: TraceInput) -> Dict[str, Any]:
    if isinstance(t, Trace):
        return {"inline": t._record}
    return {"file": os.fsdecode(t)}


def _contract_item(c: ContractInput) -> Dict[str, Any]:
    if isinstance(c, Contract):
        return c._request_item()
    return {"file": os.fsdecode(c)}


def _policy(req: Dict[str, Any], policy: Union[None, Mapping[str, Any], PathLike]) -> None:
    if policy is None:
        return
    if isinstance(policy, Mapping):
        req["policy"] = dict(policy)
    else:
        req["policy_file"] = os.fsdecode(policy)


def grade(
    traces: Union[TraceInput, Sequence[TraceInput]],
    contracts: Union[ContractInput, Sequence[ContractInput]],
    *,
    judge: Optional[Judge] = None,
    policy: Union[None, Mapping[str, Any], PathLike] = None,
    observability: Optional[Observability] = None,
    format: str = "auto",
    expectations: Optional[PathLike] = None,
    store: Optional[PathLike] = None,
    jobs: Optional[int] = None,
) -> GradeRun:
    """Grades traces against contracts (``pactum grade``).

    :param traces: :class:`Trace` objects and/or trace files, graded in order.
    :param contracts: :class:`Contract` objects and/or contract files or folders.
    :param judge: a judge for judged clauses; without one they are not
        evaluable (reason ``no-judge``).
    :param policy: a dict of policy fields (``severity_floor``…) or a
        policy file.
    :param observability: the level for trace-file records that declare none.
    :param jobs: threads that parse and grade (default: every core).
    :raises InputError: an input cannot be used, or a record or file could
        not be read (``file``, ``line``, ``field`` say where; a run with an
        unreadable input is never returned as if complete).
    :raises ContractError: a contract does not validate.
    :raises StoreError: the judge's store cannot be opened.
    """
    req: Dict[str, Any] = {
        "traces": [_trace_item(t) for t in _listify(traces)],
        "contracts": [_contract_item(c) for c in _listify(contracts)],
        "observability": observability,
        "format": format,
    }
    _policy(req, policy)
    if judge is not None:
        req["judge"] = {"url": judge.url, "model": judge.model, "api_key_env": judge.api_key_env}
    if expectations is not None:
        req["expectations"] = os.fsdecode(expectations)
    if store is not None:
        req["store"] = os.fsdecode(store)
    if jobs is not None:
        req["jobs"] = jobs
    out = json.loads(_pactum.grade(_json_text(req, "grade")))
    if out["input_errors"]:
        e = out["input_errors"][0]
        more = len(out["input_errors"]) - 1
        tail = f" (and {more} more)" if more else ""
        raise InputError(
            f"{e['file']}:{e['line']}: {e['message']}{tail}",
            file=e["file"],
            line=e["line"],
            field=e.get("field"),
        )
    return GradeRun(
        results=[Result._from(r) for r in out["results"]],
        warnings=out["warnings"],
        messages=out["messages"],
        diagnostics=out["diagnostics"],
    )


def run(
    suite_path: PathLike,
    *,
    db: Optional[PathLike] = None,
    jobs: int = 1,
    cache: str = "use",
    resume: Optional[str] = None,
) -> SuiteRun:
    """Runs a suite against its live targets (``pactum run``): every test
    × trial, stored in ``db`` (default ``.pactum/pactum.db``). ``resume``
    (a run id, a unique prefix, or ``"latest"``) goes on with an unfinished
    run instead of starting one.

    :raises InputError: the suite does not validate, or names an unset
        key variable.
    :raises StoreError: the store cannot be opened.
    :raises RunError: the run cannot start (a run to resume that already
        finished, a target that cannot be built…).
    """
    req = {
        "suite": os.fsdecode(suite_path),
        "db": os.fsdecode(db) if db is not None else None,
        "jobs": jobs,
        "cache": cache,
        "resume": resume,
    }
    out = json.loads(_pactum.run(_json_text(req, "run")))
    return SuiteRun(
        run_id=out["run_id"],
        results=[Result._from(r) for r in out["results"]],
        statuses=out["statuses"],
        missing=int(out["missing"]),
        stopped=out["stopped"],
        warnings=out["warnings"],
    )


def strength(
    contracts: Union[PathLike, Sequence[PathLike]],
    traces: Union[PathLike, Sequence[PathLike]],
    *,
    observability: Optional[Observability] = None,
    trials: Optional[int] = None,
    probes: Sequence[PathLike] = (),
    out: Optional[PathLike] = None,
    policy: Optional[PathLike] = None,
    format: str = "auto",
) -> Dict[str, Any]:
    """Measures contract strength (``pactum strength``): planted probes
    over clean traces; the artifacts go to ``out``. Returns the summary
    (what ``pactum strength --json`` prints: ``verdict``, per-contract
    catch rates…).

    :raises InputError: an input cannot be used.
    :raises ContractError: a contract does not validate.
    """
    req = {
        "contracts": [os.fsdecode(c) for c in _listify(contracts)],
        "traces": [os.fsdecode(t) for t in _listify(traces)],
        "observability": observability,
        "trials": trials,
        "probes": [os.fsdecode(p) for p in probes],
        "out": os.fsdecode(out) if out is not None else None,
        "policy_file": os.fsdecode(policy) if policy is not None else None,
        "format": format,
    }
    res = json.loads(_pactum.strength(_json_text(req, "strength")))
    summary: Dict[str, Any] = res["summary"]
    return summary


def check(
    trace: Trace,
    contract: Union[Contract, Sequence[Contract]],
    *,
    policy: Union[None, Mapping[str, Any], PathLike] = None,
    judge: Optional[Judge] = None,
) -> Result:
    """Grades one trace against its contract(s); the :class:`Result`,
    whose ``warnings`` are the run's (each also issued as a
    :class:`pactum.PactumWarning`)."""
    return _check(trace, contract, policy, judge, stacklevel=3)


def _check(
    trace: Trace,
    contract: Union[Contract, Sequence[Contract]],
    policy: Union[None, Mapping[str, Any], PathLike],
    judge: Optional[Judge],
    stacklevel: int,
) -> Result:
    if not isinstance(trace, Trace):
        raise TypeError(f"check() takes a pactum.Trace, got {type(trace).__name__}")
    res = grade([trace], _listify(contract), policy=policy, judge=judge)
    if len(res.results) != 1:
        raise InputError(f"expected one result for trace {trace.id}, got {len(res.results)}")
    result = dataclasses.replace(res.results[0], warnings=list(res.warnings))
    for w in res.warnings:
        warnings.warn(PactumWarning(_safe(f"pactum {w.get('code')}: {w.get('message')}")), stacklevel=stacklevel)
    if _observers:
        _observers[-1](result)
    return result


def assert_contract(
    trace: Trace,
    contract: Union[Contract, Sequence[Contract]],
    *,
    policy: Union[None, Mapping[str, Any], PathLike] = None,
    judge: Optional[Judge] = None,
) -> Result:
    """Grades ``trace`` and raises :class:`ContractViolation` (an
    ``AssertionError``) unless it passes: a fail, an error **and an
    undetermined** (WARN) all raise, with the clause breakdown and quoted
    evidence as the message. Returns the passing :class:`Result`."""
    result = _check(trace, contract, policy, judge, stacklevel=4)
    if result.status != "pass":
        raise ContractViolation(result.breakdown(), result)
    return result


def reduce_trials(statuses: Sequence[str]) -> str:
    """The status of a trial set by strict majority (pactum's rule): the
    status held by more than half the trials, else ``undetermined``."""
    return _pactum.reduce_trials(list(statuses))


def version() -> str:
    """The pactum version of the native module."""
    return _pactum.version()
