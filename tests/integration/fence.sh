#!/usr/bin/env bash
# The fence between the folders: `make check-includes` (which `make all`
# runs first) refuses a checks/ file that includes a library other than
# libc, GLib and Nettle, or a db/ or bot/ header, and a db/ file that
# includes bot/ or a network library; the tree as it is passes.
. "$(dirname "$0")/../lib.sh"

# fence DESC WANT [PATH:LINE...]: copies checks/ and db/, adds each
# file PATH holding LINE, runs the fence over the copy; WANT is 0 or 2.
fence() {
	local what=$1 want=$2 f; shift 2
	rm -rf "$T/tree"
	mkdir -p "$T/tree"
	cp -r "$TOP/checks" "$TOP/db" "$T/tree/"
	for f in "$@"; do
		printf '%s\n' "${f#*:}" >"$T/tree/${f%%:*}"
	done
	make -s -C "$TOP" check-includes FENCE_DIR="$T/tree" >"$T/out" 2>&1
	is "$what" "$?" "$want"
}

fence "the tree as it is passes" 0
fence "checks/ including sqlite3.h fails" 2 'checks/zz.c:#include <sqlite3.h>'
fence "checks/ including a db/ header fails" 2 'checks/zz.c:#include "db/db.h"'
fence "checks/ including a bot/ header fails" 2 'checks/zz.h:#include "bot/mail.h"'
fence "checks/ including GMime, spaced, fails" 2 'checks/zz.c:  #  include <gmime/gmime.h>'
fence "db/ including a bot/ header fails" 2 'db/zz.c:#include "bot/config.h"'
fence "db/ including libcurl fails" 2 'db/zz.h:#include <curl/curl.h>'
fence "db/ including checks/ and SQLite passes" 0 \
	'db/zz.c:#include "checks/patch.h"' 'db/zz.h:#include <sqlite3.h>'
fence "checks/ including libcurl fails" 2 'checks/zz.c:#include <curl/curl.h>'
contains "the message names the file and line" "$(cat "$T/out")" \
	"zz.c:1:#include <curl/curl.h>"
