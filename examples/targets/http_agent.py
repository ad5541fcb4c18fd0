#!/usr/bin/env python3
"""A tiny JSON HTTP agent to point pactum's `http` target at.

Python 3 standard library only:

    python3 examples/targets/http_agent.py --port 8088 [--port-file PATH]

``POST /chat`` with ``{"conversation": ID or null, "message": "..."}``
answers ``{"output": {"text": "..."}, "actions": [...], "conversation_id": ID}``.
The agent keeps each conversation's history in memory under its own id,
which pactum passes back as ``target_conversation_id`` on the next turn.
A message ``refund ORDER`` makes it call the ``issue_refund`` tool; the
tool call is reported under ``actions``. See docs/targets.md for the
matching suite entry.
"""

import argparse
import itertools
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CONVERSATIONS = {}
LOCK = threading.Lock()
IDS = itertools.count(1)


def answer(body):
    conversation = body.get("conversation")
    with LOCK:
        if conversation not in CONVERSATIONS:
            conversation = f"agent-{next(IDS)}"
            CONVERSATIONS[conversation] = []
        history = CONVERSATIONS[conversation]
        message = str(body.get("message", ""))
        history.append(message)
        turns = len(history)
    actions = []
    words = message.split()
    if len(words) == 2 and words[0] == "refund":
        actions.append({"name": "issue_refund", "arguments": {"order": words[1]}, "result": {"ok": True}})
        text = f"Refund issued for order {words[1]}."
    else:
        text = f"You said {message!r}; this is message {turns} of conversation {conversation}."
    return {"output": {"text": text}, "actions": actions, "conversation_id": conversation}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path != "/chat":
            self.send_error(404, "unknown path")
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self.send_error(400, "the body is not JSON")
            return
        data = json.dumps(answer(body)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, fmt, *args):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8088)
    parser.add_argument("--port-file", help="write the bound port here once listening")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{server.server_address[1]}\n")
        os.replace(tmp, args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
