#!/usr/bin/env bash
# tests/gen_flood.py: the generated flood and its surrounding traffic are
# well-formed mail with the shape expected.json promises.
. "$(dirname "$0")/../lib.sh"

gen=$TOP/tests/gen_flood.py
py=/usr/bin/python3

# One run of 1,000 flood patches and 400 normal messages (its speed is
# not a test's business).  The pre-image tree (--tree: a thousand small
# files) is written by the second run below.
if $py "$gen" --out "$T/a" --flood-size 1000 --total 1285 --noise 400 --seed 7 \
	>/dev/null 2>"$T/err" && test -s "$T/a/arrival.mbox"; then
	ok "gen_flood.py writes 1,400 messages"
else
	not_ok "gen_flood.py writes 1,400 messages"; cat "$T/err"; exit 0
fi

# The mail itself, parsed with Python's mailbox and email modules.
$py - "$T/a" <<'EOF'
import email, email.policy, json, mailbox, os, re, sys
from email.utils import parsedate_to_datetime
out = sys.argv[1]
exp = json.load(open(os.path.join(out, "expected.json")))
def check(desc, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + desc)
    if not cond and detail:
        print("#   " + str(detail)[:300])

def msgs(path):
    return [email.message_from_bytes(m.as_bytes(), policy=email.policy.default)
            for m in mailbox.mbox(path)]

arrival = msgs(os.path.join(out, "arrival.mbox"))
check("arrival.mbox holds every delivery (%d)" % exp["deliveries"],
      len(arrival) == exp["deliveries"], len(arrival))
mids = [m["Message-ID"].strip("<>") for m in arrival]
check("arrival.mbox holds every message once or more (%d)" % exp["messages"],
      len(set(mids)) == exp["messages"], len(set(mids)))
lid_ok = all(m["List-Id"] for m in arrival)
check("every delivered copy has a List-Id", lid_ok)
seen_on = {}
for m in arrival:
    seen_on.setdefault(m["Message-ID"], set()).add(m["List-Id"])
multi = sum(1 for v in seen_on.values() if len(v) > 1)
check("the same Message-ID arrives on several lists (%d messages)" % multi,
      multi > 0 and multi == exp["cross_posted"], (multi, exp["cross_posted"]))

per_list_ok = True
files = sorted(f for f in os.listdir(out) if f.endswith(".mbox") and f != "arrival.mbox")
for f in files:
    key = f[:-5]
    ms = msgs(os.path.join(out, f))
    want = exp["lists"].get(key, {})
    lid = "<%s>" % want.get("list_id", "?")
    if len(ms) != want.get("deliveries") or any(m["List-Id"] != lid for m in ms):
        per_list_ok = False
        print("#   %s: %d messages, want %s" % (f, len(ms), want))
check("each list mbox (%d) parses, matches its count and List-Id" % len(files),
      per_list_ok and len(files) == len(exp["lists"]) and len(files) >= 5)

by_id = {}
for m in arrival:
    by_id.setdefault(m["Message-ID"].strip("<>"), m)
fl = exp["flood"]
fids = fl["message_ids"]
nids = exp["normal"]["message_ids"]
check("flood and normal Message-IDs split the messages",
      len(fids) == fl["size"] == 1000 and not set(fids) & set(nids)
      and set(fids) | set(nids) == set(by_id))

subj = re.compile(r"^\[PATCH (\d{4})/1285\] Replace numeric parameter like 0444 with macro$")
nums = []
bad = []
bodies = set()
paths = set()
edits_ok = True
hunks_ok = True
for i in fids:
    m = by_id[i]
    mm = subj.match(str(m["Subject"]))
    if not mm or fl["sender_address"] not in str(m["From"]) or m["In-Reply-To"] or m["References"]:
        bad.append(i)
        continue
    nums.append(int(mm.group(1)))
    body = m.get_content()
    msg, _, rest = body.partition("\n---\n")
    bodies.add(msg)
    diff = rest[rest.index("diff --git"):rest.rindex("\n-- \n") + 1]
    paths.add(diff.split("\n", 1)[0])
    lines = diff.split("\n")
    k = 0
    while k < len(lines):
        h = re.match(r"^@@ -(\d+),(\d+) \+(\d+),(\d+) @@", lines[k])
        k += 1
        if not h:
            continue
        old, new = int(h.group(2)), int(h.group(4))
        rm, ad = [], []
        while old > 0 or new > 0:
            ln = lines[k]; k += 1
            if ln.startswith(" ") or ln == "":
                old -= 1; new -= 1
            elif ln.startswith("-"):
                old -= 1; rm.append(ln)
            elif ln.startswith("+"):
                new -= 1; ad.append(ln)
            else:
                hunks_ok = False
                break
        if old or new:
            hunks_ok = False
        if len(rm) != len(ad) or not rm:
            edits_ok = False
        for a, b in zip(rm, ad):
            if not re.search(r"\b0[0-7]{3}\b", a) or "S_I" not in b or re.search(r"\b0[0-7]{3}\b", b):
                edits_ok = False
