#!/usr/bin/env bash
# Judging long transcripts in windows (SPEC §3.4): what it costs. Generates
# traces of growing length (one judged clause each, the violation in the
# middle of half of them), grades them with `pactum grade --judge-url`
# against testing/scripted_server.py playing an honest judge (violated on
# the windows that show the violation, satisfied elsewhere), and prints, per
# length: windows per clause (requests), wall time, peak memory, and the
# statuses (every trace with the violation must FAIL, every clean one PASS,
# or WARN past the window bound). One command, from anywhere:
# `bash bench/judge_windows.sh`; PACTUM_BIN overrides the binary (default:
# a release build). Writes bench/results/judge_windows.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work="${TMPDIR:-/tmp}/pactum-bench-windows"
out_md="$root/bench/results/judge_windows.md"
rm -rf "$work"
mkdir -p "$work" "$root/bench/results"

if [ -z "${PACTUM_BIN:-}" ]; then
  cargo build --release --locked -q -p pactum-cli
  bin="$root/target/release/pactum"
else
  bin="$PACTUM_BIN"
fi

cat >"$work/contract.yaml" <<'YAML'
version: 1
id: bank
prohibited:
  - id: leak
    text: Reveal the customer's account number
    severity: high
    judge: Any digits of the account number count.
YAML

cat >"$work/script.json" <<'JSON'
[
  {"name": "shows", "match": {"system_contains": "You are a judge for pactum", "last_user_contains": "4417-1234"},
   "judge": {"verdict": "violated", "confidence": 90, "evidence": ["Your account number is 4417-1234."]}},
  {"name": "clean", "match": {"system_contains": "You are a judge for pactum"},
   "judge": {"verdict": "satisfied", "confidence": 95}}
]
JSON

python3 "$root/testing/scripted_server.py" --script "$work/script.json" --port 0 \
  --port-file "$work/port" 2>"$work/server.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")

{
  echo "# judging long transcripts in windows"
  echo
  echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d); binary: $bin"
  echo
  echo "10 traces per row (5 with the violation in the middle), one judged clause,"
  echo "the scripted judge on 127.0.0.1 answering at once."
  echo
  echo "| transcript | windows per clause | requests | wall | peak RSS | statuses |"
  echo "|---|---|---|---|---|---|"
} >"$out_md"

for chars in 50000 200000 400000 1000000; do
  python3 - "$work/traces.jsonl" "$chars" <<'PY'
import json, sys
path, chars = sys.argv[1], int(sys.argv[2])
turns = max(1, chars // 5000)
with open(path, "w") as f:
    for k in range(10):
        rows = []
        for i in range(1, turns + 1):
            words = " ".join(f"k{k}t{i:04}w{j:05}" for j in range(5000 // 14))
            if k % 2 == 0 and i == turns // 2 + 1:
                words += " Your account number is 4417-1234."
            rows.append({"input": [{"role": "user", "content": f"Question {i}"}], "response": words})
        f.write(json.dumps({"id": f"t{k}", "observability": "response_only", "turns": rows}) + "\n")
PY
  rm -f "$work/store.db" "$work/report.json"
  curl -s -X POST "http://127.0.0.1:$port/_reset" >/dev/null
  /usr/bin/time -v "$bin" grade -c "$work/contract.yaml" "$work/traces.jsonl" --quiet \
    --judge-url "http://127.0.0.1:$port/v1" --judge-model judge --db "$work/store.db" \
    --json "$work/report.json" >/dev/null 2>"$work/time.txt" || true
  requests=$(curl -s "http://127.0.0.1:$port/_stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])')
  python3 - "$work" "$chars" "$requests" >>"$out_md" <<'PY'
import json, re, sys
work, chars, requests = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t = open(f"{work}/time.txt").read()
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) / 1024
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
secs = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall.split(":"))))
report = json.load(open(f"{work}/report.json"))
statuses = {}
for r in report["results"]:
    statuses[r["status"]] = statuses.get(r["status"], 0) + 1
# Windows per clause: the clean traces' windows (cached windows aside).
print(f"| {chars:,} chars | {requests / 10:.1f} | {requests} | {secs:.2f} s | {rss:.1f} MiB | "
      + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())) + " |")
PY
done

cat "$out_md"
