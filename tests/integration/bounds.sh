#!/usr/bin/env bash
# patchwarden's bounds: input that never ends (/dev/zero as a file and
# piped) stops at the message size limit with a clear error, in bounded
# memory; check and query --format json write each row as it ends, so
# their peak memory is that of text output (bot/printer.c), measured
# with /usr/bin/time; check's usage errors exit 2.
. "$(dirname "$0")/../lib.sh"

q() { sqlite3 -batch -noheader "$1" "$2"; }
CONF=$TOP/tests/data/run.conf
STOPPED="message larger than 64 MiB: the rest of the input is not read"
# rss FILE: the peak resident set in KiB that /usr/bin/time -f %M wrote
# as the last line of FILE.
rss() { tail -n 1 "$1"; }
# mem_check DESC CMD...: a check of peak memory, skipped under the
# sanitizers, whose quarantine and shadow memory are not the program's.
sanitized=
nm "$PW" 2>/dev/null | grep -q '__asan_init' && sanitized=1
mem_check() {
	if [ -n "$sanitized" ]; then
		echo "# skip: $1 (a sanitizer build: its peak memory is ASan's)"
		return
	fi
	check "$@"
}

# ---- endless input ----
timeout 60 /usr/bin/time -f %M $PW ingest --config "$CONF" --db "$T/z1.db" /dev/zero >/dev/null 2>"$T/err"
rc=$?
check "ingest /dev/zero ends (status $rc)" test "$rc" -ne 124
contains "ingest /dev/zero: says it stopped" "$(cat "$T/err")" "/dev/zero: message 1: $STOPPED"
mem_check "ingest /dev/zero: under 200 MB ($(rss "$T/err") KiB)" test "$(rss "$T/err")" -lt 200000
is "ingest /dev/zero: one ingest error stored" "$(q "$T/z1.db" 'SELECT count(*) FROM ingest_error')" 1

timeout 60 /usr/bin/time -f %M $PW check /dev/zero >/dev/null 2>"$T/err"
rc=$?
is "check /dev/zero: ends, an input error" "$rc" 2
contains "check /dev/zero: says it stopped" "$(cat "$T/err")" "/dev/zero: message 1: $STOPPED"
mem_check "check /dev/zero: under 200 MB ($(rss "$T/err") KiB)" test "$(rss "$T/err")" -lt 200000

for cmd in ingest run; do
	mkdir -p "$T/$cmd"
	timeout 60 bash -c "head -c 200000000 /dev/zero | /usr/bin/time -f %M $PW $cmd --config '$CONF' --db '$T/$cmd/pw.db' -" >/dev/null 2>"$T/err"
	rc=$?
	check "cat /dev/zero | $cmd -: ends (status $rc)" test "$rc" -ne 124
	contains "cat /dev/zero | $cmd -: says it stopped" "$(cat "$T/err")" "-: message 1: $STOPPED"
	mem_check "cat /dev/zero | $cmd -: under 200 MB ($(rss "$T/err") KiB)" test "$(rss "$T/err")" -lt 200000
done
# Without end: the pipe's writer is stopped by the reader going away.
timeout 60 bash -c "cat /dev/zero | $PW ingest --config '$CONF' --db '$T/z2.db' -" >/dev/null 2>"$T/err"
rc=$?
check "cat /dev/zero (endless) | ingest -: ends (status $rc)" test "$rc" -ne 124
contains "cat /dev/zero (endless) | ingest -: says it stopped" "$(cat "$T/err")" "$STOPPED"

# ---- check --format json streams ----
# 30,000 added lines, each a world-writable chmod: one finding each.
N=30000
/usr/bin/python3 - "$T/many.patch" "$N" <<'EOF'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    f.write("diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -0,0 +1,%d @@\n" % n)
    f.write('+\tchmod("f", 0777);\n' * n)
EOF
nocap=()
$PW check --help 2>&1 | grep -q -- --max-findings && nocap=(--max-findings 0)
for f in text json sarif; do
	/usr/bin/time -f %M -o "$T/rss.$f" $PW check "${nocap[@]}" --format $f "$T/many.patch" >"$T/out.$f" 2>/dev/null
