#!/usr/bin/env python3
"""Compares md's run record (thermo table) and step-0 force file with a
LAMMPS log and force dump of the same run.

usage: lammps_agree.py RECORD.jsonl FORCES LAMMPS.log LAMMPS.dump THERMO_TOL FORCE_TOL
Prints the worst relative differences; exits 0 when both are within the
tolerances, 1 otherwise. Forces are compared relative to the largest force
component (individual components can be near zero)."""
import json
import sys


def lammps_thermo(path):
    rows = []
    for line in open(path):
        p = line.split()
        if len(p) == 5 and p[0].isdigit():
            try:
                rows.append([float(x) for x in p])
            except ValueError:
                pass
    return rows


def lammps_forces(path):
    lines = open(path).read().splitlines()
    start = lines.index("ITEM: ATOMS id fx fy fz") + 1
    out = {}
    for line in lines[start:]:
        if line.startswith("ITEM"):
            break
        p = line.split()
        out[int(p[0])] = [float(x) for x in p[1:4]]
    return out


def main():
    rec, forces, log, dump, ttol, ftol = sys.argv[1:7]
    ours = json.loads(open(rec).read().splitlines()[-1])["results"]["thermo"]
    theirs = lammps_thermo(log)
    if len(theirs) != len(ours) or not theirs:
        print("thermo rows: ours %d, LAMMPS %d" % (len(ours), len(theirs)))
        return 1
    worst = 0.0
    for a, b in zip(theirs, ours):
        if int(a[0]) != b[1]:
            print("steps differ: %s vs %s" % (a[0], b[1]))
            return 1
        for k in range(1, 5):
            worst = max(worst, abs(a[k] - b[k + 1]) / max(abs(a[k]), 1e-300))
    lf = lammps_forces(dump)
    of = {}
    for line in open(forces):
        if not line.startswith("#"):
            p = line.split()
            of[int(p[0])] = [float(x) for x in p[1:4]]
    if set(lf) != set(of):
        print("force files list different atoms")
        return 1
    fmax = max(abs(v) for f in lf.values() for v in f)
    fworst = max(abs(a - b) for k in lf for a, b in zip(lf[k], of[k])) / fmax
    print("%d thermo rows, worst relative difference %.2e; %d atoms' forces, worst %.2e of the largest"
          % (len(ours), worst, len(lf), fworst))
    return 0 if worst <= float(ttol) and fworst <= float(ftol) else 1


if __name__ == "__main__":
    sys.exit(main())
