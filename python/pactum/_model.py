"""Traces, contracts, predicates and results as Python objects.

Python only *builds* these: a predicate is the contract-file form of a
check (``docs/predicates.md``), a contract is validated by pactum's
contract loader, a trace by pactum's importers, and every verdict comes
from the Rust library (:func:`pactum.grade`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from . import _pactum

__all__ = [
    "Observability",
    "Predicate",
    "tool_called",
    "tool_sequence",
    "side_effect",
    "contains",
    "icontains",
    "equals",
    "regex",
    "refusal",
    "field_check",
    "all_of",
    "any_of",
    "not_",
    "Clause",
    "Contract",
    "Trace",
    "TraceBuilder",
    "Evidence",
    "UndeterminedOperand",
    "ClauseResult",
    "ContractResult",
    "Result",
]

#: An observability level (SPEC §3.2): ``"response_only"``,
#: ``"tool_calls"`` or ``"full"``. Always given, never defaulted.
Observability = str

JSON = Any
PathLike = Union[str, "os.PathLike[str]"]


def _safe(text: object) -> str:
    """Untrusted text made safe for a terminal by pactum's rule (escape
    sequences and control characters removed, invisible characters
    named as ``U+XXXX``)."""
    return _pactum.terminal_safe(str(text))


_INT_MIN = -(2**63)
_INT_MAX = 2**64 - 1


def _utf8(text: str, what: str, field: Optional[str] = None) -> str:
    """``text``, refused with :class:`InputError` when it cannot be UTF-8:
    a lone surrogate (a file name of undecodable bytes, text cut inside a
    surrogate pair). pactum reads UTF-8 only; it never guesses a repair."""
    from .errors import InputError

    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        bad = text[e.start]
        raise InputError(
            f"{what}: not valid Unicode text: a lone surrogate U+{ord(bad):04X} at character {e.start} "
            "(pactum reads UTF-8; a file name of undecodable bytes cannot be opened by name)",
            field=field,
        ) from None
    return text


def _json_text(value: Any, what: str) -> str:
    """``value`` as JSON text, refusing what JSON would silently change:
    a key that is not a string (``{1: …}`` would merge with ``{"1": …}``),
    an integer beyond 64 bits (read back as an inexact float), NaN or an
    infinity, and anything that is not JSON."""
    from .errors import InputError

    def walk(v: Any, at: str) -> None:
        if isinstance(v, str):
            _utf8(v, f"{what}: {at or '/'}", at or "/")
            return
        if isinstance(v, bool) or v is None:
            return
        if isinstance(v, int):
            if not _INT_MIN <= v <= _INT_MAX:
                raise InputError(f"{what}: {at or '/'}: the integer {v} does not fit in 64 bits", field=at or "/")
            return
        if isinstance(v, float):
            if v != v or v in (float("inf"), float("-inf")):
                raise InputError(f"{what}: {at or '/'}: {v} is not a JSON number", field=at or "/")
            return
        if isinstance(v, Mapping):
            for k, x in v.items():
                if not isinstance(k, str):
                    raise InputError(
                        f"{what}: {at or '/'}: the key {k!r} is not a string (JSON keys are strings)", field=at or "/"
                    )
                _utf8(k, f"{what}: {at or '/'}: a key", at or "/")
                walk(x, f"{at}/{k.replace('~', '~0').replace('/', '~1')}")
            return
        if isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                walk(x, f"{at}/{i}")
            return
        raise InputError(f"{what}: {at or '/'}: a {type(v).__name__} is not JSON", field=at or "/")

    walk(value, "")
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


class Predicate:
    """A check (``docs/predicates.md``) as a small tree. ``a & b`` is
    ``all``, ``a | b`` is ``any``, ``~a`` is ``not``: Kleene logic, evaluated
    by pactum's Rust evaluator, never here."""

    def __init__(self, form: Mapping[str, JSON]) -> None:
        self._form: Dict[str, JSON] = dict(form)

    def to_dict(self) -> Dict[str, JSON]:
        """The contract-file form of this check (a fresh copy)."""
        return _copy(self._form)

    def __and__(self, other: "Predicate") -> "Predicate":
        return all_of(*_flatten("all", self), *_flatten("all", other))

    def __or__(self, other: "Predicate") -> "Predicate":
        return any_of(*_flatten("any", self), *_flatten("any", other))

    def __invert__(self) -> "Predicate":
        return not_(self)

    def __bool__(self) -> bool:
        # `a and b` would silently keep only `b`: Kleene logic is `&`, `|`, `~`.
        raise TypeError("a pactum predicate has no truth value in Python: compose with &, | and ~")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Predicate) and self._form == other._form

    def __hash__(self) -> int:
        return hash(json.dumps(self._form, sort_keys=True))

    def __repr__(self) -> str:
        return f"Predicate({json.dumps(self._form)})"


