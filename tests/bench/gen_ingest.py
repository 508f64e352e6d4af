#!/usr/bin/python3
"""Write a deterministic benchmark mbox of real list mail.

The 2,000 real linux-mips messages of tests/corpus are repeated COPIES
times; each copy rewrites every Message-ID (and the In-Reply-To and
References that name them) with a copy suffix, so every message is new to
the store and threads stay threads.  Output is mboxrd, streamed.

usage: gen_ingest.py CORPUS_XZ OUT.mbox [COPIES [FIRST]]

FIRST (default 0) numbers the first copy: copies FIRST.. are new to a
store that holds copies 0..FIRST-1 (tests/bench/web.sh writes them
while the dashboard is read).
"""
import lzma
import re
import sys

MSGID = re.compile(rb'<([^<>@\s]+@[^<>\s]+)>')


def messages(path):
    with lzma.open(path, 'rb') as f:
        cur = []
        for line in f:
            if line.startswith(b'From ') and cur:
                yield cur
                cur = []
            cur.append(line)
        if cur:
            yield cur


def main():
    src, out = sys.argv[1], sys.argv[2]
    copies = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    first = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    msgs = list(messages(src))
    n = 0
    with open(out, 'wb') as o:
        for c in range(first, first + copies):
            tag = b'.c%d' % c
            for m in msgs:
                in_headers = True
                for i, line in enumerate(m):
                    if i == 0:
                        o.write(line)
                        continue
                    if in_headers:
                        if line in (b'\n', b'\r\n'):
                            in_headers = False
                        elif c and (line[:1] in (b' ', b'\t') or
                                    line.lower().startswith((b'message-id:', b'in-reply-to:', b'references:'))):
                            line = MSGID.sub(lambda x: b'<' + x.group(1).replace(b'@', tag + b'@', 1) + b'>', line)
                    o.write(line)
                n += 1
    print(n)


if __name__ == '__main__':
    main()
