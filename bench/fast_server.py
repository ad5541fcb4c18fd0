#!/usr/bin/env python3
"""A minimal OpenAI-compatible chat server for bench/run_live.sh.

Python 3 standard library only. Where testing/scripted_server.py starts a
thread per request and closes every connection (HTTP/1.0), this one is a
single asyncio loop with HTTP/1.1 keep-alive, so its own cost per request
is a fraction of a millisecond: the benchmark uses it to measure pactum
rather than the server. Every POST gets the same chat completion after
`--delay-ms`; `GET /_stats` gives `requests` and `max_in_flight`, and
`POST /_reset` zeroes them.

    python3 bench/fast_server.py --delay-ms 50 --port-file PATH
"""

import argparse
import asyncio
import json
import os

STATE = {"requests": 0, "in_flight": 0, "max_in_flight": 0}
COMPLETION = json.dumps({
    "id": "chatcmpl-bench", "object": "chat.completion", "created": 1700000000,
    "model": "bench-model",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "an answer"},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
}).encode()


def response(body, keep_alive):
    head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n"
            f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n")
    return head.encode() + body


async def handle(reader, writer, delay):
    try:
        while True:
            line = await reader.readline()
            if not line:
                break
            method, path, _ = line.decode("latin-1").split(" ", 2)
            length, keep_alive = 0, True
            while True:
                h = await reader.readline()
                if h in (b"\r\n", b"\n", b""):
                    break
                name, _, value = h.decode("latin-1").partition(":")
                name = name.strip().lower()
                if name == "content-length":
                    length = int(value.strip())
                elif name == "connection" and value.strip().lower() == "close":
                    keep_alive = False
            if length:
                await reader.readexactly(length)
            if path == "/_stats":
                writer.write(response(json.dumps(STATE).encode(), keep_alive))
            elif path == "/_reset":
                STATE.update(requests=0, in_flight=0, max_in_flight=0)
                writer.write(response(b"{}", keep_alive))
            else:
                STATE["requests"] += 1
                STATE["in_flight"] += 1
                STATE["max_in_flight"] = max(STATE["max_in_flight"], STATE["in_flight"])
                await asyncio.sleep(delay)
                STATE["in_flight"] -= 1
                writer.write(response(COMPLETION, keep_alive))
            await writer.drain()
            if not keep_alive:
                break
    except (ConnectionError, asyncio.IncompleteReadError, ValueError):
        pass
    finally:
        writer.close()


async def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--delay-ms", type=float, default=50)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", required=True)
    args = ap.parse_args()
    delay = args.delay_ms / 1000
    server = await asyncio.start_server(lambda r, w: handle(r, w, delay), "127.0.0.1",
                                        args.port, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    with open(args.port_file + ".tmp", "w") as f:
        f.write(f"{port}\n")
    os.replace(args.port_file + ".tmp", args.port_file)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
