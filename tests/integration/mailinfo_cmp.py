#!/usr/bin/env python3
"""Compares `patchwarden parse --format json` with `git mailinfo -u
--scissors` (patchwarden honours scissors lines and in-body From:,
Subject: and Date: lines as `git am --scissors` does).

Usage: mailinfo_cmp.py PARSE_JSON WORKDIR [EXPECTED] < LIST
LIST has one line per message: INDEX<TAB>LABEL<TAB>MAILFILE[<TAB>JSON],
where INDEX is the message's 1-based "index" in the JSON (PARSE_JSON, or
the line's own JSON file when given) and MAILFILE the same message on its
own for git mailinfo.  Prints TAP lines ("ok - ..." / "not ok -
...") for author, email, subject, commit message and patch.

git's side comes from EXPECTED (xz-compressed JSON, one line per
message: what git mailinfo printed and wrote, and the patch-id of its
patch), as git's t5100 keeps its expected files; with UPDATE set in the
environment git mailinfo runs on every MAILFILE and EXPECTED is written
anew; without EXPECTED git mailinfo runs on every MAILFILE and nothing
is kept.  The patch-ids of patchwarden's diffs come from one git patch-id
run over all of them.

Differences that are argued rather than bugs (each is printed as a
"# skip" comment, so a reader sees it):
 - a From: without a display name: mailinfo prints the address as the
   name, patchwarden leaves the name empty;
 - carriage returns: a base64 or quoted-printable body that decodes to
   CRLF lines keeps its CRs in mailinfo's output (it only warns, see
   --quoted-cr); patchwarden turns CRLF into LF, so CRs are dropped from
   mailinfo's patch before comparing;
 - text after the diff: mailinfo's patch file keeps everything after the
   separator (diffstat, signature, list footers, HTML alternatives), so
   the patch is compared with `git patch-id --stable` (empty for both
   when the diff has no "diff " header lines) and by checking that
   patchwarden's diff occurs in mailinfo's patch text;
 - PGP/MIME: mailinfo reads the multipart/signed signature part as text;
   patchwarden skips it (as notmuch does), so mailinfo's message is cut
   at "-----BEGIN PGP SIGNATURE-----";
 - HTML alternatives: mailinfo reads text/html parts as text, patchwarden
   ignores them (patchwork 0019/0020 expect no "<div"), so the commit
   message and patch-id are not compared for mails with an HTML part;
 - unknown charsets: mailinfo stops ("cannot convert from none"), while
   patchwork expects the fallback charsets to be tried (0010); then only
   "something was read" is checked;
 - patches in attachments: mailinfo puts the attachment's mail headers
   and preamble into the commit message; patchwarden keeps only the
   inline text, so the commit message is compared only for inline diffs.
"""
import json
import lzma
import os
import re
import subprocess
import sys

js, work = sys.argv[1:3]
expected = sys.argv[3] if len(sys.argv) > 3 else None
# Without EXPECTED git mailinfo runs on every message (mailcases.sh's
# few cases), as with UPDATE, and nothing is written.
live = expected is None
update = bool(os.environ.get("UPDATE")) and not live
loaded = {}


def parsed(path):
    if path not in loaded:
        loaded[path] = {x["index"]: x for x in json.load(open(path))} if path != "-" else {}
    return loaded[path]


def tap(label, ok, what, got=None, want=None):
    print(("ok" if ok else "not ok") + " - %s: %s" % (label, what))
    if not ok:
        at = 0
        if isinstance(got, str) and isinstance(want, str):
            while at < min(len(got), len(want)) and got[at] == want[at]:
                at += 1
            at = max(0, at - 60)
            print("#   (first difference near offset %d)" % at)
        print("#   got:  %r" % (got[at:at + 200] if isinstance(got, str) else got))
        print("#   want: %r" % (want[at:at + 200] if isinstance(want, str) else want))


