#!/usr/bin/env bash
# The exit statuses of patchwarden(1), EXIT STATUS, row by row: 0 done (findings
# are not a failure, mail from a pipe is never bounced), 1 some inputs
# or messages not read or stored (check: findings), 2 usage, 75
# EX_TEMPFAIL (the configuration or the store: an MTA delivers again).
. "$(dirname "$0")/../lib.sh"
# Everything below writes under $T (and mounts there): never elsewhere.
[ -d "${T:-}" ] || { echo "not ok - tests/lib.sh not loaded"; exit 1; }

q() { sqlite3 -batch -noheader "$1" "$2"; }
# st CMD...: the exit status of patchwarden CMD, output to $T/out, $T/err.
st() { "$PW" "$@" >"$T/out" 2>"$T/err"; echo $?; }
# has_verb CMD VERB: CMD takes VERB (a command of this round or later).
has_verb() { "$PW" "$1" --help 2>&1 | grep -q "[ |]$2[ |]\|[ |]$2\$"; }

mail() {	# MSGID MODE: a patch mail adding a debugfs file of MODE
	cat <<EOF2
From ann@example.org Mon Jan  1 00:00:00 2024
From: Ann Author <ann@example.org>
To: linux-foo@vger.example.org
Subject: [PATCH] foo: add a knob ($1)
Message-ID: <$1@exit.example>
Date: Mon, 1 Jan 2024 00:00:00 +0000

Add a knob.

Signed-off-by: Ann Author <ann@example.org>
---
diff --git a/drivers/foo/foo.c b/drivers/foo/foo.c
index 1111111..2222222 100644
--- a/drivers/foo/foo.c
+++ b/drivers/foo/foo.c
@@ -10,3 +10,4 @@ static int foo_init(void)
 {
 	struct dentry *d = debugfs_create_dir("foo", NULL);
+	debugfs_create_file("knob", $2, d, NULL, &knob_fops);
 	return 0;

EOF2
}
mail bad 0666 >"$T/bad.mbox"
mail good 0644 >"$T/good.mbox"
printf 'no header here\n\njust text\n' >"$T/junk.eml"
cat "$T/bad.mbox" "$T/junk.eml" >"$T/mixed.mbox"
sed 's/^From ann.*/From junk@x Mon Jan  1 00:00:00 2024/' "$T/bad.mbox" | head -n 1 >"$T/junk.mbox"
cat "$T/junk.eml" >>"$T/junk.mbox"
cat "$T/good.mbox" "$T/junk.mbox" >"$T/mixed.mbox"
RUNCONF=$TOP/tests/data/run.conf
mkdir -p "$T/r0" "$T/m2" "$T/o" "$T/miss2"

# ---- 0: done ----
is "0 check: no finding at or above --fail-on" "$(st check "$T/good.mbox")" 0
is "0 check: findings below --fail-on" "$(st check --fail-on info "$T/good.mbox")" 0
is "0 ingest FILE: findings do not change the status" "$(st ingest --db "$T/a.db" "$T/bad.mbox")" 0
is "0 ingest FILE: and there were findings" "$(kv findings "$(cat "$T/out")")" 1
is "0 run FILE: findings do not change the status" \
	"$(st run --config "$RUNCONF" --db "$T/r0/pw.db" "$T/bad.mbox")" 0
is "0 run FILE: and there were findings" "$(kv findings "$(head -n 1 "$T/out")")" 1
is "0 run -: a message with findings" \
	"$(st run --config "$RUNCONF" --db "$T/r0/pw.db" - <"$T/good.mbox")" 0
mkdir -p "$T/md/cur" "$T/md/new" "$T/md/tmp"
cp "$T/bad.mbox" "$T/md/new/1.eml"
$PW subscribe --db "$T/p.db" add md "$T/md" >/dev/null
is "0 poll: findings do not change the status" "$(st poll --config "$RUNCONF" --db "$T/p.db")" 0
contains "0 poll: and there were findings" "$(cat "$T/out")" "findings=1"
is "0 run -: a message that is not mail (never bounced)" \
	"$(st run --config "$RUNCONF" --db "$T/j.db" - <"$T/junk.eml")" 0
is "0 run -: it is stored as an ingest error, with its bytes" \
	"$(q "$T/j.db" "SELECT count(*), length(raw) FROM ingest_error")" "1|$(wc -c <"$T/junk.eml")"
contains "0 run -: and named on stderr" "$(cat "$T/err")" "-: message 1: not a mail message"
is "0 ingest -: an mbox with a message that is not mail" \
	"$(st ingest --db "$T/j2.db" - <"$T/mixed.mbox")" 0
is "0 ingest -: the mail stored, the rest an ingest error" \
	"$(q "$T/j2.db" "SELECT (SELECT count(*) FROM message), (SELECT count(*) FROM ingest_error)")" "1|1"
# 2024 mail under the default age limit: its reply is kept, suppressed.
mkdir -p "$T/s0"
$PW run --db "$T/s0/pw.db" "$T/bad.mbox" >/dev/null 2>&1
is "0 outbox retry: rescheduled" "$(st outbox --db "$T/s0/pw.db" retry 1)" 0
is "0 outbox retry: says it is rescheduled, not sent" "$(cat "$T/out")" \
	"reply 1 rescheduled: pending, due now; the next 'outbox send' (or the service) sends it"
is "0 outbox retry: and it is pending, not sent" \
	"$(q "$T/s0/pw.db" "SELECT state FROM outbox WHERE id = 1")" pending
check "0 outbox retry: nothing in the dry-run mbox" test ! -s "$T/s0/outbox.mbox"
is "0 outbox retry --now: sent" "$(st outbox --db "$T/s0/pw.db" retry 1 --now)" 0
is "0 outbox retry --now: says so" "$(cat "$T/out")" \
	"reply 1 sent (dry run: written to $T/s0/outbox.mbox)"
is "0 outbox retry --now: it is in the dry-run mbox" "$(grep -c '^From ' "$T/s0/outbox.mbox")" 1
is "2 outbox retry: a sent reply is refused" "$(st outbox --db "$T/s0/pw.db" retry 1 --now)" 2
contains "2 outbox retry: says why" "$(cat "$T/err")" "already sent"
if "$PW" config check --help >/dev/null 2>&1; then
	printf '[reply]\nmax_age = 3\n' >"$T/ok.conf"
	is "0 config check: no problem found" "$(st config check --config "$T/ok.conf")" 0
fi
if has_verb db check; then
	is "0 db check: no problem found" "$(st db check --db "$T/a.db")" 0
fi

# ---- 1: some not read or stored; check: findings ----
is "1 check: findings at or above --fail-on" "$(st check "$T/bad.mbox")" 1
is "1 ingest FILE: a message that is not mail, the rest stored" \
	"$(st ingest --db "$T/m.db" "$T/mixed.mbox")" 1
contains "1 ingest FILE: the message is named" "$(cat "$T/err")" "mixed.mbox: message 2"
is "1 ingest FILE: stored, and the ingest error too" \
	"$(q "$T/m.db" "SELECT (SELECT count(*) FROM message), (SELECT count(*) FROM ingest_error)")" "1|1"
is "1 run FILE: a message that is not mail" \
	"$(st run --config "$RUNCONF" --db "$T/m2/pw.db" "$T/mixed.mbox")" 1
# A subscribed Maildir with a message that is not mail: the poll goes on,
# stores it as an ingest error, and says by its status that not every
# message was stored (as ingest of a file does).
mkdir -p "$T/mdx/cur" "$T/mdx/new" "$T/mdx/tmp"
cp "$T/good.mbox" "$T/mdx/new/1.eml"
printf 'this is not a mail message\n' >"$T/mdx/new/2.eml"
$PW subscribe --db "$T/px.db" add mdx "$T/mdx" >/dev/null
is "1 poll: a message could not be read, the rest stored" "$(st poll --config "$RUNCONF" --db "$T/px.db")" 1
is "1 poll: says errors=1" "$(kv errors "$(cat "$T/out")")" 1
contains "1 poll: names the message" "$(cat "$T/err")" "mdx: $T/mdx/new/2.eml"
is "1 poll: stored, and the ingest error too" \
	"$(q "$T/px.db" "SELECT (SELECT count(*) FROM message), (SELECT count(*) FROM ingest_error)")" "1|1"
is "0 poll: the next poll, nothing new" "$(st poll --config "$RUNCONF" --db "$T/px.db")" 0
mkdir -p "$T/gone/cur" "$T/gone/new" "$T/gone/tmp"
$PW subscribe --db "$T/p.db" add gone "$T/gone" >/dev/null
rm -rf "$T/gone"
is "1 poll: a source failed, the others polled" "$(st poll --config "$RUNCONF" --db "$T/p.db")" 1
contains "1 poll: which, and why" "$(cat "$T/out")" "gone: failed:"
port=$(free_port)
printf '[smtp]\nurl = smtp://127.0.0.1:%s/\nfrom = bot@example.org\n[reply]\nmax_age = 0\n[list *]\nmail = author\n' \
	"$port" >"$T/down.conf"
is "0 run FILE: a reply that cannot be sent waits, the delivery succeeds" \
	"$(st run --config "$T/down.conf" --db "$T/o/pw.db" "$T/bad.mbox")" 0
contains "0 run FILE: the reply deferred" "$(cat "$T/out")" "deferred=1"
is "1 outbox send: a reply deferred" "$(st outbox --config "$T/down.conf" --db "$T/o/pw.db" send --all)" 1
is "1 outbox retry --now: not sent, says why" \
	"$(st outbox --config "$T/down.conf" --db "$T/o/pw.db" retry 1 --now)" 1
contains "1 outbox retry --now: still pending" "$(cat "$T/out")" "reply 1 not sent: "
contains "1 outbox retry --now: to be retried" "$(cat "$T/out")" "it is pending, to be retried later"
if "$PW" config check --help >/dev/null 2>&1; then
	printf '[smpt]\nurl = x\n' >"$T/typo.conf"
	is "1 config check: problems found" "$(st config check --config "$T/typo.conf")" 1
	contains "1 config check: FILE:LINE: names the section" "$(cat "$T/out" "$T/err")" "typo.conf:1:"
fi
if has_verb db check; then
	cp "$T/a.db" "$T/orph.db"
	cp "$T/a.db-raw" "$T/orph.db-raw"
	q "$T/orph.db-raw" "INSERT INTO raw(raw) VALUES (x'41')"
	is "1 db check: orphaned raw rows found" "$(st db check --db "$T/orph.db")" 1
fi

# ---- 2: usage ----
is "2 an unknown command" "$(st no-such-command)" 2
is "2 an unknown option" "$(st ingest --no-such-option --db "$T/u.db" "$T/good.mbox")" 2
is "2 a bad option value" "$(st ingest --format xml --db "$T/u.db" "$T/good.mbox")" 2
for n in 0 257 100000 -1 abc; do
	is "2 ingest --threads $n" "$(st ingest --threads "$n" --db "$T/u.db" "$T/good.mbox")" 2
	contains "2 ingest --threads $n: says the range" "$(cat "$T/err")" "--threads is 1 to 256"
done
is "0 ingest --threads 256" "$(st ingest -q --threads 256 --db "$T/u.db" "$T/good.mbox")" 0
is "0 ingest --threads 1" "$(st ingest -q --threads 1 --db "$T/u.db" "$T/good.mbox")" 0
if "$PW" check --help 2>&1 | grep -q -- --threads; then
	is "2 check --threads 0" "$(st check --threads 0 "$T/good.mbox")" 2
	is "2 check --threads 257" "$(st check --threads 257 "$T/good.mbox")" 2
fi
is "2 check: a missing input" "$(st check "$T/missing.mbox")" 2
is "2 ingest: a missing input" "$(st ingest --db "$T/miss.db" "$T/good.mbox" "$T/missing.mbox")" 2
contains "2 ingest: named" "$(cat "$T/err")" "missing.mbox: No such file or directory"
is "2 ingest: nothing stored before it is said" "$(q "$T/miss.db" "SELECT count(*) FROM message" 2>/dev/null || echo 0)" 0
is "2 run: a missing input" "$(st run --db "$T/miss2/pw.db" - "$T/missing.mbox" <"$T/good.mbox")" 2
check "2 run: no store made" test ! -e "$T/miss2/pw.db"
is "2 archive: a missing input" "$(st archive "$T/arch" "$T/missing.mbox")" 2
is "2 ingest: a folder that is missing" "$(st ingest --db "$T/miss.db" "$T/no-such-dir/")" 2
if [ "$(id -u)" -ne 0 ]; then
	cp "$T/good.mbox" "$T/secret.mbox"
	chmod 000 "$T/secret.mbox"
	is "2 ingest: an unreadable input" "$(st ingest --db "$T/miss.db" "$T/secret.mbox")" 2
	contains "2 ingest: unreadable, named" "$(cat "$T/err")" "secret.mbox: Permission denied"
	is "2 check: an unreadable input" "$(st check "$T/secret.mbox")" 2
else
	echo "# skipped: an unreadable input (root reads every file)"
fi
is "2 run: --no-flood-detection without SOURCEs" "$(st run --no-flood-detection --db "$T/u.db")" 2
is "2 outbox: --now is for retry" "$(st outbox --db "$T/u.db" list --now)" 2
# outbox send stopped by a refused login or sender: tests/integration/reply.sh.

# ---- 75: the configuration or the store ----
for c in "ingest $T/good.mbox" "run $T/good.mbox" poll "subscribe list" "outbox list" \
	 "query findings" "db stats" "serve --listen 127.0.0.1:1"; do
	# shellcheck disable=SC2086
	is "75 $c: a configuration that cannot be read" \
		"$(st $c --config "$T/no-such.conf" --db "$T/c.db")" 75
done
printf '[smtp]\nurl = smtp://bot:s3cret@127.0.0.1:1/\nfrom = bot@example.org\n' >"$T/leaky.conf"
chmod 644 "$T/leaky.conf"
for c in "ingest $T/good.mbox" "run -" poll "outbox send"; do
	# shellcheck disable=SC2086
	is "75 $c: a configuration refused" "$(st $c --config "$T/leaky.conf" --db "$T/c.db" <"$T/good.mbox")" 75
done
for c in "ingest $T/good.mbox" "run -" poll "subscribe list" "outbox list" \
	 "query findings" "db stats" "db check" "serve --listen 127.0.0.1:1"; do
	# shellcheck disable=SC2086
	is "75 $c: a store that cannot be opened" \
		"$(st $c --db "$T/no-such-dir/pw.db" <"$T/good.mbox")" 75
done

# Stdin that cannot be read is the delivery failing, not the mail:
# nothing of it is stored, so the MTA is to deliver it again.
is "75 ingest -: stdin that cannot be read (a folder)" "$(st ingest --db "$T/dir.db" - <"$T")" 75
is "75 run -: stdin that cannot be read (a folder)" "$(st run --db "$T/dir.db" - <"$T")" 75

# A piped mbox whose first message is over the size cap: that one is an
# ingest error, the messages after it are read and stored, status 0.
/usr/bin/python3 - "$T/bigfirst.mbox" <<'PY2'
import sys
with open(sys.argv[1], "wb") as f:
    f.write(b"From x Mon Jan  1 00:00:00 2024\nFrom: a@example.org\nSubject: big\n"
            b"Message-ID: <big@example.org>\n\n" + (b"a" * 1023 + b"\n") * 66000)
    for i in range(3):
        f.write(b"\nFrom x Mon Jan  1 00:00:00 2024\nFrom: a@example.org\n"
                b"Subject: small %d\nMessage-ID: <small%d@example.org>\n\nbody\n" % (i, i))
PY2
is "0 ingest -: an oversize message in a piped mbox" "$(st ingest --db "$T/bf.db" - <"$T/bigfirst.mbox")" 0
is "0 ingest -: the messages after it are stored" \
	"$(sqlite3 "$T/bf.db" "SELECT count(*) FROM message"),$(sqlite3 "$T/bf.db" "SELECT count(*) FROM ingest_error")" "3,1"
rm -f "$T/bigfirst.mbox"

# Busy: another process holds the write lock past the busy timeout.
$PW ingest -q --db "$T/busy.db" /dev/null >/dev/null
mkfifo "$T/lock.sql"
sqlite3 "$T/busy.db" <"$T/lock.sql" >/dev/null 2>&1 &
holder=$!
exec 3>"$T/lock.sql"
echo "BEGIN EXCLUSIVE; DELETE FROM cursor;" >&3
for i in $(seq 50); do
	sqlite3 "$T/busy.db" "PRAGMA busy_timeout=0; BEGIN IMMEDIATE; ROLLBACK;" >/dev/null 2>&1 || break
	sleep 0.1
done
"$PW" run --db "$T/busy.db" - <"$T/good.mbox" >/dev/null 2>"$T/busy-run.err" &
r1=$!
"$PW" ingest --db "$T/busy.db" "$T/good.mbox" >/dev/null 2>"$T/busy-ingest.err" &
r2=$!
"$PW" poll --db "$T/busy.db" >/dev/null 2>&1 &
r3=$!
wait $r1; rc1=$?
wait $r2; rc2=$?
wait $r3; rc3=$?
exec 3>&-
wait "$holder"
is "75 run -: the store busy" "$rc1" 75
contains "75 run -: the store busy, said" "$(cat "$T/busy-run.err")" \
	"database is locked (another process is writing to the store; try again later)"
is "75 ingest FILE: the store busy" "$rc2" 75
is "75 poll: the store busy" "$rc3" 75
is "0 run -: delivered again once the store is free" "$(st run --db "$T/busy.db" - <"$T/good.mbox")" 0
is "0 run -: stored then" "$(q "$T/busy.db" "SELECT count(*) FROM message")" 1

# Full: the raw store cannot grow (a file size limit: no root needed).
{ sed -n '1,/^+++ /p' "$T/good.mbox" | sed 's/good@/big@/'
  echo "@@ -0,0 +1,5120 @@"
  head -c $((5 << 20)) /dev/zero | tr '\0' 'y' | fold -w 1023 | sed 's/^/+/'; } >"$T/big.mbox"
$PW ingest -q --db "$T/full.db" /dev/null >/dev/null
rc=$( (trap '' XFSZ; ulimit -f 4096; "$PW" run --db "$T/full.db" - <"$T/big.mbox" >/dev/null 2>"$T/full.err"; echo $?) )
is "75 run -: the store cannot grow (file size limit)" "$rc" 75
contains "75 run -: the store's error is told" "$(cat "$T/full.err")" "full.db-raw: "
rc=$( (trap '' XFSZ; ulimit -f 4096; "$PW" ingest --db "$T/full.db" "$T/big.mbox" >/dev/null 2>&1; echo $?) )
is "75 ingest FILE: the store cannot grow" "$rc" 75
is "0 run -: delivered again once it can" "$(st run --db "$T/full.db" - <"$T/big.mbox")" 0

# Full and read-only for real: a small tmpfs, when this runs as root.
mnt=$T/mnt
mkdir -p "$mnt"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=32m pw-exit-test "$mnt" 2>/dev/null; then
	at_exit "umount '$mnt' 2>/dev/null"
	$PW ingest -q --db "$mnt/pw.db" /dev/null >/dev/null
	avail=$(df -k --output=avail "$mnt" | tail -n 1)
	head -c $(( (avail - 32) * 1024 )) /dev/zero >"$mnt/fill" 2>/dev/null
	is "75 run -: the disk full (ENOSPC)" "$(st run --db "$mnt/pw.db" - <"$T/big.mbox")" 75
	contains "75 run -: the disk full, said" "$(cat "$T/err")" "pw.db-raw: "
	is "75 ingest FILE: the disk full" "$(st ingest --db "$mnt/pw.db" "$T/good.mbox" "$T/big.mbox")" 75
	rm -f "$mnt/fill"
	is "0 run -: delivered again once there is room" "$(st run --db "$mnt/pw.db" - <"$T/big.mbox")" 0
	mount -o remount,ro "$mnt"
	is "75 run -: the store read-only" "$(st run --db "$mnt/pw.db" - <"$T/good.mbox")" 75
	is "75 ingest FILE: the store read-only" "$(st ingest --db "$mnt/pw.db" "$T/good.mbox")" 75
	umount "$mnt"
else
	echo "# skipped: a full and a read-only disk (needs root to mount a tmpfs)"
fi
