#!/usr/bin/env bash
# patchwarden run: the main job end to end on the embedded default
# (dry-run replies), on the bundled sample and on a generated flood.
. "$(dirname "$0")/../lib.sh"

q() { sqlite3 -batch -noheader "$1" "$2"; }

# The bundled sample with the configuration make run uses: its synthetic patch gets one
# reply, written to outbox.mbox beside the database, never sent.
mkdir -p "$T/s"
out=$($PW run --config "$TOP/tests/data/run.conf" --db "$T/s/pw.db" "$TOP/tests/data/sample.mbox" 2>"$T/err")
is "sample: exit status" "$?" 0
is "sample: 61 messages" "$(kv messages "$out")" 61
contains "sample: dry run says where" "$out" "dry run: written to $T/s/outbox.mbox"
is "sample: one reply in the dry-run mbox" "$(grep -c '^From ' "$T/s/outbox.mbox")" 1
contains "sample: the reply answers the synthetic patch" "$(cat "$T/s/outbox.mbox")" \
	"In-Reply-To: <20261103100000.1-sam@example.org>"
again=$($PW run --config "$TOP/tests/data/run.conf" --db "$T/s/pw.db" "$TOP/tests/data/sample.mbox" 2>/dev/null)
is "sample again: all duplicates" "$(kv duplicates "$again")" 61
is "sample again: still one reply" "$(grep -c '^From ' "$T/s/outbox.mbox")" 1

# With the default age limit, 2019 list mail is stored but not answered.
mkdir -p "$T/d"
out=$($PW run --db "$T/d/pw.db" "$TOP/tests/data/sample.mbox" 2>/dev/null)
is "default max_age: the sample stored" "$(kv messages "$out")" 61
is "default max_age: old mail answered by nobody" \
	"$(q "$T/d/pw.db" "SELECT count(*) FROM outbox WHERE state <> 'suppressed'")" 0
check "default max_age: the replies it would send are kept, suppressed" \
	test "$(q "$T/d/pw.db" "SELECT count(*) FROM outbox WHERE state = 'suppressed'")" -gt 0

# A flood: one summary for the whole flood, every flood patch held with
# the reason, the same Message-ID on several lists stored once.
/usr/bin/python3 "$TOP/tests/gen_flood.py" --out "$T/f" --flood-size 120 --noise 80 --seed 7 >/dev/null
out=$($PW run --config "$TOP/tests/data/run.conf" --db "$T/f/pw.db" "$T/f/arrival.mbox" 2>"$T/err")
flood_ids=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["flood"]["message_ids"]))' "$T/f/expected.json" 2>/dev/null)
check "flood: expected.json names the flood's messages" test "${flood_ids:-0}" -ge 100
is "flood: one summary reply" \
	"$(q "$T/f/pw.db" "SELECT count(*) FROM outbox WHERE answers LIKE 'flood:%'")" 1
is "flood: no per-patch reply to the flooder is sent" \
	"$(q "$T/f/pw.db" "SELECT count(*) FROM outbox o JOIN message m ON 'msg:' || m.id = o.answers WHERE m.from_addr = (SELECT sender FROM flood LIMIT 1) AND o.state <> 'suppressed'")" 0
is "flood: every flood patch's reply held" \
	"$(q "$T/f/pw.db" "SELECT count(*) FROM outbox WHERE state = 'suppressed' AND (reason LIKE 'part of flood%' OR reason LIKE '%announced as large%')")" \
	"$flood_ids"
contains "flood: the summary is in the dry-run mbox" "$(cat "$T/f/outbox.mbox")" "Auto-Submitted: auto-generated"

# --threads, as for ingest: the same store and the same replies whatever
# the number of parser threads, since storing and answering keep source
# order; out of range, or without SOURCEs, a usage error.
for n in 1 3; do
	$PW run --threads $n --config "$TOP/tests/data/run.conf" --db "$T/f/t$n.db" "$T/f/arrival.mbox" >"$T/t$n.out" 2>/dev/null
	is "run --threads $n: exit status" "$?" 0
