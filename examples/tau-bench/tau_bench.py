#!/usr/bin/env python3
"""tau-bench airline trajectories graded by pactum (docs/tau-bench.md).

    python3 examples/tau-bench/tau_bench.py contracts DATA.json OUT_DIR
        writes one pactum contract per task (OUT_DIR/task-N.json), built
        from the task's required write actions (`info.task.actions`).
    python3 examples/tau-bench/tau_bench.py score DATA.json REPORT.json [--min RATE]
        compares pactum's statuses (a `pactum grade --json` report) with
        tau-bench's `reward` (pass <=> reward 1) and prints the confusion
        matrix; with --min, exits 1 when the agreement is below RATE.

What a contract says (tau-bench's reward compares the final database with
the one the task's actions produce, so only calls that change it count):
  * required, one clause per distinct write action: a call to that tool,
    with every argument the action names equal to its value, that did not
    end in an error (`status: ok`; grade with --tool-error-prefix "Error:",
    which is how tau-bench reports a failed call), as many times as the
    action is listed;
  * required, one clause per expected output (`info.task.outputs`): the
    agent's answers contain it (case and commas ignored, as tau-bench does);
  * prohibited, one clause per write tool: more successful calls to it
    than the task's actions make (a second booking, a cancellation the
    task never asked for, a wrong-argument update beside the right one).
Reading tools (get_*, search_*, list_*, calculate, think) and
transfer_to_human_agents change no data and are not graded.

Python standard library only.
"""

import json
import re
import sys
from collections import Counter
from pathlib import Path

# The airline tools that change the database (tau-bench's airline
# domain, tools/*.py; every other tool only reads).
WRITE_TOOLS = [
    "book_reservation",
    "cancel_reservation",
    "send_certificate",
    "update_reservation_baggages",
    "update_reservation_flights",
    "update_reservation_passengers",
]
# Tools that change nothing, checked so that a new writing tool in the data
# is refused rather than silently left ungraded.
READ_TOOLS = {
    "calculate",
    "get_reservation_details",
    "get_user_details",
    "list_all_airports",
    "search_direct_flight",
    "search_onestop_flight",
    "think",
    "transfer_to_human_agents",
}


def read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        sys.exit(f"{path}: cannot read {what}: {e.strerror}")
    except ValueError as e:
        sys.exit(f"{path}: {what} is not JSON: {e}")


def load(path):
    data = read_json(path, "the trajectories")
    if not isinstance(data, list):
        sys.exit(f"{path}: expected a JSON array of trajectories")
    return data


def escape(key):
    return key.replace("~", "~0").replace("/", "~1")


def conditions(pointer, value):
    """Argument conditions for one action argument. A list of objects
    (flights, passengers, payment methods) is checked member by member,
    with no element beyond the last: the tools read only the members they
    know, so an extra member the agent adds (a flight's `origin`) changes
    nothing. Anything else must be equal as JSON."""
    if isinstance(value, list) and value and all(isinstance(e, dict) for e in value):
        out = {}
        for i, e in enumerate(value):
            for k, v in e.items():
                out[f"{pointer}/{i}/{escape(k)}"] = {"equals": v}
        out[f"{pointer}/{len(value)}"] = {"exists": False}
        return out
    return {pointer: {"equals": value}}


def output_pattern(out):
    """A regex finding `out` as tau-bench does: case ignored, commas
    between its characters allowed (it strips commas before comparing)."""
    chars = [re.escape(c) for c in out.replace(",", "")]
    return "(?i)" + ",?".join(chars)


