#!/usr/bin/env bash
# Side-by-side benchmark of pactum and promptfoo. One command, from the repo
# root:
#
#     bash bench/promptfoo.sh [N...]        (default: 20000)
#
# Installs promptfoo 0.121.15 (pinned) from npm into
# ${TMPDIR:-/tmp}/pactum-bench-promptfoo-0.121.15 (kept: a second run does
# not reinstall), builds pactum's release binary, and for each N writes the
# same N-case deterministic suite for both tools (bench/gen_side_by_side.py:
# prompt "question i", an echo target, three checks per test from the
# suite's defaults: contains, regex, icontains; all pass) and measures:
#
# * run, pactum `kind: exec`, one process per conversation (the default),
#   against promptfoo's `exec:` provider running the same agent
#   (bench/echo_agent.sh, POSIX sh: one process per test in both tools);
# * run, pactum `mode: persistent` (a pool of long-lived agent processes),
#   when this build knows the mode (`pactum check` on a one-test suite);
#   otherwise "persistent mode: not available in this build";
# * run, promptfoo's built-in `echo` provider: in-process, no process per
#   test, the cheapest way promptfoo can echo a prompt; a lower bound of its
#   cost for any target, so a ratio against it never flatters pactum;
# * grading the same N recorded answers: `pactum grade` of a JSONL file
#   (tabular format) against `promptfoo eval --assertions --model-outputs`,
#   promptfoo's own mode for grading recorded outputs (it wraps each output
#   in a test on its `echo` provider); `--no-write`, since `pactum grade`
#   stores nothing either.
#
# Both tools run BENCH_JOBS (default 8) conversations at once, each run with
# fresh state (pactum: a new store; promptfoo: a new config folder), both
# store the run, and both run with `--no-cache`: promptfoo's default disk
# cache is one JSON file rewritten whole for every answer, so a 20,000-test
# run with it is bound by the disk (measured here: 2,925 tests in ten
# minutes, 430 MB written, the cache file at 850 KB and growing), which
# would measure its cache rather than its evaluation. BENCH_PROMPTFOO_ECHO=0
# skips the `echo` provider case (the longest after `exec:`). Both tools'
# state lives in BENCH_STATE_DIR (default /dev/shm, a RAM disk, when it
# exists): on a disk shared with other work, promptfoo waited on fsync for
# most of its wall time.
# Measured by bench/measure.py: wall, CPU (user + sys of the process tree),
# the peak RSS of the largest process (the figure `/usr/bin/time -v` gives:
# the max over processes, not their sum) and the sampled peak of the whole
# process tree's summed RSS. Before timing, a negative control: one wrong
# recorded answer must fail in both tools. Written to
# bench/results/promptfoo.md and printed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/bench/results"
mkdir -p "$out"
report="$out/promptfoo.md"
jobs=${BENCH_JOBS:-8}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(20000)

pf_version=0.121.15
scratch="${TMPDIR:-/tmp}/pactum-bench-promptfoo-$pf_version"
pf="$scratch/node_modules/.bin/promptfoo"
installed() {
  [ -x "$pf" ] && [ "$(node -p "require('$scratch/node_modules/promptfoo/package.json').version" 2>/dev/null)" = "$pf_version" ]
}
if ! installed; then
  echo "installing promptfoo $pf_version into $scratch" >&2
  mkdir -p "$scratch"
  npm install --prefix "$scratch" --no-audit --no-fund --loglevel=error "promptfoo@$pf_version" >&2
  installed || { echo "promptfoo $pf_version did not install" >&2; exit 1; }
fi

# promptfoo's debug log crashes it at exit on large runs; telemetry, the
# update check and sharing would reach the network.
export PROMPTFOO_DISABLE_DEBUG_LOG=1
export PROMPTFOO_DISABLE_TELEMETRY=1
export PROMPTFOO_DISABLE_UPDATE=1
export PROMPTFOO_DISABLE_SHARING=1
export PROMPTFOO_DISABLE_REMOTE_GENERATION=1

cargo build --release --locked -q -p pactum-cli
bin="$root/target/release/pactum"

# Both tools' state (stores, promptfoo's database) on a RAM disk when there
# is one: on a shared machine's disk, waiting for fsync dominated promptfoo
# (state D, 4% CPU, 372 tests in four minutes) and would measure the disk.
state=${BENCH_STATE_DIR:-/dev/shm}
[ -d "$state" ] && [ -w "$state" ] || state=${TMPDIR:-/tmp}
work=$(mktemp -d -p "$state")
trap 'rm -rf "$work"' EXIT

