#!/usr/bin/python3
"""stage2/kernel_tree/check_mmu.py [--age-lock=write|read|none] OPS_C MMU_C [KCONFIG]

Compares the harness's re-created callers of pgtable.c (the s2_ops table of
stage2/runtime/ops.c, OPS_C) with a tree's own arch/arm64/kvm/mmu.c
(MMU_C): for each op, the function of mmu.c it stands for (its caller)
must reach the pgtable.c function the op calls, under mmu_lock in the mode
the op takes it, with the walk flags the op passes.

How mmu.c is read: libclang's lexer gives its tokens (no headers needed,
so any tree reads); a function definition is a name, its parameter list
and a body at brace depth 0. From the caller, the calls (and function
names passed as arguments, as mmu.c hands kvm_pgtable_stage2_unmap to its
range walker) are followed through mmu.c's own functions to the first
that names the pgtable.c function (directly or as KVM_PGT_FN(name)).
The lock: read_lock / write_lock / spin_lock of mmu_lock, or
lockdep_assert_held_write / lockdep_assert_held of it, or kvm_fault_lock()
(newer trees' fault path: for read outside pKVM), in a function of
that chain or in one of mmu.c's callers of the op's caller; for the MMU
notifier's callbacks (kvm_unmap_gfn_range, kvm_age_gfn, kvm_test_age_gfn),
which mmu.c does not lock itself, the generic code's KVM_MMU_LOCK (for
write on arm64), and none for aging when KCONFIG (arch/arm64/kvm/Kconfig)
selects KVM_MMU_LOCKLESS_AGING. The walk flags: KVM_PGTABLE_WALK_SHARED
and KVM_PGTABLE_WALK_HANDLE_FAULT named in a function of the chain
(SHARED always: every generation the harness builds has it;
HANDLE_FAULT where the tree's mmu.c uses it at all).

The aging ops are compared with the lock of --age-lock (the run's; the
table's, write, without it).

Prints one line per op ("ok", "DIFFERS" with what differs, or "not in
this tree"), and exits 0 when nothing differs, 1 when something does, 2
when a file cannot be read or OPS_C has no s2_ops table.
"""
import re
import sys

import clang.cindex as ci

# The MMU notifier's callbacks: virt/kvm/kvm_main.c calls them with
# mmu_lock taken by KVM_MMU_LOCK (write_lock on arm64, whose mmu_lock is an
# rwlock), aging without it when the architecture selects
# KVM_MMU_LOCKLESS_AGING.
NOTIFIER = {"kvm_unmap_gfn_range": False, "kvm_age_gfn": True, "kvm_test_age_gfn": True}
HELD = {"S2_HELD_NONE": "none", "S2_HELD_READ": "read", "S2_HELD_WRITE": "write"}
WALK_FLAGS = {"S2_WALK_SHARED": "SHARED", "S2_WALK_HANDLE_FAULT": "HANDLE_FAULT"}
KERNEL_FLAGS = {"KVM_PGTABLE_WALK_SHARED": "SHARED", "KVM_PGTABLE_WALK_HANDLE_FAULT": "HANDLE_FAULT"}


