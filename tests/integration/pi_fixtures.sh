#!/usr/bin/env bash
# The fixtures of the subscription tests (tests/lib_pi.sh), on their own,
# without patchwarden: a public-inbox v2 inbox made with Debian's tools
# and served over smart HTTP, an epoch roll-over and a "d" removal, and
# Dovecot on loopback.  When these fail, subscribe_*.sh, service.sh,
# crash.sh and bench/poll.sh cannot tell anything about patchwarden.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/lib_pi.sh"

# ---- mail split from an mbox ----
n=$(split_mbox "$TOP/tests/data/sample.mbox" "$T/msgs" --unique --ids "$T/ids")
is "sample: 61 messages, each with its own Message-ID" "$n" 61
is "sample: one Message-ID each" "$(sort -u "$T/ids" | wc -l)" 61
check "sample: no From_ line is left in a message" \
	bash -c "! head -qn1 '$T'/msgs/* | grep -q '^From '"

# ---- public-inbox: the MDA and the one-process delivery make the same commits ----
pi_init mda || exit 1
pi_init fast || exit 1
start=$(date +%s.%N)
pi_deliver mda "$T"/msgs/00000[1-5]
per=$(echo "scale=2; ($(date +%s.%N) - $start) / 5" | bc)
echo "# public-inbox-mda: $per s a message"
is "mda: 5 commits in epoch 0" "$(pi_commits mda 0)" 5
is "pi_deliver.pl: 5 added" "$(pi_deliver_fast fast "$T"/msgs/00000[1-5])" 5
is "pi_deliver.pl makes the trees public-inbox-mda makes" \
	"$(git --git-dir="$PI_DIR/fast/git/0.git" log --format=%T | md5sum)" \
	"$(git --git-dir="$PI_DIR/mda/git/0.git" log --format=%T | md5sum)"
is "each commit's tree holds one blob, m" \
	"$(git --git-dir="$PI_DIR/mda/git/0.git" ls-tree --name-only HEAD)" m
is "the commit message is the Subject" \
	"$(git --git-dir="$PI_DIR/mda/git/0.git" log -1 --format=%s HEAD)" \
	"$(sed -n 's/^Subject: //p' "$T/msgs/000005" | head -n1)"
pi_init fi || exit 1
is "pi_fastimport.py: 5 commits" "$(pi_import_fast fi "$T"/msgs/00000[1-5])" 5
is "pi_fastimport.py makes the trees public-inbox-mda makes" \
	"$(git --git-dir="$PI_DIR/fi/git/0.git" log --format=%T | md5sum)" \
	"$(git --git-dir="$PI_DIR/mda/git/0.git" log --format=%T | md5sum)"
is "pi_fastimport.py: author and subject as public-inbox writes them" \
	"$(git --git-dir="$PI_DIR/fi/git/0.git" log --format='%an <%ae> %at %s' | md5sum)" \
	"$(git --git-dir="$PI_DIR/mda/git/0.git" log --format='%an <%ae> %at %s' | md5sum)"
