#!/usr/bin/env python3
"""Independent count of what an OpenTelemetry export holds, per file.

    python3 bench/trace-counts.py FILE...

Reads each OTLP JSON (`resourceSpans` / Tempo `batches`, a document or JSONL
of them), Jaeger JSON (`data[].spans[]`) or Langfuse export of OpenInference
spans (`observations[].metadata.attributes`) file on its own, with the
standard library only, and prints one line per file:

    NAME traces=T turns=U tool_calls=C errored_calls=E

or `NAME refused: WHY` for a file that is neither. It also counts OpenAI
Agents SDK trace exports (`{"data": [trace / trace.span records]}` per line)
and Inspect AI logs (`.json`, and `.eval` zips read with `zipfile`); the
rules for those are at `agents_count` and `inspect_count`. The rules are the ones
`docs/traces.md` ("OpenTelemetry") states, written again from the raw JSON
without pactum's code, so the real-data check can compare the two:

* traces: OpenTelemetry traces grouped by `gen_ai.conversation.id`, else
  `session.id`, else trace id; a group with no LLM span and no tool span is
  not a trace;
* LLM spans: GenAI (`gen_ai.operation.name` chat / text_completion /
  generate_content, or content keys) or OpenInference kind LLM; one with an
  LLM span below it is the same call and is not counted (its output is read
  for the one call below it when that call captured none);
* turns: a call starts one when it is the group's first, its trace differs
  from the previous call's, or its input ends with a user/system message
  that is not only tool results;
* tool calls: the calls of each captured output, plus each tool span
  (`execute_tool`, OpenInference TOOL, Traceloop `tool`, or a span with
  `gen_ai.tool.name` and no other kind) that no output call accounts for
  (same id, else same name); errored calls: tool spans in error (status
  ERROR, `error.type`, an `exception` event); every message convention on
  a span is read, and a span whose conventions name different calls makes
  the file refused.
"""

import json
import re
import sys
from pathlib import Path

import trace_counts_messages  # provider and framework recordings (same folder)


def any_value(v):
    if not v:
        return None
    (k, x), = v.items()
    if k == "intValue":
        return int(x)
    if k == "arrayValue":
        return [any_value(i) for i in x.get("values", [])]
    if k == "kvlistValue":
        return {i["key"]: any_value(i.get("value")) for i in x.get("values", [])}
    return x


def otlp_spans(doc):
    for r in doc.get("resourceSpans", doc.get("batches", [])):
        for sc in r.get("scopeSpans", r.get("instrumentationLibrarySpans", [])):
            for s in sc.get("spans", []):
                attrs = {a["key"]: any_value(a.get("value")) for a in s.get("attributes", [])}
                code = s.get("status", {}).get("code")
                yield {
                    "trace": s["traceId"].lower(), "id": s["spanId"].lower(),
                    "parent": (s.get("parentSpanId") or "").lower() or None,
                    "start": int(s["startTimeUnixNano"]), "attrs": attrs,
                    "events": [(e.get("name"), {a["key"]: any_value(a.get("value")) for a in e.get("attributes", [])})
                               for e in s.get("events", [])],
                    "error": code in (2, "STATUS_CODE_ERROR"),
                }


def jaeger_spans(doc):
    for t in doc["data"]:
        for s in t["spans"]:
            tags = {a["key"]: a["value"] for a in s.get("tags", [])}
            parent = [r["spanID"] for r in s.get("references", []) if r.get("refType") == "CHILD_OF"]
            events = []
            for log in s.get("logs", []):
                f = {a["key"]: a["value"] for a in log.get("fields", [])}
                events.append((f.pop("event", None), f))
            yield {
                "trace": s["traceID"].lower(), "id": s["spanID"].lower(),
                "parent": parent[0].lower() if parent else None,
                "start": int(s["startTime"]) * 1000, "attrs": tags, "events": events,
                "error": tags.get("error") is True or tags.get("otel.status_code") == "ERROR",
            }


def iso_nanos(s):
    from datetime import datetime, timezone
    if not isinstance(s, str) or not s.endswith("Z"):
        return None
    base, _, frac = s[:-1].partition(".")
    dt = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    return int(dt.timestamp()) * 10**9 + int((frac + "000000000")[:9])


