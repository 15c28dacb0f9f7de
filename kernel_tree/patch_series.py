#!/usr/bin/python3
"""kernel_tree/patch_series.py PATCH [--split DIR]

What a --patch file is: one patch (what `git diff` or `diff -u` writes, or
one `git format-patch` mail), a series (several mails in one mbox, as `git
format-patch --stdout` or a mailing-list archive writes them: applied in
order), or not a patch at all. Prints JSON on stdout:

  {"patches": [{"n": 1, "subject": "[PATCH v6 2/5] arm64/mm: ...",
                "files": [{"path": "arch/arm64/mm/contpte.c", "hunks": 3}, ...],
                "file": "DIR/0001.patch"}]}

The subject is the mail's Subject header with its folded lines joined
(RFC 5322 folding, and RFC 2047 encoded words decoded), the [PATCH ...]
prefix kept; a bare diff has none (""). files are the paths the patch
changes (-p1: the b/ side, the a/ side for a deleted file) with their hunk
counts (a binary change counts 0). With --split DIR each patch is also
written to DIR/NNNN.patch, to be applied one after the other.

Exit: 0 a patch or a series; 1 not a patch (empty, binary, or no unified
diff in it: the reason on stderr, in one line); 2 usage or unreadable.
"""
import email
import email.header
import json
import os
import re
import sys

# The line that starts each mail of an mbox (git format-patch writes
# "From <sha> Mon Sep 17 00:00:00 2001"; archives "From addr date").
MBOX_FROM = re.compile(r"^From \S+ .*\d{4}$")
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
PLUS = re.compile(r"^\+\+\+ (\S+)")
MINUS = re.compile(r"^--- (\S+)")


def split_mails(text):
    """The mails of an mbox, or [text] when it is not one."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, l in enumerate(lines) if MBOX_FROM.match(l.rstrip("\n"))]
    if not starts:
        return [text]
    # anything before the first separator belongs to the first mail
    starts[0] = 0
    return ["".join(lines[a:b]) for a, b in zip(starts, starts[1:] + [len(lines)])]


def subject_of(mail):
    """The Subject header, folded lines joined, encoded words decoded."""
    head = re.split(r"\r?\n\r?\n", mail, maxsplit=1)[0]
    # a leading mbox "From " line is not a header
    head = re.sub(r"^From [^\n]*\n", "", head)
    msg = email.message_from_string(head + "\n\n")
    raw = msg.get("Subject")
    if raw is None:
        return ""
    try:
        text = str(email.header.make_header(email.header.decode_header(str(raw))))
    except (UnicodeDecodeError, LookupError, email.errors.HeaderParseError):
        text = str(raw)
    return " ".join(text.split())


def strip1(name):
    """-p1: a/arch/... -> arch/..."""
    return name.split("/", 1)[1] if "/" in name else name


def files_of(mail):
    """[{"path", "hunks"}] in the order the diff names them: a file starts at
    a "--- NAME" line followed at once by "+++ NAME"."""
    out, cur = [], None
    lines = mail.splitlines()
    for i, line in enumerate(lines):
        m = MINUS.match(line)
        p = PLUS.match(lines[i + 1]) if m and i + 1 < len(lines) else None
        if p:
            name = m.group(1) if p.group(1) == "/dev/null" else p.group(1)
            cur = {"path": strip1(name), "hunks": 0}
            out.append(cur)
            continue
        b = re.match(r"^Binary files (\S+) and (\S+) differ", line)
        if b:
            name = b.group(1) if b.group(2) == "/dev/null" else b.group(2)
            out.append({"path": strip1(name), "hunks": 0})
            cur = None
            continue
        if cur is not None and HUNK.match(line):
            cur["hunks"] += 1
    return out


def main(argv):
    args = argv[1:]
    split = None
    if len(args) == 3 and args[1] == "--split":
        split = args[2]
        args = args[:1]
    if len(args) != 1:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    path = args[0]
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        print("cannot read '%s': %s" % (path, e.strerror), file=sys.stderr)
        return 2
    if not data.strip():
        print("'%s' is not a patch: it is empty" % path, file=sys.stderr)
        return 1
    if b"\0" in data[:65536]:
        print("'%s' is not a patch: it is a binary file" % path, file=sys.stderr)
        return 1
    text = data.decode("utf-8", errors="replace")
    if not any(HUNK.match(l) or l.startswith("diff --git ") for l in text.splitlines()):
        print("'%s' is not a patch: it holds no unified diff (no '@@ -N,M +N,M @@' hunk; "
              "give what git diff, git format-patch or diff -u write)" % path, file=sys.stderr)
        return 1
    patches = []
    for mail in split_mails(text):
        files = files_of(mail)
        if not files:
            continue        # a cover letter, or a mail without a diff
        patches.append({"n": len(patches) + 1, "subject": subject_of(mail), "files": files, "text": mail})
    if not patches:
        print("'%s' is not a patch: none of its parts changes a file" % path, file=sys.stderr)
        return 1
    if split:
        os.makedirs(split, exist_ok=True)
    for p in patches:
        text = p.pop("text")
        if split:
            p["file"] = os.path.join(split, "%04d.patch" % p["n"])
            with open(p["file"], "w", encoding="utf-8") as f:
                f.write(text)
    json.dump({"patches": patches}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