def _copy(v: Dict[str, JSON]) -> Dict[str, JSON]:
    out: Dict[str, JSON] = json.loads(json.dumps(v))
    return out


def _flatten(op: str, p: Predicate) -> List[Predicate]:
    # `a & b & c` is one `all` of three: the same outcome (Kleene `and` is
    # associative), and one level of nesting in the contract.
    inner = p._form.get(op)
    if len(p._form) == 1 and isinstance(inner, list):
        return [Predicate(x) for x in inner]
    return [p]


def _check(p: Predicate) -> Dict[str, JSON]:
    if not isinstance(p, Predicate):
        raise TypeError(f"expected a pactum predicate, got {type(p).__name__}")
    return p.to_dict()


def _opts(**kw: Any) -> Dict[str, JSON]:
    out: Dict[str, JSON] = {}
    for k, v in kw.items():
        if v is not None:
            out["in" if k == "in_" else k] = v
    return out


def all_of(*operands: Predicate) -> Predicate:
    """Kleene AND of ``operands`` (``all``)."""
    return Predicate({"all": [_check(p) for p in operands]})


def any_of(*operands: Predicate) -> Predicate:
    """Kleene OR of ``operands`` (``any``)."""
    return Predicate({"any": [_check(p) for p in operands]})


def not_(operand: Predicate) -> Predicate:
    """Kleene NOT of ``operand`` (``not``)."""
    return Predicate({"not": _check(operand)})


def tool_called(
    name: str,
    args: Optional[Mapping[str, JSON]] = None,
    **options: JSON,
) -> Predicate:
    """The target called tool ``name`` (``tool_called``); ``args`` maps JSON
    pointers (``"/recipient"``) to values or value matchers; ``options``
    are the predicate's other keys (``count``, ``errored``…)."""
    form: Dict[str, JSON] = {"name": name}
    if args is not None:
        form["args"] = dict(args)
    form.update(options)
    return Predicate({"tool_called": form})


def tool_sequence(*calls: Union[str, Mapping[str, JSON]]) -> Predicate:
    """The target made these calls in this order (``tool_sequence``), as
    a subsequence: each is a tool name, or a dict with ``name`` and the
    ``args``/``status`` of ``tool_called``.
    ``tool_sequence("read_file", {"name": "send_money", "args": {"/recipient": "US1"}})``."""
    steps: List[Dict[str, JSON]] = []
    for c in calls:
        if isinstance(c, str):
            steps.append({"name": c})
        elif isinstance(c, Mapping):
            steps.append(dict(c))
        else:
            raise TypeError(f"tool_sequence() takes tool names or dicts, got {type(c).__name__}")
    return Predicate({"tool_sequence": steps})


def side_effect(kind: str, details: Optional[Mapping[str, JSON]] = None, **options: JSON) -> Predicate:
    """The adapter reported a side effect of ``kind`` (``side_effect``)."""
    form: Dict[str, JSON] = {"kind": kind}
    if details is not None:
        form["details"] = dict(details)
    form.update(options)
    return Predicate({"side_effect": form})


def _text(op: str, key: str, value: str, in_: Optional[str], turns: Optional[str], echo: Optional[str]) -> Predicate:
    opts = _opts(in_=in_, turns=turns, echo=echo)
    if not opts:
        return Predicate({op: value})
    return Predicate({op: {key: value, **opts}})


def contains(text: str, *, in_: Optional[str] = None, turns: Optional[str] = None, echo: Optional[str] = None) -> Predicate:
    """The text contains ``text`` (``contains``; ``in_`` is the speaker
    scope, ``turns`` the turn scope)."""
    return _text("contains", "text", text, in_, turns, echo)


