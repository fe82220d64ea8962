#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The version line every ofan program and script prints for --version:
# "NAME VERSION (git DESCRIBE)", or "NAME VERSION" outside a git
# checkout.  The programs get theirs at build time (common/meson.build's
# vcs_tag runs this without a name); the scripts run it with their $0.
#
#   scripts/version.sh [SCRIPT]   SCRIPT's line; without it, the version
#                                 alone ("VERSION (git DESCRIBE)")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
case ${1-} in
-h | --help)
	sed -n '3,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"
	exit 0
	;;
--version) set -- "$0" ;;
esac
version=$(sed -n "s/^[[:space:]]*version: '\\([^']*\\)',/\\1/p" "$root/meson.build")
if d=$(git -C "$root" describe --always --dirty 2>/dev/null); then
	line="$version (git $d)"
else
	line=$version
fi
if [ -n "${1-}" ]; then
	echo "$(basename "$1") $line"
else
	echo "$line"
fi
