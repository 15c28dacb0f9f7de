#!/usr/bin/python3
"""stage2/kernel_tree/cut.py SRC HDR S2HDR OUT -- CLANG_ARGS...

Cut a tree's arch/arm64/kvm/hyp/pgtable.c (SRC) and its
arch/arm64/include/asm/kvm_pgtable.h (HDR; S2HDR its asm/stage2_pgtable.h
or "-") down to what the harness drives, and write the translation unit
stage2/kernel_tree/probe.sh compiles.

The files are read by clang's front end through libclang (python3-clang-14)
on the stage-2 shim, the tree's two headers in place of the shim's
stand-ins. Every function definition is a cursor; the ones the harness calls
(DRIVEN, the tree's stage-2 API and the helpers the glue asks about) and
what they refer to, transitively (identifiers among their tokens), are kept.
Every other function definition is blanked out, newlines kept, so that the
unit's line numbers are the files' own: the hyp stage-1 code, the VTCR
set-up, pKVM's ownership annotations and whatever else needs names the shim
has no reason to know. Macros, types, enums and declarations stay as they
are.

Writes:
  OUT.c      the unit: the shim, the tree's headers and file (cut), each
             after a #line naming it
  OUT.facts  what the glue needs to know of the tree's generation, as
             #define lines: S2_HAS_<function> for each function kept,
             S2_HAS_ENUM_<enumerator>, S2_HAS_MACRO_<macro> (defined in the
             tree's files), S2_HAS_MMOPS_<member> (struct kvm_pgtable_mm_ops),
             S2_HAS_VISIT_CTX, S2_CUT (the functions cut out), S2_SOURCE,
             S2_HEADER
Exit status: 0 written; 1 the files could not be read; 3 the tree predates
RCU-protected shared walks (a message says what it lacks).
"""
import os
import shutil
import sys
import tempfile

import clang.cindex as ci

# What stage2/kernel_tree/glue.h calls, in every generation it adapts.
DRIVEN = [
    "kvm_pgtable_stage2_map", "kvm_pgtable_stage2_unmap", "kvm_pgtable_stage2_wrprotect",
    "kvm_pgtable_stage2_mkyoung", "kvm_pgtable_stage2_test_clear_young",
    "kvm_pgtable_stage2_mkold", "kvm_pgtable_stage2_is_young",
    "kvm_pgtable_stage2_relax_perms", "kvm_pgtable_stage2_split", "kvm_pgtable_stage2_flush",
    "kvm_pgtable_stage2_destroy", "kvm_pgtable_stage2_free_unlinked",
    "kvm_pgtable_stage2_free_removed", "__kvm_pgtable_stage2_init", "kvm_pgtable_stage2_init",
    "kvm_pgtable_stage2_create_unlinked", "kvm_pgtable_stage2_pgd_size",
    "kvm_pgtable_walk", "kvm_pgtable_get_leaf",
    # helpers the glue asks about the tree's conventions
    "stage2_pte_is_locked", "stage2_pte_is_counted", "kvm_pte_valid",
]

PARSE_OPTIONS = (ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
                 | 0x200)  # CXTranslationUnit_KeepGoing


def die(msg, code=1):
    print("kernel-tree: %s" % msg, file=sys.stderr)
    sys.exit(code)


def real(path):
    return os.path.realpath(path)


