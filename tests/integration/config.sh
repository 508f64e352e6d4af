#!/usr/bin/env bash
# The configuration: `patchwarden config check` prints the settings in
# effect and every problem as FILE:LINE; unknown sections and keys and
# bad values are refused by every command that reads the file (a typo in
# [smtp] no longer means a dry run for ever); secrets may live in the
# [core] credentials file, owner-only, so that the main file can be read
# by an MTA's user; and an /etc/aliases pipe running as another user
# stores its message.
. "$(dirname "$0")/../lib.sh"

cd "$T" || exit 1
one=$T/one.mbox
awk '/^From / && n++ { exit } { print }' "$TOP/tests/data/sample.mbox" >"$one"

# check FILE: runs config check on FILE (relative, so messages read
# "pw.conf:3: ..."); its output in $out, status in $rc.
cc() { out=$($PW config check --config "$1" 2>&1); rc=$?; }

# The shipped example and the defaults have no problem.
cc "$TOP/deploy/patchwarden.conf.example"
is "example: no problem (exit 0)" "$rc" 0
contains "example: the settings printed" "$out" "[list linux-mips.vger.kernel.org]"
contains "example: [core] max_findings, default 1000" "$out" "max_findings = 1000"
contains "example: [flood] detect, default true" "$out" "detect = true"
out=$($PW config check); rc=$?
is "no --config: the defaults, exit 0" "$rc" 0
contains "no --config: says so" "$out" "the built-in defaults"

# Unknown sections and keys, each with its file and line.
cat >pw.conf <<'EOF'
[core]
db = pw.db
[smpt]
url = smtp://127.0.0.1:25/
from = bot@example.org
[smtp]
tiemout = 30
EOF
cc pw.conf
is "typo'd section and key: exit 1" "$rc" 1
contains "unknown section, with its line" "$out" "pw.conf:3: unknown section [smpt]"
contains "unknown key, with its line" "$out" 'pw.conf:7: unknown key "tiemout" in [smtp]'
is "the keys of an unknown section are not listed again" \
	"$(grep -c '^pw.conf:' <<<"$out")" 2
$PW run --config pw.conf --db "$T/typo.db" - <"$one" >/dev/null 2>err
is "run refuses it: 75, the MTA keeps the mail" "$?" 75
contains "run says where" "$(cat err)" "pw.conf:3: unknown section [smpt]"
contains "run says there is more" "$(cat err)" "(and 1 more problem: patchwarden config check --config pw.conf)"
check "run stored nothing" test ! -s "$T/typo.db"
timeout 20 $PW run --config pw.conf --db "$T/typo.db" >/dev/null 2>err
is "the service (run without sources) refuses it: 75" "$?" 75
contains "the service says where" "$(cat err)" "pw.conf:3: unknown section [smpt]"
$PW ingest --config pw.conf --db "$T/typo.db" "$one" >/dev/null 2>err
check "ingest refuses it too" test "$?" -ne 0
contains "ingest says where" "$(cat err)" "pw.conf:3: unknown section [smpt]"

# Values that do not parse: FILE:LINE, every one, in the order of lines.
cat >bad.conf <<'EOF'
# comment
[core]
max_findings = -1
fetch_timeout = soon
[smtp]
starttls = maybe
timeout = 5x
[flood]
detect = perhaps
count = 1
[imap box]
timeout = 0
[list foo]
style = hex
disable = NO_SUCH_RULE
[web]
max_body = 0
EOF
cc bad.conf
is "bad values: exit 1" "$rc" 1
is "bad values: every one reported, in order" "$(grep -o '^bad.conf:[0-9]*' <<<"$out" | tr '\n' ' ')" \
	"bad.conf:3 bad.conf:4 bad.conf:6 bad.conf:7 bad.conf:9 bad.conf:10 bad.conf:12 bad.conf:14 bad.conf:15 bad.conf:17 "
contains "bad int: says what it wants" "$out" "bad.conf:3: [core] max_findings = -1: max_findings is a whole number, 0 or more"
contains "bad starttls" "$out" "bad.conf:6: [smtp] starttls = maybe: not required, try or no"
contains "bad bool" "$out" "bad.conf:9: [flood] detect = perhaps: not true or false"
contains "bad [imap NAME] timeout" "$out" "bad.conf:12: [imap box] timeout = 0: timeout is seconds, 1 to 3600"

