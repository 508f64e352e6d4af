#!/usr/bin/env bash
# patchwarden parse against git mailinfo: author, email, subject, commit
# message and patch must agree, on every patchwork mail/ file and on the
# first N patches (MAILINFO_N, default 400) of the lore linux-mips mbox.
# The differences that are argued, not bugs, are listed (and handled) in
# mailinfo_cmp.py; each one shows up as a "# skip" line in the output.
# git's outputs are kept in tests/expected/mailinfo-*.jsonl.xz (and the
# count git mailsplit makes of the lore mbox in mailinfo-lore.count), so
# that the suite runs git once (patch-ids of patchwarden's diffs), not
# per message; UPDATE=1 runs git mailsplit and git mailinfo again and
# rewrites them (MAILINFO_N then sets how many lore patches they hold).
. "$(dirname "$0")/../lib.sh"
# the system python starts faster than a version-manager shim
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
N=${MAILINFO_N:-400}
CMP="$PY $TOP/tests/integration/mailinfo_cmp.py"
EXP=$TOP/tests/expected/mailinfo

# patchwork mail/: one message per file
mkdir -p "$T/pw"
: >"$T/pw.tsv"
for f in "$CORPUS"/patchwork/mail/*.mbox; do
	b=$(basename "$f" .mbox)
	if "$PW" parse --format json "$f" >"$T/pw/$b.json" 2>"$T/pw/$b.err"; then
		printf '1\t%s\t%s\t%s\n' "$b" "$f" "$T/pw/$b.json" >>"$T/pw.tsv"
	else
		not_ok "parse $b exited with an error: $(cat "$T/pw/$b.err")"
	fi
done
$CMP - "$T" "$EXP-patchwork.jsonl.xz" <"$T/pw.tsv" || not_ok "mailinfo_cmp.py (corpus) exited with status $?"

# lore: the same mbox framed by git mailsplit and by patchwarden
xz -dc "$CORPUS/lore-linux-mips/first-2000.mbox.xz" >"$T/lore.mbox"
mkdir -p "$T/split"
if [ -n "${UPDATE:-}" ]; then
	git mailsplit --mboxrd -o"$T/split" "$T/lore.mbox" >"$EXP-lore.count"
else
	N=$(( $(xz -dc "$EXP-lore.jsonl.xz" | wc -l) ))
fi
n=$(cat "$EXP-lore.count")
"$PW" parse --format json "$T/lore.mbox" >"$T/lore.json"
is "lore: mailsplit and parse see the same number of messages" \
	"$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/lore.json")" "$n"
$PY - "$T/lore.json" "$T/split" "$N" >"$T/lore.tsv" <<'PY'
import json, sys
js, split, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
got = 0
for m in json.load(open(js)):
    if m["kind"] != "patch" or got >= n:
        continue
    got += 1
    print("%d\tlore %d\t%s/%04d" % (m["index"], m["index"], split, m["index"]))
PY
is "lore: $N patches to compare" "$(wc -l <"$T/lore.tsv")" "$N"
$CMP "$T/lore.json" "$T" "$EXP-lore.jsonl.xz" <"$T/lore.tsv" || not_ok "mailinfo_cmp.py (lore) exited with status $?"
