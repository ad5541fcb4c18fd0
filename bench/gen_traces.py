#!/usr/bin/env python3
"""Writes a large OpenAI-messages JSONL trace file by repeating real AgentDojo
traces (from ../shared/data/agentdojo) with fresh ids, until it reaches the
requested size. Used by bench/run.sh to measure streaming memory and
throughput. Usage: gen_traces.py OUT BYTES [--unique] (PACTUM_SHARED_DATA
names the shared data folder when it is not ../shared/data). With --unique
every message's text opens with the trace's id, so that no text repeats
from trace to trace (a worst case for anything that remembers texts)."""
import glob, json, os, sys

out, target = sys.argv[1], int(sys.argv[2])
unique = "--unique" in sys.argv[3:]
here = os.path.dirname(os.path.abspath(__file__))
# PACTUM_SHARED_DATA: the shared data folder, when it is not ../shared/data
# (a git worktree elsewhere).
shared = os.environ.get("PACTUM_SHARED_DATA") or os.path.join(here, "..", "..", "shared", "data")
data = os.path.join(shared, "agentdojo")
records = []
for f in sorted(glob.glob(os.path.join(data, "*.jsonl"))):
    with open(f) as fh:
        for line in fh.read().splitlines()[1:]:
            records.append(json.loads(line))
if not records:
    sys.exit("no AgentDojo traces found under " + data)
written, n = 0, 0
with open(out, "w") as fh:
    while written < target:
        r = records[n % len(records)]
        r = dict(r, id=f"gen-{n}")
        if unique:
            r["messages"] = [
                dict(m, content=f"[gen-{n}] {m['content']}")
                if isinstance(m.get("content"), str) else m
                for m in r.get("messages", [])
            ]
        line = json.dumps(r) + "\n"
        fh.write(line)
        written += len(line)
        n += 1
print(f"{out}: {n} traces, {written} bytes")
