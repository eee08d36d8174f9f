#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Apply predictsim's trace rules ("strong filter") to an SWF trace.

Gaussier et al. (SC'15, github jad-darrous/predictsim) replay every log
after experiments/data_manipulation/strong_filter_all_swf, whose rules
are, in order (this is our own rewrite of those rules, not their code):

  1. drop a job whose allocated (field 5) or requested (field 8)
     processors exceed the header's MaxProcs;
  2. if only one of fields 5 and 8 is positive, copy it to the other;
     if neither is, drop the job;
  3. drop a job whose run time (field 4) is not positive;
  4. drop a job whose requested time (field 9) is not positive;
  5. cut the run time at the requested time;
  6. drop a job with a negative submit time.

Header lines are kept.  Usage: strong_filter.py IN.swf[.gz] > OUT.swf
"""
import gzip
import sys


def open_trace(path):
    if path.endswith(".gz"):
        return gzip.open(path, "rt")
    return open(path)


def max_procs(path):
    with open_trace(path) as f:
        for line in f:
            if not line.startswith(";"):
                break
            key, _, value = line[1:].partition(":")
            if key.strip() == "MaxProcs":
                return int(value)
    sys.exit("%s: no MaxProcs header" % path)


def keep(fields, maxp):
    f = [int(float(x)) for x in fields]
    if f[4] > maxp or f[7] > maxp:
        return None
    if f[7] <= 0 and f[4] <= 0:
        return None
    if f[7] <= 0:
        f[7] = f[4]
    elif f[4] <= 0:
        f[4] = f[7]
    if f[3] <= 0 or f[8] <= 0 or f[1] < 0:
        return None
    f[3] = min(f[3], f[8])
    return f


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: strong_filter.py IN.swf[.gz]")
    path = sys.argv[1]
    maxp = max_procs(path)
    out = sys.stdout
    with open_trace(path) as f:
        for line in f:
            if line.startswith(";"):
                out.write(line)
                continue
            fields = line.split()
            if len(fields) != 18:
                continue
            job = keep(fields, maxp)
            if job is not None:
                out.write(" ".join(str(x) for x in job) + "\n")


if __name__ == "__main__":
    main()
