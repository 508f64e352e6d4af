#!/usr/bin/env bash
# The totals per list and day and per sender (db/totals.c, kept by
# triggers) equal a recount from the rows after each way the rows
# change: a first ingest of real list mail, the same mail again, the
# same mail on another list, a recheck, messages deleted (their patches
# and findings with them), a list row, a patch and a date changed by
# hand, mail reclassified as a machine's or a person's, an in-body
# author added, changed and removed; a store made before the totals
# gets them from its rows; "db check" says when they differ and makes
# them again.  The stats, the overview and the senders read them, and
# answer as the rows do.
. "$(dirname "$0")/../lib.sh"
q() { sqlite3 -batch -noheader "$1" "PRAGMA foreign_keys = ON; $2"; }
db=$T/pw.db
# Real mail: a thread of the linux-hwmon archive with patches and
# findings, and the sample of the tests (a flood, series, covers).
# (linux-leds where the linux-hwmon mirror is not at hand.)
mbox=$T/hwmon.mbox
for a in hwmon leds; do
	/usr/bin/python3 "$TOP/tests/pi2mbox.py" \
		/work/.mirror/linux-mailinglist-archives+linux-$a.vger.kernel.org.0/repo \
		--last 1500 >"$mbox" 2>/dev/null && break
done
[ -s "$mbox" ] || cp "$TOP/tests/data/sample.mbox" "$mbox"
# Mail machines sent (the stable trees' scripts, a test robot), apart
# on the senders page.
auto=$TOP/tests/corpus/lore-automated/automated.mbox
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
# Per sender: each patch on each of its lists (0 all, -1 none), by its
# poster, person or machine, and most severe finding (-1 none); its
# findings by severity; the patches whose message is neither a 'patch'
# nor a 'pull'.
RS="WITH x(mid, l) AS (SELECT id, 0 FROM message UNION ALL
   SELECT message, list FROM message_list UNION ALL
   SELECT id, -1 FROM message WHERE id NOT IN (SELECT message FROM message_list)),
  pp AS (SELECT x.l AS l, p.id AS pid, coalesce(ms.addr, m.from_addr) AS who,
   m.automated IS NOT NULL AS a, coalesce(ms.name, m.from_name) AS name,
   m.kind NOT IN ('patch', 'pull') AS other FROM patch p
   JOIN message m ON m.id = p.message
   LEFT JOIN message_sender ms ON ms.message = m.id JOIN x ON x.mid = m.id)
  SELECT l, who, a, name, sev, sum(np), sum(nf), sum(no) FROM (
   SELECT l, who, a, name, coalesce((SELECT max(severity) FROM finding
    WHERE patch = pid), -1) AS sev, 1 AS np, 0 AS nf, other AS no FROM pp
   UNION ALL SELECT l, who, a, name, f.severity, 0, 1, 0 FROM pp
    JOIN finding f ON f.patch = pid) GROUP BY 1, 2, 3, 4, 5"
KM="SELECT list, day, kind, n FROM total_message WHERE n <> 0"
KF="SELECT list, day, rule, severity, n FROM total_finding WHERE n <> 0"
KS="SELECT list, who, automated, name, sev, patches, findings, other
  FROM total_sender WHERE patches <> 0 OR findings <> 0 OR other <> 0"
# The attention queue: per list (-1 none) and patch, its open findings
# at warning and error, flood detection's left out, of a person's
# patches in no detected flood.
RA="SELECT coalesce(ml.list, -1), p.id, coalesce(m.date, 0),
   sum(f.severity >= 2), sum(f.severity = 1)
  FROM patch p JOIN message m ON m.id = p.message JOIN finding f ON f.patch = p.id
  LEFT JOIN message_list ml ON ml.message = m.id
  WHERE f.severity >= 1 AND m.automated IS NULL
  AND f.rule NOT IN ('FLOOD', 'FLOOD_SERIES', 'RESEND_IDENTICAL', 'SERIES_OVERSIZED')
  AND f.id NOT IN (SELECT finding FROM finding_decision)
  AND m.id NOT IN (SELECT fm.message FROM flood_member fm JOIN flood_group g
   ON g.id = fm.grp WHERE g.detected_at IS NOT NULL)
  GROUP BY 1, 2"