measure=(python3 "$root/bench/measure.py")

# promptfoo_env DIR CMD...: CMD with promptfoo's state in a fresh DIR.
promptfoo_env() {
  local dir=$1
  shift
  rm -rf "$dir"
  mkdir -p "$dir"
  env PROMPTFOO_CONFIG_DIR="$dir" PROMPTFOO_CACHE_PATH="$dir/cache" "$@"
}

grade_args=(--format tabular --prompt-column prompt --response-column response
  --id-column id --observability response_only -q)

# Negative control: three recorded answers, one wrong. Both tools must fail
# it, or the timed cases below could pass without checking anything.
python3 bench/gen_side_by_side.py 3 "$work/control" --jobs "$jobs"
(
  cd "$work/control"
  sed -i 's/"response": "question 1"/"response": "answer 1"/' records.jsonl
  sed -i 's/"question 1"/"answer 1"/' outputs.json
  code=0
  "$bin" grade -c contract.yaml "${grade_args[@]}" records.jsonl >/dev/null 2>&1 || code=$?
  [ "$code" = 1 ] || { echo "control: pactum grade exited $code, not 1, on a wrong answer" >&2; exit 1; }
  code=0
  promptfoo_env "$work/control/pf" "$pf" eval --assertions asserts.yaml --model-outputs outputs.json \
    --no-table --no-progress-bar --no-write >pf.out 2>&1 || code=$?
  [ "$code" != 0 ] && grep -q "1 failed" pf.out ||
    { echo "control: promptfoo exited $code and did not report 1 failure on a wrong answer" >&2; exit 1; }
)

# persistent mode: does this build know `mode: persistent`?
python3 bench/gen_side_by_side.py 1 "$work/probe" --jobs "$jobs" --pactum-only
persistent=no
if "$bin" check "$work/probe/pactum-persistent-probe.yaml" >/dev/null 2>&1; then persistent=yes; fi

{
  echo "# pactum and promptfoo side by side"
  echo
  echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "(the cores are shared: other processes slow every figure; each row gives the load before it);"
  echo "pactum $("$bin" --version | cut -d' ' -f2) (release build, $(git rev-parse --short HEAD));"
  echo "promptfoo $pf_version from npm on node $(node --version), with PROMPTFOO_DISABLE_DEBUG_LOG=1 (its debug"
  echo "log crashes it at exit on large runs), PROMPTFOO_DISABLE_TELEMETRY=1, PROMPTFOO_DISABLE_UPDATE=1,"
  echo "PROMPTFOO_DISABLE_SHARING=1 and PROMPTFOO_DISABLE_REMOTE_GENERATION=1 (no network)."
  echo "State of both tools (stores, promptfoo's database) in $state."
  echo "Both tools: $jobs conversations at once, fresh state per run, \`--no-cache\` (promptfoo's disk cache"
  echo "rewrites one JSON file per answer); both store the run, except grading (\`pactum grade\` stores"
  echo "nothing, promptfoo runs with \`--no-write\`)."
  echo "Negative control passed: one wrong recorded answer fails in both tools."
  if [ "$persistent" = no ]; then echo "persistent mode: not available in this build"; fi
} >"$report"

