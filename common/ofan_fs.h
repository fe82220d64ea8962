/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small file-system helpers shared by the programs and the tests.
 */
#ifndef OFAN_FS_H
#define OFAN_FS_H

/*
 * Remove path, a file or a whole directory tree (symbolic links are
 * removed, not followed).  Nothing to do if path is "" or gone.  Used for
 * EAL's runtime directory (/var/run/dpdk/<prefix>), which
 * rte_eal_cleanup() leaves behind, and for temporary directories.
 * Returns 0, or -1 if something could not be removed (errno set).
 */
int ofan_remove_tree(const char *path);

#endif /* OFAN_FS_H */
