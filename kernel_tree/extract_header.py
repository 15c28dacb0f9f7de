#!/usr/bin/python3
"""kernel_tree/extract_header.py HEADER CONTPTE OUT

Cut out of a kernel tree's arch/arm64/include/asm/pgtable.h (HEADER) the
definitions the harness runs in place of core/kernel/pgtable.c: the arch
wrappers it drives (ptep_get, set_ptes, ptep_set_access_flags, ...), the
per-entry primitives (__ptep_get, __set_ptes, __ptep_test_and_clear_young,
...), every header name the tree's contpte.c (CONTPTE) uses, and what those
reach in turn (pte_mkold, clear_pte_bit, pte_valid_cont, ...).

The header is read by clang's front end through libclang (python3-clang-14)
as the kernel's build would see it with CONFIG_ARM64_CONTPTE set: function
definitions and macro definitions are found as cursors, their text cut by
the cursor's extent, and what a definition refers to is the identifiers
among its tokens. The kernel's own #include lines are not followed (the
shim stands in for the rest of the kernel), so the parse has errors; clang
keeps going and every definition the preprocessor keeps is still a cursor.

Writes the parts of the kernel-tree unit that kernel_tree/probe.sh places
between the shim and the tree's contpte.c:
  OUT.renames  every taken function F becomes kt_hdr_F (the project's own F
               keeps its name for the harness), with KT_HDR_HAS_F
  OUT.decls    the header's declarations of contpte.c's functions: those
               kernel_tree/functions.def knows each under KT_RENAMED_<name>
               (the probe sets it for the file's renamed functions; one it
               does not rename is kcompat.h's, current signature), any
               other function the file defines as it is (the header's
               code may call any function of the file, and the kernel's
               build sees it declared there first)
  OUT.defs     the taken definitions in header order, each after a #line
               naming the header, so the compiler's messages point at the
               tree's file; a taken macro replaces the shim's, if any
  OUT.undefs   what ends the header's names before kernel_tree/glue.h
  OUT.names    "function NAME" / "macro NAME" per taken definition, "decl
               NAME" per declaration, "calls NAME" per function of the file
               a taken definition calls, "untaken function|macro NAME" per
               definition nothing driven reaches, "owned function|macro
               NAME" per definition the project keeps (both never built)

Names the project keeps whatever the header says (PROJECT_OWNED) are never
taken: the physical-address encoding of an entry (the harness's own page
frame model), the debug checks, and the barrier batching of lazy MMU mode
(thread flags the harness has none of); the shim defines them.

Exit status: 0 written; 1 the header could not be read or parsed at all.
"""
import os
import sys

import clang.cindex as ci

# What the harness calls through core/kernel/entry_points.def (the
# asm/pgtable.h part) and the older names kernel_tree/glue.h adapts
# (ptep_clear_flush_young, ptep_set_wrprotect page by page; the pre-merge
# batched ptep_set_wrprotects).
DRIVEN = [
    "ptep_get", "ptep_get_lockless", "set_ptes", "get_and_clear_full_ptes",
    "ptep_test_and_clear_young", "clear_flush_young_ptes", "ptep_clear_flush_young",
    "wrprotect_ptes", "ptep_set_wrprotects", "ptep_set_wrprotect", "clear_young_dirty_ptes",
    "ptep_set_access_flags", "contpte_try_fold", "contpte_try_unfold",
    "__ptep_get_and_clear", "__ptep_test_and_clear_young", "__ptep_set_wrprotect",
    "__set_ptes", "__clear_young_dirty_ptes", "__ptep_get", "__set_pte",
    "ptep_get_and_clear", "ptep_get_and_clear_full", "clear_full_ptes",
    "test_and_clear_young_ptes", "pte_batch_hint",
]

PROJECT_OWNED = {
    # an entry's output address: the harness's page frame model (core/pte.h)
    "pte_pfn", "pfn_pte", "__pte_to_phys", "__phys_to_pte_val", "pte_pgprot",
    "pte_page", "pfn_to_page", "mk_pte",
    # debug checks (CONFIG_DEBUG_VM, page_table_check): no-ops in the shim
    "__check_racy_pte_update", "__check_safe_pte_update", "__sync_cache_and_tags",
    # lazy MMU mode's barrier batching: thread flags; the shim emits the barriers
    "queue_pte_barriers", "emit_pte_barriers", "arch_enter_lazy_mmu_mode",
    "arch_leave_lazy_mmu_mode", "arch_flush_lazy_mmu_mode",
    "is_lazy_mmu_mode_active", "in_interrupt",
}

# Ends each piece of the header's text in the unit (a comment: the compiler
# ignores it). A #line directive names where a piece starts; this names
# where it stops, so that tools/lib/coverage.py can map the unit's lines
# back to the header's (clang's coverage keeps the unit's own lines).
PIECE_END = "/* kt_hdr_piece_end */"

CLANG_ARGS = [
    "-x", "c", "-std=gnu11", "-D__KERNEL__", "-DCONFIG_ARM64_CONTPTE=1",
    "-DCONFIG_ARM64=1", "-DCONFIG_MMU=1", "-DCONFIG_PGTABLE_LEVELS=4",
    "-DCONFIG_ARM64_HW_AFDBM=1", "-DCONFIG_TRANSPARENT_HUGEPAGE=1",
    "-Wno-everything",
]
PARSE_OPTIONS = (ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
                 | 0x200)  # CXTranslationUnit_KeepGoing: go on past missing headers


