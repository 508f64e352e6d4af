#!/usr/bin/env bash
# patchwarden subscribe and poll on local sources: a public-inbox archive
# made by "patchwarden archive" and subscribed by path, read where it is
# (raw bytes stay in the archive, "db recheck" reads them there), and a
# Maildir (new messages move to cur/ once stored).  The first poll is
# backfill; what arrives later is answered once.
. "$(dirname "$0")/../lib.sh"

q() { sqlite3 -batch -noheader "$1" "$2"; }
conf=$TOP/tests/data/run.conf	# dry-run replies, no age limit
db=$T/pw.db

# ---- an archive by path ----
out=$($PW archive "$T/inbox" "$TOP/tests/data/sample.mbox" 2>"$T/err")
is "archive: exit status" "$?" 0
contains "archive: says how many" "$out" "archived 61 messages"
is "archive: one commit per message" \
	"$(git -C "$T/inbox/git/0.git" rev-list --count master)" 61
is "archive: each commit holds the blob m" \
	"$(git -C "$T/inbox/git/0.git" ls-tree --name-only master)" m

out=$($PW subscribe --db "$db" add sample "$T/inbox" --interval 30s)
is "subscribe add: exit status" "$?" 0
contains "subscribe add: says backfill" "$out" "backfill"
$PW subscribe --db "$db" add sample "$T/inbox" 2>"$T/err"
is "subscribe add: a name is taken once" "$?" 2
$PW subscribe --db "$db" add 'a/b' "$T/inbox" 2>"$T/err"
is "subscribe add: a name with a slash is refused" "$?" 2
$PW subscribe --db "$db" add nowhere "$T/none" 2>"$T/err"
is "subscribe add: a missing path is refused" "$?" 2
contains "subscribe add: says why" "$(cat "$T/err")" "no such file or folder"

out=$($PW poll --config "$conf" --db "$db")
is "first poll: exit status" "$?" 0
is "first poll: 61 messages" "$(kv messages "$out")" 61
is "first poll: stored once each" "$(q "$db" "SELECT count(*) FROM message")" 61
is "first poll: bytes kept in the archive, not copied" \
	"$(q "$db" "SELECT count(*) FROM message WHERE git_blob IS NOT NULL AND raw_id IS NULL")" 61
is "first poll: backfill is never answered" \
	"$(q "$db" "SELECT count(*) FROM outbox WHERE state <> 'suppressed'")" 0
is "first poll: the cursor is the archive's tip" \
	"$(q "$db" "SELECT value FROM cursor WHERE source = 'sub:1:git/0'")" \
	"$(git -C "$T/inbox/git/0.git" rev-parse master)"
out=$($PW poll --config "$conf" --db "$db")
is "second poll: nothing new" "$(kv messages "$out")" 0

$PW archive "$T/inbox" "$TOP/tests/data/arrival.eml" >/dev/null
out=$($PW poll --config "$conf" --db "$db")
is "a new patch: stored" "$(kv patches "$out")" 1
is "a new patch: one reply queued" \
	"$(q "$db" "SELECT count(*) FROM outbox WHERE state = 'pending'")" 1
$PW poll --config "$conf" --db "$db" >/dev/null
is "a poll after: still one reply to it" \
	"$(q "$db" "SELECT count(*) FROM outbox WHERE answers = 'msg:20261203090000.1-ada@example.org'")" 1

contains "query message reads the bytes the archive keeps" \
	"$($PW query --db "$db" message 20261203090000.1-ada@example.org)" \
	"+	debugfs_create_u32(\"mask\", 0666, NULL, &trace_mask);"
out=$($PW db --db "$db" recheck)
is "recheck reads the archive: every patch checked" "$(kv rechecked "$out")" \
	"$(q "$db" "SELECT count(*) FROM patch WHERE pull_url IS NULL")"

json=$($PW subscribe --db "$db" list --format json)
is "list json: backfilled" "$(printf '%s' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["backfilled"])')" True
is "list json: messages counted" "$(printf '%s' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["messages"])')" 62
is "list json: state" "$(printf '%s' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["state"])')" ok

$PW subscribe --db "$db" pause sample >/dev/null
$PW archive "$T/inbox" "$TOP/tests/data/incc.mbox" >/dev/null
out=$($PW poll --config "$conf" --db "$db" 2>&1)
contains "paused: not polled" "$out" "nothing to poll"
out=$($PW poll --config "$conf" --db "$db" sample)
is "paused, but named: polled" "$(kv messages "$out")" 3
$PW subscribe --db "$db" resume sample >/dev/null
is "resumed" "$($PW subscribe --db "$db" list --format csv | sed -n 2p | cut -d, -f5)" ok
$PW poll --db "$db" nosuch 2>"$T/err"
is "poll of an unknown name: usage error" "$?" 2

