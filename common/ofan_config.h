/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Strict INI configuration loader on top of iniparser.
 *
 * Every ofan program reads its settings through these typed getters.  Each
 * getter validates the value (syntax, unit, range) and on failure records a
 * message of the form
 *     FILE:SECTION:KEY: 'VALUE' <what is wrong>; expected <what is allowed>
 * and returns -EINVAL.  Numbers are parsed by hand: iniparser's getint
 * would silently accept "12abc" and octal "010".
 *
 * Keys that no getter asked for are errors too: after a program has read
 * everything it understands, ofan_cfg_check_unknown() reports the first key
 * (or section) nobody read, with the list of keys that section allows.
 *
 * Getters take the default in *out: when the key is absent and
 * OFAN_CFG_REQUIRED is not set, *out is left untouched and 0 is returned.
 * Section and key names are case-insensitive (iniparser lower-cases them).
 */
#ifndef OFAN_CONFIG_H
#define OFAN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ofan_cfg;

#define OFAN_CFG_REQUIRED 0x1

/*
 * Load path.  On failure returns NULL and writes a one-line message (file
 * missing, syntax error) into err.
 */
struct ofan_cfg *ofan_cfg_load(const char *path, char *err, size_t err_size);

/*
 * Load the len bytes at text (which may hold NUL bytes and need not end
 * in one; NULL if len is 0) exactly as ofan_cfg_load() loads a file
 * called name holding them: the same syntax (iniparser's, through an
 * in-memory file), the same configuration and messages, which say name
 * ("name:LINE: ...", "name:SEC:KEY: ...").  Relative paths in values
 * (ofan_cfg_path_of(), ofan_cfg_devargs()) are relative to name's
 * folder, so to the current directory when name has no '/'.  name is
 * copied; text is not kept.  Needs memfd_create() and /proc.
 */
struct ofan_cfg *ofan_cfg_load_mem(const char *name, const char *text,
				   size_t len, char *err, size_t err_size);
void ofan_cfg_free(struct ofan_cfg *cfg);

/*
 * Load path, run fill(cfg, arg) (a program's loader: getters, cross
 * checks, ofan_cfg_check_unknown), free.  Returns fill's result; on failure
 * the message is in err.
 */
int ofan_cfg_load_with(const char *path,
		       int (*fill)(struct ofan_cfg *cfg, void *arg),
		       void *arg, char *err, size_t err_size);

/* The file name as given to ofan_cfg_load() (the name, from memory). */
const char *ofan_cfg_path(const struct ofan_cfg *cfg);

/* The last error message, "" when none. */
const char *ofan_cfg_error(const struct ofan_cfg *cfg);

/*
 * Record an error about sec:key found by the caller (e.g. a cross-key
 * check, on the key ofan_cfg_blame() picks).  Formats "FILE:SEC:KEY: "
 * (for a value an override set, its origin: "command line:
 * traffic.size=1MiB: ") followed by fmt.  Returns -EINVAL.
 */
