#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run the experiments of configs/experiments/ (all, or the names given)
# with ofan-fabric, each into results/<name>/ with its table and plots.
#
#   testbed/run-experiments.sh [NAME ...]     e.g. failure-blackhole
#
# NAME is a file of configs/experiments/ without .ini.  Exit status: 0
# when every run completed, 2 on a bad name or a missing build.
set -euo pipefail
cd "$(dirname "$0")/.."
for a in "$@"; do
	case $a in
	--version) exec "$(dirname "$0")/../scripts/version.sh" "$0" ;;
	-h | --help)
		sed -n '3,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"
		printf 'experiments:'
		for f in configs/experiments/*.ini; do
			printf ' %s' "$(basename "$f" .ini)"
		done
		echo
		exit 0
		;;
	-*)
		echo "run-experiments.sh: unknown option '$a'; expected --help or experiment names" >&2
		exit 2
		;;
	esac
done
[ -x build/fabric/ofan-fabric ] ||
	{ echo "run-experiments.sh: build first: scripts/build.sh" >&2; exit 2; }
if [ $# -eq 0 ]; then
	set -- permutation-k8 alltoall-k8 queue-scaling failure-blackhole ring-allreduce
fi
for name in "$@"; do
	config=configs/experiments/$name.ini
	[ -f "$config" ] ||
		{ echo "run-experiments.sh: no experiment '$name' ($config)" >&2; exit 2; }
	echo "== $name" >&2
	build/fabric/ofan-fabric --config "$config" --out "results/$name"
done