done
is "run --threads 1 and 3: the same counts" "$(cat "$T/t3.out")" "$(cat "$T/t1.out")"
replies() { q "$1" "SELECT answers, state, coalesce(reason, '') FROM outbox ORDER BY answers"; }
is "run --threads 1 and 3: the same replies, held for the same reasons" \
	"$(replies "$T/f/t3.db")" "$(replies "$T/f/t1.db")"
$PW run --threads 0 --db "$T/f/t0.db" "$T/f/arrival.mbox" >/dev/null 2>"$T/err"
is "run --threads 0: usage error" "$?" 2
contains "run --threads 0: says the range" "$(cat "$T/err")" "--threads is 1 to 256"
$PW run --threads 2 --db "$T/f/t0.db" >/dev/null 2>"$T/err"
is "run --threads without SOURCEs: usage error" "$?" 2
contains "run --threads without SOURCEs: says so" "$(cat "$T/err")" "--threads is for SOURCEs"

# Configuration: the shipped example loads; secrets in a file others can
# read are refused, a password inside the SMTP URL included.
$PW run --config "$TOP/deploy/patchwarden.conf.example" --db "$T/ex.db" "$TOP/tests/data/sample.mbox" >/dev/null 2>"$T/err"
is "the example configuration loads" "$?" 0
printf '[smtp]\nurl = smtp://bot:s3cret@127.0.0.1:1/\nfrom = bot@example.org\n' >"$T/leaky.conf"
chmod 644 "$T/leaky.conf"
$PW run --config "$T/leaky.conf" --db "$T/leaky.db" "$TOP/tests/data/sample.mbox" >/dev/null 2>"$T/err"
is "a password in a readable SMTP URL: refused (75: the MTA keeps the mail)" "$?" 75
contains "the refusal says why" "$(cat "$T/err")" "group or others can read it"
printf '[smtp]\nurl = smtp://127.0.0.1:1/\n' >"$T/nofrom.conf"
$PW run --config "$T/nofrom.conf" --db "$T/nofrom.db" "$TOP/tests/data/sample.mbox" >/dev/null 2>"$T/err"
is "an SMTP url without a sender address: refused (75)" "$?" 75

# What an MTA pipes: one message behind its envelope From_ line (the
# first of the sample).
awk '/^From / && n++ { exit } { print }' "$TOP/tests/data/sample.mbox" >"$T/one.mbox"

# An MTA pipe while another process sends the outbox: the mail is
# stored and the delivery succeeds; the reply waits, queued.
mkdir -p "$T/m"
out=$(flock "$T/m/pw.db.outbox-lock" $PW run --config "$TOP/tests/data/run.conf" \
	--db "$T/m/pw.db" - <"$T/one.mbox" 2>"$T/err"); rc=$?
is "outbox busy: run exits 0 (an MTA would bounce on 1)" "$rc" 0
is "outbox busy: the message stored" "$(kv messages "$out")" 1
contains "outbox busy: said" "$(cat "$T/err")" "another process is sending the outbox"

# The store failing (here a trigger refuses the message; a full disk or
# a store busy for too long alike) is a temporary failure for an MTA
# (EX_TEMPFAIL, 75): it keeps the mail and delivers it again.
mkdir -p "$T/tf"
$PW ingest -q --db "$T/tf/pw.db" /dev/null >/dev/null 2>&1
sqlite3 "$T/tf/pw.db" "CREATE TRIGGER refuse BEFORE INSERT ON message
BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END;"
$PW run --config "$TOP/tests/data/run.conf" --db "$T/tf/pw.db" - \
	<"$T/one.mbox" >/dev/null 2>"$T/err"; rc=$?
is "store failing: run exits 75 (EX_TEMPFAIL), the MTA tries again" "$rc" 75
contains "store failing: says why" "$(cat "$T/err")" "refused by a test trigger"
sqlite3 "$T/tf/pw.db" "DROP TRIGGER refuse"
out=$($PW run --config "$TOP/tests/data/run.conf" --db "$T/tf/pw.db" - \
	<"$T/one.mbox" 2>"$T/err"); rc=$?
