#!/usr/bin/env bash
# `pactum serve` under load. One command, from the repo root:
#
#     bash bench/serve.sh [RATE] [SECONDS]     # default 1,000 traces/s for 10 s
#
# Starts `pactum serve -c bench/otlp.yaml` on a free loopback port with a
# 200 ms quiet period and a fresh store, sends RATE traces a second for
# SECONDS from the local generator `pactum-bench-otlp` (one OTLP JSON trace
# of three spans per request, 32 connections; one trace in ten deletes a
# file), reads pactum's peak RSS (VmHWM) before stopping it with SIGTERM,
# and reports the achieved rate, the request latency, the latency from the
# end of a trace's quiet period to its stored verdict (p50, p99, max, from
# serve's own summary), every drop count, and checks the store holds every
# trace with one in ten failed. PACTUM_BIN=target/debug/pactum (and
# BENCH_OTLP=target/debug/pactum-bench-otlp) skip the release build.
# Written to bench/results/serve.md and printed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
rate=${1:-1000}
secs=${2:-10}
out="$root/bench/results"
mkdir -p "$out"
bin=${PACTUM_BIN:-}
gen=${BENCH_OTLP:-}
if [ -z "$bin" ] || [ -z "$gen" ]; then
  cargo build --release --locked -q -p pactum-cli -p pactum-bench
  bin="$root/target/release/pactum"
  gen="$root/target/release/pactum-bench-otlp"
fi
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
load=$(cut -d' ' -f1 /proc/loadavg)
"$bin" serve -c bench/otlp.yaml --db "$work/store.db" --listen 127.0.0.1:0 \
  --quiet-period 200ms --max-open-traces 100000 > "$work/out.txt" 2> "$work/err.txt" &
pid=$!
for _ in $(seq 200); do
  grep -q "/v1/traces" "$work/out.txt" 2>/dev/null && break
  sleep 0.05
done
addr=$(grep -o 'http://[^ ]*/v1/traces' "$work/out.txt" | head -1)
[ -n "$addr" ] || { echo "error: pactum serve did not start" >&2; cat "$work/err.txt" >&2; exit 1; }
"$gen" "$addr" --rate "$rate" --seconds "$secs" --concurrency 32 > "$work/gen.json"
# Every trace's quiet period must end before the stop: give it 2 s.
sleep 2
hwm=$(grep VmHWM "/proc/$pid/status" | awk '{print $2}')
kill -TERM "$pid"
set +e
wait "$pid"
code=$?
set -e
pid=""
python3 - "$work" "$rate" "$secs" "$hwm" "$load" "$bin" "$code" <<'PY' | tee "$out/serve.md"
import json, re, sqlite3, sys
work, rate, secs, hwm, load, binary, code = sys.argv[1:]
gen = json.load(open(f"{work}/gen.json"))
text = open(f"{work}/out.txt").read()
summary = text[text.find("pactum serve: run"):]
db = sqlite3.connect(f"{work}/store.db")
st = dict(db.execute("SELECT status, count(*) FROM trials GROUP BY status").fetchall())
run = db.execute("SELECT status FROM runs").fetchone()[0]
n = int(rate) * int(secs)
lat = re.search(r"p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms", summary)
print(f"# pactum serve under load ({binary})\n")
print(f"load average before: {load}\n")
print("| asked | sent | failed requests | achieved rate | request p50 / p99 | quiet end → stored verdict p50 / p99 / max | peak RSS | stored | run | exit |")
print("|---|---|---|---|---|---|---|---|---|---|")
print(f"| {rate}/s × {secs} s | {gen['traces']:,} | {gen['failed']} | {gen['rate_per_s']:,.0f}/s | "
      f"{gen['request_p50_ms']:.1f} / {gen['request_p99_ms']:.1f} ms | "
      f"{lat.group(1)} / {lat.group(2)} / {lat.group(3)} ms | {int(hwm)/1024:.0f} MiB | {st} | {run} | {code} |")
print("\nserve's summary:\n")
print("```\n" + summary.strip() + "\n```")
assert sum(st.values()) == n, (st, n)
assert st.get("fail", 0) == n // 10, st
PY
