#!/usr/bin/env bash
# stage2/bench/aging_modes.sh [--seconds=S] [--engine-seconds=S] - the
# stage-2 subject's bench (docs/stage2.md, "The bench"), on the model:
# `bazel run //stage2/bench:aging_modes [-- --seconds=10]`.
#
# For each aging lock mode (write: mainline's mmu_lock for write; read:
# the relaxed proposal; none: RCU read side only):
#   1. throughput and accuracy with the lockless-aging change (mainline's
#      code is not safe to measure without the lock: it stops at its first
#      violation): aging calls per second, guest faults per second and
#      their latency (the lock wait included) while aging runs, against a
#      run with no ager; how often aging missed an access (said old of a
#      page accessed since the last call with nothing racing) or invented
#      one (said young of a page nobody accessed), per 1000 of each;
#   2. the safety verdict of the mode on mainline's own code (the newest
#      test tree) under stress (the first violation and how long it took),
#      and on the engine, where the finding is saved as a script that
#      replays it; then the same for the lockless-aging change.
# A bench, not a test: it prints figures. Stress figures depend on the
# machine (two cores here); the engine's do not.
set -uo pipefail
secs=5 esecs=30
for a in "$@"; do
  case "$a" in
    --seconds=*) secs=${a#*=} ;;
    --engine-seconds=*) esecs=${a#*=} ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "aging_modes: unknown argument '$a'" >&2; exit 2 ;;
  esac
done

# the drivers: beside this script in the runfiles (bazel run / test)
top=""
for d in "${RUNFILES_DIR:-}/contpte_harness" "$0.runfiles/contpte_harness" "$PWD"; do
  [[ -x "$d/stage2/kernel_tree/hammer_current_4k" ]] && { top=$d; break; }
done
[[ -n "$top" ]] || { echo "aging_modes: run it with bazel run //stage2/bench:aging_modes" >&2; exit 2; }
kt=$top/stage2/kernel_tree
out=$(mktemp -d) || exit 2
trap 'rm -rf "$out"' EXIT
save=${BUILD_WORKING_DIRECTORY:-$PWD}/stage2-bench-findings
[[ -n "${TEST_TMPDIR:-}" ]] && save=$TEST_TMPDIR/findings

run() {         # run NAME BINARY ARGS...: the hammer's JSON line in $out/NAME.json
  local name=$1 bin=$2
  shift 2
  "$bin" --no-progress --seed=7 "$@" >"$out/$name.json" 2>"$out/$name.log"
}

echo "stage-2 aging bench: ${secs}s per stress run, granule 4k, 2 vCPUs with hardware AF, a faulter, an exclusive thread"
echo
echo "1. The lockless-aging change (aging a shared walk; unmap frees emptied tables after a grace period):"
# no injected pauses here (--delay=off): they widen race windows for the
# verdicts, and would be counted as the walkers' own time
run noager "$kt/hammer_lockless_aging_4k" --seconds="$secs" --no-ager --delay=off
for m in write read none; do
  run "lockless_$m" "$kt/hammer_lockless_aging_4k" --seconds="$secs" --age-lock=$m --delay=off
done
/usr/bin/python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def load(n):
    with open("%s/%s.json" % (out, n)) as f:
        return json.loads(f.read().strip().splitlines()[-1])
rows = [("no ager", load("noager"))] + [("mmu_lock " + m if m != "none" else "no lock (RCU)", load("lockless_" + m))
                                        for m in ("write", "read", "none")]
print("  %-15s %9s %11s %9s %8s %7s %8s %8s %6s %9s  %s" % ("aging", "ages/s", "ages/cpu-s", "faults/s", "mean us",
      "p50 us", "p99 us", "missed", "quiet", "invented", "verdict"))
for name, d in rows:
    a, s = d["aging"], d["seconds"] or 1
    fl = d.get("fault_ns", {})
    per = lambda x, n: "%.2f/1k" % (1000.0 * x / n) if n else "-"
    cpu = d.get("ager_cpu_s", 0)
    print("  %-15s %9.0f %11s %9.0f %8.1f %7.1f %8.1f %8s %6s %9s  %s" % (
        name, a["calls"] / s, "%.0f" % (a["calls"] / cpu) if cpu else "-", d.get("faults", 0) / s,
        fl.get("mean", 0) / 1e3, fl.get("p50", 0) / 1e3,
        fl.get("p99", 0) / 1e3, per(a["missed"], a["definite_young"]), str(a["quiescent_missed"]),
        per(a["invented"], a["definite_old"]), d["result"] if d["result"] == "clean" else d["kind"]))
print("  (ages/s depends on what else the two cores run: the ager holding mmu_lock for write keeps the")
print("   faulting threads waiting, so it has a core to itself; ages/cpu-s is per second of the ager's own CPU;")
print("   fault latency includes the wait for mmu_lock)")
print("  (missed: of the pages accessed since the last call, with nothing racing; quiet: such misses with no")
print("   fault, unmap or other ager on the unit at all, which would be a finding; invented: of the pages")
print("   nobody accessed; p50/p99 are the upper bounds of their power-of-two bucket)")
PY
echo
echo "2. The safety verdict of each mode:"
printf '  %-44s %-9s %-18s %s\n' "code, aging" "where" "verdict" "first found"
verdict() {     # verdict LABEL NAME: the stress run's line
  /usr/bin/python3 - "$out/$2.json" "$1" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print("  %-44s %-9s %-18s %s" % (sys.argv[2], "stress", d["kind"] if d["result"] != "clean" else "clean",
      ("%.2fs" % d["seconds"]) if d["result"] != "clean" else "(%.0fs clean)" % d["seconds"]))
PY
}
engine() {      # engine LABEL BINARY ARGS...
  local label=$1 bin=$2 line
  shift 2
  line=$("$bin" explore --strategy=burst --seconds="$esecs" --save="$save" "$@" 2>"$out/engine.log" | tail -1)
  /usr/bin/python3 - "$line" "$label" "$(grep -o 'saved: [^ ]*' "$out/engine.log" | head -1 | cut -c8-)" \
    "$(grep -o 'runs in [0-9.]*s' "$out/engine.log" | tail -1)" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
print("  %-44s %-9s %-18s %s" % (sys.argv[2], "engine", d["kind"] if d["violations"] else "clean",
      ("script " + sys.argv[3]) if d["violations"] else "(%d runs, %s)" % (d["runs"], sys.argv[4].replace("runs in ", ""))))
PY
}
for m in write read none; do
  label="mainline, $([[ $m = none ]] && echo "no lock (RCU)" || echo "mmu_lock $m")"
  run "mainline_$m" "$kt/hammer_current_4k" --seconds="$secs" --age-lock=$m
  verdict "$label" "mainline_$m"
  engine "$label" "$kt/engine_current_4k" --age-lock=$m
done
for m in read none; do
  label="lockless change, $([[ $m = none ]] && echo "no lock (RCU)" || echo "mmu_lock $m")"
  verdict "$label" "lockless_$m"
  engine "$label" "$kt/engine_lockless_aging_4k" --age-lock=$m
done
echo "  (a saved script replays its violation: tools/repro FILE --subject=stage2 --kernel-tree ... or the"
echo "   engine binary's replay FILE; mainline's aging is an exclusive walk: plain stores, and its unmap frees"
echo "   emptied tables at once, so without the lock it stores over shared walkers' updates and reads freed"
echo "   tables; the lockless change makes aging a shared walk and defers those frees past a grace period)"
