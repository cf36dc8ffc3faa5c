/* SPDX-License-Identifier: MIT */
/*
 * elf.c - an object's state dump information from its ELF file (elf.h):
 * the ELF header, the program headers (PT_LOAD extent, PT_NOTE build id)
 * and the section headers (".gnu_debuglink"), each read with pread() at
 * offsets checked against the file's size. Only this machine's class and
 * byte order are read: the objects a process loads are its own kind.
 */
#define _GNU_SOURCE
#include "ust/elf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_DATA ELFDATA2LSB
#else
#define HOST_DATA ELFDATA2MSB
#endif
#if __SIZEOF_POINTER__ == 8
#define HOST_CLASS ELFCLASS64
#else
#define HOST_CLASS ELFCLASS32
#endif

/* Bounds on what a header may make us read (bytes, or entries). */
#define MAX_PHNUM 4096u
#define MAX_SHNUM 65536u
#define MAX_NOTES (64u << 10)
#define MAX_SHSTRTAB (1u << 20)
#define MAX_DEBUGLINK 4096u

struct file {
	int fd;
	uint64_t size;
};

/* Reads @len bytes at @off, which must lie inside the file. 0 or -errno. */
static int read_at(const struct file *f, void *buf, uint64_t len, uint64_t off)
{
	uint64_t done = 0;

	if (off > f->size || len > f->size - off)
		return -ENOEXEC;
	while (done < len) {
		ssize_t n = pread(f->fd, (char *)buf + done, (size_t)(len - done), (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOEXEC;
		done += (uint64_t)n;
	}
	return 0;
}

/* Reads @len (bounded by @max) bytes at @off into a new buffer (the
 * caller frees it), or NULL. */
static void *read_block(const struct file *f, uint64_t off, uint64_t len, uint64_t max)
{
	void *b;

	if (len == 0 || len > max)
		return NULL;
	b = malloc((size_t)len);
	if (b && read_at(f, b, len, off)) {
		free(b);
		b = NULL;
	}
	return b;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The GNU build id among the notes at @n (@len bytes, aligned to @align). */
static void find_build_id(const unsigned char *n, uint64_t len, uint64_t align, struct trawl_ust_elf_info *out)
{
	uint64_t off = 0;

	while (len - off >= sizeof(ElfW(Nhdr))) {
		ElfW(Nhdr) h;
		uint64_t name_off, desc_off, next;

		memcpy(&h, n + off, sizeof(h));
		name_off = off + sizeof(h);
		desc_off = name_off + align_up(h.n_namesz, align);
		next = desc_off + align_up(h.n_descsz, align);
		/* Each step is bounded by len before anything is read. */
		if (desc_off > len || h.n_descsz > len - desc_off || next > len || next <= off)
			return;
		if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 && !memcmp(n + name_off, "GNU", 4) &&
		    h.n_descsz > 0 && h.n_descsz <= TRAWL_UST_BUILD_ID_MAX) {
			memcpy(out->build_id, n + desc_off, h.n_descsz);
			out->build_id_len = h.n_descsz;
			out->has_build_id = 1;
			return;
		}
		off = next;
	}
}

static int read_phdrs(const struct file *f, const ElfW(Ehdr) *eh, struct trawl_ust_elf_info *out)
{
	uint64_t low = UINT64_MAX, high = 0;
	ElfW(Phdr) *ph;
	unsigned int i;

	if (eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phnum == 0 || eh->e_phnum > MAX_PHNUM)
		return -ENOEXEC;
	ph = read_block(f, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(*ph), (uint64_t)MAX_PHNUM * sizeof(*ph));
	if (!ph)
		return -ENOEXEC;
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD) {
			if (ph[i].p_vaddr < low)
				low = ph[i].p_vaddr;
			if (ph[i].p_memsz <= UINT64_MAX - ph[i].p_vaddr && ph[i].p_vaddr + ph[i].p_memsz > high)
				high = ph[i].p_vaddr + ph[i].p_memsz;
		} else if (ph[i].p_type == PT_NOTE && !out->has_build_id) {
			uint64_t align = ph[i].p_align == 8 ? 8 : 4;
			unsigned char *n = read_block(f, ph[i].p_offset, ph[i].p_filesz, MAX_NOTES);

			if (n)
				find_build_id(n, ph[i].p_filesz, align, out);
			free(n);
		}
	}
	free(ph);
	if (high < low)
		return -ENOEXEC; /* no loadable segment */
	out->memsz = high - low;
	return 0;
}

/* The ".gnu_debuglink" section: a file name, then its CRC32 4-aligned. */
static void read_debug_link(const struct file *f, const ElfW(Ehdr) *eh, struct trawl_ust_elf_info *out)
{
	ElfW(Shdr) *sh = NULL;
	char *names = NULL;
	unsigned char *dl = NULL;
	unsigned int i, nsec = eh->e_shnum;
	uint64_t nlen;

	if (eh->e_shentsize != sizeof(ElfW(Shdr)) || nsec == 0 || nsec > MAX_SHNUM || eh->e_shstrndx >= nsec)
		return;
	sh = read_block(f, eh->e_shoff, (uint64_t)nsec * sizeof(*sh), (uint64_t)MAX_SHNUM * sizeof(*sh));
	if (!sh)
		return;
	nlen = sh[eh->e_shstrndx].sh_size;
	names = read_block(f, sh[eh->e_shstrndx].sh_offset, nlen, MAX_SHSTRTAB);
	for (i = 0; names && i < nsec; i++) {
		uint64_t at = sh[i].sh_name, len, crc_off;
		size_t flen;

		if (at >= nlen || nlen - at < sizeof(".gnu_debuglink") ||
		    memcmp(names + at, ".gnu_debuglink", sizeof(".gnu_debuglink")))
			continue;
		len = sh[i].sh_size;
		dl = read_block(f, sh[i].sh_offset, len, MAX_DEBUGLINK);
		if (!dl)
			break;
		flen = strnlen((const char *)dl, (size_t)len);
		crc_off = align_up(flen + 1, 4);
		if (flen == 0 || flen >= TRAWL_UST_DEBUG_LINK_MAX || crc_off > len || len - crc_off < 4)
			break;
		memcpy(out->debug_link, dl, flen + 1);
		memcpy(&out->crc, dl + crc_off, 4);
		out->has_debug_link = 1;
		break;
	}
	free(dl);
	free(names);
	free(sh);
}

int trawl_ust_elf_read_fd(int fd, struct trawl_ust_elf_info *out)
{
	struct file f = { fd, 0 };
	ElfW(Ehdr) eh;
	struct stat st;
	int ret;

	memset(out, 0, sizeof(*out));
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	f.size = (uint64_t)st.st_size;
	ret = read_at(&f, &eh, sizeof(eh), 0);
	if (ret)
		return ret;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != HOST_CLASS ||
	    eh.e_ident[EI_DATA] != HOST_DATA)
		return -ENOEXEC;
	ret = read_phdrs(&f, &eh, out);
	if (ret) {
		memset(out, 0, sizeof(*out));
		return ret;
	}
	out->is_pic = eh.e_type == ET_DYN;
	read_debug_link(&f, &eh, out);
	return 0;
}

int trawl_ust_elf_read(const char *path, struct trawl_ust_elf_info *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), ret;

	if (fd < 0) {
		memset(out, 0, sizeof(*out));
		return -errno;
	}
	ret = trawl_ust_elf_read_fd(fd, out);
	close(fd);
	return ret;
}
