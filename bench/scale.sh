#!/usr/bin/env bash
# Memory scaling of pactum's pipelines. One command, from the repo root:
#
#     bash bench/scale.sh
#
# Builds the release binary and measures (bench/measure.py) pactum's own
# peak RSS — the figure `/usr/bin/time -v` reports, here the pactum
# process; the echo agents it starts are a few MiB each — against the
# targets for flat memory:
#
# 1. `pactum run` of the deterministic suite of bench/gen_side_by_side.py
#    (an exec echo target, three checks per test from the suite's defaults)
#    at 20,000 tests (≤ 64 MiB), 50,000 (no target: it shows whether memory
#    is flat) and 100,000 tests (≤ 80 MiB), one process per conversation;
#    and in `mode: persistent` when this build knows it
#    (else "persistent mode: not available in this build");
# 2. `pactum show` of the stored 20,000-test run (≤ 64 MiB), its JSON
#    report to /dev/null;
# 3. `pactum grade` of the generated 1 GiB JSONL (bench/gen_traces.py, from
#    ../shared's AgentDojo traces, cached in ${TMPDIR:-/tmp} as bench/run.sh
#    does) at `-j 1` and `-j $(nproc)`, the two JSON reports compared with
#    `cmp` (they must be identical); when this build's grade has no `-j`,
#    it runs once and says "-j: not available in this build". Skipped, and
#    said so, without ../shared (PACTUM_SHARED_DATA=/path/to/shared/data
#    names it from a worktree elsewhere).
#
# Each row gives the load average before it (the cores are shared). Written
# to bench/results/scale.md and printed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/bench/results"
mkdir -p "$out"
report="$out/scale.md"
jobs=${BENCH_JOBS:-8}

cargo build --release --locked -q -p pactum-cli
bin="$root/target/release/pactum"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measure=(python3 "$root/bench/measure.py")
t="python3 $root/bench/table.py"

python3 bench/gen_side_by_side.py 1 "$work/probe" --jobs "$jobs" --pactum-only
persistent=no
if "$bin" check "$work/probe/pactum-persistent-probe.yaml" >/dev/null 2>&1; then persistent=yes; fi
grade_jobs=no
if "$bin" grade --help | grep -qE -- '^\s+-j, --jobs'; then grade_jobs=yes; fi

{
  echo "# pactum: memory scaling"
  echo
  echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg);"
  echo "pactum $("$bin" --version | cut -d' ' -f2) (release build, $(git rev-parse --short HEAD)); -j $jobs, fresh store per run."
  if [ "$persistent" = no ]; then echo "persistent mode: not available in this build"; fi
  echo
  echo "## Measurements"
  echo
  $t head
} >"$report"

for n in 20000 50000 100000; do
  d="$work/n$n"
  python3 bench/gen_side_by_side.py "$n" "$d" --jobs "$jobs" --pactum-only
  echo "run, $n tests, one process per conversation" >&2
  "${measure[@]}" "$work/run-$n.json" -- "$bin" run "$d/pactum-per-conversation.yaml" \
    --db "$d/db/pactum.db" -j "$jobs" -q
  $t row "run, $n tests, one process per conversation" "$work/run-$n.json" >>"$report"
  if [ "$persistent" = yes ]; then
    echo "run, $n tests, persistent" >&2
    "${measure[@]}" "$work/run-persistent-$n.json" -- "$bin" run "$d/pactum-persistent.yaml" \
      --db "$d/db-persistent/pactum.db" -j "$jobs" -q
    $t row "run, $n tests, \`mode: persistent\`" "$work/run-persistent-$n.json" >>"$report"
  fi
done

# show: the stored 20,000-test run.
run_id=$("$bin" runs --db "$work/n20000/db/pactum.db" --color never | awk 'NR == 2 {print $1}')
echo "show, stored run of 20000 tests ($run_id)" >&2
"${measure[@]}" "$work/show.json" -- "$bin" show "$run_id" --db "$work/n20000/db/pactum.db" \
  --json /dev/null -q
$t row "show, stored 20,000-test run, JSON to /dev/null" "$work/show.json" >>"$report"

