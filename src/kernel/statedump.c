/* SPDX-License-Identifier: MIT */
/*
 * LTTng-modules' state dump, read from /proc and /sys: what existed before
 * tracing began (processes and their names, open files, memory maps,
 * interrupts, disks, network interfaces, CPUs), so that analyses can name
 * the threads and files that later events mention. Written by the kernel
 * consumer into CPU 0's stream of each channel that enabled an
 * lttng_statedump_* event, as lttng_statedump_start, the state events,
 * lttng_statedump_end, with LTTng 2.13's fields (its
 * include/instrumentation/events/lttng-statedump.h and
 * src/lttng-statedump-impl.c: the same values where /proc has them).
 *
 * The events are described to the converter as tracefs formats of a
 * system "lttng_statedump" (ids past the kernel's) and written as ftrace
 * records: the converter, metadata and contexts are the ones every other
 * event goes through. Values and where they come from:
 *   process_state  tid, pid (Tgid), ppid, name, type (1 for a kernel thread:
 *                  PF_KTHREAD in /proc/PID/stat's flags), mode 5 (unknown, as
 *                  LTTng), submode 0, status from the state letter (R: 2
 *                  wait_cpu, S/D/I: 5 wait, Z: 4 zombie, X: 7 dead, else 0),
 *                  cpu (field 39), file_table_address: the process id, an
 *                  opaque key shared with its file_descriptor events (LTTng
 *                  uses the kernel address of the fd table, also opaque)
 *   process_X_ns   the inode of /proc/PID/task/TID/ns/X; pid_ns's vtid/vpid
 *                  from NSpid/NStgid (innermost), ns_level their depth - 1,
 *                  vppid the parent's id from the root (exact in the root namespace)
 *   file_descriptor  /proc/PID/fd/N (the path) and fdinfo's flags; fmode's
 *                  FMODE_READ/FMODE_WRITE from the access mode (the kernel's
 *                  other fmode bits are not shown by /proc)
 *   vm_map         /proc/PID/maps (flags: VM_READ/WRITE/EXEC/SHARED bits)
 *   interrupt      /proc/interrupts (irq, its chip as name, its actions)
 *   block_device   /proc/partitions (MKDEV(major, minor) as the kernel's dev_t)
 *   network_interface  getifaddrs() IPv4 addresses
 *   cpu_topology   /proc/cpuinfo
 * The first dump is taken before tracing starts (the consumer dumps before
 * it says it is ready), so its events precede every traced event of CPU 0;
 * a process created between the dump and the start appears through its
 * sched_process_fork only if it is traced. A dump asked for while tracing
 * runs (`regenerate statedump`) reads CPU 0 to the end first and lets the
 * consumer drain every buffer after each 32 processes: a dump takes ~0.3 s
 * on a machine with 250 threads, long enough to fill the buffers of a busy
 * session (measured: 35,734 events lost in one test before the pauses).
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ifaddrs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define SD_ID0 65000u

/* field:<decl>;offset;size;signed lines follow the common header (8 bytes) */
struct sd_event {
	const char *name;
	const char *fields; /* "type name size" triples, ';'-separated; "str" = __data_loc char[] */
};

enum { SD_START, SD_END, SD_PROC, SD_FD, SD_VM, SD_IRQ, SD_BLK, SD_NET, SD_CPU, SD_PIDNS, SD_NS0 };
static const char *const ns_names[] = { "cgroup", "ipc", "mnt", "net", "uts", "time" };
#define SD_COUNT (SD_NS0 + 6)