check("flood: one sender, counter subjects, no threading headers", not bad, bad[:3])
check("flood: counters are distinct, within 1..1285, no cover letter",
      len(set(nums)) == len(nums) and min(nums) >= 1 and max(nums) <= 1285)
check("flood: every patch carries the same commit message", len(bodies) == 1, len(bodies))
check("flood: every patch edits a different file", len(paths) == len(fids), len(paths))
check("flood: hunk line counts match the hunk headers", hunks_ok)
check("flood: every edit turns an octal mode into S_I* macros", edits_ok)
check("flood: expected.json names its lists and recipients",
      len(fl["lists"]) >= 5 and "lkml" in fl["lists"] and fl["recipients"] > 10
      and fl["claimed_total"] == 1285)

nm = exp["normal"]
big = nm["big_series"]
cover = by_id[big["cover"]]
big_ok = str(cover["Subject"]) == "[PATCH 000/141] Fix fall-through warnings for Clang"
for i in big["message_ids"][1:]:
    m = by_id[i]
    if m["In-Reply-To"].strip("<>") != big["cover"] or not re.match(
            r"^\[PATCH \d{3}/141\] .+: .+: Fix fall-through warnings for Clang$", str(m["Subject"])):
        big_ok = False
check("normal: a big threaded series under one cover letter (%d)" % big["size"],
      big_ok and big["size"] >= 100)
kinds = nm["kinds"]
replies = kinds.get("reply", [])
check("normal: replies (%d) answer messages that exist" % len(replies),
      replies and all(by_id[r]["In-Reply-To"].strip("<>") in by_id for r in replies))
check("normal: some replies answer flood patches",
      any(by_id[r]["In-Reply-To"].strip("<>") in set(fids) for r in replies))
def diff_of(m):
    b = m.get_content()
    return b[b.index("diff --git"):]
res_ok = bool(nm["resends"]) and all(
    "RESEND" in str(by_id[r["message_id"]]["Subject"]) and
    diff_of(by_id[r["message_id"]]) == diff_of(by_id[r["original"]])
    for r in nm["resends"])
check("normal: resends (%d) repeat an earlier patch under a new Message-ID"
      % len(nm["resends"]), res_ok)
rr_ok = bool(nm["rerolls"]) and all(
    "[PATCH v2 0/" in str(by_id[r["v2"]]["Subject"]) and
    by_id[r["v2"]]["In-Reply-To"].strip("<>") == r["v1"] for r in nm["rerolls"])
check("normal: v2 rerolls (%d) thread under their v1 cover" % len(nm["rerolls"]), rr_ok)
covers = nm["series_covers"]
ser_ok = bool(covers) and all(re.match(r"^\[PATCH 0/\d+\]", str(by_id[c]["Subject"])) for c in covers)
check("normal: threaded series with cover letters (%d)" % len(covers), ser_ok)
mt = nm["maintainer"]["message_ids"]
senders = {str(by_id[i]["From"]) for i in mt}
days = {parsedate_to_datetime(str(by_id[i]["Date"])).date() for i in mt}
subjects = {str(by_id[i]["Subject"]) for i in mt}
check("normal: one maintainer posts %d unrelated patches in one day" % len(mt),
      len(mt) >= 10 and len(senders) == 1 and len(days) == 1 and len(subjects) > 3)
EOF
rc=$?
[ "$rc" -eq 0 ] || not_ok "the mail checker exited with status $rc"

# The same seed again, with the pre-image tree: the same files.
$py "$gen" --out "$T/b" --flood-size 1000 --total 1285 --noise 400 --seed 7 \
	--tree "$T/tree" >/dev/null 2>&1
check "the same seed writes the same files" diff -r "$T/a" "$T/b"

# git apply --check: every flood patch applies to the generated tree.
$py - "$T/a" "$T/patches" <<'EOF'
import json, mailbox, os, sys
out, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst)
fids = set(json.load(open(os.path.join(out, "expected.json")))["flood"]["message_ids"])
n = 0
for m in mailbox.mbox(os.path.join(out, "lkml.mbox")):
    if m["Message-ID"].strip("<>") not in fids:
        continue
    body = m.get_payload(decode=True).decode()
    n += 1
    with open(os.path.join(dst, "%04d.patch" % n), "w") as f:
        f.write(body[body.index("diff --git"):body.rindex("\n-- \n") + 1])