done
is "check: $N findings in text" "$(grep -c PERM_WORLD_WRITABLE "$T/out.text")" "$N"
check "check --format json: $N findings, valid JSON" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["findings"]) == int(sys.argv[2]) and d["summary"]["warning"] == int(sys.argv[2])
' "$T/out.json" "$N"
check "check --format sarif: $N results, valid JSON" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["runs"][0]["results"]) == int(sys.argv[2])
' "$T/out.sarif" "$N"
# Built whole, the JSON took five times the memory of text; written as
# it goes, about the same (the findings themselves).
text_kb=$(rss "$T/rss.text")
for f in json sarif; do
	kb=$(rss "$T/rss.$f")
	mem_check "check --format $f: peak memory as text's ($kb KiB vs $text_kb)" \
		test "$kb" -lt $((text_kb * 13 / 10 + 4000))
done

# ---- query --format json streams ----
# 40 patches of 1,000 findings each.
/usr/bin/python3 - "$T/many.mbox" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(40):
        f.write("From x Mon Jan  1 00:00:00 2024\nFrom: A <a@example.org>\n"
                "Subject: [PATCH] many %d\nMessage-ID: <many%d@example.org>\n"
                "Date: Mon, 1 Jan 2024 00:00:00 +0000\n\nmany\n---\n" % (i, i))
        f.write("diff --git a/f%d.c b/f%d.c\n--- a/f%d.c\n+++ b/f%d.c\n@@ -0,0 +1,1000 @@\n" % (i, i, i, i))
        f.write('+\tchmod("f", 0777);\n' * 1000)
        f.write("\n")
EOF
$PW ingest -q --config "$CONF" --db "$T/q.db" "$T/many.mbox" >/dev/null 2>&1
rows=$(q "$T/q.db" "SELECT count(*) FROM finding")
check "query: the store holds many findings ($rows)" test "$rows" -ge 40000
for f in text csv json; do
	/usr/bin/time -f %M -o "$T/qrss.$f" $PW query findings --limit 0 --format $f \
		--config "$CONF" --db "$T/q.db" >"$T/q.$f" 2>/dev/null
done
check "query findings --format json: every row, valid JSON" /usr/bin/python3 -c '
import json, sys
assert len(json.load(open(sys.argv[1]))) == int(sys.argv[2])
' "$T/q.json" "$rows"
text_kb=$(rss "$T/qrss.text")
kb=$(rss "$T/qrss.json")
mem_check "query --format json: peak memory as text's ($kb KiB vs $text_kb)" \
	test "$kb" -lt $((text_kb * 13 / 10 + 4000))
# Rows go from the store to the printer one by one (db/query.h each):
# all 40,000 rows take about the memory of a page of ten.
/usr/bin/time -f %M -o "$T/qrss.page" $PW query findings --limit 10 --format json \
	--config "$CONF" --db "$T/q.db" >/dev/null 2>&1
page_kb=$(rss "$T/qrss.page")
for f in text json; do
	kb=$(rss "$T/qrss.$f")
	mem_check "query --format $f: all rows in the memory of a page ($kb KiB vs $page_kb)" \
		test "$kb" -lt $((page_kb + 5000))
done

# ---- check's usage ----
$PW check "$T/no-such.patch" >/dev/null 2>"$T/err"
is "check of a missing file: status 2" "$?" 2
contains "check of a missing file: named" "$(cat "$T/err")" "$T/no-such.patch"
# --threads, where check has it: 1..256, else a usage error.
if $PW check --help 2>&1 | grep -q -- --threads; then
	for n in 0 257 -1 x; do
		$PW check --threads "$n" "$T/many.patch" >/dev/null 2>&1
		is "check --threads $n: usage error" "$?" 2
	done
	for n in 1 256; do
		$PW check --threads "$n" --format json "$T/many.patch" >/dev/null 2>&1
		is "check --threads $n: accepted (findings: 1)" "$?" 1
	done
fi

# ---- settings that bound what ingest stores ----
# [core] max_findings: the first N findings of a patch are stored, the
# rest counted in one FINDINGS_CAPPED finding.
m=$T/capped.eml
{ printf 'Message-ID: <capped@example.org>\nDate: Thu, 03 Dec 2026 10:00:00 +0000\n'
  cat "$TOP/tests/cases/FINDINGS_CAPPED/capped.patch"; } >"$m"
printf '[core]\nmax_findings = 2\n' >"$T/cap.conf"
$PW ingest -q --config "$T/cap.conf" --db "$T/cap.db" "$m" >/dev/null 2>&1
is "[core] max_findings = 2: ingest exits 0" "$?" 0
is "[core] max_findings = 2: two findings and the summary stored" \
	"$(q "$T/cap.db" "SELECT group_concat(rule, ',') FROM (SELECT rule FROM finding ORDER BY id)")" \
	"PERM_WORLD_WRITABLE,PERM_WORLD_WRITABLE,FINDINGS_CAPPED"
