#!/usr/bin/env bash
# The dashboard in a real browser: headless Chromium (Debian's chromium)
# loads the overview, a series page, the floods page and a hostile
# patch's page; each renders what it should, mail shows as text and
# runs nothing (a script that ran would have changed document.title,
# which the dumped DOM shows; a control page proves the check sees it),
# and a screenshot of each is saved.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/web_lib.sh"

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	not_ok "chromium is installed (make deps installs it)"
	exit 0
fi
# Kept after the run, to be looked at.
shots=${PW_SCREENSHOTS:-$(mktemp -d "${TMPDIR:-/tmp}/pw-screenshots.XXXXXX")}
mkdir -p "$shots"
echo "# screenshots in $shots"

# One headless Chromium for the whole script, driven over a pipe
# (tests/browser.py): a browser started per page cost most of the run.
coproc BROWSER { /usr/bin/python3 -u "$TOP/tests/browser.py" "$browser" "$T/profile" "$T/chrome.err" 2>>"$T/chrome.err"; }
b_in=${BROWSER[1]} b_out=${BROWSER[0]}
# (The driver closes Chromium when its input ends; waited for, so that
# no browser outlives the script.)
at_exit "exec $b_in>&-; wait $BROWSER_PID"
# ask WORD...: one request to the driver (see tests/browser.py); prints
# its answer.
ask() {
	local IFS=$'\t' n out
	printf '%s\n' "$*" >&"$b_in"
	LC_ALL=C read -r -t 150 n <&"$b_out" || { echo "browser: no answer"; return 1; }
	LC_ALL=C read -r -d '' -N "$n" out <&"$b_out"
	printf '%s\n' "${out%$'\n'}"
}
# load URL DOM-FILE PNG-FILE: the page's DOM (as --dump-dom prints it,
# after 3 s of virtual time for its scripts) and its 1280x1600
# screenshot.
load() {
	local r
	r=$(ask load "$1" "$2" "$3")
	[ "$r" = ok ] || echo "# $1: $r"
}
# title DOM-FILE: the document's title after the page's scripts ran.
title() { ask title "$1"; }

# The control: a page whose script runs changes the title in the DOM.
printf '<html><head><title>before</title></head><body><script>document.title="ran"</script></body></html>' >"$T/control.html"
load "file://$T/control.html" "$T/control.dom" "$T/control.png"
is "control: a script that runs shows in the dumped title" "$(title "$T/control.dom")" "ran"

db=$T/b.db
make_store "$db"
serve "$db" || exit 1

shot() {	# NAME PATH: the page's DOM in $T/NAME.dom, a screenshot in $shots
	load "$URL$2" "$T/$1.dom" "$shots/$1.png"
	is "$1: a screenshot" "$(ask png "$shots/$1.png")" yes
	is "$1: no <script> element" "$(grep -ci '<script' "$T/$1.dom")" 0
}

shot overview /
is "overview: its title" "$(title "$T/overview.dom")" "Overview - patchwarden"
check "overview: the findings chart has bars" grep -q '<svg class="chart" role="img" aria-label="findings per [a-z]*".*<rect class="bar"' "$T/overview.dom"
check "overview: the floods chart has bars" grep -q 'aria-label="floods per [a-z]*".*<rect class="bar"' "$T/overview.dom"
check "overview: the latest series" grep -q '<a href="/series/[0-9]*">' "$T/overview.dom"
check "overview: says the info findings it does not count" grep -q '[0-9][0-9]* info findings are not' "$T/overview.dom"
check "overview: a link to the unreadable messages" grep -q '<a href="/errors">errors</a></header>' "$T/overview.dom"

shot series /series/1
is "series: its title" "$(title "$T/series.dom")" "Replace numeric parameter like 0444 with macro - patchwarden"
check "series: findings marked on their lines" grep -q '<span class="add mark" id="L[0-9]*">' "$T/series.dom"
check "series: a finding's note" grep -q '<span class="note sev-warning"><b>PERM_SYMBOLIC</b>' "$T/series.dom"

shot floods /floods
check "floods: the flood's row" grep -q '<tr id="f1"><td>1</td><td>FLOOD</td>' "$T/floods.dom"
check "floods: its lists linked" grep -q 'href="/list/linux-mips.vger.kernel.org"' "$T/floods.dom"

hostile=/message/hostile%2F%26x%3D1%3F%40example.org
shot hostile "$hostile"
want="[PATCH] <script>document.title='pwned'</script> \"onmouseover=document.title='hovered' x - patchwarden"
is "hostile: the title is the subject as text; no script changed it" "$(title "$T/hostile.dom")" "$want"
check "hostile: the subject is text in the heading" grep -qF "<h1>[PATCH] &lt;script&gt;document.title='pwned'&lt;/script&gt; \"onmouseover=document.title='hovered' x</h1>" "$T/hostile.dom"
is "hostile: no onmouseover attribute" "$(grep -c ' onmouseover=' "$T/hostile.dom")" 0
is "hostile: no img element from the author's name" "$(grep -c '<img' "$T/hostile.dom")" 0
check "hostile: the added line's script is text in the diff" grep -qF "/* &lt;script&gt;document.title='diff'&lt;/script&gt; */" "$T/hostile.dom"
shot hostile-findings "/findings?list=linux-hostile.vger.kernel.org"
is "hostile findings: the title unchanged" "$(title "$T/hostile-findings.dom")" "findings - patchwarden"
is "hostile findings: no onmouseover attribute" "$(grep -c ' onmouseover=' "$T/hostile-findings.dom")" 0

