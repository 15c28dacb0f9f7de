#!/usr/bin/env bash
# fuzz/tools_test.sh FUZZTOOL ENGINE SCRIPT_ASM CRASH_TXT COMMON_SH TRIAGE FLAG_RUN_TXT AFL_LOG SEED.bin...
#
# The crash-file tools on the default build (no AFL):
#   1. fuzztool info: the crash file's outcome and signature with its own
#      variant (phantom_bit, detector "read"); a campaign-style copy (the
#      seed's variant, baseline, in the file) is clean by itself and
#      phantom_bit with --target=no_consistency_check; bad target: exit 2;
#      binary crash files with a stale schedule length still read;
#   2. fuzztool retarget writes a text script with the target's variant and
#      "expect phantom_bit" that the engine replays with --check-expect;
#   3. tools/triage over a directory with two crashes that differ only in
#      padding (an instruction that never runs) and a clean seed: one group
#      of 2, the smaller file as representative, written so that it replays;
#      and a bad directory or target: exit 2;
#   4. seeds_for (tools/lib/common.sh) on a repository-shaped dir with a 4K
#      seed that remaps the whole block and a 16K seed: at 16K the 4K seed
#      is moved (NAME@16k, its range the whole 128-entry block, an arm_
#      copy too) and not taken as written, the 16K seed as it is; at 64K
#      the 4K seed is moved to 0+32 and the 16K one left out (fewer
#      entries: script_asm refuses that move, exit 3); at 4K only the 4K
#      seed; the moved seed runs clean on baseline (fuzztool info); and a
#      seed that does not assemble stops seeds_for (exit 2, the file and
#      the line named) instead of being dropped;
#   5. mutator_env (tools/lib/common.sh): afl-fuzz's queue selection with
#      the custom mutator: no option by default and with FUZZ_QUEUE=weighted
#      (AFL++'s own), -Z with sequential; any other FUZZ_QUEUE stops the
#      tool (exit 2, named), from afl_env_check too (which the tools call
#      before they build anything, and which sets no options itself);
#   6. a campaign's run settings (campaign.conf's runs= and run_flags=,
#      which tools/campaign records at start) decide how tools/triage
#      replays its crash files: FLAG_RUN_TXT violates no_pfn_check only
#      in a flag run, so it reproduces under run_flags=warm and not under 0;
#      an environment that contradicts the campaign stops triage (exit 2,
#      both values named), FUZZ_RUN_FLAGS=1 is the same as warm; a
#      campaign.conf that records run_flags=1 (before the runs' generations
#      had names) replays with pairs and a note, or what the environment
#      says; one from before they were recorded leaves the environment in
#      charge;
#   7. afl_log (tools/lib/common.sh, fuzz/afl_log.c): afl-fuzz's output
#      appended to the log without its per-pick "Fuzzing test case #"
#      lines, everything else kept in order, a last line without its
#      newline too, and an overlong line (100 KB) whole; with a log it
#      cannot write (/dev/full) it still reads to the end, so the writer
#      is not cut off (no SIGPIPE) and the pipeline succeeds; SIGHUP does
#      not stop it; started in the background (as tools/campaign starts
#      it) it holds none of the caller's output open, so `tools/campaign
#      start | tee` ends; if the filter is killed half way, the rest is
#      still drained (stdin left blocking for the shell's cat: the writer,
#      pausing, is not cut off); the binary alone: a usage error exits 2;
#   8. afl_stat (tools/lib/common.sh) reads one field of a fuzzer_stats
#      file as afl-fuzz writes it (name padded to a column, " : "), not a
#      field whose name ends the same way; nothing for a missing field or
#      file.
set -u
FUZZTOOL=$1 ENGINE=$2 ASM=$3 CRASH=$4 COMMON=$5 TRIAGE=$6 FLAGRUN=$7 AFL_LOG_BIN=$8
export AFL_LOG_BIN
shift 8
SEEDS=("$@")
TMP=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# 1
line=$("$FUZZTOOL" info "$CRASH")
rc=$?
IFS=$'\t' read -r _ outcome sig _ <<<"$line"
[ $rc -eq 0 ] && [ "$outcome" = phantom_bit ] && ok "info: $line" || fail "info: rc $rc, '$line'"
[ "$sig" = "phantom_bit|no_consistency_check|4k|read" ] && ok "signature $sig" || fail "signature '$sig'"
sed 's/^variant .*/variant baseline/' "$CRASH" > "$TMP/as_seed.txt"
"$ASM" "$TMP/as_seed.txt" "$TMP/as_seed.bin" || fail "script_asm"
line=$("$FUZZTOOL" info "$TMP/as_seed.bin"); rc=$?
[ $rc -eq 1 ] && [[ $line == *$'\t'clean$'\t'* ]] && ok "own variant (baseline): clean, exit 1" || fail "own variant: rc $rc '$line'"
line=$("$FUZZTOOL" info --target=no_consistency_check:4k "$TMP/as_seed.bin"); rc=$?
IFS=$'\t' read -r _ _ sig2 _ <<<"$line"
[ $rc -eq 0 ] && [ "$sig2" = "$sig" ] && ok "--target: same signature" || fail "--target: rc $rc '$line'"
"$FUZZTOOL" info --target=nosuch "$TMP/as_seed.bin" >/dev/null 2>&1
[ $? -eq 2 ] && ok "bad target: exit 2" || fail "bad target not exit 2"
"$FUZZTOOL" info --target=baseline:8k "$TMP/as_seed.bin" >/dev/null 2>&1
[ $? -eq 2 ] && ok "bad granule: exit 2" || fail "bad granule not exit 2"

