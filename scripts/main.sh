#!/usr/bin/env bash
# The README's main command: install what is missing, build, and run the
# main job -- the default experiment on an emulated fabric in one process
# (configs/experiments/permutation-k8.ini: a k=8 fat tree of 128 hosts and
# 80 switches, 100 Gb/s links, a 2 MiB random permutation, seven
# load-balancing schemes on identical traffic).  No NIC, no hugepages.
# Prints the comparison table; results and PNG plots go to
# results/permutation-k8/.
#
#   scripts/main.sh [EXPERIMENT.ini] [section.key=value ...]
set -euo pipefail
cd "$(dirname "$0")/.."
config=configs/experiments/permutation-k8.ini
if [ $# -gt 0 ] && [ "${1%.ini}" != "$1" ]; then
	config=$1
	shift
fi
./scripts/install-deps.sh
./scripts/build.sh
exec build/testbed/ofan-fabric --config "$config" "$@"
