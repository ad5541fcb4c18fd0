#!/usr/bin/env python3
"""Runs one command and measures it and every process it starts.

    python3 bench/measure.py OUT.json [--stdout F] [--stderr F] -- CMD [ARG...]

Writes OUT.json with:

* `wall_s`: wall time;
* `cpu_s`, `user_s`, `sys_s`: CPU time of the command and all its waited-for
  descendants (getrusage's RUSAGE_CHILDREN through wait4, the figures
  `/usr/bin/time -v` prints);
* `max_rss_kib`: wait4's ru_maxrss, what `/usr/bin/time -v` calls "Maximum
  resident set size": the peak of the LARGEST single process of the tree,
  not of the tree. A node program that forks workers, or a runner that
  keeps many agent processes alive, uses more than that;
* `tree_peak_kib`: the peak of the SUM of the resident set sizes of the
  command's process tree (every process of its session), sampled every
  `--interval-ms` (default 50) from /proc. A child that still shares its
  parent's address space (being started: vfork, or fork before exec) is
  counted once, with its parent; other pages shared between processes
  (libraries) are counted once per process, so this is an upper bound of
  the tree's memory; a process that lives less than one interval can be
  missed;
* `exit`: the exit code (128 + N for a signal);
* `load_before`: the 1-minute load average when the command started (other
  processes on the machine slow every figure).

The command runs in its own session (setsid), which is how its tree is
found: every process whose session id is the command's pid.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time

PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024


def tree_rss_kib(sid):
    """Sum of the resident set sizes (KiB) of the processes of session `sid`.

    A child still inside its parent's program (a vfork sharing the parent's
    address space, or a fork not yet replaced by exec: how both tools start
    a target process) is not counted: its memory is the parent's, and
    counting it would add the parent once more for every process being
    started when the sample is taken. It is recognised by its code and
    stack addresses, the same as its parent's (after exec, address-space
    randomisation makes them differ even for the same program).
    """
    members = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            # Fields after the command name (which may hold spaces and
            # parens); index i is field i + 3 of proc(5).
            fields = stat.rsplit(b")", 1)[1].split()
            if int(fields[3]) != sid:  # field 6: session id
                continue
            with open(f"/proc/{name}/statm", "rb") as f:
                rss = int(f.read().split()[1]) * PAGE_KIB
            # Fields 26-28: start and end of the code, start of the stack
            # (0 when not readable: then never taken as the parent's).
            image = tuple(fields[23:26])
            members[int(name)] = (int(fields[1]), image, rss)  # field 4: parent pid
        except (OSError, IndexError, ValueError):
            continue  # the process ended between listing and reading
    total = 0
    for ppid, image, rss in members.values():
        parent = members.get(ppid)
        if parent and parent[1] == image and image != (b"0", b"0", b"0"):
            continue
        total += rss
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--stdout", default=os.devnull)
    ap.add_argument("--stderr", default=os.devnull)
    ap.add_argument("--interval-ms", type=float, default=50)
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("measure.py: no command given (after `--`)")
    split = argv.index("--")
    a = ap.parse_args(argv[:split])
    cmd = argv[split + 1:]
    if not cmd:
        sys.exit("measure.py: no command given (after `--`)")

    load = os.getloadavg()[0]
    with open(a.stdout, "wb") as out, open(a.stderr, "wb") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, start_new_session=True)
        peak = 0
        done = threading.Event()

        def poll():
            nonlocal peak
            while not done.is_set():
                peak = max(peak, tree_rss_kib(proc.pid))
                done.wait(a.interval_ms / 1000)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - t0
        done.set()
        poller.join()
    # Descendants not yet reaped by the command are not in `usage`; every
    # tool measured here waits for its children before exiting.
    code = os.waitstatus_to_exitcode(status)
    result = {
        "cmd": cmd,
        "wall_s": round(wall, 3),
        "user_s": round(usage.ru_utime, 3),
        "sys_s": round(usage.ru_stime, 3),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "max_rss_kib": usage.ru_maxrss,
        # A sample can miss the moment the largest process peaked.
        "tree_peak_kib": max(peak, usage.ru_maxrss),
        "exit": code if code >= 0 else 128 - code,
        "load_before": round(load, 2),
    }
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(result, f)
        f.write("\n")


if __name__ == "__main__":
    main()
