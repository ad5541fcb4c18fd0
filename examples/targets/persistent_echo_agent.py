#!/usr/bin/env python3
"""A tiny agent speaking pactum-exec/2, for `mode: persistent` (see
docs/targets.md).

Python 3 standard library only. pactum starts a few of these processes
and keeps them: each serves many conversations, one request at a time,
and any process may get any turn of any conversation (every request
carries the whole conversation). Per request pactum writes one JSON line
to stdin and reads one JSON line from stdout, which must echo the
request's `conversation_id` and `turn`. Logs go to stderr, written before
the answer line.

What it does with the last user message:

* ``tool NAME {json}``   -> calls tool NAME with those arguments
* ``effect KIND {json}`` -> reports a side effect of that kind
* ``bye``                -> answers and ends the conversation
* ``fail``               -> answers with an error
* anything else          -> echoes it back

Every answer says how many requests this process has served, so a test can
tell that processes are kept.
"""

import json
import os
import sys

PROTOCOL = "pactum-exec/2"


def parse(text):
    """JSON arguments, or the text itself when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def answer(request, served):
    """The answer object for one request: its own ids echoed first."""
    reply = {"conversation_id": request["conversation_id"], "turn": request["turn"], "response": None}
    last = ""
    for message in request["messages"]:
        if message["role"] == "user":
            last = message["content"]
    words = last.split(" ", 2)
    if words[0] == "tool" and len(words) >= 2:
        arguments = parse(words[2]) if len(words) == 3 else {}
        reply["tool_calls"] = [{"name": words[1], "arguments": arguments}]
    elif words[0] == "effect" and len(words) >= 2:
        details = parse(words[2]) if len(words) == 3 else {}
        reply["side_effects"] = [{"kind": words[1], "details": details}]
        reply["response"] = "done"
    elif last == "fail":
        reply["error"] = "asked to fail"
    else:
        greeting = request["vars"].get("greeting", "echo")
        reply["response"] = f"{greeting}: {last} (turn {request['turn']}, served {served}, pid {os.getpid()})"
        reply["end"] = last == "bye"
    return reply


def main():
    served = 0
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("protocol") != PROTOCOL:
            print(f"unsupported protocol {request.get('protocol')!r}", file=sys.stderr, flush=True)
            return 2
        served += 1
        print(f"turn {request['turn']} of {request['conversation_id']}", file=sys.stderr, flush=True)
        print(json.dumps(answer(request, served)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
