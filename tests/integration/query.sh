#!/usr/bin/env bash
# patchwarden query and outbox list as CSV (bot/printer.c): the same
# rows and values as JSON, RFC 4180 quoting of what comes from mail;
# and reads of a damaged store told as errors, never as "none found".
. "$(dirname "$0")/../lib.sh"

py=/usr/bin/python3
q() { sqlite3 -batch -noheader "$1" "$2"; }
db=$T/q.db

# A patch whose subject has a comma and quotes, a small flood, the
# sample list traffic, replies queued for all of it.
sed 's/^Subject: .*/Subject: [PATCH] =?utf-8?q?perms=2C_=22octal=22_please?=/' \
	"$TOP/tests/cases/PERM_SYMBOLIC/baole-ni-mail.eml" >"$T/q.eml"
$py "$TOP/tests/gen_flood.py" --out "$T/g" --flood-size 40 --noise 30 --seed 5 >/dev/null
$PW ingest -q --reply --config "$TOP/tests/data/run.conf" --db "$db" \
	"$T/q.eml" "$T/g/arrival.mbox" "$TOP/tests/data/sample.mbox" >/dev/null
# bot/mail.c folds line breaks out of headers; rows written otherwise
# (an SMTP server's multi-line refusal, another writer) can hold them.
q "$db" "UPDATE message SET subject = subject || char(10) || 'second line' || char(13) || char(10) || 'third'
	 WHERE msgid = 'perm_symbolic.baole-ni-mail@example.org';
	 UPDATE outbox SET last_error = '550-first' || char(13) || char(10) || '550 \"last\", really'
	 WHERE id = (SELECT min(id) FROM outbox)"

# same_as_json LABEL CSV JSON: every CSV row is the JSON object of the
# same place, flattened: a map's members as "map.key", a list joined by
# ",", true/false, null as nothing.
cat >"$T/same.py" <<'EOF'
import csv, io, json, sys

def flat(obj, pre=""):
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(flat(v, pre + k + "."))
        elif isinstance(v, list):
            out[pre + k] = ",".join(str(x) for x in v)
        elif isinstance(v, bool):
            out[pre + k] = "true" if v else "false"
        elif v is None:
            out[pre + k] = ""
        else:
            out[pre + k] = str(v)
    return out

label, cpath, jpath = sys.argv[1:4]
with open(cpath, newline="") as f:
    data = f.read()
rows = list(csv.reader(io.StringIO(data, newline="")))
objs = [flat(o) for o in json.load(open(jpath))]
bad = []
if not objs:
    if data:
        bad.append("no rows, yet output")
else:
    if not data.endswith("\r\n"):
        bad.append("lines do not end in CRLF")
    header, body = rows[0], rows[1:]
    if header != list(objs[0].keys()):
        bad.append("header %r" % header)
    if len(body) != len(objs):
        bad.append("%d rows for %d objects" % (len(body), len(objs)))
    for r, o in zip(body, objs):
        if dict(zip(header, r)) != o:
            bad.append("row %r != %r" % (r, o))
            break
print(("ok - " if not bad else "not ok - ") + label + ": the rows of JSON (%d)" % len(objs))
for b in bad[:3]:
    print("#   " + b)
EOF
same_as_json() {
	$py "$T/same.py" "$1" "$2" "$3"
}

for what in findings series floods; do
	$PW query --db "$db" $what --format csv >"$T/$what.csv"
	is "query $what --format csv: exit status" "$?" 0
	$PW query --db "$db" $what --format json >"$T/$what.json"
	same_as_json "query $what --format csv" "$T/$what.csv" "$T/$what.json"
	is "query $what --format csv: some rows" "$(test "$(wc -l <"$T/$what.csv")" -gt 1 && echo yes)" yes
done
$PW outbox --db "$db" --config "$TOP/tests/data/run.conf" list --format csv >"$T/outbox.csv"
is "outbox list --format csv: exit status" "$?" 0
$PW outbox --db "$db" --config "$TOP/tests/data/run.conf" list --format json >"$T/outbox.json"
same_as_json "outbox list --format csv" "$T/outbox.csv" "$T/outbox.json"

# The quoting itself, byte for byte: doubled quotes, and line breaks
# inside one quoted field.
row=$($py - "$T/findings.csv" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
at = data.index(b"perm_symbolic.baole-ni-mail@example.org")
print(repr(data[data.index(b',"', at) + 1:].split(b',2024')[0]))
EOF
)
is "query findings --format csv: comma, quotes and line breaks quoted" "$row" \
	"b'\"[PATCH] perms, \"\"octal\"\" please\\nsecond line\\r\\nthird\"'"
contains "outbox list --format csv: a multi-line error quoted" "$(cat "$T/outbox.csv")" \
	"$(printf '"550-first\r\n550 ""last"", really"')"
contains "query floods --format csv: a nested map's members" "$(head -n 1 "$T/floods.csv")" \
	"fingerprints.subject,fingerprints.body,fingerprints.shape"

# Nothing found: no header either (as sqlite3 -csv -header).
out=$($PW query --db "$db" findings --rule NO_SUCH_RULE --format csv)
is "query findings --format csv: nothing found, nothing written" "$?:$out" "0:"
# Where a result is no table, CSV is refused.
$PW outbox --db "$db" show 1 --format csv >/dev/null 2>"$T/err"
is "outbox show --format csv: refused" "$?" 2
contains "outbox show --format csv: says what is offered" "$(cat "$T/err")" "text or json"
$PW parse --format csv "$T/q.eml" >/dev/null 2>&1
is "parse --format csv: refused" "$?" 2
$PW query --db "$db" findings --format xml >/dev/null 2>"$T/err"
is "query --format xml: refused" "$?" 2
contains "query --format xml: says what is offered" "$(cat "$T/err")" "text, json or csv"

# ---- reads of a damaged store -------------------------------------------
# damage DB TABLE-OR-INDEX: zeroes the root page of one b-tree.
damage() {
	local page size
	q "$1" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
	page=$(q "$1" "SELECT rootpage FROM sqlite_schema WHERE name = '$2'")
	size=$(q "$1" "PRAGMA page_size")
	dd if=/dev/zero of="$1" bs="$size" seek=$((page - 1)) count=1 conv=notrunc 2>/dev/null
}
fresh() {	# fresh NAME: a copy of the store
	rm -f "$T/$1".db*
	cp "$db" "$T/$1.db"
	cp "$db-raw" "$T/$1.db-raw"
}
q "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null

fresh patches
damage "$T/patches.db" patch
out=$($PW db recheck --db "$T/patches.db" 2>"$T/err")
is "damaged patch table: recheck fails" "$?" 2
contains "damaged patch table: recheck tells the store's error" "$(cat "$T/err")" "malformed"
is "damaged patch table: recheck claims no patches rechecked" "$out" ""

fresh ids
mid=$(q "$T/ids.db" "SELECT msgid FROM message WHERE kind = 'patch' LIMIT 1")
damage "$T/ids.db" sqlite_autoindex_message_1
$PW query --db "$T/ids.db" floods --message "$mid" >/dev/null 2>"$T/err"
is "damaged Message-ID index: query floods --message fails" "$?" 2
contains "damaged Message-ID index: the store's error" "$(cat "$T/err")" "malformed"
is "damaged Message-ID index: not told as an unknown message" \
	"$(grep -c 'no stored message' "$T/err")" 0

fresh findings
damage "$T/findings.db" finding
for f in text json csv; do
	out=$($PW query --db "$T/findings.db" findings --format $f 2>"$T/err")
	is "damaged finding table: query findings --format $f fails, prints nothing" "$?:$out" "2:"
done
