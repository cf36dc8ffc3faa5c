/* SPDX-License-Identifier: MIT */
/*
 * elf.h - what the user-space state dump and the dl helper say about a
 * loaded object, read from its ELF file as LTTng-UST reads it: the extent
 * of its loadable segments (memsz), whether it is position independent,
 * its GNU build id and its debug link (file name and CRC).
 *
 * The file is outside input (any object a program loads): every offset and
 * size is checked against the file's size before it is used, nothing is
 * read past what the caller's buffers hold, and a file that is not a
 * well-formed ELF object of this machine's class and byte order just has
 * no information (fuzzed in fuzz/ust/).
 */
#ifndef TRAWL_UST_ELF_H
#define TRAWL_UST_ELF_H

#include <stddef.h>
#include <stdint.h>

#define TRAWL_UST_BUILD_ID_MAX 64  /* bytes; a longer build id is not reported */
#define TRAWL_UST_DEBUG_LINK_MAX 256 /* bytes of the file name, NUL included */

struct trawl_ust_elf_info {
	uint64_t memsz; /* bytes from the lowest to the highest PT_LOAD address */
	uint8_t is_pic; /* ET_DYN */
	uint8_t has_build_id, has_debug_link;
	uint8_t build_id[TRAWL_UST_BUILD_ID_MAX];
	size_t build_id_len;
	char debug_link[TRAWL_UST_DEBUG_LINK_MAX];
	uint32_t crc;
};

/**
 * trawl_ust_elf_read_fd - read an object's information from its file
 * @fd: the file, open for reading (not closed here)
 * @out: filled; zeroed first
 *
 * Returns 0, or -ENOEXEC when the file is not an ELF object of this
 * machine's class and byte order with loadable segments (-errno on a read
 * error). The build id and debug link are optional: absent, or malformed,
 * their has_* flag stays 0.
 */
int trawl_ust_elf_read_fd(int fd, struct trawl_ust_elf_info *out);

/* The same for the file at @path. */
int trawl_ust_elf_read(const char *path, struct trawl_ust_elf_info *out);

#endif /* TRAWL_UST_ELF_H */
