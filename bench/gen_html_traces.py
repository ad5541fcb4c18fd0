#!/usr/bin/env python3
"""Writes N pactum-format traces for the HTML page's benchmark and tests:
graded with crates/pactum-cli/tests/fixtures/contracts/shop.yaml, one in
ten fails (it calls delete_account), the others pass. With --hostile, every
trace's id, response and tool call carry the script injections of
tests/fixtures/traces/hostile-html.jsonl. Usage: gen_html_traces.py OUT N [--hostile]"""
import json, sys

out, n = sys.argv[1], int(sys.argv[2])
hostile = "--hostile" in sys.argv[3:]
payload = ("</script><script>document.documentElement.setAttribute('data-'+'pwned','gen')</script>"
           "<img src=x onerror=\"document.documentElement.setAttribute('data-'+'pwned','img')\"> <!-- \u2028 \u202e")
with open(out, "w") as fh:
    for i in range(n):
        fail = i % 10 == 3
        calls = [{"name": "delete_account", "arguments": {"customer": f"c-{i}", "why": payload if hostile else "asked"}}] if fail else []
        tid = f"t-{i}" + (payload if hostile else "")
        response = f"Order {i} is on its way." + (payload if hostile else "")
        fh.write(json.dumps({"id": tid, "observability": "tool_calls", "turns": [
            {"input": [{"role": "user", "content": f"Where is order {i}?"}],
             "response": response, "tool_calls": calls}]}) + "\n")
