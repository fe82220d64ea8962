# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Hugepages for a DPDK process that must accept secondary processes
# (dpdk-dumpcap): reserve them, find or mount a hugetlbfs, and give
# everything back afterwards.  Sourced by testbed/soak.sh and
# tests/eal/testbed-capture.sh.  DPDK 22.11 leaves its map_* files in the
# mount after exit unless --huge-unlink, which forbids secondaries, so
# huge_release removes the files of the prefix it is given.

HUGE_NR=/proc/sys/vm/nr_hugepages
HUGE_OLD=		# nr_hugepages before huge_reserve
HUGE_SET=0		# huge_reserve raised it
HUGE_MNT=		# the hugetlbfs mount to give EAL (--huge-dir)
HUGE_MOUNTED=0		# huge_reserve mounted it
HUGE_WHY=		# why huge_reserve could not (it returned 1)

huge_free_pages() {
	awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo
}

# huge_reserve MB DIR: at least MB of free hugepages (nr_hugepages raised
# if needed) and a hugetlbfs of the default page size (an existing mount,
# or one mounted at DIR).  Returns 1, with the reason in HUGE_WHY, if the
# machine cannot (no hugepages, not root, not enough memory).
huge_reserve() {
	local mb=$1 dir=$2 page_kb need _ mnt fstype opts

	page_kb=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
	if [ -z "$page_kb" ]; then
		HUGE_WHY="the kernel has no hugepages (no Hugepagesize in /proc/meminfo)"
		return 1
	fi
	need=$(((mb * 1024 + page_kb - 1) / page_kb))
	HUGE_OLD=$(cat "$HUGE_NR")
	if [ "$(huge_free_pages)" -lt "$need" ]; then
		if ! echo $((HUGE_OLD + need - $(huge_free_pages))) \
			>"$HUGE_NR" 2>/dev/null; then
			HUGE_WHY="cannot write $HUGE_NR (nr_hugepages $HUGE_OLD)"
			return 1
		fi
		HUGE_SET=1
		if [ "$(huge_free_pages)" -lt "$need" ]; then
			HUGE_WHY="only $(huge_free_pages) of $need hugepages of $page_kb kB could be reserved"
			return 1
		fi
	fi
	while read -r _ mnt fstype opts _; do
		if [ "$fstype" = hugetlbfs ] &&
		   { [[ $opts != *pagesize=* ]] ||
		     [[ $opts == *pagesize=$((page_kb / 1024))M* ]]; }; then
			HUGE_MNT=$mnt
			return 0
		fi
	done </proc/mounts
	HUGE_MNT=$dir
	mkdir -p "$HUGE_MNT"
	if ! mount -t hugetlbfs nodev "$HUGE_MNT" 2>/dev/null; then
		# shellcheck disable=SC2034  # read by the scripts that source this
		HUGE_WHY="cannot mount hugetlbfs on $HUGE_MNT"
		HUGE_MNT=
		return 1
	fi
	HUGE_MOUNTED=1
}

# huge_release [PREFIX]: remove PREFIX's hugepage files, unmount what
# huge_reserve mounted, put nr_hugepages back.  Idempotent.
huge_release() {
	if [ -n "$HUGE_MNT" ] && [ -n "${1-}" ]; then
		rm -f "$HUGE_MNT/$1"map_*
	fi
	if [ "$HUGE_MOUNTED" = 1 ]; then
		umount "$HUGE_MNT" 2>/dev/null || umount -l "$HUGE_MNT" || true
		rmdir "$HUGE_MNT" 2>/dev/null || true
		HUGE_MOUNTED=0
	fi
	if [ "$HUGE_SET" = 1 ]; then
		echo "$HUGE_OLD" >"$HUGE_NR" || true
		HUGE_SET=0
	fi
}