def die(msg):
    print("kernel-tree: %s" % msg, file=sys.stderr)
    sys.exit(1)


def parse(path):
    try:
        return ci.Index.create().parse(path, args=CLANG_ARGS, options=PARSE_OPTIONS)
    except ci.TranslationUnitLoadError as e:
        die("libclang could not parse %s: %s" % (path, e))


def in_file(cursor, path):
    f = cursor.location.file
    return f is not None and os.path.realpath(f.name) == os.path.realpath(path)


def identifiers(cursor):
    return {t.spelling for t in cursor.get_tokens() if t.kind == ci.TokenKind.IDENTIFIER}


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def text_of(data, cursor):
    return data[cursor.extent.start.offset:cursor.extent.end.offset].decode("utf-8", "replace")


def main(argv):
    if len(argv) != 4:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    header, contpte, out = argv[1:]
    hdr_tu, file_tu = parse(header), parse(contpte)
    data = read_bytes(header)
    known = set(line.split("(", 1)[1].split(",", 1)[0]
                for line in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "functions.def"))
                if line.startswith("KT_FN("))

    # The header's definitions: functions with bodies, macros (not the
    # `#define name name` markers that say a generic version is overridden,
    # nor object-like macros without a body); and its declarations of
    # functions (the first of each name).
    defs, fdecls = {}, {}
    for c in hdr_tu.cursor.get_children():
        if not in_file(c, header):
            continue
        if c.kind == ci.CursorKind.FUNCTION_DECL:
            if c.is_definition():
                defs[c.spelling] = ("function", c)
            else:
                fdecls.setdefault(c.spelling, c)
        elif c.kind == ci.CursorKind.MACRO_DEFINITION:
            toks = [t.spelling for t in c.get_tokens()]
            if len(toks) <= 1 or toks[1:] == [c.spelling]:
                continue
            defs.setdefault(c.spelling, ("macro", c))
    if not defs:
        die("%s defines no function or macro libclang could find" % header)

    # What contpte.c defines stays the file's; what it uses from the header
    # is taken.
    file_defines = {c.spelling for c in file_tu.cursor.get_children()
                    if c.kind == ci.CursorKind.FUNCTION_DECL and c.is_definition() and in_file(c, contpte)}
    file_uses = identifiers(file_tu.cursor)
    # Its declarations of contpte.c's functions: of those functions.def
    # knows (renamed or not, as the probe decides), and of any other the
    # file defines, which the header's code may call (a pre-merge header's
    # ptep_get_and_clear_full calls the file's fast path for process exit).
    decls = {n: c for n, c in fdecls.items() if n in known or n in file_defines}

    taken, todo = set(), [n for n in DRIVEN if n in defs] + sorted(n for n in file_uses if n in defs)
    while todo:
        name = todo.pop()
        if name in taken or name in PROJECT_OWNED or name in file_defines or name in known:
            continue
        taken.add(name)
        todo.extend(n for n in identifiers(defs[name][1]) if n in defs and n not in taken)

    order = sorted(taken, key=lambda n: defs[n][1].extent.start.offset)
    funcs = [n for n in order if defs[n][0] == "function"]
    # A name the shim defines as a macro is saved and given back after the
    # header's part (push_macro/pop_macro, which clang and gcc both have).
    renames, decl_text, def_text, undefs = [], [], [], []
    for n in funcs:
        renames += ["#define KT_HDR_HAS_%s 1" % n, '#pragma push_macro("%s")' % n,
                    "#undef %s" % n, "#define %s kt_hdr_%s" % (n, n)]
    for n, c in sorted(decls.items(), key=lambda kv: kv[1].extent.start.offset):
        text = ['#line %d "%s"' % (c.extent.start.line, header), text_of(data, c) + ";", PIECE_END]
        decl_text += ["#ifdef KT_RENAMED_%s" % n] + text + ["#endif"] if n in known else text
    for n in order:
        kind, c = defs[n]
        if kind == "macro":
            def_text += ['#pragma push_macro("%s")' % n, "#undef %s" % n]
        def_text += ['#line %d "%s"' % (c.extent.start.line, header),
                     ("#define " if kind == "macro" else "") + text_of(data, c), PIECE_END]
    for n in order:
        undefs += ["#undef %s" % n, '#pragma pop_macro("%s")' % n]
    for suffix, body in [("renames", renames), ("decls", decl_text), ("defs", def_text),
                         ("undefs", undefs)]:
        with open("%s.%s" % (out, suffix), "w") as f:
            f.write("\n".join(body + [""]))
    with open(out + ".names", "w") as f:
        for n in order:
            f.write("%s %s\n" % (defs[n][0], n))
        for n in sorted(decls):
            f.write("decl %s\n" % n)
        for n in sorted({i for n in taken for i in identifiers(defs[n][1])} & file_defines):
            f.write("calls %s\n" % n)
        for n in sorted(set(defs) - taken - file_defines - known):
            f.write("%s %s %s\n" % ("owned" if n in PROJECT_OWNED else "untaken", defs[n][0], n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
