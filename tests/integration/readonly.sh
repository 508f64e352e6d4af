#!/usr/bin/env bash
# Readers who cannot write the store's folder: query, db stats and
# outbox list read a WAL store read-only, while a writer has it open or
# after it closed; when they truly cannot read they say why.  A reader
# racing the process that creates a new store waits for it.  Readers run
# as nobody (setpriv), so the suite needs root, which CI has.
. "$(dirname "$0")/../lib.sh"

S=$TOP/tests/data/sample.mbox
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null ||
   ! id nobody >/dev/null 2>&1; then
	echo "# skip readonly.sh: readers run as nobody through setpriv, which needs root"
	exit 0
fi
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
chmod 755 "$T"
if ! nobody test -x "$PW"; then
	echo "# skip readonly.sh: nobody cannot run $PW (a folder above it is closed)"
	exit 0
fi
listing() { (cd "$1" && ls -l --time-style=+%s .); }

# A store in a folder only root can write; files readable by all.
mkdir "$T/ro"
$PW ingest -q --db "$T/ro/pw.db" "$S" >/dev/null
check "a writer that closed kept the WAL files" \
	test -e "$T/ro/pw.db-wal" -a -e "$T/ro/pw.db-shm" -a -e "$T/ro/pw.db-raw-wal"
before=$(listing "$T/ro")
out=$(nobody $PW db stats --db "$T/ro/pw.db" 2>"$T/err"); rc=$?
is "db stats as a reader who cannot write the folder: 0" "$rc" 0
is "db stats: the counts" "$(kv messages "$out"),$(kv patches "$out")" "61,16"
is "db stats: nothing on stderr" "$(cat "$T/err")" ""
out=$(nobody $PW query patches --db "$T/ro/pw.db" --format csv 2>"$T/err"); rc=$?
is "query patches as that reader: 0" "$rc" 0
is "query patches: every patch" "$(printf '%s\n' "$out" | tail -n +2 | wc -l)" 16
mid=$(grep -m 1 -i '^message-id:' "$S" | sed 's/^[^<]*<//; s/>.*//')
out=$(nobody $PW query message --db "$T/ro/pw.db" "$mid" 2>"$T/err"); rc=$?
is "query message (its raw bytes) as that reader: 0" "$rc" 0
contains "query message: the message" "$out" "$mid"
nobody $PW outbox list --db "$T/ro/pw.db" >/dev/null 2>"$T/err"; rc=$?
is "outbox list as that reader: 0" "$rc,$(cat "$T/err")" "0,"
is "the readers changed no file" "$(listing "$T/ro")" "$before"

# While a writer has the store open and writes.
xz -dc "$CORPUS/lore-linux-mips/first-2000.mbox.xz" >"$T/lore.mbox"
$PW ingest -q --threads 1 --db "$T/ro/pw.db" "$T/lore.mbox" >/dev/null 2>&1 &
ipid=$!
at_exit "kill $ipid 2>/dev/null"
bad=0 reads=0
while kill -0 $ipid 2>/dev/null && [ $reads -lt 50 ]; do
	nobody $PW db stats --db "$T/ro/pw.db" >/dev/null 2>>"$T/err" || bad=$((bad + 1))
	reads=$((reads + 1))
done
wait $ipid
echo "# $reads reads during the ingest"
is "db stats as that reader while a writer writes: never refused" "$bad" 0
is "after the writer: the reader sees its messages" \
	"$(kv messages "$(nobody $PW db stats --db "$T/ro/pw.db" 2>&1)")" "$(kv messages "$($PW db stats --db "$T/ro/pw.db")")"

# A store whose WAL files are gone (closed by an older version, or
# removed): that reader cannot make them, and says so.
# (The owner's read-write open, the last, empties the WAL into the file.)
$PW db check --db "$T/ro/pw.db" >/dev/null 2>&1
mkdir "$T/old"
cp "$T/ro/pw.db" "$T/ro/pw.db-raw" "$T/old/"
out=$(nobody $PW db stats --db "$T/old/pw.db" 2>&1); rc=$?
is "no WAL files: exit status 75" "$rc" 75
contains "no WAL files: says which are missing" "$out" "$T/old/pw.db-wal and $T/old/pw.db-shm files are missing"
contains "no WAL files: says why they cannot be made" "$out" "this user cannot create them in $T/old"
case "$out" in *"schema version"*) not_ok "no WAL files: not a schema version" ;; *) ok "no WAL files: not a schema version" ;; esac
$PW db check --db "$T/old/pw.db" >/dev/null 2>&1
out=$(nobody $PW db stats --db "$T/old/pw.db" 2>&1); rc=$?
is "no WAL files: a read-write open by the owner makes them for good" "$rc,$(kv messages "$out")" "0,$(kv messages "$($PW db stats --db "$T/ro/pw.db")")"

# A store this user cannot read at all.
mkdir "$T/closed"
cp "$T/ro/pw.db" "$T/ro/pw.db-raw" "$T/closed/"
chmod 600 "$T/closed/pw.db"
out=$(nobody $PW query stats --db "$T/closed/pw.db" 2>&1); rc=$?
check "unreadable store: refused" test "$rc" -ne 0
contains "unreadable store: named" "$out" "$T/closed/pw.db: unable to open database file"

# A reader racing the creator of a new store: an empty file first (the
# creator has opened it), the schema a moment later.  It waits.
mkdir "$T/new"
: >"$T/new/pw.db"
$PW db stats --db "$T/new/pw.db" >"$T/new.out" 2>"$T/new.err" &
rpid=$!
sleep 1
$PW ingest -q --db "$T/new/pw.db" /dev/null >/dev/null 2>&1
wait $rpid; rc=$?
is "reader racing the creator: waits, then reads" "$rc,$(kv messages "$(cat "$T/new.out")")" "0,0"
is "reader racing the creator: nothing on stderr" "$(cat "$T/new.err")" ""
# An empty file nobody fills: said so after the wait, not "version 0".
: >"$T/new/empty.db"
out=$($PW db stats --db "$T/new/empty.db" 2>&1); rc=$?
is "a store left empty: exit status 75" "$rc" 75
contains "a store left empty: said so" "$out" "no store yet: another process is creating it, or it was left empty"
