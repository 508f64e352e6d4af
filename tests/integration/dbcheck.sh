#!/usr/bin/env bash
# patchwarden db check, db stats, db backup and db vacuum: raw rows
# orphaned by a writer stopped between the two stores' commits, SQLite's
# integrity check on both files, an online backup while an ingest
# writes, and the counts an ingest prints when the store fails mid-run.
. "$(dirname "$0")/../lib.sh"

q() { sqlite3 -batch -noheader "$1" "$2"; }
S=$TOP/tests/data/sample.mbox
C=$CORPUS/patchwork/series/base-cover-letter.mbox

# ---- counts printed are those committed ----

# The store refuses the 11th message: the first input (3 messages) is
# committed, the second one's batch is rolled back whole.
db=$T/cnt.db
$PW ingest -q --db "$db" /dev/null >/dev/null 2>&1
q "$db" "CREATE TRIGGER boom BEFORE INSERT ON message
WHEN (SELECT count(*) FROM message) >= 10
BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END;"
out=$($PW ingest --db "$db" "$C" "$S" 2>"$T/err"); rc=$?
is "failed mid-run: exit status 75 (the store failed)" "$rc" 75
contains "failed mid-run: the store's reason is told" "$(cat "$T/err")" "refused by a test trigger"
is "failed mid-run: printed counts are the rows committed" \
	"$(kv messages "$out"),$(kv patches "$out"),$(kv covers "$out"),$(kv comments "$out")" \
	"$(q "$db" "SELECT count(*), sum(kind = 'patch'), sum(kind = 'cover'), sum(kind = 'comment') FROM message" | tr '|' ,)"
out=$($PW run --db "$db" "$S" 2>"$T/err"); rc=$?
is "run failed mid-run: exit status 75" "$rc" 75
is "run failed mid-run: nothing counted, nothing stored" "$(kv messages "$out"),$(q "$db" "SELECT count(*) FROM message")" "0,3"

# ---- orphaned raw rows ----

# A commit of the main store that fails after the raw store's commit
# (a deferred foreign key, checked at COMMIT) leaves the raw bytes of
# its whole batch behind: what a crash between the two commits leaves.
db=$T/orph.db
$PW ingest -q --db "$db" "$C" >/dev/null
q "$db" "CREATE TABLE boom(x INTEGER REFERENCES message(id) DEFERRABLE INITIALLY DEFERRED);
CREATE TRIGGER boom AFTER INSERT ON message WHEN NEW.id > 20
BEGIN INSERT INTO boom VALUES (-1); END;"
out=$($PW ingest --db "$db" "$S" 2>"$T/err"); rc=$?
is "failed commit: exit status 75 (the store failed)" "$rc" 75
is "failed commit: nothing counted, nothing stored" "$(kv messages "$out"),$(q "$db" "SELECT count(*) FROM message")" "0,3"
q "$db" "DROP TRIGGER boom; DROP TABLE boom"
used=$(q "$db" "SELECT count(*) FROM message WHERE raw_id IS NOT NULL")
is "failed commit: its raw bytes were committed" "$(q "$db-raw" "SELECT count(*) FROM raw")" $((used + 61))
# A message stored after them hides them from the next writer's quick
# look (the newest raw rows only); one more row whose message is gone.
q "$db-raw" "INSERT INTO raw(raw) VALUES (x'41')"
q "$db" "INSERT INTO message(msgid, kind, received_at, raw_id) VALUES ('gone@example.org', 'other', 0, $((used + 62)))"
$PW ingest -q --db "$db" "$CORPUS/patchwork/mail/0013-with-utf8-body.mbox" >/dev/null 2>"$T/err"
is "a later writer: the orphans before its messages stay" "$(cat "$T/err")" ""
q "$db" "DELETE FROM message WHERE msgid = 'gone@example.org'"
used=$(q "$db" "SELECT count(*) FROM message WHERE raw_id IS NOT NULL")
out=$($PW db stats --db "$db" 2>"$T/err"); rc=$?
is "db stats: exit status 0" "$rc" 0
is "db stats: reports the orphaned raw rows" "$(kv raw_orphans "$out")" 62
contains "db stats: says what removes them" "$(cat "$T/err")" "patchwarden db check"
out=$($PW db check --db "$db" 2>"$T/err"); rc=$?
is "db check with orphans: exit status 1" "$rc" 1
contains "db check: integrity ok" "$out" "$db: integrity check: ok"
contains "db check: says what it removed" "$out" "$db-raw: removed 62 raw rows"
is "db check: the raw store is what the messages name" "$(q "$db-raw" "SELECT count(*) FROM raw")" "$used"
is "db check: every message still has its bytes" \
	"$(q "$db" "ATTACH '$db-raw' AS r; SELECT count(*) FROM message WHERE raw_id IS NOT NULL AND raw_id NOT IN (SELECT id FROM r.raw)")" 0
