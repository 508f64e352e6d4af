#!/usr/bin/env bash
# The documentation the tree ships: patchwarden(1) and patchwarden.conf(5)
# render without a warning (man --warnings); every command of main.c's
# table and every option its --help lists is in patchwarden(1); every
# key bot/config.c reads is in patchwarden.conf(5) and in the example
# configuration; "help CMD" is "CMD --help"; --version is the
# Makefile's VERSION.
. "$(dirname "$0")/../lib.sh"

MAN1=$TOP/deploy/patchwarden.1
MAN5=$TOP/deploy/patchwarden.conf.5
EXAMPLE=$TOP/deploy/patchwarden.conf.example
for page in "$MAN1" "$MAN5"; do
	out=$(man --warnings -l "$page" 2>&1 >/dev/null)
	is "$(basename "$page"): man --warnings says nothing" "$out" ""
	check "$(basename "$page"): renders" eval 'man -l "$page" 2>/dev/null | grep -q NAME'
done

# What a reader looks for: a heading for the lists' sections; words
# that render as words.
check "patchwarden.conf.5: a heading for [list NAME]" grep -q '^\.SH \[list NAME\]' "$MAN5"
contains "patchwarden.conf.5: [list NAME] listed as a section" \
	"$(MANWIDTH=100 man -l "$MAN5" 2>/dev/null | grep -E '^\[list NAME\]')" "[list NAME]"
contains "patchwarden.1: db backup reads as words" \
	"$(MANWIDTH=100 man -l "$MAN1" 2>/dev/null | tr -s ' \n' '  ')" "FILE-raw, with SQLite's online backup API: safe while"

cmds=$(sed -n 's/^[[:space:]]*{ "\([a-z]*\)", pw_cmd_.*/\1/p' "$TOP/bot/main.c")
check "main.c's command table read" test -n "$cmds"
for c in $cmds; do
	check "patchwarden.1 has a section for '$c'" grep -q "^\.SS $c\b" "$MAN1"
	opts=$("$PW" "$c" --help 2>/dev/null |
		sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}--\([a-z][a-z-]*\).*/\2/p' | grep -vx help)
	for o in $opts; do
		check "patchwarden.1 names $c --$o" grep -q -- "\\\\-\\\\-$(sed 's/-/\\\\-/g' <<<"$o")\\b" "$MAN1"
	done
	is "help $c is $c --help" "$("$PW" help "$c" 2>&1; echo "rc=$?")" \
		"$("$PW" "$c" --help 2>&1; echo "rc=$?")"
done
"$PW" help no-such-command >/dev/null 2>&1
is "help of an unknown command: exit status 2" "$?" 2
"$PW" help >"$T/help.out" 2>&1
is "help alone: exit status 0" "$?" 0
check "help alone lists the commands" grep -q '^  subscribe ' "$T/help.out"
version=$(sed -n 's/^VERSION *= *//p' "$TOP/Makefile")
is "--version is the Makefile's VERSION" "$("$PW" --version)" "patchwarden $version"
check "patchwarden.1 names the version" grep -q "\"patchwarden $version\"" "$MAN1"
check "patchwarden.conf.5 names the version" grep -q "\"patchwarden $version\"" "$MAN5"
for s in 0 1 2 75; do
	check "patchwarden.1: exit status $s" grep -q "^\.B $s\$" "$MAN1"
done

# Keys: the tables of config.c that say what a configuration may hold
# (static const char *const SECTION_keys[] = { "KEY", ... }), a key
# outside them being refused.
keys=$(awk '/^static const char \*const [a-z]+_keys\[\] = \{/ {
		sec = $0; sub(/.*const /, "", sec); sub(/_keys.*/, "", sec); on = 1 }
	on { line = $0
		while (match(line, /"[a-z_]+"/)) {
			print sec "." substr(line, RSTART + 1, RLENGTH - 2)
			line = substr(line, RSTART + RLENGTH) } }
	on && /\};/ { on = 0 }' "$TOP/bot/config.c" | sort -u)
check "config.c's keys read" test "$(wc -w <<<"$keys")" -gt 20
for k in $keys; do
	key=${k#*.}
	check "patchwarden.conf.5 has [${k%%.*}] $key" grep -qE "(^\.(BI|BR) \"?|\\\\fP)$key\b" "$MAN5"
	check "the example sets [${k%%.*}] $key" grep -qE "^#?$key = " "$EXAMPLE"
done

# [web] token on loopback (the dashboard behind a reverse proxy): the
# man pages and the operator's guide say the same, which web.sh checks
# against the server: the writes need it, the reads do not, and the
# proxy guards the pages, /outbox among them.
OPER=$TOP/docs/operating.md
check "patchwarden.conf.5 no longer says every request carries the token" \
	bash -c "! grep -q 'every request then carries' '$MAN5'"
for f in "$MAN5" "$TOP/deploy/patchwarden.1" "$OPER"; do
	t=$(tr '\n' ' ' <"$f" | sed 's/\\f[BIRP]//g; s/\\-/-/g; s/^\.[A-Z]* //')
	contains "$(basename "$f"): off loopback every request needs the token" "$t" "ff loopback every request"
	contains "$(basename "$f"): on loopback, as behind a reverse proxy" "$t" "behind a reverse proxy"
	contains "$(basename "$f"): the proxy guards /outbox" "$t" "/outbox"
done
