/* SPDX-License-Identifier: MIT */
/*
 * System calls as LTTng-modules 2.13 records them: syscall_entry_X with the
 * arguments LTTng lists as input (sc_in, sc_inout), syscall_exit_X with
 * `ret` then the output ones (sc_out, sc_inout), pointers as unsigned
 * decimal integers (LTTng's ctf_integer of a pointer type) unless LTTng
 * prints them in hex, and user strings (paths, names) as strings.
 *
 * The arguments, their order and C types come from the running kernel's
 * `syscalls/sys_enter_X/format` (format.c narrows each to its C type); the
 * table below holds only where LTTng's x86-64 tables differ from "every
 * argument is an input integer". How it was made: LTTng-modules' stable-2.13
 * include/instrumentation/syscalls/headers/x86-64-syscalls_{integers,
 * pointers}.h and their overrides were run through the C preprocessor with
 * sc_in/sc_out/sc_inout and the ctf_* macros printing each field's
 * direction, kind and name, and compared with this kernel's formats by a
 * script; five renames (clone, mmap, getcpu, socketpair) were written by
 * hand. A token is "name:attr[,attr][=source]":
 *   str        a user string (LTTng's ctf_user_string)
 *   hex        printed in hex (ctf_integer_hex)
 *   out inout  recorded at exit only / at entry and exit
 *   i32x2      points to two ints read at exit (pipe2's fildes)
 *   =source    the kernel's name of the argument
 *   -a,b       kernel arguments LTTng does not record
 *   new, custom, enum   a field LTTng decodes that trawl leaves out
 * Syscalls whose structures LTTng decodes (connect's and accept's address,
 * poll's fds, epoll_wait's events, epoll_ctl's op and event, select's fd
 * sets) have an empty spec
 * here, which keeps them in the loop that sets the BPF maps: their whole
 * layout is scdecode.c's.
 * Syscalls of this kernel LTTng 2.13 does not know (newer ones) keep the
 * default. The values of strings and exit arguments come from trawl's BPF
 * programs (trawl.bpf.c) at the same syscall, joined here by thread, syscall
 * and time (and, at entry, by the pointer the ftrace record holds).
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"
#include "kernel/bpf-records.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sc_spec {
	const char *name;
	const char *spec;
};

static const struct sc_spec sc_specs[] = {
	{ "accept", "" }, /* scdecode.c */
	{ "accept4", "" }, /* scdecode.c */
	{ "access", "filename:str" },
	{ "acct", "name:str" },
	{ "add_key", "_type:str" },
	{ "adjtimex", "txc_p:inout" },
	{ "arch_prctl", "option:inout arg2:inout" },
	{ "bpf", "cmd:inout uattr:inout size:inout" },
	{ "chdir", "filename:str" },
	{ "chmod", "filename:str" },
	{ "chown", "filename:str" },
	{ "chroot", "filename:str" },
	{ "clock_adjtime", "utx:inout" },
	{ "clock_getres", "tp:out" },
	{ "clock_gettime", "tp:out" },
	{ "clock_nanosleep", "rmtp:out" },
	{ "clone", "flags:hex=clone_flags newsp:hex parent_tid:hex=parent_tidptr child_tid:hex=child_tidptr -tls" },
	{ "clone3", "uargs:inout size:inout" },
	{ "close_range", "fd:inout max_fd:inout flags:inout" },
	{ "connect", "" }, /* scdecode.c */
	{ "copy_file_range", "fd_in:inout off_in:inout fd_out:inout off_out:inout len:inout flags:inout" },
	{ "creat", "pathname:str" },
	{ "epoll_ctl", "" }, /* scdecode.c */
	{ "epoll_pwait", "" }, /* scdecode.c */
	{ "epoll_pwait2", "epfd:inout events:inout maxevents:inout timeout:inout sigmask:inout sigsetsize:inout" },
	{ "epoll_wait", "" }, /* scdecode.c */
	{ "execve", "filename:str argv:hex envp:hex" },
	{ "execveat", "fd:inout filename:str,inout argv:inout envp:inout flags:inout" },
	{ "faccessat", "filename:str" },
	{ "faccessat2", "dfd:inout filename:str,inout mode:inout flags:inout" },
	{ "fanotify_mark", "pathname:str" },
	{ "fchmodat", "filename:str" },
	{ "fchownat", "filename:str" },
	{ "fcntl", "arg:inout" },
	{ "fgetxattr", "name:str value:out" },
	{ "flistxattr", "list:out" },
	{ "fremovexattr", "name:str" },
	{ "fsconfig", "fd:inout cmd:inout _key:inout _value:inout aux:inout" },
	{ "fsetxattr", "name:str" },
	{ "fsmount", "fs_fd:inout flags:inout attr_flags:inout" },
	{ "fsopen", "_fs_name:str,inout flags:inout" },
	{ "fspick", "dfd:inout path:str,inout flags:inout" },
	{ "fstatfs", "buf:out" },
	{ "futex", "uaddr:inout uaddr2:inout" },
	{ "futex_waitv", "waiters:inout nr_futexes:inout flags:inout timeout:inout clockid:inout" },
	{ "futimesat", "filename:str" },
	{ "get_mempolicy", "policy:out nmask:out" },
	{ "get_robust_list", "head_ptr:out len_ptr:out" },
	{ "getcpu", "cpup:hex,out nodep:hex,out tcache:hex,inout=unused" },
	{ "getcwd", "buf:out" },
	{ "getdents", "dirent:out" },
	{ "getdents64", "dirent:out" },
	{ "getgroups", "grouplist:out" },
	{ "getitimer", "value:out" },
	{ "getpeername", "usockaddr:out usockaddr_len:inout" },
	{ "getrandom", "ubuf:inout len:inout flags:inout" },
	{ "getresgid", "rgidp:out egidp:out sgidp:out" },
	{ "getresuid", "ruidp:out euidp:out suidp:out" },
	{ "getrlimit", "rlim:out" },
	{ "getrusage", "ru:out" },
	{ "getsockname", "usockaddr:out usockaddr_len:inout" },
	{ "getsockopt", "optval:out optlen:inout" },
	{ "gettimeofday", "tv:out tz:out" },
	{ "getxattr", "pathname:str name:str value:out" },
	{ "inotify_add_watch", "pathname:str" },
	{ "io_cancel", "result:out" },
	{ "io_getevents", "events:out timeout:inout" },
	{ "io_pgetevents", "ctx_id:inout min_nr:inout nr:inout events:inout timeout:inout usig:inout" },
	{ "io_uring_enter", "fd:inout to_submit:inout min_complete:inout flags:inout argp:inout argsz:inout" },
	{ "io_uring_register", "fd:inout opcode:inout arg:inout nr_args:inout" },
	{ "io_uring_setup", "entries:inout params:inout" },
	{ "ioctl", "arg:inout" },
	{ "ioperm", "from:inout num:inout turn_on:inout" },
	{ "iopl", "level:inout" },
	{ "kcmp", "pid1:inout pid2:inout type:inout idx1:inout idx2:inout" },
	{ "keyctl", "arg2:inout arg3:inout arg4:inout arg5:inout" },
	{ "lchown", "filename:str" },
	{ "lgetxattr", "pathname:str name:str value:out" },
	{ "link", "oldname:str newname:str" },
	{ "linkat", "oldname:str newname:str" },
	{ "listxattr", "pathname:str list:out" },
	{ "llistxattr", "pathname:str list:out" },
	{ "lremovexattr", "pathname:str name:str" },
	{ "lsetxattr", "pathname:str name:str" },
	{ "membarrier", "cmd:inout flags:inout cpu_id:inout" },
	{ "memfd_create", "uname:str,inout flags:inout" },
	{ "memfd_secret", "flags:inout" },
	{ "mincore", "vec:out" },
	{ "mkdir", "pathname:str" },
	{ "mkdirat", "pathname:str" },
	{ "mknod", "filename:str" },
	{ "mknodat", "filename:str" },
	{ "mlock2", "start:inout len:inout flags:inout" },
	{ "mmap", "addr:hex offset=off" },
	{ "modify_ldt", "func:inout ptr:inout bytecount:inout" },
	{ "mount", "dev_name:str dir_name:str type:str" },
	{ "mount_setattr", "dfd:inout path:str,inout flags:inout uattr:inout usize:inout" },
	{ "move_mount", "from_dfd:inout from_pathname:str,inout to_dfd:inout to_pathname:str,inout flags:inout" },
	{ "move_pages", "status:out" },
	{ "mq_getsetattr", "u_omqstat:out" },
	{ "mq_open", "u_name:str" },
	{ "mq_timedreceive", "u_msg_ptr:out u_msg_prio:out" },
	{ "mq_unlink", "u_name:str" },
	{ "msgctl", "buf:inout" },
	{ "msgrcv", "msgp:out" },
	{ "name_to_handle_at", "name:str handle:inout mnt_id:out" },
	{ "nanosleep", "rmtp:out" },
	{ "newfstat", "statbuf:out" },
	{ "newfstatat", "filename:str statbuf:out" },
	{ "newlstat", "filename:str statbuf:out" },
	{ "newstat", "filename:str statbuf:out" },
	{ "newuname", "name:out" },
	{ "open", "filename:str" },
	{ "open_tree", "dfd:inout filename:str,inout flags:inout" },
	{ "openat", "filename:str" },
	{ "openat2", "dfd:inout filename:str,inout how:inout usize:inout" },
	{ "pidfd_getfd", "pidfd:inout fd:inout flags:inout" },
	{ "pidfd_open", "pid:inout flags:inout" },
	{ "pidfd_send_signal", "pidfd:inout sig:inout info:inout flags:inout" },
	{ "pipe", "fildes:i32x2,out" },
	{ "pipe2", "fildes:i32x2,out" },
	{ "pivot_root", "new_root:str put_old:str" },
	{ "pkey_alloc", "flags:inout init_val:inout" },
	{ "pkey_free", "pkey:inout" },
	{ "pkey_mprotect", "start:inout len:inout prot:inout pkey:inout" },
	{ "poll", "" }, /* scdecode.c */
	{ "ppoll", "" }, /* scdecode.c */
	{ "prctl", "arg2:inout" },
	{ "pread64", "buf:out" },
	{ "preadv", "vec:out" },
	{ "preadv2", "fd:inout vec:inout vlen:inout pos_l:inout pos_h:inout flags:inout" },
	{ "prlimit64", "old_rlim:out" },
	{ "process_madvise", "pidfd:inout vec:inout vlen:inout behavior:inout flags:inout" },
	{ "process_mrelease", "pidfd:inout flags:inout" },
	{ "process_vm_readv", "lvec:out" },
	{ "pselect6", "" }, /* scdecode.c */
	{ "ptrace", "addr:inout data:inout" },
	{ "pwritev2", "fd:inout vec:inout vlen:inout pos_l:inout pos_h:inout flags:inout" },
	{ "quotactl", "addr:inout" },
	{ "quotactl_fd", "fd:inout cmd:inout id:inout addr:inout" },
	{ "read", "buf:out" },
	{ "readlink", "path:str buf:out" },
	{ "readlinkat", "pathname:str buf:out" },
	{ "readv", "vec:inout" },
	{ "recvfrom", "ubuf:out addr:out addr_len:inout" },
	{ "recvmmsg", "mmsg:out timeout:inout" },
	{ "recvmsg", "msg:inout" },
	{ "removexattr", "pathname:str name:str" },
	{ "rename", "oldname:str newname:str" },
	{ "renameat", "oldname:str newname:str" },
	{ "renameat2", "olddfd:inout oldname:str,inout newdfd:inout newname:str,inout flags:inout" },
	{ "request_key", "_type:str" },
	{ "rmdir", "pathname:str" },
	{ "rseq", "rseq:inout rseq_len:inout flags:inout sig:inout" },
	{ "rt_sigaction", "oact:out" },
	{ "rt_sigpending", "uset:out" },
	{ "rt_sigprocmask", "oset:out" },
	{ "rt_sigtimedwait", "uthese:out uinfo:out" },
	{ "sched_getaffinity", "user_mask_ptr:out" },
	{ "sched_getattr", "pid:inout uattr:inout usize:inout flags:inout" },
	{ "sched_getparam", "param:out" },
	{ "sched_rr_get_interval", "interval:out" },
	{ "sched_setattr", "pid:inout uattr:inout flags:inout" },
	{ "seccomp", "op:inout flags:inout uargs:inout" },
	{ "select", "" }, /* scdecode.c */
	{ "semctl", "arg:inout" },
	{ "semtimedop", "timeout:inout" },
	{ "sendfile64", "offset:inout" },
	{ "set_mempolicy_home_node", "start:inout len:inout home_node:inout flags:inout" },
	{ "setdomainname", "name:str" },
	{ "sethostname", "name:str" },
	{ "setitimer", "ovalue:out" },
	{ "setxattr", "pathname:str name:str" },
	{ "shmctl", "buf:inout" },
	{ "sigaltstack", "uoss:inout" },
	{ "socketpair", "socket:i32x2,out=usockvec" },
	{ "statfs", "pathname:str buf:out" },
	{ "statx", "dfd:inout filename:str,inout flags:inout mask:inout buffer:inout" },
	{ "swapoff", "specialfile:str" },
	{ "swapon", "specialfile:str" },
	{ "symlink", "oldname:str newname:str" },
	{ "symlinkat", "oldname:str newname:str" },
	{ "sysinfo", "info:out" },
	{ "syslog", "buf:out" },
	{ "time", "tloc:out" },
	{ "timer_create", "created_timer_id:out" },
	{ "timer_gettime", "setting:out" },
	{ "timer_settime", "old_setting:out" },
	{ "timerfd_gettime", "otmr:out" },
	{ "timerfd_settime", "otmr:out" },
	{ "times", "tbuf:out" },
	{ "truncate", "path:str" },
	{ "umount", "name:str" },
	{ "unlink", "pathname:str" },
	{ "unlinkat", "pathname:str" },
	{ "userfaultfd", "flags:inout" },
	{ "ustat", "ubuf:out" },
	{ "utime", "filename:str" },
	{ "utimensat", "filename:str" },
	{ "utimes", "filename:str" },
	{ "wait4", "stat_addr:out ru:out" },
	{ "waitid", "infop:out ru:out" },
	{ "writev", "vec:inout" },
};

