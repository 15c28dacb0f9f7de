#!/usr/bin/python3
"""tools/lib/coverage.py WS PKG OUT.json PATCH_LINES.tsv|- LCOV...

The subject's coverage, on the user's own files. Each LCOV is what
`llvm-cov export -format=lcov` wrote for one binary tools/check ran (its
line counts and branch counts, computed by llvm-cov itself); WS the
workspace; PKG the scratch package the subject was built in (relative to
WS: scratch/p.XXXXXX). Two kinds of source file in it are the subject's:

  PKG/tree/arch/arm64/mm/contpte.c (or PKG/plugin.c)   the file as built
      (the tree's, patched): its lines are the file's own;
  bazel-out/.../PKG/*_unit.c   the units the probe wrote: the pieces of the
      tree's files in them (contpte: parts of asm/pgtable.h; stage 2:
      asm/kvm_pgtable.h, asm/stage2_pgtable.h and kvm/hyp/pgtable.c
      whole) each start at a `#line N "PATH/arch/..."` directive and end at
      kernel_tree/extract_header.py's PIECE_END comment, the next
      directive, or the include of the glue that follows the tree's code;
      their lines are mapped back to the file's (clang's coverage keeps the
      unit's own line numbers, not #line's).

The profiles of every binary are merged into one before llvm-cov reads
them, and the merge keys a function's counts by its name and the hash of
its structure: a function built alike in several binaries (granules, the
stress driver, the engine, the replayed fuzz queue) has one record, the
sum over all of them, which each binary's export reports in full. So the
binaries' figures are combined by taking the largest, not by adding: the
count of a function built alike everywhere is exact, and one built
differently (the engine's backend) is at least the largest binary's.
Writes OUT.json:

  {"files": {REL: {"lines": {LINE: COUNT}, "branches": {LINE: [COUNT|null, ...]},
                   "lines_total", "lines_run", "branches_total", "branches_run"}},
   "patch": [{"file", "line", "kind", "function", "built", "count", "branches"}]}

REL is the file's path from the tree's top (arch/arm64/mm/contpte.c,
arch/arm64/include/asm/pgtable.h, arch/arm64/kvm/hyp/pgtable.c, ...) or
plugin.c. A line with no count is not code the build made (a comment, a
declaration, or a definition the harness does not build); branch counts
of null are branches never reached. PATCH_LINES.tsv is
kernel_tree/patch_lines.py's output for the patch (FILE LINE KIND
FUNCTION START END); each of its lines gets its count (null: no code on
that line, or, with built false, in a definition the build did not make)
and its branches.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernel_tree"))
from extract_header import PIECE_END  # noqa: E402

LINE_DIRECTIVE = re.compile(r'^#line (\d+) "([^"]*)"')
# what follows the tree's code in a unit: the end of the last piece
GLUE_INCLUDE = re.compile(r'^#include "(kernel_tree|stage2/kernel_tree)/glue\.h"')


def tree_rel(path):
    """A tree file's path from the tree's top (its arch/...), or None."""
    i = path.find("arch/arm64/")
    return path[i:] if i == 0 or (i > 0 and path[i - 1] == "/") else None


def read_lcov(path):
    """[(source file, {line: count}, {line: [count|None]})] as llvm-cov wrote them."""
    out, sf, lines, branches = [], None, {}, {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("SF:"):
                sf, lines, branches = line[3:], {}, {}
            elif line.startswith("DA:"):
                ln, count = line[3:].split(",")[:2]
                lines[int(ln)] = lines.get(int(ln), 0) + int(count)
            elif line.startswith("BRDA:"):
                # one record per object that built the line: the same
                # (block, branch) of several binaries is summed
                ln, block, branch, taken = line[5:].split(",")
                have = branches.setdefault(int(ln), {}).get((block, branch))
                count = None if taken == "-" else int(taken)
                branches[int(ln)][(block, branch)] = count if have is None else have + (count or 0)
            elif line == "end_of_record" and sf is not None:
                out.append((sf, lines, {ln: [b[k] for k in sorted(b)] for ln, b in branches.items()}))
                sf = None
    return out


def local_path(ws, sf):
    """A path as the coverage mapping holds it (Bazel compiles in its
    execroot, seen as /proc/self/cwd), as a file under WS."""
    if sf.startswith("/proc/self/cwd/"):
        return os.path.join(ws, sf[len("/proc/self/cwd/"):])
    return sf if os.path.isabs(sf) else os.path.join(ws, sf)


def unit_map(path):
    """{unit line: (tree file, its line)} for the tree's pieces in a unit."""
    mapping, start, unit_line = {}, None, 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for unit_line, text in enumerate(f, 1):
            m = LINE_DIRECTIVE.match(text)
            if m:
                rel = tree_rel(m.group(2))
                start = (unit_line, int(m.group(1)), rel) if rel else None
                continue
            if text.strip() == PIECE_END or GLUE_INCLUDE.match(text):
                start = None
                continue
            if start is not None:
                mapping[unit_line] = (start[2], start[1] + unit_line - start[0] - 1)
    return mapping


