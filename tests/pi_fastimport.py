#!/usr/bin/python3
"""Append raw messages to a public-inbox v2 epoch with git fast-import,
in the v2 layout public-inbox's Import.pm writes (one commit per
message on refs/heads/master, its tree the single blob "m", author and
author date from From and Date, the Subject as commit message, the
inbox as committer), thousands of times faster than public-inbox-mda.
Only the git epoch is written: the inbox's msgmap and over indexes do
not know these messages, so deliver later mail to such an inbox with
this tool too, not with public-inbox-mda.

    pi_fastimport.py GIT_DIR INBOX_NAME INBOX_ADDRESS FILE...

Headers public-inbox drops (Status, Lines, Content-Length, Delivered-To,
X-Original-To and the others it lists) are dropped here too, so the blobs are the ones it would write.
Prints the number of commits made.
"""
import email.utils
import re
import subprocess
import sys
import time

# Import.pm's @UNWANTED_HEADERS and MDA.pm's @BAD_HEADERS (public-inbox 1.9).
DROP = re.compile(rb'^(status|x-status|lines|content-length|bytes|delivered-to|x-original-to|'
                  rb'approved|approve|x-approved|x-approve|urgent|return-receipt-to|'
                  rb'disposition-notification-to|x-confirm-reading-to|x-pmrqc)[ \t]*:', re.I)


def headers(raw):
    end = re.search(rb'\r?\n\r?\n', raw)
    head = raw[:end.start()] if end else raw
    out = {}
    for h in re.split(rb'\r?\n(?![ \t])', head):
        k, _, v = h.partition(b':')
        k = k.strip().lower().decode('ascii', 'replace')
        if k not in out:
            out[k] = re.sub(rb'\r?\n[ \t]+', b' ', v).strip().decode('utf-8', 'replace')
    return out


def strip_dropped(raw):
    m = re.search(rb'\r?\n\r?\n', raw)
    if not m:
        return raw
    lines = re.split(rb'(?<=\n)', raw[:m.start()] + b'\n')
    kept, skip = [], False
    for line in lines:
        if not line:
            continue
        if line[:1] in (b' ', b'\t') and kept is not None:
            if not skip:
                kept.append(line)
            continue
        skip = bool(DROP.match(line))
        if not skip:
            kept.append(line)
    return b''.join(kept) + raw[m.start() + 1:] if raw[m.start():m.start() + 1] == b'\n' \
        else b''.join(kept) + raw[m.start() + 2:]


def ident(s):
    return re.sub(r'[<>\n]', '', s).strip()


def main():
    gitdir, name, addr = sys.argv[1:4]
    files = sys.argv[4:]
    have = subprocess.run(['git', '--git-dir', gitdir, 'rev-parse', '-q', '--verify',
                           'refs/heads/master'], capture_output=True).returncode == 0
    p = subprocess.Popen(['git', '--git-dir', gitdir, 'fast-import', '--quiet'],
                         stdin=subprocess.PIPE)
    w = p.stdin
    now = int(time.time())
    for i, f in enumerate(files):
        raw = strip_dropped(open(f, 'rb').read())
        h = headers(raw)
        an, aa = email.utils.parseaddr(h.get('from', ''))
        try:
            when = int(email.utils.parsedate_to_datetime(h['date']).timestamp())
        except Exception:
            when = now
        subj = h.get('subject', '').replace('\n', ' ') or '(no subject)'
        w.write(b'blob\nmark :%d\ndata %d\n' % (i + 1, len(raw)) + raw + b'\n')
        msg = (subj + '\n').encode('utf-8')
        w.write(('commit refs/heads/master\nauthor %s <%s> %d +0000\n'
                 'committer %s <%s> %d +0000\n' %
                 (ident(an) or ident(aa) or 'unknown', ident(aa), when,
                  ident(name), ident(addr), now)).encode('utf-8'))
        w.write(b'data %d\n' % len(msg) + msg)
        if i == 0 and have:
            w.write(b'from refs/heads/master^0\n')
        w.write(b'M 100644 :%d m\n\n' % (i + 1))
    w.close()
    if p.wait():
        sys.exit('git fast-import failed')
    print(len(files))


if __name__ == '__main__':
    main()
