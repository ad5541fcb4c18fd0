#!/usr/bin/env python3
"""A tiny agent speaking pactum-exec/1 (see docs/targets.md).

Python 3 standard library only. pactum starts one process per
conversation and, per turn, writes one JSON line to stdin and reads one
JSON line from stdout. Anything else the agent wants to say goes to
stderr.

What it does with the last user message:

* ``tool NAME {json}``   -> calls tool NAME with those arguments
* ``effect KIND {json}`` -> reports a side effect of that kind
* ``bye``                -> answers and ends the conversation
* ``fail``               -> answers with an error
* anything else          -> echoes it back

Every answer says which turn this process has seen, so a test can tell a
process that kept its state from a fresh one.
"""

import json
import os
import sys

PROTOCOL = "pactum-exec/1"


def parse(text):
    """JSON arguments, or the text itself when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def answer(request, seen):
    """The answer object for one request."""
    last = ""
    for message in request["messages"]:
        if message["role"] == "user":
            last = message["content"]
    words = last.split(" ", 2)
    reply = {"response": None, "tool_calls": [], "side_effects": [], "end": False, "error": None}
    if words[0] == "tool" and len(words) >= 2:
        arguments = parse(words[2]) if len(words) == 3 else {}
        reply["tool_calls"].append({"name": words[1], "arguments": arguments})
    elif words[0] == "effect" and len(words) >= 2:
        details = parse(words[2]) if len(words) == 3 else {}
        reply["side_effects"].append({"kind": words[1], "details": details})
        reply["response"] = "done"
    elif last == "fail":
        reply["error"] = "asked to fail"
    else:
        greeting = request["vars"].get("greeting", "echo")
        reply["response"] = f"{greeting}: {last} (turn {request['turn']}, seen {seen}, pid {os.getpid()})"
        reply["end"] = last == "bye"
    return reply


def main():
    seen = 0
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("protocol") != PROTOCOL:
            print(f"unsupported protocol {request.get('protocol')!r}", file=sys.stderr)
            return 2
        seen += 1
        print(f"turn {request['turn']} of {request['conversation_id']}", file=sys.stderr)
        print(json.dumps(answer(request, seen)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