EOF
np=$(ls "$T/patches" | wc -l)
if [ "$np" -ge 900 ] && (cd "$T/tree" && git apply --check "$T"/patches/*.patch) 2>"$T/apply.err"; then
	ok "git apply --check accepts all $np flood patches on lkml"
else
	not_ok "git apply --check accepts all $np flood patches on lkml"; head -5 "$T/apply.err"
fi

# Another seed gives other mail.
$py "$gen" --out "$T/c" --flood-size 1000 --total 1285 --noise 400 --seed 8 >/dev/null 2>&1
rc=$?
cmp -s "$T/a/arrival.mbox" "$T/c/arrival.mbox"
is "another seed writes other mail (generator status, cmp status)" "$rc $?" "0 1"

# --shuffle delivers hours late; without it deliveries follow the Date.
$py "$gen" --out "$T/s" --flood-size 200 --noise 100 --seed 3 --shuffle >/dev/null 2>&1
lag() {
	$py - "$1" <<'EOF'
import mailbox, sys
from email.utils import parsedate_to_datetime
from datetime import datetime, timezone
worst = 0
for m in mailbox.mbox(sys.argv[1]):
    when = datetime.strptime(" ".join(m.get_from().split()[1:]), "%a %b %d %H:%M:%S %Y")
    when = when.replace(tzinfo=timezone.utc)
    worst = max(worst, (when - parsedate_to_datetime(m["Date"])).total_seconds())
print(int(worst))
EOF
}
l1=$(lag "$T/a/arrival.mbox") l2=$(lag "$T/s/arrival.mbox")
check "without --shuffle every copy arrives within a minute ($l1 s)" [ "$l1" -lt 60 ]
check "with --shuffle some copies arrive hours late ($l2 s)" [ "$l2" -gt 3600 ]
n=$($py -c 'import json,sys; e=json.load(open(sys.argv[1])); print(e["flood"]["size"], e["normal"]["size"], e["messages"])' "$T/s/expected.json")
is "--flood-size and --noise set the counts" "$n" "200 100 300"

# patchwarden's fingerprints on the generated mail (checks/fingerprint.c through
# the unit binary): the flood shares subject, body and shape; normal
# patches do not; a resend keeps its original's patch id.
unit=$UNIT_DIR/test_fingerprint
if [ -x "$unit" ]; then
	$py - "$T/a" "$T/fp" <<'EOF'
import email, email.policy, json, mailbox, os, sys
out, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst)
exp = json.load(open(os.path.join(out, "expected.json")))
fids = set(exp["flood"]["message_ids"])
orig = {r["message_id"]: r["original"] for r in exp["normal"]["resends"]}
seen = set()
rows = []
for m in mailbox.mbox(os.path.join(out, "arrival.mbox")):
    m = email.message_from_bytes(m.as_bytes(), policy=email.policy.default)
    mid = m["Message-ID"].strip("<>")
    body = m.get_content()
    if mid in seen or "\ndiff --git " not in body:
        continue
    seen.add(mid)
    n = str(len(rows) + 1)
    head, _, _ = body.partition("\ndiff --git ")
    msg = head.split("\n---\n")[0]
    diff = body[body.index("\ndiff --git ") + 1:]
    for ext, text in (("subject", str(m["Subject"])), ("msg", msg), ("diff", diff)):
        with open(os.path.join(dst, n + "." + ext), "w") as f:
            f.write(text)
    rows.append("%s\t%s\t%s\t%s" % (n, "flood" if mid in fids else "normal",
                                    mid, orig.get(mid, "-")))
with open(os.path.join(dst, "index.tsv"), "w") as f:
    f.write("\n".join(rows) + "\n")
EOF
	out=$(FLOOD_DIR=$T/fp "$unit" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep '^# \(flood\|normal\)' | head -n 10
	summary=$(printf '%s\n' "$out" | sed -n 's/^# flood: //p')
	if [ "$rc" -eq 0 ] && [ -n "$summary" ]; then
		ok "fingerprints group the flood and nothing else ($summary)"
	else
		not_ok "fingerprints group the flood and nothing else (${summary:-no summary})"
		printf '%s\n' "$out" | tail -n 5
	fi
else
	not_ok "unit binary $unit is built (make unit)"
fi
