#!/usr/bin/env bash
# Live-run benchmark of `pactum run`. One command, from anywhere:
#
#     bash bench/run_live.sh
#
# Builds the release binaries (pactum, and the reference server and load
# client of crates/pactum-bench) and runs generated suites of single-turn
# tests (bench/gen_live_suite.py) at -j 50 against a local server answering
# after 50 ms, each run with a fresh store, under /usr/bin/time -v:
#
# 1. against testing/scripted_server.py (request bodies not kept), the
#    server of the end-to-end tests: 1,000 tests three times, 10,000 once;
# 2. against bench/fast_server.py (one asyncio loop, keep-alive: a fraction
#    of a millisecond per request), to measure pactum rather than a Python
#    server that starts a thread per request: the same cases, plus one test
#    with 10,000 trials (memory of the run itself, without a 10,000-test
#    suite to hold); and 10,000 tests at -j 200 (target concurrency 256):
#    the wide case, whose targets are <= 1.1x the ideal 2.5 s and a peak RSS
#    <= 64 MiB;
# 3. against pactum-bench-server (Rust, hyper, one thread, keep-alive:
#    what pactum takes over its ceiling, see 5, is pactum's): the same
#    cases as 2, the -j 200 one three times;
# 4. the cost of holding the suite: loading the 1,000- and 10,000-test suites
#    alone (a key variable left unset stops pactum before any request);
# 5. the servers' ceiling, no pactum involved: a Python client with 50
#    threads sending 1,000 requests to each server; and pactum-bench-client
#    (tokio and reqwest, as pactum) at 50 in flight (1,000 requests) and at
#    200 (10,000) against the two keep-alive servers.
#
# Reported per run: wall time against the ideal (tests x 50 ms / jobs),
# pactum's CPU time per test ((user + sys) / tests), its peak RSS, what the
# server saw (requests, most in flight), the server's own CPU time (from
# /proc), and the machine's load average before the run (other processes on
# the machine slow every figure). Where the wall time goes, from the stored
# run: start (process start to the first trial's start: reading the suite,
# opening the store, storing the run), the mean trial (its stored duration)
# against the mean answer latency the target measured, and the tail (the
# last trial's end to the process's exit: the run's end, the reports, the
# store's close). Written to bench/results/run_live.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/bench/results"
mkdir -p "$out"
report="$out/run_live.md"
jobs=50
delay_ms=50

cargo build --release --locked -q -p pactum-cli
# Built apart: built together, cargo would unify the server's features into
# pactum's dependencies and rebuild pactum.
cargo build --release --locked -q -p pactum-bench
bin="$root/target/release/pactum"
rust_server="$root/target/release/pactum-bench-server"
load_client="$root/target/release/pactum-bench-client"

work=$(mktemp -d)
server_pid=""
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
trap 'stop_server; rm -rf "$work"' EXIT

# start_server scripted|fast|rust: a server answering after $delay_ms; sets
# server_pid and base.
start_server() {
  stop_server
  rm -f "$work/port"
  if [ "$1" = scripted ]; then
    printf '[{"name": "answer", "match": {}, "delay_ms": %s, "content": "an answer"}]\n' \
      "$delay_ms" >"$work/script.json"
    python3 testing/scripted_server.py --script "$work/script.json" --port 0 \
      --port-file "$work/port" 2>"$work/server.log" &
  elif [ "$1" = fast ]; then
    python3 bench/fast_server.py --delay-ms "$delay_ms" --port-file "$work/port" \
      2>"$work/server.log" &
  else
    "$rust_server" --delay-ms "$delay_ms" --port-file "$work/port" 2>"$work/server.log" &
  fi
  server_pid=$!
  for _ in $(seq 1 300); do [ -s "$work/port" ] && break; sleep 0.05; done
  base="http://127.0.0.1:$(tr -d '\n' <"$work/port")"
}

# server_stats reset|get: POST /_reset, or "requests max_in_flight".
server_stats() {
  python3 - "$base" "$1" <<'PY'
import json, sys, urllib.request
base, what = sys.argv[1], sys.argv[2]
if what == "reset":
    urllib.request.urlopen(urllib.request.Request(base + "/_reset", data=b"", method="POST")).read()
else:
    s = json.load(urllib.request.urlopen(base + "/_stats"))
    print(s["requests"], s["max_in_flight"])
PY
}