# grade: the 1 GiB JSONL.
big="${TMPDIR:-/tmp}/pactum-bench-1g.jsonl"
grade_note=""
gib=1073741824
# A complete file holds at least 1 GiB; one being written (by another bench
# on the same machine) does not, and is not read: this bench writes its own
# and renames it into place.
size() { stat -c %s "$1" 2>/dev/null || echo 0; }
shared=${PACTUM_SHARED_DATA:-$root/../shared/data}
if [ "$(size "$big")" -lt "$gib" ] && [ -d "$shared/agentdojo" ]; then
  python3 bench/gen_traces.py "$big.$$.tmp" "$gib" >&2
  mv "$big.$$.tmp" "$big"
fi
if [ "$(size "$big")" -ge "$gib" ]; then
  grade=("$bin" grade -c examples/agentdojo/contracts --observability tool_calls --quiet)
  if [ "$grade_jobs" = yes ]; then
    echo "grade 1 GiB, -j 1" >&2
    "${measure[@]}" "$work/grade-j1.json" -- "${grade[@]}" -j 1 --json "$work/grade-j1.out.json" "$big"
    echo "grade 1 GiB, -j $(nproc)" >&2
    "${measure[@]}" "$work/grade-jn.json" -- "${grade[@]}" -j "$(nproc)" --json "$work/grade-jn.out.json" "$big"
    if cmp -s "$work/grade-j1.out.json" "$work/grade-jn.out.json"; then
      grade_note="the two JSON reports are identical (cmp); exit 1: some recorded agents fail their contracts, as expected"
    else
      grade_note="THE TWO JSON REPORTS DIFFER (cmp)"
    fi
    $t row "grade, 1 GiB JSONL, -j 1" "$work/grade-j1.json" >>"$report"
    $t row "grade, 1 GiB JSONL, -j $(nproc)" "$work/grade-jn.json" "$grade_note" >>"$report"
  else
    echo "grade 1 GiB (no -j in this build)" >&2
    "${measure[@]}" "$work/grade-j1.json" -- "${grade[@]}" --json /dev/null "$big"
    grade_note="-j: not available in this build; exit 1: some recorded agents fail their contracts, as expected"
    $t row "grade, 1 GiB JSONL" "$work/grade-j1.json" "$grade_note" >>"$report"
  fi
  traces=$(wc -l <"$big")
else
  grade_note="skipped: no $shared/agentdojo to generate the 1 GiB JSONL from"
  echo "| grade, 1 GiB JSONL | — | — | — | — | — | — | $grade_note |" >>"$report"
fi

{
  echo
  echo "## Targets (pactum's own peak RSS, as \`time -v\` reports it)"
  echo
  echo "| case | peak RSS | target | |"
  echo "|---|---|---|---|"
  $t limit "run, 20,000 tests, one process per conversation" "$work/run-20000.json" 64
  $t limit "run, 100,000 tests, one process per conversation" "$work/run-100000.json" 80
  if [ "$persistent" = yes ]; then
    $t limit "run, 20,000 tests, persistent" "$work/run-persistent-20000.json" 64
    $t limit "run, 100,000 tests, persistent" "$work/run-persistent-100000.json" 80
  fi
  $t limit "show, stored 20,000-test run" "$work/show.json" 64
  if [ -s "$work/grade-j1.json" ]; then
    echo
    echo "grade throughput ($traces traces, $(($(stat -c %s "$big") / 1048576)) MiB):"
    # The measurements only: grade-j1.out.json and the like are the reports.
    for f in "$work/grade-j1.json" "$work/grade-jn.json"; do
      [ -s "$f" ] || continue
      python3 - "$f" "$(stat -c %s "$big")" "$traces" <<'PY'
import json, sys
m, size, traces = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
cmd = m["cmd"]
j = cmd[cmd.index("-j") + 1] if "-j" in cmd else "default"
print(f"* -j {j}: {size / 1048576 / m['wall_s']:.0f} MiB/s, {traces / m['wall_s']:,.0f} traces/s, "
      f"peak RSS {m['max_rss_kib'] / 1024:.1f} MiB")
PY
    done
    echo "* $grade_note"
  fi
} >>"$report"

cat "$report"
