"""Independent counts for provider message recordings (used by
`bench/trace-counts.py`; standard library only).

Reads Anthropic Messages and Gemini `generateContent` VCR cassettes (YAML)
and Claude Agent SDK message streams (YAML `messages:`), with a small YAML
reader of its own (block mappings and sequences, plain, quoted and block
scalars: what VCR and the SDK write), and counts by the rules
`docs/traces.md` states ("Anthropic Messages", "Gemini contents"):

* a cassette's interactions form conversations: a request that starts with
  every message of the previous request, is longer, and replays the
  previous reply's calls (same names and arguments) continues it; each
  conversation is one trace, its last request plus its last reply;
* turns: a run of user/system messages starts one (a user message of tool
  results only does not); assistant messages before any start one;
* tool calls: `tool_use` blocks / `functionCall` parts of assistant
  messages; errored: those answered by `tool_result` with `is_error: true`,
  or by a `functionResponse` whose `response` has `error` or
  `status: "error"`.
"""

import json
import re


# --- a small YAML reader -------------------------------------------------

class YamlError(Exception):
    pass


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def _plain(s):
    s = s.strip()
    if s in ("", "~", "null", "Null", "NULL"):
        return None
    if s in ("true", "True", "TRUE"):
        return True
    if s in ("false", "False", "FALSE"):
        return False
    if re.fullmatch(r"[-+]?[0-9]+", s):
        return int(s)
    if re.fullmatch(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?", s):
        return float(s)
    if s == "{}":
        return {}
    if s == "[]":
        return []
    if s[0] in "{[&*!|>%@`":
        raise YamlError(f"unsupported scalar {s[:40]!r}")
    return s


def _fold(lines):
    """Folds the lines of a multi-line flow scalar: a line break is a
    space, each empty line a newline."""
    out = ""
    pending_space = False
    for i, ln in enumerate(lines):
        t = ln if i == 0 else ln.lstrip(" \t")
        if i < len(lines) - 1:
            t = t.rstrip(" \t")
        if i > 0:
            if t == "" and i < len(lines) - 1:
                out += "\n"
                pending_space = False
                continue
            if pending_space:
                out += " "
        out += t
        pending_space = True
    return out


_ESC = {"n": "\n", "t": "\t", "r": "\r", "\"": "\"", "\\": "\\", "/": "/", "0": "\0",
        " ": " ", "a": "\a", "b": "\b", "e": "\x1b", "N": "\x85", "_": "\xa0"}


def _double(body_lines):
    # Join lines the YAML way, honouring a trailing backslash (no space).
    out = ""
    i = 0
    n = len(body_lines)
    parts = []
    for k, ln in enumerate(body_lines):
        t = ln if k == 0 else ln.lstrip(" \t")
        parts.append(t)
    text = ""
    k = 0
    while k < n:
        t = parts[k]
        if k < n - 1:
            stripped = t.rstrip(" \t")
            # a trailing unescaped backslash joins without a space
            bs = len(stripped) - len(stripped.rstrip("\\"))
            if bs % 2 == 1:
                text += stripped[:-1]
                k += 1
                continue
            text += stripped
            # empty lines become newlines
            j = k + 1
            empties = 0
            while j < n - 1 and parts[j].strip() == "":
                empties += 1
                j += 1
            text += "\n" * empties if empties else " "
            k = j
            continue
        text += t
        k += 1
    # escapes
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            e = text[i + 1]
            if e == "x":
                out += chr(int(text[i + 2:i + 4], 16))
                i += 4
            elif e == "u":
                out += chr(int(text[i + 2:i + 6], 16))
                i += 6
            elif e == "U":
                out += chr(int(text[i + 2:i + 10], 16))
                i += 10
            elif e in _ESC:
                out += _ESC[e]
                i += 2
            else:
                raise YamlError(f"unknown escape \\{e}")
        else:
            out += c
            i += 1
    # surrogate pairs written as two \u escapes
    return out.encode("utf-16", "surrogatepass").decode("utf-16")


class _Reader:
    def __init__(self, text):
        self.lines = text.split("\n")
        self.i = 0

    def skip(self):
        while self.i < len(self.lines):
            s = self.lines[self.i].strip()
            if s == "" or s.startswith("#") or s == "---":
                self.i += 1
            else:
                return True
        return False

    def node(self, ind):
        if not self.skip():
            return None
        line = self.lines[self.i]
        cur = _indent(line)
        if cur < ind:
            return None
        if line[cur:].startswith("- ") or line[cur:] == "-":
            return self.seq(cur)
        return self.mapping(cur)

    def seq(self, ind):
        out = []
        while self.skip():
            line = self.lines[self.i]
            if _indent(line) != ind or not (line[ind:].startswith("- ") or line[ind:] == "-"):
                break
            rest = line[ind + 2:]
            if rest.strip() == "":
                self.i += 1
                out.append(self.node(ind + 1))
                continue
            # the item's content sits at ind + 2
            self.lines[self.i] = " " * (ind + 2) + rest
            if re.match(r"^(?:[^'\"\s][^:]*|'[^']*'|\"[^\"]*\"):(\s|$)", rest):
                out.append(self.mapping(ind + 2))
            else:
                out.append(self.scalar_at(ind + 2, rest, ind))
        return out

    def key_of(self, rest):
        m = re.match(r"^('(?:[^']|'')*'|\"(?:[^\"\\]|\\.)*\"|[^'\"#][^:]*?):(?:\s+|$)(.*)$", rest)
        if not m:
            raise YamlError(f"line {self.i + 1}: not a mapping entry: {rest[:40]!r}")
        k = m.group(1)
        if k.startswith("'"):
            k = k[1:-1].replace("''", "'")
        elif k.startswith('"'):
            k = _double([k[1:-1]])
        return k, m.group(2)

    def mapping(self, ind):
        out = {}
        while self.skip():
            line = self.lines[self.i]
            if _indent(line) != ind or line[ind:].startswith("- "):
                break
            k, rest = self.key_of(line[ind:])
            if k in out:
                raise YamlError(f"line {self.i + 1}: duplicate key {k!r}")
            if rest.strip() == "" or rest.strip().startswith("#"):
                self.i += 1
                if self.skip():
                    nxt = self.lines[self.i]
                    ni = _indent(nxt)
                    if ni > ind or (ni == ind and nxt[ni:].startswith("- ")):
                        out[k] = self.node(ni)
                        continue
                out[k] = None
                continue
            out[k] = self.scalar_at(ind, rest, ind)
        return out

    def scalar_at(self, ind, rest, parent):
        """A scalar starting with `rest` on line self.i; continuation
        lines are more indented than `parent`."""
        r = rest.strip()
        if r.startswith("'"):
            buf = [rest.lstrip()[1:]]
            while True:
                joined = "\n".join(buf)
                m = re.match(r"^((?:[^']|'')*)'(?!')", joined)
                if m:
                    self.i += 1
                    return _fold(m.group(1).split("\n")).replace("''", "'")
                self.i += 1
                if self.i >= len(self.lines):
                    raise YamlError("unterminated single-quoted scalar")
                buf.append(self.lines[self.i])
        if r.startswith('"'):
            buf = [rest.lstrip()[1:]]
            while True:
                joined = "\n".join(buf)
                m = re.match(r'^((?:[^"\\]|\\.|\\\n)*)"', joined, re.S)
                if m:
                    self.i += 1
                    return _double(m.group(1).split("\n"))
                self.i += 1
                if self.i >= len(self.lines):
                    raise YamlError("unterminated double-quoted scalar")
                buf.append(self.lines[self.i])
        if r[:1] in ("|", ">"):
            style, chomp = r[0], r[1:].strip()
            self.i += 1
            body = []
            block_ind = None
            while self.i < len(self.lines):
                ln = self.lines[self.i]
                if ln.strip() == "":
                    body.append("")
                    self.i += 1
                    continue
                li = _indent(ln)
                if li <= parent:
                    break
                if block_ind is None:
                    block_ind = li
                body.append(ln[block_ind:])
                self.i += 1
            while body and body[-1] == "":
                body.pop()
            if style == ">":
                raise YamlError("folded block scalars are not read")
            text = "\n".join(body)
            return text if chomp == "-" else text + "\n"
        # plain, possibly over several lines
        buf = [rest]
        self.i += 1
        while self.i < len(self.lines):
            ln = self.lines[self.i]
            if ln.strip() == "":
                j = self.i
                while j < len(self.lines) and self.lines[j].strip() == "":
                    j += 1
                if j < len(self.lines) and _indent(self.lines[j]) > parent:
                    buf.extend([""] * (j - self.i))
                    self.i = j
                    continue
                break
            if _indent(ln) <= parent:
                break
            buf.append(ln)
            self.i += 1
        if len(buf) == 1:
            return _plain(buf[0].split(" #")[0])
        return _fold([b.strip() for b in buf])


def load_yaml(text):
    r = _Reader(text)
    v = r.node(0)
    if r.skip():
        raise YamlError(f"line {r.i + 1}: unread content")
    return v


# --- conversations -------------------------------------------------------

def _gemini_sent(body):
    out = []
    si = body.get("systemInstruction") or body.get("system_instruction")
    if si is not None:
        out.append({"role": "system", "parts": si.get("parts", []) if isinstance(si, dict) else [{"text": si}]})
    for c in body["contents"]:
        role = c.get("role")
        out.append({"role": "model" if role == "model" else "user", "parts": c.get("parts") or []})
    return out


def _gemini_reply(text):
    v = json.loads(text)
    cands = v.get("candidates") or []
    if len(cands) > 1:
        raise ValueError("several candidates: which one was acted on is not recorded")
    if not cands or cands[0].get("content") is None:
        return None
    c = cands[0]["content"]
    return {"role": "model", "parts": c.get("parts") or []}


def _anthropic_sent(body):
    out = []
    if body.get("system") is not None:
        out.append({"role": "system", "content": body["system"]})
    out.extend(body["messages"])
    return out


def _sse_reply(text):
    blocks, partial, started = {}, {}, False
    for ln in text.splitlines():
        ln = ln.strip()
        if not ln.startswith("data:"):
            continue
        ev = json.loads(ln[5:])
        t = ev.get("type")
        if t == "message_start":
            started = True
        elif t == "content_block_start":
            blocks[ev["index"]] = dict(ev["content_block"])
            partial[ev["index"]] = ""
        elif t == "content_block_delta":
            d = ev["delta"]
            if d["type"] == "input_json_delta":
                partial[ev["index"]] += d["partial_json"]
            elif d["type"] == "text_delta":
                blocks[ev["index"]]["text"] = blocks[ev["index"]].get("text", "") + d["text"]
    if not started:
        return None
    content = []
    for i in sorted(blocks):
        b = blocks[i]
        if partial[i]:
            try:
                b["input"] = json.loads(partial[i])
            except ValueError:
                b["input"] = partial[i]
        content.append(b)
    return {"role": "assistant", "content": content}


def _anthropic_reply(text):
    if text.lstrip().startswith(("event:", "data:")):
        return _sse_reply(text)
    v = json.loads(text)
    if v.get("type") == "error":
        return None
    if v.get("content") is None:
        return None
    return {"role": "assistant", "content": v["content"]}


def _items(m):
    c = m.get("parts") if "parts" in m else m.get("content")
    return c if isinstance(c, list) else []


def _tid(x):
    """Ids are compared trimmed."""
    return x.strip() if isinstance(x, str) else x


def _calls(m):
    out = []
    for b in _items(m):
        if not isinstance(b, dict):
            continue
        if "functionCall" in b:
            fc = b["functionCall"]
            out.append((fc.get("name"), json.dumps(fc.get("args"), sort_keys=True), _tid(fc.get("id"))))
        elif str(b.get("type", "")).endswith("tool_use"):
            out.append((b.get("name"), json.dumps(b.get("input"), sort_keys=True), _tid(b.get("id"))))
    return out


def _same_calls(a, b):
    return len(a) == len(b) and all(
        x[0] == y[0] and x[1] == y[1] and (x[2] is None or y[2] is None or x[2] == y[2])
        for x, y in zip(a, b))


def _is_assistant(m):
    return m.get("role") in ("assistant", "model")


def _has_text(m):
    c = m.get("parts") if "parts" in m else m.get("content")
    if isinstance(c, str):
        return True
    if c is None:
        return False
    # a content array counts as text when it has a text piece
    for b in c:
        if isinstance(b, str) or (isinstance(b, dict) and "text" in b and not b.get("thought")):
            return True
    return False


def _results(m):
    """(answers-id-or-name, errored) of each result in a message."""
    out = []
    for b in _items(m):
        if not isinstance(b, dict):
            continue
        if "functionResponse" in b:
            fr = b["functionResponse"]
            r = fr.get("response") or {}
            err = isinstance(r, dict) and (r.get("error") is not None or r.get("status") == "error")
            out.append((("id", _tid(fr["id"])) if fr.get("id") else ("name", fr.get("name")), err))
        elif str(b.get("type", "")).endswith("tool_result"):
            out.append((("id", _tid(b.get("tool_use_id"))), b.get("is_error") is True))
    return out


def _count_messages(msgs):
    """turns, calls, errored calls of one conversation."""
    turns = 0
    has_output = False
    calls = []          # [name, id, errored]
    group = []          # indices of the latest assistant message's calls
    answered = set()
    for m in msgs:
        if _is_assistant(m):
            if turns == 0:
                turns = 1
            has_output = True
            cs = _calls(m)
            group = list(range(len(calls), len(calls) + len(cs)))
            for name, _, cid in cs:
                calls.append([name, cid, False])
            continue
        res = _results(m)
        for (how, key), err in res:
            target = None
            for k in group:
                if k in answered:
                    continue
                if how == "name" and calls[k][0] == key:
                    target = k
                    break
                if how == "id" and calls[k][1] == key:
                    target = k
                    break
            if target is None and how == "id":
                hits = [k for k, c in enumerate(calls) if c[1] == key]
                if len(hits) == 1:
                    target = hits[0]
            if target is not None and target not in answered:
                answered.add(target)
                calls[target][2] = err
        if res and not _has_text(m):
            continue
        if has_output or turns == 0:
            turns += 1
            has_output = False
    return turns, len(calls), sum(1 for c in calls if c[2])


def _count_cassette(doc, provider):
    exchanges = []
    for it in doc["interactions"]:
        body = it["request"]["body"]
        body = json.loads(body if isinstance(body, str) else body["string"])
        sent = _anthropic_sent(body) if provider == "anthropic" else _gemini_sent(body)
        code = (it.get("response", {}).get("status") or {}).get("code")
        text = ((it.get("response") or {}).get("body") or {}).get("string")
        reply = None
        if text and (code is None or 200 <= code < 300):
            reply = _anthropic_reply(text) if provider == "anthropic" else _gemini_reply(text)
        exchanges.append((sent, reply))
    convs = []
    for sent, reply in exchanges:
        if convs:
            psent, preply = convs[-1]
            n = len(psent)
            if len(sent) > n and sent[:n] == psent and (
                    preply is None or _same_calls(_calls(preply), _calls(sent[n]))):
                convs[-1] = (sent, reply)
                continue
        convs.append((sent, reply))
    return [s + ([r] if r is not None else []) for s, r in convs]


def _count_sdk(doc):
    msgs = []
    for m in doc["messages"]:
        if m.get("type") in ("assistant", "user"):
            msgs.append({"role": m["type"], "content": m["message"].get("content")})
    return [msgs]


ANTHROPIC_BLOCKS = {"text", "image", "document", "search_result", "thinking", "redacted_thinking"}
GEMINI_PARTS = {"text", "functionCall", "functionResponse", "inlineData", "fileData", "thought",
                "thoughtSignature", "thought_signature", "videoMetadata", "partMetadata"}


def _unknown_piece(msgs):
    """The first block type or part key no rule reads, else None."""
    for m in msgs:
        for b in _items(m):
            if not isinstance(b, dict):
                continue
            if "parts" in m:
                bad = [k for k in b if k not in GEMINI_PARTS]
                if bad:
                    return bad[0]
            else:
                t = str(b.get("type"))
                if t not in ANTHROPIC_BLOCKS and not t.endswith(("tool_use", "tool_result")):
                    return t
    return None


def handles(path):
    return path.suffix in (".yaml", ".yml")


def count(path):
    try:
        doc = load_yaml(path.read_text(encoding="utf-8"))
    except (YamlError, ValueError, IndexError) as e:
        return f"refused: not YAML this reader reads ({e})"
    if isinstance(doc, dict) and isinstance(doc.get("interactions"), list):
        uris = {str(it.get("request", {}).get("uri", "")) for it in doc["interactions"]}
        if all("anthropic.com" in u or u.endswith("/v1/messages") for u in uris):
            provider = "anthropic"
        elif all(":generateContent" in u for u in uris):
            provider = "gemini"
        else:
            return "refused: a cassette of other requests"
        try:
            convs = _count_cassette(doc, provider)
        except ValueError as e:
            return f"refused: {e}"
    elif isinstance(doc, dict) and isinstance(doc.get("messages"), list):
        convs = _count_sdk(doc)
    else:
        return "refused: neither a cassette nor an Agent SDK stream"
    for msgs in convs:
        bad = _unknown_piece(msgs)
        if bad is not None:
            return f"refused: unknown block or part `{bad}`"
    turns = calls = errored = 0
    for msgs in convs:
        t, c, e = _count_messages(msgs)
        turns, calls, errored = turns + t, calls + c, errored + e
    return f"traces={len(convs)} turns={turns} tool_calls={calls} errored_calls={errored}"


# --- LangSmith run trees, as the span dicts trace-counts.py counts --------

LC_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool",
            "HumanMessage": "user", "AIMessage": "assistant", "SystemMessage": "system",
            "ToolMessage": "tool", "AIMessageChunk": "assistant"}