# ---- every page on real list mail ---------------------------------------------
# 2,000 linux-mips messages and real linux-hwmon mail with automated
# postings (tests/corpus), a subscription and a message that is no mail.
real=$T/real.db
xz -dc "$CORPUS/lore-linux-mips/first-2000.mbox.xz" >"$T/mips.mbox"
$PW ingest -q --db "$real" "$T/mips.mbox" "$CORPUS"/lore-linux-hwmon/*.mbox >/dev/null
$PW ingest -q --db "$real" --list linux-hwmon.vger.kernel.org \
	"$CORPUS/lore-automated/automated.mbox" "$TOP/tests/hostile/not-mail.eml" >/dev/null
mkdir -p "$T/box/cur" "$T/box/new" "$T/box/tmp"
cp "$CORPUS/lore-linux-hwmon/it87-symbolic-modes.mbox" "$T/box/new/1.1.host"
$PW subscribe --db "$real" add hwmon-box "$T/box" >/dev/null
$PW poll --db "$real" >/dev/null 2>&1
rq() { sqlite3 -batch -noheader "$real" "$1"; }
serve "$real" || exit 1
shot real-overview /
# The findings chart against the store: a chart left empty (or cut
# short) while the store has findings to chart fails here.
want=$(rq "SELECT count(*) FROM finding f JOIN patch p ON p.id = f.patch JOIN message m ON m.id = p.message WHERE f.severity >= 1 AND m.date >= 631152000 AND m.date < strftime('%s', 'now') + 86400")
check "real mail: findings to chart" test "$want" -gt 0
chart() { ask chart "$1" "$2"; }	# LABEL DOM: "bars sum" of the chart's bars as the browser built them
read -r nbars sum <<<"$(chart findings "$T/real-overview.dom")"
check "real mail: the findings chart has bars" test "$nbars" -gt 0
is "real mail: its bars count every finding charted" "$sum" "$want"
# (not in a pipeline: its commands have no coprocess to ask)
read -r _ fsum <<<"$(chart floods "$T/real-overview.dom")"
is "real mail: the floods chart counts every flood" "$fsum" \
	"$(rq "SELECT count(*) FROM flood_group WHERE detected_at IS NOT NULL AND first_seen >= 631152000")"
check "real mail: the queue of patches with warnings or errors" grep -q '<span class="queue-count">[1-9]' "$T/real-overview.dom"
msg=$(rq "SELECT m.msgid FROM message m JOIN patch p ON p.message = m.id JOIN finding f ON f.patch = p.id WHERE f.severity >= 1 ORDER BY m.date DESC LIMIT 1")
shot real-patch "/message/$(jq -rn --arg s "$msg" '$s | @uri')"
check "real mail: the patch page marks a finding on its line" grep -q '<span class="add mark" id="L[0-9]*">' "$T/real-patch.dom"
shot real-series "/series/$(rq "SELECT p.series FROM patch p JOIN finding f ON f.patch = p.id WHERE f.severity >= 1 AND p.series IS NOT NULL ORDER BY p.id DESC LIMIT 1")"
check "real mail: the series page lists its patches" grep -q '<ol>' "$T/real-series.dom"
shot real-senders /senders
check "real mail: senders, automated mail apart" grep -q '<h2 id="automated">Automated mail</h2>' "$T/real-senders.dom"
shot real-floods /floods
shot real-subscriptions /subscriptions
check "real mail: the subscription's row" grep -q '<td>hwmon-box</td>' "$T/real-subscriptions.dom"
shot real-errors /errors
check "real mail: the unreadable message and why" grep -q 'not a mail message' "$T/real-errors.dom"

# ---- narrow and wide screens -------------------------------------------------
# Every page of the real store, 400 and 1,400 px wide: none scrolls
# sideways (a table folds or wraps, the navigation wraps, long words
# break; a diff scrolls inside its own box).
series=$(rq "SELECT p.series FROM patch p WHERE p.series IS NOT NULL ORDER BY p.id DESC LIMIT 1")
for page in / /attention /series /patches /findings /floods /senders /stats /outbox \
	/subscriptions /errors /decisions "/series/$series" \
	"/message/$(jq -rn --arg s "$msg" '$s | @uri')" /list/linux-hwmon.vger.kernel.org \
	/no-such-page; do
	got=$(ask fit "$URL$page")
	want=$(sed -E 's/([0-9]+):[0-9]+(\([^)]*\))?/\1:\1/g' <<<"$got")
	is "$page: no wider than the screen, 400 and 1,400 px wide" "$got" "$want"
done
check "the 404 page: titled" grep -q '<title>404 Not found - patchwarden</title>' <(curl -s "$URL/no-such-page")
page=$(curl -s "$URL/")
check "every page: a link to skip to the content" grep -q '<a class="skip" href="#main">' <<<"$page"
# Every input a person fills has a label (the triage forms included).
m=$(curl -s "$URL/message/$(jq -rn --arg s "$msg" '$s | @uri')")
check "the triage form is on the patch page" grep -q 'name="by"' <<<"$m"
for p in "$m" "$(curl -s "$URL/findings")" "$(curl -s "$URL/outbox")"; do
	is "inputs outside a label" "$(/usr/bin/python3 -c '
import html.parser, sys
class P(html.parser.HTMLParser):
    depth, bare = 0, 0
    def handle_starttag(self, t, a):
        a = dict(a)
        if t == "label": self.depth += 1
        elif t in ("input", "select", "textarea") and a.get("type") != "hidden" and not self.depth: self.bare += 1
    def handle_endtag(self, t):
        if t == "label": self.depth -= 1
p = P(); p.feed(sys.stdin.read()); print(p.bare)' <<<"$p")" 0
done
