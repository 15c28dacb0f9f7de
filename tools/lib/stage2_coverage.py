#!/usr/bin/python3
"""tools/lib/stage2_coverage.py UNIT.c SRC_NAME OUT.json LCOV...

The stage-2 subject's coverage of a tree's arch/arm64/kvm/hyp/pgtable.c
(tools/lib/stage2.sh, --coverage). UNIT.c is the unit the probe wrote
(stage2/kernel_tree/probe.sh): the shim's include, the tree's headers and
pgtable.c each after a `#line 1 "PATH"`, then the glue's include. Clang's
coverage keeps the unit's own line numbers, so a line of the unit after
the pgtable.c marker is line (unit line - marker line) of the file. Each
LCOV is `llvm-cov export -format=lcov` of one binary; counts of the same
line in several are combined by taking the largest (the merged profile
already sums a function built alike in each, as tools/lib/coverage.py
explains for the contpte subject).

Writes OUT.json {"file", "lines": {LINE: COUNT}, "lines_total",
"lines_run", "functions": {NAME: COUNT}} and prints a summary: lines run,
the functions the harness drove and those it never ran (the functions cut
out of the unit, such as the hyp stage-1 code, have no count at all).
"""
import json
import sys


def main(argv):
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    unit, src_name, out = argv[1], argv[2], argv[3]
    with open(unit, encoding="utf-8", errors="replace") as f:
        ulines = f.read().split("\n")
    start = end = None
    for i, line in enumerate(ulines, 1):
        if line.startswith('#line 1 "') and line.rstrip().endswith('pgtable.c"') and "kvm/hyp" in line:
            start = i
        elif start and line.startswith('#include "stage2/kernel_tree/glue.h"'):
            end = i
    if not start:
        print("stage2-coverage: no pgtable.c in %s" % unit, file=sys.stderr)
        return 1
    end = end or len(ulines) + 1
    unit_base = unit.rsplit("/", 1)[-1]

    lines, funcs = {}, {}
    fn_line = {}
    for path in argv[4:]:
        cur = False
        with open(path, encoding="utf-8", errors="replace") as f:
            for raw in f:
                raw = raw.rstrip("\n")
                if raw.startswith("SF:"):
                    cur = raw[3:].endswith(unit_base)
                elif not cur:
                    continue
                elif raw.startswith("DA:"):
                    ln, cnt = raw[3:].split(",")[:2]
                    ln, cnt = int(ln), int(cnt)
                    if start < ln < end:
                        k = ln - start
                        lines[k] = max(lines.get(k, 0), cnt)
                elif raw.startswith("FN:"):
                    ln, name = raw[3:].split(",", 1)
                    fn_line[name.split(":")[-1]] = int(ln)     # static: "unit.c:name"
                elif raw.startswith("FNDA:"):
                    cnt, name = raw[5:].split(",", 1)
                    name = name.split(":")[-1]
                    if name in fn_line and start < fn_line[name] < end:
                        funcs[name] = max(funcs.get(name, 0), int(cnt))
    for name, ln in fn_line.items():
        if start < ln < end:
            funcs.setdefault(name, 0)
    run = sum(1 for c in lines.values() if c)
    with open(out, "w") as f:
        json.dump({"file": src_name, "lines": {str(k): v for k, v in sorted(lines.items())},
                   "lines_total": len(lines), "lines_run": run, "functions": funcs}, f, indent=1)
    pct = 100.0 * run / len(lines) if lines else 0.0
    print("coverage of %s: %d of %d lines run (%.1f%%); %d of %d functions built run"
          % (src_name, run, len(lines), pct, sum(1 for c in funcs.values() if c), len(funcs)))
    never = sorted(n for n, c in funcs.items() if not c)
    if never:
        print("  never run: " + ", ".join(never))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
