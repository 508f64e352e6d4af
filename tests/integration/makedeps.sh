#!/usr/bin/env bash
# make test and make run install missing Debian packages, never silently:
# make need-deps (their first step) names what is missing and installs it
# through make deps as root, or with a sudo that asks no password; when
# sudo wants one it stops with the command to run.  apt-get, sudo and id
# are stand-ins here that log their calls: nothing is installed.
. "$(dirname "$0")/../lib.sh"

stub=$T/bin
mkdir -p "$stub"
cat >"$stub/apt-get" <<'SH'
#!/bin/sh
echo "apt-get $*" >>"$STUB_LOG"
SH
cat >"$stub/sudo" <<'SH'
#!/bin/sh
echo "sudo $*" >>"$STUB_LOG"
[ "$1" = -n ] && [ -z "$SUDO_NOPASSWD" ] && exit 1
[ "$1" = -n ] && shift
exec "$@"
SH
cat >"$stub/id" <<'SH'
#!/bin/sh
echo "$STUB_UID"
SH
chmod +x "$stub"/*
export STUB_LOG=$T/calls

# need AS_UID [SUDO_NOPASSWD] PACKAGES: make need-deps with the stand-ins.
need() {
	: >"$STUB_LOG"
	STUB_UID=$1 SUDO_NOPASSWD=$2 PATH=$stub:$PATH \
		make -s --no-print-directory -C "$TOP" need-deps DEPS_PKGS="$3" >"$T/out" 2>&1
}

# Everything there: not a word, no apt-get.
need 1000 "" "bash coreutils"
is "nothing missing: status 0" "$?" 0
is "nothing missing: nothing said" "$(cat "$T/out")" ""
is "nothing missing: no apt-get, no sudo" "$(cat "$STUB_LOG")" ""

# Missing, not root, sudo wants a password: stop, say what to run.
need 1000 "" "bash pw-no-such-package"
check "sudo with a password: status not 0" test "$?" -ne 0
contains "sudo with a password: names the package" "$(cat "$T/out")" "missing Debian packages: pw-no-such-package"
contains "sudo with a password: the command to run" "$(cat "$T/out")" \
	"sudo apt-get install --no-install-recommends pw-no-such-package"
is "sudo with a password: apt-get not run" "$(grep -c apt-get "$STUB_LOG")" 0

# Missing, as root: said, then installed through make deps.
need 0 "" "bash pw-no-such-package"
is "root: status 0" "$?" 0
contains "root: names the package" "$(cat "$T/out")" "missing Debian packages: pw-no-such-package"
contains "root: says it installs through make deps" "$(cat "$T/out")" "installing them with make deps"
contains "root: apt-get install of the missing package alone" "$(cat "$STUB_LOG")" \
	"apt-get install -y -qq --no-install-recommends pw-no-such-package"
is "root: no sudo" "$(grep -c '^sudo' "$STUB_LOG")" 0

# Missing, not root, sudo without a password: installed with sudo, said.
need 1000 yes "pw-no-such-package"
is "sudo without a password: status 0" "$?" 0
contains "sudo without a password: says it installs" "$(cat "$T/out")" "installing them with make deps"
contains "sudo without a password: sudo apt-get install" "$(cat "$STUB_LOG")" \
	"sudo apt-get install -y -qq --no-install-recommends pw-no-such-package"

# make test and make run go through need-deps, not straight to apt-get.
for target in test run; do
	make -n -C "$TOP" "$target" DEPS_PKGS=pw-no-such-package >"$T/plan" 2>&1
	check "make $target: need-deps first" grep -q 'missing Debian packages' "$T/plan"
done
