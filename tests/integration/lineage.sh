#!/usr/bin/env bash
# A patch's life on real linux-hwmon mail (tests/corpus/lore-linux-hwmon/
# lineage-*.mbox): the versions of a series linked into a lineage (the
# same subject, an identical copy, b4's change-id), superseded versions
# and copies leaving the attention queue, a list maintainer's "Applied"
# (and "the patch did not apply") deciding, another list's maintainer's
# not, a maintainer's git tree (commits made with git am) marking
# patches applied, and "query series --series ID" showing the versions.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/web_lib.sh"

H=$TOP/tests/corpus/lore-linux-hwmon
LIST=linux-hwmon.vger.kernel.org
q() { sqlite3 -batch -noheader "$1" "$2"; }
# state MSGID: the state of the patch of that message ("new" without one).
state() {
	q "$DB" "SELECT coalesce(ps.state, 'new') FROM message m JOIN patch p
		ON p.message = m.id LEFT JOIN patch_state ps ON ps.patch = p.id
		WHERE m.msgid = '$1'"
}
series_of() { q "$DB" "SELECT p.series FROM message m JOIN patch p ON p.message = m.id WHERE m.msgid = '$1'"; }

cat >"$T/pw.conf" <<EOF
[list $LIST]
maintainer = linux@roeck-us.net
EOF
DB=$T/pw.db
for f in nct7802 q54sj108a2 change-id max20860a other-tree; do
	$PW ingest -q -c "$T/pw.conf" --db "$DB" --list $LIST "$H/lineage-$f.mbox" >/dev/null
done

# nct7802: three identical copies of one fix (each with its broken hunk
# header, PATCH_MALFORMED), Guenter's "Applied" to the third, his
# "Actually, no, the patch did not apply" to his own reply, then the v2
# that fixes it and his "Applied" to that.
C1=dc61a61e-5c34-1216-b841-347f65221de3@kontron.com
C2=4d855a2a-c186-d439-d771-db7181da5f94@kontron.com
C3=e6e6c227-6789-9c82-3561-530095f46e02@kontron.com
V2=DU0PR10MB62526435ADBC6A85243B90E08002A@DU0PR10MB6252.EURPRD10.PROD.OUTLOOK.COM
is "nct7802: the copies superseded, the v2 applied" \
	"$(state $C1) $(state $C2) $(state $C3) $(state $V2)" \
	"superseded superseded superseded applied"
is "nct7802: applied by Guenter's reply" \
	"$(q "$DB" "SELECT m.from_addr FROM patch_state ps JOIN message m ON m.id = ps.by_message
		JOIN patch p ON p.id = ps.patch JOIN message pm ON pm.id = p.message
		WHERE pm.msgid = '$V2'")" "linux@roeck-us.net"
is "nct7802: one lineage, the copy linked as such" \
	"$(q "$DB" "SELECT count(DISTINCT l.root) || ' ' || group_concat(l.how, ',')
		FROM lineage l WHERE l.series IN ($(series_of $C1), $(series_of $C2),
		$(series_of $C3), $(series_of $V2))")" "1 first,subject,copy,subject"

# Q54SJ108A2: v8 and v9 make the driver executable (EXEC_SOURCE_FILE),
# v10 fixes it and is applied ("Applied."), v11 follows ("I already
# applied the driver": no decision).
Q8=20201109065636.4092-1-max701@126.com
Q9=20201124025236.1627-1-max701@126.com
Q10=20201202025900.1842-1-max701@126.com
Q11=20201209072750.1251-1-max701@126.com
is "Q54SJ108A2: v8 and v9 superseded, v10 applied, v11 new" \
	"$(state $Q8) $(state $Q9) $(state $Q10) $(state $Q11)" \
	"superseded superseded applied new"
out=$($PW query series --db "$DB" --series "$(series_of $Q9)")
is "query series --series: every version of the lineage" "$(printf '%s\n' "$out" | wc -l)" 4
contains "query series --series: v10 fixed v9's finding" "$out" \
	"v10 applied applied=1 subject after $(series_of $Q9) max701@126.com 2020-12-02T02:59:00Z findings=0 fixed=1 kept=0 added=0"
