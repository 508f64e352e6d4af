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

# chrome ARGS...: one headless run with a profile of its own.
chrome() {
	timeout 90 "$browser" --headless --no-sandbox --disable-gpu \
		--no-first-run --disable-extensions --hide-scrollbars \
		--user-data-dir="$T/profile" --virtual-time-budget=3000 "$@" 2>>"$T/chrome.err"
}
dom() { chrome --dump-dom "$1"; }
# title DOM-FILE: the document's title after the page's scripts ran.
title() { /usr/bin/python3 -c '
import sys, html.parser
class P(html.parser.HTMLParser):
    # The document title: the first <title>, in <head> (SVG has its own).
    t, inside, done = "", False, False
    def handle_starttag(self, tag, a): self.inside = tag == "title" and not self.done
    def handle_endtag(self, tag):
        self.done = self.done or self.inside
        self.inside = False
    def handle_data(self, d):
        if self.inside: self.t += d
p = P(); p.feed(open(sys.argv[1]).read()); print(p.t)' "$1"; }

# The control: a page whose script runs changes the title in the DOM.
printf '<html><head><title>before</title></head><body><script>document.title="ran"</script></body></html>' >"$T/control.html"
dom "file://$T/control.html" >"$T/control.dom"
is "control: a script that runs shows in the dumped title" "$(title "$T/control.dom")" "ran"

db=$T/b.db
make_store "$db"
serve "$db" || exit 1

shot() {	# NAME PATH: the page's DOM in $T/NAME.dom, a screenshot in $shots
	dom "$URL$2" >"$T/$1.dom"
	chrome --window-size=1280,1600 --screenshot="$shots/$1.png" "$URL$2" >/dev/null
	check "$1: a screenshot" /usr/bin/python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
w, h = struct.unpack(">II", b[16:24])
sys.exit(0 if b[:8] == b"\x89PNG\r\n\x1a\n" and (w, h) == (1280, 1600) and len(b) > 20000 else 1)' "$shots/$1.png"
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
chart() {	# LABEL DOM: "bars sum" of the chart's bars as the browser built them
	/usr/bin/python3 -c '
import sys, html.parser
class P(html.parser.HTMLParser):
    inside, bars, total = False, 0, 0
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "svg" and a.get("aria-label", "").startswith(sys.argv[1] + " per "): self.inside = True
        elif tag == "rect" and self.inside and a.get("class") == "bar" and float(a.get("height", 0)) > 0:
            self.bars += 1; self.total += int(a["data-n"])
    def handle_endtag(self, tag):
        if tag == "svg": self.inside = False
p = P(); p.feed(open(sys.argv[2]).read()); print(p.bars, p.total)' "$1" "$2"; }
read -r nbars sum <<<"$(chart findings "$T/real-overview.dom")"
check "real mail: the findings chart has bars" test "$nbars" -gt 0
is "real mail: its bars count every finding charted" "$sum" "$want"
is "real mail: the floods chart counts every flood" "$(chart floods "$T/real-overview.dom" | cut -d' ' -f2)" \
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
