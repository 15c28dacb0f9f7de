#!/usr/bin/env bash
# stage2/bench/afl_vs_pct.sh [--seconds=N] [--seeds=N] [--strategies=LIST] [--flags=FLAGS] [MUTANT...]
#
# Time to find a planted stage-2 mutant (stage2/kernel_tree/testdata/
# patches/MUTANT.patch on the current test tree) with tools/explore
# --subject=stage2 and each strategy of LIST (default pct,afl; also
# random, burst), seeds 1..N (default 3), each run bounded by --seconds
# (default 60), FLAGS (e.g. --fwb=off) given to every run; a line per run,
# then a table in Markdown (docs/stage2.md, "AFL++"). The engine's time is
# its own ("N runs in X s"); AFL++'s is from afl-fuzz's start to its first
# crash ("after X s of AFL++"), or 0 s when a seed program violates already.
# Neither counts the build. Default mutants: revert_age_range,
# mut_free_unlinked_at_once, mut_table_tlbi_level_hint. Not a test: it
# takes minutes, and its figures depend on the machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=60 nseeds=3 mutants=() strategies=pct,afl flags=""
for a in "$@"; do
  case "$a" in
    --seconds=*) seconds=${a#*=} ;;
    --seeds=*) nseeds=${a#*=} ;;
    --strategies=*) strategies=${a#*=} ;;
    --flags=*) flags=${a#*=} ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "afl_vs_pct: unknown flag '$a'" >&2; exit 2 ;;
    *) mutants+=("$a") ;;
  esac
done
[[ ${#mutants[@]} -gt 0 ]] || mutants=(revert_age_range mut_free_unlinked_at_once mut_table_tlbi_level_hint)
kt=stage2/kernel_tree/testdata
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
rows=()
for m in "${mutants[@]}"; do
  [[ -f $kt/patches/$m.patch ]] || { echo "afl_vs_pct: no $kt/patches/$m.patch" >&2; exit 2; }
  for s in $(seq 1 "$nseeds"); do
    cells=()
    for st in ${strategies//,/ }; do
      # shellcheck disable=SC2086  # FLAGS: words
      out=$(tools/explore --subject=stage2 --kernel-tree $kt/current --patch "$kt/patches/$m.patch" --strategy=$st \
              --seconds="$seconds" --seed="$s" --save="$tmp/$m-$st-$s" $flags 2>&1)
      rc=$?
      if [[ $st != afl ]]; then
        t=$(sed -nE 's/.* runs in ([0-9.]+)s:.*/\1/p' <<<"$out" | tail -1)
        kind=$(sed -nE 's/.*"kind": "([a-z_]+)".*/\1/p' <<<"$out" | tail -1)
      else
        t=$(sed -nE 's/^explore: [a-z_]+ violation (after ([0-9.]+) s of AFL\+\+|by the seed .* \((0) s\));.*/\2\3/p' <<<"$out")
        kind=$(sed -nE 's/^explore: ([a-z_]+) violation .*/\1/p' <<<"$out")
      fi
      case $rc in
        1) cell="${t:-?} s ($kind)" ;;
        0) cell="not in ${seconds} s" ;;
        *) cell="error (exit $rc)"; echo "$out" | tail -5 >&2 ;;
      esac
      echo "$m seed $s $st${flags:+ $flags}: $cell"
      cells+=("$cell")
    done
    rows+=("| $m${flags:+ ($flags)} | $s | $(printf '%s | ' "${cells[@]}")")
  done
done
echo
echo "| mutant | seed | ${strategies//,/ | } |"
echo "|---|---|$(printf -- '---|%.0s' ${strategies//,/ })"
printf '%s\n' "${rows[@]}"
