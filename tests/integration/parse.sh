#!/usr/bin/env bash
# patchwarden parse: what is read from real and hostile mail.
#
# The expectations come from the projects that wrote the mails (see
# tests/corpus/README.md): patchwork's test_parser.py and test_series.py
# for mail/, patches/ and series/, public-inbox and notmuch for charsets
# and broken mail.  Big and broken inputs are generated in $T.
. "$(dirname "$0")/../lib.sh"
# the system python starts faster than a version-manager shim
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
PWM=$CORPUS/patchwork/mail

# parse FILE...: JSON into the file $OUT, exit status into $rc, stderr
# into the file $ERR.  A file of the corpus (which does not change) is
# parsed once: asked again, its first answer is given.
declare -A parsed=()
nparse=0
parse() {
	local key=
	[ $# -eq 1 ] && [[ $1 == "$CORPUS"/* ]] && key=$1
	if [ -n "$key" ] && [ -n "${parsed[$key]:-}" ]; then
		OUT=${parsed[$key]}.json ERR=${parsed[$key]}.err rc=$(<"${parsed[$key]}.rc")
		return
	fi
	nparse=$((nparse + 1))
	OUT=$T/parse-$nparse.json ERR=$T/parse-$nparse.err
	"$PW" parse --format json "$@" >"$OUT" 2>"$ERR"
	rc=$?
	if [ -n "$key" ]; then
		echo "$rc" >"$T/parse-$nparse.rc"
		parsed[$key]=$T/parse-$nparse
	fi
}
# q EXPR: a Python expression over m, the parsed array of the last parse
# (tests/lib.sh's pyq: one Python process for the whole script)
pyq_start
q() { pyq "$OUT" "$1"; }

# ---- patchwork mail/: one message each (test_parser.py) ----
for f in 0001-git-pull-request 0002-git-pull-request-wrapped \
	 0004-git-pull-request-git+ssh 0005-git-pull-request-ssh \
	 0006-git-pull-request-http 0017-git-pull-request-git-2-14-3; do
	parse "$PWM/$f.mbox"
	is "$f: no diff, a pull URL, a message" \
		"$(q 'm[0]["diff"] is None and bool(m[0]["pull_url"]) and bool(m[0]["commit_msg"])')" yes
	is "$f: kind pull" "$(q 'm[0]["kind"]')" pull
done
parse "$PWM/0001-git-pull-request.mbox"
is "0001: pull URL" "$(q 'm[0]["pull_url"]')" \
	"git://git.kernel.org/pub/scm/linux/kernel/git/benh/powerpc.git next"
parse "$PWM/0004-git-pull-request-git+ssh.mbox"
contains "0004: git+ssh URL" "$(q 'm[0]["pull_url"]')" "git+ssh://"
parse "$PWM/0005-git-pull-request-ssh.mbox"
contains "0005: ssh URL" "$(q 'm[0]["pull_url"]')" "ssh://git.kernel.org"
parse "$PWM/0006-git-pull-request-http.mbox"
contains "0006: http URL" "$(q 'm[0]["pull_url"]')" "http://git.kernel.org"
parse "$PWM/0017-git-pull-request-git-2-14-3.mbox"
is "0017: URL ending in a space, no branch" "$(q 'm[0]["pull_url"]')" \
	"git://git.kernel.org/pub/scm/linux/kernel/git/davem/net"
parse "$PWM/0003-git-pull-request-with-diff.mbox"
is "0003: pull URL" "$(q 'm[0]["pull_url"]')" \
	"git://git.kernel.org/pub/scm/linux/kernel/git/tip/linux-2.6-tip.git x86-fixes-for-linus"
is "0003: diff start" "$(q 'm[0]["diff"].startswith("diff --git a/arch/x86/include/asm/smp.h")')" yes
parse "$PWM/0023-git-pull-request-newline-in-url.mbox"
is "0023: URL and tag on two lines" "$(q 'm[0]["pull_url"]')" \
	"https://git.kernel.org/pub/scm/linux/kernel/git/matthias.bgg/linux.git/ tags/v5.4-next-soc"
parse "$PWM/0024-git-pull-request-trailing-space.mbox"
is "0024: trailing space after the URL" "$(q 'm[0]["pull_url"]')" \
	"git://git.kernel.org/pub/scm/linux/kernel/git/nsekhar/linux-davinci.git tags/davinci-for-v5.6/soc"

parse "$PWM/0007-cvs-format-diff.mbox"
is "0007: CVS diff starts with Index" "$(q 'm[0]["diff"].startswith("Index")')" yes
is "0007: commit message found" "$(q 'len(m[0]["commit_msg"]) > 0')" yes
parse "$PWM/0008-git-rename.mbox"
is "0008: renames" "$(q 'm[0]["diff"].count("\nrename from ")') $(q 'm[0]["diff"].count("\nrename to ")')" "2 2"
parse "$PWM/0009-git-rename-with-diff.mbox"
is "0009: renames" "$(q 'm[0]["diff"].count("\nrename from ")') $(q 'm[0]["diff"].count("\nrename to ")')" "2 2"
is "0009: one -a/+b hunk" "$(q 'm[0]["diff"].count("\n-a\n+b")')" 1
is "0009: message found" "$(q 'len(m[0]["commit_msg"]) > 0')" yes
parse "$PWM/0010-invalid-charset.mbox"
is "0010: charset=none: diff and message found" \
	"$(q 'bool(m[0]["diff"]) and bool(m[0]["commit_msg"])')" yes
contains "0010: the guess is reported" "$(q 'm[0]["warnings"]')" 'charset "none"'
parse "$PWM/0011-no-newline-at-end-of-file.mbox"
is "0011: diff start" \
	"$(q 'm[0]["diff"].startswith("diff --git a/tools/testing/selftests/powerpc/Makefile")')" yes
is "0011: two no-newline markers" "$(q 'm[0]["diff"].count("\\ No newline at end of file")')" 2
is "0011: the diff ends with the marker" \
	"$(q 'm[0]["diff"].rstrip("\n").endswith("\\ No newline at end of file")')" yes
is "0011: the message does not" \
	"$(q 'm[0]["commit_msg"].rstrip("\n").endswith("\\ No newline at end of file")')" no
for f in 0012-invalid-header-char 0013-with-utf8-body 0014-with-unencoded-utf8-headers \
	 0015-with-invalid-utf8-headers 0016-no-subject 0021-git-empty-new-file \
	 0022-git-mode-change; do
	parse "$PWM/$f.mbox"
	is "$f: one patch with a message" \
		"$(q '[x["kind"] for x in m] == ["patch"] and bool(m[0]["commit_msg"])') $rc" "yes 0"
done
parse "$PWM/0013-with-utf8-body.mbox"
is "0013: base64 UTF-8 name decoded" "$(q 'm[0]["from_name"]')" "Rafał Miłecki"
parse "$PWM/0014-with-unencoded-utf8-headers.mbox"
is "0014: raw UTF-8 From name" "$(q 'm[0]["from_name"]')" "Rafał Miłecki"
parse "$PWM/0016-no-subject.mbox"
is "0016: empty subject" "$(q 'm[0]["subject"] + "|" + m[0]["subject_clean"]')" "|"
parse "$PWM/0021-git-empty-new-file.mbox"
is "0021: the list footer is not in the diff" "$(q '"mailing list" in m[0]["diff"]')" no
is "0021: new empty file kept" "$(q '"new file mode" in m[0]["diff"]')" yes
parse "$PWM/0022-git-mode-change.mbox"
is "0022: mode change kept" "$(q '"old mode" in m[0]["diff"] and "new mode" in m[0]["diff"]')" yes
parse "$PWM/0019-multipart-patch.mbox"
is "0019: diff and message, no HTML" \
	"$(q 'bool(m[0]["diff"]) and bool(m[0]["commit_msg"]) and "<div" not in m[0]["diff"] + m[0]["commit_msg"]')" yes
parse "$PWM/0020-multipart-comment.mbox"
is "0020: a comment without HTML" \
	"$(q 'm[0]["kind"] == "comment" and len(m[0]["commit_msg"]) > 0 and "<div" not in m[0]["commit_msg"]')" yes
parse "$PWM/0025-git-add-binary-file.mbox"
is "0025: binary diff start" "$(q 'm[0]["diff"].startswith("diff --git pixel.bmp pixel.bmp")')" yes
is "0025: binary literals" \
	"$(q 'all(s in m[0]["diff"] for s in ["GIT binary patch\n", "literal 142\n", "literal 0\n"])')" yes
parse "$PWM/0026-git-add-mixed-binary-text-files.mbox"
is "0026: binary then text" \
	"$(q 'm[0]["diff"].startswith("diff --git pixel.bmp pixel.bmp") and "GIT binary patch\n" in m[0]["diff"] and "diff --git quit.sh quit.sh\n" in m[0]["diff"]')" yes
parse "$PWM/0027-git-modify-binary-file.mbox"
is "0027: modified binary" \
	"$(q 'm[0]["diff"].startswith("diff --git pixel.bmp pixel.bmp") and all(s in m[0]["diff"] for s in ["GIT binary patch\n", "literal 0\n", "literal 142\n"])')" yes

# ---- patchwork patches/ wrapped in generated mails ----
hdr() {	# subject
	printf 'From: Jo Tester <jo@example.org>\nTo: list@example.org\nSubject: %s\nMessage-ID: <gen-%s@example.org>\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n' "$1" "$RANDOM"
}
for p in 0001-add-line 0002-utf-8; do
	P=$CORPUS/patchwork/patches/$p.patch
	comment="Test for attached patch"
	# inline, UTF-8 declared
	{ hdr "[PATCH] $p inline"; printf 'MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n%s\n' "$comment"; cat "$P"; } >"$T/$p-inline.eml"
	# no Content-Type at all
	{ hdr "[PATCH] $p bare"; printf '\n%s\n' "$comment"; cat "$P"; } >"$T/$p-noct.eml"
	# with a signature and with a list footer after the diff
	{ hdr "[PATCH] $p sig"; printf 'Content-Type: text/plain; charset=utf-8\n\n%s\n' "$comment"; cat "$P"; printf -- '-- \nsig\n'; } >"$T/$p-sig.eml"
	{ hdr "[PATCH] $p footer"; printf 'Content-Type: text/plain; charset=utf-8\n\n%s\n' "$comment"; cat "$P"; printf '_______________________________________________\nLinuxppc-dev mailing list\nLinuxppc-dev@lists.ozlabs.org\n'; } >"$T/$p-footer.eml"
	# comment lines that start like a diff
	{ hdr "[PATCH] $p diffwords"; printf 'Content-Type: text/plain; charset=utf-8\n\n%s\ndiff is what this is about\nDifferent words here\n' "$comment"; cat "$P"; } >"$T/$p-diffwords.eml"
	# text/x-patch and text/x-diff attachments, base64 and quoted-printable
	for sub in x-patch x-diff; do
		{ hdr "[PATCH] $p $sub"; printf 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="BB"\n\n--BB\nContent-Type: text/plain; charset=utf-8\n\n%s\n--BB\nContent-Type: text/%s; charset=utf-8; name="%s.patch"\nContent-Transfer-Encoding: base64\nContent-Disposition: attachment; filename="%s.patch"\n\n' "$comment" "$sub" "$p" "$p"; base64 "$P"; printf -- '--BB--\n'; } >"$T/$p-$sub.eml"
	done
	{ hdr "[PATCH] $p octet"; printf 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="BB"\n\n--BB\nContent-Type: text/plain\n\n%s\n--BB\nContent-Type: application/octet-stream; name="%s.diff"\nContent-Transfer-Encoding: base64\n\n' "$comment" "$p"; base64 "$P"; printf -- '--BB--\n'; } >"$T/$p-octet.eml"
	for k in inline noct sig footer x-patch x-diff octet; do
		parse "$T/$p-$k.eml"
		is "patches/$p ($k): the diff comes back exactly" \
			"$(q 'm[0]["diff"] == open("'"$P"'", encoding="utf-8").read()')" yes
		is "patches/$p ($k): the message is the text before it" "$(q 'm[0]["commit_msg"]')" "$comment"
	done
	parse "$T/$p-diffwords.eml"
	is "patches/$p: comment lines starting with diff/Different stay in the message" \
		"$(q 'm[0]["commit_msg"]')" "$comment
diff is what this is about
Different words here"
	is "patches/$p: ... and the diff is still found" "$(q 'm[0]["diff"] == open("'"$P"'", encoding="utf-8").read()')" yes
done
{ hdr "[PATCH] update"; printf 'Content-Type: text/plain\n\nThe fix.\n---\nUpdate: v2 fixes the typo\n\n'; cat "$CORPUS/patchwork/patches/0001-add-line.patch"; } >"$T/update.eml"
parse "$T/update.eml"
is "--- then an update note: the message stops at ---" "$(q 'm[0]["commit_msg"]')" "The fix."
is "--- then an update note: diff found" "$(q 'm[0]["diff"].startswith("diff --git a/meep.text")')" yes

# ---- patchwork series/: (covers, patches, comments) per file ----
while read -r f want; do
	parse "$CORPUS/patchwork/series/$f.mbox"
	is "series/$f: covers,patches,comments" \
		"$(q '",".join(str(sum(1 for x in m if x["kind"] in k)) for k in (["cover"], ["patch", "pull"], ["comment"]))')" "$want"
done <<'EOF'
base-single-patch 0,1,0
base-cover-letter 1,2,0
base-no-cover-letter 0,2,0
base-deep-threaded 1,2,0
base-out-of-order 1,2,0
base-different-versions 1,4,0
bugs-multiple-references 1,4,0
base-no-references 0,2,0
base-no-references-no-cover 1,2,0
bugs-multiple-content-types 0,1,1
revision-basic 2,4,0
revision-threaded-to-single-patch 0,2,0
revision-threaded-to-cover 2,4,0
revision-threaded-to-patch 2,4,0
revision-out-of-order 2,4,0
revision-no-cover-letter 1,4,0
revision-unlabeled 2,4,0
revision-unlabeled-noreferences 0,4,0
bugs-unnumbered 1,2,0
bugs-nocover-noversion 0,4,0
bugs-nocover 0,4,0
bugs-spamming 0,3,0
bugs-mixed-versions 0,2,0
base-incomplete 1,1,0
base-extra-patches 1,3,0
mercurial-cover-letter 1,2,0
mercurial-no-cover-letter 0,2,0
dependency-base-patch 1,2,0
EOF
parse "$CORPUS/patchwork/series/base-different-versions.mbox"
is "series: cover version from '(v3)' and the net-next prefix" \
	"$(q 'm[0]["version"], m[0]["number"], m[0]["total"], m[0]["prefixes"]')" "(3, 0, 4, 'net-next')"
parse "$CORPUS/patchwork/series/mercurial-cover-letter.mbox"
is "series: Mercurial 'n of N'" "$(q '[(x["number"], x["total"]) for x in m]')" "[(0, 2), (1, 2), (2, 2)]"
parse "$CORPUS/patchwork/series/base-no-references.mbox"
is "series: [net,v2,1/2]" "$(q '(m[0]["version"], m[0]["number"], m[0]["total"], m[0]["prefixes"])')" "(2, 1, 2, 'net')"
parse "$CORPUS/patchwork/series/base-extra-patches.mbox"
is "series: PATCH 3/2" "$(q '(m[3]["number"], m[3]["total"], m[3]["kind"])')" "(3, 2, 'patch')"

# ---- b4: the naked cover letter rule ----
parse "$CORPUS/b4/naked-cover-single.mbox"
is "b4 naked-cover-single: the root is the cover" "$(q '[x["kind"] for x in m]')" "['cover', 'patch']"
parse "$CORPUS/b4/naked-cover-bugreport.mbox"
is "b4 naked-cover-bugreport: someone else's report is not a cover" \
	"$(q '[x["kind"] for x in m]')" "['other', 'patch']"

# ---- charsets and MIME structure (public-inbox, notmuch) ----
parse "$CORPUS/public-inbox/iso-2202-jp.eml"
is "iso-2022-jp: decoded, no escape sequences left" \
	"$(q 'len(m[0]["commit_msg"]) > 10 and "\x1b" not in m[0]["commit_msg"] and "$B" not in m[0]["commit_msg"]')" yes
parse "$CORPUS/public-inbox/x-unknown-alpine.eml"
is "x-unknown charset: UTF-8 assumed" \
	"$(q 'm[0]["commit_msg"].startswith("\thttps://") and "\u2022" in m[0]["commit_msg"]')" yes
parse "$CORPUS/public-inbox/utf8.eml"
is "utf8.eml: encoded words decoded" "$(q 'm[0]["from_name"] + "|" + m[0]["subject"]')" "Eléanor|Testing for Eléanor"
parse "$CORPUS/public-inbox/plack-qp.eml"
is "quoted-printable decoded" "$(q 'm[0]["commit_msg"]')" "hi = bye"
parse "$CORPUS/public-inbox/data/message_embed.eml"
is "message/rfc822 recursed: the inner diff is found" \
	"$(q 'm[0]["diff"].startswith("diff --git a/lib/PublicInbox/MailHeader.pm")')" yes
parse "$CORPUS/notmuch/indexing/PATCH-1-2-system_data_types.7-srcfix.txt.eml"
is "multipart/signed: text/x-diff found, signature skipped, a reply is a comment" \
	"$(q 'm[0]["diff"].startswith("diff --git") and "PGP" not in m[0]["diff"] + m[0]["commit_msg"] and m[0]["kind"] == "comment"')" yes
# Outlook's "Re:" in Chinese, on a patch forwarded to add a Cc (real
# linux-usb mail): a reply, a comment, never a patch to answer.
parse "$CORPUS/lore-linux-usb/localised-reply.eml"
is "答复: [PATCH v2]: a reply, so a comment, with its markers read" \
	"$(q '(m[0]["kind"], m[0]["is_reply"], m[0]["version"], m[0]["patch_tag"])')" \
	"('comment', True, 2, True)"
parse "$CORPUS/public-inbox/data/binary.patch"
is "public-inbox binary.patch: GIT binary patch kept" \
	"$(q '"GIT binary patch" in m[0]["diff"] and "literal 1" in m[0]["diff"]')" yes
parse "$CORPUS/notmuch/broken/broken-cc.eml"
is "broken-cc: both Cc headers read" \
	"$(q '"bob@example.org" in m[0]["recipients"] and "charles@example.org" in m[0]["recipients"]')" yes
parse "$CORPUS/notmuch/broken/empty-part.eml"
is "empty-part: parsed" "$rc $(q 'len(m)')" "0 1"
parse "$CORPUS/notmuch/broken/loop/loop-12.eml" "$CORPUS/notmuch/broken/loop/loop-21.eml"
is "reference loop: both parsed, each replying to the other" \
	"$rc $(q '[x["in_reply_to"] for x in m]')" "0 ['mid-loop-21@example.org', 'mid-loop-12@example.org']"

# ---- every fuzz file parses or is rejected with a message ----
for f in "$CORPUS"/patchwork/fuzz/*.mbox; do
	b=$(basename "$f")
	parse "$f"
	if [ "$rc" -eq 0 ]; then
		is "fuzz/$b: parsed" "$(q 'len(m)')" 1
	else
		check "fuzz/$b: rejected cleanly (status 1, message names the file)" \
			test "$rc" -eq 1 -a -n "$(grep -F "$f" "$ERR")"
	fi
done

# ---- the whole corpus: valid JSON, valid UTF-8, no crash ----
# One parse of every file (a process a file spent 20 s starting up): a
# crash on any file ends it with a signal's status, and invalid UTF-8
# or broken JSON from any file spoils the whole output.  Only when it
# fails is each file parsed alone, to name the ones at fault.
all=()
while IFS= read -r -d '' f; do all+=("$f"); done < <(
	find "$CORPUS/patchwork" "$CORPUS/b4" "$CORPUS/public-inbox" "$CORPUS/notmuch" \
	-type f \( -name '*.mbox' -o -name '*.eml' -o -name '*.patch' -o -name '*.txt' \) -print0)
i=${#all[@]}
# valid FILE STATUS: STATUS is 0 or 1 and FILE is strict UTF-8 JSON
valid() {
	$PY -c 'import json, sys
json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))
sys.exit(0 if int(sys.argv[2]) <= 1 else 1)' "$1" "$2" 2>/dev/null
}
"$PW" parse --format json "${all[@]}" >"$T/all.json" 2>/dev/null
rc=$?
bad=0
if ! valid "$T/all.json" "$rc"; then
	for f in "${all[@]}"; do
		"$PW" parse --format json "$f" >"$T/one.json" 2>/dev/null
		st=$?
		valid "$T/one.json" "$st" || { bad=$((bad + 1)); echo "# $f: status $st"; }
	done
	[ "$bad" -gt 0 ] || { bad=1; echo "# the $i files in one run: status $rc"; }
fi
check "corpus: more than 400 files tried" test "$i" -gt 400
is "every corpus file: status 0 or 1 and valid UTF-8 JSON" "$bad" 0
"$PW" parse --format json "$CORPUS/notmuch/lkml" >"$T/lkml.json" 2>"$T/err"
is "notmuch lkml, a plain directory of messages: read" "$?" 0
is "notmuch lkml: one object per file" \
	"$(pyq "$T/lkml.json" 'len(m)')" \
	"$(ls "$CORPUS/notmuch/lkml" | wc -l)"
mkdir -p "$T/md/cur" "$T/md/new" "$T/md/tmp"
cp "$CORPUS"/notmuch/lkml/*.eml "$T/md/cur/"
cp "$PWM/0008-git-rename.mbox" "$T/md/new/1700000000.1.host"
parse "$T/md"
is "Maildir: every file of cur/ and new/" "$rc $(q 'len(m)')" "0 $(( $(ls "$CORPUS"/notmuch/lkml/*.eml | wc -l) + 1 ))"
OUT=$T/stdin.json
"$PW" parse --format json - <"$PWM/0009-git-rename-with-diff.mbox" >"$OUT" 2>/dev/null
is "stdin: one message" "$? $(q 'm[0]["kind"]')" "0 patch"

# ---- hostile input ----
xz -dc "$CORPUS/lore-linux-mips/first-2000.mbox.xz" | head -c 3000000 >"$T/trunc.mbox"
parse "$T/trunc.mbox"
check "truncated mbox: the messages before the cut are read" test "$(q 'len(m)')" -gt 300
is "truncated mbox: status" "$rc" 0
# mboxrd: ">From " un-escaped, ">>From " loses one ">"
printf 'From a@b Mon Jan  1 00:00:00 2024\nFrom: A <a@b>\nSubject: x\nMessage-ID: <rd@x>\n\nbody\n>From here\n>>From there\n\nFrom a@b Mon Jan  1 00:00:00 2024\nFrom: A <a@b>\nSubject: y\nMessage-ID: <rd2@x>\n\nsecond\n' >"$T/rd.mbox"
parse "$T/rd.mbox"
is "mboxrd: two messages, From lines un-escaped" "$(q '[x["commit_msg"] for x in m]')" \
	"['body\\nFrom here\\n>From there\\n', 'second\\n']"
printf 'From: A <a@b>\nSubject: nul\x00 in subject\nMessage-ID: <nul@x>\n\nbody with \x00 a NUL\n' >"$T/nul.eml"
parse "$T/nul.eml"
is "NUL bytes: parsed, no NUL in the output" "$rc $(q '"\x00" in m[0]["commit_msg"] + m[0]["subject"]')" "0 no"
printf 'From: \xff\xfe Bad \xc3 <bad@example.org>\nSubject: broken \xe9t\xe9 =?utf-8?q?=FF=FE?= end\nMessage-ID: <utf@x>\n\nbody\n' >"$T/badutf.eml"
parse "$T/badutf.eml"
is "invalid UTF-8 in headers: valid UTF-8 out" "$rc $(q 'm[0]["from_addr"]')" "0 bad@example.org"
printf 'Subject: [PATCH] no id\nFrom: A <a@b>\n\nbody\n' >"$T/noid.eml"
parse "$T/noid.eml"
is "missing Message-ID: derived from the content" \
	"$(q 'm[0]["msgid_derived"] and m[0]["msgid"].endswith("@patchwarden.invalid")')" yes
id1=$(q 'm[0]["msgid"]')
parse "$T/noid.eml"
is "missing Message-ID: the derived one is stable" "$(q 'm[0]["msgid"]')" "$id1"
# 50 MB message: a diff with a million lines
$PY - "$T/big.eml" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("From: Big <big@example.org>\nSubject: [PATCH] big\nMessage-ID: <big@x>\n\nA big one.\n---\n")
    n = 1000000
    f.write("diff --git a/big b/big\n--- a/big\n+++ b/big\n@@ -0,0 +1,%d @@\n" % n)
    line = "+" + "x" * 48 + "\n"
    f.write(line * n)
PY
parse "$T/big.eml"
is "50 MB message: one patch" "$rc $(q 'm[0]["kind"], len(m[0]["diff"]) > 49000000')" "0 ('patch', True)"
# MIME nested 100 deep, the patch at the bottom: refused unread
$PY - "$T/deep.eml" <<'PY'
import sys
depth = 100
out = ["From: Deep <d@example.org>\nSubject: [PATCH] deep\nMessage-ID: <deep@x>\nMIME-Version: 1.0\n"]
for i in range(depth):
    out.append('Content-Type: multipart/mixed; boundary="b%d"\n\n--b%d\n' % (i, i))
out.append("Content-Type: text/plain\n\ntext\n---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n")
for i in reversed(range(depth)):
    out.append("--b%d--\n" % i)
open(sys.argv[1], "w").write("".join(out))
PY
parse "$T/deep.eml"
# (bot/mail.c measures the structure before GMime reads it.)
is "MIME nested 100 deep: refused unread, status 1" "$rc" 1
contains "MIME nested 100 deep: the message and why named" "$(cat "$ERR")" \
	"deep.eml: message 1: MIME parts nested deeper than 32: refused unread"
head -c 20000 /dev/urandom >"$T/random.bin"
parse "$T/random.bin"
check "random bytes: no crash (status 0 or 1)" test "$rc" -le 1
: >"$T/empty"
parse "$T/empty"
is "empty file: no messages" "$rc $(q 'len(m)')" "0 0"
printf 'From x Mon Jan  1 00:00:00 2024\n\nFrom x Mon Jan  1 00:00:00 2024\nFrom: A <a@b>\nSubject: ok\n\nok\n' >"$T/hole.mbox"
parse "$T/hole.mbox"
is "mbox with an empty message: the rest is read, status 1" "$rc $(q 'len(m)')" "1 1"
contains "mbox with an empty message: the message number is named" "$(<"$ERR")" "hole.mbox: message 1"
parse "$T/does-not-exist" "$PWM/0008-git-rename.mbox"
is "missing file: status 2, the other file still read" "$rc $(q 'len(m)')" "2 1"
contains "missing file: named" "$(<"$ERR")" "does-not-exist"
"$PW" parse --format yaml "$PWM/0008-git-rename.mbox" >/dev/null 2>&1
is "unknown format: usage error" "$?" 2
"$PW" parse >/dev/null 2>&1
is "no file: usage error" "$?" 2
"$PW" parse "$PWM/0009-git-rename-with-diff.mbox" >"$T/text.out"
contains "text format: subject line" "$(cat "$T/text.out")" "Subject-Clean: package/rpi-userland: rename patches"
