#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The trace rules and the statistic of pyss as first published.

pyss (github dinesh121991/pyss, before predictsim changed it) has the
EASY++ and EASY-SJBF of Tsafrir, Etzion and Feitelson, "Backfilling
using system-generated predictions rather than user runtime estimates",
IEEE TPDS 18(6), 2007.  Its reader and its statistic differ from
predictsim's later copy (strong_filter.py); this is our own rewrite of
both, so that rota sim can be compared with it:

  tsafrir_pyss.py rules IN.swf[.gz] > OUT.swf
      src/base/prototype.py _job_input_to_job: a job of run time <= 0,
      allocated processors <= 0 or negative submit time becomes a 1 s
      job (estimate 1 s) on max(1, allocated) processors, submitted at
      max(submit, 1); any other job gets allocated processors (field 5)
      cut at MaxProcs, estimate max(requested, run, 1) and run
      max(min(requested, run), 1) (so a requested time of -1 makes a
      1 s job).  Fields 4, 5, 8 and 9 of OUT carry run, size, size and
      estimate; replay OUT with rota sim --flat --size requested.

  tsafrir_pyss.py stats OUT.swf JOBS.csv
      src/schedulers/simulator.py print_statistics over rota sim's
      --csv: the jobs in order of finish time, leaving out "tiny" ones
      (estimate 1 s on 1 processor), then the first 1% of the others
      (counted over all, tiny included, as pyss counts), and stopping
      at the first job that finishes after the last submission.  Prints
      the jobs counted, mean wait in minutes and mean bounded slowdown
      (10 s), as pyss's "Wait (Tw) [minutes]" and "Bounded slowdown".
"""
import csv
import gzip
import sys


def open_trace(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def max_procs(path):
    with open_trace(path) as f:
        for line in f:
            if not line.startswith(";"):
                break
            key, _, value = line[1:].partition(":")
            if key.strip() == "MaxProcs":
                return int(value)
    sys.exit("%s: no MaxProcs header" % path)


def convert(f, maxp):
    submit, run, alloc, req = int(f[1]), float(f[3]), int(f[4]), int(f[8])
    if run <= 0 or alloc <= 0 or submit < 0:
        return max(submit, 1), 1, max(1, alloc), 1
    est = int(max(req, run, 1))
    return submit, int(max(min(req, run), 1)), max(min(alloc, maxp), 1), est


def rules(path):
    maxp = max_procs(path)
    with open_trace(path) as f:
        for line in f:
            if line.startswith(";") or not line.strip():
                sys.stdout.write(line)
                continue
            f = line.split()
            submit, run, procs, est = convert(f, maxp)
            f[1], f[3], f[4], f[7], f[8] = (str(submit), str(run),
                                            str(procs), str(procs), str(est))
            sys.stdout.write(" ".join(f) + "\n")


def stats(trace, jobs_csv):
    shape = {}
    last_submit = 0
    with open_trace(trace) as f:
        for line in f:
            if line.startswith(";") or not line.strip():
                continue
            x = line.split()
            shape[int(x[0])] = (int(x[8]), int(x[4]))
            last_submit = max(last_submit, int(x[1]))
    with open(jobs_csv) as f:
        rows = [(int(r["end"]), int(r["start"]), int(r["id"]),
                 int(r["submit"])) for r in csv.DictReader(f)]
    rows.sort()
    size = len(rows)
    pct = size // 100
    n = seen = 0
    wait = bsld = 0.0
    for end, start, job, submit in rows:
        seen += 1
        if shape[job] == (1, 1):
            size -= 1
            pct = size // 100
            continue
        if size >= 100 and seen <= pct:
            continue
        if end > last_submit:
            break
        n += 1
        run = end - start
        wait += start - submit
        bsld += max(1.0, (start - submit + run) / max(run, 10))
    print("%d jobs, wait %.6f min, bounded slowdown %.6f"
          % (n, wait / n / 60, bsld / n))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "rules":
        rules(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "stats":
        stats(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: tsafrir_pyss.py rules IN | stats OUT.swf JOBS.csv")


if __name__ == "__main__":
    main()
