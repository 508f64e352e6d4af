#!/usr/bin/env bash
# Mail a machine sent, and discussion with a diff in it, on real list mail
# (tests/corpus/lore-automated/, from the linux-hwmon and linux-iio
# archives): `patchwarden run` as the live bot runs, answering mail of
# any age, stores and checks it all, and queues no reply to any of it;
# the one person's patch among it is answered.
. "$(dirname "$0")/../lib.sh"

q() { sqlite3 -batch -noheader "$1" "$2"; }
A=$CORPUS/lore-automated/automated.mbox
D=$CORPUS/lore-automated/discussion.mbox
# Old archive mail answered as if it had just come, with every finding.
printf '[reply]\nmax_age = 0\nmin_severity = info\n[list *]\nmail = author\n' >"$T/pw.conf"

# An AUTOSEL posting of a commit that adds a symbolic mode, its headers
# as the stable bot writes them (made here: the real ones in the corpus
# add no mode).
cat >"$T/autosel-mode.eml" <<'EOF'
From: Sasha Levin <sashal@kernel.org>
To: linux-kernel@vger.kernel.org, stable@vger.kernel.org
Cc: A Author <author@example.org>, linux-hwmon@vger.kernel.org
Subject: [PATCH AUTOSEL 6.1 03/20] hwmon: (foo) Add bar attribute
Date: Mon, 05 May 2025 19:18:17 -0400
Message-ID: <20250505231817.2697000-3-sashal@kernel.org>
X-stable: review
X-Patchwork-Hint: Ignore
List-Id: <linux-hwmon.vger.kernel.org>
Precedence: bulk

From: A Author <author@example.org>

[ Upstream commit 0123456789abcdef0123456789abcdef01234567 ]

Add the bar attribute.

Signed-off-by: A Author <author@example.org>
Signed-off-by: Sasha Levin <sashal@kernel.org>
---
 drivers/hwmon/foo.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/drivers/hwmon/foo.c b/drivers/hwmon/foo.c
--- a/drivers/hwmon/foo.c
+++ b/drivers/hwmon/foo.c
@@ -10,3 +10,4 @@ static int foo;
 static int a;
 static int b;
 static int c;
+static SENSOR_DEVICE_ATTR(bar, S_IRUGO, bar_show, NULL, 0);
--
2.39.5
EOF

mkdir -p "$T/r"
out=$(cd "$T/r" && $PW run --config "$T/pw.conf" --db "$T/r/pw.db" "$A" "$D" "$T/autosel-mode.eml" 2>"$T/err")
is "run: exit status" "$?" 0
is "run: every message stored" "$(kv messages "$out")" 13
db=$T/r/pw.db
why() { q "$db" "SELECT coalesce(automated, '-') FROM message WHERE msgid = '$1'"; }

# Why each was sent by a machine, kept in the store.
is "AUTOSEL notice (sashal@kernel.org): automated" \
	"$(why 20250505231817.2697367-99-sashal@kernel.org)" "stable AUTOSEL notice"
is "FAILED notice (sashal@kernel.org): automated" \
	"$(why 20260301011739.1671643-1-sashal@kernel.org)" "stable FAILED notice"
is "stable review patch (gregkh@linuxfoundation.org): automated" \
	"$(why 20240827143848.899532703@linuxfoundation.org)" "X-stable: review"
is "kernel test robot report: automated" \
	"$(why 201906060608.Se1LVlS9%lkp@intel.com)" "X-Patchwork-Hint: ignore"
is "kernel test robot patch (linux-iio): automated" \
	"$(why 20190701205318.GA28229@lkp-kbuild05)" "X-Patchwork-Hint: ignore"
is "an \"Applied\" notice: automated" \
	"$(why applied-20200402203656.27047-5-michael@walle.cc)" "X-Patchwork-Hint: ignore"
is "a person's patch (Precedence: bulk from the list): not automated" \
	"$(why a83f15e3-ac09-abf2-d8da-7b1ac86efc70@gmail.com)" "-"
is "no person's mail is marked" \
	"$(q "$db" "SELECT count(*) FROM message WHERE automated IS NULL")" 4

# Stored and checked as usual: what its lines hold is found; what
# would count against a person (a series too large for a stable bot's
# run) is not.
is "an AUTOSEL patch is still checked" \
	"$(q "$db" "SELECT group_concat(f.rule) FROM finding f JOIN patch p ON p.id = f.patch
	  JOIN message m ON m.id = p.message
	  WHERE m.msgid = '20250505231817.2697000-3-sashal@kernel.org'")" PERM_SYMBOLIC
is "no series finding on the AUTOSEL and stable review patches" \
	"$(q "$db" "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch
	  JOIN message m ON m.id = p.message WHERE f.rule = 'SERIES_OVERSIZED'
	  AND m.msgid IN ('20250505231817.2697367-99-sashal@kernel.org',
	  '20240827143848.899532703@linuxfoundation.org')")" 0
is "bot patches are stored as patches" \
	"$(q "$db" "SELECT count(*) FROM message m JOIN patch p ON p.message = m.id WHERE m.automated IS NOT NULL")" 8

