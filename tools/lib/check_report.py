#!/usr/bin/python3
"""tools/lib/check_report.py DIR

tools/check's evidence report. Reads what the run left in DIR (meta.json:
the subject, the patch, the tool, the times; phases.jsonl: one line per
phase and run (tools/lib/check_phase.py), the run without the patch
(role "base") beside the run with it ("patched"), or the tree's alone
("tree"); known-base.txt: the signatures of the tree's own bugs;
coverage/coverage.json: tools/lib/coverage.py's figures; aging.txt:
tools/aging --compare's table) and writes DIR/report.md (to paste under a
patch's --- line) and DIR/report.json (the same facts), prints the report,
and exits with tools/check's status:

Findings are grouped by signature over every phase (one bug, the phases
that saw it) and, with a patch, sorted: introduced by the patch, present
without it (the tree's own, with the upstream fix it lacks when
kernel_tree/known_bugs.tsv knows it), gone with it.

  0   clean (with a patch: it introduces no finding), and every changed
      line of the patch ran
  1   a finding (with a patch: one it introduces)
  2   a phase could not run (its error is in the report)
  3   clean, but some changed lines never ran (listed)
  4   incomplete: a phase did less than its minimum work (NOTHING RAN
      when no phase did its minimum)
  130 interrupted (Ctrl-C) before the end, nothing found in what ran
  143 terminated (SIGTERM) before the end, nothing found in what ran
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import known_bugs  # noqa: E402  (the one home of the known real bugs)


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


SHORT = {"arch/arm64/mm/contpte.c": "contpte.c", "arch/arm64/include/asm/pgtable.h": "asm/pgtable.h",
         "arch/arm64/kvm/hyp/pgtable.c": "kvm/hyp/pgtable.c", "arch/arm64/include/asm/kvm_pgtable.h": "asm/kvm_pgtable.h",
         "arch/arm64/include/asm/stage2_pgtable.h": "asm/stage2_pgtable.h"}


def short(path):
    return SHORT.get(path, path)


def load(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    phases = []
    with open(os.path.join(d, "phases.jsonl"), encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.strip():
                phases.append(json.loads(line))
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


def run_name(p):
    return p["name"] + (" (without the patch)" if p["role"] == "base" else "")


def group(d, phases, roles):
    """{signature: finding} over the phases of these roles: the first one's
    facts, the phases that saw it, its count, and the upstream fix it is
    known by (its condition read in the phases' logs)."""
    out = {}
    for p in phases:
        if p["role"] not in roles:
            continue
        for f in p["findings"]:
            g = out.get(f["signature"])
            if g is None:
                g = out[f["signature"]] = dict(f, phases=[], at_s=p["at_s"], first_phase=run_name(p), count=0)
            g["phases"].append(run_name(p))
            g["count"] += f["count"]
    for sig, g in out.items():
        text = ""
        for p in phases:
            if run_name(p) in g["phases"] and p.get("log"):
                try:
                    text += open(os.path.join(d, p["log"]), errors="replace").read()
                except OSError:
                    pass
        g["fix"] = known_bugs.fix_for(sig, text)
    return out


def known_counts(phases, roles):
    """{signature: times the phases of these roles counted it as known}"""
    out = {}
    for p in phases:
        if p["role"] in roles:
            for k in p.get("known", []):
                out[k["signature"]] = out.get(k["signature"], 0) + k["count"]
    return out


def startup_facts(d, phases, role):
    """What the subject's build said at start-up, from the first phase of
    the run that gives the verdict: {"not_driven": {name: (file, why)},
    "caps": "...", "prefixes": "..."} (kernel_tree/report.c's lines)."""
    out = {"not_driven": {}, "caps": "", "prefixes": ""}
    for p in phases:
        if p["role"] != role or not p.get("log") or not p["name"].startswith("stress"):
            continue
        try:
            text = open(os.path.join(d, p["log"]), errors="replace").read()
        except OSError:
            continue
        for line in text.splitlines():
            m = re.match(r"^kernel-tree: not driven: (\S+): (.*?) -- (.*)$", line)
            if m:
                for name in m.group(2).split():
                    out["not_driven"][name] = (m.group(1), m.group(3))
            m = re.match(r"^(?:kernel-tree|hammer): capability probes the harness does not model \(false unless --cap NAME=1\): (.*)$", line)
            if m:
                out["caps"] = m.group(1)
            m = re.match(r"^kernel-tree: kernel headers included under another prefix, [^:]*: (.*)$", line)
            if m:
                out["prefixes"] = m.group(1)
        break
    return out


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
    with_patch = bool(meta["patch"])
    main_role = "patched" if with_patch else "tree"
    tree_own = set(meta.get("tree_own_signatures") or [])
    # every bug once, with the phases that saw it; with a patch, sorted
    seen_main = group(d, phases, (main_role,))
    seen_base = group(d, phases, ("base",))
    if with_patch:
        introduced = [g for sig, g in seen_main.items() if sig not in tree_own]
        # the tree's own: seen without the patch (or confirmed there),
        # with how often the run with the patch met them
        with_counts = known_counts(phases, (main_role,))
        complete = all(p["verdict"] not in ("skipped", "interrupted") for p in phases
                       if p["role"] == main_role and p["name"] != "aging")
        present, gone = [], []
        for sig in sorted(tree_own):
            g = seen_base.get(sig) or seen_main.get(sig)
            if g is None:
                continue
            g = dict(g, with_patch=with_counts.get(sig, 0) + (seen_main[sig]["count"] if sig in seen_main else 0))
            if g["fix"] is None and sig in seen_main:
                g["fix"] = seen_main[sig].get("fix")
            # gone: never met with the patch in the same phases, all of
            # which ran to their end (not after --fail-fast or a signal)
            (present if g["with_patch"] or not complete else gone).append(g)
    else:
        introduced, present, gone = list(seen_main.values()), [], []
    introduced.sort(key=lambda g: g["at_s"])
    errors = [p for p in phases if p["verdict"] == "error"]
    # a phase of the run that gives the verdict (the patched tree's, or the
    # tree's) that did not do its minimum work (starved) or did not run at
    # all (skipped for want of time or of afl-fuzz) leaves the run
    # incomplete; --fail-fast's and a signal's skips do not. The run
    # without the patch only sorts the findings (each finding of the
    # patched tree is also looked for without the patch before it counts
    # as introduced), so its own short phases are shown, not counted.
    checking = [p for p in phases if p["name"] != "aging" and p["role"] == main_role]
    starved = [p for p in checking if p["verdict"] == "starved" or
               (p["verdict"] == "skipped" and not p["summary"].startswith(("--fail-fast", "--cap"))
                and "before it started" not in p["summary"])]
    ran = [p for p in checking if p["verdict"] in ("clean", "finding")]
    ncode, nran, never, half = patch_figures(cov)
    facts = startup_facts(d, phases, main_role)
    for p in never:
        if p["function"] in facts["not_driven"]:
            p["not_driven"] = facts["not_driven"][p["function"]][1]
    macros = sorted({(p["file"], p["function"]) for p in (cov or {}).get("patch", []) if p.get("macro")})

    def plural(n, word):
        return "%d %s%s" % (n, word, "" if n == 1 else "S")

    if introduced:
        status = 1
        headline = plural(len(introduced), "FINDING") + (" INTRODUCED BY THE PATCH" if with_patch else "")
    elif errors:
        status, headline = 2, "INCOMPLETE: %d phase%s could not run" % (len(errors), "" if len(errors) == 1 else "s")
    elif meta["interrupted"]:
        status = 143 if meta["interrupted"] == "TERM" else 130
        headline = ("TERMINATED" if status == 143 else "INTERRUPTED") + ": clean in what ran"
    elif starved and not ran:
        status, headline = 4, "NOTHING RAN: no phase did its minimum work"
    elif starved:
        status, headline = 4, "INCOMPLETE: clean in what ran, but %s did less than its minimum work" % (
            ", ".join(run_name(p) for p in starved))
    elif with_patch and never:
        status, headline = 3, "CLEAN, BUT %d CHANGED LINE%s NEVER RAN" % (len(never), "" if len(never) == 1 else "S")
        nd = sorted({p["function"] for p in never if p.get("not_driven")})
        if nd:
            headline += " (NOT DRIVEN BY THE HARNESS: %s)" % ", ".join(nd)
    else:
        status, headline = 0, "CLEAN"
    if with_patch and status in (0, 3) and (present or gone):
        headline += ": the patch introduces no finding"
        if gone:
            headline += ", and %d of the tree's own bugs %s gone with it" % (len(gone), "is" if len(gone) == 1 else "are")
        else:
            headline += "; the tree's own bug%s listed" % ("s are" if len(present) > 1 else " is")

    stage2 = meta["subject"] == "stage2"
    md = ["# %s check: %s" % ("stage-2" if stage2 else "contpte", headline), ""]
    if meta["subject"] in ("kernel_tree", "stage2"):
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
    if stage2:
        lock = meta.get("age_lock") or "write"
        md.append("- Built (KVM's stage-2 page tables; aging %s): %s" % (
            "without mmu_lock" if lock == "none" else "with mmu_lock for " + lock,
            "; ".join("`%s` sha256 %s" % (b["path"], b["sha256"][:16]) for b in meta.get("built", []))))
    elif meta["subject"] == "kernel_tree":
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
    if facts["caps"]:
        md.append("- CPU capability probes the harness does not model, taken as false unless `--cap NAME=1`: %s" % facts["caps"])
    if facts["prefixes"]:
        md.append("- Kernel headers included under another prefix, read as the shim's `<linux/...>` and `<asm/...>`: %s" % facts["prefixes"])
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
    t_base = sum(p["took_s"] for p in phases if p["role"] == "base")
    if with_patch:
        md.append("- Runs: the tree without the patch (%.0f s) and with it (%.0f s), the same phases and seeds" % (
            t_base, sum(p["took_s"] for p in phases if p["role"] == main_role)))
    md += ["", "| phase | configuration | time | work | verdict |", "|---|---|---|---|---|"]
    for p in phases:
        verdict = p["verdict"]
        if verdict == "finding":
            sigs = [f["signature"] for f in p["findings"]]
            if p["role"] == "base":
                verdict = "the tree's own: " + ", ".join(sorted(set(x.split(":")[0] for x in sigs)))
            else:
                new_ = sorted(set(x.split(":")[0] for x in sigs if x not in tree_own or not with_patch))
                own = sorted(set(x.split(":")[0] for x in sigs if with_patch and x in tree_own))
                verdict = ", ".join("**%s**" % k for k in new_)
                if own:
                    verdict += ("; " if verdict else "") + "the tree's own: " + ", ".join(own)
        elif verdict == "starved":
            verdict = "**starved**"
        if p["verdict"] in ("skipped", "error", "interrupted", "starved") and p["summary"]:
            verdict += ": " + p["summary"]
        if p["verdict"] == "clean" and with_patch and p["role"] == main_role:
            n = sum(k["count"] for k in p.get("known", []))
            if n:
                verdict += " (the tree's own bugs met %s times, counted)" % num(str(n))
        md.append("| %s | %s | %.0f s | %s | %s |" % (run_name(p), p["config"], p["took_s"], num(p["work"]), verdict))
    if meta.get("fifth_phase") and any(p["name"] == meta["fifth_phase"] for p in phases):
        md += ["", "%s: %s." % (meta["fifth_phase"], meta["fifth_phase_why"])]

    md.append("")
    if cov:
        parts = []
        for rel in sorted(cov["files"], key=lambda r: (not r.endswith(("contpte.c", "kvm/hyp/pgtable.c")), r)):
            f = cov["files"][rel]
            what = "%s%s: %d/%d lines, %d/%d branches" % (
                short(rel), " (the parts built)" if rel.endswith("asm/pgtable.h") else "",
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
                    if fn in facts["not_driven"]:
                        why = ": not driven (the harness does not call %s: %s)" % (fn, facts["not_driven"][fn][1])
                    else:
                        why = "" if built else ": not built (the harness does not run %s)" % fn
                    md.append("- %s:%s in %s%s" % (short(rel), ", ".join(ranges(lines)), fn, why))
            if macros:
                md.append("Changed macro definitions (a macro runs where it is used, and is counted there): %s." % (
                    ", ".join("%s in %s" % (fn, short(rel)) for rel, fn in macros)))
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

    def finding_lines(i, g, extra=""):
        summary = g["summary"]
        if summary.startswith(g["kind"] + ": "):
            summary = summary[len(g["kind"]) + 2:]
        where = (" at %s" % g["where"]) if g.get("where") else ""
        if g["function"] not in ("", "-"):
            in_what = "in `%s`" % g["function"]
        else:   # no function of the user's files: who saw it
            in_what = {"hw": "in a hardware walk", "end": "at the end-of-run checks"}.get(
                g.get("op"), "in the harness's code")
        lines = ["%d. **%s** %s%s (`%s`), seen in %s%s: %s" % (
            i, g["kind"], in_what, where,
            g["signature"], ", ".join(g["phases"]), extra, summary)]
        if g.get("fix"):
            lines.append("   the tree %s" % g["fix"])
        lines.append("   reproduce: `%s`" % g["reproduce"])
        return lines

    if introduced:
        md += ["", "## Introduced by the patch" if with_patch else "## Findings", ""]
        for i, g in enumerate(introduced, 1):
            md += finding_lines(i, g, ", %.0f s into the checking" % g["at_s"])
    if present:
        md += ["", "## Present without the patch (the tree's own)", ""]
        for i, g in enumerate(present, 1):
            md += finding_lines(i, g, ("; with the patch it was met %s times and counted" % num(str(g["with_patch"])))
                                if g["with_patch"] else "; not met with the patch before the run stopped")
    if gone:
        md += ["", "## Gone with the patch", ""]
        md.append("Seen without the patch, never with it in the same phases and seeds: the patch may fix %s." % (
            "it" if len(gone) == 1 else "them"))
        md.append("")
        for i, g in enumerate(gone, 1):
            md += finding_lines(i, g)
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
                   "findings": introduced, "present_without_patch": present, "gone_with_patch": gone,
                   "coverage": {k: {kk: v for kk, v in f.items() if kk not in ("lines", "branches")}
                                for k, f in (cov or {}).get("files", {}).items()},
                   "patch_lines": (cov or {}).get("patch", []),
                   "patch_lines_never_ran": never, "patch_branches_half_taken": half,
                   "patch_hunks_skipped": skipped, "not_replayed": not_replayed,
                   "not_driven": {k: {"file": v[0], "why": v[1]} for k, v in facts["not_driven"].items()},
                   "capability_probes_unmodelled": facts["caps"], "header_prefixes_mapped": facts["prefixes"],
                   "phases_short": [p["name"] for p in starved],
                   "aging": aging})
    with open(os.path.join(d, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(text)
    print("tools/check: report in %s/report.md (and report.json, coverage/index.html, logs/, findings/)" % d, file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