# 1b: crash files are read as the harness reads them (engine/script.h, script_walk lenient):
# schedule bytes appended past the length field, or the file cut inside
# the schedule, still read (the engine's strict decoder rejects both)
cp "$TMP/as_seed.bin" "$TMP/longer.bin"; printf '\x00\x01\x02' >> "$TMP/longer.bin"
head -c -5 "$TMP/as_seed.bin" > "$TMP/shorter.bin"
for f in longer shorter; do
  "$ENGINE" replay "$TMP/$f.bin" >/dev/null 2>&1
  [ $? -eq 2 ] || fail "engine replay accepts the non-canonical $f.bin?"
  line=$("$FUZZTOOL" info --target=no_consistency_check "$TMP/$f.bin"); rc=$?
  [ $rc -le 1 ] && [[ $line != *rejected* ]] && ok "lenient read of $f.bin: $(cut -f2 <<<"$line")" || fail "$f.bin: rc $rc '$line'"
done

# 2
out=$("$FUZZTOOL" retarget --target=no_consistency_check "$TMP/as_seed.bin" -o "$TMP/re.txt")
[ "$out" = phantom_bit ] && ok "retarget prints phantom_bit" || fail "retarget printed '$out'"
grep -q '^variant no_consistency_check$' "$TMP/re.txt" && grep -q '^expect phantom_bit$' "$TMP/re.txt" \
  && ok "retarget: variant and expect" || fail "retarget output: $(head -8 "$TMP/re.txt")"
"$ENGINE" replay --check-expect --quiet "$TMP/re.txt" && ok "retargeted script replays" || fail "replay --check-expect"

# 3: a tools dir shaped like the repository's (triage sources lib/common.sh)
mkdir -p "$TMP/tools/lib" "$TMP/bin" "$TMP/crashes"
cp "$COMMON" "$TMP/tools/lib/common.sh"; cp "$TRIAGE" "$TMP/tools/triage"
for b in "$FUZZTOOL" "$ENGINE" "$ASM"; do ln -sf "$(cd "$(dirname "$b")" && pwd)/$(basename "$b")" "$TMP/bin/"; done
cp "$TMP/as_seed.bin" "$TMP/crashes/id:000000,sig:06,src:000001,op:havoc"
# padding: a fourth read in thread 0 after the detecting one (never runs)
awk '{print} /^thread 0$/ {t=1} t && /^  read 0 1$/ {print "  read 0 7"; t=0}' "$TMP/as_seed.txt" > "$TMP/padded.txt"
"$ASM" "$TMP/padded.txt" "$TMP/crashes/id:000001,sig:06,src:000002,op:havoc" || fail "script_asm padded"
cp "${SEEDS[0]}" "$TMP/crashes/id:000002,sig:06,src:000000,op:flip1"
(cd "$TMP" && FUZZ_BIN_DIR=$TMP/bin tools/triage "$TMP" --target=no_consistency_check:4k -o "$TMP/tri") >"$TMP/tri.log" 2>&1
rc=$?
cat "$TMP/tri.log"
[ $rc -eq 0 ] && ok "triage exit 0" || fail "triage rc $rc"
grep -q '2 reproduce a violation, 1 do not' "$TMP/tri.log" && ok "triage counts" || fail "triage counts"
grep -q '^2 .*phantom_bit|no_consistency_check|4k|read .*id:000000' "$TMP/tri.log" \
  && ok "one group of 2, the smaller file" || fail "group line"
