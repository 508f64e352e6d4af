#!/usr/bin/env bash
# patchwarden serve over loopback with a real HTTP client (curl): every
# page, API and feed; every filter of the API answering what "query"
# answers; mail shown as text in HTML, JSON and Atom; bad requests
# refused with a reason; the token; POST /api/check and /api/submit;
# and correct answers while ingest writes to the same store.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/web_lib.sh"

db=$T/w.db
make_store "$db"
# A message that is no mail: stored as an ingest error, for /errors.
$PW ingest -q --db "$db" "$TOP/tests/hostile/not-mail.eml" >/dev/null
serve "$db" || exit 1
mips=linux-mips.vger.kernel.org
flooder=pat.flood@example.org

# One Python process answers the JSON questions (pyq, tests/lib.sh).
pyq_start
# canon FILE: the JSON of FILE with its keys sorted, on one line (as
# "jq -S -c ." prints it); nothing when FILE is not JSON.
canon() {
	local r
	r=$(pyq "$1" 'json.dumps(m, sort_keys=True, separators=(",", ":"), ensure_ascii=False)')
	case $r in Traceback*) r= ;; esac
	printf '%s\n' "$r"
}

# ---- the API is the query, through the same printer ----------------------
# same KIND K=V...: /api/KIND?K=V... is "query KIND --K V..." (newest
# first, 50 rows: the dashboard's defaults).
same() {
	local kind=$1 kv cargs=() gargs=() api cli
	shift
	for kv in "$@"; do
		cargs+=("--${kv%%=*}" "${kv#*=}")
		gargs+=(--data-urlencode "$kv")
	done
	get -G "${gargs[@]}" "$URL/api/$kind" >"$T/api.json"
	is "/api/$kind?$*: 200 JSON" "$(code) $(ctype)" "200 application/json"
	# (senders are ordered by count, not by date)
	[ "$kind" = senders ] || cargs=(--order newest "${cargs[@]}")
	$PW query --db "$db" "$kind" --limit 50 "${cargs[@]}" --format json >"$T/cli.json" 2>/dev/null
	api=$(canon "$T/api.json") cli=$(canon "$T/cli.json")
	is "/api/$kind?$*: the rows of query $kind" "$api" "$cli"
	check "/api/$kind?$*: some rows or none, as the store has" test -n "$api"
}
same series
same series list=$mips
same series from=PAT.FLOOD@example.org
same series since=2016-08-02 until=2019-05-01
same series version=2
same series has-findings=yes
same series has-findings=no
same series rule=perm_symbolic
same series state=flood
same series state=complete
same series state=incomplete
same series order=oldest limit=3 offset=2
same patches
same patches list=$mips
same patches from=$flooder
same patches since=2016-08-02 until=2016-08-03
same patches version=1 has-findings=yes
same patches rule=FLOOD
same patches series=1 offset=10
same findings
same findings list=$mips
same findings from=$flooder rule=PERM_SYMBOLIC
same findings since=2019-01-01 until=2025-01-01
same findings severity=error
same findings path=drivers/net/*
same findings series=1 order=oldest limit=7 offset=3
same floods
same floods list=$mips
same floods from=$flooder
same floods since=2016-08-03
same floods until=2016-08-03
same senders
same senders list=$mips
same senders from=$flooder
same senders since=2016-08-02 until=2016-08-03
same senders has-findings=yes rule=FLOOD
same findings severity=info
same findings severity=warning
same errors
same errors order=oldest limit=1
same errors since=2000-01-01
same stats
same stats severity=info
same stats list=$mips per=week
same stats from=$flooder order=oldest
same stats since=2019-01-01 until=2020-01-01
n=$(get "$URL/api/series?limit=1" | jq length)
is "/api/series?limit=1: one row" "$n" 1
check "/api/series?format=csv: CSV with a header" \
	grep -q '^id,name,sender,version,' <(get "$URL/api/series?format=csv")
is "/api/series?format=csv: text/csv" "$(ctype)" "text/csv; charset=utf-8"
msg=$(get "$URL/api/message/hostile%2F%26x%3D1%3F%40example.org")
is "/api/message/MSGID: the message, / & ? = in its Message-ID" "$(echo "$msg" | jq -r .msgid)" "hostile/&x=1?@example.org"
is "/api/message/MSGID: its findings" "$(echo "$msg" | jq '.findings | length')" \
	"$(sqlite3 "$db" "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE m.msgid = 'hostile/&x=1?@example.org'")"

# ---- pages: each renders, and its table is the API's rows ----------------
# rows KIND PATTERN QUERY: the page's rows counted by PATTERN.
rows() {
	local kind=$1 pat=$2 q=${3:-} html n
	html=$(get "$URL/$kind${q:+?$q}")
	is "/$kind${q:+?$q}: 200 HTML" "$(code) $(ctype)" "200 text/html; charset=utf-8"
	get "$URL/api/$kind${q:+?$q}" >"$T/rows.json"
	n=$(pyq "$T/rows.json" 'len(m)')
	is "/$kind${q:+?$q}: the API's $n rows" "$(printf '%s' "$html" | grep -o "$pat" | wc -l)" "$n"
}
rows series '<tr><td><a href="/series/' "list=$mips"
rows series '<tr><td><a href="/series/' "has-findings=yes&state=incomplete"
rows patches '<tr><td><a href="/message/' "from=$flooder"
rows findings '<tr class="sev-' "rule=perm_symbolic&list=$mips"
rows floods '<tr id="f' ""
rows senders '<tr><td><a href="/patches?from=' "since=2016-08-01"
rows stats '<tr><td>' "per=week"
page=$(get "$URL/")
is "/: 200" "$(code)" 200
contains "/: counts" "$page" "<th>messages</th>"
contains "/: findings over time, an inline SVG chart" "$page" '<svg class="chart" role="img" aria-label="findings per '
contains "/: floods over time, an inline SVG chart" "$page" 'aria-label="floods per '
check "/: a bar per rule and period" grep -qE '<title>2016-08[-0-9]*: [0-9]+ findings \(FLOOD\)</title>' <<<"$page"
contains "/: links to each list's page" "$page" "href=\"/list/$mips\""
page=$(get "$URL/series/1")
is "/series/1: 200" "$(code)" 200
contains "/series/1: its patches' diffs" "$page" '<pre class="diff">'
contains "/series/1: a finding marked on its added line" "$page" '<span class="add mark" id="L'
contains "/series/1: the mode as ls -l shows it" "$page" "S_IWUSR = 0200 (-w-------)"
contains "/series/1: the fix" "$page" "fix: <code>module_param_named(debug, ads25_debug, uint, 0200);</code>"
# A marked line is followed by its note: the finding of that line.
check "/series/1: each mark followed by a finding" /usr/bin/python3 -c '
import re, sys
page = sys.stdin.read()
marks = re.findall(r"<span class=\"add mark\" id=\"L\d+\">[^\n]*?</span>(<span class=\"note)?", page)
sys.exit(0 if marks and all(marks) else 1)' <<<"$page"
page=$(get "$URL/message/hostile%2F%26x%3D1%3F%40example.org")
is "/message/MSGID: 200" "$(code)" 200
contains "/message/MSGID: the finding on the line of the file" "$page" "PERM_WORLD_WRITABLE"
page=$(get "$URL/outbox")
is "/outbox: 200" "$(code)" 200
is "/outbox: a row per reply (up to 50)" "$(printf '%s' "$page" | grep -c '^<tr><td>[0-9]')" \
	"$(sqlite3 "$db" 'SELECT min(count(*), 50) FROM outbox')"
page=$(get "$URL/outbox?state=suppressed")
is "/outbox?state=suppressed: only those" "$(printf '%s' "$page" | grep '^<tr><td>[0-9]' | grep -vc '<td>suppressed</td>')" 0
contains "/outbox?state=suppressed: with the reason" "$page" "held until it is clear whether it is a flood"
# Info findings: hidden unless asked, on every page that lists findings.
q() { sqlite3 -batch -noheader "$db" "$1"; }
check "the store has info findings to hide" test "$(q 'SELECT count(*) FROM finding WHERE severity = 0')" -gt 0
is "/api/findings: no info finding by default" \
	"$(get "$URL/api/findings?limit=500" | jq '[.[] | select(.severity == "info")] | length')" 0
check "/api/findings?severity=info: info findings too" \
	test "$(get "$URL/api/findings?limit=500&severity=info" | jq '[.[] | select(.severity == "info")] | length')" -gt 0
page=$(get "$URL/findings")
is "/findings: no info row" "$(printf '%s' "$page" | grep -c '<tr class="sev-info"')" 0
contains "/findings: says what is shown, and links to every finding" "$page" 'Shown and counted: findings at warning and above.'
contains "/findings: the link to every finding" "$page" 'href="/findings?severity=info&amp;offset=0">show every finding</a>'
check "/findings?severity=info: info rows" grep -q '<tr class="sev-info"' <(get "$URL/findings?severity=info")
# A message whose only finding is info: none shown, and said so.
info_msg=$(q "SELECT m.msgid FROM message m JOIN patch p ON p.message = m.id WHERE EXISTS (SELECT 1 FROM finding f WHERE f.patch = p.id AND f.severity = 0) AND NOT EXISTS (SELECT 1 FROM finding f WHERE f.patch = p.id AND f.severity > 0) LIMIT 1")
check "a patch with info findings only" test -n "$info_msg"
enc=$(jq -rn --arg s "$info_msg" '$s | @uri')
page=$(get "$URL/message/$enc")
is "/message/MSGID: no info finding's note" "$(printf '%s' "$page" | grep -c 'class="note sev-info"')" 0
contains "/message/MSGID: says how many are not shown" "$page" "finding"
contains "/message/MSGID: with the link to them" "$page" "?severity=info\">show every finding</a>"
check "/message/MSGID?severity=info: the info finding's note" grep -q 'class="note sev-info"' <(get "$URL/message/$enc?severity=info")
is "/message/MSGID?severity=bogus: 400" "$(get "$URL/message/$enc?severity=bogus" >/dev/null; code)" 400
sid=$(q "SELECT p.series FROM patch p JOIN finding f ON f.patch = p.id WHERE f.severity = 0 AND p.series IS NOT NULL LIMIT 1")
page=$(get "$URL/series/$sid")
contains "/series/ID: says info findings are not shown" "$page" "below warning not shown"
is "/series/ID: no info finding's note" "$(printf '%s' "$page" | grep -c 'class="note sev-info"')" 0
page=$(get "$URL/")
contains "/: findings counted at warning and above" "$page" \
	"<th><a href=\"/findings\">findings</a></th><th>lists</th><th>unreadable</th></tr><tr><td class=\"n\">$(q 'SELECT count(*) FROM message')</td><td class=\"n\">$(q "SELECT count(*) FROM message WHERE kind = 'patch'")</td><td class=\"n\">$(q "SELECT count(*) FROM message WHERE kind = 'pull'")</td><td class=\"n\">$(q 'SELECT count(*) FROM series')</td><td class=\"n\">$(q 'SELECT count(*) FROM finding WHERE severity >= 1')</td>"
contains "/: says how many info findings are not counted" "$page" "$(q 'SELECT count(*) FROM finding WHERE severity = 0') info findings are not"

# Unreadable messages: counted on the overview, linked to /errors, listed
# there with where and why.
contains "/: the unreadable message counted, linked to /errors" "$page" '<td class="n bad"><a href="/errors">1</a></td>'
page=$(get "$URL/errors")
is "/errors: 200 HTML" "$(code) $(ctype)" "200 text/html; charset=utf-8"
contains "/errors: the file it came from" "$page" "<code>$TOP/tests/hostile/not-mail.eml</code>"
contains "/errors: why" "$page" "<td>not a mail message (no header fields)</td>"
contains "/errors: linked from every page" "$page" '<a href="/errors">errors</a></header>'
is "/api/errors: the error, with its bytes kept" \
	"$(get "$URL/api/errors" | jq -r '.[0] | "\(.error)|\(.kept)|\(.msgid)"')" \
	"not a mail message (no header fields)|$(q 'SELECT length(raw) FROM ingest_error')|null"

page=$(get "$URL/list/$mips")
is "/list/NAME: 200" "$(code)" 200
contains "/list/NAME: its feed" "$page" "href=\"/list/$mips/atom\""
contains "/list/NAME: its series" "$page" "Latest series"

# ---- the Atom feed -----------------------------------------------------------
get "$URL/list/linux-hostile.vger.kernel.org/atom" >"$T/feed.xml"
is "/list/NAME/atom: 200 Atom" "$(code) $(ctype)" "200 application/atom+xml"
check "/list/NAME/atom: well-formed, the subject as text" /usr/bin/python3 -c '
import sys, xml.etree.ElementTree as ET
ns = {"a": "http://www.w3.org/2005/Atom"}
root = ET.parse(sys.argv[1]).getroot()
titles = [e.find("a:title", ns).text for e in root.findall("a:entry", ns)]
links = [e.find("a:link", ns).get("href") for e in root.findall("a:entry", ns)]
want = "<script>document.title=\x27pwned\x27</script>"
sys.exit(0 if titles and all(want in t for t in titles) and all(l == "/message/hostile%2F%26x%3D1%3F%40example.org" for l in links) else 1)' "$T/feed.xml"
n=$(get "$URL/list/$mips/atom" | grep -c '<entry>')
is "/list/NAME/atom: the list's newest findings (at most 50)" "$n" \
	"$($PW query --db "$db" findings --list $mips --format json --limit 50 | jq length)"

# ---- escaping: mail is text everywhere -----------------------------------
for p in / /series /patches "/patches?from=eve@example.org" /findings "/findings?list=linux-hostile.vger.kernel.org" \
	/senders /outbox /list/linux-hostile.vger.kernel.org "/message/hostile%2F%26x%3D1%3F%40example.org" \
	"/series/$(sqlite3 "$db" "SELECT series FROM patch p JOIN message m ON m.id = p.message WHERE m.from_addr = 'eve@example.org'")"; do
	page=$(get "$URL$p")
	is "$p: no <script> element at all" "$(printf '%s' "$page" | grep -ci '<script')" 0
	is "$p: no attribute made from mail" "$(printf '%s' "$page" | grep -c '"onmouseover=\|<img src=x')" 0
done
page=$(get "$URL/findings?list=linux-hostile.vger.kernel.org")
contains "the hostile subject shown as text" "$page" "&lt;script&gt;document.title=&apos;pwned&apos;&lt;/script&gt; &quot;onmouseover=document.title=&apos;hovered&apos; x"
contains "the hostile file name shown as text" "$page" "drivers/misc/&lt;b&gt;x.c"
contains "the hostile Message-ID in a link, encoded" "$page" 'href="/message/hostile%2F%26x%3D1%3F%40example.org"'
page=$(get "$URL/message/hostile%2F%26x%3D1%3F%40example.org")
contains "the hostile author shown as text" "$page" "Eve &lt;img src=x onerror=alert(1)&gt;"
contains "the hostile added line shown as text" "$page" "/* &lt;script&gt;document.title=&apos;diff&apos;&lt;/script&gt; */"
is "JSON carries the subject as it is" \
	"$(get "$URL/api/findings?list=linux-hostile.vger.kernel.org" | jq -r '.[0].subject')" \
	"[PATCH] <script>document.title='pwned'</script> \"onmouseover=document.title='hovered' x"
