#!/usr/bin/env python3
"""tools/lib/known_bugs.py - the known real bugs of kernel_tree/known_bugs.tsv,
for tools/corpus-table and tools/check (one home for both).

  known_bugs.py fix SIGNATURE LOG       the fix a tree lacks when a finding
                                        with SIGNATURE (kind:op:function) is
                                        that known bug: its row's condition
                                        matches LOG (the run's output); else
                                        nothing. Exit 0 either way.
  known_bugs.py signatures SIGNATURE... every signature of the bugs these
                                        are (one bug may show as several:
                                        the 2026-03 one as fault_loop and
                                        flags_not_set), comma-separated: a
                                        --known list for a run that looks
                                        for anything else
  known_bugs.py list                    the table: signature, bug, fix

As a module: rows(), fix_for(signature, text), bug_signatures(signatures).
"""
import os
import re
import sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernel_tree", "known_bugs.tsv")


def rows(path=TABLE):
    """(signature, condition, bug, fix) of every known bug's signature."""
    out = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 4:
                raise ValueError("%s: not 4 tab-separated columns: %r" % (path, line))
            out.append(tuple(cols))
    return out


def fix_for(signature, text, path=TABLE):
    """The fix the tree lacks if signature, with text showing its
    condition, is a known bug; else None."""
    for sig, cond, _bug, fix in rows(path):
        if sig == signature and re.search(cond, text):
            return fix
    return None


def bug_signatures(signatures, path=TABLE):
    """Every signature of the bugs the given signatures belong to."""
    table = rows(path)
    bugs = {bug for sig, _c, bug, _f in table if sig in signatures}
    return [sig for sig, _c, bug, _f in table if bug in bugs]


def main(argv):
    if len(argv) == 3 and argv[0] == "fix":
        with open(argv[2], errors="replace") as f:
            fix = fix_for(argv[1], f.read())
        if fix:
            print(fix)
        return 0
    if len(argv) >= 2 and argv[0] == "signatures":
        print(",".join(bug_signatures(argv[1:])))
        return 0
    if argv == ["list"]:
        for sig, _cond, bug, fix in rows():
            print("%s\t%s\t%s" % (sig, bug, fix))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
