#!/usr/bin/env bash
# Data-driven rule cases: tests/cases/<RULE_ID>/<name>.{patch,eml,mbox,c,h,sh,py}
# beside <name>.expected (the text output, then "# exit N").  Extra
# options for a case go in <name>.args (one line).  Every rule has a case
# that fires and a clean one; UPDATE=1 rewrites the .expected files for
# review instead of comparing.
#
# A case sits under the rule it proves: the expected output of a case
# must name its folder's rule (fail otherwise), and that of a clean*
# case must not.
#
# Rules about a patch's company (FLOOD, RESEND_IDENTICAL, ...) need
# several messages: an .mbox beside a <name>.conf (the store's
# configuration: [flood] count and window, [list NAME] disable) is
# ingested into a fresh store, and its expected output is what
# "patchwarden query findings" reports (with <name>.args as its extra
# options).  Flood windows and severities read the mails' Date headers
# only, and ingest without --reply queues no reply: no clock is read.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../lib_fast.sh"
cases=$TOP/tests/cases

# noblank: standard input without its empty lines (sed '/^$/d' in the
# shell itself: two hundred cases, two hundred processes fewer).
noblank() {
	local l
	while IFS= read -r l || [ -n "$l" ]; do
		[ -n "$l" ] && printf '%s\n' "$l"
	done
	return 0
}

run_case() {	# dir, file
	local dir=$1 f=$2 args=() out rc
	local stem=${f%.*}
	[ -f "$dir/$stem.args" ] && read -r -a args <"$dir/$stem.args"
	out=$(cd "$dir" && "$PW" check "${args[@]}" "$f" 2>&1)
	rc=$?
	printf '%s\n# exit %d\n' "$out" "$rc" | noblank
}

run_store_case() {	# dir, file: ingest into a fresh store, query the findings
	local dir=$1 f=$2 args=() out rc db
	local stem=${f%.*}
	[ -f "$dir/$stem.args" ] && read -r -a args <"$dir/$stem.args"
	# A store of the case's own, on a RAM file system (tests/lib_fast.sh).
	db=$F/${dir##*/}.$stem/pw.db
	mkdir "${db%/pw.db}" || return
	if ! out=$(cd "$dir" && "$PW" ingest --db "$db" -c "$stem.conf" \
			--threads 1 "$f" 2>&1); then
		printf '# ingest failed: %s\n' "$out"
		return
	fi
	# Every finding, info too (query hides info unless asked); a case's
	# own --severity, after, still applies.
	out=$(cd "$dir" && "$PW" query --db "$db" -c "$stem.conf" findings \
		--severity info "${args[@]}" 2>&1)
	rc=$?
	printf '%s\n# exit %d\n' "$out" "$rc" | noblank
}

rules_seen=()
# Rule directories are named by rule ID; tests/cases/mail/ belongs to
# tests/integration/mailcases.sh.
for dir in "$cases"/[A-Z]*/; do
	dir=${dir%/}
	rule=${dir##*/}
	fired=0 clean=0
	for f in "$dir"/*; do
		case "$f" in *.expected|*.args|*.conf) continue ;; esac
		name=${f##*/}
		stem=${name%.*}
		case "$name" in
		*.mbox) if [ -f "$dir/$stem.conf" ]; then
				got=$(run_store_case "$dir" "$name")
			else
				got=$(run_case "$dir" "$name")
			fi ;;
		*) got=$(run_case "$dir" "$name") ;;
		esac
		if [ -n "${UPDATE:-}" ]; then
			printf '%s\n' "$got" >"$dir/$stem.expected"
			echo "# $rule/$stem updated"
			continue
		fi
		if [ ! -f "$dir/$stem.expected" ]; then
			not_ok "$rule/$stem has no .expected (UPDATE=1 writes it)"
			continue
		fi
		want=$(<"$dir/$stem.expected")
		is "$rule/$stem" "$got" "$want"
		[ "$got" = "$want" ] || diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | sed 's/^/#   /'
		# check prints "file:line: SEVERITY:RULE: ", query "RULE severity".
		if [[ $want =~ (:$rule: |(^|$'\n')$rule (info|warning|error) ) ]]; then
			names=1
		else
			names=0
		fi
		case "$stem" in
		clean*)
			clean=$((clean + 1))
			check "$rule/$stem (clean) has no $rule finding" test "$names" -eq 0 ;;
		*)
			fired=$((fired + names))
			check "$rule/$stem fires $rule, the rule of its folder" test "$names" -eq 1 ;;
		esac
	done
	[ -n "${UPDATE:-}" ] && continue
	rules_seen+=("$rule")
	check "$rule has a case that fires" test "$fired" -gt 0
	check "$rule has a clean case" test "$clean" -gt 0
done

# Every rule in the table has a case directory.
nrules=0
while read -r id _; do
	nrules=$((nrules + 1))
	case " ${rules_seen[*]} " in
	*" $id "*) ok "rule $id has cases" ;;
	*) [ -n "${UPDATE:-}" ] || not_ok "rule $id has no cases in tests/cases/$id" ;;
	esac
done < <("$PW" check --list-rules)
check "check --list-rules names the rules (16)" test "$nrules" -ge 16

# A fix mends what its finding names: for every finding of a case that
# carries a fix, "check --fix" and a second check of its output must not
# report the same rule on that line (SYSFS_MODE_CALLBACKS once offered
# the very mode it faulted, spelt in octal).  One Python for all cases.
[ -n "${UPDATE:-}" ] && exit 0
cat >"$T/refix.py" <<'PYEOF'
import json, os, subprocess, sys
pw, cases, tmp = sys.argv[1:4]

def check(d, args, path, extra=()):
    r = subprocess.run([pw, "check", "--format", "json"] + args + list(extra) + [path],
                       cwd=d, capture_output=True, text=True)
    return json.loads(r.stdout)["findings"] if r.stdout.strip() else []

for rule in sorted(os.listdir(cases)):
    d = os.path.join(cases, rule)
    if not rule[:1].isupper() or not os.path.isdir(d):
        continue
    for name in sorted(os.listdir(d)):
        stem, ext = os.path.splitext(name)
        if ext in (".expected", ".args", ".conf") or \
           os.path.exists(os.path.join(d, stem + ".conf")):
            continue
        argf = os.path.join(d, stem + ".args")
        args = open(argf).read().split() if os.path.exists(argf) else []
        fixed = [f for f in check(d, args, name) if f.get("fix")]
        if not fixed:
            continue
        out = os.path.join(tmp, "fixed" + ext)
        subprocess.run([pw, "check"] + args + ["--fix", "--fix-output", out, name],
                       cwd=d, capture_output=True)
        again = {(f["file"], f["line"], f["rule"]) for f in check(d, args, out)}
        left = sorted("%s:%d %s" % k for k in
                      {(f["file"], f["line"], f["rule"]) for f in fixed} & again)
        print("%s\t%s/%s: %d fixes mend what they name%s" %
              ("ok" if not left else "not_ok", rule, stem, len(fixed),
               "" if not left else " (still: " + ", ".join(left) + ")"))
PYEOF
nfixed=0
while IFS=$'\t' read -r verdict text; do
	nfixed=$((nfixed + 1))
	"$verdict" "$text"
done < <(/usr/bin/python3 "$T/refix.py" "$PW" "$cases" "$T")
check "cases with fixes were rechecked ($nfixed)" test "$nfixed" -gt 10