csp=$(curl -s -D - -o /dev/null "$URL/")
contains "pages forbid scripts (Content-Security-Policy)" "$csp" "default-src 'none'"
contains "pages are not sniffed" "$csp" "X-Content-Type-Options: nosniff"

# ---- bad requests: a short reason, never a crash -------------------------
bad() {	# DESC CODE WANT CURL-ARGS...
	local d=$1 code=$2 want=$3 body
	shift 3
	body=$(get "$@")
	is "$d: $code" "$(code)" "$code"
	contains "$d: says why" "$body" "$want"
}
bad "unknown filter" 400 "not a filter of series" "$URL/api/series?bogus=1"
bad "unknown filter on a page" 400 "not a filter of findings" "$URL/findings?colour=red"
bad "unknown rule" 400 "PERM_WORLD_WRITABLE" "$URL/api/findings?rule=NOPE"
bad "unknown list" 400 "is not a list of this store" "$URL/api/series?list=nosuch"
bad "malformed date" 400 "is not a date" "$URL/api/series?since=2024-02-30"
bad "malformed until" 400 "is not a date" "$URL/series?until=tomorrow"
bad "huge page number" 400 "offset: a number from 0 to" "$URL/api/findings?offset=99999999999"
bad "huge page" 400 "limit: a number from 1 to 500" "$URL/api/findings?limit=100000"
bad "zero page" 400 "limit: a number from 1 to 500" "$URL/api/findings?limit=0"
bad "a filter given twice" 400 "given twice" "$URL/api/series?list=a&list=b"
bad "format" 400 "format: json or csv" "$URL/api/series?format=xml"
bad "a filter the kind does not take" 400 "not a filter of floods" "$URL/api/floods?rule=FLOOD"
bad "JSON errors are JSON" 400 '"error"' "$URL/api/series?since=x"
is "JSON errors: application/json" "$(ctype)" "application/json"
bad "path traversal" 400 "not a path" --path-as-is "$URL/../../etc/passwd"
bad "path traversal inside" 400 "not a path" --path-as-is "$URL/series/../../etc/passwd"
bad "encoded traversal" 400 "not a path" "$URL/%2e%2e/%2e%2e/etc/passwd"
bad "no such page" 404 "no such page" "$URL/admin"
bad "no such API" 404 "no such API" "$URL/api/users"
bad "no such series" 404 "no such series" "$URL/series/999999"
bad "a series that is no number" 404 "no such series" "$URL/series/1abc"
bad "no such message" 404 "no stored message" "$URL/message/nobody%40nowhere"
bad "no such list" 404 "is not a list of this store" "$URL/list/nosuch"
bad "no such list's feed" 404 "is not a list of this store" "$URL/list/nosuch/atom"
bad "outbox state" 400 "pending, sending, sent, failed or suppressed" "$URL/outbox?state=lost"
bad "overview parameters" 400 "takes no parameters" "$URL/?x=1"
bad "another method" 405 "GET, HEAD or POST" -X DELETE "$URL/series"
bad "POST elsewhere" 404 "/api/check or /api/submit" --data-binary x "$URL/api/series"
check "a long URL is answered, not crashed on" test "$(curl -s -o /dev/null -w '%{http_code}' "$URL/api/series?from=$(head -c 3000 /dev/zero | tr '\0' a)")" -ge 400
check "the server still runs" kill -0 "$SERVE_PID"

