#!/usr/bin/env bash
# tools/tests/bench_seed002_cli_test.sh BENCH_SEED002: stress/bench/bench-seed002
# refuses bad usage with exit 2 and a line saying why, before building
# anything (//tools/tests:bench_seed002_cli_test; no Bazel, no valgrind, no
# qemu needed for these).
set -uo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 BENCH_SEED002" >&2; exit 2; }
bench=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export HOME=${HOME:-${TEST_TMPDIR:-/tmp}}
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/b2.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/arch/arm64/mm" "$tmp/empty"
echo "/* a contpte.c */" >"$tmp/tree/arch/arm64/mm/contpte.c"
echo "not a patch" >"$tmp/p.patch"
fails=0 n=0
# expect "REASON REGEX" ARGS...: exit 2 and a bench-seed002: line matching
expect() {
  local want=$1 out rc; shift
  n=$((n + 1))
  out=$(cd "$tmp" && timeout 30 "$bench" "$@" 2>&1); rc=$?
  if [[ $rc == 2 ]] && grep -qE "^bench-seed002: .*($want)" <<<"$out"; then
    echo "ok: $* -> exit 2: $(grep -m1 '^bench-seed002:' <<<"$out")"
  else
    echo "FAIL: $* -> exit $rc, wanted 2 and /$want/:"; echo "$out" | tail -3; fails=$((fails + 1))
  fi
}
expect "unknown argument '--bogus'" --bogus
expect "unknown argument 'stray'" stray
expect "--patch belongs to a --kernel-tree" --patch "$tmp/p.patch"
expect "two --patch options" --kernel-tree "$tmp/tree" --patch "$tmp/p.patch" --patch "$tmp/p.patch"
expect "--kernel-tree needs a path" --kernel-tree
expect "--patch needs a file" --kernel-tree "$tmp/tree" --patch
expect "no such directory" --kernel-tree "$tmp/nowhere"
expect "no arch/arm64/mm/contpte.c" --kernel-tree "$tmp/empty"
expect "cannot read patch" --kernel-tree "$tmp/tree" --patch "$tmp/missing.patch"
expect "at most two --kernel-tree" --kernel-tree "$tmp/tree" --kernel-tree "$tmp/tree" --kernel-tree "$tmp/tree"
expect "--no-project leaves nothing" --no-project
expect "multiple of 128" --iters=100
expect "multiple of 128" --iters=0
expect "--native-iters wants" --native-iters=x
expect "--arch wants" --arch=riscv
expect "unknown granule '8k'" --granules=4k,8k
echo "$n cases, $fails failure(s)"
[[ $fails -eq 0 ]]
