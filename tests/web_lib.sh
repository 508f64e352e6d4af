# patchwarden: helpers for the dashboard's tests (tests/integration/web*.sh).
# Source it after tests/lib.sh.

# make_store DB: a store of list traffic, a flood and a hostile patch,
# with replies queued (the outbox has rows).
make_store() {
	/usr/bin/python3 "$TOP/tests/gen_flood.py" --out "$T/gen" --flood-size 40 \
		--noise 30 --seed 5 >/dev/null
	$PW ingest -q --reply --config "$TOP/tests/data/run.conf" --db "$1" \
		"$T/gen/arrival.mbox" "$TOP/tests/data/sample.mbox" \
		"$TOP/tests/data/hostile.eml" >/dev/null
}

# serve DB [ARGS...]: starts "patchwarden serve" on a free loopback port;
# sets $URL and $SERVE_PID and stops it when the script ends.
serve() {
	local db=$1 port i
	shift
	port=$(free_port)
	$PW serve --db "$db" --listen "127.0.0.1:$port" "$@" 2>"$T/serve-$port.err" &
	SERVE_PID=$!
	at_exit "serve_stopped $SERVE_PID $T/serve-$port.err"
	URL=http://127.0.0.1:$port
	for i in $(seq 100); do
		curl -s -o /dev/null "$URL/api/stats?limit=1" && return 0
		kill -0 "$SERVE_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# serve did not start: $(cat "$T/serve-$port.err")"
	return 1
}

# serve_stopped PID LOG: stops a server (if it still runs) and checks that
# it stopped cleanly: status 0 on SIGTERM, and no sanitizer report (make
# asan) in what it wrote.
serve_stopped() {
	local rc
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	rc=$?
	if [ "$rc" -eq 0 ] && ! grep -qE 'Sanitizer|runtime error' "$2"; then
		echo "ok - serve $1 stopped cleanly"
	else
		echo "not ok - serve $1 stopped cleanly (status $rc)"
		sed 's/^/#   /' "$2" | head -n 30
	fi
}

# get CURL-ARGS...: prints the body; then "code" prints the status and
# "ctype" the content type (get runs in $(...), so they are kept in a
# file: curl writes them to its stderr, the body to its stdout).
get() {
	curl -s -g -w '%{stderr}%{http_code}\n%{content_type}\n' "$@" 2>"$T/status"
}
code() { local c; { read -r c; } <"$T/status"; printf '%s\n' "$c"; }
ctype() { local c t; { read -r c; read -r t; } <"$T/status"; printf '%s\n' "$t"; }
