# patchwarden: helpers for the suites that run many processes.  Source
# it after tests/lib.sh.
#
# $F: a scratch directory of the script's own on a RAM file system
# (/dev/shm) when there is one, else $T; removed at exit.  For loops that
# write hundreds of stores or files: SQLite and "check --fix-output"
# sync what they write, and each sync on a disk costs tens of
# milliseconds of waiting where a RAM file system costs none.  What is
# written, and what is checked of it, is the same.
if [ -d /dev/shm ] && [ -w /dev/shm ] && F=$(mktemp -d /dev/shm/pw-f.XXXXXX 2>/dev/null); then
	at_exit "rm -rf '$F'"
else
	F=$T
fi
# kv KEY LINE: tests/lib.sh's kv (the value of KEY in a "k=v k=v" line)
# in the shell itself, without the four processes of a pipe per call.
kv() {
	local line w
	while IFS= read -r line; do
		IFS=' ' read -r -a _pw_kv_words <<<"$line"
		for w in "${_pw_kv_words[@]}"; do
			case $w in "$1="*) printf '%s\n' "${w#"$1="}"; return 0 ;; esac
		done
	done <<<"$2"
}
