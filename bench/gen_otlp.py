"""Writes an OTLP JSON file of N scripted agent traces (Python standard
library only), one `resourceSpans` batch per line as the Collector's file
exporter writes it, for bench/otlp_import.sh:

    python3 bench/gen_otlp.py N OUT.jsonl

Each trace: a root `invoke_agent` span, two `chat` spans with captured
messages (GenAI conventions, current form) and one `execute_tool` span;
one trace in ten calls the prohibited `delete_file`. Prints the number of
spans written.
"""

import json
import sys

n, path = int(sys.argv[1]), sys.argv[2]


def kv(k, v):
    return {"key": k, "value": {"stringValue": v}}


spans_written = 0
with open(path, "w") as f:
    for i in range(n):
        tid = format(0x5EED << 100 | i, "032x")
        sid = lambda k: format(i << 8 | k, "016x")
        tool = "delete_file" if i % 10 == 0 else "list_files"
        t0 = 1700000000000000000 + i * 1000000000
        user = [{"role": "user", "parts": [{"type": "text", "content": f"Tidy folder {i}, please."}]}]
        call = {"role": "assistant", "parts": [{"type": "text", "content": "Looking."},
                {"type": "tool_call", "id": "call_1", "name": tool, "arguments": {"path": f"/srv/{i}"}}]}
        result = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": "ok"}]}
        final = [{"role": "assistant", "parts": [{"type": "text", "content": "Done: your folder is tidy."}], "finish_reason": "stop"}]
        spans = [
            {"traceId": tid, "spanId": sid(1), "name": "invoke_agent helper",
             "startTimeUnixNano": str(t0), "endTimeUnixNano": str(t0 + 900),
             "attributes": [kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "helper")]},
            {"traceId": tid, "spanId": sid(2), "parentSpanId": sid(1), "name": "chat m",
             "startTimeUnixNano": str(t0 + 100), "endTimeUnixNano": str(t0 + 200),
             "attributes": [kv("gen_ai.operation.name", "chat"),
                            kv("gen_ai.input.messages", json.dumps(user)),
                            kv("gen_ai.output.messages", json.dumps([call]))]},
            {"traceId": tid, "spanId": sid(3), "parentSpanId": sid(1), "name": f"execute_tool {tool}",
             "startTimeUnixNano": str(t0 + 300), "endTimeUnixNano": str(t0 + 400),
             "attributes": [kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", tool),
                            kv("gen_ai.tool.call.id", "call_1"), kv("gen_ai.tool.call.result", "ok")]},
            {"traceId": tid, "spanId": sid(4), "parentSpanId": sid(1), "name": "chat m",
             "startTimeUnixNano": str(t0 + 500), "endTimeUnixNano": str(t0 + 600),
             "attributes": [kv("gen_ai.operation.name", "chat"),
                            kv("gen_ai.input.messages", json.dumps(user + [call, result])),
                            kv("gen_ai.output.messages", json.dumps(final))]},
        ]
        spans_written += len(spans)
        f.write(json.dumps({"resourceSpans": [{"resource": {"attributes": [kv("service.name", "bench")]},
                                               "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans}]}]}))
        f.write("\n")
print(spans_written)
