#!/usr/bin/env bash
# patchwarden vs checkpatch.pl: differential and performance benchmark on
# real kernel sources (Debian's linux-source-6.1).  Not run in CI.
#
#   tests/bench/checkpatch.sh [DIR...]     default: drivers/hwmon drivers/scsi
#
#   PW=path/to/patchwarden   the binary (default ./patchwarden)
#   PW_BENCH_CACHE=DIR       where the kernel tree is unpacked
#                            (default /var/tmp/patchwarden-bench)
#   JOBS=N                   checkpatch.pl processes run side by side (default
#                            nproc); CPU time is summed, so the ratio is per core
#   KEEP=1                   keep the raw outputs in $PW_BENCH_CACHE/out
#
# It reports:
#   1. every checkpatch.pl finding of the permission types (SYMBOLIC_PERMS,
#      NON_OCTAL_PERMISSIONS, EXPORTED_WORLD_WRITABLE, DEVICE_ATTR_*,
#      EXECUTE_PERMISSIONS) and whether patchwarden reports the same line,
#      with each one it does not listed for review;
#   2. patchwarden's findings on lines checkpatch.pl is silent about, by rule;
#   3. CPU seconds of both on the same files, the speed ratio and
#      patchwarden's throughput in MB/s of source on one core.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PW=${PW:-$top/patchwarden}
cache=${PW_BENCH_CACHE:-/var/tmp/patchwarden-bench}
jobs=${JOBS:-$(nproc)}
tarball=/usr/src/linux-source-6.1.tar.xz
src=$cache/linux-source-6.1
out=$cache/out
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(drivers/hwmon drivers/scsi)
types=SYMBOLIC_PERMS,NON_OCTAL_PERMISSIONS,EXPORTED_WORLD_WRITABLE,DEVICE_ATTR_RO,DEVICE_ATTR_RW,DEVICE_ATTR_WO,DEVICE_ATTR_PERMS,DEVICE_ATTR_FUNCTIONS,EXECUTE_PERMISSIONS

[ -x "$PW" ] || { echo "no patchwarden binary at $PW (make first)" >&2; exit 2; }
if [ ! -f "$tarball" ]; then
	echo "installing linux-source-6.1 (apt-get)..." >&2
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get install -y -q linux-source-6.1 >&2
fi
mkdir -p "$cache" "$out"
need=()
for d in "${dirs[@]}" scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch; do
	[ -e "$src/$d" ] || need+=("linux-source-6.1/$d")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "unpacking ${need[*]} into $cache..." >&2
	tar -xJf "$tarball" -C "$cache" "${need[@]}"
fi

cd "$src"
find "${dirs[@]}" -type f \( -name '*.c' -o -name '*.h' \) | sort >"$out/files"
nfiles=$(wc -l <"$out/files")
bytes=$(xargs cat <"$out/files" | wc -c)
echo "files: $nfiles C sources, $bytes bytes, in ${dirs[*]}"

# checkpatch.pl, restricted to the permission types.  CPU time of all
# the processes is summed by /usr/bin/time through xargs.
# Its results are kept for the same file list unless FRESH=1.
if [ -n "${FRESH:-}" ] || [ ! -s "$out/cp.time" ] || ! cmp -s "$out/files" "$out/cp.files"; then
	echo "running checkpatch.pl ($jobs processes; this takes minutes)..." >&2
	/usr/bin/time -f '%U %S %e' -o "$out/cp.time" \
		xargs -P "$jobs" -n 20 perl scripts/checkpatch.pl --no-tree --terse --show-types \
		--color=never --no-summary --types "$types" -f <"$out/files" >"$out/cp.raw" 2>/dev/null || true
	cp "$out/files" "$out/cp.files"
else
	echo "reusing checkpatch.pl results from $out (FRESH=1 to rerun)" >&2
fi
grep -E '^[^:]+:[0-9]+: (ERROR|WARNING|CHECK):[A-Z_]+:' "$out/cp.raw" | sort -u >"$out/cp.txt" || true

# patchwarden, best of 5 runs on one core.
best=
for i in 1 2 3 4 5; do
	/usr/bin/time -f '%U %S %e' -o "$out/pw.time.$i" \
		"$PW" check --file --enable PERM_UNCOMMON $(cat "$out/files") >"$out/pw.txt" 2>"$out/pw.err" || true
	t=$(tail -n 1 "$out/pw.time.$i" | awk '{printf "%.3f", $1 + $2}')
	if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$t; fi
done

# /usr/bin/time puts "Command exited with non-zero status" first: use the last line.
cp_cpu=$(tail -n 1 "$out/cp.time" | awk '{printf "%.2f", $1 + $2}')
cp_wall=$(tail -n 1 "$out/cp.time" | awk '{print $3}')

