/* SPDX-License-Identifier: MIT */
/*
 * Where a user-space probe goes: an ELF function's first instruction, or
 * the sites of an SDT probe (sys/sdt.h's STAP_PROBE), as file offsets.
 *
 * As in LTTng, a client names only a function or an SDT probe, never an
 * offset: a uprobe placed anywhere else could land mid-instruction and
 * break the traced program. The file is opened, and its ELF parsed, by a
 * child holding the requesting user's credentials (trawl_as_user): a file
 * they cannot read is refused by the kernel's own check, and a hostile ELF
 * is parsed without root's rights. The daemon gets back the open fd and the
 * offsets; it then defines the probe on /proc/self/fd/N, i.e. on the very
 * file the child opened and parsed, whatever the path names by then.
 *
 * SDT notes (.note.stapsdt, type 3, owner "stapsdt"): desc holds the probe
 * address, the link-time address of .stapsdt.base and the semaphore's
 * address (each of the ELF class's address size), then provider and name
 * as NUL-terminated strings, then the argument description (unused: SDT
 * probes record no arguments here, as in LTTng). When the file was
 * prelinked or relocated, .stapsdt.base's address differs from the one in
 * the note, and both addresses move by that difference. A probe with a
 * semaphore is defined with the semaphore's file offset as uprobe
 * reference counter, so the kernel raises it while the probe is enabled.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RESOLVE_TIMEOUT_MS 5000

static __attribute__((format(printf, 2, 3))) void site_err(struct trawl_kernel_uprobe_sites *s,
							   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

/*
 * The file offset of address @vaddr in a PT_LOAD segment (executable with
 * @exec). A segment that claims bytes past the file's @fsize is no segment:
 * the offset handed back is always inside the file.
 */
static int vaddr_to_offset(Elf *e, uint64_t fsize, uint64_t vaddr, int exec, uint64_t *off)
{
	size_t i, nph;

	if (elf_getphdrnum(e, &nph) < 0)
		return -ENOEXEC;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (exec && !(ph.p_flags & PF_X))
			continue;
		if (ph.p_offset > fsize || ph.p_filesz > fsize - ph.p_offset)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* The address of function @sym (.symtab first, then .dynsym), or -ENOENT. */
static int function_address(Elf *e, const char *sym, uint64_t *vaddr)
{
	Elf_Scn *scn = NULL;
	size_t i;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_value || s.st_shndx == SHN_UNDEF)
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (n && !strcmp(n, sym)) {
				*vaddr = s.st_value;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* The address of section @name, or 0. */
static uint64_t section_address(Elf *e, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx) < 0)
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name))
			return sh.sh_addr;
	}
	return 0;
}

/* An address of @size bytes (4 or 8) in the file's byte order. */
static uint64_t read_addr(const unsigned char *p, size_t size, int big)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < size; i++)
		v |= (uint64_t)p[big ? size - 1 - i : i] << (8 * i);
	return v;
}

struct sdt_note {
	uint64_t pc, base, sem;
	const char *provider, *name;
};

/* Decodes one stapsdt note's @desc (@len bytes). 0, or -EINVAL if malformed. */
static int sdt_decode(const unsigned char *desc, size_t len, size_t asize, int big,
		      struct sdt_note *n)
{
	const char *p, *end = (const char *)desc + len;

	if (len < 3 * asize + 2)
		return -EINVAL;
	n->pc = read_addr(desc, asize, big);
	n->base = read_addr(desc + asize, asize, big);
	n->sem = read_addr(desc + 2 * asize, asize, big);
	n->provider = (const char *)desc + 3 * asize;
	p = memchr(n->provider, '\0', (size_t)(end - n->provider));
	if (!p || p + 1 >= end)
		return -EINVAL;
	n->name = p + 1;
	if (!memchr(n->name, '\0', (size_t)(end - n->name)))
		return -EINVAL;
	return 0;
}

/* Adds one site of an SDT probe to @s. */
static int sdt_site(Elf *e, uint64_t fsize, const struct sdt_note *n, uint64_t base_addr,
		    struct trawl_kernel_uprobe_sites *s)
{
	uint64_t pc = n->pc, sem = n->sem, off, ref = 0;