static const struct sd_event sd_events[SD_NS0] = {
	[SD_START] = { "lttng_statedump_start", "" },
	[SD_END] = { "lttng_statedump_end", "" },
	[SD_PROC] = { "lttng_statedump_process_state",
		      "int tid 4;int pid 4;int ppid 4;char name[16] 16;int type 4;int mode 4;"
		      "int submode 4;int status 4;unsigned int cpu 4;void * file_table_address 8" },
	[SD_FD] = { "lttng_statedump_file_descriptor",
		    "void * file_table_address 8;int fd 4;unsigned int flags 4;unsigned int fmode 4;str filename 4" },
	[SD_VM] = { "lttng_statedump_vm_map",
		    "int pid 4;void * start 8;void * end 8;void * flags 8;unsigned long inode 8;"
		    "unsigned long pgoff 8" },
	[SD_IRQ] = { "lttng_statedump_interrupt", "unsigned int irq 4;str name 4;str action 4" },
	[SD_BLK] = { "lttng_statedump_block_device", "unsigned int dev 4;str diskname 4" },
	[SD_NET] = { "lttng_statedump_network_interface", "str name 4;unsigned int address_ipv4 4" },
	[SD_CPU] = { "lttng_statedump_cpu_topology",
		     "str architecture 4;unsigned short cpu_id 2;str vendor 4;unsigned char family 1;"
		     "unsigned char model 1;str model_name 4;unsigned short physical_id 2;"
		     "unsigned short core_id 2;unsigned short cores 2" },
	[SD_PIDNS] = { "lttng_statedump_process_pid_ns",
		       "int tid 4;int vtid 4;int vpid 4;int vppid 4;int ns_level 4;unsigned int ns_inum 4" },
};

static const char *const statedump_names[SD_COUNT] = {
	"lttng_statedump_start", "lttng_statedump_end", "lttng_statedump_process_state",
	"lttng_statedump_file_descriptor", "lttng_statedump_vm_map", "lttng_statedump_interrupt",
	"lttng_statedump_block_device", "lttng_statedump_network_interface",
	"lttng_statedump_cpu_topology", "lttng_statedump_process_pid_ns",
	"lttng_statedump_process_cgroup_ns", "lttng_statedump_process_ipc_ns",
	"lttng_statedump_process_mnt_ns", "lttng_statedump_process_net_ns",
	"lttng_statedump_process_uts_ns", "lttng_statedump_process_time_ns",
};

int trawl_kernel_statedump_enable(struct trawl_kernel_instance *inst, const char *pattern, int enable)
{
	int i, n = 0;

	for (i = 0; i < SD_COUNT; i++)
		if (!fnmatch(pattern, statedump_names[i], 0))
			n++;
	/* one dump holds them all: any enabled statedump event asks for it, as lttng's tools do */
	if (n)
		inst->statedump = enable;
	return n;
}

const char *trawl_kernel_statedump_name(int i)
{
	return i >= 0 && i < SD_COUNT ? statedump_names[i] : NULL;
}

/*
 * The tracefs-like format text of statedump event @i (into @buf). 0, or
 * -ENAMETOOLONG when it does not fit (a table grown past @len).
 */
static int sd_format(int i, char *buf, size_t len)
{
	char spec[512], *tok, *save = NULL;
	const char *fields = i < SD_NS0 ? sd_events[i].fields : "int tid 4;unsigned int ns_inum 4";
	size_t o;
	unsigned off = 8;

	o = (size_t)snprintf(buf, len, "name: %s\nID: %u\nformat:\n"
			     "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			     "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
			     "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
			     "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n",
			     statedump_names[i], SD_ID0 + (unsigned)i);
	if (o >= len || trawl_path_fmt(spec, sizeof(spec), "%s", fields))
		return -ENAMETOOLONG;
	for (tok = strtok_r(spec, ";", &save); tok && o < len; tok = strtok_r(NULL, ";", &save)) {
		char *sp = strrchr(tok, ' ');
		unsigned size = (unsigned)atoi(sp + 1);
		int sgn = !strncmp(tok, "int ", 4);

		*sp = '\0';
		if (!strncmp(tok, "str ", 4))
			o += (size_t)snprintf(buf + o, len - o, "\tfield:__data_loc char[] %s;\toffset:%u;"
					      "\tsize:4;\tsigned:0;\n", tok + 4, off);
		else
			o += (size_t)snprintf(buf + o, len - o, "\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
					      tok, off, size, sgn);
		off += size;
	}
	if (o < len)
		o += (size_t)snprintf(buf + o, len - o, "\nprint fmt: \"\"\n");
	return o < len ? 0 : -ENAMETOOLONG;
}

