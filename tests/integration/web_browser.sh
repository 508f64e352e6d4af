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
check "overview: the findings chart has bars" grep -q '<svg role="img" aria-label="findings per day and rule".*<rect' "$T/overview.dom"
check "overview: the floods chart has bars" grep -q 'aria-label="floods per week".*<rect' "$T/overview.dom"
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
