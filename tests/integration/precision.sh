#!/usr/bin/env bash
# Precision on real list mail: tests/cases/precision/GROUP.mbox, each a
# group of public linux-hwmon or linux-iio messages in archive order
# (tests/cases/precision/README.md names their source), beside
# GROUP.expected.  Each group goes through "patchwarden run" into a
# fresh store, as if it had just arrived, with a configuration that
# answers old mail and whose hourly limits never hold a reply back;
# then every message gets one line: its kind (and its date when none is
# stored or it lies in the future), its findings by rule and
# severity, and whether it was answered (sent, suppressed and why, or
# none and why).  Flood lines follow.  One TAP line per group, which
# fails on any difference; UPDATE=1 rewrites the .expected files for
# review.
#
# Two checks hold whatever the .expected files say: no reply is queued
# to automated mail (the Message-IDs of automated.list: stable notices,
# AUTOSEL, stable review patches, robots), and every reply composed is
# under 60 lines; and every message of automated.list is stored as
# automated (message.automated), every other one as a person's.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
dir=$TOP/tests/cases/precision

# report.py PW DB MBOX REPLIES: prints the lines compared with
# GROUP.expected, in the order of the mbox, and appends "STATE
# IN-REPLY-TO BODY-LINES" per stored reply to REPLIES.  Findings,
# patches, floods and replies come from "patchwarden query" and "outbox
# list"; the kind of a message that is not a patch and the text of each
# reply are read from the store (read-only), since one "query message"
# per message would take a minute for the corpus.
cat >"$T/report.py" <<'PYEOF'
import json, mailbox, sqlite3, subprocess, sys, time
pw, db, path, replies_out = sys.argv[1:5]