int trawl_kernel_statedump_register(struct trawl_kernel_events *t)
{
	char text[4096];
	int i, ret;

	for (i = 0; i < SD_COUNT; i++) {
		struct trawl_kernel_event *ev = calloc(1, sizeof(*ev));

		if (!ev)
			return -ENOMEM;
		ret = sd_format(i, text, sizeof(text));
		if (ret == 0)
			ret = trawl_kernel_event_parse("lttng_statedump", statedump_names[i], text,
						       ev);
		if (ret < 0) {
			free(ev);
			return ret;
		}
		ev->never_hidden = 1;
		/* LTTng's hex fields that are not pointers here */
		for (int f = 0; f < ev->nfields; f++)
			if (!strcmp(ev->fields[f].name, "fmode") || !strcmp(ev->fields[f].name, "address_ipv4"))
				ev->fields[f].kind = TRAWL_KF_HEX;
		for (int f = 0; f < ev->nfields; f++)
			if (!strcmp(ev->fields[f].name, "address_ipv4"))
				ev->fields[f].big_endian = 1;
		trawl_kernel_events_add(t, ev, 0);
	}
	return 0;
}

/* ---- records ------------------------------------------------------------ */

struct sd_rec {
	uint8_t b[8192];
	uint32_t fixed, len; /* the fixed part's size; bytes used */
};

static void rec_begin(struct sd_rec *r, int ev, uint32_t fixed)
{
	uint16_t id = (uint16_t)(SD_ID0 + (unsigned)ev);
	int32_t pid = (int32_t)getpid();

	memset(r->b, 0, 8 + fixed);
	memcpy(r->b, &id, 2);
	memcpy(r->b + 4, &pid, 4);
	r->fixed = fixed;
	r->len = 8 + fixed;
}

static void rec_put(struct sd_rec *r, uint32_t off, const void *v, size_t n)
{
	memcpy(r->b + 8 + off, v, n);
}

/*
 * A __data_loc string at field offset @off: the text goes after the fixed part.
 * @s is NUL-terminated (strnlen with a bound larger than the caller's array
 * trips gcc -O3's -Wstringop-overread), cut at 4094 bytes.
 */
static void rec_str(struct sd_rec *r, uint32_t off, const char *s)
{
	size_t n = strlen(s);

	n = (n > 4094 ? 4094 : n) + 1;
	uint32_t loc;

	if (r->len + n > sizeof(r->b))
		n = 1, s = "";
	loc = r->len | (uint32_t)n << 16;
	memcpy(r->b + 8 + off, &loc, 4);
	memcpy(r->b + r->len, s, n - 1);
	r->b[r->len + n - 1] = '\0';
	r->len += (uint32_t)n;
}

struct sd_ctx {
	struct trawl_kernel_stream *s;
	void (*pause)(void *arg); /* called between processes (the consumer drains its buffers) */
	void *arg;
	int written;
};

/* Each event at the time it is written, as LTTng's dump: it spans the dump's duration. */
static void rec_emit(struct sd_ctx *c, struct sd_rec *r)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (trawl_kernel_stream_convert_record(c->s, (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec,
					       r->b, r->len, NULL) > 0)
		c->written++;
}

static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((size_t)got + 1 < len && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

/* LTTng's process status from a /proc state letter (see the top of the file). */
static int sd_status(char st)
{
	switch (st) {
	case 'R': return 2;                   /* LTTNG_WAIT_CPU */
	case 'S': case 'D': case 'I': return 5; /* LTTNG_WAIT */
	case 'Z': return 4;                   /* LTTNG_ZOMBIE */
	case 'X': return 7;                   /* LTTNG_DEAD */
	default: return 0;                    /* LTTNG_UNNAMED */
	}
}

/* The last number of a "Key:\tA\tB\tC" line of /proc status text, and how many there are. */
static int status_last(const char *text, const char *key, int32_t *last)
{
	const char *p = strstr(text, key);
	int n = 0;

	if (!p)
		return 0;
	for (p += strlen(key); *p && *p != '\n';) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		*last = (int32_t)v;
		n++;
		p = end;
	}
	return n;
}

