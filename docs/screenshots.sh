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

shot() {
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$tmp/profile" --virtual-time-budget=2000 \
    --window-size="$3" --screenshot="docs/screenshots/$2.png" "file://$tmp/$1" 2>/dev/null
}
shot grade.html grade 1280,2000
shot strength.html strength 1280,1300
ls -l docs/screenshots