def icontains(text: str, *, in_: Optional[str] = None, turns: Optional[str] = None, echo: Optional[str] = None) -> Predicate:
    """As :func:`contains`, case-insensitively (``icontains``)."""
    return _text("icontains", "text", text, in_, turns, echo)


def equals(text: str, *, in_: Optional[str] = None, turns: Optional[str] = None, echo: Optional[str] = None) -> Predicate:
    """The whole text, trimmed, equals ``text`` (``equals``)."""
    return _text("equals", "text", text, in_, turns, echo)


def regex(pattern: str, *, in_: Optional[str] = None, turns: Optional[str] = None, echo: Optional[str] = None) -> Predicate:
    """A Rust ``regex`` pattern matches somewhere (``regex``)."""
    return _text("regex", "pattern", pattern, in_, turns, echo)


def refusal(*, kind: str, turns: Optional[str] = None) -> Predicate:
    """pactum's refusal detector (``refusal``); ``kind`` (``"full"`` or
    ``"any"``) is required: there is no default."""
    return Predicate({"refusal": _opts(kind=kind, turns=turns)})


def field_check(pointer: str, **matcher: JSON) -> Predicate:
    """A metadata field (``field``): ``field_check("/lang", equals="en")``."""
    return Predicate({"field": {"pointer": pointer, **matcher}})


@dataclass(frozen=True)
class Clause:
    """One behaviour of a contract: ``id``, ``text`` (named without a
    negation word), ``check`` and/or ``judge`` (a rubric string),
    ``severity`` (``low``,
    ``medium``, ``high``, ``critical``; the file format's default,
    ``medium``, when ``None``)."""

    id: str
    text: str
    check: Optional[Predicate] = None
    severity: Optional[str] = None
    #: The rubric a judge grades the clause by (a string, SPEC §3.4).
    judge: Optional[str] = None

    def to_dict(self) -> Dict[str, JSON]:
        """The contract-file form of this clause."""
        out: Dict[str, JSON] = {"id": self.id, "text": self.text}
        if self.severity is not None:
            out["severity"] = self.severity
        if self.check is not None:
            out["check"] = _check(self.check)
        if self.judge is not None:
            out["judge"] = self.judge
        return out


class Contract:
    """A validated evaluation contract (SPEC §2; ``docs/contracts.md``).

    Build one with :meth:`from_yaml`, :meth:`from_file`, :meth:`from_dict`
    or the constructor; each is read, validated and linted by pactum's
    contract loader, and raises :class:`pactum.ContractError` (with every
    diagnostic, its line and column) when it does not validate.
    """

    def __init__(
        self,
        id: str,
        *,
        required: Sequence[Clause] = (),
        prohibited: Sequence[Clause] = (),
        description: Optional[str] = None,
        select: Optional[Mapping[str, JSON]] = None,
        extra: Optional[Mapping[str, JSON]] = None,
    ) -> None:
        doc: Dict[str, JSON] = {"version": 1, "id": id}
        if description is not None:
            doc["description"] = description
        if select is not None:
            doc["select"] = dict(select)
        if required:
            doc["required"] = [c.to_dict() for c in required]
        if prohibited:
            doc["prohibited"] = [c.to_dict() for c in prohibited]
        if extra:
            doc.update(extra)
        self._init_text(_json_text(doc, "contract"), "<python>.json", None)

    def _init_text(self, text: str, name: str, path: Optional[str]) -> None:
        loaded = json.loads(
            _pactum.load_contract(_utf8(path, "the contract path"))
            if path is not None
            else _pactum.parse_contract(_utf8(text, name), _utf8(name, "the contract name"))
        )
        self._name = name
        self._path = path
        self._model: Dict[str, JSON] = loaded["model"]
        # What grading reads: the validated model (schema files inlined),
        # so a contract is the one checked here, whatever happens to its
        # file or its folder afterwards.
        self._graded = json.dumps(self._model, ensure_ascii=False)
        self.id: str = loaded["id"]
        #: ``sha256:…`` of the contract's canonical form: the same contract
        #: has the same digest whatever its layout.
        self.digest: str = loaded["digest"]
        #: The loader's warnings (lint findings), as diagnostic dicts.
        self.warnings: List[Dict[str, JSON]] = json.loads(_pactum.redact(json.dumps(loaded["warnings"])))

    @classmethod
    def _make(cls, text: str, name: str, path: Optional[str]) -> "Contract":
        c = cls.__new__(cls)
        c._init_text(text, name, path)
        return c

    @classmethod
    def from_yaml(cls, text: str, *, name: str = "<yaml>.yaml") -> "Contract":
        """A contract from YAML text; ``name`` stands for the file in
        diagnostics."""
        return cls._make(text, name, None)

    @classmethod
    def from_dict(cls, doc: Mapping[str, JSON], *, name: str = "<dict>.json") -> "Contract":
        """A contract from a dict of the file format."""
        return cls._make(_json_text(doc, name), name, None)

    @classmethod
    def from_file(cls, path: PathLike) -> "Contract":
        """A contract file (``.json`` as JSON, anything else as YAML); its
        ``schema_file``s resolve against its folder. The file is read once,
        here: grading uses what was read and validated then."""
        p = os.fsdecode(path)
        return cls._make("", p, p)

    @property
    def path(self) -> Optional[str]:
        """The file it was read from, or ``None``."""
        return self._path

    def to_dict(self) -> Dict[str, JSON]:
        """The validated model (pointers normalised, defaults filled in),
        itself a valid contract document."""
        return _copy(self._model)

    def to_yaml(self) -> str:
        """The contract as YAML text that reads back to the same digest."""
        return _pactum.to_yaml(json.dumps(self._model, ensure_ascii=False))

    def _request_item(self) -> Dict[str, JSON]:
        return {"inline": {"name": self._name, "text": self._graded, "json": True}}

    def __repr__(self) -> str:
        return f"Contract(id={self.id!r}, digest={self.digest!r})"