def tokens(path):
    """(spelling, kind, line) of every token of the file: libclang's lexer."""
    idx = ci.Index.create()
    tu = idx.parse(path, args=["-x", "c", "-fsyntax-only", "-nostdinc"],
                   options=ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
    out = []
    for t in tu.get_tokens(extent=tu.cursor.extent):
        if t.kind == ci.TokenKind.COMMENT:
            continue
        out.append((t.spelling, t.kind, t.location.line))
    return out


def ops_table(path):
    """The s2_ops rows of ops.c: (name, caller, callee, lock, set of flags)."""
    toks = tokens(path)
    words = [t[0] for t in toks]
    macros = {}
    # object-like #defines of the file (SHARED_FAULT): their tokens
    for i, w in enumerate(words):
        if w == "define" and i and words[i - 1] == "#":
            name, line = words[i + 1], toks[i + 1][2]
            body = []
            j = i + 2
            while j < len(toks) and toks[j][2] == line:
                body.append(words[j])
                j += 1
            macros[name] = body
    try:
        at = next(i for i, w in enumerate(words)
                  if w == "s2_ops" and words[i + 1] == "[" and "=" in words[i + 2:i + 6])
    except StopIteration:
        return None
    at = words.index("{", at)
    rows, depth, i = [], 0, at
    while i < len(words):
        w = words[i]
        if w == "{":
            depth += 1
            if depth == 2:
                j = words.index("}", i)
                rows.append(words[i + 1:j])
                i = j
                continue
        elif w == "}":
            depth -= 1
            if depth == 0:
                break
        i += 1
    out = []
    for r in rows:
        fields, cur = [], []
        for w in r + [","]:
            if w == ",":
                fields.append(cur)
                cur = []
            else:
                cur.append(w)
        if len(fields) < 5:
            continue
        flag_words = []
        for w in fields[4]:
            flag_words += macros.get(w, [w])
        out.append((fields[0][0].strip('"'), fields[1][0].strip('"'), fields[2][0].strip('"'),
                    HELD.get(fields[3][0], fields[3][0]),
                    {WALK_FLAGS[w] for w in flag_words if w in WALK_FLAGS}))
    return out


def matching(words, i):
    """The index of the bracket that closes the one at words[i] (or len(words))."""
    close = {"(": ")", "{": "}"}[words[i]]
    depth = 0
    for j in range(i, len(words)):
        if words[j] == words[i]:
            depth += 1
        elif words[j] == close:
            depth -= 1
            if depth == 0:
                return j
    return len(words)


def functions(toks):
    """name -> (first body token, end token, line of the name) of each definition."""
    words = [t[0] for t in toks]
    defs, depth, i = {}, 0, 0
    while i < len(words):
        w = words[i]
        if w == "{":
            depth += 1
        elif w == "}":
            depth -= 1
        elif (depth == 0 and toks[i][1] == ci.TokenKind.IDENTIFIER and i + 1 < len(words)
              and words[i + 1] == "("):
            # the parameter list, then a body (not a ; of a declaration)
            k = matching(words, i + 1) + 1
            while k < len(words) and words[k] not in ("{", ";", "=", ","):
                k += 1      # attributes after the parameters
            if k < len(words) and words[k] == "{" and (i == 0 or words[i - 1] not in ("=", "return")):
                e = matching(words, k)
                defs[words[i]] = (k, e, toks[i][2])
                i = e + 1
                continue
        i += 1
    return defs


class Mmu:
    def __init__(self, path):
        self.toks = tokens(path)
        self.words = [t[0] for t in self.toks]
        self.defs = functions(self.toks)
        self.uses_flags = {KERNEL_FLAGS[w] for w in self.words if w in KERNEL_FLAGS}

    def body(self, fn):
        a, b, _ = self.defs[fn]
        return range(a, b)

    def names(self, fn):
        """The identifiers fn's body names (calls, function names passed)."""
        return {self.words[i] for i in self.body(fn) if self.toks[i][1] == ci.TokenKind.IDENTIFIER}

    def chain(self, caller, callee):
        """The shortest chain of mmu.c's functions from caller to one that
        names callee, or None."""
        if caller not in self.defs:
            return None
        seen, queue = {caller}, [[caller]]
        while queue:
            path = queue.pop(0)
            names = self.names(path[-1])
            if callee in names:
                return path
            for n in sorted(names):
                if n in self.defs and n not in seen and len(path) < 6:
                    seen.add(n)
                    queue.append(path + [n])
        return None

    def lock_in(self, fn):
        """(mode, line) of mmu_lock taken or asserted in fn's body, or None."""
        w = self.words
        for i in self.body(fn):
            if w[i] == "kvm_fault_lock" and i + 1 < len(w) and w[i + 1] == "(":
                # newer trees' fault path: asm/kvm_mmu.h's helper, mmu_lock
                # for read (for write only under pKVM, which is not modelled)
                return "read", self.toks[i][2]
            if w[i] in ("read_lock", "write_lock", "spin_lock", "KVM_MMU_LOCK",
                        "lockdep_assert_held_write", "lockdep_assert_held", "lockdep_assert_held_read"):
                arg = w[i + 1:matching(w, i + 1) + 1] if i + 1 < len(w) and w[i + 1] == "(" else []
                if "mmu_lock" not in arg and w[i] != "KVM_MMU_LOCK":
                    continue
                mode = {"read_lock": "read", "lockdep_assert_held_read": "read",
                        "write_lock": "write", "spin_lock": "write", "KVM_MMU_LOCK": "write",
                        "lockdep_assert_held_write": "write", "lockdep_assert_held": "held"}[w[i]]
                return mode, self.toks[i][2]
        return None

    def callers_of(self, fn):
        return sorted(f for f in self.defs if f != fn and fn in self.names(f))


def check(ops, mmu, kconfig_text):
    lockless_aging = bool(kconfig_text and re.search(r"^\s*select\s+KVM_MMU_LOCKLESS_AGING\b",
                                                      kconfig_text, re.M))
    differs = 0
    lines = []
    for name, caller, callee, lock, flags in ops:
        if not callee.startswith("kvm_pgtable_"):
            lines.append("-- %s: %s calls no pgtable.c function: not compared" % (name, caller))
            continue
        # the tree's generation may age with mkold / is_young instead
        alts = [callee]
        if callee == "kvm_pgtable_stage2_test_clear_young":
            alts += ["kvm_pgtable_stage2_mkold", "kvm_pgtable_stage2_is_young"]
        path = None
        for c in alts:
            path = mmu.chain(caller, c)
            if path:
                callee = c
                break
        if not path:
            why = "no function %s" % caller if caller not in mmu.defs else \
                "%s does not reach %s" % (caller, " or ".join(alts))
            lines.append("-- %s: not in this tree's mmu.c (%s)" % (name, why))
            continue
        where = " > ".join(path) + " > " + callee
        got, src = None, None
        for fn in path:
            found = mmu.lock_in(fn)
            if found:
                got, src = found[0], "%s, mmu.c:%d" % (fn, found[1])
                break
        if not got:
            for fn in mmu.callers_of(caller):
                found = mmu.lock_in(fn)
                if found:
                    got, src = found[0], "its caller %s, mmu.c:%d" % (fn, found[1])
                    break
        if not got and caller in NOTIFIER:
            if NOTIFIER[caller] and lockless_aging:
                got, src = "none", "the MMU notifier: Kconfig selects KVM_MMU_LOCKLESS_AGING"
            else:
                got, src = "write", "the MMU notifier's KVM_MMU_LOCK (virt/kvm/kvm_main.c)"
        problems = []
        if got is None:
            problems.append("mmu_lock: not found on the way (the harness takes it for %s)" % lock)
        elif got != lock and not (got == "held" and lock != "none"):
            hint = " (--age-lock=%s ages as this tree does)" % got \
                if caller in NOTIFIER and NOTIFIER[caller] and got in ("read", "none") else ""
            problems.append("mmu_lock for %s here (%s), for %s in the harness%s" % (got, src, lock, hint))
        tree_flags = set()
        for fn in path:
            tree_flags |= {KERNEL_FLAGS[mmu.words[i]] for i in mmu.body(fn) if mmu.words[i] in KERNEL_FLAGS}
        # SHARED in every generation the harness builds (RCU-protected
        # shared walks); HANDLE_FAULT where this mmu.c uses it
        for f in sorted(mmu.uses_flags | {"SHARED"}):
            if (f in tree_flags) != (f in flags):
                problems.append("walk flag %s %s here, %s by the harness" %
                                (f, "passed" if f in tree_flags else "not passed",
                                 "passed" if f in flags else "not passed"))
        shown = "mmu_lock for %s (%s)" % (got, src) if got else "mmu_lock unknown"
        fl = "|".join(sorted(tree_flags)) or "none"
        if problems:
            differs += 1
            lines.append("DIFFERS %s: %s: %s" % (name, where, "; ".join(problems)))
        else:
            lines.append("ok %s: %s, %s, walk flags %s" % (name, where, shown,
                                                          fl if mmu.uses_flags else "(none in this tree)"))
    return lines, differs


def main(argv):
    age_lock = None
    for a in argv[1:]:
        if a.startswith("--age-lock="):
            age_lock = a.split("=", 1)[1]
            if age_lock not in ("write", "read", "none"):
                print("check_mmu: --age-lock takes write, read or none, not '%s'" % age_lock, file=sys.stderr)
                return 2
    argv = [a for a in argv if not a.startswith("--age-lock=")]
    if len(argv) not in (3, 4):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    try:
        ops = ops_table(argv[1])
        mmu = Mmu(argv[2])
        kconfig = open(argv[3]).read() if len(argv) == 4 else ""
    except (OSError, ci.TranslationUnitLoadError) as e:
        print("check_mmu: %s" % e, file=sys.stderr)
        return 2
    if not ops:
        print("check_mmu: %s has no s2_ops table" % argv[1], file=sys.stderr)
        return 2
    if age_lock:
        ops = [(n, c, f, age_lock if NOTIFIER.get(c) else lock, fl) for n, c, f, lock, fl in ops]
    lines, differs = check(ops, mmu, kconfig)
    for line in lines:
        print(line)
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