# ---- POST /api/check: findings, nothing stored ---------------------------
before=$(sqlite3 "$db" 'SELECT count(*) FROM message')
out=$(get --data-binary @"$TOP/tests/cases/PERM_SYMBOLIC/baole-ni-mail.eml" "$URL/api/check")
is "/api/check a mail: 200 JSON" "$(code) $(ctype)" "200 application/json"
is "/api/check a mail: its findings, as check finds them" "$(echo "$out" | jq -r '[.findings[] | "\(.rule) \(.file):\(.line) \(.fix)"] | join(",")')" \
	"$($PW check --format json "$TOP/tests/cases/PERM_SYMBOLIC/baole-ni-mail.eml" | jq -r '[.findings[] | "\(.rule) \(.file):\(.line) \(.fix)"] | join(",")')"
sed -n '/^diff --git/,$p' "$TOP/tests/cases/PERM_SYMBOLIC/baole-ni-mail.eml" >"$T/bare.diff"
out=$(get --data-binary @"$T/bare.diff" "$URL/api/check")
is "/api/check a bare diff: 200" "$(code)" 200
is "/api/check a bare diff: PERM_SYMBOLIC at its line" "$(echo "$out" | jq -r '.findings[0] | "\(.rule) \(.file):\(.line)"')" "PERM_SYMBOLIC drivers/misc/foo.c:12"
# A blank line before the diff (a paste): a bare diff still, as "check"
# reads it (pw_diff_is_bare): its lines are the diff's, not a mail body's.
{ echo; cat "$T/bare.diff"; } >"$T/bare-blank.diff"
out=$(get --data-binary @"$T/bare-blank.diff" "$URL/api/check")
is "/api/check a blank line, then a bare diff: as check reads it" \
	"$(echo "$out" | jq -c '[.findings[] | [.rule, .file, .line]]')" \
	"$("$PW" check --format json "$T/bare-blank.diff" | jq -c '[.findings[] | [.rule, .file, .line]]')"