grep -q '1 group(s)' "$TMP/tri.log" && ok "1 group" || fail "group count"
rep=$(ls "$TMP"/tri/*.txt 2>/dev/null | head -1)
[ -n "$rep" ] && "$ENGINE" replay --check-expect --quiet "$rep" && ok "representative replays" || fail "representative"
(cd "$TMP" && FUZZ_BIN_DIR=$TMP/bin tools/triage "$TMP/nope" >/dev/null 2>&1)
[ $? -eq 2 ] && ok "triage missing dir: exit 2" || fail "triage missing dir"
(cd "$TMP" && FUZZ_BIN_DIR=$TMP/bin tools/triage "$TMP/crashes" --target=no_such >/dev/null 2>&1)
[ $? -eq 2 ] && ok "triage bad target: exit 2" || fail "triage bad target"

# 4
mkdir -p "$TMP/corpora/seeds"
printf '%s\n' 'contpte-script 1' 'granule 4k' 'variant baseline' 'block 0 cont young' 'thread 0' \
  '  read 0 13' 'thread 1' '  unmap 0 0+16' '  map 0 0+16 new' >"$TMP/corpora/seeds/remap_4k.txt"
printf '%s\n' 'contpte-script 1' 'granule 16k' 'variant baseline' 'block 0 cont' 'thread 0' \
  '  read 0 100' >"$TMP/corpora/seeds/read_16k.txt"
for g in 4k 16k 64k; do
  n=$(tool=tools_test; source "$TMP/tools/lib/common.sh"; ASM=$ASM seeds_for "$g" "$TMP/seeds-$g")
  echo "seeds_for $g: $n file(s): $(cd "$TMP/seeds-$g" && echo *)"
done
[ "$(cd "$TMP/seeds-16k" && echo *)" = "arm_read_16k.bin arm_remap_4k@16k.bin read_16k.bin remap_4k@16k.bin" ] \
  && ok "seeds_for 16k: the 4K seed moved, the 16K one as it is" || fail "seeds_for 16k files"
[ "$(cd "$TMP/seeds-64k" && echo *)" = "arm_remap_4k@64k.bin remap_4k@64k.bin" ] \
  && ok "seeds_for 64k: the 4K seed moved, the 16K one left out" || fail "seeds_for 64k files"
[ "$(cd "$TMP/seeds-4k" && echo *)" = "arm_remap_4k.bin remap_4k.bin" ] \
  && ok "seeds_for 4k: the 4K seed alone" || fail "seeds_for 4k files"
"$FUZZTOOL" retarget "$TMP/seeds-16k/remap_4k@16k.bin" -o "$TMP/moved16.txt" >/dev/null 2>&1
grep -q '^granule 16k' "$TMP/moved16.txt" && grep -q '^  read 0 104$' "$TMP/moved16.txt" &&
  grep -q '^  unmap 0 0+128$' "$TMP/moved16.txt" && grep -q '^  map 0 0+128 new$' "$TMP/moved16.txt" \
  && ok "moved to 16K: read 0 104, unmap/map 0 0+128" || { cat "$TMP/moved16.txt"; fail "moved seed's text"; }
"$FUZZTOOL" retarget "$TMP/seeds-64k/remap_4k@64k.bin" -o "$TMP/moved64.txt" >/dev/null 2>&1
grep -q '^  unmap 0 0+32$' "$TMP/moved64.txt" && ok "moved to 64K: unmap 0 0+32" || { cat "$TMP/moved64.txt"; fail "moved 64K seed's text"; }
line=$("$FUZZTOOL" info "$TMP/seeds-16k/remap_4k@16k.bin"); rc=$?
[ $rc -eq 1 ] && [[ $line == *$'\t'clean$'\t'* ]] && ok "the moved seed runs clean on baseline" || fail "moved seed: rc $rc '$line'"
"$ASM" --granule=8k "$TMP/corpora/seeds/remap_4k.txt" "$TMP/x.bin" 2>/dev/null
[ $? -eq 2 ] && ok "script_asm --granule=8k: exit 2" || fail "script_asm --granule=8k"
"$ASM" --granule=64k "$TMP/corpora/seeds/read_16k.txt" "$TMP/x.bin" 2>"$TMP/down.err"
[ $? -eq 3 ] && grep -q 'would merge entries' "$TMP/down.err" && [ ! -e "$TMP/x.bin" ] \
  && ok "script_asm: 16K to 64K (fewer entries) refused, exit 3" || fail "script_asm: a move to fewer entries not refused"
mkdir -p "$TMP/fuzz/seeds"
printf '%s\n' 'contpte-script 1' 'granule 4k' 'variant baseline' 'block 0 cont' 'thread 0' \
  '  read 0 16' >"$TMP/fuzz/seeds/typo_4k.txt"
(tool=tools_test; source "$TMP/tools/lib/common.sh"; ASM=$ASM seeds_for 16k "$TMP/seeds-bad" >/dev/null) 2>"$TMP/bad.err"
rc=$?; cat "$TMP/bad.err"
[ $rc -eq 2 ] && grep -q "seed $TMP/fuzz/seeds/typo_4k.txt does not assemble on 16k" "$TMP/bad.err" &&
  grep -q 'line 6' "$TMP/bad.err" && ! grep -q '\.sc\.txt' "$TMP/bad.err" \
  && ok "seeds_for: a seed that does not assemble stops it, named with its line" || fail "seeds_for: bad seed rc $rc"
rm -f "$TMP/fuzz/seeds/typo_4k.txt"

# 5
for q in "" sequential weighted; do
  args=$(tool=tools_test; source "$COMMON"; FUZZ_QUEUE=$q mutator_env lib.so; echo "${MUTATOR_ARGS[*]}")
  want=; [ "$q" = sequential ] && want=-Z
  [ "$args" = "$want" ] && ok "FUZZ_QUEUE='$q': afl-fuzz options '$args'" || fail "FUZZ_QUEUE='$q': '$args', want '$want'"
done
(tool=tools_test; source "$COMMON"; FUZZ_QUEUE=random mutator_env lib.so) 2>"$TMP/q.err"
rc=$?
[ $rc -eq 2 ] && grep -q "FUZZ_QUEUE='random'" "$TMP/q.err" && ok "FUZZ_QUEUE=random: exit 2, named" \
  || fail "FUZZ_QUEUE=random: rc $rc '$(cat "$TMP/q.err")'"
(tool=tools_test; source "$COMMON"; FUZZ_QUEUE=random afl_env_check) 2>"$TMP/q2.err"
rc=$?
[ $rc -eq 2 ] && grep -q "FUZZ_QUEUE='random'" "$TMP/q2.err" && ok "afl_env_check: FUZZ_QUEUE=random: exit 2, named" \
  || fail "afl_env_check: FUZZ_QUEUE=random: rc $rc '$(cat "$TMP/q2.err")'"
args=$(tool=tools_test; source "$COMMON"; FUZZ_QUEUE=sequential afl_env_check; echo "${MUTATOR_ARGS[*]}")
[ -z "$args" ] && ok "afl_env_check sets no afl-fuzz options" || fail "afl_env_check left MUTATOR_ARGS '$args'"

# 6
C=$TMP/camp
mkdir -p "$C/sync/main-x/crashes"
"$ASM" "$FLAGRUN" "$C/sync/main-x/crashes/id:000000,sig:06,src:000001,op:tail" || fail "script_asm $FLAGRUN"
triage6() {  # triage6 [VAR=VALUE...]: tools/triage on the campaign, FUZZ_RUNS and FUZZ_RUN_FLAGS unset unless given
  (cd "$TMP" && env -u FUZZ_RUNS -u FUZZ_RUN_FLAGS FUZZ_BIN_DIR="$TMP/bin" "$@" tools/triage "$C" -o "$TMP/tri6") \
    >"$TMP/tri6.log" 2>&1
}
for rf in warm 0; do
  printf 'target=no_pfn_check:4k\nruns=auto\nrun_flags=%s\n' "$rf" >"$C/campaign.conf"
  triage6; rc=$?
  if [ "$rf" = warm ]; then want='1 reproduce a violation, 0 do not'; else want='0 reproduce a violation, 1 do not'; fi
  [ $rc -eq 0 ] && grep -q "$want" "$TMP/tri6.log" && ok "campaign with run_flags=$rf: triage replays its crash so ($want)" \
    || fail "campaign with run_flags=$rf: rc $rc, $(head -2 "$TMP/tri6.log" | tr '\n' ' ')"
done
triage6 FUZZ_RUN_FLAGS=1; rc=$?
[ $rc -eq 2 ] && grep -q "FUZZ_RUN_FLAGS=1: the campaign of .* runs with FUZZ_RUN_FLAGS=0" "$TMP/tri6.log" \
  && ok "FUZZ_RUN_FLAGS=1 against a campaign of run_flags=0: exit 2, named" \
  || fail "a contradicting FUZZ_RUN_FLAGS: rc $rc, $(cat "$TMP/tri6.log")"
printf 'target=no_pfn_check:4k\nruns=auto\nrun_flags=warm\n' >"$C/campaign.conf"
triage6 FUZZ_RUN_FLAGS=1 && grep -q '1 reproduce a violation, 0 do not' "$TMP/tri6.log" \
  && ok "FUZZ_RUN_FLAGS=1 against a campaign of run_flags=warm: the same runs, accepted" \
  || fail "FUZZ_RUN_FLAGS=1 against run_flags=warm: $(head -2 "$TMP/tri6.log" | tr '\n' ' ')"
# a campaign.conf of before the generations had names: run_flags=1 meant
# pairs (or single); pairs unless the environment says, with a note
printf 'target=no_pfn_check:4k\nruns=auto\nrun_flags=1\n' >"$C/campaign.conf"
triage6 && grep -q 'records run_flags=1, from before .* FUZZ_RUN_FLAGS=pairs' "$TMP/tri6.log" \
  && grep -q '1 reproduce a violation, 0 do not' "$TMP/tri6.log" \
  && triage6 FUZZ_RUN_FLAGS=0 && grep -q '0 reproduce a violation, 1 do not' "$TMP/tri6.log" \
  && ok "a campaign.conf with run_flags=1 (unnamed): pairs with a note, the environment may choose" \
  || fail "a campaign.conf with run_flags=1: $(head -3 "$TMP/tri6.log" | tr '\n' ' ')"
printf 'target=no_pfn_check:4k\n' >"$C/campaign.conf"
triage6 FUZZ_RUN_FLAGS=0; rc=$?
grep -q '0 reproduce a violation, 1 do not' "$TMP/tri6.log" && triage6 && grep -q '1 reproduce a violation, 0 do not' "$TMP/tri6.log" \
  && ok "a campaign.conf without run settings: the environment decides" \
  || fail "a campaign.conf without run settings: $(head -2 "$TMP/tri6.log" | tr '\n' ' ')"

# 7
long_line=$(head -c 102400 /dev/zero | tr '\0' x)
afl_out() {  # what afl-fuzz prints without a terminal, 2,000 picks
  printf '[*] Spinning up the fork server...\n'
  for i in $(seq 1 2000); do
    printf '\033[1;94m[*] \033[0mFuzzing test case #%d (36 total, 0 crashes saved, perf_score=100)...\033[0m\n' "$i"
    [ "$i" = 1000 ] && printf '[!] WARNING: half way\n'
  done
  printf '%s\n' "$long_line"
  printf '+++ Testing aborted programmatically +++\n'
  printf 'no newline at the end'
}
printf 'earlier run\n' >"$TMP/afl7.log"
(tool=tools_test; source "$COMMON"; set -o pipefail; afl_out | afl_log "$TMP/afl7.log"); rc=$?
want=$(printf 'earlier run\n[*] Spinning up the fork server...\n[!] WARNING: half way\n%s\n+++ Testing aborted programmatically +++\nno newline at the end' "$long_line")
[ $rc -eq 0 ] && [ "$(cat "$TMP/afl7.log")" = "$want" ] \
  && ok "afl_log: the per-pick lines dropped, the rest appended in order" \
  || fail "afl_log: rc $rc, log '$(head -c 300 "$TMP/afl7.log")' ($(wc -c <"$TMP/afl7.log") bytes)"
(tool=tools_test; source "$COMMON"; set -o pipefail; afl_out | afl_log /dev/full); rc=$?
[ $rc -eq 0 ] && ok "afl_log: a log it cannot write still drains the pipe (the writer runs to its end)" \
  || fail "afl_log to /dev/full: pipeline rc $rc"
(tool=tools_test; source "$COMMON"; { sleep 1; afl_out; } | { afl_log "$TMP/afl7h.log" & p=$!; sleep 0.3; pkill -HUP -P $p; kill -HUP $p; wait $p; }); rc=$?
[ $rc -eq 0 ] && grep -q 'aborted programmatically' "$TMP/afl7h.log" && ok "afl_log: SIGHUP does not stop it" \
  || fail "afl_log after SIGHUP: rc $rc, log '$(head -c 200 "$TMP/afl7h.log" 2>/dev/null)'"

t0=$(date +%s)
(tool=tools_test; source "$COMMON"; sleep 20 > >(afl_log "$TMP/afl7b.log") & echo started) | cat >/dev/null
t1=$(date +%s)
[ $((t1 - t0)) -lt 10 ] && ok "afl_log in the background holds none of the caller's output open" \
  || fail "afl_log in the background kept the caller's pipe open for $((t1 - t0)) s"

(tool=tools_test; source "$COMMON"; set -o pipefail
 { afl_out; sleep 1.5; afl_out; } | afl_log "$TMP/afl7k.log" &
 sleep 0.7; pkill -KILL -f "^$AFL_LOG_BIN $TMP/afl7k.log\$" || echo "no filter to kill" >"$TMP/afl7k.nokill"
 wait $!); rc=$?
if [ -e "$TMP/afl7k.nokill" ]; then fail "afl_log killed half way: no filter process found to kill"
elif [ $rc -eq 0 ]; then ok "afl_log: the filter killed half way, the rest is still drained"
else fail "afl_log killed half way: the writer was cut off (rc $rc)"; fi
"$AFL_LOG_BIN" </dev/null 2>"$TMP/al.err"; rc=$?
[ $rc -eq 2 ] && grep -q usage "$TMP/al.err" && ok "afl_log without a file: usage, exit 2" || fail "afl_log without a file: rc $rc"

# 8
printf 'start_time        : 1764694000\nlast_update       : 1764694061\nexecs_done        : 1234567\nbitmap_cvg        : 71.94%%\nsaved_crashes     : 0\n' >"$TMP/fuzzer_stats"
got=$(tool=tools_test; source "$COMMON"
      echo "$(afl_stat "$TMP/fuzzer_stats" execs_done)|$(afl_stat "$TMP/fuzzer_stats" bitmap_cvg)|$(afl_stat "$TMP/fuzzer_stats" crashes)|$(afl_stat "$TMP/fuzzer_stats" nosuch)|$(afl_stat "$TMP/none" execs_done)")
[ "$got" = "1234567|71.94%|||" ] && ok "afl_stat: fields read, a name's tail and missing ones give nothing" \
  || fail "afl_stat: '$got' (want '1234567|71.94%|||')"

echo "$fails failure(s)"
[ $fails -eq 0 ]
