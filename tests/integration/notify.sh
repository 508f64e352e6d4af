#!/usr/bin/env bash
# The service under Type=notify: patchwarden run (no SOURCE) tells the
# socket named by $NOTIFY_SOCKET READY=1 once the store is open (the
# store's file exists when the datagram arrives), WATCHDOG=1 at half of
# $WATCHDOG_USEC, STOPPING=1 on SIGTERM, RELOADING=1 and READY=1 around
# SIGHUP; a configuration it cannot read: exit 75, never READY=1.  The
# listener is a python3 AF_UNIX datagram socket, as systemd's own is.
. "$(dirname "$0")/../lib.sh"

SOCK=$T/notify.sock
LOG=$T/notify.log
DB=$T/store/pw.db
mkdir -p "$T/store"
cat >"$T/listen.py" <<'PY'
import os, socket, sys
sock, log, db = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sock)
with open(log + ".up", "w"):
    pass
while True:
    data = s.recv(4096).decode()
    with open(log, "a") as f:
        for line in data.split("\n"):
            # Each line, and whether the store existed when it came.
            f.write("%s store=%s\n" % (line, "yes" if os.path.exists(db) else "no"))
PY
/usr/bin/python3 "$T/listen.py" "$SOCK" "$LOG" "$DB" &
LPID=$!
at_exit "kill $LPID 2>/dev/null; wait $LPID 2>/dev/null"
for _ in $(seq 50); do [ -e "$LOG.up" ] && break; sleep 0.1; done
check "the listener is up" test -e "$LOG.up"

# wait_until SECONDS CMD...: until CMD succeeds.
wait_until() {
	local i n=$(( $1 * 10 )); shift
	for i in $(seq $n); do "$@" && return 0; sleep 0.1; done
	return 1
}
# wait_for LINE SECONDS: until the log holds LINE.
wait_for() {
	local i
	for i in $(seq $(( $2 * 10 ))); do
		grep -q "^$1" "$LOG" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=1000000 $PW run --db "$DB" 2>"$T/svc.log" &
SPID=$!
at_exit "kill $SPID 2>/dev/null"
check "READY=1 arrives within 10 s" wait_for READY=1 10
is "READY=1 came after the store was made" \
	"$(grep -m1 '^READY=1' "$LOG")" "READY=1 store=yes"
check "a STATUS line with READY=1" grep -q '^STATUS=0 subscriptions' "$LOG"
check "WATCHDOG=1 at half of WATCHDOG_USEC (1 s): within 3 s" wait_for WATCHDOG=1 3
n1=$(grep -c '^WATCHDOG=1' "$LOG")
sleep 1.6
n2=$(grep -c '^WATCHDOG=1' "$LOG")
check "WATCHDOG=1 again while idle ($n1, then $n2)" test "$n2" -ge $((n1 + 2))
kill -HUP $SPID
check "SIGHUP: RELOADING=1" wait_for RELOADING=1 5
ready_again() { [ "$(sed -n '/^RELOADING=1/,$p' "$LOG" | grep -c '^READY=1')" = 1 ]; }
check "SIGHUP: READY=1 after RELOADING=1" wait_until 5 ready_again
check "the service still runs after SIGHUP" kill -0 $SPID
kill -TERM $SPID
wait $SPID
is "SIGTERM: exit status 0" "$?" 0
check "SIGTERM: STOPPING=1" wait_for STOPPING=1 2
is "one READY=1 before the reload" \
	"$(sed '/^RELOADING=1/q' "$LOG" | grep -c '^READY=1')" 1

# Without WATCHDOG_USEC, no WATCHDOG=1.
: >"$LOG"
NOTIFY_SOCKET=$SOCK $PW run --db "$DB" 2>"$T/svc2.log" &
SPID=$!
check "again: READY=1" wait_for READY=1 10
sleep 1
kill -TERM $SPID; wait $SPID
is "no watchdog asked for: no WATCHDOG=1" "$(grep -c '^WATCHDOG=1' "$LOG")" 0

# A configuration that cannot be read: 75 (EX_TEMPFAIL), never ready.
: >"$LOG"
NOTIFY_SOCKET=$SOCK $PW run --config "$T/missing.conf" --db "$DB" 2>"$T/svc3.log"
is "a missing configuration: exit status 75" "$?" 75
sleep 0.3
is "a missing configuration: no READY=1" "$(grep -c '^READY=1' "$LOG")" 0