out=$(get --data-binary @"$T/gen/arrival.mbox" "$URL/api/check")
$PW check --format json "$T/gen/arrival.mbox" >"$T/check.json" 2>/dev/null
is "/api/check an mbox: every patch" "$(echo "$out" | jq .patches)" "$(jq .summary.inputs "$T/check.json")"
is "/api/check an mbox: every finding" "$(echo "$out" | jq '.findings | length')" "$(jq '.findings | length' "$T/check.json")"
is "/api/check: nothing stored" "$(sqlite3 "$db" 'SELECT count(*) FROM message')" "$before"
bad "/api/check an empty body" 400 "the body is empty" --data-binary '' "$URL/api/check"
bad "/api/check no patch" 400 "no patch found" --data-binary $'Subject: hello\n\nno patch here\n' "$URL/api/check"
bad "/api/submit without a token configured" 403 "needs [web] token" --data-binary @"$TOP/tests/cases/PERM_SYMBOLIC/baole-ni-mail.eml" "$URL/api/submit"

# ---- a token, a body limit: /api/submit ----------------------------------
tok=0123456789abcdef-token
printf '[web]\ntoken = %s\nmax_body = 4\n' "$tok" >"$T/tok.conf"
chmod 644 "$T/tok.conf"
$PW serve --db "$db" --config "$T/tok.conf" --listen 127.0.0.1:1 >/dev/null 2>"$T/err"
is "a token in a file others can read: refused (75, a temporary failure)" "$?" 75
contains "a token in a file others can read: says so" "$(cat "$T/err")" "holds a secret"
chmod 600 "$T/tok.conf"
serve "$db" --config "$T/tok.conf" || exit 1
sub=$T/sub.eml
sed 's/^Message-Id: .*/Message-Id: <submitted.1@example.org>/' "$TOP/tests/cases/PERM_SYMBOLIC/baole-ni-mail.eml" >"$sub"
bad "/api/submit without the token" 401 "Bearer" --data-binary @"$sub" "$URL/api/submit"
bad "/api/submit with a wrong token" 401 "Bearer" -H "Authorization: Bearer ${tok}x" --data-binary @"$sub" "$URL/api/submit"
bad "/api/submit with a token of other length" 401 "Bearer" -H "Authorization: Bearer x" --data-binary @"$sub" "$URL/api/submit"
out=$(get -H "Authorization: Bearer $tok" --data-binary @"$sub" "$URL/api/submit?list=linux-submitted")
is "/api/submit with the token: 200" "$(code)" 200
is "/api/submit: stored, with its findings" "$(echo "$out" | jq -r '"\(.messages) \(.stored_patches) \(.findings > 0)"')" "1 1 true"
is "/api/submit: seen through the dashboard at once" "$(get "$URL/api/patches?list=linux-submitted" | jq length)" 1
# What patchwarden.conf(5) and docs/operating.md say of a loopback
# listen, as behind a reverse proxy: the reads need no token, /outbox
# too (the proxy guards them), the writes do.
get "$URL/outbox" >/dev/null
is "on loopback with a token set: /outbox answers without it" "$(code)" 200
get "$URL/api/senders" >/dev/null
is "on loopback: /api/senders too" "$(code)" 200
get -d "action=wrong&msgid=x@y&by=a@b.org" "$URL/api/triage" >/dev/null
is "on loopback: POST /api/triage without it: 401" "$(code)" 401
head -c 5000 /dev/zero | tr '\0' x >"$T/big"
bad "oversized body" 413 "larger than 4 KiB" --data-binary @"$T/big" "$URL/api/check"
# A body announced over the limit is refused before it is sent: the
# answer comes at once and the connection is closed.
status=$(timeout 10 python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"POST /api/check HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n")
r = b""
while True:
    d = s.recv(4096)
    if not d:
        break
    r += d
