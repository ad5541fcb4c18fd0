#!/usr/bin/env bash
# The HTML page of a large run: file size and time to first paint. One
# command, from the repo root:
#
#     bash bench/html.sh [N]          # N traces, default 20000
#
# Grades N generated traces (bench/gen_html_traces.py: the shop contract of
# the CLI tests, one in ten failing) with --json and --html, then opens the
# page in Debian's `chromium`, headless, with no network:
#
# * `--dump-dom`: load, parse, run the page script, serialise the DOM
#   (the script has listed the first page and opened the first failure);
# * `--screenshot`: the same up to the first painted frame.
#
# Each browser figure is the median wall time of 3 runs, beside the same
# command on an empty page (the browser's own start-up), so the page's
# share is the difference. PACTUM_BIN names the pactum binary (default:
# the release build, built here). Written to bench/results/html.md and
# printed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
n=${1:-20000}
out="$root/bench/results"
mkdir -p "$out"
report="$out/html.md"
if [ -z "${PACTUM_BIN:-}" ]; then
  cargo build --release --locked -q -p pactum-cli
  PACTUM_BIN="$root/target/release/pactum"
fi
command -v chromium >/dev/null || { echo "error: bench/html.sh needs chromium (sudo apt-get install -y chromium)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 bench/gen_html_traces.py "$work/traces.jsonl" "$n"
printf '<!DOCTYPE html><title>empty</title>' > "$work/empty.html"

grade() {
  "$PACTUM_BIN" grade -c crates/pactum-cli/tests/fixtures/contracts/shop.yaml \
    "$work/traces.jsonl" "$@" >/dev/null || [ $? = 1 ]
}
python3 bench/measure.py "$work/json.m" -- bash -c "$(declare -f grade); PACTUM_BIN='$PACTUM_BIN' work='$work' grade --json '$work/r.json'"
python3 bench/measure.py "$work/html.m" -- bash -c "$(declare -f grade); PACTUM_BIN='$PACTUM_BIN' work='$work' grade --json '$work/r2.json' --html '$work/r.html'"

# Median wall seconds of 3 headless loads of $1 with the mode $2.
browse() {
  local page=$1 mode=$2 times=()
  for _ in 1 2 3; do
    local profile
    profile=$(mktemp -d)
    local start end
    start=$(date +%s.%N)
    (cd "$work" && timeout 600 chromium --headless --no-sandbox --disable-gpu --no-first-run \
      --disable-extensions --proxy-server=127.0.0.1:9 --enable-logging=stderr --v=0 \
      --user-data-dir="$profile" --window-size=1280,900 "$mode" "file://$page" \
      >"$work/dom.html" 2>"$work/console.txt")
    end=$(date +%s.%N)
    rm -rf "$profile"
    times+=("$(python3 -c "print(f'{$end - $start:.2f}')")")
  done
  if grep -q ':CONSOLE' "$work/console.txt"; then
    echo "console lines on $page:" >&2
    grep ':CONSOLE' "$work/console.txt" >&2
    exit 1
  fi
  printf '%s\n' "${times[@]}" | sort -n | sed -n 2p
}
dom=$(browse "$work/r.html" --dump-dom)
grep -q "data-pactum-ready=\"$n\"" "$work/dom.html" || { echo "error: the page script did not finish" >&2; exit 1; }
dom0=$(browse "$work/empty.html" --dump-dom)
shot=$(browse "$work/r.html" --screenshot)
shot0=$(browse "$work/empty.html" --screenshot)

size() { stat -c %s "$1"; }
mib() { python3 -c "print(f'{$1 / 1048576:.1f}')"; }
field() { python3 -c "import json; print(json.load(open('$1'))['$2'])"; }
{
  echo "# The HTML page of $n traces"
  echo
  echo "$(date -u +%F), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $("$PACTUM_BIN" --version), $(chromium --version)"
  echo
  echo "| what | figure |"
  echo "|---|---|"
  echo "| JSON report | $(mib "$(size "$work/r.json")") MiB |"
  echo "| HTML page | $(mib "$(size "$work/r.html")") MiB ($(python3 -c "print(f'{$(size "$work/r.html") / $(size "$work/r.json"):.2f}')")× the JSON report) |"
  echo "| grade, --json only | $(field "$work/json.m" wall_s) s, peak $(( $(field "$work/json.m" max_rss_kib) / 1024 )) MiB |"
  echo "| grade, --json and --html | $(field "$work/html.m" wall_s) s, peak $(( $(field "$work/html.m" max_rss_kib) / 1024 )) MiB |"
  echo "| chromium --dump-dom (load, script, DOM) | $dom s (empty page: $dom0 s) |"
  echo "| chromium --screenshot (first paint) | $shot s (empty page: $shot0 s) |"
} | tee "$report"
