#!/usr/bin/env bash
# deploy/: the systemd unit passes "systemd-analyze verify" (pointed at
# the binary under test and the man pages of the tree) and scores 2.5
# or lower in "systemd-analyze security --offline=true"; no outbox
# timer is left; "make install PREFIX=/usr DESTDIR=..." puts the binary,
# both man pages, the example configuration, the unit (naming the binary
# where PREFIX put it) and the bash completion in place.
. "$(dirname "$0")/../lib.sh"

UNIT=$TOP/deploy/patchwarden.service
mkdir -p "$T/man/man1" "$T/man/man5" "$T/unit"
cp "$TOP/deploy/patchwarden.1" "$T/man/man1/"
cp "$TOP/deploy/patchwarden.conf.5" "$T/man/man5/"
sed "s|/usr/bin/patchwarden|$PW|" "$UNIT" >"$T/unit/patchwarden.service"
out=$(MANPATH=$T/man SYSTEMD_LOG_LEVEL=warning systemd-analyze verify "$T/unit/patchwarden.service" 2>&1)
rc=$?
is "systemd-analyze verify: exit status 0" "$rc" 0
is "systemd-analyze verify: nothing to say" "$out" ""
score=$(systemd-analyze security --offline=true "$UNIT" 2>/dev/null |
	sed -n 's/.*Overall exposure level for patchwarden.service: \([0-9.]*\).*/\1/p')
echo "# exposure score: $score"
check "systemd-analyze security: a score ($score)" test -n "$score"
check "systemd-analyze security: 2.5 or lower ($score)" \
	awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 2.5) }'
check "the unit says the score it gets" grep -q "rates this unit $score " "$UNIT"
check "Type=notify" grep -qx 'Type=notify' "$UNIT"
check "no outbox timer left in deploy/" eval '! ls "$TOP"/deploy/*.timer 2>/dev/null | grep -q .'

# The build the binary under test comes from (build, or build-asan
# under make asan): make install takes it as it is ("-o all": a suite
# never builds, since other suites run beside it).
bdir=$(cd "$(dirname "$PW")" && pwd)
if [ "$bdir" = "$TOP" ]; then BUILD=build; else BUILD=${bdir#"$TOP"/}; fi
make -s -C "$TOP" -o all install BUILD="$BUILD" PREFIX=/usr DESTDIR="$T/root" UNITDIR=/lib/systemd/system >"$T/make.out" 2>&1
is "make install: exit status 0" "$?" 0
for f in usr/bin/patchwarden usr/share/man/man1/patchwarden.1 \
	usr/share/man/man5/patchwarden.conf.5 \
	usr/share/doc/patchwarden/patchwarden.conf.example \
	usr/share/doc/patchwarden/operating.md \
	lib/systemd/system/patchwarden.service \
	usr/share/bash-completion/completions/patchwarden; do
	check "make install: /$f" test -s "$T/root/$f"
done
is "make install: the binary runs" "$("$T/root/usr/bin/patchwarden" --version)" "$("$PW" --version)"
make -s -C "$TOP" -o all install BUILD="$BUILD" PREFIX=/opt/pw DESTDIR="$T/opt" >"$T/make2.out" 2>&1
check "PREFIX=/opt/pw: the unit starts /opt/pw/bin/patchwarden" \
	grep -q '^ExecStart=/opt/pw/bin/patchwarden run ' "$T/opt/opt/pw/lib/systemd/system/patchwarden.service"