KA="SELECT list, patch, date, errs, warns FROM attention"
# The first and last dates of each sender's patches per list; a kept
# row a change made stale is read from the rows instead (not compared,
# but it must be there).
RD="SELECT l, who, a, min(date) AS first, max(date) AS last FROM (
   SELECT x.l AS l, coalesce(ms.addr, m.from_addr) AS who, m.automated IS NOT NULL AS a,
   m.date AS date FROM patch p JOIN message m ON m.id = p.message
   LEFT JOIN message_sender ms ON ms.message = m.id
   JOIN (SELECT id AS mid, 0 AS l FROM message UNION ALL SELECT message, list FROM message_list
   UNION ALL SELECT id, -1 FROM message WHERE id NOT IN (SELECT message FROM message_list)) x
   ON x.mid = m.id) GROUP BY 1, 2, 3"
KD="SELECT list, who, automated, first, last FROM total_sender_date WHERE stale = 0"
# "messages,findings,senders,attention,dates": how many kept rows differ
# from the rows.
recount() {
	q "$db" "SELECT ((SELECT count(*) FROM ($KM EXCEPT SELECT * FROM ($RM)))
	 + (SELECT count(*) FROM (SELECT * FROM ($RM) EXCEPT $KM))) || ',' ||
	 ((SELECT count(*) FROM ($KF EXCEPT SELECT * FROM ($RF)))
	 + (SELECT count(*) FROM (SELECT * FROM ($RF) EXCEPT $KF))) || ',' ||
	 ((SELECT count(*) FROM ($KS EXCEPT SELECT * FROM ($RS)))
	 + (SELECT count(*) FROM (SELECT * FROM ($RS) EXCEPT $KS))) || ',' ||
	 ((SELECT count(*) FROM ($KA EXCEPT SELECT * FROM ($RA)))
	 + (SELECT count(*) FROM (SELECT * FROM ($RA) EXCEPT $KA))) || ',' ||
	 ((SELECT count(*) FROM ($KD EXCEPT SELECT * FROM ($RD)))
	 + (SELECT count(*) FROM ($RD) r WHERE NOT EXISTS (SELECT 1 FROM total_sender_date d
	  WHERE d.list = r.l AND d.who = r.who AND d.automated = r.a)))"
}
total() { q "$db" "SELECT coalesce(sum(n), 0) FROM $1 WHERE list = 0"; }

$PW ingest -q --db "$db" "$mbox" "$TOP/tests/data/sample.mbox" "$auto" >/dev/null 2>&1
n=$(q "$db" "SELECT count(*) FROM message")
f=$(q "$db" "SELECT count(*) FROM finding")
check "fixture: real mail with findings ($n messages, $f findings)" test "$f" -gt 0
is "after ingest: the totals are the rows' recount" "$(recount)" "0,0,0,0,0"
is "after ingest: every message counted once" "$(total total_message)" "$n"
is "after ingest: every finding counted once" "$(total total_finding)" "$f"
is "after ingest: every patch and finding counted once per sender" \
	"$(q "$db" "SELECT sum(patches) || ',' || sum(findings) FROM total_sender WHERE list = 0")" \
	"$(q "$db" "SELECT count(*) FROM patch"),$f"
check "the senders: several with findings, some machines" test \
	"$($PW query --db "$db" senders --limit 0 | grep -c 'findings=[1-9]')" -gt 1 -a \
	"$(q "$db" "SELECT count(DISTINCT who) FROM total_sender WHERE automated = 1 AND patches > 0")" -gt 0
is "after ingest: the senders from the totals are the rows'" \
	"$($PW query --db "$db" senders --limit 0 --severity info)" \
	"$($PW query --db "$db" senders --limit 0 --severity info --since @1)"

