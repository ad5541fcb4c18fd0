#!/usr/bin/env bash
# pactum benchmarks. One command: `bash bench/run.sh` (from the repo root,
# with ../shared beside it, or PACTUM_SHARED_DATA naming its data folder).
# Figures are printed and written to
# bench/results/latest.md. Installs hyperfine from Debian if it is missing.
# `bash bench/run.sh all` then runs every other bench of this folder too
# (bench/README.md lists them), each writing its own bench/results/*.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
shared="${PACTUM_SHARED_DATA:-$root/../shared/data}"
out="$root/bench/results"
mkdir -p "$out"
report="$out/latest.md"

if ! command -v hyperfine >/dev/null 2>&1; then
  (apt-get install -y -qq hyperfine >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq hyperfine)) >/dev/null
fi

cargo build --release --locked -q -p pactum-cli
bin="$root/target/release/pactum"

{
  echo "# pactum benchmarks"
  echo
  echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d)"
  echo
} >"$report"

# 1. Grading the 1,746 traces of the nine shared AgentDojo files.
echo "## grade: 9 AgentDojo files (1,746 traces), example contracts" >>"$report"
hyperfine --warmup 2 --runs 10 --export-markdown "$out/agentdojo.md" \
  "$bin grade -c examples/agentdojo/contracts --observability tool_calls --quiet --expect examples/agentdojo/expectations.yaml $shared/agentdojo/*.jsonl || true" >/dev/null
cat "$out/agentdojo.md" >>"$report"
echo >>"$report"

# 2. A generated 1 GB JSONL trace file: peak memory and throughput.
big="${TMPDIR:-/tmp}/pactum-bench-1g.jsonl"
# A complete file holds at least 1 GiB (one being written by another bench
# does not): write it under another name, then rename it into place.
if [ "$(stat -c %s "$big" 2>/dev/null || echo 0)" -lt 1073741824 ]; then
  python3 bench/gen_traces.py "$big.$$.tmp" 1073741824 >"$out/gen.txt"
  mv "$big.$$.tmp" "$big"
fi
traces=$(wc -l <"$big")
/usr/bin/time -v "$bin" grade -c examples/agentdojo/contracts --observability tool_calls --quiet \
  --json /dev/null "$big" 2>"$out/time-1g.txt" || true
rss_kb=$(awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}' "$out/time-1g.txt")
wall=$(awk '/Elapsed \(wall clock\)/ {print $NF}' "$out/time-1g.txt")
secs=$(python3 -c "p='$wall'.split(':'); print(sum(float(x)*60**i for i,x in enumerate(reversed(p))))")
{
  echo "## grade: generated 1 GiB JSONL ($traces traces), JSON report to /dev/null"
  echo
  echo "| wall | peak RSS | throughput |"
  echo "|---|---|---|"
  python3 -c "print(f'| {float($secs):.2f} s | {int($rss_kb)/1024:.1f} MiB | {int($traces)/float($secs):,.0f} traces/s ({1024/float($secs):.0f} MiB/s) |')"
  echo
} >>"$report"

# Redaction of 4 MB of text (exact keys and 8-character fragments).
{
  echo "## redact: 4 MB of text"
  echo
  cargo run --release --locked -q -p pactum-core --example redact_bench | sed 's/^/* /'
  echo
} >>"$report"

cat "$report"

if [ "${1:-}" = all ]; then
  bash bench/promptfoo.sh 2000 20000
  bash bench/scale.sh
  bash bench/run_live.sh
  bash bench/cost.sh
  bash bench/judge_windows.sh
  bash bench/strength.sh
  bash bench/html.sh
fi