def add(files, rel, lines, branches):
    """One binary's figures for a file, into files[rel] (largest wins)."""
    entry = files.setdefault(rel, {"lines": {}, "branches": {}})
    for ln, count in lines.items():
        entry["lines"][ln] = max(entry["lines"].get(ln, 0), count)
    for ln, counts in branches.items():
        have = entry["branches"].get(ln)
        if have is None or len(have) != len(counts):
            entry["branches"][ln] = list(counts) if have is None or len(counts) > len(have) else have
        else:
            entry["branches"][ln] = [None if a is None and b is None else max(a or 0, b or 0)
                                     for a, b in zip(have, counts)]


def add_unit(files, remap, lines, branches):
    """A unit's figures, each line into the tree file it came from."""
    per = {}
    for ln, count in lines.items():
        if ln in remap:
            rel, fl = remap[ln]
            per.setdefault(rel, ({}, {}))[0][fl] = count
    for ln, counts in branches.items():
        if ln in remap:
            rel, fl = remap[ln]
            per.setdefault(rel, ({}, {}))[1][fl] = counts
    for rel, (ls, bs) in per.items():
        add(files, rel, ls, bs)


def main(argv):
    if len(argv) < 6:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    ws, pkg, out, patch_lines = argv[1:5]
    files = {}
    pkg = pkg.rstrip("/") + "/"
    for sf, lines, branches in (rec for lcov in argv[5:] for rec in read_lcov(lcov)):
        local = local_path(ws, sf)
        rel_in_ws = os.path.relpath(local, ws)
        if rel_in_ws.startswith(pkg):
            inside = rel_in_ws[len(pkg):]
            if inside.startswith("tree/"):
                add(files, inside[len("tree/"):], lines, branches)
            elif inside == "plugin.c":
                add(files, "plugin.c", lines, branches)
        elif "/" + pkg in "/" + rel_in_ws and rel_in_ws.endswith("_unit.c"):
            try:
                remap = unit_map(local)
            except OSError:
                continue
            if remap:
                add_unit(files, remap, lines, branches)
    for entry in files.values():
        entry["lines_total"] = len(entry["lines"])
        entry["lines_run"] = sum(1 for c in entry["lines"].values() if c > 0)
        entry["branches_total"] = sum(len(b) for b in entry["branches"].values())
        entry["branches_run"] = sum(1 for b in entry["branches"].values() for c in b if c)
    patch = []
    if patch_lines != "-":
        with open(patch_lines, encoding="utf-8") as f:
            for row in f:
                parts = row.rstrip("\n").split("\t")
                if len(parts) != 6:
                    continue
                rel, ln, kind, func = parts[0], int(parts[1]), parts[2], parts[3]
                start, end = int(parts[4]), int(parts[5])
                entry = files.get(rel, {"lines": {}, "branches": {}})
                # a definition with no counted line at all was not built
                # (the harness does not run it); otherwise a line without a
                # count is no code (a comment, a blank line, a declaration)
                # a macro's lines have no count of their own (it runs where
                # it expands): no code here, named apart in the report
                macro = func.startswith("macro:")
                built = func == "-" or macro or any(l in entry["lines"] for l in range(start, end + 1))
                patch.append({"file": rel, "line": ln, "kind": kind, "function": func[6:] if macro else func,
                              "macro": macro, "built": built, "count": None if macro else entry["lines"].get(ln),
                              "branches": [] if macro else entry["branches"].get(ln, [])})
    # JSON keys are strings; lines sorted for the reader
    for entry in files.values():
        entry["lines"] = {str(k): v for k, v in sorted(entry["lines"].items())}
        entry["branches"] = {str(k): v for k, v in sorted(entry["branches"].items())}
    with open(out, "w") as f:
        json.dump({"files": files, "patch": patch}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