for n in "${sizes[@]}"; do
  d="$work/n$n"
  m="$d/m"
  rm -rf "$d"
  mkdir -p "$m"
  python3 bench/gen_side_by_side.py "$n" "$d" --jobs "$jobs"
  notes=()

  # note_pactum NAME: "all N passed" when pactum exited 0.
  note_pactum() {
    if [ "$(python3 -c "import json; print(json.load(open('$m/$1.json'))['exit'])")" = 0 ]; then
      echo "all $n passed"
    else
      echo "FAILED (see exit code)"
    fi
  }
  # note_promptfoo NAME: "all N passed" when promptfoo exited 0 and said so
  # (it writes 20,000 with a separator).
  note_promptfoo() {
    if [ "$(python3 -c "import json; print(json.load(open('$m/$1.json'))['exit'])")" = 0 ] &&
      grep -qE "✓ ($n|$(python3 -c "print(f'{$n:,}')")) passed" "$m/$1.out"; then
      echo "all $n passed"
    else
      echo "FAILED: $(grep -E 'passed|failed|errors|Error' "$m/$1.out" | head -3 | tr '\n' ' ')"
    fi
  }

  echo "N=$n: pactum run, one process per conversation" >&2
  "${measure[@]}" "$m/pactum-run.json" -- "$bin" run "$d/pactum-per-conversation.yaml" \
    --db "$d/db-run/pactum.db" -j "$jobs" --no-cache -q
  if [ "$persistent" = yes ]; then
    echo "N=$n: pactum run, persistent mode" >&2
    "${measure[@]}" "$m/pactum-run-persistent.json" -- "$bin" run "$d/pactum-persistent.yaml" \
      --db "$d/db-persistent/pactum.db" -j "$jobs" --no-cache -q
  fi
  echo "N=$n: promptfoo eval, exec: provider" >&2
  (cd "$d" && promptfoo_env "$d/pf-exec" "${measure[@]}" "$m/promptfoo-exec.json" --stdout "$m/promptfoo-exec.out" \
    -- "$pf" eval -c promptfoo-exec.yaml --no-table --no-progress-bar --no-cache -j "$jobs")
  if [ "${BENCH_PROMPTFOO_ECHO:-1}" != 0 ]; then
    echo "N=$n: promptfoo eval, echo provider" >&2
    (cd "$d" && promptfoo_env "$d/pf-echo" "${measure[@]}" "$m/promptfoo-echo.json" --stdout "$m/promptfoo-echo.out" \
      -- "$pf" eval -c promptfoo-echo.yaml --no-table --no-progress-bar --no-cache -j "$jobs")
  fi
  echo "N=$n: pactum grade" >&2
  (cd "$d" && "${measure[@]}" "$m/pactum-grade.json" -- "$bin" grade -c contract.yaml "${grade_args[@]}" records.jsonl)
  echo "N=$n: promptfoo eval --assertions --model-outputs" >&2
  (cd "$d" && promptfoo_env "$d/pf-grade" "${measure[@]}" "$m/promptfoo-grade.json" --stdout "$m/promptfoo-grade.out" \
    -- "$pf" eval --assertions asserts.yaml --model-outputs outputs.json --no-table --no-progress-bar \
    --no-write --no-cache -j "$jobs")

  t="python3 $root/bench/table.py"
  {
    echo
    echo "## N = $(python3 -c "print(f'{$n:,}')") tests, three checks each"
    echo
    $t head
    $t row "pactum run, exec, one process per conversation" "$m/pactum-run.json" "$(note_pactum pactum-run)"
    if [ "$persistent" = yes ]; then
      $t row "pactum run, exec, \`mode: persistent\`" "$m/pactum-run-persistent.json" "$(note_pactum pactum-run-persistent)"
    else
      $t row "pactum run, exec, \`mode: persistent\`" "$m/none.json" "persistent mode: not available in this build"
    fi
    $t row "promptfoo eval, \`exec:\` provider (same agent)" "$m/promptfoo-exec.json" "$(note_promptfoo promptfoo-exec)"
    if [ -f "$m/promptfoo-echo.json" ]; then
      $t row "promptfoo eval, \`echo\` provider (in-process)" "$m/promptfoo-echo.json" "$(note_promptfoo promptfoo-echo)"
    else
      $t row "promptfoo eval, \`echo\` provider (in-process)" "$m/none.json" "not run (BENCH_PROMPTFOO_ECHO=0)"
    fi
    $t row "pactum grade, recorded answers (JSONL)" "$m/pactum-grade.json" "$(note_pactum pactum-grade)"
    $t row "promptfoo eval --assertions --model-outputs" "$m/promptfoo-grade.json" "$(note_promptfoo promptfoo-grade)"
    echo
    $t ratio-head
    $t ratio "run, one process per conversation / promptfoo \`exec:\`" "$m/pactum-run.json" "$m/promptfoo-exec.json" "like for like; target wall ≤ 1.0×"
    $t ratio "run, one process per conversation / promptfoo \`echo\`" "$m/pactum-run.json" "$m/promptfoo-echo.json" "promptfoo starts no process"
    $t ratio "run, persistent / promptfoo \`exec:\`" "$m/pactum-run-persistent.json" "$m/promptfoo-exec.json" "same suite; target wall ≤ 0.2×"
    $t ratio "run, persistent / promptfoo \`echo\`" "$m/pactum-run-persistent.json" "$m/promptfoo-echo.json" "neither starts a process per test"
    $t ratio "grade / promptfoo --model-outputs" "$m/pactum-grade.json" "$m/promptfoo-grade.json" ""
  } >>"$report"
done

cat "$report"
