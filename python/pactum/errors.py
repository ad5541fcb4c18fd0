"""The exceptions pactum raises, each mapped from the Rust library's typed
errors (``docs/python.md``, "Errors").

Every one is a :class:`PactumError`; an :class:`InputError` says where:
``file``, ``line`` (1-based; ``None`` when the problem has no position) and
``field`` (a JSON pointer, a column, an option or a diagnostic code), and
``diagnostics`` lists every problem of a rejected file.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

def _redact(text: str) -> str:
    from . import _pactum

    return _pactum.redact(text)


def _shown(text: str) -> str:
    """``text`` redacted, then made safe for a terminal (escape sequences
    dropped, invisible characters shown as ``U+XXXX``): a traceback prints
    the message as it is."""
    from . import _pactum

    return _pactum.terminal_safe(_redact(text))


__all__ = [
    "PactumError",
    "InputError",
    "ContractError",
    "StoreError",
    "RunError",
    "ReportError",
    "InternalError",
    "ContractViolation",
    "PactumWarning",
]


class PactumError(Exception):
    """Base class of every pactum error.

    :ivar file: the file at fault, when known (``None`` otherwise).
    :ivar line: its 1-based line; ``None`` when there is no position.
    :ivar field: the field at fault (JSON pointer, column, option, code).
    :ivar diagnostics: every diagnostic of a rejected file, as dicts with
        ``level``, ``code``, ``file``, ``line``, ``column``, ``message``,
        ``hint``.
    """

    def __init__(
        self,
        message: str,
        *,
        file: Optional[str] = None,
        line: Optional[int] = None,
        field: Optional[str] = None,
        diagnostics_json: str = "[]",
    ) -> None:
        # Whoever raises it (Rust or Python), no error shows a key or
        # drives the terminal that prints it.
        message = _shown(message)
        super().__init__(message)
        self.message = message
        self.file = _shown(file) if file else None
        self.line = line
        self.field = _shown(field) if field is not None else None
        self.diagnostics: List[Dict[str, Any]] = json.loads(_redact(diagnostics_json))


class InputError(PactumError):
    """A file, record, argument or option pactum cannot use; nothing was
    graded from it."""


class ContractError(InputError):
    """A contract that does not validate (schema, regex, pointer, lint
    error…): ``diagnostics`` holds each problem with its line and column."""


class StoreError(PactumError):
    """The store (``.pactum/pactum.db``) failed, or named something it
    does not hold."""


class RunError(PactumError):
    """A live run could not start or go on."""


class ReportError(PactumError):
    """A report could not be set up (a refused or uncreatable path)."""


class InternalError(PactumError):
    """pactum failed internally."""


class ContractViolation(AssertionError):
    """Raised by :func:`pactum.assert_contract` when a trace does not pass:
    the message is the clause breakdown with the quoted evidence, and
    ``result`` the graded :class:`pactum.Result`."""

    def __init__(self, message: str, result: Any) -> None:
        super().__init__(message)
        self.result = result


class PactumWarning(UserWarning):
    """What a grading run warned about (a vacuous check, a channel the
    level never observes, an interrupted input…), issued by
    :func:`pactum.check` and :func:`pactum.assert_contract` as a Python
    warning so that pytest lists it."""
