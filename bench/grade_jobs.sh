#!/usr/bin/env bash
# `grade -j N` on a generated 1 GiB JSONL: wall, peak RSS and the load
# average for each N, and a byte comparison of every JSON report with the
# one of -j 1. Usage: bash bench/grade_jobs.sh [BIN] [N...]
# (default: target/release/pactum, N = 1 2). BIN may be an older pactum
# without -j: it is then run once, as the baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/pactum}
shift || true
jobs=("${@:-1}")
[ $# -eq 0 ] && jobs=(1 2)
big=${PACTUM_BENCH_1G:-/tmp/pactum-bench-1g.jsonl}
[ -s "$big" ] || python3 bench/gen_traces.py "$big" 1073741824
out=$(mktemp -d)
mib=$(( $(stat -c %s "$big") / 1048576 ))
has_jobs=0
"$bin" grade --help | grep -q -- '--jobs' && has_jobs=1
[ $has_jobs -eq 1 ] || jobs=(-)
echo "| -j | wall | MiB/s | CPU (user+sys) | peak RSS | load (1 min) | JSON report |"
echo "|---|---|---|---|---|---|---|"
for j in "${jobs[@]}"; do
  load=$(cut -d' ' -f1 /proc/loadavg)
  flag=()
  [ "$j" = - ] || flag=(-j "$j")
  /usr/bin/time -v "$bin" grade "${flag[@]}" -c examples/agentdojo/contracts \
    --observability tool_calls --quiet --json "$out/$j.json" "$big" 2>"$out/time-$j.txt" || true
  wall=$(awk '/Elapsed \(wall clock\)/ {print $NF}' "$out/time-$j.txt")
  secs=$(python3 -c "p='$wall'.split(':'); print(sum(float(x)*60**i for i,x in enumerate(reversed(p))))")
  cpu=$(awk -F: '/User time|System time/ {s+=$2} END {printf "%.1f", s}' "$out/time-$j.txt")
  rss=$(awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}' "$out/time-$j.txt")
  same="-"
  if [ "$j" != - ] && [ "$j" != "${jobs[0]}" ]; then
    cmp -s "$out/${jobs[0]}.json" "$out/$j.json" && same="= -j ${jobs[0]}" || same="DIFFERS"
  fi
  python3 -c "print(f'| $j | {float($secs):.1f} s | {$mib/float($secs):.0f} | $cpu s | {int($rss)/1024:.1f} MiB | $load | $same |')"
done
rm -rf "$out"
