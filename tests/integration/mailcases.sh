#!/usr/bin/env bash
# Mail reading against git, case by case: every tests/cases/mail/NAME.mbox
# is split by `git mailsplit` and read by `git mailinfo -u`, and by
# `patchwarden parse --format json`; the number of messages and each
# message's author, email, subject, commit message and patch must agree
# (tests/integration/mailinfo_cmp.py, which lists the differences that
# are argued).  NAME.expected pins what patchwarden reads, one line a
# message ("INDEX<TAB>AUTHOR<TAB>EMAIL<TAB>SUBJECT"), so that a change
# shows even where git is not the judge; UPDATE=1 rewrites it for review.
# NAME.warnings, where there is one, lists the warnings parse must give.
# No case may make GLib or GMime complain on stderr.
. "$(dirname "$0")/../lib.sh"
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
CMP="$PY $TOP/tests/integration/mailinfo_cmp.py"
dir=$TOP/tests/cases/mail

for f in "$dir"/*.mbox; do
	name=$(basename "$f" .mbox)
	rm -rf "$T/split" "$T/work"
	mkdir -p "$T/split" "$T/work"
	"$PW" parse --format json "$f" >"$T/$name.json" 2>"$T/$name.err"
	is "$name: parse exits 0" "$?" 0
	if grep -qE 'CRITICAL|WARNING \*\*' "$T/$name.err"; then
		not_ok "$name: no library complaint on stderr"
		sed 's/^/#   /' "$T/$name.err"
	else
		ok "$name: no library complaint on stderr"
	fi
	n=$(git mailsplit --mboxrd -o"$T/split" "$f")
	got=$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/$name.json")
	is "$name: as many messages as git mailsplit finds" "$got" "$n"
	$PY - "$T/$name.json" >"$T/$name.fields" <<'PY'
import json, sys
for m in json.load(open(sys.argv[1])):
    print("%d\t%s\t%s\t%s" % (m["index"], m["from_name"], m["from_addr"], m["subject_clean"]))
PY
	if [ -n "${UPDATE:-}" ]; then
		cp "$T/$name.fields" "$dir/$name.expected"
	fi
	is "$name: the fields as expected ($name.expected)" \
		"$(cat "$T/$name.fields")" "$(cat "$dir/$name.expected" 2>/dev/null)"
	if [ -f "$dir/$name.warnings" ]; then
		is "$name: the warnings of $name.warnings" \
			"$($PY -c 'import json,sys; print("\n".join(w for m in json.load(open(sys.argv[1])) for w in m["warnings"]))' "$T/$name.json")" \
			"$(cat "$dir/$name.warnings")"
	fi
	for i in $(seq 1 "$n"); do
		printf '%d\t%s %d\t%s/%04d\n' "$i" "$name" "$i" "$T/split" "$i"
	done | $CMP "$T/$name.json" "$T/work" || not_ok "$name: mailinfo_cmp.py exited with status $?"
done