	if (n->base && base_addr) {
		pc += base_addr - n->base;
		if (sem)
			sem += base_addr - n->base;
	}
	if (vaddr_to_offset(e, fsize, pc, 1, &off) < 0)
		return -ENOEXEC;
	if (sem && vaddr_to_offset(e, fsize, sem, 0, &ref) < 0)
		return -ENOEXEC;
	if (s->n >= TRAWL_KERNEL_UPROBE_SITES_MAX)
		return -E2BIG;
	s->offset[s->n] = off;
	s->ref_ctr[s->n] = ref;
	s->n++;
	return 0;
}

static int sdt_locate(Elf *e, uint64_t fsize, const struct trawl_kernel_uprobe_loc *loc,
		      struct trawl_kernel_uprobe_sites *s)
{
	const char *ident = elf_getident(e, NULL);
	size_t asize = gelf_getclass(e) == ELFCLASS32 ? 4 : 8, shstrndx;
	uint64_t base_addr = section_address(e, ".stapsdt.base");
	int big = ident && ident[EI_DATA] == ELFDATA2MSB, ret;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(e, &shstrndx) < 0)
		return -ENOEXEC;
	while ((scn = elf_nextscn(e, scn))) {
		size_t off = 0, name_off, desc_off, next;
		const char *secname;
		GElf_Nhdr nh;
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(secname = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    strcmp(secname, ".note.stapsdt") || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			struct sdt_note n;

			off = next;
			if (nh.n_type != 3 || nh.n_namesz != 8 ||
			    memcmp((const char *)d->d_buf + name_off, "stapsdt", 8) ||
			    sdt_decode((const unsigned char *)d->d_buf + desc_off, nh.n_descsz, asize,
				       big, &n) < 0 ||
			    strcmp(n.provider, loc->provider) || strcmp(n.name, loc->symbol))
				continue;
			ret = sdt_site(e, fsize, &n, base_addr, s);
			if (ret < 0)
				return ret;
		}
	}
	return s->n ? 0 : -ENOENT;
}

int trawl_kernel_elf_locate(Elf *e, uint64_t fsize, const struct trawl_kernel_uprobe_loc *loc,
			    struct trawl_kernel_uprobe_sites *s)
{
	GElf_Ehdr eh;
	uint64_t vaddr;
	int ret;

	s->n = 0;
	if (elf_kind(e) != ELF_K_ELF) {
		site_err(s, "%s is not an ELF file", loc->path);
		return -ENOEXEC;
	}
	if (!gelf_getehdr(e, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		site_err(s, "%s is not an executable or a shared library",
			 loc->path);
		return -ENOEXEC;
	}
	if (loc->kind == TRAWL_KERNEL_UPROBE_SDT) {
		ret = sdt_locate(e, fsize, loc, s);
		if (ret == -ENOENT)
			site_err(s, "no SDT probe %s:%s in %s", loc->provider,
				 loc->symbol, loc->path);
		else if (ret == -E2BIG)
			site_err(s, "SDT probe %s:%s has more than %d sites in %s",
				 loc->provider, loc->symbol, TRAWL_KERNEL_UPROBE_SITES_MAX, loc->path);
		else if (ret < 0)
			site_err(s, "SDT probe %s:%s in %s is outside the file's "
				 "loaded segments", loc->provider, loc->symbol, loc->path);
		return ret;
	}
	ret = function_address(e, loc->symbol, &vaddr);
	if (ret < 0) {
		site_err(s, "no function \"%s\" in %s", loc->symbol, loc->path);
		return -ENOENT;
	}
	ret = vaddr_to_offset(e, fsize, vaddr, 1, &s->offset[0]);
	if (ret < 0) {
		site_err(s, "function \"%s\" in %s is outside the file's executable segments",
			 loc->symbol, loc->path);
		return -ENOEXEC;
	}
	s->ref_ctr[0] = 0;
	s->n = 1;
	return 0;
}

/*
 * Opens @path for reading if it is a regular file. It is first opened
 * O_PATH (which opens nothing: no device's open side effect, no FIFO
 * to wait on), checked, then reopened through /proc/self/fd, which
 * reaches that same inode and checks the read permission again.
 */
static int open_regular(const char *path, struct trawl_kernel_uprobe_sites *s)
{
	char again[64];
	struct stat st;
	int pfd, fd;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0) {
		fd = -errno;
		site_err(s, "%s: %s", path, strerror(-fd));
		return fd;
	}
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		site_err(s, "%s is not a regular file", path);
		close(pfd);
		return -EINVAL;
	}
	snprintf(again, sizeof(again), "/proc/self/fd/%d", pfd);
	fd = open(again, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		fd = -errno;
		site_err(s, "%s: %s", path, strerror(-fd));
	}
	close(pfd);
	return fd;
}