# CPU seconds (user + sys) the server process has used so far.
server_cpu() {
  python3 - "$server_pid" <<'PY'
import os, sys
f = open(f"/proc/{sys.argv[1]}/stat").read().rsplit(")", 1)[1].split()
print((int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK"))
PY
}

load() { cut -d' ' -f1 /proc/loadavg; }

# run_case LABEL N [--one-test]: one `pactum run`; appends a table row.
run_case() {
  local label=$1 n=$2
  shift 2
  local suite="$work/suite-$label.yaml"
  python3 bench/gen_live_suite.py "$n" "$base" "$suite" --concurrency 64 "$@"
  server_stats reset
  local la cpu0 cpu1 code=0
  la=$(load)
  cpu0=$(server_cpu)
  rm -rf "$work/db"
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -v "$bin" run "$suite" --db "$work/db/pactum.db" -j "$jobs" -q \
    2>"$work/time.txt" >/dev/null || code=$?
  t1=$(date +%s.%N)
  cpu1=$(server_cpu)
  read -r reqs inflight <<<"$(server_stats get)"
  python3 - "$work/time.txt" "$label" "$n" "$code" "$reqs" "$inflight" "$cpu0" "$cpu1" \
    "$delay_ms" "$jobs" "$la" "$work/db/pactum.db" "$t0" "$t1" >>"$report" <<'PY'
import datetime, re, sqlite3, sys
t, label, n, code, reqs, inflight, cpu0, cpu1, delay, jobs, la, db, t0, t1 = sys.argv[1:]
text = open(t).read()
def field(name):
    return re.search(re.escape(name) + r":\s*(.+)", text).group(1).strip()
wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
secs = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall.split(":"))))
cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
rss = int(field("Maximum resident set size (kbytes)")) / 1024
n = int(n)
ideal = n * float(delay) / 1000 / int(jobs)
srv = float(cpu1) - float(cpu0)
# Where the wall time went, from the stored run (times to the millisecond).
ts = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
c = sqlite3.connect(db)
first, last, trial = c.execute(
    "SELECT min(started_at), max(finished_at), avg(duration_ms) FROM trials").fetchone()
answer = c.execute(
    "SELECT avg(json_extract(trace, '$.turns[0].latency_ms')) FROM trials").fetchone()[0]
start, tail = ts(first) - float(t0), float(t1) - ts(last)
print(f"| {label} | {n:,} | {code} | {secs:.2f} s | {ideal:.2f} s | {secs / ideal:.2f}× | "
      f"{cpu / n * 1000:.2f} ms | {rss:.1f} MiB | {reqs} | {inflight} | {srv:.2f} s | "
      f"{start:.2f} s | {trial:.1f} / {answer:.1f} ms | {tail:.2f} s | {la} |")
PY
}

# load_only LABEL N: peak RSS of reading an N-test suite, nothing sent.
load_only() {
  local suite="$work/suite-load.yaml"
  python3 bench/gen_live_suite.py "$2" "$base" "$suite" --api-key-env PACTUM_BENCH_UNSET_KEY
  env -u PACTUM_BENCH_UNSET_KEY /usr/bin/time -v "$bin" run "$suite" --db "$work/db-load/pactum.db" \
    -q 2>"$work/time.txt" >/dev/null || true
  python3 - "$work/time.txt" "$1" "$2" >>"$report" <<'PY'
import re, sys
t, label, n = sys.argv[1:]
text = open(t).read()
assert "PACTUM_BENCH_UNSET_KEY" in text, "pactum did not stop at the missing key"
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\):\s*(\S+)", text).group(1)
secs = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall.split(":"))))
rss = int(re.search(r"Maximum resident set size \(kbytes\):\s*(\d+)", text).group(1)) / 1024
print(f"| {label} | {int(n):,} | {secs:.2f} s | {rss:.1f} MiB |")
PY
}