def langfuse_attrs(o):
    md = o.get("metadata")
    if isinstance(md, str):
        try:
            md = json.loads(md)
        except ValueError:
            return None
    at = md.get("attributes") if isinstance(md, dict) else None
    if isinstance(at, str):
        at = json.loads(at)
    return at


def langfuse_spans(doc):
    """Observations by their attributes; one whose attributes say neither
    LLM, tool nor agent is read by its own fields (a Langfuse TOOL)."""
    session = (doc.get("trace") or {}).get("sessionId")
    spans, plain = [], []
    for o in doc["observations"]:
        attrs = dict(langfuse_attrs(o) or {})
        if session and "session.id" not in attrs:
            attrs["session.id"] = session
        span = {
            "trace": o["traceId"].lower(), "id": o["id"].lower(),
            "parent": (o.get("parentObservationId") or "").lower() or None,
            "start": iso_nanos(o["startTime"]), "attrs": attrs, "events": [],
            "error": o.get("level") == "ERROR",
        }
        spans.append(span)
        if kind(span) == "other" and str(attrs.get("openinference.span.kind", "")).upper() != "AGENT":
            plain.append(o)
    try:
        own = {(s["trace"], s["id"]): s for s in trace_counts_messages.langfuse_native_spans(
            {"trace": doc.get("trace") or {}, "observations": plain})}
    except (TypeError, AttributeError, KeyError, ValueError):
        raise Unreadable("an observation neither its attributes nor its own fields explain")
    for span in spans:
        n = own.get((span["trace"], span["id"]))
        yield n if n is not None and kind(n) != "other" else span