/* Runs as the requesting user (trawl_as_user): opens and parses the file. */
static int resolve_as_user(void *arg, void *out, int *fdp)
{
	const struct trawl_kernel_uprobe_loc *loc = arg;
	struct trawl_kernel_uprobe_sites *s = out;
	struct stat st;
	int fd, ret;
	Elf *e;

	fd = open_regular(loc->path, s);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		site_err(s, "%s: %s", loc->path, strerror(-ret));
		close(fd);
		return ret;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		site_err(s, "%s is not an ELF file", loc->path);
		close(fd);
		return -ENOEXEC;
	}
	ret = trawl_kernel_elf_locate(e, (uint64_t)st.st_size, loc, s);
	elf_end(e);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	*fdp = fd;
	return 0;
}

/* The child's error line, trusted no further than being printable text. */
static void copy_err(char *dst, size_t len, const char *src, size_t srclen)
{
	size_t i;

	for (i = 0; i + 1 < len && i < srclen && src[i]; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

size_t trawl_kernel_uprobe_sites_size(void)
{
	return sizeof(struct trawl_kernel_uprobe_sites);
}

int trawl_kernel_uprobe_locate(const char *target, struct trawl_kernel_uprobe_sites *s, int *fd)
{
	struct trawl_kernel_uprobe_loc *loc = malloc(sizeof(*loc));
	int ret;

	*fd = -1;
	memset(s, 0, sizeof(*s));
	if (!loc)
		return -ENOMEM;
	ret = trawl_kernel_uprobe_loc_parse(target, loc, s->err, sizeof(s->err));
	if (ret == 0)
		ret = resolve_as_user(loc, s, fd);
	free(loc);
	return ret;
}

int trawl_kernel_uprobe_resolve(const struct trawl_kernel_uprobe_loc *loc, uid_t uid, gid_t gid,
				int *fd, struct trawl_kernel_uprobe_sites *s, char *err,
				size_t errlen)
{
	int ret;

	memset(s, 0, sizeof(*s));
	ret = trawl_as_user(uid, gid, resolve_as_user, (void *)loc, s, sizeof(*s), fd,
			    RESOLVE_TIMEOUT_MS);
	if (ret == -ETIMEDOUT) {
		trawl_msg_fmt(err, errlen, "user-space probe: reading %s took more than %d s",
			      loc->path, RESOLVE_TIMEOUT_MS / 1000);
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return ret;
	}
	return trawl_kernel_uprobe_check(loc, uid, ret, fd, s, err, errlen);
}

int trawl_kernel_uprobe_check(const struct trawl_kernel_uprobe_loc *loc, uid_t uid, int ret,
			      int *fd, struct trawl_kernel_uprobe_sites *s, char *err, size_t errlen)
{
	struct stat st;
	uint32_t i;

	if (ret < 0) {
		if (s->err[0])
			copy_err(err, errlen, s->err, sizeof(s->err));
		else
			trawl_msg_fmt(err, errlen, "user-space probe: cannot read %s as uid %d: %s",
				      loc->path, (int)uid, strerror(-ret));
		goto err_close;
	}
	/* The child runs as the user: check what it says against the file itself. */
	ret = -EINVAL;
	if (*fd < 0 || fstat(*fd, &st) < 0 || !S_ISREG(st.st_mode) || s->n == 0 ||
	    s->n > TRAWL_KERNEL_UPROBE_SITES_MAX) {
		trawl_msg_fmt(err, errlen, "user-space probe: %s: no usable answer", loc->path);
		goto err_close;
	}
	for (i = 0; i < s->n; i++) {
		if (s->offset[i] >= (uint64_t)st.st_size || s->ref_ctr[i] >= (uint64_t)st.st_size) {
			trawl_msg_fmt(err, errlen, "user-space probe: %s: offset outside the file",
				      loc->path);
			goto err_close;
		}
	}
	return 0;

err_close:
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return ret;
}