# A subscription whose archive went away fails alone, and says why.
cp -r "$T/inbox" "$T/gone"
$PW subscribe --db "$db" add gone "$T/gone" >/dev/null
$PW poll --config "$conf" --db "$db" >/dev/null
rm -rf "$T/gone"
$PW archive "$T/inbox" "$TOP/tests/data/forwarded-series.mbox" >/dev/null
out=$($PW poll --config "$conf" --db "$db" 2>&1)
is "a failing source: exit status 1" "$?" 1
contains "a failing source: says which and why" "$out" "gone: failed:"
contains "the other source still polled" "$out" "sample: messages="
is "the failure is kept" "$(q "$db" "SELECT failures FROM subscription WHERE name = 'gone'")" 1
check "and shown by subscribe list, with the reason" grep -q "^  failing: its last poll failed: " <($PW subscribe --db "$db" list)
$PW subscribe --db "$db" remove gone >/dev/null
is "remove: its cursor goes" "$(q "$db" "SELECT count(*) FROM cursor WHERE source LIKE 'sub:2:%'")" 0

# ---- a Maildir ----
md=$T/md
mkdir -p "$md/cur" "$md/new" "$md/tmp"
python3 - "$TOP/tests/data/sample.mbox" "$md" <<'PY'
import mailbox, sys
box = mailbox.mbox(sys.argv[1])
for i, m in enumerate(box):
    d = "cur" if i < 20 else "new"
    with open(f"{sys.argv[2]}/{d}/{1700000000 + i}.{i}.host", "wb") as f:
        f.write(m.as_bytes())
    if i == 29:
        break
PY
db2=$T/md.db
$PW subscribe --db "$db2" add box "$md" >/dev/null
out=$($PW poll --config "$conf" --db "$db2")
is "maildir: cur and new read on the first poll" "$(kv messages "$out")" 30
is "maildir: new/ emptied into cur/" "$(ls "$md/new" | wc -l)" 0
is "maildir: moved with their flags" "$(ls "$md/cur" | grep -c ':2,$')" 10
is "maildir: bytes copied into the store" \
	"$(q "$db2" "SELECT count(*) FROM message WHERE raw_id IS NOT NULL")" 30
cp "$TOP/tests/data/arrival.eml" "$md/new/1800000000.1.host"
out=$($PW poll --config "$conf" --db "$db2")
is "maildir: a new message read once" "$(kv messages "$out")" 1
is "maildir: and answered" "$(q "$db2" "SELECT count(*) FROM outbox WHERE state = 'pending'")" 1
out=$($PW poll --config "$conf" --db "$db2")
is "maildir: nothing after" "$(kv messages "$out")" 0

# ---- an archive by file:// URL: mirrored, and its packs kept few ----
db3=$T/url.db
$PW archive "$T/uinbox" "$TOP/tests/data/incc.mbox" >/dev/null
$PW subscribe --db "$db3" add u "file://$T/uinbox" >/dev/null
$PW poll --db "$db3" >/dev/null
check "file:// URL: mirrored as NAME.ID" test -d "$T/url.db-mirrors/u.1/git/0.git"
for i in $(seq 1 18); do
	sed "s/^Message-ID: .*/Message-ID: <pack-$i@example.org>/" \
		"$TOP/tests/data/arrival.eml" >"$T/one.eml"
	$PW archive "$T/uinbox" "$T/one.eml" >/dev/null
	$PW poll --db "$db3" >/dev/null
done
is "file:// URL: every message read once" "$(q "$db3" "SELECT count(*) FROM message")" 21
packs=$(ls "$T/url.db-mirrors/u.1/git/0.git/objects/pack" | grep -c '\.pack$')
check "file:// URL: 19 fetches, the mirror's packs merged ($packs left)" test "$packs" -le 16
# A lock file a killed fetch left behind is cleared by the next poll.
: >"$T/url.db-mirrors/u.1/git/0.git/refs/heads/master.lock"
$PW archive "$T/uinbox" "$TOP/tests/data/forwarded-series.mbox" >/dev/null
out=$($PW poll --db "$db3" 2>&1)
is "a stale ref lock: the poll succeeds" "$?" 0
check "and the lock is gone" test ! -e "$T/url.db-mirrors/u.1/git/0.git/refs/heads/master.lock"

# A Maildir whose own path has a folder named new: only new/'s mail moves.
md2=$T/new/box
mkdir -p "$md2/cur" "$md2/new" "$md2/tmp"
cp "$TOP/tests/data/arrival.eml" "$md2/cur/1700000001.1.host"
sed 's/^Message-ID: .*/Message-ID: <md2-new@example.org>/' \
	"$TOP/tests/data/arrival.eml" >"$md2/new/1700000002.1.host"
$PW subscribe --db "$T/md2.db" add box2 "$md2" >/dev/null
out=$($PW poll --db "$T/md2.db")
is "maildir under .../new/...: both read" "$(kv messages "$out")" 2
is "maildir under .../new/...: cur/ left as it was, new/ moved in" \
	"$(ls "$md2/cur" | tr '\n' ' ')" "1700000001.1.host 1700000002.1.host:2, "