def is_langsmith(doc):
    if not isinstance(doc, dict):
        return False
    if isinstance(doc.get("run_type"), str):
        return True
    return set(doc) <= {"post", "patch"} and any(
        isinstance(doc.get(k), list) and doc[k] and all(
            isinstance(r, dict) and ("run_type" in r or "dotted_order" in r) for r in doc[k])
        for k in ("post", "patch"))


def _role_msg(m):
    """A chat dict, LangChain dict or LangChain.js constructor as (role, calls)."""
    if m.get("lc") and m.get("type") == "constructor":
        role = LC_ROLES[m["id"][-1]]
        m = m["kwargs"]
    elif "role" in m:
        role = m["role"]
    else:
        role = LC_ROLES[m["type"]]
    calls = []
    for c in m.get("tool_calls") or []:
        f = c.get("function") or {}
        calls.append({"type": "tool_call", "id": c.get("id"), "name": f.get("name", c.get("name"))})
    for c in m.get("invalid_tool_calls") or []:
        calls.append({"type": "tool_call", "id": c.get("id"), "name": c.get("name")})
    return {"role": role, "parts": calls}


def _ms(t):
    return int(t) * 1_000_000


def _flatten(runs, out):
    for r in runs:
        r = dict(r)
        kids = r.pop("child_runs", None) or []
        _flatten(kids, out)
        out.append(r)