json=$($PW query series --db "$DB" --series "$(series_of $Q11)" --format json)
contains "query series --series in JSON: linked_by and supersedes" "$json" \
	"\"linked_by\" : \"subject\",
    \"supersedes\" : $(series_of $Q10),"

# The dashboard: the series page lists the versions, the API returns them.
serve "$DB"
page=$(curl -s "$URL/series/$(series_of $Q8)")
contains "the series page: its versions" "$page" "<h2>Versions</h2>"
contains "the series page: v10 applied, what it fixed" "$page" \
	"<td>v10</td><td>applied</td><td>subject</td>"
api=$(curl -s "$URL/api/series?series=$(series_of $Q10)")
is "/api/series?series=ID: the lineage's versions" \
	"$(printf '%s' "$api" | /usr/bin/python3 -c 'import json,sys; print(" ".join("v%d:%s:%d" % (r["version"], r["state"], r["fixed"]) for r in json.load(sys.stdin)))')" \
	"v8:superseded:0 v9:superseded:0 v10:applied:1 v11:new:0"

# b4's change-id links versions whose subjects changed.
CH2=20260326-add-support-for-q50sn12072-and-q54sn120a1-v2-2-77bc77eedc76@inventec.com
CH3=20260402-add-support-for-q50sn12072-and-q54sn120a1-v3-2-67a5184e93b8@inventec.com
is "change-id: v2 and v3 linked by it" \
	"$(q "$DB" "SELECT group_concat(how) FROM lineage WHERE series IN ($(series_of $CH2), $(series_of $CH3))")" \
	"change-id,change-id"
is "change-id: v2 superseded by v3" "$(state $CH2) $(state $CH3)" "superseded new"

# The queue: live work only.  Every patch here with warnings or errors
# was superseded or applied, so none is left (tests/integration/
# attention.sh has live versions beside superseded ones).
is "the queue: what main kept (v8, v9, the three copies) is gone" \
	"$(q "$DB" "SELECT count(*) FROM attention")" 0
check "the queue: those patches are there, with warnings or errors" \
	test "$(q "$DB" "SELECT count(DISTINCT patch) FROM finding WHERE severity >= 1")" -gt 0
contains "db check: the queue's recount honours the states" \
	"$($PW db check --db "$DB" 2>&1)" "kept totals: as the rows count them"
# A decision brings a patch back: the reply taken back, the copy is
# live again until something else says so.
q "$DB" "DELETE FROM patch_state WHERE patch = (SELECT p.id FROM message m JOIN patch p ON p.message = m.id WHERE m.msgid = '$C1')"
is "a state taken away: the patch is back in the queue" \
	"$(q "$DB" "SELECT count(*) FROM attention a JOIN patch p ON p.id = a.patch JOIN message m ON m.id = p.message WHERE m.msgid = '$C1'")" 1
contains "db check agrees" "$($PW db check --db "$DB" 2>&1)" "kept totals: as the rows count them"

# Who decides: David Miller's "Applied, thank you." is a netdev
# maintainer's word, not a linux-hwmon maintainer's.
TJA=20190524142228.4003-1-marex@denx.de
is "another list's maintainer's Applied: no decision" "$(state $TJA)" new
cat >"$T/net.conf" <<EOF
[list $LIST]
maintainer = davem@davemloft.net
EOF
$PW ingest -q -c "$T/net.conf" --db "$T/net.db" --list $LIST "$H/lineage-other-tree.mbox" >/dev/null
is "the same reply from the list's maintainer: applied" \
	"$(DB=$T/net.db state $TJA)" applied

