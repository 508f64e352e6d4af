#!/usr/bin/env bash
# patchwarden ingest: the Patchwork series expectations of the vendored
# corpus, idempotency, the same message on several lists, bad input,
# the summary line and exit codes.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib_fast.sh"

S=$CORPUS/patchwork/series
q() { sqlite3 -batch -noheader "$1" "$2"; }

# Patchwork's expectations (corpus README, test_series.py): counts of
# covers, patches, comments, then patches per series and covers per
# series, oldest series first.  The stores in $F (tests/lib_fast.sh).
while read -r file covers patches comments pseries cseries; do
	db=$F/$file.db
	out=$($PW ingest -q --db "$db" "$S/$file" 2>"$T/err")
	got="$(kv covers "$out"),$(kv patches "$out"),$(kv comments "$out")"
	is "series/$file: covers,patches,comments" "$got" "$covers,$patches,$comments"
	gp=$(q "$db" "SELECT group_concat(n, ',') FROM (SELECT count(patch.id) AS n FROM series LEFT JOIN patch ON patch.series = series.id GROUP BY series.id ORDER BY min(series.first_date), series.id)")
	is "series/$file: patches per series" "[$gp]" "$pseries"
	if [ "$cseries" != - ]; then
		gc=$(q "$db" "SELECT group_concat(c, ',') FROM (SELECT cover IS NOT NULL AS c FROM series ORDER BY first_date, id)")
		is "series/$file: covers per series" "[$gc]" "$cseries"
	fi
done <<'EOF2'
base-single-patch.mbox 0 1 0 [1] -
base-cover-letter.mbox 1 2 0 [2] [1]
base-no-cover-letter.mbox 0 2 0 [2] -
base-deep-threaded.mbox 1 2 0 [2] [1]
base-out-of-order.mbox 1 2 0 [2] [1]
base-different-versions.mbox 1 4 0 [4] [1]
bugs-multiple-references.mbox 1 4 0 [4] [1]
base-no-references.mbox 0 2 0 [2] -
base-no-references-no-cover.mbox 1 2 0 [2] [1]
bugs-multiple-content-types.mbox 0 1 1 [1] -
revision-basic.mbox 2 4 0 [2,2] [1,1]
revision-threaded-to-single-patch.mbox 0 2 0 [1,1] -
revision-threaded-to-cover.mbox 2 4 0 [2,2] [1,1]
revision-threaded-to-patch.mbox 2 4 0 [2,2] [1,1]
revision-out-of-order.mbox 2 4 0 [2,2] [1,1]
revision-no-cover-letter.mbox 1 4 0 [2,2] [1,0]
revision-unlabeled.mbox 2 4 0 [2,2] [1,1]
revision-unlabeled-noreferences.mbox 0 4 0 [2,2] -
bugs-unnumbered.mbox 1 2 0 [1,1] [1,0]
bugs-nocover-noversion.mbox 0 4 0 [2,2] -
bugs-nocover.mbox 0 4 0 [2,2] -
bugs-spamming.mbox 0 3 0 [1,1,1] -
bugs-mixed-versions.mbox 0 2 0 [1,1] -
base-incomplete.mbox 1 1 0 [1] [1]
base-extra-patches.mbox 1 3 0 [3] [1]
mercurial-cover-letter.mbox 1 2 0 [2] [1]
mercurial-no-cover-letter.mbox 0 2 0 [2] -
dependency-base-patch.mbox 1 2 0 [2] [1]
EOF2

# Series names: the cover's subject, else the first patch's.
db=$F/base-cover-letter.mbox.db
is "series name from the cover" "$(q "$db" 'SELECT name FROM series')" "A sample series"
db=$F/base-no-cover-letter.mbox.db
is "series name from patch 1" "$(q "$db" 'SELECT name FROM series')" \
	"$(q "$db" "SELECT subject_clean FROM message WHERE number = 1")"

