#!/usr/bin/python3
"""kernel_tree/patch_lines.py PATCH ROOT

The lines a patch changes in the files the harness builds, and the function
(or macro) each lies in. PATCH is a -p1 unified diff (git diff, git
format-patch, diff -u); ROOT is a copy of the tree with PATCH applied (the
scratch copy tools/ build from). For every file of the patch that exists
under ROOT, prints one tab-separated line per changed line of the patched
file:

    FILE  LINE  KIND  FUNCTION  START  END

KIND is "added" (a line the patch adds or rewrites) or "deleted" (the line
that now stands where the patch removed lines and added none: a change with
no line of its own). FUNCTION is the function definition whose extent holds
the line, else the macro definition as "macro:NAME" (a macro has no code of
its own: it runs where it is used), else "-" (file scope); START and END
its first and last lines (0 0 at file scope). Functions and
macros are found with clang's front end (libclang, the same parse as
kernel_tree/extract_header.py): no C is parsed here by hand. Only the
diff's hunk headers and line markers are read, which is the diff format.

Exit status: 0 listed (possibly nothing); 1 the patch or a file could not be
read.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extract_header as eh  # noqa: E402  (one libclang setup for both)
import clang.cindex as ci  # noqa: E402

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def changed_lines(patch_text):
    """{path: [(line, kind)]} on the new side of each file's hunks."""
    out, path, new = {}, None, 0
    pending_delete = False
    for line in patch_text.splitlines():
        if line.startswith("+++ "):
            name = line[4:].split("\t")[0].strip()
            path = None if name == "/dev/null" else name.split("/", 1)[1] if "/" in name else name
            continue
        if line.startswith("--- ") or line.startswith("diff ") or line.startswith("index "):
            continue
        m = HUNK.match(line)
        if m:
            new = int(m.group(1))
            pending_delete = False
            continue
        if path is None or not line or line[0] not in " +-\\":
            continue
        if line[0] == "+":
            out.setdefault(path, []).append((new, "added"))
            pending_delete = False
            new += 1
        elif line[0] == "-":
            pending_delete = True
        elif line[0] == " ":
            if pending_delete:
                out.setdefault(path, []).append((new, "deleted"))
                pending_delete = False
            new += 1
    return out


def enclosing(tu, path):
    """[(start, end, name)] of the file's function definitions, then macros."""
    funcs, macros = [], []
    for c in tu.cursor.get_children():
        if not eh.in_file(c, path):
            continue
        if c.kind == ci.CursorKind.FUNCTION_DECL and c.is_definition():
            funcs.append((c.extent.start.line, c.extent.end.line, c.spelling))
        elif c.kind == ci.CursorKind.MACRO_DEFINITION:
            macros.append((c.extent.start.line, c.extent.end.line, c.spelling))
    return funcs, macros


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 1
    try:
        with open(argv[1], encoding="utf-8", errors="replace") as f:
            patch_text = f.read()
    except OSError as e:
        print("kernel-tree: cannot read patch %s: %s" % (argv[1], e), file=sys.stderr)
        return 1
    for rel, lines in sorted(changed_lines(patch_text).items()):
        path = os.path.join(argv[2], rel)
        if not os.path.isfile(path):
            continue
        funcs, macros = enclosing(eh.parse(path), path)
        for line, kind in lines:
            start, end, name = next((d for d in funcs if d[0] <= line <= d[1]), None) or \
                next(((a, b, "macro:" + n) for a, b, n in macros if a <= line <= b), (0, 0, "-"))
            print("%s\t%d\t%s\t%s\t%d\t%d" % (rel, line, kind, name, start, end))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
