#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's main command: install what is missing, build, and run the
# main job -- the default experiment on an emulated fabric in one process
# (configs/experiments/permutation-k8.ini: a k=8 fat tree of 128 hosts and
# 80 switches, 100 Gb/s links, a 2 MiB random permutation, seven
# load-balancing schemes on identical traffic).  No NIC, no hugepages.
# Prints the comparison table; results and PNG plots go to
# results/permutation-k8/.
#
#   scripts/main.sh [EXPERIMENT.ini] [section.key=value ...]
#   scripts/main.sh --help
#
# Exit status: ofan-fabric's (0 every run completed and conserved every
# packet, 1 a run did not, 2 bad usage or configuration; ofan-fabric
# --help lists the others), or install-deps.sh's or build.sh's if those
# fail.
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1-} in
--version) exec scripts/version.sh "$0" ;;
-h | --help)
	sed -n '3,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"
	exit 0
	;;
esac
config=configs/experiments/permutation-k8.ini
if [ $# -gt 0 ] && [ "${1%.ini}" != "$1" ]; then
	config=$1
	shift
fi
./scripts/install-deps.sh
./scripts/build.sh
exec build/fabric/ofan-fabric --config "$config" "$@"