# A maintainer's tree: MAX20860A v1 and v4 (one lineage by subject), v4's
# new dt-binding applied with git am; the branch polled by path.
M1=20260601184516.919488-2-sanman.pradhan@hpe.com
M2=20260601184516.919488-3-sanman.pradhan@hpe.com
is "MAX20860A: v4 supersedes v1" "$(state 20260527045409.9092-2-sanman.pradhan@hpe.com) $(state $M1)" "superseded new"
git init -q -b master "$T/tree"
GIT="git -C $T/tree -c user.name=Maintainer -c user.email=m@example.org"
$GIT commit -q --allow-empty -m "the tree before"
mkdir "$T/split"
git mailsplit --mboxrd -o"$T/split" "$H/lineage-max20860a.mbox" >/dev/null
$GIT am -q "$(grep -l '^Subject: \[PATCH v4 1/2\]' "$T/split"/*)"
cat >>"$T/pw.conf" <<EOF
tree = $T/tree, master
EOF
out=$($PW poll -c "$T/pw.conf" --db "$DB" 2>&1)
is "poll reads the tree with no subscription" "$out" "tree $LIST: commits=2 applied=1"
is "the tree's commit applied v4 1/2, not 2/2" "$(state $M1) $(state $M2)" "applied new"
head=$(git -C "$T/tree" rev-parse HEAD)
is "the patch is applied by that commit" \
	"$(q "$DB" "SELECT ps.by_commit FROM patch_state ps JOIN patch p ON p.id = ps.patch JOIN message m ON m.id = p.message WHERE m.msgid = '$M1'")" "$head"
is "the store's patch-id is git patch-id --stable's" \
	"$(q "$DB" "SELECT k.pid FROM patch_pid k JOIN patch p ON p.id = k.patch JOIN message m ON m.id = p.message WHERE m.msgid = '$M1'") $head" \
	"$(git -C "$T/tree" show HEAD | git patch-id --stable)"
is "the tree's cursor is stored" \
	"$(q "$DB" "SELECT value FROM cursor WHERE source = 'tree:$LIST'")" "$head"
is "a second poll reads nothing again" "$($PW poll -c "$T/pw.conf" --db "$DB" 2>&1)" \
	"tree $LIST: commits=0 applied=0"
$GIT commit -q --allow-empty -m "a later commit"
is "a later commit only" "$($PW poll -c "$T/pw.conf" --db "$DB" --format json 2>&1)" \
	"{\"tree\":\"$LIST\",\"commits\":1,\"applied\":0}"
# The same tree by URL, served by git daemon on loopback: mirrored into
# [core] mirrors, then read.
git -C "$T/tree" config daemon.uploadpack true
port=$(free_port)
git daemon --base-path="$T" --export-all --listen=127.0.0.1 --port="$port" \
	--reuseaddr 2>"$T/daemon.err" &
daemon=$!
at_exit "kill $daemon 2>/dev/null"
for i in $(seq 50); do
	git ls-remote "git://127.0.0.1:$port/tree" >/dev/null 2>&1 && break
	sleep 0.1
done
printf '[list %s]\ntree = git://127.0.0.1:%s/tree, master\n' $LIST "$port" >"$T/url.conf"
$PW ingest -q -c "$T/url.conf" --db "$T/url.db" --list $LIST "$H/lineage-max20860a.mbox" >/dev/null
is "a tree by URL: fetched and read" "$($PW poll -c "$T/url.conf" --db "$T/url.db" 2>&1)" \
	"tree $LIST: commits=3 applied=1"
check "a tree by URL: its bare mirror under [core] mirrors" \
	test -f "$T/url.db-mirrors/tree-$LIST.git/HEAD"
is "a tree by URL: the patch applied" "$(DB=$T/url.db state $M1)" applied
echo "[list $LIST]
tree = $T/none, master" >"$T/bad.conf"
$PW poll -c "$T/bad.conf" --db "$DB" >/dev/null 2>"$T/err"
is "a tree that cannot be read: poll fails" "$?" 1
contains "and says why" "$(cat "$T/err")" "tree $LIST: $T/none"

# The configuration: a tree is shown with its branch (master unless
# given); a URL with a password is refused.
contains "config check shows the tree" "$($PW config check -c "$T/pw.conf" 2>&1)" "tree = $T/tree, master"
printf '[list %s]\ntree = https://u:secret@git.example.org/t.git, next\n' $LIST >"$T/pw3.conf"
contains "a tree URL with a password: a problem" "$($PW config check -c "$T/pw3.conf" 2>&1)" \
	"tree: a URL with a password"
