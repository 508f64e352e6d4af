#!/usr/bin/env bash
# Flood detection (db/flood.c, db/FLOODS.md) through ingest and
# "patchwarden query": the generated 2016-style flood is found by its Nth
# patch, counted once per message whatever the lists it came through,
# every patch of it attached, in order or not; the big threaded series,
# one series under one cover letter, is no flood; resends and oversized
# counters get their findings; real series in the corpus (tests/corpus) make no FLOOD; the query
# command filters and fails as documented.
. "$(dirname "$0")/../lib.sh"
# lines CMD...: how many lines CMD prints, or "failed (N)" when it exits
# with status N, so that a count of 0 never hides a failing command.
lines() {
	local out
	out=$("$@") || { echo "failed ($?)"; return; }
	if [ -z "$out" ]; then echo 0; else printf '%s\n' "$out" | wc -l; fi
}

gen=$TOP/tests/gen_flood.py
py=/usr/bin/python3
SIZE=300

floods() { $PW query --db "$1" floods --format json; }

# verify LABEL DIR DB [LISTS]: the facts of one ingested generator run,
# against DIR/expected.json.  LISTS (comma-separated) replaces the lists
# the flood is expected to have reached, for ingests with --list.
cat >"$T/verify.py" <<'EOF'
import json, re, subprocess, sys
from email.utils import parsedate_to_datetime
label, out, db, pw = sys.argv[1:5]
lists_override = sys.argv[5] if len(sys.argv) > 5 else ""
exp = json.load(open(out + "/expected.json"))

def check(desc, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + label + ": " + desc)
    if not cond and detail != "":
        print("#   " + str(detail)[:400])