$PW ingest -q --db "$db" "$mbox" >/dev/null 2>&1
is "the same mail again: the totals unchanged and right" "$(recount),$(total total_message)" "0,0,0,0,0,$n"
$PW ingest -q --db "$db" --list other.example.org "$mbox" >/dev/null 2>&1
is "the same mail on another list: counted there too, once overall" \
	"$(recount),$(total total_message)" "0,0,0,0,0,$n"
$PW db recheck --db "$db" >/dev/null 2>&1
is "after a recheck: right" "$(recount)" "0,0,0,0,0"
# Decisions: a finding marked wrong, a rule ignored, a recheck (its
# findings stored again under the decisions), the ignore undone.
fid=$(q "$db" "SELECT f.id FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message
	WHERE f.severity >= 1 AND m.automated IS NULL
	AND f.rule NOT LIKE '%FLOOD%' AND f.rule NOT IN ('RESEND_IDENTICAL', 'SERIES_OVERSIZED') LIMIT 1")
queued=$(q "$db" "SELECT sum(errs + warns) FROM attention")
$PW triage --db "$db" wrong "$fid" --by maint@example.org >/dev/null 2>&1
is "a finding marked wrong: right" "$(recount)" "0,0,0,0,0"
rule=$(q "$db" "SELECT rule FROM finding WHERE severity >= 1 AND rule NOT LIKE '%FLOOD%'
	AND rule NOT IN ('RESEND_IDENTICAL', 'SERIES_OVERSIZED') GROUP BY rule ORDER BY count(*) DESC LIMIT 1")
dec=$($PW triage --db "$db" ignore "$rule" --by maint@example.org 2>&1 | sed -n 's/^decision \([0-9]*\): ignore.*/\1/p')
check "a rule ignored ($rule, decision $dec): fewer findings need attention" \
	test "$(q "$db" "SELECT coalesce(sum(errs + warns), 0) FROM attention")" -lt "$queued"
is "a rule ignored: right" "$(recount)" "0,0,0,0,0"
$PW db recheck --db "$db" >/dev/null 2>&1
is "a recheck under decisions: right" "$(recount)" "0,0,0,0,0"
$PW triage --db "$db" undo "$dec" --by maint@example.org >/dev/null 2>&1
is "the ignore undone: right" "$(recount)" "0,0,0,0,0"
port=$(free_port)
$PW serve --db "$db" --listen "127.0.0.1:$port" 2>"$T/serve.err" &
serve=$!
for i in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
# The overview's queue: each list's count is the rows'.
want=$(q "$db" "WITH a(list, patch, date, errs, warns) AS ($RA)
	SELECT coalesce(l.name, '(on no list)') || ': ' || count(*) FROM a
	LEFT JOIN list l ON l.id = a.list GROUP BY a.list")
got=$(curl -s "http://127.0.0.1:$port/" | sed -n 's/<h3>\(<a href="[^"]*">\)\{0,1\}\([^<]*\)\(<\/a>\)\{0,1\}: <span class="queue-count">\([0-9]*\)<.*/\2: \4/p' | LC_ALL=C sort)
check "overview: some lists have patches in the queue" test -n "$got"
is "overview: each list's queue counted as the rows" "$got" "$(printf '%s\n' "$want" | LC_ALL=C sort)"
kill "$serve"; wait "$serve" 2>/dev/null

# Messages on no list: taken off theirs, then one given back.
q "$db" "DELETE FROM message_list WHERE message IN (SELECT p.message FROM patch p JOIN finding f ON f.patch = p.id LIMIT 8)"
check "some messages with findings are on no list" test "$(q "$db" "SELECT count(*) FROM message m
	WHERE NOT EXISTS (SELECT 1 FROM message_list WHERE message = m.id)")" -gt 0
is "messages taken off every list: right" "$(recount)" "0,0,0,0,0"
q "$db" "INSERT INTO message_list SELECT m.id, (SELECT min(id) FROM list) FROM message m
	WHERE NOT EXISTS (SELECT 1 FROM message_list WHERE message = m.id) LIMIT 3"
is "a message on no list put on one again: right" "$(recount)" "0,0,0,0,0"

# (A series' cover letter is named by its series: not deleted.)
q "$db" "DELETE FROM message WHERE (id IN (SELECT message FROM patch WHERE id IN
	(SELECT patch FROM finding) LIMIT 40) OR id % 7 = 0)
	AND id NOT IN (SELECT cover FROM series WHERE cover IS NOT NULL)"
check "messages deleted, some with findings" test "$(q "$db" "SELECT count(*) FROM message")" -lt "$n" -a \
	"$(q "$db" "SELECT count(*) FROM finding")" -lt "$f"
is "messages deleted (patches and findings with them): right" "$(recount)" "0,0,0,0,0"
is "... and the overall counts are the rows'" \
	"$(total total_message),$(total total_finding)" \
	"$(q "$db" "SELECT count(*) FROM message"),$(q "$db" "SELECT count(*) FROM finding")"
q "$db" "DELETE FROM message_list WHERE message IN (SELECT p.message FROM patch p JOIN finding f ON f.patch = p.id LIMIT 5)"
is "a message taken off a list: right" "$(recount)" "0,0,0,0,0"
q "$db" "DELETE FROM patch WHERE id IN (SELECT patch FROM finding LIMIT 3)"
is "a patch deleted alone: right" "$(recount)" "0,0,0,0,0"
q "$db" "UPDATE message SET date = date + 86400 * 40 WHERE id IN (SELECT message FROM patch WHERE id IN (SELECT patch FROM finding) LIMIT 5)"
q "$db" "UPDATE message SET kind = 'cover' WHERE kind = 'comment' AND id % 5 = 0"
q "$db" "UPDATE finding SET severity = 2 WHERE id % 3 = 0"
is "dates, kinds and severities changed: right" "$(recount)" "0,0,0,0,0"
# A patch's most severe finding goes: the patch moves down to its next
# one (or to none); a severity lowered; a finding given another patch;
# a finding more severe than the rest added to a patch.
q "$db" "DELETE FROM finding WHERE id IN (SELECT (SELECT id FROM finding WHERE patch = p.id
	ORDER BY severity DESC LIMIT 1) FROM patch p WHERE (SELECT count(DISTINCT severity)
	FROM finding WHERE patch = p.id) > 1 LIMIT 6)"
