#!/usr/bin/env bash
# Who gets mail: [list NAME] mail = off | maintainers | author |
# author+cc, off for a list until its section says (a new subscription
# answers no one), [list *] for the other lists and mail on no list,
# and cc_maintainers from a MAINTAINERS file.  Real linux-hwmon mail:
# the it87 patch (18 symbolic modes in drivers/hwmon/it87.c), answered
# under each mode; tests/data/MAINTAINERS.hwmon is an excerpt of the
# kernel's file.
. "$(dirname "$0")/../lib.sh"
q() { sqlite3 -batch -noheader "$1" "$2"; }

IT87=$CORPUS/lore-linux-hwmon/it87-symbolic-modes.mbox
LIST=linux-hwmon.vger.kernel.org
MAINT=$TOP/tests/data/MAINTAINERS.hwmon
ID=20260110012613.48150-3-yahoo@perenite.com

# answer NAME [CONFIG LINES...]: the it87 patch run under a config of
# max_age = 0 (the mail is months old) and LINES; sets DB to its store.
answer() {
	local name=$1; shift
	mkdir -p "$T/$name"
	{ printf '[reply]\nmax_age = 0\n'; printf '%s\n' "$@"; } >"$T/$name/pw.conf"
	DB=$T/$name/pw.db
	$PW run --config "$T/$name/pw.conf" --db "$DB" "$IT87" >"$T/$name/out" 2>"$T/$name/err"
}
# row: "state|to|recipients (space-separated)|reason" of the reply.
row() { q "$DB" "SELECT state || '|' || rcpt_to || '|' || replace(recipients, char(10), ' ') || '|' || coalesce(reason, '') FROM outbox"; }
mailed() { grep -c '^From patchwarden@' "$(dirname "$DB")/outbox.mbox" 2>/dev/null || echo 0; }

# ---- off: the default ----
answer none
is "no configuration: the reply stored, held: mail off" "$(row)" \
	"suppressed|yahoo@perenite.com|yahoo@perenite.com|mail off for list $LIST"
is "no configuration: nothing mailed" "$(mailed)" 0
is "no configuration: the findings are stored all the same" \
	"$(q "$DB" "SELECT count(*) FROM finding WHERE rule = 'PERM_SYMBOLIC'")" 18
answer nomail "[list $LIST]" "style = octal"
is "a [list] section without mail: off" "$(row)" \
	"suppressed|yahoo@perenite.com|yahoo@perenite.com|mail off for list $LIST"
$PW outbox --db "$DB" list >"$T/list.out" 2>&1
contains "outbox list says why" "$(cat "$T/list.out")" "mail off for list $LIST"
answer otheron "[list linux-foo.vger.kernel.org]" "mail = author"
is "another list's mail on: this one stays off" "$(row | cut -d'|' -f1,4)" \
	"suppressed|mail off for list $LIST"
# Released by hand, it goes to the author.
rid=$(q "$DB" "SELECT id FROM outbox")
$PW outbox --db "$DB" --config "$T/otheron/pw.conf" retry "$rid" >/dev/null 2>&1
$PW outbox --db "$DB" --config "$T/otheron/pw.conf" send >/dev/null 2>&1
is "outbox retry: a reply held by the mode goes to the author" "$(mailed)" 1

# A new subscription: its backfill is never answered, and its new mail
# is not mailed until its list's section says who gets it.
mkdir -p "$T/sub"
$PW archive "$T/sub/inbox" "$TOP/tests/data/sample.mbox" >/dev/null 2>&1
printf '[reply]\nmax_age = 0\n' >"$T/sub/pw.conf"
out=$($PW subscribe --db "$T/sub/pw.db" --config "$T/sub/pw.conf" add hw "$T/sub/inbox" --list "$LIST" 2>&1)
contains "subscribe add says the list's mail is off" "$out" \
	"replies to its mail: off until [list $LIST] mail is set"
$PW poll --db "$T/sub/pw.db" --config "$T/sub/pw.conf" >/dev/null 2>&1
$PW archive "$T/sub/inbox" "$IT87" >/dev/null 2>&1
$PW poll --db "$T/sub/pw.db" --config "$T/sub/pw.conf" >/dev/null 2>&1
is "a new subscription: its new patch's reply held, mail off" \
	"$(q "$T/sub/pw.db" "SELECT state || '|' || reason FROM outbox")" \
	"suppressed|mail off for list $LIST"

# ---- maintainers ----
answer maint "[list $LIST]" "mail = maintainers" "maintainer = Linux@Roeck-us.net"
is "maintainers: To the list's maintainer only, not the author" "$(row)" \
	"sent|linux@roeck-us.net|linux@roeck-us.net|"
check "maintainers: mailed" test "$(mailed)" = 1
body=$(tr -d '\r' <"$T/maint/outbox.mbox" | tr '\n' ' ' | tr -s ' ')
contains "maintainers: the body names the author" "$body" \
	'read the patch from benoit.masson <yahoo@perenite.com>'
contains "maintainers: and says the author was not mailed" "$body" \
	"the author was not mailed"