def query(*args):
    r = subprocess.run([pw, "query", "--db", db] + list(args) + ["--format", "json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("#   query %s: exit %d: %s" % (args, r.returncode, r.stderr.strip()))
        return []
    return json.loads(r.stdout)

# Dates of the generated messages, from the arrival mbox.
dates = {}
for ent in re.split(r"(?m)^(?=From )", open(out + "/arrival.mbox").read()):
    head = ent.split("\n\n", 1)[0]
    mid = re.search(r"(?m)^Message-ID: <(.*)>$", head)
    date = re.search(r"(?m)^Date: (.*)$", head)
    if mid and date:
        dates[mid.group(1)] = int(parsedate_to_datetime(date.group(1)).timestamp())

fl = exp["flood"]
big = exp["normal"]["big_series"]
fids = set(fl["message_ids"])
bids = set(big["message_ids"][1:])		# the patches, not the cover
floods = query("floods")
by_rule = {}
for f in floods:
    by_rule.setdefault(f["rule"], []).append(f)
mass = by_rule.get("FLOOD", [])
check("one FLOOD", len(mass) == 1, [(f["sender"], f["size"]) for f in mass])
f = mass[0] if mass else {}
check("FLOOD sender is the flood's sender", f.get("sender") == fl["sender_address"], f.get("sender"))
check("FLOOD size %d: each message once" % fl["size"], f.get("size") == fl["size"], f.get("size"))
check("FLOOD shared subject", f.get("subject") == fl["subject"], f.get("subject"))
check("FLOOD claims the counter's total", f.get("claimed_total") == fl["claimed_total"], f.get("claimed_total"))
want_lists = sorted(lists_override.split(",")) if lists_override else \
    sorted(exp["lists"][k]["list_id"] for k in fl["lists"])
check("FLOOD reached %d lists" % len(want_lists), f.get("lists") == want_lists, f.get("lists"))
check("FLOOD reached %d recipients" % fl["recipients"], f.get("recipients") == fl["recipients"], f.get("recipients"))
check("FLOOD is unthreaded, an error", f.get("threaded") is False and f.get("severity") == "error",
      (f.get("threaded"), f.get("severity")))
iso = lambda t: __import__("datetime").datetime.utcfromtimestamp(t).strftime("%Y-%m-%dT%H:%M:%SZ")
fd = sorted(dates[i] for i in fids)
check("FLOOD first and last seen", (f.get("first_seen"), f.get("last_seen")) == (iso(fd[0]), iso(fd[-1])),
      (f.get("first_seen"), f.get("last_seen"), iso(fd[0]), iso(fd[-1])))
check("FLOOD shares subject and body", {"subject", "body"} <= set(f.get("shared", [])), f.get("shared"))

marked = {x["msgid"] for x in query("findings", "--rule", "FLOOD")}
check("every flood patch, and nothing else, is marked FLOOD", marked == fids,
      "missing %d, extra %d" % (len(fids - marked), len(marked - fids)))
# One series under one cover letter is one posting, whatever its size:
# no flood of anything (its size is SERIES_OVERSIZED's, below).
series = by_rule.get("FLOOD_SERIES", [])
check("the big threaded series is no FLOOD_SERIES", series == [], series)
smarked = {x["msgid"] for x in query("findings", "--rule", "FLOOD_SERIES")}
check("no big-series patch is marked FLOOD_SERIES", not (smarked & bids),
      "marked %d" % len(smarked & bids))
check("no other floods: maintainer's day, rerolls, series", len(floods) == 1,
      [(x["rule"], x["sender"], x["size"]) for x in floods])
mt = set(exp["normal"]["maintainer"]["message_ids"])
check("the maintainer's %d patches in a day carry no flood finding" % len(mt),
      not (mt & (marked | smarked)))

res = {r["message_id"] for r in exp["normal"]["resends"]}
orig = {r["original"] for r in exp["normal"]["resends"]}
got = query("findings", "--rule", "RESEND_IDENTICAL")
check("RESEND_IDENTICAL on every resend (%d) and nothing else" % len(res),
      {x["msgid"] for x in got} == res, sorted({x["msgid"] for x in got} ^ res)[:3])
check("RESEND_IDENTICAL: marked RESEND, so info", all(x["severity"] == "info" for x in got))
over = query("findings", "--rule", "SERIES_OVERSIZED")
check("SERIES_OVERSIZED once for the flood (warning) and once for the big series (info)",
      sorted((x["msgid"] in fids, x["msgid"] in bids, x["severity"]) for x in over)
      == [(False, True, "info"), (True, False, "warning")],
      [(x["msgid"][:30], x["severity"]) for x in over])
EOF
# verify LABEL DIR DB [LISTS]
verify() {
	local l=$1 d=$2 db=$3; shift 3
	$py "$T/verify.py" "$l" "$d" "$db" "$PW" "$@" || not_ok "$l: the checker exited with status $?"
}

# ---- in order, the whole arrival mbox ------------------------------------
$py "$gen" --out "$T/a" --flood-size $SIZE --total 1285 --noise 400 --seed 11 >/dev/null
db=$T/a.db
out=$($PW ingest -q --db "$db" "$T/a/arrival.mbox")
check "ingest of the arrival mbox" test "$(kv patches "$out")" -gt $SIZE
verify "in order" "$T/a" "$db"

# --progress tells the CPU flood detection took: fingerprints on the
# parser threads, filing patches on the storing one; none when it is off.
$PW ingest -q --progress 100000 --db "$T/progress-on.db" "$T/a/arrival.mbox" >/dev/null 2>"$T/progress-on"
is "progress: ingest with detection" "$?" 0
check "progress: fingerprint CPU counted" awk -F'fingerprints=' '/^progress: /{seen = 1; split($2, a, " "); if (!(a[1] > 0)) exit 1} END {exit !seen}' "$T/progress-on"
check "progress: flood filing CPU counted" awk -F'floods=' '/^progress: /{seen = 1; split($2, a, " "); if (!(a[1] > 0)) exit 1} END {exit !seen}' "$T/progress-on"
$PW ingest -q --no-flood-detection --progress 100000 --db "$T/progress-off.db" "$T/a/arrival.mbox" >/dev/null 2>"$T/progress-off"
is "progress: ingest without detection" "$?" 0
check "progress: no flood CPU when detection is off" grep -q '^progress: .* fingerprints=0.000 floods=0.000 ' "$T/progress-off"

# Rechecking the rules keeps the findings about a patch's company.
before=$(lines $PW query --db "$db" findings --rule FLOOD)
check "db recheck runs" $PW db recheck --db "$db" >/dev/null
is "db recheck keeps the FLOOD findings" "$(lines $PW query --db "$db" findings --rule FLOOD)" "$before"

# Text output: one line per flood.
txt=$($PW query --db "$db" floods)
contains "text output names rule, severity, sender and size" "$txt" \
	"FLOOD error pat.flood@example.org size=$SIZE (claims 1285)"
is "text output: one line per flood" "$(printf '%s\n' "$txt" | wc -l)" 1

# ---- detected by its Nth patch ---------------------------------------------
# split.py MBOX FROM TO OUTDIR: writes OUTDIR/pre.mbox (every delivery
# before the FROM-th distinct flood message arrives) and OUTDIR/NNNN.mbox,
# one per delivery from there on while at most TO flood messages have
# arrived; prints "NNNN flood-messages-arrived" for each.
cat >"$T/split.py" <<'EOF'
import json, os, re, sys
mbox, lo, hi, dst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
exp = json.load(open(os.path.join(os.path.dirname(mbox), "expected.json")))
fids = set(exp["flood"]["message_ids"])
os.makedirs(dst, exist_ok=True)
seen = set()
pre = []
k = 0
for ent in re.split(r"(?m)^(?=From )", open(mbox).read()):
    if not ent:
        continue
    mid = re.search(r"(?m)^Message-ID: <(.*)>$", ent.split("\n\n", 1)[0]).group(1)
    if mid in fids:
        seen.add(mid)
    if len(seen) < lo:
        pre.append(ent)
    elif len(seen) <= hi:
        k += 1
        with open(os.path.join(dst, "%04d.mbox" % k), "w") as f:
            f.write(ent)
        print("%04d %d" % (k, len(seen)))
with open(os.path.join(dst, "pre.mbox"), "w") as f:
    f.write("".join(pre))
EOF
nflood() {	# DB: the size of the FLOOD, 0 when there is none
	floods "$1" | $py -c 'import json,sys; print(sum(f["size"] for f in json.load(sys.stdin) if f["rule"] == "FLOOD"))'
}
$py "$T/split.py" "$T/a/arrival.mbox" 20 20 "$T/n20" >"$T/n20.idx"
db=$T/n20.db
$PW ingest -q --db "$db" "$T/n20/pre.mbox" >/dev/null
is "19 flood patches stored: no FLOOD yet (default count 20)" "$(nflood "$db")" 0
read -r first _ <"$T/n20.idx"
$PW ingest -q --db "$db" "$T/n20/$first.mbox" >/dev/null
is "the 20th flood patch makes the FLOOD, of 20" "$(nflood "$db")" 20

# [flood] count is a setting: with count = 5, ingesting one delivery at a
# time, the FLOOD appears exactly when the 5th flood message arrives.
printf '[flood]\ncount = 5\n' >"$T/count5.conf"
$py "$T/split.py" "$T/a/arrival.mbox" 1 6 "$T/n5" >"$T/n5.idx"
db=$T/n5.db
$PW ingest -q --config "$T/count5.conf" --db "$db" "$T/n5/pre.mbox" >/dev/null
at=none
steps=0
while read -r k nseen; do
	$PW ingest -q --config "$T/count5.conf" --db "$db" "$T/n5/$k.mbox" >/dev/null
	steps=$((steps + 1))
	size=$(nflood "$db")
	if [ "$at" = none ] && [ "$size" != 0 ]; then at="$nseen/$size"; fi
done <"$T/n5.idx"
is "count = 5: one delivery at a time ($steps), FLOOD of 5 when the 5th arrives" "$at" 5/5
check "count = 5: several deliveries stepped through" test "$steps" -ge 6

# The window is a setting too: 10 seconds holds fewer than 20 of them.
printf '[flood]\nwindow = 10\n' >"$T/w10.conf"
out=$($PW ingest -q --config "$T/w10.conf" --db "$T/w10.db" "$T/a/arrival.mbox")
check "window = 10 s: the mail stored" test "$(kv patches "$out")" -gt $SIZE
is "window = 10 s: no flood" "$(floods "$T/w10.db" | tr -d ' \n')" "[]"

# ---- through five lists ----------------------------------------------------
# Every message delivered again through five lists: still one message
# each, the flood's size unchanged, its lists the five.
db=$T/five.db
for l in lkml netdev linux-media linux-usb alsa-devel; do
	$PW ingest -q --db "$db" --list "$l" "$T/a/arrival.mbox" >/dev/null
done
verify "five lists" "$T/a" "$db" "alsa-devel,linux-media,linux-usb,lkml,netdev"
is "five lists: each message stored once" \
	"$(sqlite3 "$db" 'SELECT count(*) FROM message')" "$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["messages"])' "$T/a/expected.json")"

# ---- out of order ------------------------------------------------------------
$py "$gen" --out "$T/s" --flood-size $SIZE --total 1285 --noise 400 --seed 12 --shuffle >/dev/null
$PW ingest -q --db "$T/s.db" "$T/s/arrival.mbox" >/dev/null
verify "shuffled" "$T/s" "$T/s.db"
# List by list, each list's mail in its own order: later patches of the
# flood often arrive before earlier ones.
for m in $(ls "$T/s"/*.mbox | grep -v arrival | sort -r); do
	$PW ingest -q --db "$T/bylist.db" "$m" >/dev/null
done
verify "list by list" "$T/s" "$T/bylist.db"

# ---- no false floods on real mail ------------------------------------------
xz -dc "$CORPUS/lore-linux-mips/first-2000.mbox.xz" >"$T/mips.mbox"
db=$T/corpus.db
out=$($PW ingest -q --db "$db" "$CORPUS"/patchwork/series/*.mbox "$CORPUS/notmuch/lkml" "$T/mips.mbox")
check "corpus: stored (over 2,000 messages)" test "$(kv messages "$out")" -gt 2000
is "corpus: no FLOOD on real series (Patchwork, notmuch lkml, lore linux-mips)" \
	"$(lines $PW query --db "$db" findings --rule FLOOD)" 0
# The one tree-wide series in it, Joe Perches' "[PATCH 00/44] Remove
# unnecessary semicolons" (notmuch lkml, one cover letter, per-driver
# subjects), is one series: no flood of anything.
is "corpus: no flood at all, Joe Perches' 44-patch cleanup included" \
	"$(floods "$db" | tr -d ' \n')" "[]"
got=$($PW query --db "$db" series --format json | $py -c '
import json, sys
big = [s for s in json.load(sys.stdin) if s["patches"] >= 20]
print(len(big), sum(1 for s in big if s["flood"] is not None))')
is "corpus: the series of 20 or more patches (3) are no flood" "$got" "3 0"
is "corpus: no RESEND_IDENTICAL warning on the lore linux-mips mail (stable backports differ in tags)" \
	"$(lines $PW query --db "$db" findings --rule RESEND_IDENTICAL --list linux-mips.vger.kernel.org --severity warning)" 0

# ---- the query command -----------------------------------------------------
db=$T/a.db
n=$($PW query --db "$db" findings --rule FLOOD --from PAT.FLOOD@example.org --format json | $py -c 'import json,sys; print(len(json.load(sys.stdin)))')
is "findings --from (any case)" "$n" $SIZE
is "findings --from nobody" "$($PW query --db "$db" findings --from nobody@example.com --format json | tr -d ' \n')" "[]"
want=$($py - "$T/a" <<'EOF'
import json, re, sys
out = sys.argv[1]
fids = set(json.load(open(out + "/expected.json"))["flood"]["message_ids"])
seen = set()
for ent in re.split(r"(?m)^(?=From )", open(out + "/arrival.mbox").read()):
    head = ent.split("\n\n", 1)[0]
    m = re.search(r"(?m)^Message-ID: <(.*)>$", head)
    if m and m.group(1) in fids and "List-Id: <linux-mips.vger.kernel.org>" in head:
        seen.add(m.group(1))
print(len(seen))
EOF
)
is "findings --list linux-mips.vger.kernel.org --rule FLOOD" \
	"$(lines $PW query --db "$db" findings --rule FLOOD --list linux-mips.vger.kernel.org)" "$want"
is "findings --severity error: FLOOD is an error" \
	"$(lines $PW query --db "$db" findings --severity error --rule FLOOD)" $SIZE
is "floods --since after the flood" "$($PW query --db "$db" floods --since 2016-08-03 --format json | tr -d ' \n')" "[]"
is "floods --since before it" "$(lines $PW query --db "$db" floods --since 2016-08-01)" 1
is "floods --since with a negative UTC offset" \
	"$(lines $PW query --db "$db" floods --since 2016-08-01T00:00:00-05:00)" 1
# A read that fails is an error, not a flood with no lists and no
# recipients: here the first page of the members' index is garbage.
cp "$db" "$T/broken.db"
[ -e "$db-raw" ] && cp "$db-raw" "$T/broken.db-raw"
sqlite3 "$T/broken.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
root=$(sqlite3 "$T/broken.db" "SELECT rootpage FROM sqlite_schema WHERE name = 'flood_member_grp'")
psize=$(sqlite3 "$T/broken.db" "PRAGMA page_size")
head -c "$psize" /dev/urandom | dd of="$T/broken.db" bs="$psize" seek=$((root - 1)) \
	conv=notrunc status=none
out=$($PW query --db "$T/broken.db" floods --format json 2>"$T/err"); rc=$?
is "floods: a failed read exits 2" "$rc" 2
is "floods: a failed read prints no JSON" "$out" ""
contains "floods: a failed read says why" "$(cat "$T/err")" "malformed"
fmsg=$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["flood"]["message_ids"][42])' "$T/a/expected.json")
nmsg=$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["normal"]["maintainer"]["message_ids"][0])' "$T/a/expected.json")
got=$($PW query --db "$db" floods --message "<$fmsg>" --format json | $py -c 'import json,sys; print(" ".join("%s/%s" % (f["rule"], f["size"]) for f in json.load(sys.stdin)))')
is "floods --message: the flood a patch belongs to" "$got" "FLOOD/$SIZE"
out=$($PW query --db "$db" floods --message "<nobody@nowhere.example>" --format json 2>"$T/err"); rc=$?
is "floods --message of a message not stored: exit 2, no output" "$rc,$out" "2,"
contains "floods --message of a message not stored: says so" "$(cat "$T/err")" "no stored message has the Message-ID <nobody@nowhere.example>"
is "floods --message: a maintainer's patch belongs to none" \
	"$($PW query --db "$db" floods --message "$nmsg" --format json | tr -d ' \n')" "[]"
got=$($PW query --db "$db" series --from gus.gray@example.com --format json | $py -c '
import json, sys
s = json.load(sys.stdin)
print(len(s), s[0]["total"], s[0]["cover"], s[0]["flood"] is not None)')
is "series --from: the big series and its cover, no flood" "$got" "1 141 True False"
for args in "" "bogus" "floods --rule FLOOD" "floods --severity error" "floods --format xml" \
	"floods --since yesterday" "floods --since 2016" "floods --since 7" \
	"findings --severity loud" "series --message x@y"; do
	# shellcheck disable=SC2086
	$PW query --db "$db" $args >/dev/null 2>"$T/err"
	is "query $args: usage error, exit 2" "$?" 2
	check "query $args: says what is wrong" grep -qE '^(usage|patchwarden query)' "$T/err"
done
$PW query --db "$T/none.db" floods >/dev/null 2>&1
is "query on a missing database: exit 75 (the store cannot be opened)" "$?" 75
check "query leaves no database behind" test ! -e "$T/none.db"

# ---- a list that switches the flood rules off --------------------------------
# Four unthreaded "[PATCH n/4]" patches that each earn a finding: with
# count = 3 the list gets one flood summary (the first two held until it
# is clear, the last two answered by it); with FLOOD off for the list, no
# FLOOD finding, no summary and nothing held: one reply for the series.
# RESEND_IDENTICAL off stores none of its findings either.  The mails
# are dated hours ago: the reply policy does not answer old mail.
$py - "$T/off.mbox" <<'PY'
import sys, time
from email.utils import formatdate
t = int(time.time()) // 3600 * 3600 - 6 * 3600
out = []
for i in range(4):
    n = "m%d" % i
    out.append("""From x Thu Jan  1 00:00:00 1970
From: Ann Sender <ann@example.org>
To: foo@lists.example.org
Subject: [PATCH %d/4] %s: use a symbolic mode
Date: %s
Message-ID: <off-%d@example.org>
List-Id: <foo.lists.example.org>

Use the symbolic mode.

Signed-off-by: Ann Sender <ann@example.org>
---
diff --git a/drivers/%s.c b/drivers/%s.c
index 1111111..2222222 100644
--- a/drivers/%s.c
+++ b/drivers/%s.c
@@ -10,3 +10,3 @@
 static int debug;
-module_param(debug, int, 0444);
+module_param(debug, int, S_IRUGO);
 MODULE_PARM_DESC(debug, "debug level");

""" % (i + 1, n, formatdate(t + 600 * i, usegmt=True), i, n, n, n, n))
# The same change again, an hour later, under another Message-ID.
out.append(out[0].replace("<off-0@", "<off-again@").replace(
    formatdate(t, usegmt=True), formatdate(t + 3600, usegmt=True)))
open(sys.argv[1], "w").write("".join(out))
PY
printf '[flood]\ncount = 3\n[list *]\nmail = author\n' >"$T/on.conf"
printf '[flood]\ncount = 3\n[list foo.lists.example.org]\nmail = author\ndisable = FLOOD;RESEND_IDENTICAL\n' >"$T/off.conf"
$PW ingest -q --reply --threads 1 --config "$T/on.conf" --db "$T/on.db" "$T/off.mbox" >/dev/null
$PW ingest -q --reply --threads 1 --config "$T/off.conf" --db "$T/off.db" "$T/off.mbox" >/dev/null
is "FLOOD on: every patch has its FLOOD finding" \
	"$(lines $PW query --db "$T/on.db" findings --rule FLOOD)" 5
is "FLOOD on: the copy has RESEND_IDENTICAL" \
	"$(lines $PW query --db "$T/on.db" findings --rule RESEND_IDENTICAL)" 1
is "FLOOD on: one pending reply, the flood's summary" \
	"$($PW outbox --db "$T/on.db" list --state pending | cut -f5)" "Re: use a symbolic mode"
is "FLOOD off for the list: no FLOOD finding" \
	"$(lines $PW query --db "$T/off.db" findings --rule FLOOD)" 0
is "RESEND_IDENTICAL off for the list: no finding" \
	"$(lines $PW query --db "$T/off.db" findings --rule RESEND_IDENTICAL)" 0
is "FLOOD off for the list: the other findings stay" \
	"$(lines $PW query --db "$T/off.db" findings --rule PERM_SYMBOLIC)" 5
is "FLOOD off for the list: the flood is still recorded" \
	"$(lines $PW query --db "$T/off.db" floods)" 1
# One voice per series version: the four "[PATCH n/4]" are one series,
# answered once for the findings of all four; the copy of 1/4, an
# identical patch already answered, draws nothing.
is "FLOOD off for the list: one reply, for the series of four" \
	"$($PW outbox --db "$T/off.db" list | wc -l)|$(sqlite3 "$T/off.db" "SELECT kind || ' ' || (SELECT count(*) FROM reply_item) FROM outbox")" "1|series 4"
is "FLOOD off for the list: none held or suppressed for a flood" \
	"$($PW outbox --db "$T/off.db" list | grep -c flood)" 0