def docs_of(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix in (".jsonl", ".ndjson"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    d = json.loads(text)
    return d if isinstance(d, list) else [d]


INPUT_EVENTS = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
                "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}


def keys_max(attrs, pattern):
    """The highest index i with a key matching pattern (a regex with one group)."""
    found = [int(m.group(1)) for k in attrs for m in [re.match(pattern, k)] if m]
    return max(found) if found else None


TOOL_NAMES = ("gen_ai.tool.name", "tool.name", "traceloop.entity.name")


def tool_name(a):
    return next((a[k] for k in TOOL_NAMES if a.get(k)), None)


def kind(s):
    a = s["attrs"]
    op = a.get("gen_ai.operation.name")
    oi = str(a.get("openinference.span.kind", "")).upper()
    loop = a.get("traceloop.span.kind")
    if op == "execute_tool" or oi == "TOOL" or loop == "tool":
        return "tool"
    # A span that names a tool and says nothing else is one.
    if "gen_ai.tool.name" in a and op is None and not oi and loop is None:
        return "tool"
    content = any(k in a for k in ("gen_ai.input.messages", "gen_ai.output.messages")) or any(
        k.startswith(("llm.input_messages.", "llm.output_messages.", "gen_ai.prompt.", "gen_ai.completion."))
        for k in a) or any(n == "gen_ai.choice" or n in INPUT_EVENTS for n, _ in s["events"])
    if content or op in ("chat", "text_completion", "generate_content") or oi == "LLM":
        return "llm"
    return "other"


def last_input_role(s):
    a = s["attrs"]
    if "gen_ai.input.messages" in a:
        m = json.loads(a["gen_ai.input.messages"]) if isinstance(a["gen_ai.input.messages"], str) else a["gen_ai.input.messages"]
        if not m:
            return None
        parts = m[-1].get("parts") or []
        # A message of tool results only continues the loop.
        if parts and all(p.get("type") == "tool_call_response" for p in parts):
            return "tool"
        return m[-1]["role"]
    i = keys_max(a, r"llm\.input_messages\.(\d+)\.")
    if i is not None:
        return a.get(f"llm.input_messages.{i}.message.role")
    i = keys_max(a, r"gen_ai\.prompt\.(\d+)\.")
    if i is not None:
        return a.get(f"gen_ai.prompt.{i}.role")
    roles = [INPUT_EVENTS[n] for n, _ in s["events"] if n in INPUT_EVENTS]
    return roles[-1] if roles else None


class Disagree(Exception):
    """Two conventions on one span record different calls."""


class Unreadable(Exception):
    """A record neither reading explains."""


def output_calls(s):
    """(id, name) of the calls in a captured output; None when not captured.
    Every convention present is read; they must name the same calls."""
    a = s["attrs"]
    found = []
    if "gen_ai.output.messages" in a:
        v = a["gen_ai.output.messages"]
        msgs = json.loads(v) if isinstance(v, str) else v
        found.append([(p.get("id"), p.get("name")) for m in msgs for p in m.get("parts", []) if p.get("type") == "tool_call"])
    if any(k.startswith("llm.output_messages.") for k in a):
        out = []
        for k in sorted(a):
            m = re.match(r"llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.function\.name$", k)
            if m:
                out.append((a.get(k.replace("function.name", "id")), a[k]))
        found.append(out)
    if any(k.startswith("gen_ai.completion.") for k in a):
        out = []
        for k in sorted(a):
            m = re.match(r"gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.name$", k)
            if m:
                out.append((a.get(k[:-len("name")] + "id"), a[k]))
        found.append(out)
    choices = [e for n, e in s["events"] if n == "gen_ai.choice"]
    if choices:
        out = []
        for e in choices:
            body = e.get("gen_ai.event.content")
            body = json.loads(body) if isinstance(body, str) else (body or e)
            msg = body.get("message")
            msg = json.loads(msg) if isinstance(msg, str) else msg
            for c in msg.get("tool_calls") or []:
                out.append((c.get("id"), c.get("function", {}).get("name", c.get("name"))))
        found.append(out)
    if not found:
        return None
    if any(sorted(n for _, n in f) != sorted(n for _, n in found[0]) for f in found):
        raise Disagree()
    # Ids from whichever convention recorded them.
    return [(next((f[i][0] for f in found if f[i][0] is not None), None), found[0][i][1])
            for i in range(len(found[0]))]


def one_value(spans, key):
    vals = {str(s["attrs"][key]).strip() for s in spans if s["attrs"].get(key) not in (None, "")}
    return vals.pop() if len(vals) == 1 else None


def agents_count(docs):
    """OpenAI Agents SDK export: a trace per group_id (else per SDK trace id)
    with at least one span; a turn per SDK trace with spans; tool calls =
    the calls of `generation` outputs plus each `function` span that none of
    them accounts for (same name, in order, within its SDK trace); errored
    calls = function spans whose `error` is not null."""
    recs = [r for d in docs for r in d["data"]]
    group = {r["id"]: r.get("group_id") or r["id"] for r in recs if r["object"] == "trace"}
    spans = {}
    for r in recs:
        if r["object"] == "trace.span":
            spans.setdefault(r["trace_id"], []).append(r)
    groups = {}
    for tid, ss in spans.items():
        groups.setdefault(group.get(tid, tid), []).append(ss)
    known = {"function", "agent", "handoff", "guardrail", "generation", "response", "custom", "mcp_tools"}
    if any(s["span_data"]["type"] not in known for ss in spans.values() for s in ss):
        return "refused: a span of a type pactum does not read"
    traces = turns = calls = errored = 0
    for members in groups.values():
        traces += 1
        for ss in members:
            turns += 1
            ss.sort(key=lambda s: (s["started_at"], s["id"]))
            out = []
            for s in ss:
                d = s["span_data"]
                if d["type"] == "generation":
                    for m in d.get("output") or []:
                        out.extend([c["function"]["name"], False] for c in m.get("tool_calls") or [])
                elif d["type"] == "function":
                    hit = next((c for c in out if not c[1] and c[0] == d["name"]), None)
                    if hit:
                        hit[1] = True
                    else:
                        out.append([d["name"], True])
                    if s.get("error") is not None:
                        errored += 1
            calls += len(out)
    return f"traces={traces} turns={turns} tool_calls={calls} errored_calls={errored}"


def inspect_sample(s):
    """(turns, calls, errored) of one Inspect sample, by the chat-message
    rules: a turn starts at a run of system/user messages (or at the first
    message); calls are assistant `tool_calls` and `tool_use` content parts,
    plus a call for each tool message whose call no assistant message showed,
    plus each call the events record that the messages do not show (`tool`
    events, nested ones too, and model outputs), once per id; errored calls
    are tool messages and such tool events with an `error`."""
    turns = calls = errored = 0
    has_output = False
    seen = set()
    for m in s["messages"]:
        role = m["role"]
        if role in ("system", "user"):
            if has_output or turns == 0:
                turns += 1
                has_output = False
            continue
        if role == "tool":
            if m.get("tool_call_id") not in seen:
                seen.add(m.get("tool_call_id"))
                calls += 1
                if turns == 0:
                    turns += 1
                has_output = True
            if m.get("error") is not None:
                errored += 1
            continue
        if turns == 0:
            turns += 1
        has_output = True
        for c in m.get("tool_calls") or []:
            calls += 1
            seen.add(c.get("id"))
        content = m.get("content")
        if isinstance(content, list):
            calls += sum(1 for p in content if p.get("type") == "tool_use")
    # Calls only the events record (a scaffold's `submit`, a sub-agent's
    # call nested in a tool or subtask event's `events`) count too, and so
    # does a call a model output asks for that nothing else shows.
    def walk(events):
        for e in events or []:
            if e.get("event") == "tool":
                yield e.get("id"), e.get("error") is not None
            elif e.get("event") == "model":
                for c in model_calls(e.get("output")):
                    yield c, False
            yield from walk(e.get("events"))

    def model_calls(output):
        for choice in (output or {}).get("choices") or []:
            for c in (choice.get("message") or {}).get("tool_calls") or []:
                yield c.get("id")

    extra = {}  # id -> errored; a tool event's error wins over the output
    for cid, err in list(walk(s.get("events"))) + [(c, False) for c in model_calls(s.get("output"))]:
        if cid not in seen:
            extra[cid] = extra.get(cid, False) or err
    if extra and turns == 0:
        turns += 1
    calls += len(extra)
    errored += sum(extra.values())
    return turns, calls, errored


def inspect_count(path):
    """Inspect AI log: a trace per sample (sample x epoch)."""
    if path.suffix == ".eval":
        import zipfile
        with zipfile.ZipFile(path) as z:
            samples = [json.loads(z.read(n)) for n in sorted(z.namelist())
                       if n.startswith("samples/") and n.endswith(".json")]
    else:
        samples = json.loads(path.read_text(encoding="utf-8")).get("samples", [])
    traces = turns = calls = errored = 0
    for s in samples:
        refs = re.findall(r'"attachment://(\w+)"', json.dumps(s["messages"]))
        if any(r not in (s.get("attachments") or {}) for r in refs):
            continue  # an unresolved attachment: not a trace
        t, c, e = inspect_sample(s)
        traces += 1
        turns += t
        calls += c
        errored += e
    if samples and not traces:
        return "refused: every sample references an attachment it does not hold"
    return f"traces={traces} turns={turns} tool_calls={calls} errored_calls={errored}"


def is_inspect_json(d):
    return isinstance(d, dict) and all(k in d for k in ("version", "status", "eval"))


def is_agents_export(d):
    data = d.get("data") if isinstance(d, dict) else None
    return isinstance(data, list) and bool(data) and isinstance(data[0], dict) and data[0].get("object") in ("trace", "trace.span")


def count(path):
    if path.suffix == ".eval":
        return inspect_count(path)
    if path.suffix in (".yaml", ".yml"):
        return "refused: a YAML file (a VCR cassette), not a trace export"
    docs = docs_of(path)
    first = docs[0] if docs else {}
    if is_inspect_json(first):
        return inspect_count(path)
    if is_agents_export(first):
        return agents_count(docs)
    if "resourceSpans" in first or "batches" in first:
        spans = [s for d in docs for s in otlp_spans(d)]
    elif isinstance(first.get("data"), list) and first["data"] and "spans" in first["data"][0]:
        spans = [s for d in docs for s in jaeger_spans(d)]
    elif "observations" in first and any(
            "openinference.span.kind" in (langfuse_attrs(o) or {}) for o in first["observations"]):
        try:
            spans = [s for d in docs for s in langfuse_spans(d)]
        except Unreadable as e:
            return f"refused: {e}"
    elif trace_counts_messages.is_langfuse_native(first):
        spans = [s for d in docs for s in trace_counts_messages.langfuse_native_spans(d)]
    elif trace_counts_messages.is_langsmith(first):
        try:
            spans = [s for d in docs for s in trace_counts_messages.langsmith_spans(d)]
        except ValueError as e:
            return f"refused: {e}"
    else:
        return "refused: not an OTLP or Jaeger document, nor a Langfuse export of OpenInference spans"
    for s in spans:
        a = s["attrs"]
        if kind(s) == "tool" and not tool_name(a):
            return "refused: a tool span without a tool name"
    by_trace = {}
    for s in spans:
        by_trace.setdefault(s["trace"], []).append(s)
    groups = {}
    for tid, ss in by_trace.items():
        key = one_value(ss, "gen_ai.conversation.id") or one_value(ss, "session.id") or tid
        groups.setdefault(key, []).extend(ss)
    try:
        return tally(groups)
    except Disagree:
        return "refused: two conventions on one span record different calls"


def tally(groups):
    traces = turns = calls = errored = 0
    for ss in groups.values():
        ss.sort(key=lambda s: (s["start"], s["trace"], s["id"]))
        by_id = {(s["trace"], s["id"]): s for s in ss}
        kinds = {id(s): kind(s) for s in ss}
        wrapper = set()
        for s in ss:
            if kinds[id(s)] == "llm":
                p = by_id.get((s["trace"], s["parent"]))
                while p is not None:
                    if kinds[id(p)] == "llm":
                        wrapper.add(id(p))
                    p = by_id.get((p["trace"], p["parent"]))
        llms = [s for s in ss if kinds[id(s)] == "llm" and id(s) not in wrapper]
        # A leaf without captured output takes the output of the nearest LLM
        # span around it that wraps it alone.
        leaves_under = {}
        for s in llms:
            p = by_id.get((s["trace"], s["parent"]))
            while p is not None:
                if id(p) in wrapper:
                    leaves_under[id(p)] = leaves_under.get(id(p), 0) + 1
                p = by_id.get((p["trace"], p["parent"]))

        def calls_of(s):
            out = output_calls(s)
            p = by_id.get((s["trace"], s["parent"]))
            while out is None and p is not None:
                if kinds[id(p)] == "llm":
                    if leaves_under.get(id(p)) != 1:
                        break
                    out = output_calls(p)
                    if out is not None:
                        break
                p = by_id.get((p["trace"], p["parent"]))
            return out
        tools = [s for s in ss if kinds[id(s)] == "tool"]
        if not llms and not tools:
            continue
        traces += 1
        last = None
        out = []
        for s in llms:
            if last is None or s["trace"] != last or last_input_role(s) in ("user", "system", "human", "developer"):
                turns += 1
            last = s["trace"]
            out.extend(calls_of(s) or [])
        joined = [False] * len(out)
        extra = 0
        for s in tools:
            a = s["attrs"]
            cid = (a.get("gen_ai.tool.call.id") or a.get("tool_call.id") or "").strip() or None
            name = tool_name(a)
            match = None
            for i, (oid, oname) in enumerate(out):
                if not joined[i] and cid is not None and oid is not None and oid.strip() == cid:
                    match = i
                    break
            if match is None:
                for i, (oid, oname) in enumerate(out):
                    if not joined[i] and oname == name and (cid is None or oid is None):
                        match = i
                        break
            if match is None:
                extra += 1
            else:
                joined[match] = True
            if s["error"] or a.get("error.type") or any(n == "exception" for n, _ in s["events"]):
                errored += 1
        if not llms:
            turns += 1
        calls += len(out) + extra
    return f"traces={traces} turns={turns} tool_calls={calls} errored_calls={errored}"


def main(argv):
    if not argv:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    for f in argv:
        p = Path(f)
        if trace_counts_messages.handles(p):
            print(f"{p.name} {trace_counts_messages.count(p)}")
            continue
        print(f"{p.name} {count(p)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
