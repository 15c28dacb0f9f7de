#!/usr/bin/env bash
# stage2/kernel_tree/check_mmu_test.sh CHECK OPS_C MMU_C
# stage2/kernel_tree/check_mmu.py on the current test tree's mmu.c (MMU_C):
# every op that calls pgtable.c agrees (exit 0); copies changed as a tree
# could differ each make the ops concerned DIFFER (exit 1), naming what
# differs: a fault walk without KVM_PGTABLE_WALK_SHARED, faults under
# mmu_lock for write, aging without the lock (Kconfig selects
# KVM_MMU_LOCKLESS_AGING); a tree without eager split says so for that op
# only; newer trees' kvm_fault_lock() is the lock for read; a file that is
# not there is exit 2.
set -uo pipefail
check=$1 ops=$2 mmu=$3 fail=0
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; fail=1; }
run() {  # WANT_RC NAME ARGS...: the checker's output in $out
  local want=$1 name=$2 rc; shift 2
  out=$("$check" "$ops" "$@" 2>&1); rc=$?
  [[ $rc == "$want" ]] && echo "ok: $name: exit $rc" || { fail "$name: exit $rc, want $want"; echo "$out"; }
}
has() {  # NAME PATTERN: a line of $out matches (grep -E)
  grep -qE -- "$2" <<<"$out" && echo "ok: $1" || { fail "$1: no line /$2/"; echo "$out"; }
}

run 0 "the current tree's mmu.c" "$mmu"
[[ $(grep -c '^ok ' <<<"$out") == 11 ]] && echo "ok: 11 ops agree" || { fail "not 11 ops agree"; echo "$out"; }
has "unmap found through mmu.c's range walker, its lock asserted there" \
  '^ok unmap: kvm_unmap_gfn_range > unmap_range > kvm_pgtable_stage2_unmap, mmu_lock for write \(unmap_range, mmu.c:[0-9]+\)'
has "flush's lock taken by its caller" '^ok flush: .*mmu_lock for write \(its caller stage2_flush_vm, mmu.c:[0-9]+\)'
has "aging under the MMU notifier's lock" "^ok age: kvm_age_gfn > kvm_pgtable_stage2_test_clear_young, mmu_lock for write \(the MMU notifier's KVM_MMU_LOCK"

sed '0,/KVM_PGTABLE_WALK_HANDLE_FAULT | KVM_PGTABLE_WALK_SHARED;/s//KVM_PGTABLE_WALK_HANDLE_FAULT;/' "$mmu" >"$tmp/noshared.c"
run 1 "user_mem_abort without SHARED" "$tmp/noshared.c"
has "the fault op differs on SHARED" '^DIFFERS fault: user_mem_abort > kvm_pgtable_stage2_map: walk flag SHARED not passed here, passed by the harness$'
grep -q '^ok access_fault' <<<"$out" && echo "ok: the access fault (its own function) still agrees" || fail "access_fault changed"

sed 's/\tread_lock(&vcpu->kvm->mmu_lock);/\twrite_lock(\&vcpu->kvm->mmu_lock);/' "$mmu" >"$tmp/writelock.c"
run 1 "faults under the lock for write" "$tmp/writelock.c"
has "the fault op differs on the lock" '^DIFFERS fault: .*mmu_lock for write here \(user_mem_abort, mmu.c:[0-9]+\), for read in the harness$'

printf 'config KVM\n\ttristate "Kernel-based Virtual Machine (KVM) support"\n\tselect KVM_MMU_LOCKLESS_AGING\n' >"$tmp/Kconfig"
run 1 "Kconfig selects KVM_MMU_LOCKLESS_AGING" "$mmu" "$tmp/Kconfig"
has "aging differs, with the flag that ages so" '^DIFFERS age: .*mmu_lock for none here .*, for write in the harness \(--age-lock=none ages as this tree does\)$'
has "test_age differs too" '^DIFFERS test_age: '
run 0 "lockless aging selected, the run's --age-lock=none" --age-lock=none "$mmu" "$tmp/Kconfig"
has "aging agrees under --age-lock=none" '^ok age: .*mmu_lock for none \(the MMU notifier: Kconfig selects KVM_MMU_LOCKLESS_AGING\)'
run 1 "mainline's aging, the run's --age-lock=read" --age-lock=read "$mmu"
has "aging differs under --age-lock=read" '^DIFFERS age: .*mmu_lock for write here .*, for read in the harness$'
run 2 "a bad --age-lock" --age-lock=sometimes "$mmu"

awk '/^static int kvm_mmu_split_huge_pages/ { skip = 1 } skip && /^}/ { skip = 0; next } !skip' "$mmu" >"$tmp/nosplit.c"
run 0 "a tree without eager split" "$tmp/nosplit.c"
has "split not in this tree" '^-- split: not in this tree.s mmu.c \(no function kvm_mmu_split_huge_pages\)$'

awk '/^static int user_mem_abort/ { u = 1 } u && /read_lock\(&vcpu->kvm->mmu_lock\);/ {
  sub(/read_lock\(&vcpu->kvm->mmu_lock\)/, "kvm_fault_lock(vcpu->kvm)"); u = 0 } { print }' "$mmu" >"$tmp/faultlock.c"
run 0 "the fault path through kvm_fault_lock() (newer trees)" "$tmp/faultlock.c"
has "kvm_fault_lock is the lock for read" '^ok fault: .*mmu_lock for read \(user_mem_abort, mmu.c:[0-9]+\)'

run 2 "no such file" "$tmp/nonexistent.c"
exit $fail