is "a patch's most severe finding deleted: right" "$(recount)" "0,0,0,0,0"
q "$db" "UPDATE finding SET severity = 0 WHERE id % 5 = 0 AND severity = 2"
is "severities lowered: right" "$(recount)" "0,0,0,0,0"
q "$db" "UPDATE finding SET patch = (SELECT min(id) FROM patch) WHERE id IN (SELECT max(id) FROM finding GROUP BY patch LIMIT 4)"
is "findings given another patch: right" "$(recount)" "0,0,0,0,0"
q "$db" "INSERT INTO finding(patch, rule, severity, message) SELECT p.id, 'PERM_WORLD_WRITABLE', 2, 'x'
	FROM patch p WHERE (SELECT max(severity) FROM finding WHERE patch = p.id) < 2 LIMIT 5"
is "a more severe finding added to patches: right" "$(recount)" "0,0,0,0,0"
# Pull requests' dates are read from their own index (message_pull_from).
q "$db" "UPDATE message SET kind = 'pull' WHERE id IN (SELECT message FROM patch ORDER BY id LIMIT 3)"
is "patches' messages made pull requests: right" "$(recount)" "0,0,0,0,0"
# A patch whose message became a cover letter, for the senders' dates.
q "$db" "UPDATE message SET kind = 'cover' WHERE id IN (SELECT message FROM patch ORDER BY id DESC LIMIT 2)"
is "a patch's message made a cover letter: right" "$(recount)" "0,0,0,0,0"
# Mail reclassified: a machine's, then some of it a person's again.
q "$db" "UPDATE message SET automated = 'test robot' WHERE id IN (SELECT message FROM patch WHERE id % 4 = 1)"
check "some patches are a machine's" test "$(q "$db" "SELECT count(*) FROM message m JOIN patch p ON p.message = m.id WHERE m.automated IS NOT NULL")" -gt 0
is "patches reclassified as a machine's: right" "$(recount)" "0,0,0,0,0"
q "$db" "UPDATE message SET automated = NULL WHERE id IN (SELECT message FROM patch WHERE id % 8 = 1)"
is "some reclassified as a person's again: right" "$(recount)" "0,0,0,0,0"
# In-body authors: added to patches with findings, renamed, removed.
q "$db" "INSERT OR IGNORE INTO message_sender SELECT p.message, 'In Body', 'inbody@example.org'
	FROM patch p WHERE EXISTS (SELECT 1 FROM finding WHERE patch = p.id) LIMIT 6"