class Trace:
    """What the target did in one conversation (SPEC §2), imported and
    checked by pactum's importers. The observability level is required
    wherever a trace is built (SPEC §3.2): there is no default."""

    def __init__(self, _record: Dict[str, JSON]) -> None:
        self._record = _record

    @classmethod
    def from_messages(
        cls,
        messages: Sequence[Mapping[str, JSON]],
        *,
        observability: Observability,
        id: Optional[str] = None,
        metadata: Optional[Mapping[str, JSON]] = None,
    ) -> "Trace":
        """A trace from OpenAI-style chat messages (``role``, ``content``,
        ``tool_calls``, ``tool_call_id``…), read by pactum's OpenAI
        importer. ``metadata`` becomes the trace's metadata (what
        ``select``, ``field`` and expectations read)."""
        from .errors import InputError

        if observability is None:
            raise InputError(
                "Trace.from_messages: observability is required (response_only, tool_calls or full): "
                "there is no default (SPEC §3.2)",
                field="observability",
            )
        record: Dict[str, JSON] = dict(metadata or {})
        for key in ("observability", "messages", "id"):
            if key in record:
                raise InputError(
                    f"Trace.from_messages: metadata may not hold `{key}`: it is the `{key}` argument's "
                    "(a level in metadata would override the one given)",
                    field=f"metadata/{key}",
                )
        if id is not None:
            record["id"] = id
        record["messages"] = list(messages)
        record["observability"] = observability
        out = _pactum.import_record(_json_text(record, "<messages>"), "<messages>", "openai", observability)
        return cls(json.loads(out))

    @classmethod
    def from_dict(cls, record: Mapping[str, JSON], *, observability: Optional[Observability] = None) -> "Trace":
        """A trace in pactum's own format (``schemas/trace.schema.json``);
        ``observability`` is required when the record does not declare
        one."""
        from .errors import InputError

        declared = record.get("observability")
        if observability is not None and declared is not None and declared != observability:
            raise InputError(
                f"Trace.from_dict: the record declares observability {declared!r} and the argument says "
                f"{observability!r}: say it once",
                field="observability",
            )
        out = _pactum.import_record(_json_text(dict(record), "<dict>"), "<dict>", "pactum", observability)
        return cls(json.loads(out))

    @classmethod
    def from_file(
        cls,
        path: PathLike,
        *,
        observability: Optional[Observability] = None,
        format: str = "auto",
    ) -> List["Trace"]:
        """Every trace of a file, by any pactum importer (``format``:
        ``auto``, ``openai``, ``pactum``; ``docs/traces.md``).
        ``observability`` is the level for records that declare none.
        Records that hold no trace are skipped, and a
        :class:`pactum.PactumWarning` says how many.

        :raises InputError: the file cannot be read, or a record cannot
            (naming its file, line and field).
        """
        from .errors import InputError

        out = json.loads(_pactum.read_trace_file(_utf8(os.fsdecode(path), "the trace path"), format, observability))
        if out["errors"]:
            e = out["errors"][0]
            raise InputError(
                f"{e['file']}:{e['line']}: {e['message']}", file=e["file"], line=e["line"], field=e.get("field")
            )
        if out.get("skipped"):
            import warnings

            from .errors import PactumWarning

            warnings.warn(
                PactumWarning(
                    _safe(
                        f"pactum skipped-records: {os.fsdecode(path)}: skipped {out['skipped']} record(s) that hold no "
                        f"trace; {len(out['traces'])} trace(s) read"
                    )
                ),
                stacklevel=2,
            )
        return [cls(t) for t in out["traces"]]

    @property
    def id(self) -> str:
        """The trace id."""
        return str(self._record["id"])

    @property
    def observability(self) -> Observability:
        """The declared observability level."""
        return str(self._record["observability"])

    def to_dict(self) -> Dict[str, JSON]:
        """The trace in pactum's own format."""
        return _copy(self._record)

    def __repr__(self) -> str:
        return f"Trace(id={self.id!r}, observability={self.observability!r})"


