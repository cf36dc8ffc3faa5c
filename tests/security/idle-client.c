/* SPDX-License-Identifier: MIT */
/*
 * idle-client.c - a program that keeps one libtrawl-ctl handle: connects
 * to the root daemon, stays idle SECONDS (past the daemon's ctl-idle-ms,
 * which closes the connection), then lists the sessions on the same
 * handle, which must work (the library reconnects).
 *
 *   security-idle-client SECONDS    exit 0 and "listed N" on success
 */
#include "trawl/ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct trawl_ctl_list *l = NULL;
	struct trawl_ctl *ctl;
	int ret;

	if (argc != 2)
		return 2;
	ret = trawl_ctl_connect(&ctl, TRAWL_CTL_CONNECT_NO_SPAWN);
	if (ret) {
		fprintf(stderr, "idle-client: connect: %s\n", strerror(-ret));
		return 1;
	}
	if (!trawl_ctl_is_root_daemon(ctl)) {
		fprintf(stderr, "idle-client: not the root daemon\n");
		trawl_ctl_disconnect(ctl);
		return 1;
	}
	sleep((unsigned)atoi(argv[1]));
	ret = trawl_ctl_list_sessions(ctl, &l);
	if (ret)
		fprintf(stderr, "idle-client: list after idling: %s\n", strerror(-ret));
	else
		printf("listed %zu\n", trawl_ctl_list_count(l));
	trawl_ctl_list_destroy(l);
	trawl_ctl_disconnect(ctl);
	return ret ? 1 : 0;
}