answer maintfile "[list $LIST]" "mail = maintainers" "maintainer = linux@roeck-us.net" \
	"maintainers = $MAINT"
is "maintainers with MAINTAINERS: its M: of it87.c too (no R:, not THE REST)" \
	"$(row)" "sent|linux@roeck-us.net|linux@roeck-us.net jdelvare@suse.com|"
answer maintonly "[list $LIST]" "mail = maintainers" "maintainers = $MAINT"
is "maintainers from the file alone: the most specific entry first" \
	"$(row)" "sent|jdelvare@suse.com|jdelvare@suse.com linux@roeck-us.net|"

# ---- author ----
answer author "[list $LIST]" "mail = author"
is "author: to the author only" "$(row)" \
	"sent|yahoo@perenite.com|yahoo@perenite.com|"
is "author: mailed" "$(mailed)" 1

# ---- author+cc: the author, Cc the list and the original's Cc ----
answer authorcc "[list $LIST]" "mail = author+cc" "address = linux-hwmon@vger.kernel.org"
is "author+cc: the list and every recipient of the patch in Cc" "$(row)" \
	"sent|yahoo@perenite.com|yahoo@perenite.com linux-hwmon@vger.kernel.org jdelvare@suse.com linux@roeck-us.net linux-kernel@vger.kernel.org|"
answer oldcc "[list $LIST]" "cc_list = true" "address = linux-hwmon@vger.kernel.org"
is "the deprecated cc_list still copies the list" "$(row)" \
	"sent|yahoo@perenite.com|yahoo@perenite.com linux-hwmon@vger.kernel.org|"

# A list whose mail is off gets no copy, whatever another list copies:
# the patch went to linux-kernel too, and that list's mail is off.
answer oldall "[list $LIST]" "cc_all = true" \
	"[list linux-kernel.vger.kernel.org]" "address = Linux-Kernel@vger.kernel.org" "mail = off"
is "the deprecated cc_all copies the recipients, not a list whose mail is off" "$(row)" \
	"sent|yahoo@perenite.com|yahoo@perenite.com jdelvare@suse.com linux@roeck-us.net linux-hwmon@vger.kernel.org|"
answer offcc "[list $LIST]" "mail = author+cc" "address = linux-hwmon@vger.kernel.org" \
	"[list linux-kernel.vger.kernel.org]" "address = linux-kernel@vger.kernel.org"
is "author+cc: nor a list without mail (off by default)" "$(row)" \
	"sent|yahoo@perenite.com|yahoo@perenite.com linux-hwmon@vger.kernel.org jdelvare@suse.com linux@roeck-us.net|"

# ---- cc_maintainers: M: and R: of the touched files ----
answer ccm "[list $LIST]" "mail = author" "maintainers = $MAINT" "cc_maintainers = true"
is "cc_maintainers: M: and R: of it87.c's entries in Cc, not THE REST" "$(row)" \
	"sent|yahoo@perenite.com|yahoo@perenite.com jdelvare@suse.com ida.reviewer@example.org linux@roeck-us.net|"
check "cc_maintainers: the Cc header names them" \
	grep -q '^Cc: jdelvare@suse.com, ida.reviewer@example.org, linux@roeck-us.net' "$T/ccm/outbox.mbox"
answer ccmoff "[list $LIST]" "maintainers = $MAINT" "cc_maintainers = true"
is "cc_maintainers with mail off: still off" "$(row | cut -d'|' -f1)" suppressed

# ---- [list *], and mail on no list ----
answer star "[list *]" "mail = author"
is "[list *]: every list without a section" "$(row | cut -d'|' -f1,2)" \
	"sent|yahoo@perenite.com"
grep -av '^List-Id:' "$IT87" >"$T/nolist.eml"
mkdir -p "$T/pipe"
printf '[reply]\nmax_age = 0\n[list %s]\nmail = author\n' "$LIST" >"$T/pipe/pw.conf"
$PW run --config "$T/pipe/pw.conf" --db "$T/pipe/pw.db" - <"$T/nolist.eml" >/dev/null 2>&1
is "mail on no list (stdin, no List-Id): off" \
	"$(q "$T/pipe/pw.db" "SELECT state || '|' || reason FROM outbox")" \
	"suppressed|mail off for mail on no list (a list's mail is off until [list NAME] mail is set)"
$PW run --list "$LIST" --config "$T/pipe/pw.conf" --db "$T/pipe/l.db" - <"$T/nolist.eml" >/dev/null 2>&1
is "run --list NAME -: the list's mode" \
	"$(q "$T/pipe/l.db" "SELECT state FROM outbox")" sent

