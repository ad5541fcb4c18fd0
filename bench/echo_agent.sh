#!/bin/sh
# The echo target of bench/promptfoo.sh, for both tools: it answers with the
# prompt, unchanged. POSIX sh builtins only (dash starts in about a
# millisecond), so the figures measure the tools rather than the agent.
#
# * promptfoo's `exec:` provider: the prompt is the first argument; the
#   answer is printed as plain text.
# * pactum's `exec` target: one request line per turn on stdin, one answer
#   line on stdout (pactum-exec/1, docs/targets.md); with pactum-exec/2 (a
#   persistent process serving many conversations) the answer also echoes
#   the request's `conversation_id` and `turn`. The request line is read
#   with string operations, not a JSON parser: it holds only the bench's own
#   prompts ("question N": no quote, backslash or newline). Any other
#   protocol ends the agent with status 2, so a protocol change fails the
#   bench instead of being answered.
if [ $# -gt 0 ]; then
  printf '%s\n' "$1"
  exit 0
fi
while IFS= read -r line; do
  content=${line##*\"content\":\"}
  content=${content%%\"*}
  case $line in
    *'"protocol":"pactum-exec/1"'*)
      printf '{"response":"%s"}\n' "$content" ;;
    *'"protocol":"pactum-exec/2"'*)
      id=${line#*\"conversation_id\":\"}
      id=${id%%\"*}
      turn=${line#*\"turn\":}
      turn=${turn%%[,\}]*}
      printf '{"conversation_id":"%s","turn":%s,"response":"%s"}\n' "$id" "$turn" "$content" ;;
    *)
      echo "echo_agent.sh: unknown protocol: $line" >&2
      exit 2 ;;
  esac
done