static void sd_namespaces(struct sd_ctx *c, long pid, long tid, int32_t ppid, const char *status)
{
	char path[96];
	struct stat st;
	struct sd_rec r;
	int32_t vtid = (int32_t)tid, vpid = (int32_t)pid, v32;
	int levels;
	size_t i;

	levels = status_last(status, "\nNSpid:", &vtid);
	status_last(status, "\nNStgid:", &vpid);
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/ns/pid", pid, tid);
	rec_begin(&r, SD_PIDNS, 24);
	v32 = (int32_t)tid;
	rec_put(&r, 0, &v32, 4);
	rec_put(&r, 4, &vtid, 4);
	rec_put(&r, 8, &vpid, 4);
	rec_put(&r, 12, &ppid, 4); /* vppid: the parent's id seen from the root level, as below */
	v32 = levels > 0 ? levels - 1 : 0;
	rec_put(&r, 16, &v32, 4);
	v32 = stat(path, &st) == 0 ? (int32_t)st.st_ino : 0;
	rec_put(&r, 20, &v32, 4);
	rec_emit(c, &r);
	for (i = 0; i < TRAWL_ARRAY_SIZE(ns_names); i++) {
		snprintf(path, sizeof(path), "/proc/%ld/task/%ld/ns/%s", pid, tid, ns_names[i]);
		if (stat(path, &st) < 0)
			continue;
		rec_begin(&r, SD_NS0 + (int)i, 8);
		v32 = (int32_t)tid;
		rec_put(&r, 0, &v32, 4);
		v32 = (int32_t)st.st_ino;
		rec_put(&r, 4, &v32, 4);
		rec_emit(c, &r);
	}
}

/* One thread's lttng_statedump_process_state (and its namespaces). */
static void sd_thread(struct sd_ctx *c, long pid, long tid)
{
	char path[96], stat_text[1024], status[4096], *p;
	unsigned long flags = 0;
	struct sd_rec r;
	int32_t v, ppid = 0, cpu = 0;
	uint64_t table = (uint64_t)pid;
	char state = '?';
	int i;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/stat", pid, tid);
	if (read_small(path, stat_text, sizeof(stat_text)) <= 0 || !(p = strrchr(stat_text, ')')))
		return;
	state = p[2];
	/* after ") ": 3 state, 4 ppid, ..., 9 flags, ..., 39 processor; p is before field i */
	for (i = 3; p && i <= 39; i++) {
		p = strchr(p + 1, ' ');
		if (!p)
			break;
		if (i == 4)
			ppid = (int32_t)strtol(p + 1, NULL, 10);
		else if (i == 9)
			flags = strtoul(p + 1, NULL, 10);
		else if (i == 39)
			cpu = (int32_t)strtol(p + 1, NULL, 10);
	}
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/status", pid, tid);
	if (read_small(path, status, sizeof(status)) <= 0)
		status[0] = '\0';
	rec_begin(&r, SD_PROC, 60);
	v = (int32_t)tid;
	rec_put(&r, 0, &v, 4);
	v = (int32_t)pid;
	rec_put(&r, 4, &v, 4);
	rec_put(&r, 8, &ppid, 4);
	p = strstr(status, "Name:\t");
	if (p) {
		size_t n = strcspn(p + 6, "\n");

		rec_put(&r, 12, p + 6, TRAWL_MIN(n, (size_t)15));
	}
	v = (flags & 0x00200000) ? 1 : 0; /* PF_KTHREAD: LTTNG_KERNEL_THREAD */
	rec_put(&r, 28, &v, 4);
	v = 5; /* LTTNG_MODE_UNKNOWN, as LTTng */
	rec_put(&r, 32, &v, 4);
	v = 0; /* LTTNG_NONE */
	rec_put(&r, 36, &v, 4);
	v = sd_status(state);
	rec_put(&r, 40, &v, 4);
	rec_put(&r, 44, &cpu, 4);
	if (flags & 0x00200000)
		table = 0; /* kernel threads have no fd table */
	rec_put(&r, 48, &table, 8);
	rec_emit(c, &r);
	sd_namespaces(c, pid, tid, ppid, status);
}

