#!/usr/bin/env bash
# OTLP JSON import throughput. One command, from the repo root:
#
#     bash bench/otlp_import.sh [N]        # N traces, default 50,000
#
# Generates N scripted agent traces (4 spans each, bench/gen_otlp.py) as an
# OTLP JSON file (one batch per line), then times
# `pactum grade --format otlp -c bench/otlp.yaml FILE --json /dev/null`
# under /usr/bin/time -v: spans/s, MiB/s and peak RSS. The grade must find
# every trace, and fail exactly the one in ten that deletes a file.
# PACTUM_BIN=target/debug/pactum skips the release build. Written to
# bench/results/otlp_import.md and printed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
n=${1:-50000}
out="$root/bench/results"
mkdir -p "$out"
bin=${PACTUM_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release --locked -q -p pactum-cli
  bin="$root/target/release/pactum"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
spans=$(python3 bench/gen_otlp.py "$n" "$work/traces.jsonl")
bytes=$(stat -c %s "$work/traces.jsonl")
load=$(cut -d' ' -f1 /proc/loadavg)
set +e
/usr/bin/time -v "$bin" grade --format otlp -c bench/otlp.yaml "$work/traces.jsonl" \
  --quiet --json "$work/r.json" 2> "$work/time.txt"
code=$?
set -e
[ "$code" = 1 ] || { echo "error: expected exit 1 (one trace in ten fails), got $code" >&2; cat "$work/time.txt" >&2; exit 1; }
python3 - "$work" "$n" "$spans" "$bytes" "$load" "$bin" <<'PY' | tee "$out/otlp_import.md"
import json, re, sys
work, n, spans, size, load, binary = sys.argv[1:]
n, spans, size = int(n), int(spans), int(size)
t = open(f"{work}/time.txt").read()
wall = t.split("Elapsed (wall clock) time (h:mm:ss or m:ss): ")[1].split("\n")[0]
parts = [float(p) for p in wall.split(":")]
secs = parts[-1] + 60 * parts[-2] + (3600 * parts[-3] if len(parts) > 2 else 0)
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) / 1024
r = json.load(open(f"{work}/r.json"))
st = {}
for x in r["results"]:
    st[x["status"]] = st.get(x["status"], 0) + 1
assert sum(st.values()) == n, st
assert st.get("fail", 0) == (n + 9) // 10, st
print(f"# OTLP JSON import ({binary})\n")
print(f"load average before: {load}\n")
print("| traces | spans | file | wall | spans/s | MiB/s | peak RSS |")
print("|---|---|---|---|---|---|---|")
print(f"| {n:,} | {spans:,} | {size/2**20:.1f} MiB | {secs:.2f} s | {spans/secs:,.0f} | {size/2**20/secs:.1f} | {rss:.0f} MiB |")
print(f"\nstatuses: {st}")
PY
