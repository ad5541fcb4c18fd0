#!/usr/bin/env python3
"""Markdown rows from bench/measure.py's JSON files.

    python3 bench/table.py head
    python3 bench/table.py row LABEL M.json [NOTE]
    python3 bench/table.py ratio-head
    python3 bench/table.py ratio LABEL A.json B.json [NOTE]
    python3 bench/table.py limit LABEL M.json MIB

`limit` compares the largest process's peak RSS (the measured tool itself
when its children are small) with a target of MIB MiB.

`row` prints wall, CPU (user + sys of the whole tree), the peak RSS of the
largest single process (what `/usr/bin/time -v` reports), the sampled peak
of the whole process tree, the exit code and the load average before the
command. `ratio` prints A/B for wall, CPU and the process-tree peak.
A missing JSON file (a case not run) prints "—".
"""

import json
import os
import sys


def load(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def secs(s):
    return f"{s:.2f} s" if s >= 1 else f"{s * 1000:.0f} ms"


def mib(kib):
    return f"{kib / 1024:.1f} MiB"


def main():
    what, args = sys.argv[1], sys.argv[2:]
    if what == "head":
        print("| case | exit | wall | CPU (user+sys) | peak RSS, largest process (`time -v`) "
              "| peak RSS, process tree (sampled sum) | load avg before | note |")
        print("|---|---|---|---|---|---|---|---|")
    elif what == "row":
        label, m, note = args[0], load(args[1]), (args[2] if len(args) > 2 else "")
        if m is None:
            print(f"| {label} | — | — | — | — | — | — | {note} |")
            return
        print(f"| {label} | {m['exit']} | {secs(m['wall_s'])} | {secs(m['cpu_s'])} "
              f"| {mib(m['max_rss_kib'])} | {mib(m['tree_peak_kib'])} | {m['load_before']} | {note} |")
    elif what == "ratio-head":
        print("| pactum / promptfoo | wall | CPU | peak RSS (tree) | note |")
        print("|---|---|---|---|---|")
    elif what == "ratio":
        label, a, b = args[0], load(args[1]), load(args[2])
        note = args[3] if len(args) > 3 else ""
        if a is None or b is None:
            print(f"| {label} | — | — | — | {note} |")
            return

        def r(key):
            if not b[key]:
                return "—"
            x = a[key] / b[key]
            return f"{x:.2f}×" if x >= 0.1 else f"{x:.2g}× (1/{1 / x:,.0f})" if x else "0×"

        print(f"| {label} | {r('wall_s')} | {r('cpu_s')} | {r('tree_peak_kib')} | {note} |")
    elif what == "limit":
        label, m, limit = args[0], load(args[1]), float(args[2])
        if m is None:
            print(f"| {label} | — | ≤ {limit:.0f} MiB | not run |")
            return
        peak = m["max_rss_kib"] / 1024
        verdict = "met" if peak <= limit and m["exit"] == 0 else "NOT met"
        print(f"| {label} | {peak:.1f} MiB | ≤ {limit:.0f} MiB | {verdict} |")
    else:
        sys.exit(f"table.py: unknown command {what}")


if __name__ == "__main__":
    main()
