# patchwarden: fixtures for the subscription tests, sourced after
# tests/lib.sh.  Real servers on loopback, made in the test's scratch
# directory $T and stopped at exit:
#
#   public-inbox v2 inboxes (Debian's public-inbox 1.9): pi_init NAME,
#     pi_deliver NAME FILE... (public-inbox-mda, one process per message),
#     pi_deliver_fast NAME FILE... (the same commits in one process,
#     tests/pi_deliver.pl), pi_new_epoch NAME FILE... (the first FILE
#     starts epoch N+1), pi_import_fast NAME FILE... (git fast-import,
#     the same trees), pi_remove FILE (public-inbox-learn rm: a "d"
#     commit), pi_serve / pi_stop (public-inbox-httpd, smart HTTP;
#     $PI_URL/NAME/ is an inbox's URL, $PI_DIR/NAME its folder).
#   Dovecot IMAP: dc_start, dc_stop, dc_mailbox BOX, dc_append BOX FILE...
#     (IMAP APPEND with curl), dc_recreate BOX (deleted and made again: a
#     new UIDVALIDITY, UIDs from 1), dc_status BOX; user $DC_USER, password
#     $DC_PASS, $DC_URL/BOX a mailbox's URL.
#   Mail: split_mbox (tests/mbox_split.py), big_mail (thousands of real
#     list messages), mkpatch (a recent patch with a finding), mkmail.
#   The store: stored, has, missing, removed, replies, replies_to,
#     mbox_replies, sub_field (subscribe list --format json); pwconf.
#   The service: svc_start, svc_signal (SIG_RC, SIG_SECS), gone,
#     wait_until, within; slow_proxy (a slow link, tests/slow_proxy.py).
#
# A Debian tool that is missing makes the script print "# skip: ..." and
# exit 0 (make deps installs public-inbox, dovecot-imapd, python3, curl).
PY=/usr/bin/python3
PI_DIR=$T/pi
PI_HOME=$T/pi/home
export PI_CONFIG=$T/pi/config
PI_PORT=
PI_URL=
mkdir -p "$PI_HOME"

# need TOOL...: skip the whole script when a Debian tool is missing.
need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 && continue
		echo "# skip: $t is not installed (make deps installs it); nothing tested"
		exit 0
	done
}

q() { sqlite3 -batch -noheader "$1" "$2"; }

# ---- public-inbox ----

# _pi CMD...: a public-inbox tool with this test's configuration and HOME.
_pi() { HOME=$PI_HOME PI_CONFIG=$PI_CONFIG "$@"; }

# pi_init NAME: an empty v2 inbox $PI_DIR/NAME, address NAME@example.org,
# indexed at level basic (no Xapian: the git epochs, msgmap and over
# are what a mirror reads).
pi_init() {
	local name=$1
	need public-inbox-init public-inbox-mda public-inbox-httpd public-inbox-learn git perl
	_pi public-inbox-init -V2 -L basic "$name" "$PI_DIR/$name" \
		"http://127.0.0.1:${PI_PORT:-1}/$name" "$name@example.org" >"$T/pi/init.log" 2>&1 || {
		echo "# public-inbox-init $name failed:"; sed 's/^/#   /' "$T/pi/init.log"; return 1; }
	# Without this every delivery fails: "spamc: command not found".
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
}

# pi_deliver NAME FILE...: each raw message through public-inbox-mda, as
# an MTA delivers list mail (about 0.4 s a message).
pi_deliver() {
	local name=$1 f; shift
	for f in "$@"; do
		ORIGINAL_RECIPIENT=$name@example.org _pi public-inbox-mda --no-precheck <"$f" \
			2>>"$T/pi/mda.log" || { echo "# public-inbox-mda $f: status $?"; tail -n 3 "$T/pi/mda.log" | sed 's/^/#   /'; return 1; }
	done
}

# pi_deliver_fast NAME FILE...: the same commits in one writer session
# (thousands of messages a second); prints how many were added.
pi_deliver_fast() { _pi perl "$TOP/tests/pi_deliver.pl" "$@"; }

# pi_new_epoch NAME FILE...: the first FILE opens the next epoch, as when
# an epoch reaches its size limit; the others follow it there.
pi_new_epoch() { _pi perl "$TOP/tests/pi_deliver.pl" --new-epoch "$@"; }

