/* SPDX-License-Identifier: MIT */
/*
 * main.c - trawl-consumerd: picks the consumer for a domain by its first
 * argument. Each domain's consumer parses the rest of the command line:
 *
 *   trawl-consumerd --ust --fd N         user space (ust-consumer.c)
 *   trawl-consumerd --kernel ...         kernel (kernel-consumer.c)
 *
 * A new domain adds a line to the table below.
 */
#include "common/log.h"
#include "consumerd/consumerd.h"

#include <stdio.h>
#include <string.h>

static const struct consumer {
	const char *flag;
	int (*main)(int argc, char **argv);
} consumers[] = {
	{"--help", NULL}, /* keeps the table non-empty in any build */
#ifdef TRAWL_HAVE_UST_CONSUMER
	{"--ust", trawl_ust_consumer_main},
#endif
#ifdef TRAWL_HAVE_KERNEL_CONSUMER
	{"--kernel", trawl_kernel_consumer_main},
#endif
};

int main(int argc, char **argv)
{
	/* lines go to stderr, which the session daemon made its log */
	const struct trawl_log_config log = {.ident = "trawl-consumerd", .level = TRAWL_LOG_INFO};
	size_t i, n = sizeof(consumers) / sizeof(consumers[0]);

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: trawl-consumerd --ust --fd N | --kernel ...\n"
		       "Started by trawl-sessiond; moves trace packets from ring buffers to "
		       "CTF files.\n");
		return 0;
	}
	trawl_log_open(&log);
	for (i = 0; argc > 1 && i < n; i++)
		if (consumers[i].main && !strcmp(argv[1], consumers[i].flag))
			return consumers[i].main(argc, argv);
	fprintf(stderr, "trawl-consumerd: expected --ust or --kernel as first argument "
			"(it is started by trawl-sessiond)\n");
	return 2;
}
