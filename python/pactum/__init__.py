"""pactum from Python: test LLM applications and agents against
evaluation contracts (``docs/python.md``).

Traces and contracts are built here and checked by pactum's Rust library;
:func:`grade`, :func:`run` and :func:`strength` call its pipelines (the
same as the ``pactum`` command) with the GIL released. Nothing in this
package decides a verdict.
"""

from ._api import (
    GradeRun,
    Judge,
    SuiteRun,
    assert_contract,
    check,
    grade,
    reduce_trials,
    run,
    strength,
    version,
)
from ._model import (
    Clause,
    ClauseResult,
    Contract,
    ContractResult,
    Evidence,
    Observability,
    Predicate,
    Result,
    Trace,
    TraceBuilder,
    UndeterminedOperand,
    all_of,
    any_of,
    contains,
    equals,
    field_check,
    icontains,
    not_,
    refusal,
    regex,
    side_effect,
    tool_called,
    tool_sequence,
)
from .errors import (
    ContractError,
    ContractViolation,
    InputError,
    InternalError,
    PactumError,
    PactumWarning,
    ReportError,
    RunError,
    StoreError,
)

__version__ = version()

__all__ = [
    "Clause",
    "ClauseResult",
    "Contract",
    "ContractError",
    "ContractResult",
    "ContractViolation",
    "Evidence",
    "GradeRun",
    "InputError",
    "InternalError",
    "Judge",
    "Observability",
    "PactumError",
    "PactumWarning",
    "Predicate",
    "ReportError",
    "Result",
    "RunError",
    "StoreError",
    "SuiteRun",
    "Trace",
    "TraceBuilder",
    "UndeterminedOperand",
    "all_of",
    "any_of",
    "assert_contract",
    "check",
    "contains",
    "equals",
    "field_check",
    "grade",
    "icontains",
    "not_",
    "reduce_trials",
    "refusal",
    "regex",
    "run",
    "side_effect",
    "strength",
    "tool_called",
    "tool_sequence",
    "version",
]