out=$($PW db check --db "$db" 2>"$T/err"); rc=$?
is "db check again: exit status 0" "$rc" 0
contains "db check again: none" "$out" "no orphaned raw rows"
out=$($PW db stats --db "$db" --format json)
contains "db stats: none left (json)" "$out" '"raw_orphans":0'
out=$($PW db recheck --db "$db")
contains "db recheck: every patch read back" "$out" "rechecked=$(q "$db" "SELECT count(*) FROM patch")"

# The raw ids in use, walked by db check under the main store's write
# lock and by db stats: read from an index, not a scan of every message
# and a sort (the query's text is db/care.c's).
plan=$(q "$db" "EXPLAIN QUERY PLAN SELECT raw_id FROM message WHERE raw_id IS NOT NULL ORDER BY raw_id")
echo "$plan" | sed "s|^|# |"
contains "orphan walk: reads the index of raw ids alone" "$plan" "USING COVERING INDEX message_raw_id"
case "$plan" in *"TEMP B-TREE"*) not_ok "orphan walk: no sort" ;; *) ok "orphan walk: no sort" ;; esac
# A store migrated before the index gets it; running the migration
# again changes nothing.
cp "$db" "$T/mig.db"; cp "$db-raw" "$T/mig.db-raw"
v=$(q "$db" "PRAGMA user_version")
iv=12	# the version the index's migration makes (db/schema.c)
q "$T/mig.db" "DROP INDEX message_raw_id; PRAGMA user_version = $((iv - 1))"
$PW db check --db "$T/mig.db" >/dev/null 2>&1; rc=$?
is "older store: db check migrates it, the index made" \
	"$rc,$(q "$T/mig.db" "PRAGMA user_version"),$(q "$T/mig.db" "SELECT count(*) FROM sqlite_schema WHERE name = 'message_raw_id'")" "0,$v,1"
q "$T/mig.db" "PRAGMA user_version = $((iv - 1))"
$PW db check --db "$T/mig.db" >/dev/null 2>&1; rc=$?
is "the index's migration run again: nothing more" "$rc,$(q "$T/mig.db" "PRAGMA user_version")" "0,$v"

# ---- a store that is not there ----

# A mistyped path: said, exit 75 as for a store that cannot be opened,
# and no empty store made in its place.
for c in check vacuum recheck stats; do
	$PW db $c --db "$T/typo.db" >/dev/null 2>"$T/err"; rc=$?
	is "db $c of no store: exit status 75" "$rc" 75
	contains "db $c of no store: said" "$(cat "$T/err")" "$T/typo.db: no such store"
	is "db $c of no store: nothing made" "$(ls "$T"/typo.db* 2>/dev/null | wc -l)" 0
done
$PW db backup --db "$T/typo.db" "$T/y.db" >/dev/null 2>"$T/err"
contains "db backup of no store: said alike" "$(cat "$T/err")" "$T/typo.db: no such store"

# ---- files that are not a database ----

# Too damaged to open: a problem db check found (1), not a store that
# may open later (75).
head -c 70000 /dev/urandom >"$T/junk.db"
out=$($PW db check --db "$T/junk.db" 2>"$T/err"); rc=$?
is "random bytes as the store: exit status 1" "$rc" 1
contains "random bytes as the store: said, named by file" "$out" "$T/junk.db: file is not a database"
contains "random bytes as the store: counted" "$out" "$T/junk.db: integrity check: 1 problems"
mkdir "$T/junkraw"
cp "$db" "$T/junkraw/"
head -c 70000 /dev/urandom >"$T/junkraw/orph.db-raw"
out=$($PW db check --db "$T/junkraw/orph.db" 2>"$T/err"); rc=$?
is "random bytes as the raw store: exit status 1" "$rc" 1
contains "random bytes as the raw store: said, named by file" "$out" "$T/junkraw/orph.db-raw: file is not a database"

# ---- integrity ----

# Garbage over a leaf page of the message table of a copy, then over
# one of the raw table of another copy.
mkdir "$T/bad" "$T/badraw"
cp "$db" "$db-raw" "$T/bad/"
cp "$db" "$db-raw" "$T/badraw/"
corrupt() {	# FILE TABLE
	local pg ps
	pg=$(q "$1" "SELECT pageno FROM dbstat WHERE name = '$2' AND pagetype = 'leaf' LIMIT 1")
	ps=$(q "$1" "PRAGMA page_size")
	head -c 4096 /dev/zero | tr '\0' '\377' | dd of="$1" bs=4096 seek=$(( (pg - 1) * ps / 4096 )) conv=notrunc 2>/dev/null
}
corrupt "$T/bad/orph.db" message
out=$($PW db check --db "$T/bad/orph.db" 2>"$T/err"); rc=$?
is "corrupt store: exit status 1" "$rc" 1
contains "corrupt store: a problem named by file" "$out" "$T/bad/orph.db: "
contains "corrupt store: counted, orphans left alone" "$out" "orphaned raw rows not looked for"
corrupt "$T/badraw/orph.db-raw" raw
out=$($PW db check --db "$T/badraw/orph.db" 2>"$T/err"); rc=$?
echo "$out" | sed "s|^|# |"
is "corrupt raw store: exit status 1" "$rc" 1
contains "corrupt raw store: a problem named by file" "$out" "$T/badraw/orph.db-raw: "
$PW db check --db "$T/nodir/none.db" >/dev/null 2>"$T/err"; rc=$?
is "db check on a store that cannot be opened: 75" "$rc" 75