# pi_import_fast NAME FILE...: the same commits and blobs again, written
# with git fast-import into the newest epoch (tests/pi_fastimport.py:
# tens of thousands a second; msgmap and over are not updated, so later
# mail to that inbox goes this way too); prints how many.
pi_import_fast() {
	local name=$1 e; shift
	e=$(pi_epochs "$name"); e=${e##* }
	$PY "$TOP/tests/pi_fastimport.py" "$PI_DIR/$name/git/$e.git" "$name" "$name@example.org" "$@"
}

# pi_remove FILE: the message FILE removed from the inboxes that hold it
# (public-inbox-learn rm --all: a commit whose tree holds "d").
pi_remove() { _pi public-inbox-learn rm --all <"$1" 2>>"$T/pi/learn.log"; }

# pi_epochs NAME: the epochs of inbox NAME, as "0 1 ...".
pi_epochs() { (cd "$PI_DIR/$1/git" && ls -d [0-9]*.git | sed 's/\.git$//' | sort -n | tr '\n' ' ' | sed 's/ $//'); }
# pi_commits NAME EPOCH: commits in that epoch.
pi_commits() { git --git-dir="$PI_DIR/$1/git/$2.git" rev-list --count HEAD; }

# pi_serve: public-inbox-httpd on a free loopback port for every inbox
# of this test; waits until it answers.  PI_URL=http://127.0.0.1:PORT.
pi_serve() {
	local i
	need curl
	PI_PORT=$(free_port)
	PI_URL=http://127.0.0.1:$PI_PORT
	# Not through _pi: $! must be the server itself.
	HOME=$PI_HOME PI_CONFIG=$PI_CONFIG public-inbox-httpd -W0 -l "$PI_URL" \
		>"$T/pi/httpd.out" 2>"$T/pi/httpd.err" &
	echo $! >"$T/pi/httpd.pid"
	at_exit pi_stop
	for i in $(seq 100); do
		curl -s -o /dev/null "$PI_URL/" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# public-inbox-httpd did not start:"; sed 's/^/#   /' "$T/pi/httpd.err"
	return 1
}
pi_stop() {
	local pid
	[ -f "$T/pi/httpd.pid" ] || return 0
	pid=$(cat "$T/pi/httpd.pid"); rm -f "$T/pi/httpd.pid"
	kill "$pid" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	kill -9 "$pid" 2>/dev/null
}

# ---- Dovecot ----

DC_DIR=$T/dovecot
DC_USER=bot
DC_PASS=s3cret
DC_PORT=
DC_URL=

# dc_start: Dovecot's imap on a free loopback port, plain text (ssl =
# no), one passwd-file user $DC_USER:$DC_PASS whose Maildir is
# $DC_DIR/home/$DC_USER/Maildir.  As root, mail is accessed as the
# dovecot user (login processes refuse to run as root); otherwise
# everything runs as the user running the test.
dc_start() {
	local i uid gid users=
	need dovecot doveadm curl
	DC_PORT=$(free_port)
	DC_URL=imap://127.0.0.1:$DC_PORT
	mkdir -p "$DC_DIR/run" "$DC_DIR/state" "$DC_DIR/home/$DC_USER/Maildir"/{new,cur,tmp}
	echo "$DC_USER:{PLAIN}$DC_PASS" >"$DC_DIR/passwd"
	if [ "$(id -u)" = 0 ]; then
		uid=dovecot gid=dovecot
		chmod 711 "$T"		# mktemp -d made it 0700: dovecot must get through
		chown -R dovecot:dovecot "$DC_DIR/home"
	else
		uid=$(id -u) gid=$(id -g)
		users="default_login_user = $(id -un)
default_internal_user = $(id -un)
default_internal_group = $(id -gn)"
	fi
	cat >"$DC_DIR/dovecot.conf" <<EOF
protocols = imap
listen = 127.0.0.1
base_dir = $DC_DIR/run
state_dir = $DC_DIR/state
log_path = $DC_DIR/dovecot.log
info_log_path = $DC_DIR/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 1 secs
first_valid_uid = 1
first_valid_gid = 1
mail_location = maildir:~/Maildir
$users
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u $DC_DIR/passwd
}
userdb {
  driver = static
  args = uid=$uid gid=$gid home=$DC_DIR/home/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = $DC_PORT
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
EOF
	dovecot -c "$DC_DIR/dovecot.conf" 2>"$DC_DIR/start.err" || {
		echo "# dovecot did not start:"; sed 's/^/#   /' "$DC_DIR/start.err" "$DC_DIR/dovecot.log" 2>/dev/null; return 1; }
	at_exit dc_stop
	for i in $(seq 100); do
		curl -s -u "$DC_USER:$DC_PASS" "$DC_URL/" -X 'STATUS INBOX (MESSAGES)' >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "# dovecot does not answer on $DC_URL:"; tail -n 5 "$DC_DIR/dovecot.log" | sed 's/^/#   /'
	return 1
}
dc_stop() {
	local pid
	[ -f "$DC_DIR/run/master.pid" ] || return 0
	pid=$(cat "$DC_DIR/run/master.pid")
	kill "$pid" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	kill -9 "$pid" 2>/dev/null
}
_dc_adm() { doveadm -c "$DC_DIR/dovecot.conf" "$@"; }
# dc_mailbox BOX: creates mailbox BOX.
dc_mailbox() { _dc_adm mailbox create -u "$DC_USER" "$1"; }
# dc_recreate BOX: deletes BOX with its mail and makes it again: a new
# UIDVALIDITY, and UIDs from 1 again.
dc_recreate() {
	local v; v=$(dc_status "$1" UIDVALIDITY)
	_dc_adm mailbox delete -u "$DC_USER" "$1" && _dc_adm mailbox create -u "$DC_USER" "$1" || return 1
	# UIDVALIDITY is the creation time: a second later it surely differs.
	[ "$(dc_status "$1" UIDVALIDITY)" != "$v" ] || _dc_adm mailbox update -u "$DC_USER" --uid-validity $((v + 1)) "$1"
}
# dc_append BOX FILE...: each raw message into BOX by IMAP APPEND (every
# line ending made CRLF), in the order given, one after the other on one
# IMAP connection (one process for all: 300 messages in well under a
# second, where a curl each took a minute on a busy machine).
dc_append() {
	local box=$1; shift
	$PY - "$DC_PORT" "$DC_USER" "$DC_PASS" "$box" "$@" <<'PYEOF'
import socket, sys
port, user, password, box = sys.argv[1:5]
s = socket.create_connection(("127.0.0.1", int(port)), timeout=30)
rd = s.makefile("rb")
def line():
    l = rd.readline()
    if not l:
        sys.exit("dc_append: the IMAP server hung up")
    return l
def done(tag):	# reads up to the tagged answer; fails unless OK
    while True:
        l = line()
        if l.startswith(tag + b" "):
            if not l.startswith(tag + b" OK"):
                sys.exit("dc_append: " + l.decode("utf-8", "replace").strip())
            return
def quoted(t):
    return b'"' + t.encode().replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'
line()	# the greeting
s.sendall(b"a LOGIN " + quoted(user) + b" " + quoted(password) + b"\r\n")
done(b"a")
for n, f in enumerate(sys.argv[5:]):
    data = open(f, "rb").read()
    # As sed 's/\r*$/\r/': each line's trailing CRs made one.
    end = data.endswith(b"\n")
    lines = (data[:-1] if end else data).split(b"\n")
    data = b"\n".join(l.rstrip(b"\r") + b"\r" for l in lines) + (b"\n" if end else b"")
    tag = b"m%d" % n
    s.sendall(tag + b" APPEND " + quoted(box) + b" {%d}\r\n" % len(data))
    if not line().startswith(b"+"):
        sys.exit("dc_append: no continuation for " + f)
    s.sendall(data + b"\r\n")
    done(tag)
s.sendall(b"z LOGOUT\r\n")
PYEOF
}
# dc_status BOX [ITEM]: the STATUS line of BOX, or one of its numbers.
dc_status() {
	local line
	line=$(curl -sS -u "$DC_USER:$DC_PASS" "$DC_URL/" -X "STATUS $1 (MESSAGES UIDNEXT UIDVALIDITY)" | tr -d '\r')
	if [ -n "${2:-}" ]; then
		printf '%s\n' "$line" | sed -n "s/.*$2 \([0-9]*\).*/\1/p"
	else
		printf '%s\n' "$line"
	fi
}

# ---- mail ----

# split_mbox MBOX OUTDIR [options]: one file per message (mbox_split.py);
# prints the count.
split_mbox() { local m=$1 o=$2; shift 2; $PY "$TOP/tests/mbox_split.py" "$@" "$m" "$o"; }

# mkpatch FILE ID [FROM]: a patch mail dated now, Message-ID <ID>, adding a
# world-writable debugfs file (PERM_WORLD_WRITABLE): answered when it
# arrives after the backfill.  Each adds its own line (the ID in it): a
# finding is mailed to an author once, whatever patch carries it again.
mkpatch() {
	local f=$1 id=$2 from=${3:-Ada Author <ada@example.com>}
	cat >"$f" <<EOF
From: $from
To: linux-foo@vger.example.org
Subject: [PATCH] foo: add a knob ($id)
Date: $(date -R)
Message-ID: <$id>

Add a knob.

Signed-off-by: $from
---
 drivers/foo/foo.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/drivers/foo/foo.c b/drivers/foo/foo.c
index 1111111..2222222 100644
--- a/drivers/foo/foo.c
+++ b/drivers/foo/foo.c
@@ -10,3 +10,4 @@ static int foo_init(void)
 {
 	struct dentry *d = debugfs_create_dir("foo", NULL);
+	debugfs_create_file("knob-$id", 0666, d, NULL, &knob_fops);
 	return 0;
EOF
}
# mkmail FILE ID [SUBJECT]: a plain comment, dated now, Message-ID <ID>.
mkmail() {
	cat >"$1" <<EOF
From: Carl Commenter <carl@example.com>
To: linux-foo@vger.example.org
Subject: ${3:-Re: a question} ($2)
Date: $(date -R)
Message-ID: <$2>

Just a comment.
EOF
}

# ---- the store ----

# stored DB: messages in the store.
stored() { q "$1" "SELECT count(*) FROM message" 2>/dev/null || echo "?"; }
# has DB MSGID: 1 when the message is stored, else 0.
has() { q "$1" "SELECT count(*) FROM message WHERE msgid = '$2'"; }
# removed DB MSGID: 1 when the stored message is marked removed from its
# archive (table message_removed, or a column message.removed_at), 0 when
# stored and not marked, "gone" when not stored at all.
removed() {
	local id
	id=$(q "$1" "SELECT id FROM message WHERE msgid = '$2'")
	[ -n "$id" ] || { echo gone; return; }
	if [ -n "$(q "$1" "SELECT 1 FROM sqlite_master WHERE name = 'message_removed'")" ]; then
		q "$1" "SELECT count(*) FROM message_removed WHERE message = $id"
	else
		q "$1" "SELECT count(*) FROM message WHERE id = $id AND removed_at IS NOT NULL" 2>/dev/null || echo "?"
	fi
}
# replies_to DB MSGID: outbox rows answering that message, suppressed
# ones left out.
replies_to() {
	q "$1" "SELECT count(*) FROM outbox o JOIN message m ON m.id = o.message
		WHERE m.msgid = '$2' AND o.state <> 'suppressed'"
}
# replies DB: outbox rows not suppressed.
replies() { q "$1" "SELECT count(*) FROM outbox WHERE state <> 'suppressed'"; }
# mbox_replies MBOX MSGID: replies in a dry-run mbox that answer MSGID.
mbox_replies() { [ -f "$1" ] && grep -c "^In-Reply-To: <$2>" "$1" || echo 0; }

# sub_field JSON NAME FIELD: FIELD of subscription NAME in the output of
# "subscribe list --format json" (an array of objects, an object holding
# one, or one object a line).  true/false for booleans, empty for null,
# "missing" when there is no such subscription or field.
_SUB_FIELD_PY='import json
name, field = A[0], A[1]
text = open(A[2], encoding="utf-8").read()
try:
    data = json.loads(text)
except ValueError:
    data = [json.loads(l) for l in text.splitlines() if l.strip()]
if isinstance(data, dict):
    lists = [v for v in data.values() if isinstance(v, list)]
    data = lists[0] if lists else [data]
R = "missing"
for s in data:
    if isinstance(s, dict) and s.get("name") == name:
        if field in s:
            v = s[field]
            R = "" if v is None else json.dumps(v) if isinstance(v, bool) else v
        break
'
# (A script that asks often calls pyq_start first: then every sub_field,
# in a $(...) or not, is answered by the one Python process of pyq.)
sub_field() {
	local f code
	if [ -n "${_PW_PYQ_PID:-}" ] && [[ "$2$3$T" != *[\'\\$'\n']* ]]; then
		f=$T/sub_field.$BASHPID.json
		printf '%s' "$1" >"$f"
		printf '{}\n' >"$T/sub_field.none.json"
		code=${_SUB_FIELD_PY//$'\n'/\\n}
		pyq "$T/sub_field.none.json" "exec('$code', g := {'A': ['$2', '$3', '$f']}) or g['R']"
		return
	fi
	printf '%s' "$1" | $PY -c "import sys; A = sys.argv[1:] + ['/dev/stdin']
$_SUB_FIELD_PY
print(R)" "$2" "$3"
}
# missing DB IDS: how many of the Message-IDs listed in file IDS (one a
# line, without <>) the store does not hold.
missing() {
	$PY - "$1" "$2" <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
have = {r[0] for r in db.execute("SELECT msgid FROM message")}
want = [l.strip() for l in open(sys.argv[2]) if l.strip()]
print(sum(1 for w in want if w not in have))
PYEOF
}
# pwconf FILE [LINES...]: a configuration file, mode 0600: dry-run
# replies (no [smtp] url), every age answered, then LINES.
pwconf() {
	local f=$1; shift
	# Every list answers its authors: mail is off until a section
	# says so ([list *] covers the lists without one).
	{ printf '[list *]\nmail = author\n[reply]\nmax_age = 0\n'; printf '%s\n' "$@"; } >"$f"
	chmod 600 "$f"
}

# big_mail DIR COUNT IDS: COUNT real list messages (the linux-mips corpus,
# repeated with new Message-IDs by tests/bench/gen_ingest.py), one file
# each in DIR, every Message-ID once, listed in IDS.
big_mail() {
	local dir=$1 count=$2 ids=$3 copies=$(( $2 / 1900 + 1 ))
	$PY "$TOP/tests/bench/gen_ingest.py" "$CORPUS/lore-linux-mips/first-2000.mbox.xz" \
		"$T/big.mbox" "$copies" >/dev/null || return 1
	split_mbox "$T/big.mbox" "$dir" --unique --limit "$count" --ids "$ids"
	rm -f "$T/big.mbox"
}

# wait_until SECONDS CMD...: runs CMD every 0.1 s until it succeeds (0)
# or SECONDS pass (1).
wait_until() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.1
	done
}

# svc_start LOG ARGS...: "patchwarden run ARGS" in the background, its
# stderr to LOG; SVC_PID is its process id (killed at exit if still there).
svc_start() {
	local log=$1; shift
	$PW run "$@" >"$log.out" 2>"$log" &
	SVC_PID=$!
	at_exit "kill -9 $SVC_PID 2>/dev/null"
}
# svc_signal SIG [LIMIT]: sends SIG to the service and waits for it to end
# (killed after LIMIT seconds, default 10); sets SIG_RC to its exit status
# (137 when it had to be killed) and SIG_SECS to the seconds it took.
# Not in a subshell: only the shell that started it can wait for it.
svc_signal() {
	local sig=$1 limit=${2:-10} start
	start=$(date +%s.%N)
	kill -s "$sig" "$SVC_PID" 2>/dev/null
	wait_until "$limit" gone "$SVC_PID" || kill -9 "$SVC_PID" 2>/dev/null
	wait "$SVC_PID" 2>/dev/null; SIG_RC=$?
	SIG_SECS=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
}
# gone PID: the process has ended (a child not yet waited for is a
# zombie, which kill -0 still finds).
gone() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$st" ] || [ "${st%% *}" = Z ]
}
# within SECONDS ELAPSED: ELAPSED (a decimal) is under SECONDS.
within() { [ "$(echo "$2 < $1" | bc)" = 1 ]; }

# slow_proxy TO_PORT RATE: a proxy to 127.0.0.1:TO_PORT whose answers go
# out at RATE bytes a second (tests/slow_proxy.py); SLOW_PORT its port.
slow_proxy() {
	local i
	SLOW_PORT=$(free_port)
	$PY "$TOP/tests/slow_proxy.py" --port "$SLOW_PORT" --to "$1" --rate "$2" \
		>"$T/slow_proxy.out" 2>"$T/slow_proxy.err" &
	at_exit "kill $! 2>/dev/null"
	for i in $(seq 50); do
		grep -q ready "$T/slow_proxy.out" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# slow_proxy did not start:"; sed 's/^/#   /' "$T/slow_proxy.err"
	return 1
}