# ---- the list of piped mail is the operator's, not the sender's ----
# Anyone can mail the bot's address: a List-Id naming a list whose mail
# is on does not file the mail under it, nor give it its mode.
filed() { q "$1" "SELECT coalesce((SELECT group_concat(l.name) FROM message_list ml JOIN list l ON l.id = ml.list), '') || '|' || (SELECT state FROM outbox)"; }
$PW run --config "$T/pipe/pw.conf" --db "$T/pipe/lid.db" - <"$IT87" >/dev/null 2>&1
is "piped, its List-Id a list whose mail is on: on no list, off" "$(filed "$T/pipe/lid.db")" "|suppressed"
# The address the MTA delivered it to names the list: [list] recipient,
# from ORIGINAL_RECIPIENT (Postfix's local(8)) or --recipient (pipe(8)'s
# ${original_recipient}, Exim's $original_local_part@$original_domain).
printf '[reply]\nmax_age = 0\n[list %s]\nmail = author\nrecipient = hwmon-bot@example.org\n' "$LIST" >"$T/pipe/rcpt.conf"
ORIGINAL_RECIPIENT=hwmon-bot@example.org $PW run --config "$T/pipe/rcpt.conf" --db "$T/pipe/env.db" - <"$T/nolist.eml" >/dev/null 2>&1
is "ORIGINAL_RECIPIENT a list's recipient: filed under it, its mode" "$(filed "$T/pipe/env.db")" "$LIST|sent"
$PW run --recipient HWMON-Bot@Example.org --config "$T/pipe/rcpt.conf" --db "$T/pipe/opt.db" - <"$T/nolist.eml" >/dev/null 2>&1
is "--recipient ADDR (any case): the same" "$(filed "$T/pipe/opt.db")" "$LIST|sent"
ORIGINAL_RECIPIENT=patchwarden@example.org $PW run --config "$T/pipe/rcpt.conf" --db "$T/pipe/bot.db" - <"$IT87" >/dev/null 2>&1
is "delivered to the bot's own address, a List-Id: on no list" "$(filed "$T/pipe/bot.db")" "|suppressed"
$PW run --recipient hwmon-bot@example.org --config "$T/pipe/rcpt.conf" --db "$T/pipe/file.db" "$IT87" >/dev/null 2>&1
is "a file the operator hands over: its List-Id still files it" "$(filed "$T/pipe/file.db")" "$LIST|sent"
out=$($PW config check --config "$T/pipe/rcpt.conf" 2>&1)
contains "config check shows [list] recipient" "$out" "recipient = hwmon-bot@example.org"
printf '[list *]\nrecipient = bot@example.org\n' >"$T/pipe/star.conf"
out=$($PW config check --config "$T/pipe/star.conf" 2>&1)
contains "[list *] recipient: refused, it names no list" "$out" "[list *] recipient: mail for it would be filed under no list"
printf '[list a]\nrecipient = bot@example.org\n[list b]\nrecipient = x@example.org; BOT@example.org\n' >"$T/pipe/two.conf"
out=$($PW config check --config "$T/pipe/two.conf" 2>&1)
contains "one recipient named by two lists: refused" "$out" "[list b] recipient: bot@example.org is [list a]'s already"

# ---- make run keeps its demo reply ----
contains "make run uses tests/data/run.conf" "$(grep -A14 '^run:' "$TOP/Makefile")" \
	"--config tests/data/run.conf"
mkdir -p "$T/demo"
$PW run --config "$TOP/tests/data/run.conf" --db "$T/demo/pw.db" \
	"$TOP/tests/data/arrival.eml" >/dev/null 2>&1
is "make run's demo: the arrival's reply in the dry-run mbox" \
	"$(grep -c '^From patchwarden@' "$T/demo/outbox.mbox")" 1

# ---- the configuration ----
cat >"$T/bad.conf" <<EOF
[list a]
mail = everyone
[list b]
mail = maintainers
[list c]
mail = author
cc_all = true
[list d]
cc_maintainers = true
digest = true
maintainer = not an address
EOF
$PW config check --config "$T/bad.conf" >"$T/check.out" 2>&1
out=$(cat "$T/check.out")
contains "config: an unknown mode" "$out" "[list a] mail = everyone: not off, maintainers, author or author+cc"
contains "config: maintainers with no one named" "$out" "[list b] mail = maintainers, but neither maintainer = ADDR nor maintainers = FILE names one"
contains "config: an old key beside mail" "$out" "[list c] cc_all is the old spelling of mail = author+cc, and mail is set"
contains "config: cc_maintainers needs a file" "$out" "[list d] cc_maintainers = true needs maintainers = FILE"
contains "config: a digest needs a maintainer" "$out" "[list d] digest = true, but no maintainer"
contains "config: a maintainer that is no address" "$out" "[list d] maintainer: 'not an address' is not a bare mail address"
printf '[list e]\ncc_list = true\n' >"$T/old.conf"
$PW config check --config "$T/old.conf" >"$T/old.out" 2>&1
is "config: the deprecated key alone is no error" "$?" 0
contains "config: named as deprecated" "$(cat "$T/old.out")" "[list e] cc_list is deprecated: write mail = author+cc"
contains "config: read as author+cc" "$(cat "$T/old.out")" "mail = author+cc"
printf '[list f]\nmaintainers = no-such-file\n' >"$T/nofile.conf"
$PW config check --config "$T/nofile.conf" >"$T/nofile.out" 2>&1
contains "config: a MAINTAINERS file that is not there" "$(cat "$T/nofile.out")" "[list f] maintainers = $T/no-such-file"

echo "# done"
