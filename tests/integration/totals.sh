#!/usr/bin/env bash
# The totals per list and day (db/totals.c, kept by triggers) equal a
# recount from the rows after each way the rows change: a first ingest
# of real list mail, the same mail again, the same mail on another list,
# a recheck, messages deleted (their patches and findings with them), a
# list row, a patch and a date changed by hand; a store made before the
# totals gets them from its rows; "db check" says when they differ and
# makes them again.  The stats and the overview read them.
. "$(dirname "$0")/../lib.sh"
q() { sqlite3 -batch -noheader "$1" "PRAGMA foreign_keys = ON; $2"; }
db=$T/pw.db
# Real mail: a thread of the linux-hwmon archive with patches and
# findings, and the sample of the tests (a flood, series, covers).
mbox=$T/hwmon.mbox
/usr/bin/python3 "$TOP/tests/pi2mbox.py" \
	/work/.mirror/linux-mailinglist-archives+linux-hwmon.vger.kernel.org.0/repo \
	--last 1500 >"$mbox" 2>/dev/null || cp "$TOP/tests/data/sample.mbox" "$mbox"
# recount: "messages,findings", the totals that differ from a recount
# from the rows (list 0 every list together, -1 the messages on none);
# "0,0" when right.
RM="SELECT 0, coalesce(date / 86400, -1), kind, count(*) FROM message GROUP BY 2, 3
  UNION ALL SELECT ml.list, coalesce(m.date / 86400, -1), m.kind, count(*)
   FROM message_list ml JOIN message m ON m.id = ml.message GROUP BY 1, 2, 3
  UNION ALL SELECT -1, coalesce(date / 86400, -1), kind, count(*) FROM message m
   WHERE NOT EXISTS (SELECT 1 FROM message_list WHERE message = m.id) GROUP BY 2, 3"
RF="SELECT 0, coalesce(m.date / 86400, -1), f.rule, f.severity, count(*)
   FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message GROUP BY 2, 3, 4
  UNION ALL SELECT ml.list, coalesce(m.date / 86400, -1), f.rule, f.severity, count(*)
   FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message
   JOIN message_list ml ON ml.message = m.id GROUP BY 1, 2, 3, 4
  UNION ALL SELECT -1, coalesce(m.date / 86400, -1), f.rule, f.severity, count(*)
   FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message
   WHERE NOT EXISTS (SELECT 1 FROM message_list WHERE message = m.id) GROUP BY 2, 3, 4"
KM="SELECT list, day, kind, n FROM total_message WHERE n <> 0"
KF="SELECT list, day, rule, severity, n FROM total_finding WHERE n <> 0"
recount() {
	q "$db" "SELECT ((SELECT count(*) FROM ($KM EXCEPT SELECT * FROM ($RM)))
	 + (SELECT count(*) FROM (SELECT * FROM ($RM) EXCEPT $KM))) || ',' ||
	 ((SELECT count(*) FROM ($KF EXCEPT SELECT * FROM ($RF)))
	 + (SELECT count(*) FROM (SELECT * FROM ($RF) EXCEPT $KF)))"
}
total() { q "$db" "SELECT coalesce(sum(n), 0) FROM $1 WHERE list = 0"; }

$PW ingest -q --db "$db" "$mbox" "$TOP/tests/data/sample.mbox" >/dev/null 2>&1
n=$(q "$db" "SELECT count(*) FROM message")
f=$(q "$db" "SELECT count(*) FROM finding")
check "fixture: real mail with findings ($n messages, $f findings)" test "$f" -gt 0
is "after ingest: the totals are the rows' recount" "$(recount)" "0,0"
is "after ingest: every message counted once" "$(total total_message)" "$n"
is "after ingest: every finding counted once" "$(total total_finding)" "$f"

$PW ingest -q --db "$db" "$mbox" >/dev/null 2>&1
is "the same mail again: the totals unchanged and right" "$(recount),$(total total_message)" "0,0,$n"
$PW ingest -q --db "$db" --list other.example.org "$mbox" >/dev/null 2>&1
is "the same mail on another list: counted there too, once overall" \
	"$(recount),$(total total_message)" "0,0,$n"
$PW db recheck --db "$db" >/dev/null 2>&1
is "after a recheck: right" "$(recount)" "0,0"
# Messages on no list: taken off theirs, then one given back.
q "$db" "DELETE FROM message_list WHERE message IN (SELECT p.message FROM patch p JOIN finding f ON f.patch = p.id LIMIT 8)"
check "some messages with findings are on no list" test "$(q "$db" "SELECT count(*) FROM message m
	WHERE NOT EXISTS (SELECT 1 FROM message_list WHERE message = m.id)")" -gt 0