class TraceBuilder:
    """Builds a trace turn by turn; :meth:`build` hands it to pactum's
    importer, which checks it."""

    def __init__(self, id: str, *, observability: Observability, metadata: Optional[Mapping[str, JSON]] = None) -> None:
        self._id = id
        self._observability = observability
        self._metadata = dict(metadata) if metadata else None
        self._turns: List[Dict[str, JSON]] = []

    def turn(
        self,
        *,
        user: Optional[str] = None,
        system: Optional[str] = None,
        response: Optional[str] = None,
        tool_calls: Iterable[Mapping[str, JSON]] = (),
        side_effects: Iterable[Mapping[str, JSON]] = (),
    ) -> "TraceBuilder":
        """Adds one turn: its input messages, the target's response text
        (``None``: not recorded), its tool calls (``name``, ``arguments``,
        ``result``, ``error``) and side effects (``kind``, ``details``)."""
        t: Dict[str, JSON] = {}
        inputs = []
        if system is not None:
            inputs.append({"role": "system", "content": system})
        if user is not None:
            inputs.append({"role": "user", "content": user})
        if inputs:
            t["input"] = inputs
        if response is not None:
            t["response"] = response
        calls = [dict(c) for c in tool_calls]
        if calls:
            t["tool_calls"] = calls
        effects = [dict(e) for e in side_effects]
        if effects:
            t["side_effects"] = effects
        self._turns.append(t)
        return self

    def build(self) -> Trace:
        """The trace, checked by pactum's importer."""
        record: Dict[str, JSON] = {"id": self._id, "observability": self._observability, "turns": self._turns}
        if self._metadata is not None:
            record["metadata"] = self._metadata
        return Trace.from_dict(record)


@dataclass(frozen=True)
class Evidence:
    """One piece of evidence: ``kind`` (``quote``, ``tool_call``,
    ``side_effect``, ``field``…) and its fields as pactum reports them
    (``text``, ``turn``, ``source``, ``name``, ``arguments``…)."""

    kind: str
    data: Dict[str, JSON]

    def describe(self) -> str:
        """One line for a person: the quote or the call."""
        d = self.data
        if "text" in d:
            where = f"turn {d.get('turn')} {d.get('source', '')}".strip()
            return f"{where}: {json.dumps(d['text'], ensure_ascii=False)}"
        if "name" in d:
            return f"turn {d.get('turn')} tool call {d['name']} {json.dumps(d.get('arguments'), ensure_ascii=False)}"
        return json.dumps(d, ensure_ascii=False)


def _evidence(v: JSON) -> Evidence:
    if isinstance(v, dict):
        kind = str(v.get("kind", "evidence"))
        return Evidence(kind, dict(v))
    return Evidence("value", {"value": v})


@dataclass(frozen=True)
class UndeterminedOperand:
    """An operand that came back undetermined, with its reason."""

    predicate: str
    reason: str
    data: Dict[str, JSON] = field(default_factory=dict)