# ---- vacuum ----

out=$($PW db vacuum --db "$db" 2>"$T/err"); rc=$?
is "db vacuum: exit status 0" "$rc" 0
is "db vacuum: the raw store shrank by the rows removed" \
	"$([ "$(kv raw_bytes_after "$out")" -lt "$(kv raw_bytes_before "$out")" ] && echo yes)" yes
is "db vacuum: sizes are the files' sizes" "$(kv bytes_after "$out"),$(kv raw_bytes_after "$out")" \
	"$(stat -c %s "$db"),$(stat -c %s "$db-raw")"
is "db vacuum: the store still checks clean" "$($PW db check --db "$db" >/dev/null 2>&1; echo $?)" 0

# ---- backup ----

out=$($PW db backup --db "$db" "$T/copy.db" 2>"$T/err"); rc=$?
is "db backup: exit status 0" "$rc" 0
is "db backup: every message copied" "$(kv messages "$out")" "$(q "$db" "SELECT count(*) FROM message")"
check "db backup: both files made" test -s "$T/copy.db" -a -s "$T/copy.db-raw"
# The copy holds every message: its owner's alone, whatever the umask.
(umask 000; $PW db backup --db "$db" "$T/open.db" >/dev/null 2>"$T/err"); rc=$?
is "db backup: the copy's files are 0600 (umask 000)" \
	"$rc,$(stat -c %a "$T/open.db"),$(stat -c %a "$T/open.db-raw")" "0,600,600"
is "db backup: no file of a copy readable by others" "$(find "$T" -maxdepth 1 -name 'copy.db*' -perm /077 -o -maxdepth 1 -name 'open.db*' -perm /077 | wc -l)" 0
$PW db backup --db "$db" "$T/copy.db" >/dev/null 2>"$T/err"; rc=$?
is "db backup over an existing file: refused, 2" "$rc" 2
contains "db backup over an existing file: says so" "$(cat "$T/err")" "copy.db exists"
$PW db backup --db "$db" >/dev/null 2>&1; rc=$?
is "db backup without FILE: 2" "$rc" 2
$PW db backup --db "$T/none.db" "$T/x.db" >/dev/null 2>"$T/err"; rc=$?
is "db backup of no store: 75, nothing made" "$rc,$(ls "$T"/x.db* 2>/dev/null | wc -l)" "75,0"

# While an ingest writes, input by input (a commit each).
xz -dc "$CORPUS/lore-linux-mips/first-2000.mbox.xz" >"$T/lore.mbox"
mkdir "$T/parts" "$T/live"
python3 - "$T/lore.mbox" "$T/parts" <<'EOF'
import re, sys
msgs = re.split(rb'\n(?=From \S+ )', open(sys.argv[1], 'rb').read())
for i in range(0, len(msgs), 50):
    open('%s/%03d.mbox' % (sys.argv[2], i // 50), 'wb').write(b'\n'.join(msgs[i:i + 50]) + b'\n')
EOF
live=$T/live/pw.db
$PW ingest -q --db "$live" /dev/null >/dev/null 2>&1
$PW ingest -q --threads 1 --db "$live" "$T"/parts/*.mbox >/dev/null 2>"$T/ingest.err" &
ipid=$!
at_exit "kill $ipid 2>/dev/null"
n0=0
for _ in $(seq 200); do
	n0=$(kv messages "$($PW db stats --db "$live" 2>/dev/null)")
	[ "${n0:-0}" -gt 0 ] && break
	sleep 0.05
done
out=$($PW db backup --db "$live" "$T/hot.db" 2>"$T/err"); rc=$?
running=$(kill -0 $ipid 2>/dev/null && echo yes || echo no)
wait $ipid; irc=$?
echo "# backup began after $n0 messages; ingest still running at its end: $running"
is "backup while ingesting: exit status 0, and the ingest's" "$rc,$irc" "0,0"
is "backup while ingesting: the copy passes integrity_check" \
	"$(q "$T/hot.db" "PRAGMA integrity_check"),$(q "$T/hot.db-raw" "PRAGMA integrity_check")" "ok,ok"
n=$(q "$T/hot.db" "SELECT count(*) FROM message")
check "backup while ingesting: at least the messages committed before it ($n >= $n0)" test "$n" -ge "$n0" -a "$n0" -gt 0
is "backup while ingesting: the printed count is the copy's" "$(kv messages "$out")" "$n"
is "backup while ingesting: db check finds nothing in the copy" "$($PW db check --db "$T/hot.db" >/dev/null 2>&1; echo $?)" 0
mid=$(q "$T/hot.db" "SELECT msgid FROM message WHERE raw_id IS NOT NULL ORDER BY id DESC LIMIT 1")
contains "backup while ingesting: the copy's newest message reads back" \
	"$($PW query message --db "$T/hot.db" "$mid" 2>&1)" "$mid"
