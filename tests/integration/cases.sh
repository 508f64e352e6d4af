#!/usr/bin/env bash
# Data-driven rule cases: tests/cases/<RULE_ID>/<name>.{patch,eml,mbox,c,h,sh,py}
# beside <name>.expected (the text output, then "# exit N").  Extra
# options for a case go in <name>.args (one line).  Every rule has a case
# that fires and a clean one; UPDATE=1 rewrites the .expected files for
# review instead of comparing.
. "$(dirname "$0")/../lib.sh"
cases=$TOP/tests/cases

run_case() {	# dir, file
	local dir=$1 f=$2 args=() out rc
	local stem=${f%.*}
	[ -f "$dir/$stem.args" ] && read -r -a args <"$dir/$stem.args"
	out=$(cd "$dir" && "$PW" check "${args[@]}" "$f" 2>&1)
	rc=$?
	printf '%s\n# exit %d\n' "$out" "$rc" | sed '/^$/d'
}

rules_seen=()
# Rule directories are named by rule ID; tests/cases/mail/ belongs to
# tests/integration/mailcases.sh.
for dir in "$cases"/[A-Z]*/; do
	dir=${dir%/}
	rule=$(basename "$dir")
	fired=0 clean=0
	for f in "$dir"/*; do
		case "$f" in *.expected|*.args) continue ;; esac
		name=$(basename "$f")
		stem=${name%.*}
		got=$(run_case "$dir" "$name")
		if [ -n "${UPDATE:-}" ]; then
			printf '%s\n' "$got" >"$dir/$stem.expected"
			echo "# $rule/$stem updated"
			continue
		fi
		if [ ! -f "$dir/$stem.expected" ]; then
			not_ok "$rule/$stem has no .expected (UPDATE=1 writes it)"
			continue
		fi
		want=$(cat "$dir/$stem.expected")
		is "$rule/$stem" "$got" "$want"
		[ "$got" = "$want" ] || diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | sed 's/^/#   /'
		if grep -q ":$rule: " <<<"$want"; then fired=$((fired + 1)); fi
		case "$stem" in clean*) clean=$((clean + 1)) ;; esac
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
check "check --list-rules names the rules (12)" test "$nrules" -ge 12