is "messages taken off every list: right" "$(recount)" "0,0"
q "$db" "INSERT INTO message_list SELECT m.id, (SELECT min(id) FROM list) FROM message m
	WHERE NOT EXISTS (SELECT 1 FROM message_list WHERE message = m.id) LIMIT 3"
is "a message on no list put on one again: right" "$(recount)" "0,0"

# (A series' cover letter is named by its series: not deleted.)
q "$db" "DELETE FROM message WHERE (id IN (SELECT message FROM patch WHERE id IN
	(SELECT patch FROM finding) LIMIT 40) OR id % 7 = 0)
	AND id NOT IN (SELECT cover FROM series WHERE cover IS NOT NULL)"
check "messages deleted, some with findings" test "$(q "$db" "SELECT count(*) FROM message")" -lt "$n" -a \
	"$(q "$db" "SELECT count(*) FROM finding")" -lt "$f"
is "messages deleted (patches and findings with them): right" "$(recount)" "0,0"
is "... and the overall counts are the rows'" \
	"$(total total_message),$(total total_finding)" \
	"$(q "$db" "SELECT count(*) FROM message"),$(q "$db" "SELECT count(*) FROM finding")"
q "$db" "DELETE FROM message_list WHERE message IN (SELECT p.message FROM patch p JOIN finding f ON f.patch = p.id LIMIT 5)"
is "a message taken off a list: right" "$(recount)" "0,0"
q "$db" "DELETE FROM patch WHERE id IN (SELECT patch FROM finding LIMIT 3)"
is "a patch deleted alone: right" "$(recount)" "0,0"
q "$db" "UPDATE message SET date = date + 86400 * 40 WHERE id IN (SELECT message FROM patch WHERE id IN (SELECT patch FROM finding) LIMIT 5)"
q "$db" "UPDATE message SET kind = 'cover' WHERE kind = 'comment' AND id % 5 = 0"
q "$db" "UPDATE finding SET severity = 2 WHERE id % 3 = 0"
is "dates, kinds and severities changed: right" "$(recount)" "0,0"

# What reads them answers as the rows do: stats over whole days come
# from the totals, from a second past midnight they are counted from
# the rows (the same messages: none is dated 1970).
for l in "" other.example.org linux-hwmon.vger.kernel.org; do
	for args in "--limit 0" "--limit 0 --per week --severity info" "--limit 7 --offset 2"; do
		is "stats ${l:+--list $l }$args: the totals' are the rows'" \
			"$($PW query --db "$db" stats ${l:+--list "$l"} $args --since 1970-01-02 2>&1)" \
			"$($PW query --db "$db" stats ${l:+--list "$l"} $args --since @86401 2>&1)"
	done
done
st=$($PW db stats --db "$db" 2>/dev/null)
is "db stats: messages and findings as the rows count them" \
	"$(kv messages "$st"),$(kv patches "$st"),$(kv findings "$st"),$(kv findings_error "$st")" \
	"$(q "$db" "SELECT count(*) FROM message"),$(q "$db" "SELECT count(*) FROM message WHERE kind = 'patch'"),$(q "$db" "SELECT count(*) FROM finding"),$(q "$db" "SELECT count(*) FROM finding WHERE severity = 2")"

# db check: right totals pass, wrong ones are found and made again.
$PW db check --db "$db" >/dev/null 2>&1	# the deleted messages' raw rows
out=$($PW db check --db "$db" 2>&1); rc=$?
contains "db check: the totals as the rows count them" "$out" "totals per list and day: as the rows count them"
is "db check: exit status 0" "$rc" 0
q "$db" "UPDATE total_message SET n = n + 1 WHERE day = (SELECT max(day) FROM total_message)"
out=$($PW db check --db "$db" 2>&1); rc=$?
contains "db check: wrong totals found" "$out" "totals per list and day differed from the rows: made again"
is "db check: exit status 1" "$rc" 1
is "db check: made again from the rows" "$(recount)" "0,0"

# A store from before the totals gets them at its first open.
cp "$db" "$T/old.db"; cp "$db-raw" "$T/old.db-raw"
v=$(q "$db" "PRAGMA user_version")
sqlite3 "$T/old.db" "DROP TABLE total_message; DROP TABLE total_finding;
	PRAGMA user_version = $((v - 1))"
db=$T/old.db
$PW db stats --db "$db" >/dev/null 2>&1	# read-only: refused, migrates nothing
$PW ingest -q --db "$db" /dev/null >/dev/null 2>&1
is "an older store: the totals made from its rows" "$(recount),$(total total_message)" \
	"0,0,$(q "$db" "SELECT count(*) FROM message")"
is "an older store: its stats as before" "$($PW query --db "$db" stats --list other.example.org --limit 0 | md5sum)" \
	"$($PW query --db "$T/pw.db" stats --list other.example.org --limit 0 | md5sum)"
