#!/usr/bin/env bash
# The queue as a worklist (/attention, /api/attention, "query attention")
# on real linux-hwmon mail filed under two lists: patches with errors
# first, then warnings, newest first; each patch once, superseded
# versions left out; filters (list, rule, severity, age), paging (total,
# offset), and the HTML page, the JSON and CSV of the command agreeing
# with the API.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/web_lib.sh"

H=$TOP/tests/corpus/lore-linux-hwmon
A=hwmon.example.org
B=pmbus.example.org
DB=$T/pw.db
# pick MBOX OUT MSGID...: the messages of MBOX with these Message-IDs.
pick() {
	/usr/bin/python3 - "$@" <<'EOF'
import mailbox, sys
src, out, ids = sys.argv[1], sys.argv[2], sys.argv[3:]
o = mailbox.mbox(out)
for m in mailbox.mbox(src):
    if m['message-id'].strip('<> ') in ids:
        o.add(m)
o.flush()
EOF
}
# List A: it87 v3 then v4 (v3 superseded; PERM_SYMBOLIC warnings), a
# malformed k10temp patch (warning), asus-ec-sensors v1 (warning).
for f in it87-symbolic-modes it87-symbolic-modes-v4 k10temp-malformed asus-ec-sensors-v1; do
	$PW ingest -q --db "$DB" --list $A "$H/$f.mbox" >/dev/null
done
# List B: Q54SJ108A2 v8 and v9, both making the driver executable
# (EXEC_SOURCE_FILE, error): v8 superseded by v9.
Q8=20201109065636.4092-1-max701@126.com
Q9=20201124025236.1627-1-max701@126.com
pick "$H/lineage-q54sj108a2.mbox" "$T/q.mbox" $Q8 $Q9
$PW ingest -q --db "$DB" --list $B "$T/q.mbox" >/dev/null
IT3=20260110012613.48150-3-yahoo@perenite.com
IT4=20260114221210.98071-4-yahoo@perenite.com
K10=CAP80Qm2ORJ4cXukhH8oXeGv-C9LrADa1XyDuyq5LKeV_YaYxqA@mail.gmail.com
ASUS=20211216205303.768991-1-eugene.shalygin@gmail.com
q() { sqlite3 -batch -noheader "$DB" "$1"; }
is "the store: v8 and it87 v3 superseded" \
	"$(q "SELECT m.msgid FROM patch_state ps JOIN patch p ON p.id = ps.patch
		JOIN message m ON m.id = p.message WHERE ps.state = 'superseded'" | LC_ALL=C sort)" \
	"$(printf '%s\n' $IT3 $Q8 | LC_ALL=C sort)"

serve "$DB" || exit 1
# ids JSON: "total offset msgid..." of an answer.
ids() { jq -r '"\(.total) \(.offset) " + ([.items[].msgid] | join(" "))' <<<"$1"; }
api() { get "$URL/api/attention$1"; }

all=$(api "")
is "/api/attention: 200, JSON" "$(code) $(ctype)" "200 application/json"
# Errors first (v9, 2020, before every warning), then warnings, newest first.
is "/api/attention: errors first, then newest first; superseded versions absent" \
	"$(ids "$all")" "4 0 $Q9 $IT4 $ASUS $K10"
is "/api/attention: each row's severity, rules and counts" \
	"$(jq -r '.items[] | "\(.severity) \(.rules | join(",")) \(.counts.errors)/\(.counts.warnings)"' <<<"$all")" \
	"$(printf '%s\n' "error EXEC_SOURCE_FILE 1/0" "warning PERM_SYMBOLIC 0/$(q "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE m.msgid = '$IT4' AND f.severity = 1")" \
		"warning PERM_SYMBOLIC 0/1" "warning PATCH_MALFORMED 0/1")"
is "/api/attention: v9's version and the versions of its lineage" \
	"$(jq -r '.items[0] | "\(.version) \(.versions) \(.series != null)"' <<<"$all")" "9 2 true"
is "/api/attention: the fields of an item" \
	"$(jq -r '.items[0] | keys_unsorted | join(" ")' <<<"$all")" \
	"patch msgid subject from from_name date series version versions severity rules counts"

# Paging.
is "/api/attention?limit=2&offset=1: the total, the offset, the page" \
	"$(ids "$(api "?limit=2&offset=1")")" "4 1 $IT4 $ASUS"
is "/api/attention?offset=9: past the end, the total still" \
	"$(ids "$(api "?offset=9")")" "4 9 "