print(r.split(b" ")[1].decode(), b"connection: close" in r.lower())
' "${URL##*:}" 2>&1)
is "an announced oversized body: 413 before it is read, then closed" "$status" "413 True"
is "GET on loopback needs no token" "$(curl -s -o /dev/null -w '%{http_code}' "$URL/series")" 200

# Off loopback: refused without a token; with one, every request needs it.
$PW serve --db "$db" --listen 0.0.0.0:$(free_port) >/dev/null 2>"$T/err"
is "off loopback without a token: refused" "$?" 2
contains "off loopback without a token: says so" "$(cat "$T/err")" "is not loopback: set [web] token"
port=$(free_port)
$PW serve --db "$db" --config "$T/tok.conf" --listen 0.0.0.0:$port 2>/dev/null &
pid=$!
at_exit "kill $pid 2>/dev/null"
for i in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
is "off loopback: a page without the token is 401" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/series")" 401
is "off loopback: with the token, 200" "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $tok" "http://127.0.0.1:$port/series")" 200
kill $pid; wait $pid 2>/dev/null
bad_listen() { $PW serve --db "$db" --listen "$1" >/dev/null 2>"$T/err"; is "--listen $1: refused" "$?" 2; }
bad_listen nonsense
bad_listen 127.0.0.1:notaport
bad_listen 192.0.2.1:8080

