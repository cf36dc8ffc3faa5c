/* SPDX-License-Identifier: MIT */
/*
 * trawl-ktrace: the kernel backend without the daemons, for tests and
 * benchmarks. It drives a trawl_kernel_session exactly as the root session
 * daemon's kernel domain does, and is its own consumer program:
 *
 *   trawl-ktrace -o DIR [-e EVENT]... [-s SYSCALL]... [-x CTX,...] [-u NAME=elf:PATH:SYM[/NARGS]]
 *                [-p NAME=SYM[+OFF]] [-f NAME=SYM] [--overwrite] [--buffer-kb N] [--subbuf-kb N]
 *                [--regenerate-statedump] [-d SECONDS | -- COMMAND ARGS...]
 *   trawl-ktrace --list [--fields] | --list-syscalls
 *   trawl-ktrace --kernel ...        (the consumer: see trawl_kernel_consumer_main)
 *
 * Exit code: the command's, or 1 with one error line.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "consumerd/consumerd.h"
#include "kernel/kernel.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_RULES 64

static int list(int syscalls, int fields)
{
	struct trawl_kernel_list_item *items;
	int n, i;

	n = trawl_kernel_list(syscalls, fields, &items);
	if (n < 0) {
		fprintf(stderr, "trawl-ktrace: cannot list kernel events: %s\n", strerror(-n));
		return 1;
	}
	for (i = 0; i < n; i++) {
		printf("%s\n", items[i].name);
		if (items[i].fields) {
			char *l, *save = NULL;

			for (l = strtok_r(items[i].fields, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
				printf("    field: %s\n", l);
		}
	}
	trawl_kernel_list_free(items, n);
	return 0;
}

/*
 * One -e/-s/-u/-p/-f option applied to the instance; with @filter (--filter,
 * ftrace syntax), tracepoints and syscalls record only the events it keeps,
 * set before they are enabled.
 */
