#!/usr/bin/python3
"""tools/lib/coverage_html.py COVERAGE.json SRCDIR OUTDIR [NAME=SHOWN ...]

tools/check's coverage page: OUTDIR/index.html (a table of the subject's
files with the figures report.md gives) and one page per file with its
source, each line's count and each branch's counts, read from
COVERAGE.json (tools/lib/coverage.py's output: every phase's counts, on
the user's own lines, the header's pieces already mapped back to the
header's lines). SRCDIR holds the files as built (the tree's files with
the patch applied) under the same relative paths as COVERAGE.json's keys.
NAME=SHOWN renames a file for display (plugin.c=my_reader.c).

A line with no count is not code the build made (a comment, a
declaration, or, in asm/pgtable.h, a part the harness does not build).
"""
import html
import json
import os
import sys

STYLE = """
body { font-family: sans-serif; margin: 1.5em; }
table.files { border-collapse: collapse; }
table.files td, table.files th { border: 1px solid #bbb; padding: 0.3em 0.8em; text-align: right; }
table.files td:first-child, table.files th:first-child { text-align: left; }
table.src { border-collapse: collapse; font-family: monospace; font-size: 0.9em; }
table.src td { padding: 0 0.6em; white-space: pre; vertical-align: top; }
td.ln, td.count { text-align: right; color: #555; }
tr.run td.count { background: #d8f0d8; }
tr.never td.count, tr.never td.code { background: #f6d0d0; }
tr.half td.br { background: #f8ecc0; }
td.br { color: #555; }
"""


def pct(a, b):
    return "%.1f%%" % (100.0 * a / b) if b else "-"


def page_name(rel):
    return rel.replace("/", "_") + ".html"


def file_page(rel, shown, entry, src_path, figures):
    try:
        with open(src_path, encoding="utf-8", errors="replace") as f:
            source = f.read().splitlines()
    except OSError as e:
        source = None
        missing = "the source as built could not be read (%s)" % e.strerror
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s: coverage</title>" % html.escape(shown),
           "<style>%s</style></head><body>" % STYLE,
           "<p><a href='index.html'>all files</a></p>",
           "<h1>%s</h1>" % html.escape(shown), "<p>%s</p>" % figures]
    if source is None:
        out.append("<p>%s</p></body></html>" % html.escape(missing))
        return "\n".join(out)
    lines = entry["lines"]
    branches = entry["branches"]
    out.append("<table class='src'>")
    for n, text in enumerate(source, 1):
        count = lines.get(str(n))
        br = branches.get(str(n))
        cls = []
        if count is not None:
            cls.append("run" if count > 0 else "never")
        if br and any(not c for c in br):
            cls.append("half")
        brtext = ""
        if br:
            brtext = " ".join("-" if c is None else "{:,}".format(c) for c in br)
        out.append("<tr id='L%d' class='%s'><td class='ln'>%d</td><td class='count'>%s</td>"
                   "<td class='br'>%s</td><td class='code'>%s</td></tr>" % (
                       n, " ".join(cls), n, "" if count is None else "{:,}".format(count),
                       html.escape(brtext), html.escape(text)))
    out.append("</table></body></html>")
    return "\n".join(out)


def main(argv):
    if len(argv) < 4:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    cov_path, srcdir, outdir = argv[1:4]
    shown_as = dict(a.split("=", 1) for a in argv[4:])
    cov = json.load(open(cov_path))
    os.makedirs(outdir, exist_ok=True)
    rows = []
    for rel in sorted(cov["files"], key=lambda r: (r.endswith("pgtable.h"), r)):
        e = cov["files"][rel]
        shown = shown_as.get(rel, rel)
        part = " (the parts built)" if rel.endswith("pgtable.h") else ""
        figures = "%d/%d lines, %d/%d branches%s, over every phase" % (
            e["lines_run"], e["lines_total"], e["branches_run"], e["branches_total"], part)
        with open(os.path.join(outdir, page_name(rel)), "w", encoding="utf-8") as f:
            f.write(file_page(rel, shown, e, os.path.join(srcdir, rel), figures))
        rows.append("<tr><td><a href='%s'>%s</a>%s</td><td>%d/%d</td><td>%s</td><td>%d/%d</td><td>%s</td></tr>" % (
            page_name(rel), html.escape(shown), part, e["lines_run"], e["lines_total"],
            pct(e["lines_run"], e["lines_total"]), e["branches_run"], e["branches_total"],
            pct(e["branches_run"], e["branches_total"])))
    index = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>subject coverage</title>",
             "<style>%s</style></head><body>" % STYLE,
             "<h1>Coverage of the subject, over every phase</h1>",
             "<table class='files'><tr><th>file</th><th>lines</th><th></th><th>branches</th><th></th></tr>"]
    index += rows or ["<tr><td colspan='5'>no file of the subject was recorded</td></tr>"]
    index.append("</table><p>Every phase counts: stress at each granule, the engine, the AFL++ "
                 "queue replayed (how binaries are combined: docs/check.md, 'Coverage of the "
                 "subject'). A line without a count is not code the build made.</p></body></html>")
    with open(os.path.join(outdir, "index.html"), "w", encoding="utf-8") as f:
        f.write("\n".join(index))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