# ---- while ingest writes --------------------------------------------------
# The dashboard reads snapshots: every answer during a long ingest is
# whole and valid, counts only grow, and the last one is the store's.
live=$T/live.db
$PW ingest -q --db "$live" "$TOP/tests/data/sample.mbox" >/dev/null
serve "$live" || exit 1
/usr/bin/python3 "$TOP/tests/gen_flood.py" --out "$T/live" --flood-size 1000 --noise 6000 --seed 9 >/dev/null
$PW ingest -q --db "$live" "$T/live/arrival.mbox" >/dev/null &
ing=$!
bad_answers=0 shrank=0 polls=0 last=0 pages_bad=0 seen=""
while kill -0 $ing 2>/dev/null; do
	curl -s -o "$T/poll.json" "$URL/api/senders?limit=500"
	n=$(pyq "$T/poll.json" 'sum(s["patches"] for s in m)')
	case $n in ''|x|*[!0-9]*) bad_answers=$((bad_answers + 1)); n=$last ;; esac
	[ "$n" -lt "$last" ] && shrank=$((shrank + 1))
	case " $seen " in *" $n "*) ;; *) seen="$seen $n" ;; esac
	last=$n
	c=$(curl -s -o /dev/null -w '%{http_code}' "$URL/")
	[ "$c" = 200 ] || pages_bad=$((pages_bad + 1))
	polls=$((polls + 1))
