#!/usr/bin/env bash
# deploy/patchwarden.bash-completion, sourced in bash and asked as bash
# asks it (COMP_WORDS, COMP_CWORD): command names, each command's
# options as its --help lists them, verbs, option values, files.
. "$(dirname "$0")/../lib.sh"

# shellcheck source=/dev/null
. "$TOP/deploy/patchwarden.bash-completion"
# complete WORD...: the answers for the last WORD, sorted, on one line.
complete_words() {
	COMP_WORDS=("$PW" "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_patchwarden
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

is "registered for patchwarden" "$(complete -p patchwarden)" "complete -F _patchwarden patchwarden"
all=$(complete_words "")
for c in check parse ingest db query outbox run subscribe poll archive serve help --version; do
	contains "the commands: $c" " $all " " $c "
done
# Every command of main.c's table is offered.
for c in $(sed -n 's/^[[:space:]]*{ "\([a-z]*\)", pw_cmd_.*/\1/p' "$TOP/bot/main.c"); do
	contains "main.c's table: $c offered" " $all " " $c "
done
is "a prefix: su" "$(complete_words su)" "subscribe"
is "after -v: po" "$(complete_words -v po)" "poll"
is "ingest --th" "$(complete_words ingest --th)" "--threads"
is "run --c" "$(complete_words run --c)" "--config"
contains "check --: --fail-on" "$(complete_words check --)" "--fail-on"
contains "check --: --list-rules" "$(complete_words check --)" "--list-rules"
contains "query --: --has-findings" "$(complete_words query --)" "--has-findings"
is "serve --l" "$(complete_words serve --l)" "--listen"
is "db verbs" "$(complete_words db "")" "backup check recheck stats"
is "db --db X verbs after an option" "$(complete_words db --db x.db st)" "stats"
is "outbox verbs" "$(complete_words outbox "")" "list retry send show"
is "subscribe verbs: pa" "$(complete_words subscribe pa)" "pause"
is "query kinds: s" "$(complete_words query s)" "senders series stats"
is "query kinds: d" "$(complete_words query d)" "decisions"
is "query kinds: a" "$(complete_words query a)" "attention"
is "triage actions" "$(complete_words triage "")" "ignore recheck stop undo wrong"
is "triage --by: nothing offered" "$(complete_words triage wrong 1 --by "")" ""
is "help CMD: ou" "$(complete_words help ou)" "outbox"
is "check --format" "$(complete_words check --format "")" "json sarif text"
is "check --format=" "$(complete_words check --format = "")" "json sarif text"
is "query --format j" "$(complete_words query --format j)" "json"
is "outbox --state s" "$(complete_words outbox --state s)" "sending sent suppressed"
is "query --state" "$(complete_words query --state "")" "complete flood incomplete"
is "check --style p" "$(complete_words check --style p)" "perm-macros"
is "check --disable PERM_W" "$(complete_words check --disable PERM_W)" "PERM_WORLD_WRITABLE"
is "check -f takes no value: options after it" "$(complete_words check -f --fa)" "--fail-on"
mkdir -p "$T/dir" && touch "$T/dir/one.mbox" "$T/dir/two.eml"
is "ingest: files" "$(complete_words ingest "$T/dir/o")" "$T/dir/one.mbox"
is "--config: files" "$(complete_words poll --config "$T/dir/t")" "$T/dir/two.eml"
is "db backup FILE: files" "$(complete_words db backup "$T/dir/t")" "$T/dir/two.eml"
is "preview --pe" "$(complete_words preview --pe)" "--per-patch"
is "preview: files" "$(complete_words preview "$T/dir/o")" "$T/dir/one.mbox"
is "preview --show N: nothing offered" "$(complete_words preview --show "")" ""
is "--limit: nothing offered" "$(complete_words query --limit "")" ""