static int apply_rule(struct trawl_kernel_instance *inst, char kind, char *a, const char *filter,
		      char *err, size_t errlen)
{
	char name[128], *eq = strchr(a, '=');
	int nargs = 0, ret = 0;

	if (filter && (kind == 'e' || kind == 's'))
		ret = trawl_kernel_instance_set_filter(inst, kind == 'e' ? a : "syscalls:*", filter,
						       err, errlen);
	if (ret < 0)
		return ret;
	if (kind == 'e')
		return trawl_kernel_instance_enable_event(inst, a, 1, err, errlen);
	if (kind == 's')
		return trawl_kernel_instance_enable_syscall(inst, a, 1, err, errlen);
	if (!eq) {
		trawl_msg_fmt(err, errlen, "probe \"%s\": expected NAME=TARGET", a);
		return -EINVAL;
	}
	if (trawl_path_fmt(name, sizeof(name), "%.*s", (int)(eq - a), a)) {
		trawl_msg_fmt(err, errlen, "probe \"%s\": name too long", a);
		return -ENAMETOOLONG;
	}
	if (kind == 'p')
		return trawl_kernel_probe_add(inst, name, eq + 1, 0, err, errlen);
	if (kind == 'f')
		return trawl_kernel_function_add(inst, name, eq + 1, err, errlen);
	/* -u NAME=elf:PATH:SYMBOL[/NARGS] */
	{
		char *sl = strrchr(eq + 1, '/');

		if (sl && sl[1] >= '0' && sl[1] <= '6' && !sl[2]) {
			nargs = sl[1] - '0';
			*sl = '\0';
		}
	}
	return trawl_kernel_uprobe_add(inst, name, eq + 1, nargs, getuid(), getgid(), err, errlen);
}

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, 'e' },
		{ "syscall", required_argument, NULL, 's' },
		{ "context", required_argument, NULL, 'x' },
		{ "uprobe", required_argument, NULL, 'u' },
		{ "probe", required_argument, NULL, 'p' },
		{ "function", required_argument, NULL, 'f' },
		{ "duration", required_argument, NULL, 'd' },
		{ "overwrite", no_argument, NULL, 'O' },
		{ "buffer-kb", required_argument, NULL, 'B' },
		{ "subbuf-kb", required_argument, NULL, 'S' },
		{ "list", no_argument, NULL, 'l' },
		{ "list-syscalls", no_argument, NULL, 'L' },
		{ "fields", no_argument, NULL, 'F' },
		{ "filter", required_argument, NULL, 'i' },
		{ "regenerate-statedump", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct { char kind; char *arg; } rules[MAX_RULES];
	struct trawl_kernel_channel_attr attr = { 0, 0, 0, 0, 0 };
	struct trawl_kernel_session *s;
	struct trawl_kernel_instance *inst;
	char err[TRAWL_KERNEL_ERR_LEN] = "", self[4096], out[4096] = "";
	double duration = -1;
	int nrules = 0, do_list = 0, fields = 0, regen = 0, c, i, ret, rc = 0;
	char *ctx = NULL, *filter = NULL;
	uint64_t lost;
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "--kernel"))
		return trawl_kernel_consumer_main(argc, argv);
	while ((c = getopt_long(argc, argv, "+o:e:s:x:u:p:f:d:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (trawl_path_fmt(out, sizeof(out), "%s", optarg)) {
				fprintf(stderr, "trawl-ktrace: -o: folder name too long: %s\n",
					optarg);
				return 2;
			}
			break;
		case 'x': ctx = optarg; break;
		case 'd': duration = atof(optarg); break;
		case 'O': attr.overwrite = 1; break;
		case 'B': attr.buffer_size = strtoull(optarg, NULL, 10) * 1024; break;
		case 'S': attr.subbuf_size = strtoull(optarg, NULL, 10) * 1024; break;
		case 'l': do_list = 1; break;
		case 'L': do_list = 2; break;
		case 'F': fields = 1; break;
		case 'i': filter = optarg; break;
		case 'R': regen = 1; break;
		case 'e': case 's': case 'u': case 'p': case 'f':
			if (nrules == MAX_RULES)
				return 2;
			rules[nrules].kind = (char)c;
			rules[nrules++].arg = optarg;
			break;
		default:
			fprintf(stderr, "usage: trawl-ktrace -o DIR [-e EVENT] [-s SYSCALL] [--filter EXPR] [-d S | -- CMD]\n");
			return 2;
		}
	}
	if (do_list)
		return list(do_list == 2, fields);
	if (!out[0]) {
		fprintf(stderr, "trawl-ktrace: -o DIR is required\n");
		return 2;
	}
	/* We are our own consumer program, whatever our file is called. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	trawl_kernel_cleanup_dead();
	ret = trawl_kernel_session_create("ktrace", out, getuid(), getgid(), &s);
	if (ret < 0)
		return 1;
	ret = trawl_kernel_session_add_channel(s, "channel0", &attr, err, sizeof(err));
	if (ret < 0)
		goto fail;
	inst = trawl_kernel_session_instance(s, "channel0");
	for (i = 0; i < nrules; i++) {
		ret = apply_rule(inst, rules[i].kind, rules[i].arg, filter, err, sizeof(err));
		if (ret < 0)
			goto fail;
	}
	if (ctx) {
		char *tok, *save = NULL;

		for (tok = strtok_r(ctx, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			ret = trawl_kernel_session_add_context(s, "channel0", tok, err, sizeof(err));
			if (ret < 0)
				goto fail;
		}
	}
	ret = trawl_kernel_session_start(s, self, err, sizeof(err));
	if (ret == 0 && regen) /* the daemon's `regenerate statedump` path, once, before the command */
		ret = trawl_kernel_session_regenerate_statedump(s, err, sizeof(err));
	if (ret < 0)
		goto fail;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (optind < argc) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "trawl-ktrace: %s: %s\n", argv[optind], strerror(errno));
			_exit(127);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	} else if (duration >= 0) {
		usleep((useconds_t)(duration * 1e6));
	} else {
		while (!stop_flag)
			pause();
	}
	ret = trawl_kernel_session_stop(s, err, sizeof(err));
	if (ret < 0)
		goto fail;
	lost = trawl_kernel_session_lost(s);
	trawl_kernel_session_consumer_finish(s);
	fprintf(stderr, "trawl-ktrace: lost %llu events, consumer cpu %llu ns\n",
		(unsigned long long)lost,
		(unsigned long long)trawl_kernel_session_consumer_cpu_ns(s));
	trawl_kernel_session_destroy(s);
	return rc;
fail:
	fprintf(stderr, "trawl-ktrace: %s\n", err[0] ? err : strerror(-ret));
	trawl_kernel_session_destroy(s);
	return 1;
}