done
wait $ing
is "during ingest: every API answer whole and valid ($polls polls)" "$bad_answers" 0
is "during ingest: every page answered" "$pages_bad" 0
is "during ingest: counts never go back" "$shrank" 0
check "during ingest: the answers saw it grow (counts:$seen)" test "$(echo $seen | wc -w)" -gt 1
# A kept answer is given while a newer one is made: the store's count
# shows within a few tries, once the one newer answer in the making (a
# whole senders query, a fraction of a second) is made.  A minute at
# most, for a busy machine.
want=$(sqlite3 "$live" 'SELECT count(*) FROM patch')
for i in $(seq 600); do
	curl -s -o "$T/final.json" "$URL/api/senders?limit=500"
	final=$(pyq "$T/final.json" 'sum(s["patches"] for s in m)')
	[ "$final" = "$want" ] && break
	sleep 0.1
done
is "after ingest: the dashboard soon counts what the store holds" "$final" "$want"
# A page asked once only, after the store changed, is made at once.
is "after ingest: a new question is answered from the store as it is" \
	"$(curl -s "$URL/api/senders?limit=499" | jq '[.[].patches] | add')" "$want"

# ---- a control character in a subject: the feed stays XML ----------------
# "=01" in an encoded word decodes to U+0001, which XML 1.0 cannot hold,
# not even as "&#x1;": a feed with it among its newest entries would be
# unreadable to every feed reader until 50 more findings push it out.
sed -e 's/^Subject: .*/Subject: =?utf-8?q?[PATCH]_ctl=01here=0Bthere_=EF=BF=BE?=/' \
	-e 's/^List-Id: .*/List-Id: <linux-ctl.vger.kernel.org>/' \
	-e 's/^Message-Id: .*/Message-Id: <ctl@example.org>/' \
	"$TOP/tests/data/hostile.eml" >"$T/ctl.eml"
$PW ingest -q --db "$T/ctl.db" "$T/ctl.eml" >/dev/null 2>&1
serve "$T/ctl.db" || exit 1
get "$URL/list/linux-ctl.vger.kernel.org/atom" >"$T/ctl.xml"
is "a subject with control characters: the feed answers" "$(code)" 200
check "the feed parses as XML (python3), the subject's text kept around them" /usr/bin/python3 -c '
import sys, xml.etree.ElementTree as ET
ns = {"a": "http://www.w3.org/2005/Atom"}
root = ET.parse(sys.argv[1]).getroot()
t = [e.find("a:title", ns).text for e in root.findall("a:entry", ns)]
sys.exit(0 if t and all("ctl\ufffdhere\ufffdthere \ufffd" in x for x in t) else 1)' "$T/ctl.xml"
