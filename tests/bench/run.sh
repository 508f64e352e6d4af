#!/usr/bin/env bash
# make bench: every benchmark, one after the other, each printing its
# figures and its ratio against the reference tool.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
for b in ingest poll checkpatch flood hostile reply web load; do
	if [ -x "$here/$b.sh" ]; then
		echo "== $b"
		"$here/$b.sh"
	fi
done
