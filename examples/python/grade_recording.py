"""Grade a recorded conversation from Python: the 24 AgentDojo traces of
examples/agentdojo against their contracts, as `pactum grade` does.

    python examples/python/grade_recording.py
"""

from __future__ import annotations

import pathlib

import pactum

HERE = pathlib.Path(__file__).resolve().parent
AGENTDOJO = HERE.parent / "agentdojo"


def main() -> int:
    run = pactum.grade(
        AGENTDOJO / "traces.jsonl",
        AGENTDOJO / "contracts",
        observability="tool_calls",  # what AgentDojo's recordings show
    )
    for result in run:
        if result.status != "pass":
            print(result.breakdown())
    print(f"{len(run)} traces: {run.count('fail')} fail, {run.count('undetermined')} undetermined, {run.count('pass')} pass")
    return 1 if run.count("fail") or run.count("error") else 0


if __name__ == "__main__":
    raise SystemExit(main())