# Idempotency: a second ingest of the same corpus stores nothing new.
db=$T/all.db
first=$($PW ingest -q --db "$db" "$S"/*.mbox "$CORPUS"/notmuch/lkml 2>/dev/null)
before=$($PW db stats --db "$db")
second=$($PW ingest -q --db "$db" "$S"/*.mbox "$CORPUS"/notmuch/lkml 2>/dev/null)
after=$($PW db stats --db "$db")
is "idempotent: stats unchanged" "$after" "$before"
is "idempotent: second run is all duplicates" "$(kv duplicates "$second")" "$(kv messages "$first")"
is "idempotent: second run stores no patch" "$(kv patches "$second")" 0
check "first run stored patches" test "$(kv patches "$first")" -gt 100

# notmuch lkml/: 34 Message-IDs arrive twice (two lists): stored once.
db=$T/lkml.db
out=$($PW ingest -q --db "$db" "$CORPUS"/notmuch/lkml 2>/dev/null)
files=$(ls "$CORPUS"/notmuch/lkml | wc -l)
is "lkml: every file read" "$(kv messages "$out")" "$files"
is "lkml: Message-IDs stored once" "$(q "$db" 'SELECT count(*) FROM message')" \
	"$(( files - $(kv duplicates "$out") ))"
check "lkml: duplicates seen" test "$(kv duplicates "$out")" -ge 34

# The same message on two lists is one message seen on two lists.
db=$T/lists.db
$PW ingest -q --db "$db" --list alpha "$S/base-cover-letter.mbox" >/dev/null
out=$($PW ingest -q --db "$db" --list beta "$S/base-cover-letter.mbox")
is "two lists: nothing new" "$(kv duplicates "$out")" 3
is "two lists: 3 messages" "$(q "$db" 'SELECT count(*) FROM message')" 3
is "two lists: 6 sightings" "$(q "$db" 'SELECT count(*) FROM message_list')" 6

# JSON summary.
out=$($PW ingest -q --db "$T/json.db" --format json "$S/base-cover-letter.mbox")
is "json summary" "$(printf '%s' "$out" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["messages"], d["covers"], d["patches"])')" "3 1 2"

# Bad input: a truncated mbox keeps what came before; NUL bytes and
# invalid UTF-8 get a clear answer; exit status says so.
{ cat "$S/base-cover-letter.mbox"; head -c 700 "$S/base-single-patch.mbox"; } >"$T/trunc.mbox"
out=$($PW ingest --db "$T/bad.db" "$T/trunc.mbox" 2>"$T/err"); rc=$?
is "truncated mbox: the three whole messages stored" \
	"$(q "$T/bad.db" "SELECT count(*) FROM message WHERE source LIKE '%trunc.mbox'")" 3
is "truncated mbox: the cut one read, nothing refused" "$(kv messages "$out") $(kv errors "$out") $rc" "4 0 0"
contains "truncated mbox: the cut is named" "$(cat "$T/err")" "trunc.mbox: message 4"
contains "truncated mbox: and said" "$(cat "$T/err")" "may be cut short"
printf 'From x@y Thu Jan  1 00:00:00 1970\nFrom: a@b\nSubject: nul \0 here\nMessage-ID: <nul@x>\n\nbody \0\0 with nul\n\n' >"$T/nul.mbox"
printf 'From x@y Thu Jan  1 00:00:00 1970\nFrom: \xff\xfe <bad@x>\nSubject: bad \xc3\x28 utf8\nMessage-ID: <utf@x>\n\nbody\n' >>"$T/nul.mbox"
out=$($PW ingest --db "$T/bad.db" "$T/nul.mbox" 2>"$T/err"); rc=$?
check "NUL and invalid UTF-8: exit 0 or 1" test "$rc" -le 1
is "NUL and invalid UTF-8: both accounted" "$(( $(kv messages "$out") + $(kv errors "$out") ))" 2
check "stored subjects are valid UTF-8" /usr/bin/python3 -c '
import sqlite3,sys
for (s,) in sqlite3.connect(sys.argv[1]).execute("SELECT CAST(subject AS BLOB) FROM message"):
    s.decode("utf-8")' "$T/bad.db"
$PW ingest --db "$T/bad.db" "$T/does-not-exist" >/dev/null 2>"$T/err"; rc=$?
is "missing source: usage error, exit 2" "$rc" 2
contains "missing source: named" "$(cat "$T/err")" "does-not-exist"
$PW ingest --db "$T/bad.db" >/dev/null 2>&1; rc=$?
is "no source: usage error" "$rc" 2
$PW ingest --bogus >/dev/null 2>&1; rc=$?
is "bad option: usage error" "$rc" 2

# Standard input: one message, as an MTA pipe delivers it.
out=$($PW ingest --db "$T/stdin.db" - <"$CORPUS/patchwork/mail/0013-with-utf8-body.mbox")
is "stdin: one patch" "$(kv patches "$out")" 1
# An MTA's envelope From_ line first; a body line that looks like one
# does not start a second message.
out=$(printf 'From someone Mon Jan  1 00:00:00 2024\nFrom: a <a@b>\nSubject: hi\nMessage-ID: <stdin@x>\n\nline\n\nFrom my desk, Mon 12:30\nmore\n' |
	$PW ingest --db "$T/stdin2.db" - 2>"$T/err")
is "stdin: one message whatever its body says" "$(kv messages "$out") $(kv errors "$out")" "1 0"
contains "stdin: the body kept whole" "$(q "$T/stdin2.db-raw" "SELECT raw FROM raw")" "From my desk, Mon 12:30"

# A thread root that is neither patch nor reply, answered by a patch of
# its sender, is a naked cover letter (b4's rule): the store makes it
# the cover of the patch's series, also when the patch comes in a later
# run; a report answered by someone else's patch stays what it is.
rm -f "$T/naked.db"*
out=$($PW ingest --db "$T/naked.db" "$CORPUS/b4/naked-cover-single.mbox")
is "naked cover: counted as a cover" "$(kv covers "$out"),$(kv others "$out")" "1,0"
is "naked cover: stored as one, heading the patch's series" \
	"$(q "$T/naked.db" "SELECT m.kind, s.name, p.series = s.id FROM series s JOIN message m ON m.id = s.cover, patch p")" \
	"cover|do a thing to the widget subsystem|1"
rm -f "$T/naked2.db"*
mkdir -p "$T/naked-split"
git mailsplit -o"$T/naked-split" "$CORPUS/b4/naked-cover-single.mbox" >/dev/null
$PW ingest -q --db "$T/naked2.db" "$T/naked-split/0001" >/dev/null
is "naked cover alone: other until its patch comes" "$(q "$T/naked2.db" "SELECT kind FROM message")" other
out=$($PW ingest --db "$T/naked2.db" "$T/naked-split/0002")
is "naked cover of an earlier run: not counted by this one" "$(kv covers "$out"),$(kv others "$out")" "0,0"
is "naked cover: made one by a patch of a later run" \
	"$(q "$T/naked2.db" "SELECT m.kind FROM series s JOIN message m ON m.id = s.cover")" cover
# The patch first, its root after it (MTA deliveries cross).
rm -f "$T/naked3.db"*
$PW ingest -q --db "$T/naked3.db" "$T/naked-split/0002" >/dev/null
out=$($PW ingest --db "$T/naked3.db" "$T/naked-split/0001")
is "naked cover after its patch: counted as a cover" "$(kv covers "$out"),$(kv others "$out")" "1,0"
is "naked cover after its patch: heads the patch's series" \
	"$(q "$T/naked3.db" "SELECT m.kind, s.name FROM patch p JOIN series s ON s.id = p.series JOIN message m ON m.id = s.cover")" \
	"cover|do a thing to the widget subsystem"
# Someone else answered the root with a patch first: the root becomes
# the cover of its own sender's series, not of that other one.
sed -e 's/^From: .*/From: Other Person <other@example.org>/' \
	-e 's/^Message-Id: <20221025-widget-v1-1-/Message-Id: <20221025-widget-other-1-/' \
	-e 's/^Subject: .*/Subject: [PATCH] widget: another way/' \
	"$T/naked-split/0002" >"$T/naked-other"
rm -f "$T/naked4.db"*
$PW ingest -q --db "$T/naked4.db" "$T/naked-split/0001" "$T/naked-other" "$T/naked-split/0002" >/dev/null
is "naked cover answered by another sender first: the cover of its sender's series only" \
	"$(q "$T/naked4.db" "SELECT m.from_addr || ':' || coalesce(c.kind, '-') FROM patch p JOIN message m ON m.id = p.message JOIN series s ON s.id = p.series LEFT JOIN message c ON c.id = s.cover ORDER BY m.id" | paste -sd' ')" \
	"other@example.org:- author@example.org:cover"
rm -f "$T/report.db"*
out=$($PW ingest --db "$T/report.db" "$CORPUS/b4/naked-cover-bugreport.mbox")
is "someone else's report answered by a patch: not a cover" "$(kv covers "$out"),$(kv others "$out")" "0,1"
# The store and "patchwarden parse" file every message of the corpus
# under the same kind.  (parse, reading a stream, applies the naked
# cover rule to a root and the message after it; the store to a root
# and any patch answering it, so mail in between can part them.)
# Each mbox into a store of its own (in $F, tests/lib_fast.sh: SQLite
# syncs each store it makes); parse reads them all in one run, each file
# on its own (what a file holds back for the naked cover rule goes out
# at its end), and one Python then compares them all, each file's
# messages told by the file that "where" names.
mkdir -p "$F/kinds"
i=0 mboxes=()
while IFS= read -r f; do
	i=$((i + 1))
	mboxes+=("$f")
	$PW ingest -q --db "$F/kinds/$i.db" "$f" >/dev/null 2>&1
	printf '%s\t%s\t%s\n' "$i" "${f##*/}" "$f" >>"$F/kinds/index"
done < <(find "$CORPUS" -name '*.mbox' | sort)
$PW parse --format json "${mboxes[@]}" >"$F/kinds/all.json" 2>/dev/null
differ=$(/usr/bin/python3 - "$F/kinds" <<'PY'
import json, sqlite3, sys
d = sys.argv[1]
differ = []
try:
    parsed = json.load(open(d + "/all.json"))
except ValueError:
    parsed = []
for line in open(d + "/index"):
    i, name, path = line.rstrip("\n").split("\t", 2)
    a = {(x["msgid"], x["kind"]) for x in parsed
         if x["where"].rsplit(": message ", 1)[0] == path}
    try:
        db = sqlite3.connect("file:%s/%s.db?mode=ro" % (d, i), uri=True)
        b = set(db.execute("SELECT msgid, kind FROM message"))
    except sqlite3.Error:
        b = set()
    if a != b:
        differ.append(name)
print(" ".join(differ))
PY
)
is "every corpus mbox: the store's kinds are parse's" "${differ:-none}" none

# Errors are recorded with the source and where in it.
printf 'From x@y Thu Jan  1 00:00:00 1970\n\n' >"$T/empty.mbox"
out=$($PW ingest --db "$T/err.db" "$T/empty.mbox" 2>"$T/err")
is "unreadable message counted" "$(kv errors "$out")" 1
is "unreadable message recorded with where it was" \
	"$(q "$T/err.db" "SELECT count(*) FROM ingest_error WHERE source LIKE '%empty.mbox' AND location <> ''")" 1

# Raw bytes are kept byte for byte, in the raw store beside the facts.
$PW ingest -q --db "$T/raw.db" "$TOP/tests/data/sample.mbox" >/dev/null
check "the raw store is a file beside the database" test -s "$T/raw.db-raw"
is "every message (61) names its raw bytes" "$(q "$T/raw.db" "SELECT count(raw_id) FROM message")" 61
is "the raw store holds them all" "$(q "$T/raw.db-raw" "SELECT count(*) FROM raw")" 61
id=$(q "$T/raw.db" "SELECT raw_id FROM message ORDER BY id LIMIT 1")
first=$(q "$T/raw.db-raw" "SELECT hex(raw) FROM raw WHERE id = $id")
want=$(/usr/bin/python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
msgs = data.split(b"\nFrom ")
print(msgs[0].split(b"\n", 1)[1].hex().upper())' "$TOP/tests/data/sample.mbox")
check "the first message's raw bytes are what the mbox holds" test "${first#$want}" != "$first"

# A store of schema version 3 kept raw bytes in the message row, had
# no raw store and indexed messages by sender: it is migrated in place,
# and its bytes are still read.
cp "$T/raw.db" "$T/v3.db"
q "$T/v3.db" "ATTACH '$T/raw.db-raw' AS r;
UPDATE message SET raw = (SELECT raw FROM r.raw WHERE id = message.raw_id);
DROP INDEX message_raw_id;
ALTER TABLE message DROP COLUMN raw_id;
CREATE INDEX message_from_date ON message(from_addr, date);
PRAGMA user_version = 3;"
$PW db stats --db "$T/v3.db" >/dev/null 2>"$T/err"; rc=$?
check "an old store read-only: refused" test "$rc" -ne 0
contains "an old store read-only: says to migrate" "$(cat "$T/err")" "open it once read-write to migrate"
out=$($PW db recheck --db "$T/v3.db")
contains "migration: recheck reads the bytes kept in the rows" "$out" "rechecked=16"
is "migration: schema moved on" "$(q "$T/v3.db" "PRAGMA user_version")" "$(q "$T/raw.db" "PRAGMA user_version")"
is "migration: the unused sender index is gone" "$(q "$T/v3.db" "SELECT count(*) FROM sqlite_schema WHERE name = 'message_from_date'")" 0
is "migration: old rows keep their bytes" "$(q "$T/v3.db" "SELECT count(raw) FROM message WHERE raw_id IS NULL")" 61
$PW ingest -q --db "$T/v3.db" "$CORPUS/patchwork/mail/0013-with-utf8-body.mbox" >/dev/null
is "migration: new messages go to the raw store" \
	"$(q "$T/v3.db" "SELECT count(*) FROM message WHERE raw_id IS NOT NULL AND raw IS NULL")" 1
out=$($PW db recheck --db "$T/v3.db")
contains "migration: both kinds read back" "$out" "rechecked=17"
is "migration: the store is whole" "$(q "$T/v3.db" "PRAGMA integrity_check")" ok
# message.kind is checked by comparisons, not an IN list (which built a
# temporary index on every insert), in old and new stores alike.
for db in "$T/v3.db" "$T/raw.db"; do
	is "$(basename "$db"): inserting a message builds no temporary index" \
		"$(q "$db" "EXPLAIN INSERT INTO message(msgid, kind, received_at) VALUES ('x', 'patch', 1)" | grep -c OpenEphemeral)" 0
	check "$(basename "$db"): a kind not known is refused" \
		sh -c "! sqlite3 '$db' \"INSERT INTO message(msgid, kind, received_at) VALUES ('x', 'bogus', 1)\" 2>/dev/null"
done

# A store of schema version 7 had message.date NOT NULL, 0 for a Date it
# could not read (and whatever came of 1900), and no message_sender:
# migrated in place, those become NULL (unknown), other dates stay, and
# the store stays whole.  Its
# version set back once more, it migrates forward again unchanged.
cp "$T/raw.db" "$T/v7.db"; cp "$T/raw.db-raw" "$T/v7.db-raw"
q "$T/v7.db" "UPDATE message SET date = 0 WHERE id = 1;
UPDATE message SET date = -2208988800 WHERE id = 2;
DROP TABLE message_sender;
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, 'date INTEGER,', 'date INTEGER NOT NULL DEFAULT 0,')
 WHERE type = 'table' AND name = 'message';
PRAGMA writable_schema = OFF;
PRAGMA user_version = 7;"
check "v7 store: made with a NOT NULL date" \
	sh -c "sqlite3 '$T/v7.db' \"SELECT sql FROM sqlite_schema WHERE name = 'message'\" | grep -q 'date INTEGER NOT NULL DEFAULT 0,'"
dated=$(q "$T/v7.db" "SELECT count(*) FROM message WHERE date > 0")
$PW ingest -q --db "$T/v7.db" /dev/null >/dev/null 2>"$T/err"
is "v7 store: migrated to this version" "$(q "$T/v7.db" "PRAGMA user_version")" "$(q "$T/raw.db" "PRAGMA user_version")"
check "v7 store: message.date may be NULL" \
	sh -c "sqlite3 '$T/v7.db' \"SELECT sql FROM sqlite_schema WHERE name = 'message'\" | grep -q 'date INTEGER,'"
is "v7 store: the 0 and 1900 dates are unknown (NULL) now" "$(q "$T/v7.db" "SELECT count(*) FROM message WHERE date IS NULL"),$(q "$T/v7.db" "SELECT count(*) FROM message WHERE date <= 0")" "2,0"
is "v7 store: the other dates kept" "$(q "$T/v7.db" "SELECT count(*) FROM message WHERE date > 0")" "$dated"
is "v7 store: message_sender made" "$(q "$T/v7.db" "SELECT count(*) FROM sqlite_schema WHERE name = 'message_sender'")" 1
is "v7 store: whole" "$(q "$T/v7.db" "PRAGMA integrity_check")" ok
q "$T/v7.db" "PRAGMA user_version = 7"
$PW ingest -q --db "$T/v7.db" /dev/null >/dev/null 2>"$T/err"
is "v7 store again: migrated forward again" "$(q "$T/v7.db" "PRAGMA user_version"),$(q "$T/v7.db" "PRAGMA integrity_check")" "$(q "$T/raw.db" "PRAGMA user_version"),ok"
out=$($PW db recheck --db "$T/v7.db")
contains "v7 store: recheck still reads every patch" "$out" "rechecked=16"

# --progress: a line per N messages on stderr, and one for the rest.
$PW ingest -q --progress 20 --db "$T/progress.db" "$TOP/tests/data/sample.mbox" >/dev/null 2>"$T/err"
is "progress: one line per 20 messages and one for the rest" "$(grep -c '^progress: ' "$T/err")" 4
is "progress: the counts add up" "$(sed -n 's/^progress: messages=\([0-9]*\) .*/\1/p' "$T/err" | paste -sd+ | bc)" 61
check "progress: seconds, cpu, writer cpu, writer idle, flood cpu and rate given" grep -qE '^progress: messages=20 total=40 seconds=[0-9.]+ cpu=[0-9.]+ writer=[0-9.]+ idle=[0-9.]+ fingerprints=[0-9.]+ floods=[0-9.]+ rate=[0-9]+$' "$T/err"
$PW ingest --progress -1 --db "$T/progress.db" "$TOP/tests/data/sample.mbox" >/dev/null 2>&1; rc=$?
is "progress: a negative count is a usage error" "$rc" 2

# A batch the store refuses part way is rolled back whole, and the counts
# say so: nothing of it was stored.  (A trigger refuses the 30th message.)
rm -f "$T/boom.db"*
$PW ingest -q --db "$T/boom.db" /dev/null >/dev/null 2>&1
mid=$(grep -i -m 30 '^message-id:' "$TOP/tests/data/sample.mbox" | tail -n 1 | sed 's/^[^<]*<//; s/>.*//')
q "$T/boom.db" "CREATE TRIGGER boom BEFORE INSERT ON message WHEN NEW.msgid = '$mid'
BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END;"
out=$($PW ingest --db "$T/boom.db" "$TOP/tests/data/sample.mbox" 2>"$T/err"); rc=$?
is "refused batch: the store failed, exit status 75" "$rc" 75
contains "refused batch: the reason is given" "$(cat "$T/err")" "refused by a test trigger"
is "refused batch: nothing stored" "$(q "$T/boom.db" "SELECT count(*) FROM message")" 0
is "refused batch: the counts say nothing was stored" "$(kv messages "$out"),$(kv patches "$out"),$(kv errors "$out")" "0,0,1"

# A writer stopped between the raw store's commit and the main one's
# leaves bytes no message refers to; the next writer removes them, and
# only them.
rm -f "$T/orph.db"*
$PW ingest -q --db "$T/orph.db" "$TOP/tests/data/sample.mbox" >/dev/null
n=$(q "$T/orph.db-raw" "SELECT count(*) FROM raw")
q "$T/orph.db-raw" "INSERT INTO raw(raw) VALUES (x'41'), (x'42'), (x'43')"
$PW ingest -q --db "$T/orph.db" /dev/null >/dev/null 2>"$T/err"
contains "orphan bytes: the next writer says it removed them" "$(cat "$T/err")" "removed the bytes of 3 messages"
is "orphan bytes: the raw store is as the messages need it" "$(q "$T/orph.db-raw" "SELECT count(*) FROM raw")" "$n"
out=$($PW db recheck --db "$T/orph.db")
contains "orphan bytes: every message still reads back" "$out" "rechecked=16"
$PW ingest -q --db "$T/orph.db" /dev/null >/dev/null 2>"$T/err"
is "orphan bytes: nothing said when there are none" "$(cat "$T/err")" ""
# Stopped in its very first batch: no message at all, and its bytes.
rm -f "$T/orph0.db"*
$PW ingest -q --db "$T/orph0.db" /dev/null >/dev/null 2>&1
q "$T/orph0.db-raw" "INSERT INTO raw(raw) VALUES (x'41'), (x'42')"
$PW ingest -q --db "$T/orph0.db" /dev/null >/dev/null 2>"$T/err"
contains "orphan bytes of a first batch: removed" "$(cat "$T/err")" "removed the bytes of 2 messages"
is "orphan bytes of a first batch: none left" "$(q "$T/orph0.db-raw" "SELECT count(*) FROM raw")" 0

# A store that cannot grow (here the file size limit; a full disk alike)
# stops the run with the store's own error: the next inputs would fail
# the same way, and nothing of the refused batch is counted.
xz -dc "$CORPUS/lore-linux-mips/first-2000.mbox.xz" >"$T/lore.mbox"
rm -f "$T/full.db"*
out=$( (trap '' XFSZ; ulimit -f 4096
	$PW ingest --db "$T/full.db" "$T/lore.mbox" "$TOP/tests/data/sample.mbox") 2>"$T/err"); rc=$?
is "store that cannot grow: exit status 75" "$rc" 75
is "store that cannot grow: one error, the next input not read" "$(kv errors "$out"),$(grep -c 'error:' "$T/err")" "1,1"
contains "store that cannot grow: the store's error is told" "$(cat "$T/err")" "full.db-raw: "
is "store that cannot grow: not a rollback's error" "$(grep -c 'cannot rollback' "$T/err")" 0
is "store that cannot grow: nothing counted as stored" "$(kv messages "$out")" 0

# A maintainer's unthreaded [PATCH 1/2] and [PATCH 2/2] of two other
# authors (in-body From:) are one series: a series is its poster's.
mkdir -p "$T/fwd"
$PW ingest -q --db "$T/fwd/pw.db" "$TOP/tests/data/forwarded-series.mbox" >/dev/null 2>&1
is "forwarded patches of two authors: one series of their poster" \
	"$($PW query series --db "$T/fwd/pw.db" --format json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(len(s), s[0]["sender"] if s else "", s[0]["patches"] if s else 0)')" \
	"1 maint@example.org 2"