def _ls_output(out):
    """The one message of an llm run's outputs, or None when not recorded."""
    out = _decoded(out)
    if not isinstance(out, dict):
        return None
    if len(out.get("choices") or []) > 1:
        raise ValueError("several choices: which one was acted on is not recorded")
    if out.get("choices"):
        return out["choices"][0]["message"]
    if out.get("generations"):
        gens = out["generations"]
        if len(gens) > 1 or (isinstance(gens[0], list) and len(gens[0]) > 1):
            raise ValueError("several choices: which one was acted on is not recorded")
        g = gens[0]
        g = g[0] if isinstance(g, list) else g
        return g.get("message") or {"role": "assistant", "content": g.get("text")}
    return None


def langsmith_spans(doc):
    posts, patches = [], []
    if "run_type" in doc:
        _flatten([doc], posts)
    else:
        _flatten(doc.get("post") or [], posts)
        _flatten(doc.get("patch") or [], patches)
    for p in patches:
        for r in posts:
            if (p.get("id") and r.get("id") == p["id"]) or (
                    not p.get("id") and p.get("dotted_order") and r.get("dotted_order") == p["dotted_order"]):
                r.update(p)
                break
        else:
            posts.append(p)
    # The tools the llm runs called or were offered: a run of another type
    # named after one is its execution.
    tools = set()
    for r in posts:
        if r.get("run_type") != "llm":
            continue
        for src in (_decoded(r.get("inputs")), (r.get("extra") or {}).get("invocation_params")):
            if isinstance(src, dict):
                for k in ("tools", "functions"):
                    for t in src.get(k) or []:
                        if isinstance(t, dict):
                            tools.add((t.get("function") or {}).get("name") or t.get("name"))
        msg = _ls_output(r.get("outputs"))
        if msg is not None:
            tools.update(c["name"] for c in _role_msg(msg)["parts"])
    for r in posts:
        rid = (r.get("id") or r.get("dotted_order")).lower()
        attrs = {}
        name = r.get("name") or ""
        bare = name[len("tool."):] if name.startswith("tool.") else name
        if r["run_type"] == "llm":
            attrs["gen_ai.operation.name"] = "chat"
            inputs = r.get("inputs") or {}
            if isinstance(inputs, str):
                inputs = json.loads(inputs)
            if "messages" in inputs:
                attrs["gen_ai.input.messages"] = [_role_msg(m) for m in inputs["messages"]]
            msg = _ls_output(r.get("outputs"))
            if msg is not None:
                attrs["gen_ai.output.messages"] = [_role_msg(msg)]
        elif r["run_type"] == "tool" or bare in tools:
            attrs["gen_ai.operation.name"] = "execute_tool"
            attrs["gen_ai.tool.name"] = name if r["run_type"] == "tool" else bare
            cid = (r.get("inputs") or {}).get("tool_call_id") or (
                (r.get("extra") or {}).get("metadata") or {}).get("tool_call_id")
            if cid:
                attrs["gen_ai.tool.call.id"] = cid
        yield {
            "trace": (r.get("trace_id") or rid).lower(), "id": rid,
            "parent": (r.get("parent_run_id") or "").lower() or None,
            "start": _ms(r["start_time"]), "attrs": attrs, "events": [],
            "error": bool(r.get("error")),
        }


