#!/usr/bin/env bash
# Regenerates the screenshots in docs/screenshots/ from the bundled
# examples, with Debian's chromium, headless (bash .ci/browser installs it):
#   bash docs/screenshots.sh [PACTUM_BINARY]
# The pages are written to a temporary folder; only the PNGs are kept.
set -euo pipefail
cd "$(dirname "$0")/.."

pactum="${1:-target/release/pactum}"
if [ ! -x "$pactum" ]; then
  echo "error: $pactum is not built (cargo build --release -p pactum-cli, or pass the binary)" >&2
  exit 1
fi
command -v chromium >/dev/null || { echo "error: chromium is missing (sudo apt-get install -y chromium)" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p docs/screenshots

# A failing trace: the AgentDojo example (exit 1: some traces fail).
"$pactum" grade -c examples/agentdojo/contracts examples/agentdojo/traces.jsonl \
  --observability tool_calls --expect examples/agentdojo/expectations.yaml \
  --html "$tmp/grade.html" -q || [ $? -eq 1 ]
# A strength report (exit 1: the text-only contract misses defects).
"$pactum" strength -c examples/strength/contracts/tool-call.yaml \
  -c examples/strength/contracts/text-only.yaml --policy examples/strength/policy.yaml \
  --observability tool_calls --out "$tmp/strength" examples/strength/traces.jsonl \
  --html "$tmp/strength.html" >/dev/null || [ $? -eq 1 ]

# An authored test's interpretation panel: the adversarial example, run
# offline against the scripted server (every model is scripted), then its
# stored run's page (`show`: with the conversations).
python3 testing/scripted_server.py --script examples/adversarial/script.json \
  --port 0 --port-file "$tmp/port" --pid-file "$tmp/pid" 2>/dev/null &
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || { echo "error: the scripted server did not start" >&2; exit 1; }
sed "s|http://127.0.0.1:8766|http://127.0.0.1:$(cat "$tmp/port")|" \
  examples/adversarial/suite.yaml > "$tmp/suite.yaml"
"$pactum" run "$tmp/suite.yaml" --db "$tmp/pactum.db" -q || [ $? -eq 1 ]
kill "$(cat "$tmp/pid")"
run_id="$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT id FROM runs").fetchone()[0])' "$tmp/pactum.db")"
"$pactum" show "$run_id" --db "$tmp/pactum.db" --html "$tmp/authored.html" -q || [ $? -eq 1 ]

shot() {
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$tmp/profile" --virtual-time-budget=2000 \
    --window-size="$3" --screenshot="docs/screenshots/$2.png" "file://$tmp/$1" 2>/dev/null
}
shot grade.html grade 1280,2000
# weapon-pliable#1: the test read as a prohibition, stopped on turn 3.
shot 'authored.html#t1' authored 1280,2200
shot strength.html strength 1280,1300
ls -l docs/screenshots