def norm(text):
    lines = [l.rstrip() for l in text.replace("\r", "").split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def patch_id(text):
    r = subprocess.run(["git", "patch-id", "--stable"], input=text.encode(),
                       capture_output=True)
    return r.stdout.decode().split(" ")[0]


def patch_ids(texts):
    """The patch-ids of TEXTS (a list) from one git patch-id run: each
    text follows a "commit N" line, as in git log -p; git prints nothing
    for a text without a diff."""
    buf = []
    for i, t in enumerate(texts):
        buf.append("commit %040x\n\n" % (i + 1))
        buf.append(t if t.endswith("\n") or not t else t + "\n")
    r = subprocess.run(["git", "patch-id", "--stable"], input="".join(buf).encode(),
                       capture_output=True)
    ids = [""] * len(texts)
    for line in r.stdout.decode().split("\n"):
        if " " in line:
            pid, commit = line.split(" ", 1)
            ids[int(commit, 16) - 1] = pid
    return ids


def mailinfo(label, mailfile):
    """git's side for one message: run (UPDATE) or read from EXPECTED."""
    if not update and not live:
        return want.get(label)
    mi = subprocess.run(["git", "mailinfo", "-u", "--scissors", work + "/msg", work + "/patch"],
                        stdin=open(mailfile, "rb"), capture_output=True)
    info = {}
    for line in mi.stdout.decode("utf-8", "replace").split("\n"):
        if ": " in line:
            k, v = line.split(": ", 1)
            info.setdefault(k, v)
    raw = open(mailfile, "rb").read().decode("latin-1")
    rec = {"label": label, "rc": mi.returncode,
           "stderr": mi.stderr.decode("utf-8", "replace").strip(), "info": info,
           "html": bool(re.search(r"^Content-Type: *text/html", raw, re.M | re.I)),
           "attachment": bool(re.search(r"^Content-Disposition: *attachment", raw, re.M | re.I))}
    if mi.returncode == 0:
        msg = open(work + "/msg", "rb").read().decode("utf-8", "replace")
        patch = open(work + "/patch", "rb").read().decode("utf-8", "replace")
        rec["msg"] = msg.split("\n-----BEGIN PGP SIGNATURE-----\n")[0]
        rec["patch"] = patch.replace("\r\n", "\n")
        rec["patch_id"] = patch_id(rec["patch"])
    if update:
        written.append(rec)
    return rec


want = {}
written = []
if not update and not live:
    with lzma.open(expected, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            want[r["label"]] = r


def compare(idx, label, m, g, diff_id):
    if m is None:
        tap(label, False, "message %d in the parse output" % idx, "absent", "present")
        return
    if g is None:
        tap(label, False, "git's side in %s (UPDATE=1 writes it)" % expected, "absent", "present")
        return
    info = g["info"]
    if g["rc"] != 0:
        print("# skip %s: git mailinfo gave up: %s" % (label, g["stderr"]))
        tap(label, bool(m["diff"] or m["commit_msg"]), "text read where mailinfo gave up",
            "nothing", "a diff or a message")
        return
    html = g["html"]
    msg = g["msg"]
    patch = g["patch"]

    if m["from_name"]:
        tap(label, m["from_name"] == info.get("Author", ""), "author",
            m["from_name"], info.get("Author", ""))
    else:
        print("# skip %s: no display name (mailinfo uses the address)" % label)
    tap(label, m["subject_clean"] == info.get("Subject", ""), "subject",
        m["subject_clean"], info.get("Subject", ""))
    tap(label, m["from_addr"] == info.get("Email", "").lower(), "email",
        m["from_addr"], info.get("Email", ""))

    ours = m["commit_msg"] or ""
    diff = m["diff"] or ""
    inline = diff and diff.split("\n", 1)[0] in (m["commit_msg"] + patch) and \
        not g["attachment"]
    if html:
        print("# skip %s: mailinfo reads the HTML alternative as text; message and patch-id not compared" % label)
    elif diff and not inline:
        print("# skip %s: diff in an attachment; commit message not compared" % label)
    else:
        tap(label, norm(ours) == norm(msg), "commit message", norm(ours), norm(msg))

    if not diff:
        # mailinfo's patch file then holds at most a diffstat or trailing text
        tap(label, g["patch_id"] == "", "no diff in mailinfo either", g["patch_id"], "")
    else:
        if not html:
            tap(label, diff_id == g["patch_id"],
                "patch-id", diff_id, g["patch_id"])
        tap(label, diff in patch, "diff text occurs in mailinfo's patch",
            diff[:80], patch[:80])


todo = []
for line in sys.stdin:
    cols = line.rstrip("\n").split("\t")
    idx, label = int(cols[0]), cols[1]
    todo.append((idx, label, parsed(cols[3] if len(cols) > 3 else js).get(idx),
                 mailinfo(label, cols[2])))
diffs = [m["diff"] if m and m["diff"] else "" for _, _, m, _ in todo]
for (idx, label, m, g), diff_id in zip(todo, patch_ids(diffs)):
    compare(idx, label, m, g, diff_id)
if update:
    with lzma.open(expected, "wt", encoding="utf-8", preset=9) as f:
        for r in written:
            f.write(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n")
    print("# UPDATE: wrote %s (%d messages)" % (expected, len(written)))