# --- Langfuse exports read by their own fields ----------------------------

def _strict(text):
    """JSON text, strictly: a repeated key or NaN is an error."""
    def pairs(items):
        keys = [k for k, _ in items]
        if len(keys) != len(set(keys)):
            raise ValueError("a repeated key")
        return dict(items)

    def constant(name):
        raise ValueError(name)
    return json.loads(text, object_pairs_hook=pairs, parse_constant=constant)


def _decoded(v, strict=True):
    """A field that may be JSON text: text that starts like JSON must be
    strict JSON (else an error, or with strict=False the text as recorded);
    a JSON string literal is decoded again."""
    while isinstance(v, str):
        start = v.lstrip().lstrip("\ufeff")
        if start.startswith(("{", "[")):
            try:
                return _strict(v)
            except ValueError:
                if strict:
                    raise
                return v
        if start.startswith('"'):
            try:
                inner = _strict(v)
            except ValueError:
                return v
            if not isinstance(inner, str):
                return v
            v = inner
            continue
        return v
    return v


def _is_msg(m):
    return isinstance(m, dict) and (isinstance(m.get("role"), str) or "lc" in m or m.get("type") in (
        "human", "ai", "system", "tool", "function", "chat"))


def _responses_input(items):
    """Responses API input items as messages, or None for another item."""
    out = []
    for it in items:
        t = it.get("type") if isinstance(it, dict) else None
        if t in (None, "message") and isinstance(it, dict) and isinstance(it.get("role"), str):
            out.append({"role": it["role"], "content": it.get("content")})
        elif t == "function_call":
            out.append({"role": "assistant", "content": [it]})
        elif t == "function_call_output":
            out.append({"role": "tool", "tool_call_id": it.get("call_id"), "content": it.get("output")})
        elif t != "reasoning":
            return None
    return out