/* The open files of process @pid (one fd table for its threads). */
static void sd_files(struct sd_ctx *c, long pid)
{
	char path[96], target[4096], info[512];
	struct dirent *de;
	struct sd_rec r;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/fd", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		uint64_t table = (uint64_t)pid;
		uint32_t flags = 0, fmode;
		int32_t fd;
		ssize_t n;
		char *p;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		fd = (int32_t)atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/%ld/fd/%d", pid, fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%d", pid, fd);
		if (read_small(path, info, sizeof(info)) > 0 && (p = strstr(info, "flags:")))
			flags = (uint32_t)strtoul(p + 6, NULL, 8);
		/* FMODE_READ 0x1, FMODE_WRITE 0x2 from O_ACCMODE */
		fmode = (flags & 3) == O_RDONLY ? 1u : (flags & 3) == O_WRONLY ? 2u : 3u;
		rec_begin(&r, SD_FD, 24);
		rec_put(&r, 0, &table, 8);
		rec_put(&r, 8, &fd, 4);
		rec_put(&r, 12, &flags, 4);
		rec_put(&r, 16, &fmode, 4);
		rec_str(&r, 20, target);
		rec_emit(c, &r);
	}
	closedir(d);
}

/* Process @pid's memory maps. */
static void sd_maps(struct sd_ctx *c, long pid)
{
	char path[96], line[4096];
	struct sd_rec r;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, inode;
		char perms[8];
		uint64_t flags = 0, v;
		int32_t p32 = (int32_t)pid;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %llu", &start, &end, perms, &pgoff, &inode) != 5)
			continue;
		/* VM_READ 0x1, VM_WRITE 0x2, VM_EXEC 0x4, VM_SHARED 0x8 */
		flags |= perms[0] == 'r' ? 1 : 0;
		flags |= perms[1] == 'w' ? 2 : 0;
		flags |= perms[2] == 'x' ? 4 : 0;
		flags |= perms[3] == 's' ? 8 : 0;
		rec_begin(&r, SD_VM, 44);
		rec_put(&r, 0, &p32, 4);
		v = start;
		rec_put(&r, 4, &v, 8);
		v = end;
		rec_put(&r, 12, &v, 8);
		rec_put(&r, 20, &flags, 8);
		v = inode;
		rec_put(&r, 28, &v, 8);
		v = pgoff / 4096; /* LTTng records vm_pgoff, in pages */
		rec_put(&r, 36, &v, 8);
		rec_emit(c, &r);
	}
	fclose(f);
}

static void sd_processes(struct sd_ctx *c)
{
	struct dirent *pe, *te;
	char path[96];
	DIR *d, *td;
	unsigned n = 0;

	d = opendir("/proc");
	if (!d)
		return;
	while ((pe = readdir(d))) {
		long pid;

		if (!isdigit((unsigned char)pe->d_name[0]))
			continue;
		pid = strtol(pe->d_name, NULL, 10);
		snprintf(path, sizeof(path), "/proc/%ld/task", pid);
		td = opendir(path);
		if (!td)
			continue;
		while ((te = readdir(td)))
			if (isdigit((unsigned char)te->d_name[0]))
				sd_thread(c, pid, strtol(te->d_name, NULL, 10));
		closedir(td);
		sd_files(c, pid);
		sd_maps(c, pid);
		if (c->pause && ++n % 32 == 0)
			c->pause(c->arg);
	}
	closedir(d);
}

/* /proc/interrupts: "  N:  counts...  chip ... actions" lines with a numeric irq. */
static void sd_interrupts(struct sd_ctx *c)
{
	int ncpu = 0;
	char line[1024];
	FILE *f = fopen("/proc/interrupts", "re");

	if (!f)
		return;
	if (fgets(line, sizeof(line), f))
		for (char *p = strtok(line, " \t\n"); p; p = strtok(NULL, " \t\n"))
			ncpu++;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end, *tok, *chip = NULL, actions[512] = "";
		struct sd_rec r;
		unsigned long irq;
		uint32_t v;
		int i;

		while (*p == ' ')
			p++;
		irq = strtoul(p, &end, 10);
		if (end == p || *end != ':')
			continue;
		tok = strtok(end + 1, " \t\n");
		for (i = 0; tok && i < ncpu; i++) /* the per-CPU counts */
			tok = strtok(NULL, " \t\n");
		chip = tok;
		/* the chip's name and hardware irq, then the actions (comma-separated) */
		for (i = 0; (tok = strtok(NULL, "\n")); i++)
			snprintf(actions, sizeof(actions), "%s", tok);
		rec_begin(&r, SD_IRQ, 12);
		v = (uint32_t)irq;
		rec_put(&r, 0, &v, 4);
		rec_str(&r, 4, chip ? chip : "");
		/* the last blank-separated word(s): the action names */
		p = strrchr(actions, ' ');
		rec_str(&r, 8, p ? p + 1 : actions);
		rec_emit(c, &r);
	}
	fclose(f);
}