static const char *sc_spec_get(const char *name)
{
	size_t lo = 0, hi = TRAWL_ARRAY_SIZE(sc_specs);

	while (lo < hi) { /* the table is sorted by name */
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(sc_specs[mid].name, name);

		if (!c)
			return sc_specs[mid].spec;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "";
}

#define SC_DECODED_MAX 16 /* fields scdecode.c adds at most */

enum { SC_STR = 1, SC_HEX = 2, SC_OUT = 4, SC_INOUT = 8, SC_INT2 = 16, SC_SKIP = 32, SC_DROP = 64 };

struct sc_arg_attr {
	char name[64];     /* LTTng's name */
	unsigned flags;
};

/* The attributes of kernel argument @karg of syscall @sys (its LTTng name, flags). */
static void sc_attr(const char *sys, const char *karg, struct sc_arg_attr *a)
{
	char spec[1024], *tok, *save = NULL;

	snprintf(a->name, sizeof(a->name), "%s", karg);
	a->flags = 0;
	snprintf(spec, sizeof(spec), "%s", sc_spec_get(sys));
	for (tok = strtok_r(spec, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *attrs = strchr(tok, ':'), *src, *at, *s2 = NULL;
		const char *match;

		if (tok[0] == '-') {
			for (at = strtok_r(tok + 1, ",", &s2); at; at = strtok_r(NULL, ",", &s2))
				if (!strcmp(at, karg))
					a->flags |= SC_DROP;
			continue;
		}
		src = strchr(tok, '=');
		if (src)
			*src++ = '\0';
		if (attrs)
			*attrs++ = '\0';
		match = src ? src : tok;
		if (strcmp(match, karg))
			continue;
		snprintf(a->name, sizeof(a->name), "%s", tok);
		for (at = attrs ? strtok_r(attrs, ",", &s2) : NULL; at; at = strtok_r(NULL, ",", &s2)) {
			if (!strcmp(at, "str"))
				a->flags |= SC_STR;
			else if (!strcmp(at, "hex"))
				a->flags |= SC_HEX;
			else if (!strcmp(at, "out"))
				a->flags |= SC_OUT;
			else if (!strcmp(at, "inout"))
				a->flags |= SC_INOUT;
			else if (!strcmp(at, "i32x2"))
				a->flags |= SC_INT2;
			else
				a->flags |= SC_SKIP; /* a decoding not done yet */
		}
	}
}

/* An output field for argument @i of the kernel's @f, as LTTng types it. */
static void sc_field(const struct trawl_kernel_field *f, const struct sc_arg_attr *a, int i, int at_exit,
		     struct trawl_kernel_field *o)
{
	*o = *f;
	snprintf(o->name, sizeof(o->name), "%s", a->name);
	o->sc_arg = (uint8_t)i;
	if (a->flags & SC_STR) {
		o->kind = TRAWL_KF_STRING;
		o->xform = TRAWL_KX_SC_STR;
		return;
	}
	if (a->flags & SC_INT2) {
		o->kind = TRAWL_KF_ARRAY;
		o->count = 2;
		o->ctf_size = 4;
		o->is_signed = 1;
		o->xform = TRAWL_KX_SC_INT2;
		return;
	}
	if (o->kind == TRAWL_KF_HEX) { /* a pointer: LTTng's ctf_integer of it is unsigned decimal */
		o->kind = TRAWL_KF_INT;
		o->ctf_size = 8;
		o->is_signed = 0;
	}
	if (a->flags & SC_HEX) {
		o->kind = TRAWL_KF_HEX;
		o->is_signed = 0;
	}
	/* at exit the value is the argument BPF read there (the ftrace exit record has only ret) */
	if (at_exit)
		o->xform = TRAWL_KX_SC_ARG;
}

/*
 * @ev is syscalls:sys_enter_X (its fields the kernel's arguments): keeps
 * LTTng's inputs with LTTng's names and types.
 */
static int sc_layout_enter(struct trawl_kernel_event *ev, const char *sys)
{
	int max = ev->nfields + SC_DECODED_MAX;
	struct trawl_kernel_field *out = calloc((size_t)max, sizeof(*out));
	int i, n = 0;

	if (!out)
		return -ENOMEM;
	n = trawl_kernel_scdecode_fields(sys, 0, ev, out, max); /* a structure LTTng decodes */
	if (n != -ENOENT) {
		if (n < 0) {
			free(out);
			return n;
		}
		goto done;
	}
	n = 0;
	for (i = 0; i < ev->nfields; i++) {
		struct sc_arg_attr a;

		sc_attr(sys, ev->fields[i].name, &a);
		if (a.flags & (SC_DROP | SC_SKIP | SC_OUT | SC_INT2))
			continue;
		sc_field(&ev->fields[i], &a, i, 0, &out[n]);
		if (a.flags & SC_STR)
			ev->sc_strmask |= (uint8_t)(1u << i);
		n++;
	}
done:
	free(ev->fields);
	ev->fields = out;
	ev->nfields = n;
	ev->sc_dir = TRAWL_BPF_SC_ENTER;
	return 0;
}

/*
 * @ev is syscalls:sys_exit_X (field `ret`), @enter the parsed sys_enter_X:
 * ret, then LTTng's outputs.
 */
static int sc_layout_exit(struct trawl_kernel_event *ev, const char *sys,
			  const struct trawl_kernel_event *enter)
{
	int max = ev->nfields + enter->nfields + SC_DECODED_MAX, i, n = 0, d;
	struct trawl_kernel_field *out = calloc((size_t)max, sizeof(*out));

	if (!out)
		return -ENOMEM;
	for (i = 0; i < ev->nfields; i++) {
		out[n] = ev->fields[i];
		if (!strcmp(out[n].name, "ret")) { /* long, as LTTng's sc_exit(ctf_integer(long, ret)) */
			out[n].ctf_size = 8;
			out[n].is_signed = 1;
			out[n].kind = TRAWL_KF_INT;
		}
		n++;
	}
	d = trawl_kernel_scdecode_fields(sys, 1, enter, out + n, max - n); /* a structure LTTng decodes */
	if (d != -ENOENT) {
		if (d < 0) {
			free(out);
			return d;
		}
		n += d;
		goto done;
	}
	for (i = 0; i < enter->nfields; i++) {
		struct sc_arg_attr a;

		sc_attr(sys, enter->fields[i].name, &a);
		if ((a.flags & (SC_DROP | SC_SKIP)) || !(a.flags & (SC_OUT | SC_INOUT | SC_INT2)))
			continue;
		sc_field(&enter->fields[i], &a, i, 1, &out[n]);
		if (a.flags & SC_STR)
			ev->sc_strmask |= (uint8_t)(1u << i);
		if (a.flags & SC_INT2)
			ev->sc_int2mask |= (uint8_t)(1u << i);
		n++;
	}
done:
	free(ev->fields);
	ev->fields = out;
	ev->nfields = n;
	ev->sc_dir = TRAWL_BPF_SC_EXIT;
	ev->sc_need_exit = n > 1;
	return 0;
}

/* sys_enter_@name's kernel fields (no layout): parsed the way format.c does, then kept raw. */
static int parse_enter(const char *name, const char *text, struct trawl_kernel_event *ev)
{
	return trawl_kernel_event_parse_fields("syscalls", name, text, ev);
}

int trawl_kernel_syscall_layout(struct trawl_kernel_event *ev, const struct trawl_kernel_event *enter)
{
	if (strcmp(ev->system, "syscalls"))
		return 0;
	if (!strncmp(ev->name, "sys_enter_", 10))
		return sc_layout_enter(ev, ev->name + 10);
	if (!strncmp(ev->name, "sys_exit_", 9) && enter)
		return sc_layout_exit(ev, ev->name + 9, enter);
	return 0;
}

uint32_t trawl_kernel_syscall_bpf_mask(const char *name, int at_exit, const struct trawl_kernel_event *enter)
{
	uint32_t m = 0;
	int i;

	if (trawl_kernel_scdecode_bpf_mask(name, at_exit, &m) == 0)
		return m;
	for (i = 0; enter && i < enter->nfields && i < 6; i++) {
		struct sc_arg_attr a;

		sc_attr(name, enter->fields[i].name, &a);
		if (a.flags & (SC_DROP | SC_SKIP))
			continue;
		if (!at_exit && (a.flags & SC_STR) && !(a.flags & SC_OUT))
			m |= TRAWL_BPF_SC_STR(i);
		if (at_exit && (a.flags & SC_STR) && (a.flags & SC_INOUT))
			m |= TRAWL_BPF_SC_STR(i);
		if (at_exit && (a.flags & SC_INT2))
			m |= TRAWL_BPF_SC_INT2(i);
		if (at_exit && (a.flags & (SC_OUT | SC_INOUT)))
			m |= TRAWL_BPF_SC_ARGS;
	}
	return m;
}

struct sc_number {
	const char *name;
	int nr;
};

static const struct sc_number sc_numbers[] = {
#ifdef TRAWL_HAVE_SC_NUMBERS
#include "sc_numbers.h"
#endif
	{ NULL, -1 },
};

const char *trawl_kernel_syscall_of(const char *sys, const char *ev)
{
	if (strcmp(sys, "syscalls"))
		return NULL;
	if (!strncmp(ev, "sys_enter_", 10))
		return ev + 10;
	if (!strncmp(ev, "sys_exit_", 9))
		return ev + 9;
	return NULL;
}

int trawl_kernel_syscall_nr(const char *name)
{
	size_t i;

	for (i = 0; sc_numbers[i].name; i++)
		if (!strcmp(sc_numbers[i].name, name))
			return sc_numbers[i].nr;
	return -1;
}

/*
 * Marks in @en / @ex (by syscall number) the syscalls:sys_enter_X /
 * sys_exit_X events @instance ("instances/NAME") has enabled: one read of its
 * set_event, where reading each event's enable file every second (~400
 * tracefs files) cost the consumer ~40 ns per recorded event of a getppid()
 * flood. Returns 0 or a negative errno.
 */
static int sc_enabled(const char *instance, uint8_t *en, uint8_t *ex)
{
	size_t cap = 1u << 20; /* a kernel's ~2,500 events, one "system:event" line each: ~150 KiB */
	char rel[512], *text = malloc(cap), *line, *save = NULL;
	int n;

	if (!text)
		return -ENOMEM;
	n = trawl_path_fmt(rel, sizeof(rel), "%s/set_event", instance);
	if (!n)
		n = trawl_kernel_read_file(rel, text, cap);
	if (n < 0 || (size_t)n + 1 >= cap) {
		free(text);
		return n < 0 ? n : -E2BIG;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int exit = !strncmp(line, "syscalls:sys_exit_", 18), nr;

		if (!exit && strncmp(line, "syscalls:sys_enter_", 19))
			continue;
		nr = trawl_kernel_syscall_nr(line + (exit ? 18 : 19));
		if (nr >= 0 && nr < TRAWL_BPF_SC_NR_MAX)
			(exit ? ex : en)[nr] = 1;
	}
	free(text);
	return 0;
}

/* Syscall @name's BPF masks (enter << 32 | exit), from its sys_enter format; 0 if unreadable. */
static uint64_t sc_masks(const char *name)
{
	struct trawl_kernel_event ev;
	char rel[512], *text = malloc(65536);
	uint64_t v = 0;

	if (text &&
	    !trawl_path_fmt(rel, sizeof(rel), "events/syscalls/sys_enter_%s/format", name) &&
	    trawl_kernel_read_file(rel, text, 65536) > 0 && parse_enter(name, text, &ev) == 0) {
		v = (uint64_t)trawl_kernel_syscall_bpf_mask(name, 0, &ev) << 32 |
		    trawl_kernel_syscall_bpf_mask(name, 1, &ev);
		trawl_kernel_event_fini(&ev);
	}
	free(text);
	return v;
}

/*
 * Called every second: the enable files are read each time (events may be
 * enabled while tracing), the format of a syscall only once (parsing the
 * ~200 formats every second stalled the consumer ~0.1 s at the start of a
 * session tracing everything, and events were lost).
 */
int trawl_kernel_syscall_bpf_update(struct trawl_kernel_bpf *b, const char *const *instances, int n,
				    struct trawl_kernel_sc_bpf *state)
{
	_Static_assert(TRAWL_KERNEL_SC_NR_MAX == TRAWL_BPF_SC_NR_MAX, "one bound for the syscall maps");
	uint8_t on[2][TRAWL_BPF_SC_NR_MAX] = { { 0 } };
	size_t i;
	int changed = 0, j;

	for (j = 0; j < n; j++)
		if (sc_enabled(instances[j], on[0], on[1]) < 0)
			return -EIO;
	for (i = 0; i < TRAWL_ARRAY_SIZE(sc_specs); i++) {
		int nr = trawl_kernel_syscall_nr(sc_specs[i].name), en, ex;
		uint64_t v = 0;

		if (nr < 0 || nr >= TRAWL_BPF_SC_NR_MAX)
			continue;
		en = on[0][nr];
		ex = on[1][nr];
		if ((en || ex) && !state->known[nr]) {
			state->masks[nr] = sc_masks(sc_specs[i].name);
			state->known[nr] = 1;
		}
		if (en)
			v |= state->masks[nr] & 0xffffffff00000000ull;
		if (ex)
			v |= state->masks[nr] & 0xffffffffull;
		if (v == state->set[nr])
			continue;
		state->set[nr] = v;
		if (trawl_kernel_bpf_syscall_set(b, nr, (uint32_t)(v >> 32), (uint32_t)v) < 0)
			return -EIO;
		changed++;
	}
	return changed;
}