is "store back: the delivery again succeeds" "$rc,$(kv messages "$out")" "0,1"

# An MTA pipes one message: a format-patch header pasted in its body
# (MTAs need not escape From_ lines) does not split it.
cat >"$T/pasted.mbox" <<'MAIL'
From maint@example.org Mon Jan  1 00:00:00 2024
From: Maint <maint@example.org>
Subject: Re: [PATCH] foo: bar
Message-ID: <pasted@example.org>
Date: Mon, 1 Jan 2024 00:00:00 +0000

Try this instead:

From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001
From: Victim <victim@elsewhere.example>
Subject: [PATCH] foo: other

---
MAIL
mkdir -p "$T/pasted"
out=$($PW run --config "$TOP/tests/data/run.conf" --db "$T/pasted/pw.db" - \
	<"$T/pasted.mbox" 2>"$T/err"); rc=$?
is "an MTA's one message with a pasted From_ line: read as one" \
	"$rc,$(kv messages "$out")" "0,1"

# An mbox piped in is split like the same file (git am reads stdin so).
n=$(grep -c '^From ' "$TOP/tests/data/sample.mbox")
mkdir -p "$T/pipe"
out=$($PW ingest --db "$T/pipe/pw.db" - <"$TOP/tests/data/sample.mbox" 2>"$T/err")
is "an mbox on stdin: every message read" "$(kv messages "$out")" "$n"

$PW run --config "$TOP/tests/data/run.conf" --db "$T/no-such-dir/pw.db" - \
	<"$TOP/tests/data/sample.mbox" >/dev/null 2>"$T/err"; rc=$?
is "a store that cannot be opened: exit 75, the MTA keeps the mail" "$rc" 75
$PW run --config "$T/no-such.conf" --db "$T/tf/pw.db" - \
	<"$TOP/tests/data/sample.mbox" >/dev/null 2>"$T/err"; rc=$?
is "a configuration that cannot be read: exit 75, the MTA keeps the mail" "$rc" 75

# A sender that is not one address, and a max_age past any date, are
# refused when the configuration is read, not found out reply by reply.
printf '[smtp]\nfrom = Bot without an address\n' >"$T/badfrom.conf"
$PW run --config "$T/badfrom.conf" --db "$T/badfrom.db" "$TOP/tests/data/sample.mbox" >/dev/null 2>"$T/err"; rc=$?
is "[smtp] from not an address: refused (75)" "$rc" 75
contains "[smtp] from not an address: said" "$(cat "$T/err")" "[smtp] from = Bot without an address: not one mail address"
printf '[reply]\nmax_age = 99999999\n' >"$T/age.conf"
$PW run --config "$T/age.conf" --db "$T/age.db" "$TOP/tests/data/sample.mbox" >/dev/null 2>"$T/err"; rc=$?
is "[reply] max_age out of range: refused (75)" "$rc" 75
contains "[reply] max_age out of range: said" "$(cat "$T/err")" "max_age is days, 0 to 36500"
mkdir -p "$T/g"
printf '[smtp]\nfrom = "Review Bot" <Bot@Example.ORG>\n[reply]\nmax_age = 0\n[list *]\nmail = author\n' >"$T/g/goodfrom.conf"
$PW run --config "$T/g/goodfrom.conf" --db "$T/g/pw.db" "$TOP/tests/data/sample.mbox" >/dev/null 2>&1
check "a quoted name and a mixed-case address are read" \
	grep -q '^From: Review Bot <bot@example.org>' "$T/g/outbox.mbox"

# A maintainer posts another author's patch (an in-body From:, as git
# format-patch writes it): both people are stored; the reply goes To the
# maintainer, who posted it, with the author in Cc; queries show the
# author.
mkdir -p "$T/people"
cat >"$T/people.mbox" <<'EOF'
From maint@example.org Mon Jan  1 00:00:00 2024
From: Maintainer Person <maint@example.org>
To: linux-foo@vger.example.org
Subject: [PATCH] foo: add a knob
Message-ID: <people-1@example.org>
Date: Mon, 1 Jan 2024 00:00:00 +0000