$PW ingest -q --db "$T/nocap.db" "$m" >/dev/null 2>&1
is "default cap (1000): all four findings stored" \
	"$(q "$T/nocap.db" "SELECT count(*), sum(rule = 'FINDINGS_CAPPED') FROM finding")" "4|0"

# [flood] detect = false: no fingerprint keys are kept (the setting
# that replaced the PW_FLOOD_DISABLE environment variable).
printf '[flood]\ndetect = false\n' >"$T/noflood.conf"
$PW ingest -q --config "$T/noflood.conf" --db "$T/nf.db" "$m" >/dev/null 2>&1
is "[flood] detect = false: no fingerprint keys" "$(q "$T/nf.db" 'SELECT count(*) FROM flood_key')" 0
check "[flood] detect = true (default): fingerprint keys kept" \
	test "$(q "$T/cap.db" 'SELECT count(*) FROM flood_key')" -gt 0

# ---- a hostile MIME structure through the MTA pipe ----
# 2,000 nested multiparts, then 2 MiB of lines of "--": GMime compared
# each line with every boundary it was inside, 3.4 s of CPU (150 s for
# 60 MB); measured first now (bot/mail.c) and refused unread.  Bound:
# under 0.5 s of CPU and 100 MB, an error line naming the message.
/usr/bin/python3 "$TOP/tests/hostile/mime-bomb.gen" >"$T/bomb.eml"
/usr/bin/time -f '%U %S %M' -o "$T/bomb.time" $PW ingest --config "$CONF" --db "$T/bomb.db" - <"$T/bomb.eml" >/dev/null 2>"$T/err"
is "hostile MIME | ingest -: exit 0 (an MTA never bounces)" "$?" 0
contains "hostile MIME | ingest -: the message and why named" "$(cat "$T/err")" \
	"-: message 1: MIME parts nested deeper than 32: refused unread"
read -r u s kb <"$T/bomb.time"
check "hostile MIME | ingest -: under 0.5 s of CPU (${u}+${s} s)" \
	awk -v u="$u" -v s="$s" 'BEGIN { exit !(u + s < 0.5) }'
mem_check "hostile MIME | ingest -: under 100 MB ($kb KiB)" test "$kb" -lt 100000
is "hostile MIME | ingest -: one ingest error row" \
	"$(q "$T/bomb.db" "SELECT count(*) FROM ingest_error WHERE error LIKE 'MIME parts nested%'")" 1
# The deepest structure still read, 32 levels over 10 MiB of "--"
# lines, with the patch at the bottom: linear work, under 3 s of CPU.
/usr/bin/python3 - "$T/deep32.eml" <<'PY'
import sys
depth = 32
out = [b"From: Deep <d@example.org>\nSubject: [PATCH] deep\nMessage-ID: <deep32@x>\n"
       b"MIME-Version: 1.0\n"]
for i in range(depth):
    out.append(b'Content-Type: multipart/mixed; boundary="b%d"\n\n--b%d\n' % (i, i))
out.append(b"Content-Type: text/plain\n\ntext\n---\ndiff --git a/f.c b/f.c\n--- a/f.c\n"
           b"+++ b/f.c\n@@ -1 +1 @@\n-a\n+\tchmod(\"f\", 0777);\n")