# Filters.
is "?severity=error: only the patch with errors" "$(ids "$(api "?severity=error")")" "1 0 $Q9"
is "?list=$B: that list's" "$(ids "$(api "?list=$B")")" "1 0 $Q9"
is "?list=$A: that list's" "$(ids "$(api "?list=$A")")" "3 0 $IT4 $ASUS $K10"
is "?rule=PATCH_MALFORMED: patches with that rule" "$(ids "$(api "?rule=patch_malformed")")" "1 0 $K10"
is "?rule=EXEC_SOURCE_FILE&list=$A: none" "$(ids "$(api "?rule=EXEC_SOURCE_FILE&list=$A")")" "0 0 "
# An age reaching back to 2025-01-01: only the it87 v4 (2026).
days=$(( ($(date +%s) - $(date -d 2025-01-01 +%s)) / 86400 ))
is "?age=${days}d: patches dated within it" "$(ids "$(api "?age=${days}d")")" "1 0 $IT4"
out=$(api "?age=soon")
is "?age=soon: refused" "$(code)" 400
contains "?age=soon: says what an age is" "$out" "age: Nd or Nh"
out=$(api "?severity=loud")
is "?severity=loud: refused" "$(code)" 400
contains "?severity=loud: names the severities" "$out" "severity: info, warning or error"
out=$(api "?list=nosuch.example.org")
is "?list unknown: refused" "$(code)" 400
contains "?list unknown: names it" "$out" "'nosuch.example.org' is not a list of this store"

# The page: its rows are the API's, in its order, with its total.
page=$(get "$URL/attention")
is "/attention: 200" "$(code)" 200
rows() { grep -o '<tr class="sev-[a-z]*" data-patch="[0-9]*"><td>[a-z]*</td><td>[^<]*</td><td><a href="/message/[^"]*"' |
	sed 's|.*data-patch="\([0-9]*\)"><td>\([a-z]*\)</td><td>[^<]*</td><td><a href="/message/\([^"]*\)"|\1 \2 \3|' |
	/usr/bin/python3 -c 'import sys, urllib.parse; [print(urllib.parse.unquote(l.strip())) for l in sys.stdin]'; }
is "/attention: the API's rows, in its order" "$(rows <<<"$page")" \
	"$(jq -r '.items[] | "\(.patch) \(.severity) \(.msgid)"' <<<"$all")"
contains "/attention: the total" "$page" '<span class="total">4</span> patches'
contains "/attention: a row names its rules" "$page" '<a href="/findings?rule=EXEC_SOURCE_FILE">EXEC_SOURCE_FILE</a>'
contains "/attention: v9 of its lineage's 2 versions" "$page" '">v9</a> of 2</td>'
is "/attention?list=$A&limit=1&offset=1: the API's page" \
	"$(rows <<<"$(get "$URL/attention?list=$A&limit=1&offset=1")" | cut -d' ' -f3)" "$ASUS"
contains "/attention?limit=1: a link to the next page" "$(get "$URL/attention?limit=1")" \
	'<a href="/attention?limit=1&amp;offset=1">older &rarr;</a>'
# The overview: the head of the same list and a link to it all.
over=$(get "$URL/")
contains "/: the worklist's head links to /attention" "$over" '(<a href="/attention">all 4</a>)'
is "/: the worklist's head is the API's" "$(rows <<<"$over")" \
	"$(jq -r '.items[] | "\(.patch) \(.severity) \(.msgid)"' <<<"$all")"

# The command: the same items in JSON and CSV, the same filters.
json=$($PW query attention --db "$DB" --format json)
is "query attention --format json: the API's answer" \
	"$(jq -S . <<<"$json")" "$(jq -S . <<<"$all")"
is "query attention --list $A --limit 1 --offset 1 --format json: the API's" \
	"$(ids "$($PW query attention --db "$DB" --list $A --limit 1 --offset 1 --format json 2>/dev/null)")" \
	"$(ids "$(api "?list=$A&limit=1&offset=1")")"
is "query attention --rule --severity --since: the API's" \
	"$(ids "$($PW query attention --db "$DB" --rule PERM_SYMBOLIC --severity warning --since 2025-01-01 --format json)")" \
	"1 0 $IT4"
csv=$($PW query attention --db "$DB" --format csv)
is "query attention --format csv: the API's items, a line each" \
	"$(/usr/bin/python3 -c 'import csv, sys; r = list(csv.DictReader(sys.stdin)); print("\n".join(" ".join(x[k] for k in ("patch", "severity", "msgid", "counts.errors")) for x in r))' <<<"$csv")" \
	"$(jq -r '.items[] | "\(.patch) \(.severity) \(.msgid) \(.counts.errors)"' <<<"$all")"
text=$($PW query attention --db "$DB" --severity error)
contains "query attention: a line per patch" "$text" "<$Q9> xiao.mx.ma@deltaww.com v9 of 2"
out=$($PW query attention --db "$DB" --path '*.c' 2>&1); rc=$?
is "query attention --path: refused" "$rc" 2
contains "query attention --path: says why" "$out" "path"

# Mail's text is escaped on the page: a hostile patch's subject and sender.
H2=$T/hostile.db
$PW ingest -q --db "$H2" --list hostile.example.org "$TOP/tests/data/hostile.eml" >/dev/null
serve "$H2" || exit 1
page=$(get "$URL/attention")
check "hostile: the patch is in the worklist" test "$(jq .total <<<"$(get "$URL/api/attention")")" -ge 1
contains "hostile: its subject as text" "$page" "&lt;script&gt;document.title"
is "hostile: no markup from mail" "$(grep -c '<script\|<img' <<<"$page")" 0
is "hostile: none on the overview either" "$(get "$URL/" | grep -c '<script\|<img')" 0
