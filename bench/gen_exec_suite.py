#!/usr/bin/env python3
"""Writes an N-test single-turn suite on an echo agent, for measuring the
two exec modes side by side (three checks per test from
`defaults.contract`: contains, regex, icontains).

Usage: gen_exec_suite.py N OUT.yaml MODE AGENT
  MODE:  per_conversation | persistent
  AGENT: sh (per_conversation only: one `sh` per conversation)
         python (a stdlib agent written next to OUT.yaml)
Then: /usr/bin/time -v target/release/pactum run OUT.yaml --db DIR/p.db
"""
import os
import sys

V1 = """import json, sys
for line in sys.stdin:
    json.loads(line)
    print(json.dumps({"response": "the answer is fine 42"}), flush=True)
"""
V2 = """import json, sys
for line in sys.stdin:
    r = json.loads(line)
    print(json.dumps({"conversation_id": r["conversation_id"], "turn": r["turn"],
                      "response": "the answer is fine 42"}), flush=True)
"""

n, out, mode, agent = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
folder = os.path.dirname(os.path.abspath(out))
if agent == "sh":
    if mode != "per_conversation":
        sys.exit("the sh agent speaks pactum-exec/1 only")
    command = '["sh", "-c", "read l; echo \'{\\"response\\": \\"the answer is fine 42\\"}\'"]'
else:
    name = "echo_v1.py" if mode == "per_conversation" else "echo_v2.py"
    with open(os.path.join(folder, name), "w") as f:
        f.write(V1 if mode == "per_conversation" else V2)
    command = f'["python3", "{name}"]'
with open(out, "w") as f:
    f.write(f"""version: 1
targets:
  echo:
    kind: exec
    mode: {mode}
    observability: response_only
    command: {command}
    concurrency: 8
defaults:
  target: echo
  contract:
    version: 1
    id: bench
    required:
      - {{ id: has, text: Says fine, check: {{ contains: fine }} }}
      - {{ id: num, text: Gives a number, check: {{ regex: "[0-9]+" }} }}
      - {{ id: ans, text: Says answer, check: {{ icontains: ANSWER }} }}
tests:
""")
    for i in range(n):
        f.write(f"  - id: t{i}\n    prompt: \"Question number {i}\"\n")
