#!/usr/bin/python3
"""tools/lib/check_phase.py JSON...   (the phase's facts in the environment)

One line of tools/check's phases.jsonl: a phase's facts (ROLE, NAME,
CONFIG, PLANNED, TOOK, CPU, WORK, VERDICT, SUMMARY, REPRO, AT, LOG from the
environment) and what it saw, from the JSON summaries its runs wrote
(hammer's --json, the engine's explore --json, or tools/check's own for an
AFL++ run; a summary's "reproduce", when it has one, is the command for
its findings): every distinct finding by signature (kind:op:function), its
count, first time and location, the command or script that reproduces it,
and the known bugs it counted (docs/contract.md, "Which bug").

  {"role", "name", "config", "planned_s", "took_s", "cpu_s", "work",
   "verdict", "summary", "reproduce", "at_s", "log",
   "findings": [{"signature", "kind", "op", "function", "where", "count",
                 "first_s", "summary", "reproduce"}],
   "known": [{"signature", "count"}]}

Prints the line; a JSON file that cannot be read is skipped (the phase's
verdict then says what happened).
"""
import json
import os
import sys


def num(v, cast=float):
    try:
        return cast(v)
    except (TypeError, ValueError):
        return 0


def main(argv):
    e = os.environ
    findings, known = {}, {}
    for path in argv[1:]:
        try:
            d = json.load(open(path))
        except (OSError, ValueError):
            continue
        script = (d.get("first_violation") or {}).get("script") or d.get("script")
        for f in d.get("findings") or []:
            sig = f.get("signature") or "%s:%s:%s" % (f.get("kind"), f.get("op"), f.get("function"))
            have = findings.get(sig)
            repro = (("cd %s && tools/repro %s" % (e.get("WS", "."), script)) if script
                     else d.get("reproduce") or e.get("REPRO", ""))
            if have is None:
                findings[sig] = {"signature": sig, "kind": f.get("kind", ""), "op": f.get("op", ""),
                                 "function": f.get("function", ""), "where": f.get("where", ""),
                                 "count": num(f.get("count"), int), "first_s": num(f.get("first_s")),
                                 "summary": f.get("summary", ""), "reproduce": repro}
            else:
                have["count"] += num(f.get("count"), int)
        for k in d.get("known") or []:
            sig = k.get("signature")
            if sig:
                known[sig] = known.get(sig, 0) + num(k.get("count"), int)
    rec = {"role": e.get("ROLE", ""), "name": e.get("NAME", ""), "config": e.get("CONFIG", ""),
           "planned_s": num(e.get("PLANNED")), "took_s": num(e.get("TOOK")), "cpu_s": num(e.get("CPU")),
           "work": e.get("WORK", ""), "verdict": e.get("VERDICT", ""), "summary": e.get("SUMMARY", ""),
           "reproduce": e.get("REPRO", ""), "at_s": num(e.get("AT")), "log": e.get("LOG", ""),
           "findings": list(findings.values()),
           "known": [{"signature": s, "count": c} for s, c in known.items()]}
    print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