From: Rene Author <rene@example.com>

Add a knob.

Signed-off-by: Rene Author <rene@example.com>
Signed-off-by: Maintainer Person <maint@example.org>
---
diff --git a/drivers/foo/foo.c b/drivers/foo/foo.c
index 1111111..2222222 100644
--- a/drivers/foo/foo.c
+++ b/drivers/foo/foo.c
@@ -10,3 +10,4 @@ static int foo_init(void)
 {
 	struct dentry *d = debugfs_create_dir("foo", NULL);
+	debugfs_create_file("knob", 0666, d, NULL, &knob_fops);
 	return 0;

EOF
$PW run --config "$TOP/tests/data/run.conf" --db "$T/people/pw.db" "$T/people.mbox" >/dev/null 2>"$T/err"
is "in-body author: run exits 0" "$?" 0
is "in-body author: the author stored as the message's" \
	"$(q "$T/people/pw.db" "SELECT from_name || ' <' || from_addr || '>' FROM message")" "Rene Author <rene@example.com>"
is "in-body author: the sender stored beside" \
	"$(q "$T/people/pw.db" "SELECT name || ' <' || addr || '>' FROM message_sender")" "Maintainer Person <maint@example.org>"
is "in-body author: one reply in the dry-run mbox" "$(grep -c '^From ' "$T/people/outbox.mbox")" 1
is "in-body author: the reply goes To the maintainer" \
	"$(grep -m1 '^To:' "$T/people/outbox.mbox")" "To: Maintainer Person <maint@example.org>"
is "in-body author: the author in Cc" "$(grep -m1 '^Cc:' "$T/people/outbox.mbox")" "Cc: rene@example.com"
is "in-body author: the outbox counts the maintainer (rcpt_to)" \
	"$(q "$T/people/pw.db" "SELECT rcpt_to FROM outbox")" "maint@example.org"
out=$($PW query findings --db "$T/people/pw.db" --format json)
contains "in-body author: queries show the author" "$out" '"from" : "rene@example.com"'

# A Date that cannot be read, and one of 1900, are unknown: parse says
# so, the store holds NULL, and under an age limit (the default) the
# reply is held back, saying why.
mkdir -p "$T/nodate"
for d in "Mon, 1 Jan 1900 00:00:00 +0000" "garbage"; do
	n=$((${n:-0} + 1))
	sed -e "s/^Date: .*/Date: $d/" -e "s/people-1@/nodate-$n@/" \
		-e '/^From: Rene/,/^$/d' "$T/people.mbox"
done >"$T/nodate.mbox"
out=$($PW parse "$T/nodate.mbox")
is "unknown Date: parse warns for both" \
	"$(printf '%s\n' "$out" | grep -c '^Warning: Date: unreadable or impossible, taken as unknown$')" 2
$PW run --db "$T/nodate/pw.db" "$T/nodate.mbox" >/dev/null 2>"$T/err"
is "unknown Date: run exits 0" "$?" 0
is "unknown Date: both stored with a NULL date" \
	"$(q "$T/nodate/pw.db" "SELECT count(*) FROM message WHERE date IS NULL")" 2
is "unknown Date: both replies held back, saying why" \
	"$(q "$T/nodate/pw.db" "SELECT count(*) FROM outbox WHERE state = 'suppressed' AND reason = 'its Date is unknown or impossible: taken as too old to answer'")" 2
contains "unknown Date: outbox list shows the reason" \
	"$($PW outbox list --db "$T/nodate/pw.db" --state suppressed)" "its Date is unknown or impossible"
check "unknown Date: nothing in the dry-run mbox" test ! -s "$T/nodate/outbox.mbox"
out=$($PW db recheck --db "$T/nodate/pw.db")
contains "unknown Date: recheck still finds them" "$out" "rechecked=2"
is "unknown Date: query findings still lists both" \
	"$($PW query findings --db "$T/nodate/pw.db" --format json | grep '"msgid"' | sort -u | wc -l)" 2
