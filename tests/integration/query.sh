#!/usr/bin/env bash
# patchwarden query and outbox list as CSV (bot/printer.c): the same
# rows and values as JSON, RFC 4180 quoting of what comes from mail;
# and reads of a damaged store told as errors, never as "none found".
. "$(dirname "$0")/../lib.sh"

py=/usr/bin/python3
q() { sqlite3 -batch -noheader "$1" "$2"; }
db=$T/q.db

# A patch whose subject has a comma and quotes, a small flood, the
# sample list traffic, replies queued for all of it.
sed 's/^Subject: .*/Subject: [PATCH] =?utf-8?q?perms=2C_=22octal=22_please?=/' \
	"$TOP/tests/cases/PERM_SYMBOLIC/baole-ni-mail.eml" >"$T/q.eml"
$py "$TOP/tests/gen_flood.py" --out "$T/g" --flood-size 40 --noise 30 --seed 5 >/dev/null
$PW ingest -q --reply --config "$TOP/tests/data/run.conf" --db "$db" \
	"$T/q.eml" "$T/g/arrival.mbox" "$TOP/tests/data/sample.mbox" >"$T/ingest.out"
# What ingest's findings count: every finding it stored, the patch
# checks' and flood detection's, at each severity (the store was empty).
for k in "findings:" "findings_error:WHERE severity = 2" "findings_warning:WHERE severity = 1" \
	"findings_info:WHERE severity = 0" \
	"findings_flood:WHERE rule IN ('FLOOD', 'FLOOD_SERIES', 'RESEND_IDENTICAL', 'SERIES_OVERSIZED')"; do
	is "ingest: ${k%%:*} as the store counts them" "$(kv "${k%%:*}" "$(cat "$T/ingest.out")")" \
		"$(sqlite3 -batch -noheader "$db" "SELECT count(*) FROM finding ${k#*:}")"
done
is "ingest --format json: the same counts" \
	"$($PW ingest -q --db "$T/q2.db" --format json "$T/g/arrival.mbox" | jq -c '[.findings, .findings_error, .findings_warning, .findings_info, .findings_flood]')" \
	"$(sqlite3 -batch -noheader "$T/q2.db" "SELECT json_array(count(*), sum(severity = 2), sum(severity = 1), sum(severity = 0), sum(rule IN ('FLOOD', 'FLOOD_SERIES', 'RESEND_IDENTICAL', 'SERIES_OVERSIZED'))) FROM finding")"
# bot/mail.c folds line breaks out of headers; rows written otherwise
# (an SMTP server's multi-line refusal, another writer) can hold them.
q "$db" "UPDATE message SET subject = subject || char(10) || 'second line' || char(13) || char(10) || 'third'
	 WHERE msgid = 'perm_symbolic.baole-ni-mail@example.org';
	 UPDATE outbox SET last_error = '550-first' || char(13) || char(10) || '550 \"last\", really'
	 WHERE id = (SELECT min(id) FROM outbox)"

# same_as_json LABEL CSV JSON: every CSV row is the JSON object of the
# same place, flattened: a map's members as "map.key", a list joined by
# ",", true/false, null as nothing.
cat >"$T/same.py" <<'EOF'
import csv, io, json, sys

def flat(obj, pre=""):
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(flat(v, pre + k + "."))
        elif isinstance(v, list):
            out[pre + k] = ",".join(str(x) for x in v)
        elif isinstance(v, bool):
            out[pre + k] = "true" if v else "false"
        elif v is None:
            out[pre + k] = ""
        else:
            out[pre + k] = str(v)
    return out

label, cpath, jpath = sys.argv[1:4]
with open(cpath, newline="") as f:
    data = f.read()
rows = list(csv.reader(io.StringIO(data, newline="")))
objs = [flat(o) for o in json.load(open(jpath))]
bad = []
if not objs:
    if data:
        bad.append("no rows, yet output")
else:
    if not data.endswith("\r\n"):
        bad.append("lines do not end in CRLF")
    header, body = rows[0], rows[1:]
    if header != list(objs[0].keys()):
        bad.append("header %r" % header)
    if len(body) != len(objs):
        bad.append("%d rows for %d objects" % (len(body), len(objs)))
    for r, o in zip(body, objs):
        if dict(zip(header, r)) != o:
            bad.append("row %r != %r" % (r, o))
            break
print(("ok - " if not bad else "not ok - ") + label + ": the rows of JSON (%d)" % len(objs))
for b in bad[:3]:
    print("#   " + b)
EOF
same_as_json() {
	$py "$T/same.py" "$1" "$2" "$3"
}

for what in findings series floods; do
	$PW query --db "$db" $what --format csv >"$T/$what.csv"
	is "query $what --format csv: exit status" "$?" 0
	$PW query --db "$db" $what --format json >"$T/$what.json"
	same_as_json "query $what --format csv" "$T/$what.csv" "$T/$what.json"
	is "query $what --format csv: some rows" "$(test "$(wc -l <"$T/$what.csv")" -gt 1 && echo yes)" yes
done
$PW outbox --db "$db" --config "$TOP/tests/data/run.conf" list --format csv >"$T/outbox.csv"
is "outbox list --format csv: exit status" "$?" 0
$PW outbox --db "$db" --config "$TOP/tests/data/run.conf" list --format json >"$T/outbox.json"
same_as_json "outbox list --format csv" "$T/outbox.csv" "$T/outbox.json"

# The quoting itself, byte for byte: doubled quotes, and line breaks
# inside one quoted field.
row=$($py - "$T/findings.csv" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
at = data.index(b"perm_symbolic.baole-ni-mail@example.org")
print(repr(data[data.index(b',"', at) + 1:].split(b',2024')[0]))
EOF
)
is "query findings --format csv: comma, quotes and line breaks quoted" "$row" \
	"b'\"[PATCH] perms, \"\"octal\"\" please\\nsecond line\\r\\nthird\"'"
contains "outbox list --format csv: a multi-line error quoted" "$(cat "$T/outbox.csv")" \
	"$(printf '"550-first\r\n550 ""last"", really"')"
contains "query floods --format csv: a nested map's members" "$(head -n 1 "$T/floods.csv")" \
	"fingerprints.subject,fingerprints.body,fingerprints.shape"

# Nothing found: no header either (as sqlite3 -csv -header).
out=$($PW query --db "$db" findings --from nobody@nowhere.example --format csv)
is "query findings --format csv: nothing found, nothing written" "$?:$out" "0:"
# Where a result is no table, CSV is refused.
$PW outbox --db "$db" show 1 --format csv >/dev/null 2>"$T/err"
is "outbox show --format csv: refused" "$?" 2
contains "outbox show --format csv: says what is offered" "$(cat "$T/err")" "text or json"
$PW parse --format csv "$T/q.eml" >/dev/null 2>&1
is "parse --format csv: refused" "$?" 2
$PW query --db "$db" findings --format xml >/dev/null 2>"$T/err"
is "query --format xml: refused" "$?" 2
contains "query --format xml: says what is offered" "$(cat "$T/err")" "text, json or csv"

# ---- reads of a damaged store -------------------------------------------
# damage DB TABLE-OR-INDEX: zeroes the root page of one b-tree.
damage() {
	local page size
	q "$1" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
	page=$(q "$1" "SELECT rootpage FROM sqlite_schema WHERE name = '$2'")
	size=$(q "$1" "PRAGMA page_size")
	dd if=/dev/zero of="$1" bs="$size" seek=$((page - 1)) count=1 conv=notrunc 2>/dev/null
}
fresh() {	# fresh NAME: a copy of the store
	rm -f "$T/$1".db*
	cp "$db" "$T/$1.db"
	cp "$db-raw" "$T/$1.db-raw"
}
q "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null

fresh patches
damage "$T/patches.db" patch
out=$($PW db recheck --db "$T/patches.db" 2>"$T/err")
is "damaged patch table: recheck fails" "$?" 2
contains "damaged patch table: recheck tells the store's error" "$(cat "$T/err")" "malformed"
is "damaged patch table: recheck claims no patches rechecked" "$out" ""

fresh ids
mid=$(q "$T/ids.db" "SELECT msgid FROM message WHERE kind = 'patch' LIMIT 1")
damage "$T/ids.db" sqlite_autoindex_message_1
$PW query --db "$T/ids.db" floods --message "$mid" >/dev/null 2>"$T/err"
is "damaged Message-ID index: query floods --message fails" "$?" 2
contains "damaged Message-ID index: the store's error" "$(cat "$T/err")" "malformed"
is "damaged Message-ID index: not told as an unknown message" \
	"$(grep -c 'no stored message' "$T/err")" 0

fresh findings
damage "$T/findings.db" finding
for f in text json csv; do
	out=$($PW query --db "$T/findings.db" findings --format $f 2>"$T/err")
	is "damaged finding table: query findings --format $f fails, prints nothing" "$?:$out" "2:"
done

# ---- every kind, its filters, paging and validation ----------------------
# Counts are checked against the store itself (sqlite3) or against
# another filter's complement, so that a filter that does nothing fails.
jn() { $PW query --db "$db" "$@" --format json --limit 0 | jq length; }
sq() { q "$db" "$1"; }
flooder=pat.flood@example.org
mips=linux-mips.vger.kernel.org

# series
all=$(jn series)
is "series: every series" "$all" "$(sq 'SELECT count(*) FROM series')"
with=$(jn series --has-findings yes); without=$(jn series --has-findings no)
is "series --has-findings yes and no split them" "$((with + without))" "$all"
is "series --has-findings yes: as the store says" "$with" \
	"$(sq 'SELECT count(DISTINCT p.series) FROM patch p JOIN finding f ON f.patch = p.id WHERE p.series IS NOT NULL')"
is "series --list: the series with a patch on the list" "$(jn series --list $mips)" \
	"$(sq "SELECT count(DISTINCT p.series) FROM patch p JOIN message_list ml ON ml.message = p.message JOIN list l ON l.id = ml.list WHERE l.name = '$mips'")"
is "series --from: the flooder's series" "$(jn series --from PAT.FLOOD@example.org)" 1
is "series --version 2: only version 2" "$($PW query --db "$db" series --version 2 --format json | jq -r '[.[].version] | unique | join(",")')" 2
is "series --state flood: the flood's series" "$($PW query --db "$db" series --state flood --format json | jq -r '[.[].flood != null] | unique | join(",")')" true
complete=$(jn series --state complete); incomplete=$(jn series --state incomplete)
is "series --state complete and incomplete: those with a count" "$((complete + incomplete))" "$(sq 'SELECT count(*) FROM series WHERE total > 0')"
is "series --rule flood (any case): the flood's series" "$(jn series --rule flood)" 1
is "series --since: none after the traffic" "$(jn series --since 2027-01-01)" 0
is "series --until: none before the traffic" "$(jn series --until 2016-01-01)" 0
is "series --order newest: last seen first" \
	"$($PW query --db "$db" series --order newest --format json | jq -r '[.[].last_seen] == ([.[].last_seen] | sort | reverse)')" true

# patches
is "patches: every patch" "$(jn patches)" "$(sq 'SELECT count(*) FROM patch')"
is "patches --from: the flooder's 40" "$(jn patches --from $flooder)" 40
is "patches --rule FLOOD: the flood's patches" "$(jn patches --rule FLOOD)" 40
sid=$(sq "SELECT series FROM patch p JOIN message m ON m.id = p.message WHERE m.from_addr = 'bert@hacker.example.net' LIMIT 1")
is "patches --series: in number order" \
	"$($PW query --db "$db" patches --series "$sid" --format json | jq -r '[.[].number] == ([.[].number] | sort)')" true
is "patches --series: that series' patches" "$(jn patches --series "$sid")" "$(sq "SELECT count(*) FROM patch WHERE series = $sid")"
with=$(jn patches --has-findings yes); without=$(jn patches --has-findings no)
is "patches --has-findings yes and no split them" "$((with + without))" "$(sq 'SELECT count(*) FROM patch')"

# findings
# Info findings are hidden unless asked: --severity is the least severe
# shown, warning by default, info for every finding.
check "findings: the store has info findings to hide" test "$(sq 'SELECT count(*) FROM finding WHERE severity = 0')" -gt 0
is "findings: warning and above by default" "$(jn findings)" "$(sq 'SELECT count(*) FROM finding WHERE severity >= 1')"
is "findings --severity info: every finding" "$(jn findings --severity info)" "$(sq 'SELECT count(*) FROM finding')"
is "findings --severity warning: the default" "$(jn findings --severity warning)" "$(jn findings)"
is "findings: no info row by default" "$($PW query --db "$db" findings --format json | jq '[.[] | select(.severity == "info")] | length')" 0
# A rule named is shown at every severity, unless a severity is given.
irule=$(sq "SELECT rule FROM finding WHERE severity = 0 GROUP BY rule ORDER BY count(*) DESC LIMIT 1")
is "findings --rule $irule: its info findings too" "$(jn findings --rule "$irule")" \
	"$(sq "SELECT count(*) FROM finding WHERE rule = '$irule'")"
is "findings --rule $irule --severity warning: the severity given wins" \
	"$(jn findings --severity warning --rule "$irule")" \
	"$(sq "SELECT count(*) FROM finding WHERE rule = '$irule' AND severity >= 1")"
stat_findings() { $PW query --db "$db" stats --limit 0 --format json "$@" | jq '[.[].findings] | add'; }
is "stats: findings counted at warning and above by default" "$(stat_findings)" \
	"$(( $(sq 'SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE f.severity >= 1 AND m.date IS NOT NULL AND NOT EXISTS (SELECT 1 FROM message_list ml WHERE ml.message = m.id)') + $(sq 'SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message JOIN message_list ml ON ml.message = m.id WHERE f.severity >= 1 AND m.date IS NOT NULL') ))"
is "stats --severity info: every finding counted" "$(stat_findings --severity info)" \
	"$(( $(sq 'SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE m.date IS NOT NULL AND NOT EXISTS (SELECT 1 FROM message_list ml WHERE ml.message = m.id)') + $(sq 'SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message JOIN message_list ml ON ml.message = m.id WHERE m.date IS NOT NULL') ))"
is "findings --rule perm_symbolic: any case" "$(jn findings --rule perm_symbolic)" "$(jn findings --rule PERM_SYMBOLIC)"
is "findings --rule: as the store says" "$(jn findings --rule PERM_SYMBOLIC)" "$(sq "SELECT count(*) FROM finding WHERE rule = 'PERM_SYMBOLIC'")"
is "findings --path: a glob over files" "$($PW query --db "$db" findings --path 'drivers/net/*' --format json | jq -r '[.[].file | startswith("drivers/net/")] | unique | join(",")')" true
is "findings --path: as the store says" "$(jn findings --path 'drivers/net/*')" "$(sq "SELECT count(*) FROM finding WHERE file GLOB 'drivers/net/*'")"
is "findings --severity error" "$(jn findings --severity error)" "$(sq 'SELECT count(*) FROM finding WHERE severity >= 2')"
is "findings --series" "$(jn findings --series 1)" "$(sq 'SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch WHERE p.series = 1')"
is "findings --until before --since: none" "$(jn findings --since 2016-08-03 --until 2016-08-02)" 0

# floods
is "floods --list: a list the flood reached" "$(jn floods --list $mips)" 1
is "floods --from: the flooder's" "$(jn floods --from $flooder)" 1
is "floods --from: nobody's" "$(jn floods --from bert@hacker.example.net)" 0
is "floods --until: none before" "$(jn floods --until 2016-08-01)" 0

# senders
top=$($PW query --db "$db" senders --limit 1 --format json)
is "senders: most patches first" "$(echo "$top" | jq -r '.[0] | "\(.sender) \(.patches) \(.floods)"')" "$flooder 40 1"
is "senders: findings counted (warning and above)" "$(echo "$top" | jq -r '.[0].findings')" \
	"$(sq "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE m.from_addr = '$flooder' AND f.severity >= 1")"
is "senders --severity info: every finding counted" "$($PW query --db "$db" senders --limit 1 --severity info --format json | jq -r '.[0].findings')" \
	"$(sq "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE m.from_addr = '$flooder'")"
is "senders --list" "$($PW query --db "$db" senders --list linux-mmc.vger.kernel.org --format json | jq -r '[.[].patches] | add')" \
	"$(sq "SELECT count(*) FROM patch p JOIN message_list ml ON ml.message = p.message JOIN list l ON l.id = ml.list WHERE l.name = 'linux-mmc.vger.kernel.org'")"

# stats
is "stats: messages per list and day add up" "$($PW query --db "$db" stats --list $mips --format json --limit 0 | jq '[.[].messages] | add')" \
	"$(sq "SELECT count(*) FROM message m JOIN message_list ml ON ml.message = m.id JOIN list l ON l.id = ml.list WHERE l.name = '$mips' AND m.date IS NOT NULL")"
is "stats: findings by rule add up" "$($PW query --db "$db" stats --list $mips --format json --limit 0 | jq '[.[].rules[] | split("=")[1] | tonumber] | add')" \
	"$($PW query --db "$db" stats --list $mips --format json --limit 0 | jq '[.[].findings] | add')"
is "stats --per week: week periods" "$($PW query --db "$db" stats --per week --format json | jq -r '[.[].period | test("^[0-9]{4}-W[0-9]{2}$")] | unique | join(",")')" true

# message
m1=$(sq "SELECT msgid FROM message m JOIN flood_member fm ON fm.message = m.id JOIN flood_group g ON g.id = fm.grp WHERE g.detected_at IS NOT NULL LIMIT 1")
msg=$($PW query --db "$db" message "<$m1>" --format json)
is "message: found, with its flood" "$(echo "$msg" | jq -r '.msgid == "'"$m1"'" and .flood != null')" true
is "message: its findings" "$(echo "$msg" | jq '.findings | length')" "$(sq "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE m.msgid = '$m1'")"
is "message: its reply state" "$(echo "$msg" | jq -r '.replies[0].state')" "$(sq "SELECT state FROM outbox o JOIN message m ON m.id = o.message WHERE m.msgid = '$m1' ORDER BY o.id LIMIT 1")"
contains "message: the diff read from its raw bytes" "$(echo "$msg" | jq -r .diff)" "diff --git"
$PW query --db "$db" message "<nobody@nowhere.example>" >/dev/null 2>"$T/err"
is "message: an unknown Message-ID is an error" "$?" 2

# paging: limit and offset are a window on the whole
whole=$($PW query --db "$db" findings --format json --limit 0 | jq -c '[.[].id]')
page=$($PW query --db "$db" findings --format json --limit 5 --offset 5 2>"$T/err" | jq -c '[.[].id]')
is "paging: --limit 5 --offset 5 is rows 6 to 10" "$page" "$(echo "$whole" | jq -c '.[5:10]')"
contains "paging: a note when there are more" "$(cat "$T/err")" "--offset 10 shows the next"
n=$($PW query --db "$db" findings 2>"$T/err" | wc -l)
is "paging: at most 1000 rows by default" "$n" "$(jn findings)"

# validation: every malformed or unknown value is an error saying what is valid
bad() {	# DESC WANT ARGS...: exit 2 and stderr containing WANT
	local d=$1 want=$2; shift 2
	$PW query --db "$db" "$@" >"$T/out" 2>"$T/err"
	is "$d: exit 2" "$?" 2
	contains "$d: says what is valid" "$(cat "$T/err")" "$want"
	is "$d: prints nothing" "$(cat "$T/out")" ""
}
bad "unknown rule" "PERM_WORLD_WRITABLE" findings --rule NO_SUCH_RULE
bad "unknown list" "$mips" series --list linux-nosuch
bad "malformed date" "YYYY-MM-DD" patches --since 2016-13-45
bad "malformed until" "YYYY-MM-DD" floods --until soon
bad "negative limit" "limit: a number" findings --limit -1
bad "huge offset" "offset: a number from 0 to" series --offset 99999999999
bad "state" "complete, incomplete or flood" series --state merged
bad "per" "day or week" stats --per month
bad "has-findings" "yes or no" series --has-findings maybe
bad "version" "version: a number" series --version 0
bad "order" "newest or oldest" findings --order random
bad "a filter the kind does not take" "does not apply" series --severity error
bad "unknown kind" "series, patches, findings, floods, senders, stats, errors or attention" bogus

# The filters have indexes (migration 11).
for ix in message_list_list message_date_kind message_patch_from finding_patch_rule series_last series_first finding_file message_sender_addr flood_group_sender; do
	is "index $ix exists" "$(sq "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = '$ix'")" 1
done
plan=$(sq "EXPLAIN QUERY PLAN SELECT ml.message FROM message_list ml JOIN list l ON l.id = ml.list WHERE l.name = 'x'")
contains "a list's messages are found through message_list_list" "$plan" "message_list_list"

# A page of the newest stats is read from a window of days (widened until
# the page is full): the same rows as the whole history's, sliced.
for per in day week; do
	for page in "--limit 3 --offset 0" "--limit 2 --offset 4" "--limit 1 --offset 9"; do
		set -- $page
		whole=$($PW query --db "$db" stats --per $per --order newest --limit 0 --format json | jq -c ".[$4:$4+$2]")
		# shellcheck disable=SC2086
		got=$($PW query --db "$db" stats --per $per --order newest $page --format json 2>/dev/null | jq -c .)
		is "stats --per $per --order newest $page: the slice of every row" "$got" "$whole"
	done
done
for args in "--list $mips" "--from $flooder" "--until 2016-08-10"; do
	# shellcheck disable=SC2086
	whole=$($PW query --db "$db" stats $args --order newest --limit 0 --format json | jq -c ".[1:3]")
	# shellcheck disable=SC2086
	got=$($PW query --db "$db" stats $args --order newest --limit 2 --offset 1 --format json 2>/dev/null | jq -c .)
	is "stats $args --order newest --limit 2 --offset 1: the slice of every row" "$got" "$whole"
done