# A key given twice: GKeyFile keeps the last, and so does the line named;
# a group given twice is one group.
printf '[smtp]\nstarttls = no\n[reply]\nmax_age = 1\n[smtp]\nstarttls = never\n' >twice.conf
cc twice.conf
contains "a group given twice: the line of the value used" "$out" "twice.conf:6: [smtp] starttls = never"
printf '[core]\nthis line is not a key\n' >syntax.conf
cc syntax.conf
is "not a key file: exit 1" "$rc" 1
contains "not a key file: the line" "$out" "syntax.conf:2: not a key file"
# GKeyFile's message quotes the line: a secret written with ":" for "="
# must not reach the terminal or the journal.
printf '[smtp]\npassword: hunter2secret\n' >leak.conf
chmod 600 leak.conf
cc leak.conf
contains "a malformed line: its number" "$out" "leak.conf:2: not a key file"
check "a malformed line: its text (a secret) is not shown" test "${out#*hunter2secret}" = "$out"
$PW ingest --config leak.conf --db "$T/leak.db" /dev/null >/dev/null 2>err
check "a malformed line: ingest does not show it either" test -z "$(grep hunter2secret err)"
printf '[smtp\nfrom = a@b.org\n' >open.conf
cc open.conf
contains "an unclosed section header: its line" "$out" "open.conf:1: not a key file"
$PW config check --config "$T/missing.conf" >/dev/null 2>err
is "a file that cannot be read: exit 2" "$?" 2
contains "a file that cannot be read: says why" "$(cat err)" "missing.conf: No such file or directory"
$PW config frobnicate >/dev/null 2>&1
is "an unknown config subcommand: exit 2" "$?" 2

# New keys are read and shown.
printf '[core]\nmax_findings = 0\n[flood]\ndetect = false\n' >new.conf
cc new.conf
is "new keys: exit 0" "$rc" 0
contains "[core] max_findings read" "$out" "max_findings = 0"
contains "[flood] detect read" "$out" "detect = false"
# 36500 days of [reply] max_age are more seconds than an int holds: the
# limit is the largest that does, never a negative one.
printf '[reply]\nmax_age = 36500\n' >age.conf
cc age.conf
is "max_age = 36500: loads (exit 0)" "$rc" 0
contains "max_age = 36500: the largest limit an int holds" "$out" "max_age = 24855"

# Secrets: never printed; in the main file only when it is owner-only.
printf '[smtp]\nfrom = bot@example.org\npassword = hunter2-secret\n[web]\ntoken = 0123456789abcdef-token\n' >sec.conf
chmod 600 sec.conf
cc sec.conf
is "owner-only file with secrets: exit 0" "$rc" 0
contains "password shown as (set)" "$out" "password = (set)"
contains "token shown as (set)" "$out" "token = (set)"
case "$out" in *hunter2*|*-token*) not_ok "the secrets themselves are never printed" ;;
*) ok "the secrets themselves are never printed" ;; esac
chmod 640 sec.conf
cc sec.conf
is "secret in a group-readable file: exit 1" "$rc" 1
contains "secret in a group-readable file: at its line" "$out" \
	"sec.conf:3: holds a secret ([smtp] password) but group or others can read it (mode 0640)"

# The credentials file: the main file may then be group-readable.
mkdir -p etc
printf '[core]\ncredentials = secrets.conf\n[smtp]\nfrom = bot@example.org\nuser = bot\n[imap]\nuser = reader\n' >etc/main.conf
printf '[smtp]\npassword = hunter2\n[imap box]\npassword = other\n[web]\ntoken = 0123456789abcdef-token\n' >etc/secrets.conf
chmod 640 etc/main.conf
chmod 600 etc/secrets.conf
cc etc/main.conf
is "credentials: a group-readable main file loads (exit 0)" "$rc" 0
contains "credentials: named relative to the main file" "$out" "credentials = etc/secrets.conf"
contains "credentials: the SMTP password read from it" "$(sed -n '/^\[smtp\]/,/^$/p' <<<"$out")" "password = (set)"
contains "credentials: [imap NAME] from it" "$(sed -n '/^\[imap box\]/,/^$/p' <<<"$out")" "password = (set)"
contains "credentials: [imap NAME] keeps [imap]'s user" "$(sed -n '/^\[imap box\]/,/^$/p' <<<"$out")" "user = reader"
chmod 640 etc/secrets.conf
cc etc/main.conf
is "credentials readable by the group: exit 1" "$rc" 1
contains "credentials readable by the group: refused, at [core] credentials" "$out" \
	"etc/main.conf:2: [core] credentials = etc/secrets.conf: refused: group or others can read it (mode 0640)"
chmod 600 etc/secrets.conf
printf '[smtp]\npassword = hunter2\nurl = smtp://127.0.0.1/\n[core]\ndb = x.db\n' >etc/secrets.conf
cc etc/main.conf
contains "credentials: a key that is not a secret, at its line there" "$out" \
	'etc/secrets.conf:3: "url" in [smtp] of a credentials file'
contains "credentials: a section that holds no secret" "$out" \
	"etc/secrets.conf:4: [core] in a credentials file"
printf '[smtp]\npassword = hunter2\n[imap]\npassword = x\n' >etc/secrets.conf
printf 'password = again\n' >>etc/main.conf
chmod 600 etc/main.conf
cc etc/main.conf
contains "credentials: a secret set in both files" "$out" \
	"etc/secrets.conf:4: [imap] password is set here and in etc/main.conf"
printf '[core]\ncredentials = nowhere.conf\n' >nocred.conf
cc nocred.conf
contains "credentials: a file that is not there, at [core] credentials" "$out" \
	"nocred.conf:2: [core] credentials = ./nowhere.conf: No such file or directory"