echo
echo "== 1. checkpatch.pl permission findings also found by patchwarden"
echo "   (same file and line; or, for checkpatch.pl's statement-based types, up to 3 lines"
echo "   below, where the statement really is: checkpatch.pl reports those where its joined"
echo "   statement starts, e.g. at the '}' before a declaration, weakness W1)"
awk -F: '
	FNR == NR { pw[$1 ":" $2] = 1; next }
	{
		type = $4; sub(/^ *[A-Z]+:/, "", type)
		total[type]++
		if (($1 ":" $2) in pw) { found[type]++; next }
		stat = (type ~ /^(DEVICE_ATTR_|NON_OCTAL|EXPORTED_WORLD)/)
		for (d = 1; stat && d <= 3; d++)
			if (($1 ":" ($2 + d)) in pw) { found[type]++; shifted[type]++; next }
		missed[++nm] = $0
	}
	END {
		for (t in total) {
			printf "  %-26s %5d   found %5d (%5.1f%%)   of them %d lines below\n", t, total[t],
				found[t] + 0, 100 * (found[t] + 0) / total[t], shifted[t] + 0
			all += total[t]; hit += found[t]
		}
		printf "  %-26s %5d   found %5d (%6.2f%%)\n", "ALL", all, hit, all ? 100 * hit / all : 100
		if (nm) {
			print "  not found by patchwarden (review each):"
			for (i = 1; i <= nm; i++) print "    " missed[i]
		}
	}' "$out/pw.txt" "$out/cp.txt"

echo
echo "== 2. patchwarden findings on lines without any checkpatch.pl permission finding, by rule"
awk -F: '
	FNR == NR { cp[$1 ":" $2] = 1; for (d = 1; d <= 3; d++) near[$1 ":" ($2 + d)] = 1; next }
	/^[^:]+:[0-9]+: [A-Z]+:[A-Z_]+:/ {
		rule = $4; sub(/^ *[A-Z]+:/, "", rule)
		total[rule]++
		key = $1 ":" $2
		if (!(key in cp) && !(key in near)) extra[rule]++
	}
	END {
		for (r in total)
			printf "  %-22s %5d findings, %5d where checkpatch.pl is silent\n", r, total[r], extra[r] + 0
	}' "$out/cp.txt" "$out/pw.txt"
echo "  examples of extra findings (up to 5 per rule):"
awk -F: 'FNR == NR { cp[$1 ":" $2] = 1; for (d = 1; d <= 3; d++) cp[$1 ":" ($2 + d)] = 1; next }
	!(($1 ":" $2) in cp)' "$out/cp.txt" "$out/pw.txt" |
	awk -F: '{ r = $4; sub(/^ *[A-Z]+:/, "", r); if (n[r]++ < 5) print "    " $0 }'

echo
echo "== 3. performance (same $nfiles files, $bytes bytes)"
awk -v cp="$cp_cpu" -v cw="$cp_wall" -v pw="$best" -v b="$bytes" -v j="$jobs" 'BEGIN {
	printf "  checkpatch.pl: %10.2f s CPU (%s s wall on %d processes)\n", cp, cw, j
	printf "  patchwarden:   %10.3f s CPU (best of 5, one process)\n", pw
	if (pw > 0) {
		printf "  ratio:         %10.0f x faster\n", cp / pw
		printf "  throughput:    %10.1f MB/s of C source on one core\n", b / pw / 1e6
	} else {
		print "  patchwarden took less than the timer resolution (10 ms)"
	}
}'

# A permission-heavy patch, checkpatch.pl's slow path (W9): a function
# body where every added line is a debugfs_create_file() call.
n=${HEAVY_LINES:-500}
{
	printf 'diff --git a/drivers/misc/heavy.c b/drivers/misc/heavy.c\n'
	printf 'new file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/drivers/misc/heavy.c\n'
	printf '@@ -0,0 +1,%d @@\n' $((n + 3))
	printf '+static void heavy(struct dentry *d)\n+{\n'
	for i in $(seq 1 "$n"); do
		printf '+\tdebugfs_create_file("f%d", 0644, d, NULL, &f%d_fops);\n' "$i" "$i"
	done
	printf '+}\n'
} >"$out/heavy.patch"
/usr/bin/time -f '%U %S %e' -o "$out/cp-heavy.time" perl scripts/checkpatch.pl --no-tree --terse \
	--show-types --color=never --no-summary --types "$types" "$out/heavy.patch" >/dev/null 2>&1 || true
/usr/bin/time -f '%U %S %e' -o "$out/pw-heavy.time" "$PW" check "$out/heavy.patch" >/dev/null 2>&1 || true
echo
echo "== 4. a permission-heavy patch ($n added debugfs_create_file lines)"
hc=$(tail -n 1 "$out/cp-heavy.time" | awk '{printf "%.2f", $1 + $2}')
hp=$(tail -n 1 "$out/pw-heavy.time" | awk '{printf "%.3f", $1 + $2}')
echo "  checkpatch.pl: $hc s CPU"
if [ "$hp" = 0.000 ]; then
	echo "  patchwarden:   < 0.01 s CPU (below the timer's resolution)"
else
	echo "  patchwarden:   $hp s CPU ($(awk -v a="$hc" -v b="$hp" 'BEGIN{printf "%.0f", a / b}') x faster)"
fi

[ -n "${KEEP:-}" ] || rm -f "$out"/pw.time.*