def _msgs(v, default_role):
    if isinstance(v, list) and all(_is_msg(m) for m in v):
        return v
    if isinstance(v, list):
        return _responses_input(v)
    if isinstance(v, dict) and v.get("object") == "response":
        # A Responses API response: its output items, as one message.
        return [{"role": "assistant", "content": [it for it in v.get("output") or []
                                                  if it.get("type") == "function_call"]}]
    if isinstance(v, dict):
        if isinstance(v.get("messages"), list) and all(_is_msg(m) for m in v["messages"]):
            return v["messages"]
        if _is_msg(v):
            return [v]
        return None
    if isinstance(v, str):
        return [{"role": default_role, "content": v}]
    return None


def _lf_role(m):
    if m.get("lc") and m.get("type") == "constructor":
        return LC_ROLES[m["id"][-1]]
    if "role" in m:
        return m["role"]
    return LC_ROLES[m["type"]]


def _lf_calls(m):
    """(id, name) of the calls one output message makes."""
    if m.get("lc") and m.get("type") == "constructor":
        m = m["kwargs"]
    out = []
    tcs = m.get("tool_calls") or (m.get("additional_kwargs") or {}).get("tool_calls") or []
    for c in tcs:
        f = c.get("function") if isinstance(c.get("function"), dict) else {}
        out.append((c.get("id"), f.get("name", c.get("name"))))
    for c in m.get("invalid_tool_calls") or []:
        out.append((c.get("id"), c.get("name")))
    for b in (m.get("parts") or []) + (m.get("content") if isinstance(m.get("content"), list) else []):
        if isinstance(b, dict) and (b.get("type") == "tool_call" or str(b.get("type", "")).endswith("tool_use")):
            out.append((b.get("id"), b.get("name")))
        elif isinstance(b, dict) and b.get("type") == "function_call":
            out.append((b.get("call_id"), b.get("name")))
    return out