int ofan_cfg_fail(struct ofan_cfg *cfg, const char *sec, const char *key,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Cross-key checks.  A rule that two or more keys must keep together
 * (ecn_kmin <= ecn_kmax, pfc_xon < pfc_xoff, dp x tp x pp <= the hosts,
 * pp dividing layers, a key that needs another's value) is broken by
 * all of them at once, but its complaint names one: the key the user
 * most likely means to change.  ofan_cfg_blame() picks it from the keys
 * of the rule, in this order:
 *   1. a key an override set (ofan_cfg_set_from(): the command line, a
 *      sweep's value), over
 *   2. a key written in the file, over
 *   3. a key left out (the program's default);
 * and among keys alike, the first listed.  A check lists first the key
 * its rule is stated from, so that a file breaking the rule by itself is
 * told so where it always was, and phrases its message from the side of
 * the key it blames: with "queue.ecn_kmin=1MiB" on the command line and
 * ecn_kmax = 207500 in the file, "command line: queue.ecn_kmin=1MiB:
 * '1048576' bytes is above ecn_kmax (207500 bytes); expected ecn_kmin <=
 * ecn_kmax", not a complaint about the file's ecn_kmax.
 *
 * A key that is missing because of another key's value ("rate missing;
 * expected it for mode = degraded") is named as missing unless an
 * override set that other key (ofan_cfg_overridden()): then the
 * override is.  A name that must exist among what other keys build (a
 * link of the topology, a [group.NAME]) is a reference, not a rule of
 * several keys: it is blamed on the name.
 */
struct ofan_cfg_key {
	const char *sec;
	const char *key;
};

/* True if an override (ofan_cfg_set_from(), origin set) set sec:key. */
bool ofan_cfg_overridden(const struct ofan_cfg *cfg, const char *sec,
			 const char *key);

/*
 * The index in keys[0 .. n-1] (n >= 1) of the key a broken rule is to
 * blame, by the order above.  Marks nothing as read.
 */
int ofan_cfg_blame(const struct ofan_cfg *cfg,
		   const struct ofan_cfg_key *keys, int n);

/* The same for two keys a and b of section sec: 0 for a, 1 for b. */
int ofan_cfg_blame2(const struct ofan_cfg *cfg, const char *sec,
		    const char *a, const char *b);

/*
 * For a rule whose message is phrased for keys[0] alone (a module's
 * check, e.g. a traffic pattern's): record fmt about keys[0] as
 * ofan_cfg_fail() does, unless ofan_cfg_blame() picks another key,
 * keys[i]; then "WHERE-I: 'VALUE-I' conflicts with [SEC-0] KEY-0: "
 * followed by fmt, WHERE-I being what ofan_cfg_fail() would begin a
 * complaint about keys[i] with.  Returns -EINVAL.
 */
int ofan_cfg_fail_keys(struct ofan_cfg *cfg, const struct ofan_cfg_key *keys,
		       int n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The value of sec:key as the getters read it (overrides applied), NULL
 * when it is absent.  Marks nothing as read; points into cfg.
 */
const char *ofan_cfg_value(const struct ofan_cfg *cfg, const char *sec,
			   const char *key);

/*
 * Override or add a value before the getters run ("sec:key" = value), e.g.
 * from a command-line "sec.key=value".  Returns 0 or -EINVAL.
 */
int ofan_cfg_set(struct ofan_cfg *cfg, const char *sec, const char *key,
		 const char *value);
/*
 * The same, remembering what set it (e.g. "command line: traffic.size=1MiB"):
 * a complaint about that value then begins with origin instead of
 * "FILE:SEC:KEY".
 */
int ofan_cfg_set_from(struct ofan_cfg *cfg, const char *sec, const char *key,
		      const char *value, const char *origin);

/*
 * What set sec:key, as given to ofan_cfg_set_from() ("command line:
 * fabric.k=4"); NULL when the file did (or nothing).
 */
const char *ofan_cfg_origin(const struct ofan_cfg *cfg, const char *sec,
			    const char *key);

/*
 * A path from value sec:key, as a user means it: a relative path written
 * in the file is relative to the file's folder; one given by an override
 * (ofan_cfg_set_from) is relative to the current directory, as typed.
 * Into out; returns 0 or -EINVAL (too long, message in cfg).
 */
int ofan_cfg_path_of(struct ofan_cfg *cfg, const char *sec, const char *key,
		     const char *value, char *out, size_t size);

/*
 * DPDK devargs ("net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap") from
 * sec:key with their file arguments (rx_pcap, tx_pcap, memif's socket)
 * resolved as ofan_cfg_path_of() does, and checked: rx_pcap must be
 * readable, tx_pcap's and socket's folder must exist and be writable.
 * Into out; returns 0 or -EINVAL with "FILE:SEC:KEY: ..." in cfg, so that
 * a missing capture is found before any port is probed.
 */
int ofan_cfg_devargs(struct ofan_cfg *cfg, const char *sec, const char *key,
		     const char *dev, char *out, size_t size);

/*
 * The device a port's dev names, for telling two ports on one device
 * apart before EAL runs: the name before the first ',' (a vdev's name,
 * "ringpair:RING:END", a PCI address), a PCI address with its domain
 * (01:00.0 is 0000:01:00.0), lower case.  out gets at most size - 1
 * characters.
 */
void ofan_cfg_dev_name(const char *dev, char *out, size_t size);

/*
 * Refuse two of n ports on one device: [port.i] with devs[i].  0, or
 * -EINVAL with "file:port.I:dev: 'NAME' is the same device as [port.J];
 * expected each port on its own device" in cfg.
 */
int ofan_cfg_check_devices(struct ofan_cfg *cfg, const char *const *devs,
			   int n);

/*
 * Write cfg as an INI file to f: every section and key in file order, the
 * values as the getters read them (overrides applied), after a value an
 * override set a comment naming it ("; command line: fabric.k=4"), and
 * before a section an override made "; made by ..." (iniparser reads no
 * comment on a section's line).  Loading the output gives the same
 * sections, keys and values.  Returns 0 or -EIO.
 */
int ofan_cfg_write(const struct ofan_cfg *cfg, FILE *f);

/*
 * Reference: while a reference records (a program's --config-reference),
 * every getter on any cfg notes its key, what it accepts (the words of
 * its error messages), whether it is required and the value the program
 * held before the call (its default).  A section [NAME.<digits>] is noted
 * as [NAME.N], [NAME.name] (any case) as [NAME.NAME].  ofan_cfg_ref_write() prints Markdown tables, sections and
 * keys by name.  One reference records at a time.
 */
struct ofan_cfg_ref;
struct ofan_cfg_ref *ofan_cfg_ref_new(void);
void ofan_cfg_ref_free(struct ofan_cfg_ref *r);
/* Record into r from now on (NULL: stop). */
void ofan_cfg_ref_record(struct ofan_cfg_ref *r);
bool ofan_cfg_ref_recording(void);
/* What the getters call; def NULL when there is none to show. */
void ofan_cfg_ref_note(const char *sec, const char *key, unsigned int flags,
		       const char *expect, const char *def);
void ofan_cfg_ref_write(struct ofan_cfg_ref *r, FILE *f);

/* True if the section exists. Marks nothing as read. */
bool ofan_cfg_has_section(const struct ofan_cfg *cfg, const char *sec);
/* True if sec:key exists.  Marks nothing as read. */
bool ofan_cfg_has_key(const struct ofan_cfg *cfg, const char *sec,
		      const char *key);

/*
 * Names of the sections whose name starts with prefix (e.g. "port.") and
 * goes on after it, in file order ("[port.]" is not one: the unknown-key
 * check reports it).  Fills up to max names (pointers owned by cfg) and
 * returns how many there are in total.
 */
int ofan_cfg_sections(const struct ofan_cfg *cfg, const char *prefix,
		      const char **names, int max);

/*
 * Names of the keys of section sec ("" for keys before any section), in
 * file order, overrides last.  Fills up to max names (pointers owned by
 * cfg) and returns how many there are in total (0: no such section).
 * Marks nothing as read.
 */
int ofan_cfg_keys(const struct ofan_cfg *cfg, const char *sec,
		  const char **keys, int max);

/*
 * Mark a section as known even if none of its keys are read (e.g. the
 * section of a policy that is not selected but was validated).  The
 * unknown-key check then skips the whole section.
 */
void ofan_cfg_mark_section(struct ofan_cfg *cfg, const char *sec);

/* Strings.  *out points into cfg and lives as long as cfg. */
int ofan_cfg_get_str(struct ofan_cfg *cfg, const char *sec, const char *key,
		     unsigned int flags, const char **out);

/* Unsigned integer in [min, max]; decimal only ("010" is ten, "0x10" is rejected). */
int ofan_cfg_get_u64(struct ofan_cfg *cfg, const char *sec, const char *key,
		     unsigned int flags, uint64_t min, uint64_t max,
		     uint64_t *out);
int ofan_cfg_get_u32(struct ofan_cfg *cfg, const char *sec, const char *key,
		     unsigned int flags, uint32_t min, uint32_t max,
		     uint32_t *out);

/* Finite real number in [min, max]. */
int ofan_cfg_get_double(struct ofan_cfg *cfg, const char *sec,
			const char *key, unsigned int flags, double min,
			double max, double *out);

/* yes/no, true/false, on/off, 1/0. */
int ofan_cfg_get_bool(struct ofan_cfg *cfg, const char *sec, const char *key,
		      unsigned int flags, bool *out);

/*
 * One of a NULL-terminated list of names; *out is the index.  The error
 * lists the allowed names.
 */
int ofan_cfg_get_enum(struct ofan_cfg *cfg, const char *sec, const char *key,
		      unsigned int flags, const char *const *names, int *out);

/*
 * Link or shaping rate in bits per second: "100G", "10Gbps", "2.5G",
 * "400M", "1000000" (suffixes K/M/G/T, optional "bps" or "b/s", any case;
 * decimal, not 1024; a fraction is rounded to the nearest bit/s).
 */
int ofan_cfg_get_rate(struct ofan_cfg *cfg, const char *sec, const char *key,
		      unsigned int flags, uint64_t min, uint64_t max,
		      uint64_t *out_bps);

/*
 * Duration in nanoseconds: "1us", "2.5ms", "100ns", "1s", "0".  The unit
 * is required except for "0"; a fraction is rounded to the nearest ns.
 */
int ofan_cfg_get_time(struct ofan_cfg *cfg, const char *sec, const char *key,
		      unsigned int flags, uint64_t min_ns, uint64_t max_ns,
		      uint64_t *out_ns);

/*
 * Size in bytes: "4096", "4KiB", "2MiB", "1GiB", "9000B", "1.5KiB".
 * KiB/MiB/GiB/TiB are powers of 1024; K/KB, M/MB, G/GB, T/TB are powers
 * of 1000 (any case).  The result must be a whole number of bytes.
 */
int ofan_cfg_get_size(struct ofan_cfg *cfg, const char *sec, const char *key,
		      unsigned int flags, uint64_t min, uint64_t max,
		      uint64_t *out);

/*
 * Dotted-quad IPv4 address, host byte order.  Parts have no leading
 * zeros ("010" would be octal to inet_aton()).
 */
int ofan_cfg_get_ipv4(struct ofan_cfg *cfg, const char *sec, const char *key,
		      unsigned int flags, uint32_t *out);

/* IPv4 prefix "10.1.0.0/16" (host order); host bits must be zero. */
int ofan_cfg_get_prefix(struct ofan_cfg *cfg, const char *sec,
			const char *key, unsigned int flags, uint32_t *addr,
			uint8_t *len);

/* MAC address "02:00:00:00:00:01". */
int ofan_cfg_get_mac(struct ofan_cfg *cfg, const char *sec, const char *key,
		     unsigned int flags, uint8_t mac[6]);

/*
 * Comma separated unsigned integers, each in [min, max]: "4, 5, 6, 7".
 * Fills up to max_count values into out, sets *count.  More values than
 * max_count is an error.
 */
int ofan_cfg_get_u32_list(struct ofan_cfg *cfg, const char *sec,
			  const char *key, unsigned int flags, uint32_t min,
			  uint32_t max, uint32_t *out, uint32_t max_count,
			  uint32_t *count);

/*
 * After every getter has run: returns 0 if every key of every section was
 * read, else records "FILE:SEC:KEY: unknown key; allowed keys in [SEC]:
 * a, b, c" (or "FILE:SEC: unknown section") and returns -EINVAL.
 */
int ofan_cfg_check_unknown(struct ofan_cfg *cfg);

/*
 * Plain parsers behind the getters, for command-line values.  Each returns
 * 0 or -EINVAL and accepts exactly the syntax documented above.
 */
int ofan_parse_u64(const char *s, uint64_t *out);
int ofan_parse_double(const char *s, double *out);
int ofan_parse_rate(const char *s, uint64_t *out_bps);
int ofan_parse_time(const char *s, uint64_t *out_ns);
int ofan_parse_size(const char *s, uint64_t *out);
int ofan_parse_ipv4(const char *s, uint32_t *out);
int ofan_parse_mac(const char *s, uint8_t mac[6]);
/*
 * A moment as seconds since the Unix epoch, with up to nine fraction
 * digits ("1764633600.25"), exactly, into nanoseconds (--start-at).
 */
int ofan_parse_epoch(const char *s, uint64_t *out_ns);

#endif /* OFAN_CONFIG_H */