static void sd_blocks(struct sd_ctx *c)
{
	char line[256], name[128];
	unsigned maj, min;
	FILE *f = fopen("/proc/partitions", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct sd_rec r;
		uint32_t dev;

		if (sscanf(line, " %u %u %*u %127s", &maj, &min, name) != 3)
			continue;
		/* the kernel's dev_t: MKDEV = major << 20 | minor, as LTTng records it */
		dev = maj << 20 | min;
		rec_begin(&r, SD_BLK, 8);
		rec_put(&r, 0, &dev, 4);
		rec_str(&r, 4, name);
		rec_emit(c, &r);
	}
	fclose(f);
}

static void sd_network(struct sd_ctx *c)
{
	struct ifaddrs *ifs, *i;

	if (getifaddrs(&ifs) < 0)
		return;
	for (i = ifs; i; i = i->ifa_next) {
		struct sd_rec r;
		uint32_t a;

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		a = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr; /* network order */
		rec_begin(&r, SD_NET, 8);
		rec_str(&r, 0, i->ifa_name);
		rec_put(&r, 4, &a, 4);
		rec_emit(c, &r);
	}
	freeifaddrs(ifs);
}

static const char *cpuinfo_val(const char *block, const char *key, char *out, size_t len)
{
	const char *p = strstr(block, key);

	out[0] = '\0';
	if (p && (p = strchr(p, ':'))) {
		p += p[1] == ' ' ? 2 : 1;
		snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
	}
	return out;
}

/* /proc/cpuinfo, one block per CPU (x86: LTTng's fields). */
static void sd_cpus(struct sd_ctx *c)
{
	static char text[1 << 18];
	char *blk, *next, v[256], vendor[64], model[256];
	ssize_t n = read_small("/proc/cpuinfo", text, sizeof(text));

	for (blk = n > 0 ? text : NULL; blk && *blk; blk = next) {
		struct sd_rec r;
		uint16_t u16;
		uint8_t u8;

		next = strstr(blk, "\n\n");
		if (next)
			*next = '\0', next += 2;
		if (!strstr(blk, "processor"))
			continue;
		rec_begin(&r, SD_CPU, 22);
		rec_str(&r, 0, "x86");
		u16 = (uint16_t)atoi(cpuinfo_val(blk, "processor", v, sizeof(v)));
		rec_put(&r, 4, &u16, 2);
		rec_str(&r, 6, cpuinfo_val(blk, "vendor_id", vendor, sizeof(vendor)));
		u8 = (uint8_t)atoi(cpuinfo_val(blk, "cpu family", v, sizeof(v)));
		rec_put(&r, 10, &u8, 1);
		u8 = (uint8_t)atoi(cpuinfo_val(blk, "model\t", v, sizeof(v)));
		rec_put(&r, 11, &u8, 1);
		rec_str(&r, 12, cpuinfo_val(blk, "model name", model, sizeof(model)));
		u16 = (uint16_t)atoi(cpuinfo_val(blk, "physical id", v, sizeof(v)));
		rec_put(&r, 16, &u16, 2);
		u16 = (uint16_t)atoi(cpuinfo_val(blk, "core id", v, sizeof(v)));
		rec_put(&r, 18, &u16, 2);
		u16 = (uint16_t)atoi(cpuinfo_val(blk, "cpu cores", v, sizeof(v)));
		rec_put(&r, 20, &u16, 2);
		rec_emit(c, &r);
	}
}

int trawl_kernel_statedump_write(struct trawl_kernel_stream *s, void (*pause)(void *arg), void *arg)
{
	struct sd_ctx c = { s, pause, arg, 0 };
	struct sd_rec r;

	rec_begin(&r, SD_START, 0);
	rec_emit(&c, &r);
	sd_processes(&c);
	sd_interrupts(&c);
	sd_blocks(&c);
	sd_network(&c);
	sd_cpus(&c);
	rec_begin(&r, SD_END, 0);
	rec_emit(&c, &r);
	return c.written;
}