is "in-body authors added: right" "$(recount)" "0,0,0,0,0"
q "$db" "UPDATE message_sender SET name = 'In Body 2', addr = 'inbody2@example.org' WHERE message % 2 = 0"
is "in-body authors changed: right" "$(recount)" "0,0,0,0,0"
q "$db" "DELETE FROM message_sender WHERE message % 3 = 0"
is "in-body authors removed: right" "$(recount)" "0,0,0,0,0"
q "$db" "UPDATE message SET from_addr = 'moved@example.org', from_name = 'Moved' WHERE id IN (SELECT message FROM patch WHERE id % 5 = 2)"
is "a patch's From changed: right" "$(recount)" "0,0,0,0,0"
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
# The senders from the totals are the rows' (a date range reads the
# rows: --since @1 keeps every patch, none being undated here).
check "no patch undated" test "$(q "$db" "SELECT count(*) FROM patch p JOIN message m ON m.id = p.message WHERE m.date IS NULL")" -eq 0
who=$(q "$db" "SELECT coalesce(ms.addr, m.from_addr) FROM patch p JOIN message m ON m.id = p.message
	LEFT JOIN message_sender ms ON ms.message = m.id JOIN finding f ON f.patch = p.id LIMIT 1")
for l in "" other.example.org "$(q "$db" "SELECT name FROM list ORDER BY id LIMIT 1")"; do
	for args in "--limit 0" "--limit 0 --severity info" "--limit 0 --severity error" \
		"--limit 7 --offset 2 --format json" "--from $who --format json"; do
		is "senders ${l:+--list $l }$args: the totals' are the rows'" \
			"$($PW query --db "$db" senders ${l:+--list "$l"} $args 2>&1)" \
			"$($PW query --db "$db" senders ${l:+--list "$l"} $args --since @1 2>&1)"
	done
done
# The senders page: people and machines apart, as the rows count them.
port=$(free_port)
$PW serve --db "$db" --listen "127.0.0.1:$port" 2>"$T/serve.err" &
serve=$!
for i in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
rows() { curl -s "http://127.0.0.1:$port/senders?severity=info&limit=500$1" | grep '^<tr><td>'; }
page=$(rows "")
check "senders page: rows of people and of machines" test "$(echo "$page" | wc -l)" -gt 2
is "senders page: the totals' rows are the rows'" "$page" "$(rows "&since=@1")"
kill "$serve"; wait "$serve" 2>/dev/null
st=$($PW db stats --db "$db" 2>/dev/null)
is "db stats: messages and findings as the rows count them" \
	"$(kv messages "$st"),$(kv patches "$st"),$(kv findings "$st"),$(kv findings_error "$st")" \
	"$(q "$db" "SELECT count(*) FROM message"),$(q "$db" "SELECT count(*) FROM message WHERE kind = 'patch'"),$(q "$db" "SELECT count(*) FROM finding"),$(q "$db" "SELECT count(*) FROM finding WHERE severity = 2")"

# db check: right totals pass, wrong ones are found and made again.
$PW db check --db "$db" >/dev/null 2>&1	# the deleted messages' raw rows
out=$($PW db check --db "$db" 2>&1); rc=$?
contains "db check: the totals as the rows count them" "$out" "kept totals: as the rows count them"
is "db check: exit status 0" "$rc" 0
q "$db" "UPDATE total_message SET n = n + 1 WHERE day = (SELECT max(day) FROM total_message)"
out=$($PW db check --db "$db" 2>&1); rc=$?
contains "db check: wrong totals found" "$out" "kept totals differed from the rows: made again"
is "db check: exit status 1" "$rc" 1
is "db check: made again from the rows" "$(recount)" "0,0,0,0,0"
q "$db" "UPDATE total_sender SET findings = findings + 1 WHERE (list, who, automated, name, sev)
	IN (SELECT list, who, automated, name, sev FROM total_sender WHERE patches > 0 LIMIT 1)"
out=$($PW db check --db "$db" 2>&1); rc=$?
contains "db check: wrong totals per sender found" "$out" "differed from the rows: made again"
is "db check: the senders' totals made again" "$rc,$(recount)" "1,0,0,0,0,0"

# A store from before the totals gets them at its first open.  The
# migrations from the totals per sender's on, each made again from the
# rows: total_sender, attention, total_sender_date, lineage (a patch's
# life, whose tables are dropped too), one voice per series version (its
# tables too).
cp "$db" "$T/old.db"; cp "$db-raw" "$T/old.db-raw"
v=$(q "$db" "PRAGMA user_version")
# made_at TABLE: the version whose migration makes TABLE (db/schema.c),
# found on an empty store rather than counted from the end: migrations
# added after it must not move it.
$PW ingest -q --db "$T/empty.db" /dev/null >/dev/null 2>&1
made_at() {
	local k
	for ((k = v - 1; k > 0; k--)); do
		rm -rf "$T/probe.db" "$T/probe.db-raw"
		cp "$T/empty.db" "$T/probe.db"
		q "$T/probe.db" "DROP TABLE $1; PRAGMA user_version = $k"
		$PW ingest -q --db "$T/probe.db" /dev/null >/dev/null 2>&1
		if [ "$(q "$T/probe.db" "SELECT count(*) FROM sqlite_schema WHERE name = '$1'")" = 1 ]; then
			echo $((k + 1))
			return
		fi
	done
	echo 1
}
ts=$(made_at total_sender)
tm=$(made_at total_message)
LIFE="DROP TABLE lineage; DROP TABLE lineage_key; DROP TABLE patch_state; DROP TABLE patch_pid;
	DROP TABLE reply_item; DROP TABLE reply_wait; DROP INDEX flood_patch_id_message;"
sqlite3 "$T/old.db" "DROP TABLE total_sender; DROP TABLE attention; DROP TABLE total_sender_date;
	$LIFE PRAGMA user_version = $((ts - 1))"
$PW ingest -q --db "$T/old.db" /dev/null >/dev/null 2>&1
is "a store from before the totals per sender: made from its rows" "$(db=$T/old.db recount)" "0,0,0,0,0"
sqlite3 "$T/old.db" "DROP TABLE total_message; DROP TABLE total_finding; DROP TABLE total_sender;
	DROP TABLE attention; DROP TABLE total_sender_date; $LIFE PRAGMA user_version = $((tm - 1))"
db=$T/old.db
$PW db stats --db "$db" >/dev/null 2>&1	# read-only: refused, migrates nothing
$PW ingest -q --db "$db" /dev/null >/dev/null 2>&1
is "an older store: the totals made from its rows" "$(recount),$(total total_message)" \
	"0,0,0,0,0,$(q "$db" "SELECT count(*) FROM message")"
is "an older store: its stats as before" "$($PW query --db "$db" stats --list other.example.org --limit 0 | md5sum)" \
	"$($PW query --db "$T/pw.db" stats --list other.example.org --limit 0 | md5sum)"
