/* SPDX-License-Identifier: MIT */
/*
 * kernel-args.c - the kernel consumer's command line (trawl-sessiond and
 * trawl-ktrace build it).
 */
#include "common/common.h"
#include "consumerd/kernel-consumer-internal.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --context LIST of the channel @cur: ftrace contexts, and perf:cpu: ones. 0 or -EINVAL. */
static int parse_contexts(struct kchan *cur, const char *arg)
{
	char *list = strdup(arg), *tok, *save = NULL;

	if (!list)
		return -EINVAL;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int v = trawl_kernel_ctx_parse(tok);

		if (v < 0 && !strncmp(tok, "perf:cpu:", 9) && cur->nperf < TRAWL_KCTX_PERF_MAX &&
		    !trawl_path_fmt(cur->perf_ctx[cur->nperf], sizeof(cur->perf_ctx[0]), "%s", tok))
			v = TRAWL_KCTX_PERF + cur->nperf++;
		if (v < 0 || cur->nctx >= TRAWL_KCTX_SLOTS) {
			free(list);
			return -EINVAL;
		}
		cur->ctx[cur->nctx++] = v;
	}
	free(list);
	return 0;
}

/* --output-fd N: the destination, read from N to its end (kernel/session.c). 0 or -errno. */
static int read_output(struct kconsumer *k, const char *arg)
{
	char *end;
	long fd = strtol(arg, &end, 10);
	size_t len = 0;
	ssize_t n;

	if (*end || fd < 0 || fd > INT_MAX)
		return -EINVAL;
	while ((n = read((int)fd, k->dir + len, sizeof(k->dir) - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if ((len += (size_t)n) == sizeof(k->dir))
			return -ENAMETOOLONG;
	}
	close((int)fd);
	if (n < 0)
		return -errno;
	k->dir[len] = '\0';
	return len && strlen(k->dir) == len ? 0 : -EINVAL;
}

int kcons_parse_args(struct kconsumer *k, int argc, char **argv, int *ctl_fd)
{
	static const struct option opts[] = {
		{ "kernel", no_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "output-fd", required_argument, NULL, 'O' },
		{ "channel", required_argument, NULL, 'c' },
		{ "instance", required_argument, NULL, 'i' },
		{ "context", required_argument, NULL, 'x' },
		{ "ctl-fd", required_argument, NULL, 'f' },
		{ "uid", required_argument, NULL, 'u' },
		{ "gid", required_argument, NULL, 'g' },
		{ "once", no_argument, NULL, '1' },
		{ "statedump", no_argument, NULL, 's' },
		{ "tracefile-size", required_argument, NULL, 'S' },
		{ "tracefile-count", required_argument, NULL, 'C' },
		{ "tracker", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct kchan *cur = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			break;
		case 'o':
			if (trawl_path_fmt(k->dir, sizeof(k->dir), "%s", optarg))
				return -ENAMETOOLONG;
			break;
		case 'O':
			c = read_output(k, optarg);
			if (c)
				return c;
			break;
		case 'c':
			if (k->nch == MAX_CHANNELS)
				return -E2BIG;
			cur = &k->ch[k->nch];
			cur->id = (uint32_t)k->nch++;
			if (trawl_path_fmt(cur->name, sizeof(cur->name), "%s", optarg))
				return -ENAMETOOLONG;
			break;
		case 'i':
			if (!cur)
				return -EINVAL;
			if (trawl_path_fmt(cur->instance, sizeof(cur->instance), "instances/%s", optarg))
				return -ENAMETOOLONG;
			break;
		case 'x':
			if (!cur || parse_contexts(cur, optarg))
				return -EINVAL;
			break;
		case 'f':
			*ctl_fd = atoi(optarg);
			break;
		case 'T': {
			/* ATTR:V,V,...: a tracker that restricts (tracker.c checks it) */
			size_t l = strlen(optarg);
			char *n = realloc(k->tracker_spec, k->tracker_len + l + 2);

			if (!n)
				return -ENOMEM;
			memcpy(n + k->tracker_len, optarg, l);
			n[k->tracker_len + l] = '\n';
			k->tracker_len += l + 1;
			n[k->tracker_len] = '\0';
			k->tracker_spec = n;
			break;
		}
		case 'u':
			k->uid = (uid_t)strtoul(optarg, NULL, 10);
			break;
		case 'g':
			k->gid = (gid_t)strtoul(optarg, NULL, 10);
			break;
		case '1':
			k->once = 1;
			break;
		case 's':
			if (!cur)
				return -EINVAL;
			cur->statedump = 1;
			break;
		case 'S':
		case 'C': {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (!cur || *end || !*optarg || errno || (c == 'C' && v > UINT32_MAX))
				return -EINVAL;
			if (c == 'S')
				cur->tracefile_size = v;
			else
				cur->tracefile_count = (uint32_t)v;
			break;
		}
		default:
			return -EINVAL;
		}
	}
	if (!k->dir[0] || !k->nch)
		return -EINVAL;
	for (c = 0; c < k->nch; c++)
		if (!k->ch[c].instance[0])
			return -EINVAL;
	return 0;
}
