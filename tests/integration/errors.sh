#!/usr/bin/env bash
# patchwarden's error texts: the file and message named once before the
# reason (ingest -, run -, check); a refusal after DATA recorded in the
# SMTP server's own words (tests/smtp_server.py answering 554, one line
# and several); a dry run that says it wrote the dry-run mbox only when
# it did, and logs replies as written there, not as sent.
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
SERVER=$TOP/tests/smtp_server.py
q() { sqlite3 -batch -noheader "$1" "$2"; }

# patch_mail OUT ID: a recent patch mail adding a world-writable file.
patch_mail() {
	cat >"$1" <<EOF
From: Ada Author <ada@example.com>
To: linux-foo@vger.example.org
Subject: [PATCH] foo: add a knob $2
Date: $(date -R)
Message-ID: <$2@example.com>

Add a knob.

Signed-off-by: Ada Author <ada@example.com>
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
}

# ---- the prefix once ----
# A message over the size limit, piped as an MTA pipes it.
{ printf 'From: a@example.com\nSubject: big\n\n'; head -c $((65 << 20)) /dev/zero | tr '\0' a; } >"$T/big.eml"
for cmd in ingest run; do
	mkdir -p "$T/p-$cmd"
	$PW $cmd --config "$TOP/tests/data/run.conf" --db "$T/p-$cmd/pw.db" - <"$T/big.eml" >/dev/null 2>"$T/err"
	is "$cmd -: the oversized message named once" "$(grep -c 'message 1: .*message 1:' "$T/err")" 0
	contains "$cmd -: the name, then why" "$(cat "$T/err")" \
		"-: message 1: message larger than 64 MiB"
	is "$cmd -: the error stored names it once" \
		"$(q "$T/p-$cmd/pw.db" "SELECT count(*) FROM ingest_error WHERE error LIKE '%message 1:%'")" 0
done
# check of an mbox whose second message is too large.
{ printf 'From x Mon Jan  1 00:00:00 2024\nSubject: small\n\nhi\n\n'
  printf 'From x Mon Jan  1 00:00:00 2024\nSubject: big\n\n'
  head -c $((65 << 20)) /dev/zero | tr '\0' a; printf '\n'; } >"$T/big.mbox"
$PW check "$T/big.mbox" >/dev/null 2>"$T/err"
contains "check: the oversized message named once" "$(cat "$T/err")" \
	"$T/big.mbox: message 2 (offset "
is "check: no second name" "$(grep -c 'message 2.*message 2' "$T/err")" 0

# ---- the SMTP server's own words after DATA ----
P=$(free_port)
mkdir -p "$T/srv"
$PY "$SERVER" --port "$P" --dir "$T/srv" --control "$T/srv.ctl" >"$T/srv.out" 2>"$T/srv.err" &
echo $! >"$T/srv.pid"
at_exit "kill \$(cat '$T/srv.pid') 2>/dev/null"
for i in $(seq 100); do grep -q ready "$T/srv.out" 2>/dev/null && break; sleep 0.1; done
cat >"$T/smtp.conf" <<EOF
[smtp]
url = smtp://127.0.0.1:$P
starttls = no
from = patchwarden <bot@example.org>
timeout = 20
[reply]
max_age = 0
[list linux-foo]
address = linux-foo@vger.example.org
mail = author
EOF
chmod 600 "$T/smtp.conf"
DB=$T/smtp.db
patch_mail "$T/d1.eml" d554-1
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$T/smtp.conf" "$T/d1.eml" >/dev/null 2>&1
echo '{"data": 554}' >"$T/srv.ctl"
$PW -v outbox --db "$DB" --config "$T/smtp.conf" send >/dev/null 2>"$T/err"
err=$(q "$DB" "SELECT last_error FROM outbox WHERE in_reply_to = 'd554-1@example.com'")
contains "554 after DATA: the server's text recorded" "$err" "554 5.6.0 scripted answer to DATA"
is "554 after DATA: not libcurl's guess" "$(printf '%s' "$err" | grep -c 'Weird')" 0
is "554 after DATA: failed for good" \
	"$(q "$DB" "SELECT state || ',' || smtp_code FROM outbox WHERE in_reply_to = 'd554-1@example.com'")" "failed,554"
contains "554 after DATA: -v shows the server's text" "$(cat "$T/err")" "554 5.6.0 scripted answer to DATA"
is "554 after DATA: -v has no \"Weird server reply\"" "$(grep -c 'Weird' "$T/err")" 0

patch_mail "$T/d2.eml" d554-2
$PW ingest -q --list linux-foo --reply --db "$DB" --config "$T/smtp.conf" "$T/d2.eml" >/dev/null 2>&1
echo '{"data": 554, "data_text": ["5.7.1 rejected by policy", "5.7.1 see https://example.org/p"]}' >"$T/srv.ctl"
$PW outbox --db "$DB" --config "$T/smtp.conf" send >/dev/null 2>&1
is "a multi-line 554: every line, in order" \
	"$(q "$DB" "SELECT last_error FROM outbox WHERE in_reply_to = 'd554-2@example.com'")" \
	"the server answered: 554 5.7.1 rejected by policy 5.7.1 see https://example.org/p"
rm -f "$T/srv.ctl"

# ---- the dry run ----
mkdir -p "$T/dry"
patch_mail "$T/dry1.eml" dry-1
out=$($PW run --config "$TOP/tests/data/run.conf" --db "$T/dry/pw.db" - <"$T/dry1.eml" 2>"$T/err")
contains "dry run: written to the mbox it wrote" "$out" "(dry run: written to $T/dry/outbox.mbox)"
contains "dry run: the reply logged as written to the dry-run mbox" "$(cat "$T/err")" \
	"written to the dry-run mbox"
is "dry run: never logged as sent" "$(grep -c ' sent to ' "$T/err")" 0
out=$($PW run --config "$TOP/tests/data/run.conf" --db "$T/dry/pw.db" - <"$T/dry1.eml" 2>"$T/err")
is "dry run, nothing due: not \"written to\"" "$(printf '%s' "$out" | grep -c 'written to')" 0
# The mbox cannot be opened: a folder stands where it goes.
mkdir -p "$T/nodry/outbox.mbox"
patch_mail "$T/dry2.eml" dry-2
out=$($PW run --config "$TOP/tests/data/run.conf" --db "$T/nodry/pw.db" - <"$T/dry2.eml" 2>"$T/err")
is "dry run, mbox unopenable: never \"written to\"" "$(printf '%s' "$out" | grep -c 'written to')" 0
contains "dry run, mbox unopenable: says it cannot be written" "$out" \
	"(dry run: $T/nodry/outbox.mbox cannot be written)"
contains "dry run, mbox unopenable: the reason on stderr" "$(cat "$T/err")" "Is a directory"
is "dry run, mbox unopenable: the reply waits" \
	"$(q "$T/nodry/pw.db" "SELECT state FROM outbox")" pending
