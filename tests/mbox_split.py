#!/usr/bin/python3
"""Split an mbox (mboxrd or mboxo) into one raw message per file, for
public-inbox-mda, tests/pi_deliver.pl or a Maildir.

    mbox_split.py [--unique] [--limit N] [--ids FILE] [--mbox FILE] [--crlf] MBOX OUTDIR

Files are OUTDIR/000001, 000002, ... in mbox order.  The From_ line is
dropped and mboxrd escaping undone (">From " -> "From ", ">>From " ->
">From ").  --unique keeps only the first message of each Message-ID and
drops messages without one (public-inbox would make one up, the bot
another), so that "every message stored once" has one count; --ids
writes each kept message's Message-ID, without <>, one per line;
--mbox writes the kept messages again as one mboxrd (the same messages
for patchwarden ingest);
--crlf writes CRLF line ends (what an IMAP APPEND sends).  Prints the
number of files written.
"""
import argparse
import os
import re

ESC = re.compile(rb'^>(>*From )')
ESC_OUT = re.compile(rb'^(>*From )')
MID = re.compile(rb'<([^<>\s]+)>')


def messages(path):
    cur = None
    with open(path, 'rb') as f:
        for line in f:
            if line.startswith(b'From '):
                if cur is not None:
                    yield cur
                cur = []
                continue
            if cur is not None:
                cur.append(ESC.sub(rb'\1', line))
    if cur is not None:
        yield cur


def message_id(lines):
    hdr = None
    for line in lines:
        if line in (b'\n', b'\r\n'):
            break
        if hdr is not None and line[:1] in (b' ', b'\t'):
            hdr += line
            continue
        if hdr is not None:
            break
        if line.lower().startswith(b'message-id:'):
            hdr = line[len(b'message-id:'):]
    if hdr is None:
        return None
    m = MID.search(hdr)
    return m.group(1).decode('utf-8', 'replace') if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--unique', action='store_true')
    ap.add_argument('--limit', type=int, default=0)
    ap.add_argument('--ids')
    ap.add_argument('--crlf', action='store_true')
    ap.add_argument('--mbox', dest='mbox_out')
    ap.add_argument('mbox')
    ap.add_argument('outdir')
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    seen = set()
    ids = open(a.ids, 'w') if a.ids else None
    mbox = open(a.mbox_out, 'wb') if a.mbox_out else None
    n = 0
    for lines in messages(a.mbox):
        mid = message_id(lines)
        if a.unique:
            if mid is None or mid in seen:
                continue
            seen.add(mid)
        n += 1
        # An mbox's last line before the next From_ is the separator.
        if lines and lines[-1] in (b'\n', b'\r\n'):
            lines = lines[:-1]
        data = b''.join(lines)
        if a.crlf:
            data = re.sub(rb'\r?\n', b'\r\n', data)
        with open(os.path.join(a.outdir, '%06d' % n), 'wb') as f:
            f.write(data)
        if ids:
            ids.write('%s\n' % (mid or ''))
        if mbox:
            mbox.write(b'From mboxrd@z Thu Jan  1 00:00:00 1970\n')
            for line in data.splitlines(True):
                mbox.write(ESC_OUT.sub(rb'>\1', line))
            mbox.write(b'\n' if data.endswith(b'\n') else b'\n\n')
        if a.limit and n >= a.limit:
            break
    if ids:
        ids.close()
    if mbox:
        mbox.close()
    print(n)


if __name__ == '__main__':
    main()
