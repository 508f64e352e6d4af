#!/usr/bin/env bash
# patchwarden under valgrind's memcheck, on its main paths: ingest of
# the corpus mail, check of a patch, reply composition ("run" with
# replies to an mbox, on mail with findings), a poll of a local
# public-inbox archive ("archive" makes it), and a dashboard request
# ("serve" on loopback, pages and API asked with curl, then SIGTERM).
# Each run must end without a memory error and without a definite or
# indirect leak (--error-exitcode=99); tests/valgrind.supp holds the
# one-time allocations of the libraries that are not ours.  Skipped
# (one "# skip" line) when valgrind is missing.
. "$(dirname "$0")/../lib.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "# skip: valgrind is not installed (make deps installs it); nothing tested"
	exit 0
fi
# A sanitized build cannot run under valgrind.
if nm "$PW" 2>/dev/null | grep -q '__asan_init'; then
	echo "# skip: $PW is built with a sanitizer; valgrind needs the normal build"
	exit 0
fi

VG=(valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect
	--error-exitcode=99 --suppressions="$TOP/tests/valgrind.supp"
	--num-callers=30)

# vg NAME WANT CMD...: CMD under memcheck (its log $T/vg-NAME.log) must
# exit WANT: no memory error, no leak, and the command's own status.
vg() {
	local name=$1 want=$2 rc
	shift 2
	"${VG[@]}" --log-file="$T/vg-$name.log" "$@" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	if [ "$rc" = "$want" ] && ! grep -q 'ERROR SUMMARY: [1-9]' "$T/vg-$name.log"; then
		ok "$name: clean under memcheck (status $rc)"
	else
		not_ok "$name: clean under memcheck (status $rc, want $want)"
		sed 's/^/#   /' "$T/vg-$name.log" | head -n 60
		sed 's/^/#   /' "$T/$name.err" | head -n 10
	fi
}

cd "$T" || exit 1
# The sample's list answers its maintainers, read from a MAINTAINERS
# file too, and gets a digest: the paths of mail policy under memcheck.
cat >"$T/pw.conf" <<CONF
[reply]
max_age = 0
dry_run_mbox = $T/replies.mbox
[list *]
mail = author
[list linux-mips.vger.kernel.org]
mail = maintainers
maintainer = maint@example.org
maintainers = $TOP/tests/data/MAINTAINERS.hwmon
cc_maintainers = true
digest = true
CONF
chmod 600 "$T/pw.conf"

# ---- ingest of the corpus mail (one of which is not mail: status 1) ----
vg ingest 1 "$PW" ingest -q --db "$T/ingest.db" "$CORPUS/patchwork/mail" \
	"$CORPUS/public-inbox" "$TOP/tests/data/sample.mbox"
contains "ingest: stored the corpus, the one that is not mail refused" \
	"$(cat "$T/ingest.out")" "messages=104 patches=34 covers=2 comments=46 pulls=4 others=11 duplicates=7 errors=1"

# ---- check of a patch (findings: status 1) ----
vg check 1 "$PW" check "$TOP/tests/cases/PERM_WORLD_WRITABLE/w4-one-finding.patch"
contains "check: the finding" "$(cat "$T/check.out")" "PERM_WORLD_WRITABLE"

# ---- reply composition: run on mail with findings, replies to an mbox ----
vg run 0 "$PW" run --config "$T/pw.conf" --db "$T/run.db" "$TOP/tests/data/sample.mbox"
check "run: replies composed" test -s "$T/replies.mbox"
vg digest 0 "$PW" digest --config "$T/pw.conf" --db "$T/run.db"
contains "digest: composed and written" "$(cat "$T/digest.out")" "queued=1"

# ---- a poll of a local public-inbox archive ----
"$PW" archive "$T/inbox" "$TOP/tests/data/sample.mbox" >/dev/null 2>"$T/err"
is "archive: made" "$?" 0
"$PW" subscribe add --db "$T/poll.db" local "$T/inbox" >/dev/null 2>"$T/err"
is "subscribe add: the archive" "$?" 0
vg poll 0 "$PW" poll --db "$T/poll.db" --config "$T/pw.conf"
is "poll: every message stored" \
	"$(sqlite3 -batch -noheader "$T/poll.db" 'SELECT count(*) FROM message')" 61

# ---- a dashboard request ----
port=$(free_port)
"${VG[@]}" --log-file="$T/vg-serve.log" "$PW" serve --db "$T/ingest.db" \
	--listen "127.0.0.1:$port" >/dev/null 2>"$T/serve.err" &
pid=$!
at_exit "kill $pid 2>/dev/null"
up=
for _ in $(seq 300); do
	curl -s -o /dev/null "http://127.0.0.1:$port/api/stats?limit=1" && { up=1; break; }
	sleep 0.1
done
check "serve: answers under memcheck" test -n "$up"
codes=
for p in / /series /patches /findings "/api/findings?severity=warning" \
	"/api/series?limit=5" /senders /subscriptions /api/subscriptions /nowhere; do
	codes="$codes $(curl -s -o /dev/null -w '%{http_code}' --max-time 60 "http://127.0.0.1:$port$p")"
done
is "serve: the pages and the API" "$codes" " 200 200 200 200 200 200 200 200 200 404"
kill -TERM "$pid"
wait "$pid"
rc=$?
if [ "$rc" = 0 ] && ! grep -q 'ERROR SUMMARY: [1-9]' "$T/vg-serve.log"; then
	ok "serve: clean under memcheck after SIGTERM (status $rc)"
else
	not_ok "serve: clean under memcheck after SIGTERM (status $rc)"
	sed 's/^/#   /' "$T/vg-serve.log" | head -n 60
fi
