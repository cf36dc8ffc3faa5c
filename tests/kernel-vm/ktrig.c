// SPDX-License-Identifier: MIT
/*
 * ktrig.c - a kprobe trigger's notifier (src/kernel/notify.c), run in the
 * stock-kernel guest where kprobes exist (this machine's kernel has none):
 * `ktrig LOCATION` defines the trigger's probe at LOCATION as the root
 * daemon does for add-trigger --type=kernel:kprobe, opens /etc/hostname 5
 * times, reads the hits back (capturing $ctx.pid: a line typed as
 * common/capture.h says, a signed integer), removes the notifier and
 * prints one line: "hits=N mine=M left=L" (M of the N hits by this process,
 * L trawl dynamic events left in kprobe_events), or "refused: LINE" with
 * exit status 2 when the location is refused.
 */
#include "common/capture.h"
#include "kernel/kernel.h"

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct count {
	unsigned hits, mine;
	char pid[24];
};

static void hit(uint64_t ts_ns, uint32_t nr, const char *caps, void *arg)
{
	struct count *c = arg;

	(void)ts_ns;
	c->hits++;
	if (nr == 1 && caps && caps[0] == TRAWL_CAPTURE_SIGNED &&
	    !strncmp(caps + 1, c->pid, strlen(c->pid)) && caps[1 + strlen(c->pid)] == '\n')
		c->mine++;
}

/* trawl_ groups in kprobe_events. */
static int leftover(void)
{
	FILE *f = fopen("/sys/kernel/tracing/kprobe_events", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, ":trawl_") != NULL;
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	struct trawl_kernel_trigger_probe p = { .uprobe = 0, .fd = -1 };
	struct trawl_kernel_notifier *n;
	struct count c = { 0, 0, "" };
	char err[TRAWL_KERNEL_ERR_LEN];
	const int *fds;
	uint32_t nr, i;
	int k, ret;

	if (argc != 2)
		return 1;
	p.target = argv[1];
	snprintf(c.pid, sizeof(c.pid), "%d", (int)getpid());
	ret = trawl_kernel_notifier_create_probe(&p, "$ctx.pid", &n, err, sizeof(err));
	if (ret) {
		printf("refused: %s\n", err);
		return 2;
	}
	for (k = 0; k < 5; k++) {
		int fd = open("/etc/hostname", O_RDONLY);

		if (fd >= 0)
			close(fd);
	}
	nr = trawl_kernel_notifier_fds(n, &fds);
	for (i = 0; i < nr; i++)
		trawl_kernel_notifier_read(n, fds[i], hit, &c);
	trawl_kernel_notifier_destroy(n);
	printf("hits=%u mine=%u left=%d\n", c.hits, c.mine, leftover());
	return 0;
}
