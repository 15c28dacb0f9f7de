#!/usr/bin/python3
"""tools/lib/check_report.py DIR

tools/check's evidence report. Reads what the run left in DIR (meta.json:
the subject, the patch, the tool, the times; phases.tsv: one line per phase;
coverage/coverage.json: tools/lib/coverage.py's figures; aging.txt:
tools/aging --compare's table) and writes DIR/report.md (to paste under a
patch's --- line) and DIR/report.json (the same facts), prints the report,
and exits with tools/check's status:

  0   clean, and every changed line of the patch ran
  1   a finding
  2   a phase could not run (its error is in the report)
  3   clean, but some changed lines never ran (listed)
  4   incomplete: a phase did less than its minimum work (NOTHING RAN
      when no phase did its minimum)
  130 interrupted (Ctrl-C) before the end, nothing found in what ran
  143 terminated (SIGTERM) before the end, nothing found in what ran
"""
import json
import os
import sys

PHASE_FIELDS = ["name", "config", "planned_s", "took_s", "work", "verdict", "kind", "summary", "reproduce", "at_s"]


def num(text):
    """'1234567 reads' -> '1,234,567 reads' (each plain integer in the text)."""
    out = []
    for word in str(text).split(" "):
        out.append("{:,}".format(int(word)) if word.isdigit() else word)
    return " ".join(out)


def ranges(lines):
    """[3, 4, 5, 9] -> '3-5, 9'"""
    out, start, prev = [], None, None
    for ln in sorted(lines):
        if start is None:
            start = prev = ln
        elif ln == prev + 1:
            prev = ln
        else:
            out.append(str(start) if start == prev else "%d-%d" % (start, prev))
            start = prev = ln
    if start is not None:
        out.append(str(start) if start == prev else "%d-%d" % (start, prev))
    return out


SHORT = {"arch/arm64/mm/contpte.c": "contpte.c", "arch/arm64/include/asm/pgtable.h": "asm/pgtable.h"}


def short(path):
    return SHORT.get(path, path)