def canonical(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def contract(task_id, actions, outputs):
    """The contract of one task (a dict, pactum's contract format)."""
    writes = []
    for a in actions:
        name = a["name"]
        if name in WRITE_TOOLS:
            writes.append(a)
        elif name not in READ_TOOLS:
            sys.exit(f"task {task_id}: unknown tool `{name}` in its actions: is it a write?")
    required = []
    distinct = Counter(canonical([a["name"], a["kwargs"]]) for a in writes)
    for n, (key, times) in enumerate(sorted(distinct.items()), start=1):
        name, kwargs = json.loads(key)
        args = {}
        for k, v in kwargs.items():
            args.update(conditions("/" + escape(k), v))
        shown = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(kwargs.items()))
        required.append({
            "id": f"{name}-{n}",
            "text": f"Call {name} successfully with {shown}"[:900],
            "severity": "high",
            "check": {"tool_called": {"name": name, "args": args, "status": "ok", "count": {"min": times}}},
        })
    # tau-bench also checks that each expected output (a number) appears
    # in the agent's answers, commas stripped, case ignored.
    for n, out in enumerate(outputs, start=1):
        required.append({
            "id": f"output-{n}",
            "text": f"Tell the user {out}",
            "severity": "high",
            "check": {"regex": {"pattern": output_pattern(out), "in": "response", "turns": "any", "echo": "include"}},
        })
    per_tool = Counter(a["name"] for a in writes)
    prohibited = []
    for name in WRITE_TOOLS:
        allowed = per_tool[name]
        prohibited.append({
            "id": f"extra-{name}",
            "text": f"Make more than {allowed} successful {name} call(s), changing data the task does not change"
            if allowed
            else f"Make a successful {name} call, changing data the task does not change",
            "severity": "high",
            "check": {"tool_called": {"name": name, "status": "ok", "count": {"min": allowed + 1}}},
        })
    return {
        "version": 1,
        "id": f"tau-airline-task-{task_id}",
        "description": f"tau-bench airline task {task_id}: its required write actions, and no other write",
        "select": {"pointer": "/task_id", "equals": task_id},
        "required": required,
        "prohibited": prohibited,
    }


def write_contracts(data_path, out_dir):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tasks = {}
    for rec in load(data_path):
        tid = rec["task_id"]
        task = (rec["info"]["task"]["actions"], rec["info"]["task"]["outputs"])
        if tid in tasks and canonical(tasks[tid]) != canonical(task):
            sys.exit(f"task {tid}: two trajectories list different actions or outputs")
        tasks[tid] = task
    for tid, (actions, outputs) in sorted(tasks.items()):
        path = out / f"task-{tid}.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(contract(tid, actions, outputs), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(path)
    print(f"{len(tasks)} contracts written to {out}")


def score(data_path, report_path, min_rate):
    data = load(data_path)
    report = read_json(report_path, "the report")
    results = report["results"]
    if len(results) != len(data):
        sys.exit(f"{len(results)} results for {len(data)} trajectories")
    matrix = Counter()
    disagreements = []
    for i, (rec, res) in enumerate(zip(data, results), start=1):
        # pactum names array elements FILE#N (1-based), in file order.
        if not res["trace_id"].endswith(f"#{i}"):
            sys.exit(f"result {i} is trace {res['trace_id']}: expected element #{i}")
        reward = rec["reward"]
        if reward not in (0, 1):
            sys.exit(f"trajectory {i}: reward {reward} is neither 0 nor 1")
        status = res["status"]
        matrix[(int(reward), status)] += 1
        if (status == "pass") != (reward == 1):
            disagreements.append(f"#{i} task {rec['task_id']} trial {rec['trial']}: reward {int(reward)}, pactum {status}: {res.get('summary', '')}")
    agree = sum(v for (r, s), v in matrix.items() if (s == "pass") == (r == 1))
    statuses = ["pass", "fail", "undetermined", "error"]
    print("reward | " + " | ".join(statuses))
    for r in (1, 0):
        print(f"{r:>6} | " + " | ".join(str(matrix[(r, s)]) for s in statuses))
    rate = agree / len(data)
    print(f"agreement: {agree}/{len(data)} = {rate:.1%} (pass <=> reward 1)")
    for d in disagreements:
        print("  " + d)
    if min_rate is not None and rate < min_rate:
        print(f"error: agreement {rate:.4f} is below {min_rate}", file=sys.stderr)
        return 1
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "contracts":
        write_contracts(argv[1], argv[2])
        return 0
    if len(argv) in (3, 5) and argv[0] == "score":
        min_rate = None
        if len(argv) == 5:
            if argv[3] != "--min":
                sys.exit(__doc__)
            min_rate = float(argv[4])
        return score(argv[1], argv[2], min_rate)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