# No reply to any of it; the person's patch is answered.
$PW outbox --db "$db" list --format json >"$T/outbox.json"
answered=$(/usr/bin/python3 -c 'import json, sys
print(" ".join(sorted(r["to"] for r in json.load(open(sys.argv[1])) if r["state"] != "suppressed")))' "$T/outbox.json")
is "outbox: only the person's patch gets a reply" "$answered" "sunwire@gmail.com"
is "no reply, pending or sent, to a stable bot, a robot or a discussion" \
	"$(q "$db" "SELECT count(*) FROM outbox o JOIN message m ON 'msg:' || m.id = o.answers
	  WHERE o.state <> 'suppressed' AND (m.automated IS NOT NULL OR m.kind <> 'patch')")" 0
contains "a held reply says why" "$($PW outbox --db "$db" list --state suppressed)" \
	"automated mail (stable AUTOSEL notice)"
check "the dry-run mbox holds one reply" test "$(grep -c '^From ' "$T/r/outbox.mbox")" = 1

# A diff pasted into a bug report or a question is discussion: not a
# patch, not checked, no reply (Patchwork files both as patches).
for id in Y1WHnJ6h1RSOipV4@e120937-lin 1f8f24e8-0ca2-4fb0-bb69-21965e1c70c2@huawei.com; do
	is "discussion $id: kind other, no patch, no finding, no reply" \
		"$(q "$db" "SELECT m.kind, (SELECT count(*) FROM patch WHERE message = m.id),
		  (SELECT count(*) FROM outbox WHERE answers = 'msg:' || m.id) FROM message m
		  WHERE m.msgid = '$id'")" "other|0|0"
done
# A real patch sent with a Date in 2085 keeps no date: it cannot top
# "Latest series" or stretch a chart.
is "a Date in 2085: stored as unknown" \
	"$(q "$db" "SELECT count(*) FROM message WHERE msgid = '20850618155720.24857-1-Amy.Shih@advantech.com.tw' AND date IS NULL")" 1
is "nothing stored is dated more than a day ahead" \
	"$(q "$db" "SELECT count(*) FROM message WHERE date > strftime('%s', 'now') + 86400")" 0

# patchwarden parse shows it, in text and JSON.
contains "parse: text says why" "$($PW parse "$A")" "Automated: stable AUTOSEL notice"
n=$($PW parse --format json "$A" | /usr/bin/python3 -c 'import json, sys
print(sum(1 for r in json.load(sys.stdin) if r.get("automated")))')
is "parse: JSON carries automated for the 8 machine messages" "$n" 8
contains "parse: the 2085 Date is said" "$($PW parse "$D")" \
	"Warning: Date: more than a day in the future, taken as unknown"

# [reply] automated_senders adds to the built-in list, at ingest.
mkdir -p "$T/c"
printf '[reply]\nmax_age = 0\nmin_severity = info\nautomated_senders = x@y; Sunwire@*\n[list *]\nmail = author\n' >"$T/c.conf"
(cd "$T/c" && $PW run --config "$T/c.conf" --db "$T/c/pw.db" "$A" >/dev/null 2>&1)
is "a configured sender: stored as automated" \
	"$(q "$T/c/pw.db" "SELECT automated FROM message WHERE msgid = 'a83f15e3-ac09-abf2-d8da-7b1ac86efc70@gmail.com'")" \
	"automated sender sunwire@gmail.com"
is "a configured sender: no reply" \
	"$(q "$T/c/pw.db" "SELECT count(*) FROM outbox WHERE state <> 'suppressed'")" 0

# A store made before message.automated (the migration that takes a
# store from user_version 12 to 13; later ones follow it) is migrated;
# the migration run again changes nothing.
cp "$db" "$T/old.db"; cp "$db-raw" "$T/old.db-raw"
v=$(q "$db" "PRAGMA user_version")
# The automated migration takes a store from 12 to 13; later ones follow.
va=12
# (The totals per sender and the attention queue, made after it, read
# the column: their triggers go with it, as such a store had none.)
drop=$(q "$T/old.db" "SELECT group_concat('DROP TRIGGER ' || name, '; ') FROM sqlite_schema
	WHERE type = 'trigger' AND (name LIKE 'total_sender%' OR name LIKE 'attention%')")
q "$T/old.db" "$drop; DROP TABLE total_sender; DROP TABLE attention; DROP TABLE total_sender_date;
	ALTER TABLE message DROP COLUMN automated; PRAGMA user_version = $va;
	UPDATE message SET auto_submitted = CASE id % 4 WHEN 0 THEN 'No (a person)'
	  WHEN 1 THEN 'auto-replied; owner-email=x@example.org' WHEN 2 THEN 'no; x=y'
	  ELSE NULL END"
$PW ingest -q --db "$T/old.db" "$A" >/dev/null 2>&1
is "old store: migrated, the column back" \
	"$(q "$T/old.db" "PRAGMA user_version"),$(q "$T/old.db" "SELECT count(*) FROM pragma_table_info('message') WHERE name = 'automated'")" "$v,1"
# Its rows keep what they said, read as a new message's header is read:
# "no" with a comment or parameters is a person's.
is "old store: Auto-Submitted read for the rows stored before" \
	"$(q "$T/old.db" "SELECT DISTINCT coalesce(auto_submitted, '-') || ' => ' || coalesce(automated, '-') FROM message ORDER BY 1")" \
	"- => -
No (a person) => -
auto-replied; owner-email=x@example.org => Auto-Submitted: auto-replied
no; x=y => -"
q "$T/old.db" "PRAGMA user_version = $va"
$PW ingest -q --db "$T/old.db" /dev/null >/dev/null 2>&1
is "old store again: one column, the store whole" \
	"$(q "$T/old.db" "PRAGMA user_version"),$(q "$T/old.db" "SELECT count(*) FROM pragma_table_info('message') WHERE name = 'automated'"),$(q "$T/old.db" "PRAGMA integrity_check")" "$v,1,ok"