def load(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    phases = []
    with open(os.path.join(d, "phases.tsv"), encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            parts += [""] * (len(PHASE_FIELDS) - len(parts))
            p = dict(zip(PHASE_FIELDS, parts))
            p["planned_s"] = float(p["planned_s"] or 0)
            p["took_s"] = float(p["took_s"] or 0)
            p["at_s"] = float(p["at_s"] or 0)
            phases.append(p)
    cov = None
    cpath = os.path.join(d, "coverage", "coverage.json")
    if os.path.exists(cpath):
        cov = json.load(open(cpath))
    aging = None
    apath = os.path.join(d, "aging.txt")
    if os.path.exists(apath):
        aging = open(apath).read().rstrip("\n")
    not_replayed = []
    npath = os.path.join(d, "not-replayed.tsv")
    if os.path.exists(npath):
        for line in open(npath, encoding="utf-8", errors="replace"):
            phase, _, what = line.rstrip("\n").partition("\t")
            not_replayed.append({"phase": phase, "what": what})
    return meta, phases, cov, aging, not_replayed


def patch_figures(cov):
    """(changed lines with code, those that ran, [never-ran entries], [half-taken branch entries])"""
    if not cov or not cov.get("patch"):
        return 0, 0, [], []
    code = [p for p in cov["patch"] if not p["built"] or p["count"] is not None]
    never = [p for p in code if not p["built"] or p["count"] == 0]
    half = [p for p in cov["patch"] if p["branches"] and any(not c for c in p["branches"])]
    return len(code), len(code) - len(never), never, half


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    d = argv[1]
    meta, phases, cov, aging, not_replayed = load(d)
    if meta["file"]:
        SHORT["plugin.c"] = os.path.basename(meta["file"])   # the copy built is the user's file
    findings = [p for p in phases if p["verdict"] == "finding"]
    errors = [p for p in phases if p["verdict"] == "error"]
    checking = [p for p in phases if p["name"] != "aging"]
    # a phase that did not do its minimum work (starved) or did not run
    # at all (skipped for want of time or of afl-fuzz) leaves the run
    # incomplete; --fail-fast's and a signal's skips do not
    starved = [p for p in checking if p["verdict"] == "starved" or
             (p["verdict"] == "skipped" and not p["summary"].startswith("--fail-fast")
              and "before it started" not in p["summary"])]
    ran = [p for p in checking if p["verdict"] in ("clean", "finding")]
    ncode, nran, never, half = patch_figures(cov)

    def plural(n, word):
        return "%d %s%s" % (n, word, "" if n == 1 else "S")

    if findings:
        status, headline = 1, plural(len(findings), "FINDING")
    elif errors:
        status, headline = 2, "INCOMPLETE: %d phase%s could not run" % (len(errors), "" if len(errors) == 1 else "s")
    elif meta["interrupted"]:
        status = 143 if meta["interrupted"] == "TERM" else 130
        headline = ("TERMINATED" if status == 143 else "INTERRUPTED") + ": clean in what ran"
    elif starved and not ran:
        status, headline = 4, "NOTHING RAN: no phase did its minimum work"
    elif starved:
        status, headline = 4, "INCOMPLETE: clean in what ran, but %s did less than its minimum work" % (
            ", ".join(p["name"] for p in starved))
    elif meta["patch"] and never:
        status, headline = 3, "CLEAN, BUT %d CHANGED LINE%s NEVER RAN" % (len(never), "" if len(never) == 1 else "S")
    else:
        status, headline = 0, "CLEAN"

    md = ["# contpte check: %s" % headline, ""]
    if meta["subject"] == "kernel_tree":
        if not meta["tree_head"]:
            head = "not a git tree"
        else:
            head = "git HEAD %s%s%s" % (
                meta["tree_head"][:12],
                "" if not meta.get("tree_git_top")
                or os.path.realpath(meta["tree_git_top"]) == os.path.realpath(meta["tree"])
                else " of the repository at `%s`" % meta.get("tree_git_top", ""),
                ", the built files modified since" if meta.get("tree_files_modified") else "")
        md.append("- Tree: `%s` (%s)" % (meta["tree"], head))
        built = "`arch/arm64/mm/contpte.c` sha256 %s" % meta["contpte_sha256"][:16]
        if meta["header"]:
            built += "; `arch/arm64/include/asm/pgtable.h` sha256 %s" % meta["header_sha256"][:16]
        else:
            built += "; no asm/pgtable.h in the tree: the wrappers are the project's"
        md.append("- Built: " + built)
    else:
        md.append("- Plug-in file: `%s` sha256 %s" % (meta["file"], meta["contpte_sha256"][:16]))
    skipped = []
    if meta["patch"]:
        series = meta.get("patch_series") or []
        if len(series) <= 1:
            subj = series[0]["subject"] if series else ""
            md.append("- Patch: `%s` sha256 %s%s" % (meta["patch"], meta["patch_sha256"][:16],
                                                      (', "%s"' % subj) if subj else ""))
        else:
            md.append("- Patch: `%s` sha256 %s, a series of %d patches applied in order:" % (
                meta["patch"], meta["patch_sha256"][:16], len(series)))
            for p in series:
                md.append("  %d. \"%s\"" % (p["n"], p["subject"] or "(no subject)"))
        for p in series:
            for f in p["skipped"]:
                skipped.append(dict(f, patch=p["n"]))
    md.append("- Harness: %s, `%s`" % (meta["tool_version"] or "unknown version", meta["command"]))
    md.append("- Time: %d s of checking (the budget: %d s); the build took %.0f s more, not charged to the budget" % (
        meta["elapsed_s"], meta["budget_s"], meta["build_s"]))
    if skipped:
        by = {}
        for f in skipped:
            by.setdefault(f["path"], []).append(f)
        md.append("- Not checked (the harness builds only %s): %s" % (
            "contpte.c and asm/pgtable.h" if meta.get("header") else "contpte.c",
            "; ".join("`%s`, %d hunk%s%s" % (
                path, sum(f["hunks"] for f in fs), "" if sum(f["hunks"] for f in fs) == 1 else "s",
                (" (patch %s)" % ", ".join(str(f["patch"]) for f in fs)) if len(meta["patch_series"]) > 1 else "")
                for path, fs in by.items())))
    md += ["", "| phase | configuration | time | work | verdict |", "|---|---|---|---|---|"]
    for p in phases:
        verdict = p["verdict"] if p["verdict"] != "finding" else "**%s**" % p["kind"]
        if p["verdict"] == "starved":
            verdict = "**starved**"
        if p["verdict"] in ("skipped", "error", "interrupted", "starved") and p["summary"]:
            verdict += ": " + p["summary"]
        md.append("| %s | %s | %.0f s | %s | %s |" % (p["name"], p["config"], p["took_s"], num(p["work"]), verdict))
    if meta.get("fifth_phase") and any(p["name"] == meta["fifth_phase"] for p in phases):
        md += ["", "%s: %s." % (meta["fifth_phase"], meta["fifth_phase_why"])]

    md.append("")
    if cov:
        parts = []
        for rel in sorted(cov["files"], key=lambda r: (not r.endswith("contpte.c"), r)):
            f = cov["files"][rel]
            what = "%s%s: %d/%d lines, %d/%d branches" % (
                short(rel), " (the parts built)" if rel.endswith("pgtable.h") else "",
                f["lines_run"], f["lines_total"], f["branches_run"], f["branches_total"])
            parts.append(what)
        md.append("Coverage over every phase: " + "; ".join(parts) + " (coverage/index.html).")
        if meta["patch"]:
            md.append("")
            counts = [p["count"] for p in cov["patch"] if p["count"]]
            md.append("Patch: %d changed line%s with code, %d ran%s." % (
                ncode, "" if ncode == 1 else "s", nran,
                (" (each at least %s times)" % num(str(min(counts)))) if counts and not never else ""))
            if never:
                by = {}
                for p in never:
                    key = (p["file"], p["function"], p["built"])
                    by.setdefault(key, []).append(p["line"])
                md.append("Changed lines that never ran:")
                for (rel, fn, built), lines in sorted(by.items()):
                    why = "" if built else ": not built (the harness does not run %s)" % fn
                    md.append("- %s:%s in %s%s" % (short(rel), ", ".join(ranges(lines)), fn, why))
            if half:
                md.append("Changed branches not taken both ways:")
                for p in half:
                    md.append("- %s:%d in %s: branch counts %s" % (
                        short(p["file"]), p["line"], p["function"],
                        ", ".join("never" if c is None else num(str(c)) for c in p["branches"])))
        else:
            for rel in sorted(cov["files"]):
                f = cov["files"][rel]
                zero = [int(l) for l, c in f["lines"].items() if c == 0]
                if zero:
                    rs = ranges(zero)
                    md.append("- never ran in %s: lines %s%s" % (
                        short(rel), ", ".join(rs[:12]), " and %d more ranges" % (len(rs) - 12) if len(rs) > 12 else ""))
                half_f = [int(l) for l, b in f["branches"].items() if any(not c for c in b)]
                if half_f:
                    rs = ranges(half_f)
                    md.append("- branches not taken both ways in %s: lines %s%s" % (
                        short(rel), ", ".join(rs[:12]), " and %d more ranges" % (len(rs) - 12) if len(rs) > 12 else ""))
    else:
        md.append("Coverage: none recorded (logs/coverage.log).")

    if findings:
        md += ["", "## Findings", ""]
        for i, p in enumerate(findings, 1):
            summary = p["summary"]
            if summary.startswith(p["kind"] + ": "):
                summary = summary[len(p["kind"]) + 2:]
            md.append("%d. **%s** in %s, %.0f s after the start: %s" % (i, p["kind"], p["name"], p["at_s"], summary))
            md.append("   reproduce: `%s`" % p["reproduce"])
    if not_replayed:
        md += ["", "## Did not replay (not findings)", ""]
        md.append("AFL++ reported these inputs as crashes, but run outside AFL++ they do not "
                  "violate anything; they are kept for a look, and change no verdict:")
        for n in not_replayed:
            md.append("- %s: %s" % (n["phase"], n["what"]))
    if aging:
        md += ["", "## Aging (the patch changes the young path)", "", "```", aging, "```"]
    md.append("")
    text = "\n".join(md)
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write(text)
    report = dict(meta)
    report.update({"status": status, "headline": headline, "phases": phases,
                   "findings": findings,
                   "coverage": {k: {kk: v for kk, v in f.items() if kk not in ("lines", "branches")}
                                for k, f in (cov or {}).get("files", {}).items()},
                   "patch_lines": (cov or {}).get("patch", []),
                   "patch_lines_never_ran": never, "patch_branches_half_taken": half,
                   "patch_hunks_skipped": skipped, "not_replayed": not_replayed,
                   "phases_short": [p["name"] for p in starved],
                   "aging": aging})
    with open(os.path.join(d, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(text)
    print("tools/check: report in %s/report.md (and report.json, coverage/index.html, logs/, findings/)" % d, file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