pi_import_fast fi "$T"/msgs/00000[6-9] >/dev/null
is "pi_fastimport.py appends to the epoch's history" "$(git --git-dir="$PI_DIR/fi/git/0.git" rev-list --count HEAD),$(git --git-dir="$PI_DIR/fi/git/0.git" rev-list --max-parents=0 HEAD | wc -l)" 9,1
pi_deliver_fast fast "$T"/msgs/* >/dev/null
is "the whole sample: 61 commits (duplicates not added twice)" "$(pi_commits fast 0)" 61

# ---- served over smart HTTP ----
pi_serve || exit 1
git clone -q --mirror "$PI_URL/fast/git/0.git" "$T/clone0" 2>"$T/err"
is "git clone --mirror over public-inbox-httpd: 61 commits" \
	"$(git --git-dir="$T/clone0" rev-list --count HEAD 2>/dev/null)" 61
contains "manifest.js.gz names epoch 0" "$(curl -s "$PI_URL/fast/manifest.js.gz" | gzip -dc)" '"/fast/git/0.git"'

# ---- an epoch roll-over while the server runs ----
mkmail "$T/e1.eml" "epoch1-a@example.com" "epoch one"
mkmail "$T/e2.eml" "epoch1-b@example.com" "epoch one again"
is "pi_new_epoch: 2 added" "$(pi_new_epoch fast "$T/e1.eml" "$T/e2.eml")" 2
is "epochs 0 and 1" "$(pi_epochs fast)" "0 1"
is "epoch 1 holds the 2 new messages" "$(pi_commits fast 1)" 2
is "epoch 1 starts with a root commit" \
	"$(git --git-dir="$PI_DIR/fast/git/1.git" rev-list --max-parents=0 HEAD | wc -l)" 1
is "epoch 0 is unchanged" "$(pi_commits fast 0)" 61
contains "all.git borrows from epoch 1" "$(cat "$PI_DIR/fast/all.git/objects/info/alternates")" "git/1.git"
contains "the running server's manifest names epoch 1" \
	"$(curl -s "$PI_URL/fast/manifest.js.gz" | gzip -dc)" '"/fast/git/1.git"'
git clone -q --mirror "$PI_URL/fast/git/1.git" "$T/clone1" 2>"$T/err"
is "the new epoch clones over HTTP" "$(git --git-dir="$T/clone1" rev-list --count HEAD 2>/dev/null)" 2
is "the next epoch is not there yet (404)" \
	"$(curl -s -o /dev/null -w '%{http_code}' "$PI_URL/fast/git/2.git/info/refs?service=git-upload-pack")" 404
git clone -q --mirror "$PI_URL/fast/git/2.git" "$T/clone2" 2>/dev/null
check "cloning a missing epoch fails" test $? -ne 0

# ---- a removal: public-inbox-learn rm makes a "d" commit in the newest epoch ----
pi_remove "$T/msgs/000003"
is "public-inbox-learn rm: exit 0" "$?" 0
is "its commit's tree holds d" "$(git --git-dir="$PI_DIR/fast/git/1.git" ls-tree --name-only HEAD)" d
rm_blob=$(git --git-dir="$PI_DIR/fast/git/1.git" rev-parse HEAD:d)
contains "the d blob is the removed message" \
	"$(git --git-dir="$PI_DIR/fast/git/1.git" cat-file blob "$rm_blob" | grep -i '^message-id:')" \
	"$(sed -n 3p "$T/ids")"
git --git-dir="$T/clone1" fetch -q 2>"$T/err"
is "a mirror fetch brings the removal" "$(git --git-dir="$T/clone1" rev-list --count HEAD)" 3
pi_stop
check "public-inbox-httpd stopped" bash -c "! curl -s -o /dev/null '$PI_URL/'"

# ---- Dovecot on loopback ----
dc_start || exit 1
dc_mailbox lists
dc_append lists "$T"/msgs/00000[1-3]
is "dovecot: 3 messages appended" "$(dc_status lists MESSAGES)" 3
is "dovecot: UIDs 1 to 3" "$(curl -s -u "$DC_USER:$DC_PASS" "$DC_URL/lists" -X 'UID SEARCH ALL' | tr -d '\r')" "* SEARCH 1 2 3"
curl -s -u "$DC_USER:$DC_PASS" "$DC_URL/lists;UID=2" >"$T/uid2.eml"
contains "dovecot: UID 2 is the second message" "$(grep -i '^message-id:' "$T/uid2.eml")" "$(sed -n 2p "$T/ids")"
curl -s -u "$DC_USER:wrong" "$DC_URL/" -X 'STATUS lists (MESSAGES)' >/dev/null 2>&1
is "dovecot: a wrong password is refused (curl 67, login denied)" "$?" 67
v1=$(dc_status lists UIDVALIDITY)
dc_recreate lists
v2=$(dc_status lists UIDVALIDITY)
check "dovecot: a recreated mailbox has a new UIDVALIDITY ($v1 -> $v2)" test "$v1" != "$v2"
is "dovecot: and is empty" "$(dc_status lists MESSAGES)" 0
dc_append lists "$T"/msgs/00000[4-5]
is "dovecot: UIDs start from 1 again" "$(curl -s -u "$DC_USER:$DC_PASS" "$DC_URL/lists" -X 'UID SEARCH ALL' | tr -d '\r')" "* SEARCH 1 2"
dc_stop
curl -s -u "$DC_USER:$DC_PASS" "$DC_URL/" -X 'STATUS INBOX (MESSAGES)' >/dev/null 2>&1
check "dovecot stopped" test $? -ne 0