# The /etc/aliases pipe: the MTA runs patchwarden as its own user.  The
# configuration is root's, group-readable; the secrets and the store are
# that user's.  As root, a throwaway user (or nobody) plays the MTA.
if [ "$(id -u)" -ne 0 ]; then
	echo "# skip: the MTA pipe as another user needs root (to run as one)"
else
	user=pwtest$$
	if useradd -r -M -s /usr/sbin/nologin "$user" 2>/dev/null; then
		at_exit "userdel $user 2>/dev/null"
		group=$(id -gn "$user")
	else
		user=nobody group=nogroup
		echo "# useradd failed: the MTA is played by nobody"
	fi
	as_mta() { setpriv --reuid="$user" --regid="$group" --clear-groups "$@"; }
	chmod 711 "$T"
	mkdir -p mta/etc mta/store
	chown "$user:$group" mta/store
	chmod 755 mta
	printf '[core]\ncredentials = %s\n[smtp]\nfrom = bot@example.org\n[reply]\nmax_age = 0\n' \
		"$T/mta/store/credentials.conf" >mta/etc/pw.conf
	printf '[smtp]\npassword = hunter2\n' >mta/store/credentials.conf
	chown root:"$group" mta/etc/pw.conf
	chmod 640 mta/etc/pw.conf
	chown "$user:$group" mta/store/credentials.conf
	chmod 600 mta/store/credentials.conf
	chmod 755 mta/etc
	out=$(as_mta "$PW" config check --config "$T/mta/etc/pw.conf" 2>&1)
	is "MTA user: config check, no problem" "$?" 0
	contains "MTA user: the password read from the credentials file" "$out" "password = (set)"
	out=$(as_mta "$PW" run --config "$T/mta/etc/pw.conf" --db "$T/mta/store/pw.db" - \
		<"$one" 2>"$T/mta.err"); rc=$?
	is "MTA user: run - exits 0" "$rc" 0
	is "MTA user: the message stored" \
		"$(sqlite3 -batch -noheader "$T/mta/store/pw.db" 'SELECT count(*) FROM message')" 1
	is "MTA user: the store is the MTA user's" "$(stat -c %U "$T/mta/store/pw.db")" "$user"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/mta.err"
	# The same file holding the secret itself is refused (root's, 0640).
	printf '[core]\n[smtp]\nfrom = bot@example.org\npassword = hunter2\n' >mta/etc/leaky.conf
	chown root:"$group" mta/etc/leaky.conf
	chmod 640 mta/etc/leaky.conf
	as_mta "$PW" run --config "$T/mta/etc/leaky.conf" --db "$T/mta/store/pw.db" - \
		<"$one" >/dev/null 2>"$T/mta.err"
	is "MTA user: a readable main file with a secret: refused (75)" "$?" 75
	contains "MTA user: says why" "$(cat "$T/mta.err")" "holds a secret"
	# Credentials that are not the user's own are refused: root checking
	# the MTA's, and the MTA user given root's (which it cannot read).
	out=$("$PW" config check --config "$T/mta/etc/pw.conf" 2>&1)
	is "credentials of another user: refused (exit 1)" "$?" 1
	contains "credentials of another user: says whose they are" "$out" \
		"refused: it belongs to uid $(id -u "$user"), not to uid 0 that runs patchwarden"
	chown root:root mta/store/credentials.conf
	as_mta "$PW" run --config "$T/mta/etc/pw.conf" --db "$T/mta/store/pw.db" - \
		<"$one" >/dev/null 2>"$T/mta.err"
	is "MTA user: credentials it cannot read: refused (75)" "$?" 75
	contains "MTA user: says why" "$(cat "$T/mta.err")" "credentials.conf: Permission denied"
fi

# A [web] stale_after that a subscription outlasts between two polls:
# a warning naming it (the check stops nothing: exit 0).
mkdir -p "$T/stale/box/cur" "$T/stale/box/new" "$T/stale/box/tmp"
$PW subscribe --db "$T/stale/pw.db" add --interval 1h slow "$T/stale/box" >/dev/null
$PW subscribe --db "$T/stale/pw.db" add --interval 5m quick "$T/stale/box" >/dev/null
printf '[core]\ndb = %s\n[web]\nstale_after = 1800\n' "$T/stale/pw.db" >"$T/stale/pw.conf"
cc "$T/stale/pw.conf"
is "stale_after below an interval: a warning, exit 0" "$rc" 0
contains "stale_after below an interval: names the subscription" "$out" \
	"warning: [web] stale_after = 1800 is not above the interval of subscription slow (3600 s)"
is "stale_after below an interval: only that one" "$(grep -c '^warning: \[web\] stale_after' <<<"$out")" 1
printf '[core]\ndb = %s\n[web]\nstale_after = 7200\n' "$T/stale/pw.db" >"$T/stale/pw.conf"
cc "$T/stale/pw.conf"
is "stale_after above every interval: no warning" "$(grep -c 'stale_after = 7200 is not above' <<<"$out")" 0