# ---- an archive with a message it cannot give: a blob missing ----
# As in real archives (linux-hwmon has three): the commit is there, its
# blob m is not.  The poll reads past it, stores it as an ingest error and
# says so by its status; "subscribe list", "query errors" and "db stats"
# tell it.
$PW archive "$T/holey" "$TOP/tests/data/sample.mbox" >/dev/null
hrepo=$T/holey/git/0.git
hcommit=$(git -C "$hrepo" rev-list --reverse master | sed -n 5p)
hblob=$(git -C "$hrepo" rev-parse "$hcommit:m")
rm -f "$hrepo/objects/${hblob:0:2}/${hblob:2}"
check "fixture: the blob is gone" test -z "$(git -C "$hrepo" cat-file -t "$hblob" 2>/dev/null)"
hdb=$T/holey.db
$PW subscribe --db "$hdb" add holey "$hrepo" --list sample.example.org >/dev/null
out=$($PW poll --config "$conf" --db "$hdb" 2>"$T/err")
is "missing blob: poll exits 1 (not every message stored)" "$?" 1
is "missing blob: the other 60 stored" "$(kv messages "$out")" 60
is "missing blob: errors=1" "$(kv errors "$out")" 1
contains "missing blob: stderr names the commit" "$(cat "$T/err")" "commit $hcommit"
contains "missing blob: stderr says where they are listed" "$(cat "$T/err")" "query errors"
js=$($PW subscribe --db "$hdb" list --format json)
is "missing blob: the subscription is ok (its polls go on)" "$(echo "$js" | jq -r '.[0].state')" ok
is "missing blob: subscribe list --format json: unreadable 1" "$(echo "$js" | jq -r '.[0].unreadable')" 1
contains "missing blob: subscribe list says it" "$($PW subscribe --db "$hdb" list)" "60 messages, 1 unreadable ('query errors')"
contains "missing blob: subscribe list --format csv has the column" \
	"$($PW subscribe --db "$hdb" list --format csv | head -n 1)" ",messages,unreadable,"
ej=$($PW query --db "$hdb" errors --format json)
is "query errors: one row" "$(echo "$ej" | jq length)" 1
is "query errors: the subscription and the archive" "$(echo "$ej" | jq -r '.[0] | "\(.subscription) \(.source)"')" "holey $hrepo"
contains "query errors: the commit" "$(echo "$ej" | jq -r '.[0].location')" "commit $hcommit"
contains "query errors: why" "$(echo "$ej" | jq -r '.[0].error')" "blob $hblob: object not found"
check "query errors: when" test -n "$(echo "$ej" | jq -r '.[0].at | select(. != null)')"
contains "query errors: text, one per error" "$($PW query --db "$hdb" errors)" "holey: repository commit $hcommit"
is "query errors --format csv: a header and the row" "$($PW query --db "$hdb" errors --format csv | wc -l)" 2
is "query errors --list: the subscription's list" "$($PW query --db "$hdb" errors --list sample.example.org --format json | jq length)" 1
is "query errors --since tomorrow: none" "$($PW query --db "$hdb" errors --since "@$(( $(date +%s) + 86400 ))" --format json | jq length)" 0
$PW query --db "$hdb" errors --rule FLOOD >/dev/null 2>"$T/err"
is "query errors --rule: not a filter of errors" "$?" 2
is "db stats: errors=1" "$(kv errors "$($PW db stats --db "$hdb" 2>/dev/null)")" 1
out=$($PW poll --config "$conf" --db "$hdb" 2>"$T/err")
is "missing blob: the next poll, with nothing new, exits 0" "$?" 0
is "missing blob: still 1 unreadable" "$($PW subscribe --db "$hdb" list --format json | jq -r '.[0].unreadable')" 1

# ---- what "findings" counts, in poll and in db stats ----
# A first poll into an empty store stores every finding the store then
# holds: the patch checks' and flood detection's (a flood's and the
# resends' findings), at each severity.
/usr/bin/python3 "$TOP/tests/gen_flood.py" --out "$T/fl" --flood-size 40 --noise 30 --seed 5 >/dev/null
$PW archive "$T/flinbox" "$T/fl/arrival.mbox" >/dev/null
fdb=$T/fl.db
$PW subscribe --db "$fdb" add fl "$T/flinbox" >/dev/null
out=$($PW poll --config "$conf" --db "$fdb")
st=$($PW db stats --db "$fdb")
sev() { q "$fdb" "SELECT count(*) FROM finding WHERE severity = $1"; }
floodn=$(q "$fdb" "SELECT count(*) FROM finding WHERE rule IN ('FLOOD', 'FLOOD_SERIES', 'RESEND_IDENTICAL', 'SERIES_OVERSIZED')")
check "fixture: flood findings and others" test "$floodn" -gt 0 -a "$floodn" -lt "$(q "$fdb" 'SELECT count(*) FROM finding')"
for w in poll "db stats"; do
	[ "$w" = poll ] && o=$out || o=$st
	is "$w: findings, every finding stored" "$(kv findings "$o")" "$(q "$fdb" 'SELECT count(*) FROM finding')"
	is "$w: findings_error" "$(kv findings_error "$o")" "$(sev 2)"
	is "$w: findings_warning" "$(kv findings_warning "$o")" "$(sev 1)"
	is "$w: findings_info" "$(kv findings_info "$o")" "$(sev 0)"
	is "$w: findings_flood, flood detection's" "$(kv findings_flood "$o")" "$floodn"
done