def query(*args):
    out = subprocess.run([pw] + list(args) + ["--db", db, "--format", "json"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)

def msgid(msg):
    mid = " ".join((msg.get("Message-ID") or "").split())
    return mid[1:].split(">")[0] if mid.startswith("<") else mid

patches = {p["msgid"]: p for p in query("query", "patches", "--limit", "0")}
findings = {}
for f in query("query", "findings", "--severity", "info", "--limit", "0"):
    k = "%s:%s" % (f["rule"], f["severity"])
    c = findings.setdefault(f["msgid"], {})
    c[k] = c.get(k, 0) + 1
outbox = query("outbox", "list")
replies = {}
for r in outbox:
    replies.setdefault(r["in_reply_to"], []).append(r)
floods = query("query", "floods", "--limit", "0")
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
kinds = {}
dates = {}
machine = {}
for mid, kind, date, auto in con.execute(
        "SELECT msgid, kind, date, automated FROM message"):
    kinds[mid] = kind
    # Why a machine sent it, when one did: never answered, never
    # counted against a person.
    machine[mid] = ' automated="%s"' % auto if auto else ""
    # A date is shown only when it is wrong: none stored, or later than
    # the run (a sender's clock off by decades).
    dates[mid] = " date=unknown" if date is None else \
        " date=future" if date > time.time() + 86400 else ""
with open(replies_out, "a") as out:
    for r in outbox:
        raw = con.execute("SELECT raw FROM outbox WHERE id = ?", (r["id"],)).fetchone()[0]
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        # The body: what follows the blank line after the headers.
        body = text.replace("\r\n", "\n").split("\n\n", 1)[-1].rstrip("\n")
        out.write("%s %s %d\n" % (r["state"], r["in_reply_to"], len(body.split("\n"))))

# One voice per series version (bot/reply_policy.c): a patch answered
# by the reply to its series, and one whose findings were all reported
# before (on another version or an identical copy) draws none itself.
in_series = {}
for mid, state, irt in con.execute(
        "SELECT m.msgid, o.state, o.in_reply_to FROM reply_item r"
        " JOIN message m ON m.id = r.message JOIN outbox o ON o.id = r.outbox"
        " WHERE o.message <> r.message GROUP BY m.msgid"):
    in_series[mid] = "%s (in the reply to %s)" % (state, irt)
copies = set(mid for (mid,) in con.execute(
    "SELECT DISTINCT m.msgid FROM message m"
    " JOIN flood_patch_id a ON a.message = m.id"
    " JOIN flood_patch_id b ON b.key = a.key AND b.message <> a.message"
    " JOIN reply_item r ON r.message = b.message"))
told = set(mid for (mid,) in con.execute(
    "SELECT m.msgid FROM message m JOIN patch p ON p.message = m.id"
    " WHERE NOT EXISTS (SELECT 1 FROM finding f"
    "  LEFT JOIN finding_line l ON l.finding = f.id"
    "  WHERE f.patch = p.id AND f.severity > 0 AND NOT EXISTS"
    "  (SELECT 1 FROM reply_item r WHERE r.message <> m.id"
    "   AND r.rule = f.rule AND r.file = coalesce(f.file, '')"
    "   AND r.added = coalesce(l.text, f.message)))"))

seen = set()
for msg in mailbox.mbox(path):
    mid = msgid(msg)
    if not mid:
        print("(a message without Message-ID)")
        continue
    if mid in seen:
        continue
    seen.add(mid)
    if mid not in kinds:
        print("%s not stored" % mid)
        continue
    kind = kinds[mid]
    counts = findings.get(mid, {})
    text = ",".join(k if n == 1 else "%s*%d" % (k, n)
                    for k, n in sorted(counts.items())) or "-"
    if mid in replies:
        parts = []
        for r in replies[mid]:
            s = r["state"]
            if r["kind"] != "patch":
                s += "[%s]" % r["kind"]
            if r.get("reason"):
                s += " (%s)" % r["reason"]
            parts.append(s)
        reply = "; ".join(parts)
    elif mid in in_series:
        reply = in_series[mid]
    elif kind != "patch":
        reply = "none (not a patch)"
    elif patches.get(mid, {}).get("flood") is not None:
        reply = "none (in a flood)"
    elif not counts:
        reply = "none (no findings)"
    elif all(k.endswith(":info") for k in counts):
        reply = "none (only info findings)"
    elif mid in copies:
        reply = "none (an identical copy of a patch answered)"
    elif mid in told:
        reply = "none (every finding reported before)"
    else:
        reply = "none (findings at warning or above, yet no reply)"
    print("%s kind=%s%s%s findings=%s reply=%s"
          % (mid, kind, machine[mid], dates[mid], text, reply))
for f in floods:
    print("flood %s rule=%s severity=%s size=%s claims=%s threaded=%s reported=%s"
          % (f["first_message"], f["rule"], f["severity"], f["size"],
             f["claimed_total"], str(f["threaded"]).lower(),
             str(f["reported"]).lower()))
PYEOF

groups=0 messages=0
: >"$T/replies"
for mbox in "$dir"/*.mbox; do
	name=$(basename "$mbox" .mbox)
	groups=$((groups + 1))
	messages=$((messages + $(grep -c '^From mboxrd@z ' "$mbox")))
	mkdir -p "$T/$name"
	# No [smtp] url: replies go to the dry-run mbox.
	cat >"$T/$name/pw.conf" <<EOF
[reply]
max_age = 0
per_recipient_per_hour = 100000
global_per_hour = 100000
dry_run_mbox = $T/$name/outbox.mbox
[list *]
mail = author
EOF
	db=$T/$name/pw.db
	if ! $PW run --config "$T/$name/pw.conf" --db "$db" "$mbox" >"$T/$name/run.out" 2>&1; then
		not_ok "$name: patchwarden run failed"
		sed 's/^/#   /' "$T/$name/run.out" | tail -n 5
		continue
	fi
	if ! got=$($PY "$T/report.py" "$PW" "$db" "$mbox" "$T/replies" 2>"$T/$name/report.err"); then
		not_ok "$name: the store could not be read"
		sed 's/^/#   /' "$T/$name/report.err" | tail -n 5
		continue
	fi
	printf '%s\n' "$got" >>"$T/all.lines"
	if [ -n "${UPDATE:-}" ]; then
		printf '%s\n' "$got" >"$dir/$name.expected"
		echo "# $name updated"
		continue
	fi
	if [ ! -f "$dir/$name.expected" ]; then
		not_ok "$name has no .expected (UPDATE=1 writes it)"
		continue
	fi
	want=$(cat "$dir/$name.expected")
	if [ "$got" = "$want" ]; then
		ok "$name: every message as expected"
	else
		not_ok "$name: differs from $name.expected"
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | sed 's/^/#   /'
	fi
done

check "the corpus holds at least 150 messages ($messages in $groups groups)" \
	test "$messages" -ge 150
# Every message of the corpus is named in the README with its source.
missing=$($PY - "$dir" <<'PYEOF'
import glob, mailbox, sys
readme = open(sys.argv[1] + "/README.md", encoding="utf-8").read()
for path in sorted(glob.glob(sys.argv[1] + "/*.mbox")):
    for msg in mailbox.mbox(path):
        mid = " ".join((msg.get("Message-ID") or "").split()).strip("<>")
        if "`%s`" % mid not in readme:
            print(path.split("/")[-1], mid or "(no Message-ID)")
PYEOF
)
is "README.md names every message of the corpus" "$missing" ""

# Automated mail is never answered: a reply to it may be stored as
# suppressed, never queued or sent.  This fails on the code of
# 2026-12-04, which answers stable notices; it passes once the bot
# recognises stable notices, AUTOSEL, stable review patches and robots.
answered=$(grep -vE '^#|^$' "$dir/automated.list" | while read -r mid _; do
	awk -v m="$mid" '$2 == m && $1 != "suppressed" { print $2 " (" $1 ")" }' "$T/replies"
done)
is "no reply is queued to automated mail ($(grep -cvE '^#|^$' "$dir/automated.list") messages)" \
	"$answered" ""
# The bot's judgement of who is a machine is the corpus's: each message
# of automated.list is stored with a reason, and no other one is.
listed=$(grep -vE '^#|^$' "$dir/automated.list" | cut -f1 | sort -u)
marked=$(grep -E '^[^ ]+ kind=[a-z]+ automated=' "$T/all.lines" | cut -d' ' -f1 | sort -u)
is "automated.list is what the bot stores as automated" \
	"$(comm -3 <(printf '%s\n' "$listed") <(printf '%s\n' "$marked") | sed 's/^\t/+ /; s/^[^+]/- &/')" ""
# A reply a list reads whole: under 60 lines of body.  This fails on the
# code of 2026-12-04, which lists every finding of a patch.
long=$(awk '$3 >= 60 { print $2 " (" $3 " lines)" }' "$T/replies")
is "every reply composed is under 60 lines ($(wc -l <"$T/replies") replies)" "$long" ""