# rust_ceiling LABEL N C: pactum-bench-client, N requests, C in flight.
rust_ceiling() {
  local la
  la=$(load)
  "$load_client" "$base/v1/chat/completions" --requests "$2" --concurrency "$3" >"$work/load.json"
  python3 - "$work/load.json" "$1" "$delay_ms" "$la" >>"$report" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
label, delay, la = sys.argv[2], float(sys.argv[3]), sys.argv[4]
ideal = r["requests"] * delay / 1000 / r["concurrency"]
print(f"| {label} | {r['requests']:,} | {r['concurrency']} | {r['wall_s']:.2f} s | {ideal:.2f} s | "
      f"{r['wall_s'] / ideal:.2f}× | {r['mean_ms']:.1f} / {r['p99_ms']:.1f} / {r['max_ms']:.1f} ms | {la} |")
PY
}

# client_ceiling LABEL: a 50-thread Python client, 1,000 requests, no pactum.
client_ceiling() {
  python3 - "$base" "$1" >>"$report" <<'PY'
import json, sys, time, urllib.request, concurrent.futures as cf
base, label = sys.argv[1], sys.argv[2]
body = json.dumps({"model": "bench-model", "messages": [{"role": "user", "content": "hi"}]}).encode()
def one(_):
    req = urllib.request.Request(base + "/v1/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    return urllib.request.urlopen(req).read()
t0 = time.monotonic()
with cf.ThreadPoolExecutor(50) as ex:
    list(ex.map(one, range(1000)))
print(f"| {label} | 1,000 | {time.monotonic() - t0:.2f} s | 1.00 s |")
PY
}

table_head() {
  echo "| case | tests | exit | wall | ideal | wall/ideal | pactum CPU/test | peak RSS | requests | max in flight | server CPU | start | trial / answer | tail | load avg before |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}

{
  echo "# pactum run: live benchmark"
  echo
  echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ); pactum release build;"
  echo "-j $jobs and target concurrency 64 (*-10k-j200: -j 200, concurrency 256); server delay $delay_ms ms;"
  echo "fresh store per run;"
  echo "Python $(python3 -c 'import platform; print(platform.python_version())')."
  echo
  echo "## 1. Against testing/scripted_server.py (thread per request, HTTP/1.0)"
  echo
  table_head
} >"$report"
start_server scripted
for i in 1 2 3; do run_case "scripted-1k-$i" 1000; done
run_case "scripted-10k" 10000

{
  echo
  echo "## 2. Against bench/fast_server.py (asyncio, keep-alive)"
  echo
  table_head
} >>"$report"
start_server fast
for i in 1 2 3; do run_case "fast-1k-$i" 1000; done
run_case "fast-10k" 10000
run_case "fast-1x10k-trials" 10000 --one-test
jobs=200 run_case "fast-10k-j200" 10000 --concurrency 256

{
  echo
  echo "## 3. Against pactum-bench-server (Rust, hyper, one thread, keep-alive)"
  echo
  table_head
} >>"$report"
start_server rust
for i in 1 2 3; do run_case "rust-1k-$i" 1000; done
run_case "rust-10k" 10000
run_case "rust-1x10k-trials" 10000 --one-test
for i in 1 2 3; do jobs=200 run_case "rust-10k-j200-$i" 10000 --concurrency 256; done

{
  echo
  echo "## 4. Holding the suite: loading it alone (nothing sent)"
  echo
  echo "| case | tests | wall | peak RSS |"
  echo "|---|---|---|---|"
} >>"$report"
load_only "load-1k" 1000
load_only "load-10k" 10000

{
  echo
  echo "## 5. The servers' ceiling, no pactum"
  echo
  echo "A 50-thread Python client:"
  echo
  echo "| server | requests | wall | ideal |"
  echo "|---|---|---|---|"
} >>"$report"
start_server scripted
client_ceiling "scripted_server.py"
start_server fast
client_ceiling "fast_server.py"
start_server rust
client_ceiling "pactum-bench-server"
{
  echo
  echo "pactum-bench-client (tokio, reqwest):"
  echo
  echo "| server | requests | in flight | wall | ideal | wall/ideal | latency mean / p99 / max | load avg before |"
  echo "|---|---|---|---|---|---|---|---|"
} >>"$report"
start_server fast
rust_ceiling "fast_server.py" 1000 50
rust_ceiling "fast_server.py" 10000 200
start_server rust
rust_ceiling "pactum-bench-server" 1000 50
rust_ceiling "pactum-bench-server" 10000 200
stop_server

echo >>"$report"
cat "$report"