out.append(b"--\n" * ((10 << 20) // 3))
open(sys.argv[1], "wb").write(b"".join(out))
PY
/usr/bin/time -f '%U %S %M' -o "$T/deep32.time" $PW ingest --config "$CONF" --db "$T/deep32.db" - <"$T/deep32.eml" >/dev/null 2>"$T/err"
read -r u s kb <"$T/deep32.time"
is "32 levels deep | ingest -: the patch stored" "$(q "$T/deep32.db" "SELECT kind FROM message")" patch
check "32 levels deep over 10 MiB | ingest -: under 3 s of CPU (${u}+${s} s)" \
	awk -v u="$u" -v s="$s" 'BEGIN { exit !(u + s < 3) }'

# ---- a public-inbox blob larger than a message may be ----
# An archive built by git itself: a patch, a blob of 100 MiB (zeros:
# small packed), a patch after it.  Its size is read from the object's
# header, so it is never inflated (it was, whole, before its size was
# looked at: 1.2 GiB took 1.25 GB).  Bound: the poll under 80 MB, an
# error row naming the blob, both patches stored.
R=$T/big.git
git init -q --bare "$R"
export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@example.org GIT_COMMITTER_NAME=a \
	GIT_COMMITTER_EMAIL=a@example.org GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' \
	GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
head=
commit_m() {	# commit_m BLOB: a commit whose tree holds m = BLOB
	local tree
	tree=$(printf '100644 blob %s\tm\n' "$1" | git --git-dir="$R" mktree)
	head=$(git --git-dir="$R" commit-tree "$tree" ${head:+-p "$head"} -m m)
}
patch_mail() {
	printf 'From: A <a@example.org>\nSubject: [PATCH] %s\nMessage-ID: <%s@example.org>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\nx\n---\ndiff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+\tchmod("f", 0777);\n' "$1" "$1"
}
commit_m "$(patch_mail before | git --git-dir="$R" hash-object -w --stdin)"
huge=$(head -c $((100 << 20)) /dev/zero | git --git-dir="$R" hash-object -w --stdin)
commit_m "$huge"
commit_m "$(patch_mail after | git --git-dir="$R" hash-object -w --stdin)"
git --git-dir="$R" update-ref "$(git --git-dir="$R" symbolic-ref HEAD)" "$head"
$PW subscribe add --db "$T/big.db" big "$R" >/dev/null 2>&1
/usr/bin/time -f %M -o "$T/big.rss" $PW poll --db "$T/big.db" --config "$CONF" >/dev/null 2>"$T/err"
is "huge blob: the poll goes on (exit 1: one message not read)" "$?" 1
contains "huge blob: the error line names the blob" "$(cat "$T/err")" "blob $huge: a message of 104857600 bytes"
kb=$(rss "$T/big.rss")
mem_check "huge blob: the poll under 80 MB ($kb KiB; the blob is 100 MiB)" test "$kb" -lt 80000
is "huge blob: an error row naming the blob" \
	"$(q "$T/big.db" "SELECT count(*) FROM ingest_error WHERE error = 'blob $huge: a message of 104857600 bytes, over the limit of 67108864: not read'")" 1
is "huge blob: the patches before and after it stored" \
	"$(q "$T/big.db" "SELECT group_concat(msgid, ' ') FROM (SELECT msgid FROM message ORDER BY msgid)")" \
	"after@example.org before@example.org"

# ---- [core] message_cpu: the CPU one message may take through ingest ----
# A patch of 40 MiB of added lines takes more than a second to read
# and check (measured first; skipped where it does not): with
# message_cpu = 1 it is refused with an error row, and the work after
# the stage that crossed the budget (fingerprints, flood detection,
# storing) is not done.
/usr/bin/python3 - "$T/slow.eml" <<'PY'
import sys
n = (40 << 20) // 40
with open(sys.argv[1], "w") as f:
    f.write("From: A <a@example.org>\nSubject: [PATCH] slow\nMessage-ID: <slow@x>\n\n"
            "x\n---\ndiff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -0,0 +1,%d @@\n" % n)
    f.write('+\tchmod("f", 0777); /* xxxxxxxxxx */\n' * n)
PY
printf '[core]\nmessage_cpu = 1\n' >"$T/cpu1.conf"
/usr/bin/time -f '%U %S' -o "$T/slow.time" $PW ingest --config "$T/cpu1.conf" --db "$T/slow.db" - <"$T/slow.eml" >/dev/null 2>"$T/err"
rc=$?
read -r u s <"$T/slow.time"
if grep -q 'message_cpu' "$T/err" || awk -v u="$u" -v s="$s" 'BEGIN { exit !(u + s >= 1.2) }'; then
	is "[core] message_cpu = 1 | ingest -: exit 0" "$rc" 0
	contains "[core] message_cpu = 1: the message and why named" "$(cat "$T/err")" \
		"-: message 1: took more than 1 s of CPU to read ([core] message_cpu): refused"
	is "[core] message_cpu = 1: refused, not stored" \
		"$(q "$T/slow.db" "SELECT (SELECT count(*) FROM message), (SELECT count(*) FROM ingest_error)")" "0|1"
else
	echo "# skip: [core] message_cpu: the 40 MiB patch took only ${u}+${s} s here"
fi
