#!/usr/bin/env bash
# README.md stays short and true: its links name files of the
# repository and none outside it, it names the two commands and how they
# get their packages, each command of its tour is one main.c knows and
# runs as written there (with --help), and the command reference it
# points to (patchwarden(1)) is where the commands are documented.
. "$(dirname "$0")/../lib.sh"

R=$TOP/README.md
links=$(grep -o '](\([^)]*\))' "$R" | sed 's/^](//; s/)$//')
check "README.md has links" test -n "$links"
for l in $links; do
	case $l in
	http://* | https://*) not_ok "README.md links outside the repository: $l" ;;
	/* | ../* | */../*) not_ok "README.md links outside the repository: $l" ;;
	*) check "README.md's link $l names a file of the repository" test -e "$TOP/${l%%#*}" ;;
	esac
done
for f in deploy/patchwarden.1 deploy/patchwarden.conf.5 docs/operating.md checks/RULES.md db/FLOODS.md; do
	check "README.md links $f" grep -q "]($f)" "$R"
done
for c in "make run" "make test" "make deps" dpkg-query "sudo apt-get install"; do
	check "README.md says what '$c' does" grep -q "$c" "$R"
done
check "README.md is short (under 120 lines)" test "$(wc -l <"$R")" -lt 120

# The tour: every "patchwarden CMD" line of its examples is a command
# patchwarden has, documented in patchwarden(1), and takes the options
# written there (--help after them is only accepted when they parse).
cmds=$(sed -n 's/^[[:space:]]*{ "\([a-z]*\)", pw_cmd_.*/\1/p' "$TOP/bot/main.c")
n=0
while read -r _ cmd rest; do
	n=$((n + 1))
	contains "README.md's tour: '$cmd' is a command" " $(echo $cmds) " " $cmd "
	check "README.md's tour: '$cmd' is in patchwarden(1)" grep -q "^\.SS $cmd\b" "$TOP/deploy/patchwarden.1"
	read -r -a args <<<"${rest%%>*}"
	"$PW" "$cmd" "${args[@]}" --help >/dev/null 2>"$T/err"
	is "README.md's tour: patchwarden $cmd ${args[*]} parses" "$?" 0
done < <(grep -E '^    patchwarden [a-z]+' "$R")
check "README.md's tour has commands ($n)" test "$n" -ge 5