@dataclass(frozen=True)
class ClauseResult:
    """The graded state of one clause (SPEC §3.3, §3.5)."""

    id: str
    kind: str
    text: str
    severity: str
    verdict: str
    confidence: int
    outcome: str
    rationale: str
    evidence: List[Evidence]
    undetermined_operands: List[UndeterminedOperand]
    reason: Optional[str]
    suggestion: Optional[str]
    conditional: bool

    @classmethod
    def _from(cls, d: Dict[str, JSON]) -> "ClauseResult":
        return cls(
            id=d["id"],
            kind=d["kind"],
            text=d["text"],
            severity=d["severity"],
            verdict=d["verdict"],
            confidence=int(d["confidence"]),
            outcome=d["outcome"],
            rationale=d["rationale"],
            evidence=[_evidence(e) for e in d.get("evidence", [])],
            undetermined_operands=[
                UndeterminedOperand(
                    predicate=str(u.get("predicate", u.get("operand", ""))),
                    reason=str(u.get("reason", "")),
                    data=dict(u),
                )
                for u in d.get("undetermined_operands", [])
            ],
            reason=d.get("reason"),
            suggestion=d.get("suggestion"),
            conditional=bool(d.get("conditional", False)),
        )


@dataclass(frozen=True)
class ContractResult:
    """One contract graded over one trace."""

    contract_id: str
    contract_digest: str
    score: Optional[float]
    clauses: List[ClauseResult]


@dataclass(frozen=True)
class Result:
    """The result of grading one trace (one test): ``status`` is
    ``pass``, ``fail``, ``undetermined`` (WARN) or ``error``."""

    trace_id: str
    status: str
    summary: str
    observability: str
    overall_score: Optional[float]
    contracts: List[ContractResult]
    error: Optional[str]
    source: Optional[Dict[str, JSON]]
    expected: Optional[str]
    raw: Dict[str, JSON] = field(repr=False)
    #: What the run warned about (dicts with ``code`` and ``message``);
    #: set by :func:`pactum.check`.
    warnings: List[Dict[str, JSON]] = field(default_factory=list)

    @classmethod
    def _from(cls, d: Dict[str, JSON]) -> "Result":
        return cls(
            trace_id=d["trace_id"],
            status=d["status"],
            summary=d["summary"],
            observability=d["observability"],
            overall_score=d.get("overall_score"),
            contracts=[
                ContractResult(
                    contract_id=c["contract_id"],
                    contract_digest=c["contract_digest"],
                    score=c.get("score"),
                    clauses=[ClauseResult._from(x) for x in c["clauses"]],
                )
                for c in d.get("contracts", [])
            ],
            error=d.get("error"),
            source=d.get("source"),
            expected=d.get("expected"),
            raw=d,
        )

    @property
    def passed(self) -> bool:
        """Whether the status is ``pass`` (a WARN is not)."""
        return self.status == "pass"

    @property
    def clauses(self) -> List[ClauseResult]:
        """Every clause of every contract, in order."""
        return [c for k in self.contracts for c in k.clauses]

    def breakdown(self) -> str:
        """The clause breakdown with quoted evidence, as the assertion
        message of :func:`pactum.assert_contract` shows it."""
        lines = [f"{self.status.upper()} {self.trace_id}: {self.summary}"]
        if self.error:
            lines.append(f"  error: {self.error}")
        for k in self.contracts:
            lines.append(f"  contract {k.contract_id}:")
            for c in k.clauses:
                mark = {"satisfied": "✓", "violated": "✗", "partially_satisfied": "~"}.get(c.verdict, "?")
                extra = f" ({c.reason})" if c.reason else ""
                lines.append(f"    {mark} {c.id}  {c.kind}  {c.severity}  {c.verdict}{extra}: {c.text}")
                for e in c.evidence:
                    lines.append(f"        evidence: {e.describe()}")
                if c.verdict != "satisfied":
                    lines.append(f"        rationale: {c.rationale}")
                for u in c.undetermined_operands:
                    lines.append(f"        undetermined: {u.predicate}: {u.reason}")
                if c.suggestion:
                    lines.append(f"        suggestion: {c.suggestion}")
        for w in self.warnings:
            lines.append(f"  warning {w.get('code')}: {w.get('message')}")
        # Trace and contract text is untrusted: no escape sequence of it
        # reaches a terminal (each line is made safe on its own).
        return "\n".join(_safe(line) for line in lines)