def main(argv):
    if "--" not in argv or argv.index("--") != 5:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    src, hdr, s2hdr, out = argv[1:5]
    clang_args = argv[6:]
    files = {"src": src, "hdr": hdr}
    if s2hdr != "-":
        files["s2hdr"] = s2hdr

    # The tree's headers in place of the shim's stand-ins: a directory
    # searched first.
    stage = tempfile.mkdtemp(prefix="s2cut")
    try:
        os.makedirs(os.path.join(stage, "asm"))
        shutil.copyfile(hdr, os.path.join(stage, "asm", "kvm_pgtable.h"))
        if s2hdr != "-":
            shutil.copyfile(s2hdr, os.path.join(stage, "asm", "stage2_pgtable.h"))
        staged = {real(src): "src", real(os.path.join(stage, "asm", "kvm_pgtable.h")): "hdr"}
        if s2hdr != "-":
            staged[real(os.path.join(stage, "asm", "stage2_pgtable.h"))] = "s2hdr"
        try:
            tu = ci.Index.create().parse(src, args=["-x", "c", "-std=gnu11", "-I", stage] + clang_args,
                                         options=PARSE_OPTIONS)
        except ci.TranslationUnitLoadError as e:
            die("libclang could not parse %s: %s" % (src, e))
    finally:
        shutil.rmtree(stage, ignore_errors=True)

    def which(cursor):
        f = cursor.location.file
        return staged.get(real(f.name)) if f is not None else None

    # Every top-level piece of each tree file, by offset. A definition
    # whose first token comes from a macro (a `bool` return type is
    # <stdbool.h>'s) has its extent start in another file: it starts where
    # the piece before it ended.
    tops = {}
    for c in tu.cursor.get_children():
        w = which(c)
        if w is not None:
            tops.setdefault(w, []).append(c)
    spans = {}       # (file key, cursor hash) -> (start, end) offsets in the file
    for w, cs in tops.items():
        prev_end = 0
        for c in sorted(cs, key=lambda c: c.extent.end.offset):
            st = c.extent.start
            start = st.offset if st.file is not None and staged.get(real(st.file.name)) == w else prev_end
            spans[(w, c.hash)] = (start, c.extent.end.offset)
            prev_end = c.extent.end.offset

    defs = {}        # name -> (file key, cursor, start, end)
    macro_defs = {}  # name -> (file key, cursor, start, end): a kept function's macros reach further
    enums, macros, mmops = set(), set(), set()
    visit_ctx = False
    for c in tu.cursor.walk_preorder():
        w = which(c)
        if w is None:
            continue
        if c.kind == ci.CursorKind.FUNCTION_DECL and c.is_definition() and (w, c.hash) in spans:
            defs.setdefault(c.spelling, (w, c) + spans[(w, c.hash)])
        elif c.kind == ci.CursorKind.ENUM_CONSTANT_DECL:
            enums.add(c.spelling)
        elif c.kind == ci.CursorKind.MACRO_DEFINITION:
            macros.add(c.spelling)
            macro_defs.setdefault(c.spelling, (w, c, c.extent.start.offset, c.extent.end.offset))
        elif c.kind == ci.CursorKind.FIELD_DECL and c.semantic_parent.spelling == "kvm_pgtable_mm_ops":
            mmops.add(c.spelling)
        elif c.kind == ci.CursorKind.STRUCT_DECL and c.spelling == "kvm_pgtable_visit_ctx" and c.is_definition():
            visit_ctx = True
    if not any(d[0] == "src" for d in defs.values()):
        die("%s defines no function libclang could find" % src)
    if "KVM_PGTABLE_WALK_SHARED" not in enums or not visit_ctx:
        die("refused: the tree predates RCU-protected shared walks (%s): the harness drives the "
            "stage-2 code from the generation that added them on" %
            ", ".join(x for x, ok in [("no KVM_PGTABLE_WALK_SHARED", "KVM_PGTABLE_WALK_SHARED" in enums),
                                      ("no struct kvm_pgtable_visit_ctx", visit_ctx)] if not ok), 3)

    paths = {}
    for c in tu.cursor.walk_preorder():
        w = which(c)
        if w is not None and w not in paths:
            paths[w] = c.location.file
        if len(paths) == len(staged):
            break

    def identifiers(piece):
        w, _, a, b = piece
        rng = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, paths[w], a),
                                            ci.SourceLocation.from_offset(tu, paths[w], b))
        return {t.spelling for t in tu.get_tokens(extent=rng) if t.kind == ci.TokenKind.IDENTIFIER}

    kept, seen_macros, todo = set(), set(), [n for n in DRIVEN if n in defs]
    while todo:
        name = todo.pop()
        if name in kept or name in seen_macros:
            continue
        if name in defs:
            kept.add(name)
            piece = defs[name]
        else:
            seen_macros.add(name)
            piece = macro_defs[name]
        todo.extend(n for n in identifiers(piece)
                    if (n in defs and n not in kept) or (n in macro_defs and n not in seen_macros))

    texts = {}
    for key, path in files.items():
        with open(path, "rb") as f:
            texts[key] = bytearray(f.read())
    cut = []
    for name, (w, c, a, b) in sorted(defs.items(), key=lambda kv: (kv[1][0], kv[1][2])):
        if name in kept:
            continue
        data = texts[w]
        for i in range(a, b):
            if data[i] not in (0x0a,):
                data[i] = 0x20
        cut.append(name)

    with open(out + ".c", "w") as f:
        f.write('#include "stage2/kernel_tree/shim/s2_shim.h"\n')
        for key in ["hdr", "s2hdr", "src"]:
            if key in texts:
                f.write('#line 1 "%s"\n' % files[key])
                f.write(texts[key].decode("utf-8", "replace"))
                f.write("\n")
    with open(out + ".facts", "w") as f:
        for n in sorted(kept):
            f.write("#define S2_HAS_%s 1\n" % n)
        for n in sorted(enums):
            f.write("#define S2_HAS_ENUM_%s 1\n" % n)
        for n in sorted(macros):
            f.write("#define S2_HAS_MACRO_%s 1\n" % n)
        for n in sorted(mmops):
            f.write("#define S2_HAS_MMOPS_%s 1\n" % n)
        f.write("#define S2_HAS_VISIT_CTX 1\n")
        f.write('#define S2_CUT "%s"\n' % " ".join(cut))
        f.write('#define S2_KEPT "%s"\n' % " ".join(n for n in sorted(kept) if defs[n][0] == "src"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