def _tool_def(m):
    c = m.get("content")
    return (m.get("role") == "tool" and "tool_call_id" not in m and isinstance(c, dict)
            and c.get("type") == "function" and isinstance(c.get("function"), dict) and "name" in c["function"])


def _results_only(m):
    """A message whose parts or content blocks are all tool results."""
    if m.get("lc") and m.get("type") == "constructor":
        m = m["kwargs"]
    items = m.get("parts") if isinstance(m.get("parts"), list) else m.get("content")
    if not isinstance(items, list) or not items:
        return False
    return all(isinstance(b, dict) and (b.get("type") in ("tool_call_response", "function_call_output")
                                        or str(b.get("type", "")).endswith("tool_result")
                                        or "functionResponse" in b) for b in items)


def is_langfuse_native(doc):
    return isinstance(doc, dict) and isinstance(doc.get("trace"), dict) and isinstance(doc.get("observations"), list)


def langfuse_native_spans(doc):
    obs = doc["observations"]
    session = (doc["trace"].get("sessionId") or "").strip() or None
    # The tools generations called or were offered: an observation of any
    # type but a generation or an agent named after one is its execution.
    requested = set()
    for o in obs:
        requested.update(k for k in (o.get("toolDefinitions") or {}) if k.strip())
        if o.get("type") == "GENERATION":
            out = _decoded(o.get("output"))
            for m in _msgs(out, "assistant") or []:
                requested.update(n for _, n in _lf_calls(m))
            if isinstance(out, dict):
                requested.update(t.get("name") for t in out.get("tools") or [] if isinstance(t, dict))
            ins = _decoded(o.get("input"))
            if isinstance(ins, list):
                requested.update(m["content"]["function"]["name"] for m in ins if isinstance(m, dict) and _tool_def(m))
            if isinstance(ins, dict):
                requested.update((t.get("function") or {}).get("name") or t.get("name")
                                 for t in ins.get("tools") or [] if isinstance(t, dict))
    for o in obs:
        md = _decoded(o.get("metadata"))
        attrs_md = (md.get("attributes") if isinstance(md, dict) else None) or {}
        attrs = {}
        name = o.get("name") or ""
        ty = o.get("type")
        error = o.get("level") == "ERROR"
        tool = None if ty in ("GENERATION", "AGENT") else attrs_md.get("gen_ai.tool.name")
        bare = name[len("tool."):] if name.startswith("tool.") else name
        if tool is None and ty == "TOOL":
            tool = name
        if tool is None and ty not in ("GENERATION", "AGENT") and bare in requested:
            tool = bare
        if ty == "GENERATION":
            attrs["gen_ai.operation.name"] = "chat"
            ins = _msgs(_decoded(o.get("input")), "user")
            if ins is not None:
                ins = [m for m in ins if not _tool_def(m)]
                attrs["gen_ai.input.messages"] = [
                    {"role": "tool" if _results_only(m) else _lf_role(m), "parts": []} for m in ins]
            out = _decoded(o.get("output"))
            if out is not None:
                attrs["gen_ai.output.messages"] = [
                    {"role": "assistant", "parts": [{"type": "tool_call", "id": i, "name": n} for i, n in _lf_calls(m)]}
                    for m in _msgs(out, "assistant")]
        elif tool is not None:
            attrs["gen_ai.operation.name"] = "execute_tool"
            attrs["gen_ai.tool.name"] = tool
            out = _decoded(o.get("output"), strict=False)
            cid = attrs_md.get("gen_ai.tool.call.id") or (out.get("tool_call_id") if isinstance(out, dict) else None)
            if cid:
                attrs["gen_ai.tool.call.id"] = cid
            if isinstance(out, dict) and out.get("type") == "tool" and out.get("status") == "error":
                error = True
        if session:
            attrs["session.id"] = session
        yield {
            "trace": o["traceId"].lower(), "id": o["id"].lower(),
            "parent": (o.get("parentObservationId") or "").lower() or None,
            "start": _iso_nanos(o["startTime"]), "attrs": attrs, "events": [], "error": error,
        }


def _iso_nanos(s):
    """A UTC RFC 3339 time as nanoseconds since the epoch."""
    import datetime
    m = re.match(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z$", s)
    base = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    frac = (m.group(2) or "").ljust(9, "0")[:9]
    return int(base.timestamp()) * 1_000_000_000 + int(frac)
