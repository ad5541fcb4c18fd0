#!/usr/bin/env bash
# `grade` of a one-service run whose one output
# holds N link reference definitions and N uses of them (the shape that
# was once quadratic), for each N: wall, CPU, peak RSS, and the CPU per
# definition, which stays about flat while reading is linear.
# Usage: bash bench/openprose.sh [BIN] [N...] (default: target/release/pactum,
# N = 10000 20000 40000).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/pactum}
shift || true
ns=("${@:-10000}")
[ $# -eq 0 ] && ns=(10000 20000 40000)
[ -x "$bin" ] || cargo build --release --locked -p pactum-cli
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| definitions | output | wall | CPU (user+sys) | CPU per definition | peak RSS | verdict |"
echo "|---|---|---|---|---|---|---|"
for n in "${ns[@]}"; do
  run="$work/run-$n"
  mkdir -p "$run/bindings/linker"
  printf -- '---\nname: linker\nkind: service\nversion: 0.13.0\n---\n\n# Linker\n\n## Ensures\n\n- `links`: at least 3 sources\n' >"$run/root.prose.md"
  printf '# run:20261201-000000-abc123 linker\nroot: root.prose.md\n1→ linker ✓\n---end 2026-12-01T00:00:10Z\n' >"$run/vm.log.md"
  python3 - "$n" "$run/bindings/linker/links.md" <<'PY'
import sys
n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.writelines(f"[l{i}]: https://a{i}.net/\n" for i in range(n))
    f.write("\n")
    f.write("".join(f"[l{i}] " for i in range(n)))
    f.write("\n")
PY
  size=$(stat -c %s "$run/bindings/linker/links.md")
  code=0
  /usr/bin/time -v "$bin" grade --quiet --json "$work/r-$n.json" "$run" \
    2>"$work/time-$n.txt" || code=$?
  wall=$(awk '/Elapsed \(wall clock\)/ {print $NF}' "$work/time-$n.txt")
  secs=$(python3 -c "p='$wall'.split(':'); print(sum(float(x)*60**i for i,x in enumerate(reversed(p))))")
  cpu=$(awk -F: '/User time|System time/ {s+=$2} END {printf "%.2f", s}' "$work/time-$n.txt")
  rss=$(awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}' "$work/time-$n.txt")
  verdict=$(python3 -c "import json; print(json.load(open('$work/r-$n.json'))['openprose'][0]['overall_verdict'])" 2>/dev/null || echo "?")
  python3 -c "print(f'| $n | {$size/1e6:.1f} MB | {float($secs):.2f} s | $cpu s | {1e6*$cpu/$n:.0f} µs | {int($rss)/1024:.1f} MiB | $verdict (exit $code) |')"
done
