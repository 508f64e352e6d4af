#!/usr/bin/python3
"""Export messages of a public-inbox v1 archive (a git repository whose
every commit holds one message as the blob `m`) as one mboxrd, oldest
first: how tests/corpus/lore-*/ and tests/cases/precision/ were made
from the linux-mailinglist-archives mirrors.

    pi2mbox.py REPO [--grep REGEX] [--msgid ID...] [--last N] > OUT.mbox

--grep keeps messages whose bytes match REGEX, --msgid those whose
Message-ID (without <>) is listed, --last reads only the newest N
commits.  Each message is written byte for byte, with a "From mboxrd@z"
line before it and its "From " lines quoted (mboxrd).
"""
import argparse
import re
import subprocess
import sys
import threading


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repo")
    ap.add_argument("--grep")
    ap.add_argument("--msgid", nargs="*")
    ap.add_argument("--last", type=int)
    a = ap.parse_args()
    revs = subprocess.run(["git", "-C", a.repo, "log", "--reverse", "--format=%H"],
                          capture_output=True, text=True, check=True).stdout.split()
    if a.last:
        revs = revs[-a.last:]
    cat = subprocess.Popen(["git", "-C", a.repo, "cat-file", "--batch"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    names = "".join(r + ":m\n" for r in revs).encode()

    def feed():
        cat.stdin.write(names)
        cat.stdin.close()

    threading.Thread(target=feed, daemon=True).start()
    want = set(a.msgid or [])
    grep = re.compile(a.grep.encode()) if a.grep else None
    out = sys.stdout.buffer
    while True:
        head = cat.stdout.readline()
        if not head:
            break
        parts = head.split()
        if len(parts) < 3 or parts[1] != b"blob":
            continue		# a commit without m (a deletion): "missing"
        data = cat.stdout.read(int(parts[2]))
        cat.stdout.read(1)
        if grep and not grep.search(data):
            continue
        if want:
            m = re.search(rb"^Message-ID:\s*<?([^>\s]+)>?", data, re.I | re.M)
            if not m or m.group(1).decode("utf-8", "replace") not in want:
                continue
        out.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n")
        for line in data.split(b"\n"):
            if re.match(rb"^>*From ", line):
                line = b">" + line
            out.write(line + b"\n")
        if not data.endswith(b"\n"):
            out.write(b"\n")
    cat.wait()


if __name__ == "__main__":
    main()
