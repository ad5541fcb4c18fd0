#!/usr/bin/env bash
# `grade` of a one-service run with ten counted
# clauses (`at least N items`) over a 20-item output and a caller input
# of WORDS words (default 300,000 distinct random words, about 2.7 MB):
# the input's words are read once a contract to tell counted units apart,
# not once a clause. Prints wall, CPU and peak RSS.
# Usage: bash bench/openprose_inputs.sh [BIN] [WORDS] [DISTINCT]
# (default: target/release/pactum, 300000 words, all distinct).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/pactum}
words=${2:-300000}
distinct=${3:-$words}
[ -x "$bin" ] || cargo build --release --locked -p pactum-cli
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run="$work/run"
mkdir -p "$run/bindings/caller" "$run/bindings/svc"
python3 - "$run" "$words" "$distinct" <<'PY'
import random, sys
run, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(1)
vocab = ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(8)) for _ in range(k)]
text = " ".join(vocab[i % k] if k == n else rnd.choice(vocab) for i in range(n))
open(f"{run}/bindings/caller/topic.md", "w").write("# topic\nbinding: input\nsource: caller\n---\n" + text + "\n")
clauses = "\n".join(f"- `out`: at least {3 + i} items" for i in range(10))
open(f"{run}/root.prose.md", "w").write("---\nname: svc\nkind: service\n---\n\n## Requires\n\n- `topic`: the topic\n\n## Ensures\n\n" + clauses + "\n")
items = ["".join(rnd.choice("bcdfghjklmnpqrstvwxz") + rnd.choice("aeiou") for _ in range(3)).capitalize() for _ in range(20)]
open(f"{run}/bindings/svc/out.md", "w").write("".join(f"- {m} heat pump\n" for m in items))
open(f"{run}/vm.log.md", "w").write("# run:r svc\nroot: root.prose.md\n1→ svc ✓\n---end 2026-12-01T10:15:31Z\n")
PY
size=$(stat -c %s "$run/bindings/caller/topic.md")
code=0
/usr/bin/time -v "$bin" grade --quiet "$run" 2>"$work/time.txt" || code=$?
wall=$(awk '/Elapsed \(wall clock\)/ {print $NF}' "$work/time.txt")
cpu=$(awk -F: '/User time|System time/ {s+=$2} END {printf "%.2f", s}' "$work/time.txt")
rss=$(awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}' "$work/time.txt")
echo "| input | words | distinct | wall | CPU | peak RSS | exit |"
echo "|---|---|---|---|---|---|---|"
echo "| $((size / 1024)) KiB | $words | $distinct | $wall | ${cpu} s | $((rss / 1024)) MiB | $code |"
