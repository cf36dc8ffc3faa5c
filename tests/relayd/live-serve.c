/* SPDX-License-Identifier: MIT */
/*
 * live-serve - a stand-in for trawl-relayd's main, to test the live server
 * alone: listens on a free TCP port of 127.0.0.1, prints "port N", serves
 * one session whose trace root is a local folder, and obeys commands read
 * from stdin, one a line:
 *
 *   close ID          relay_live_session_close()
 *   add ID NAME HOST PATH TIMER_US
 *                     relay_live_session_add() (prints "ok" or "error N")
 *   (end of input)    relay_live_stop(), exit 0
 *
 *   live-serve ID NAME HOSTNAME PATH LIVE_TIMER_US
 */
#include "relayd/live.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int listen_any_port(int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 16) ||
	    getsockname(fd, (struct sockaddr *)&a, &len)) {
		close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

int main(int argc, char **argv)
{
	struct relay_live *rl;
	char line[8192];
	int fd, port, ret;

	if (argc != 6) {
		fprintf(stderr, "usage: live-serve ID NAME HOSTNAME PATH LIVE_TIMER_US\n");
		return 2;
	}
	fd = listen_any_port(&port);
	if (fd < 0) {
		perror("live-serve: listen");
		return 1;
	}
	rl = relay_live_start(fd);
	if (!rl) {
		perror("live-serve: relay_live_start");
		return 1;
	}
	ret = relay_live_session_add(rl, strtoull(argv[1], NULL, 0), argv[2], argv[3], argv[4],
				     (uint32_t)strtoul(argv[5], NULL, 0));
	if (ret) {
		fprintf(stderr, "live-serve: relay_live_session_add: %s\n", strerror(-ret));
		relay_live_stop(rl);
		return 1;
	}
	printf("port %d\n", port);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		char name[256], host[256], path[4096];
		uint64_t id;
		unsigned timer;

		if (sscanf(line, "close %" SCNu64, &id) == 1) {
			relay_live_session_close(rl, id);
			printf("closed\n");
		} else if (sscanf(line, "add %" SCNu64 " %255s %255s %4095s %u", &id, name, host, path, &timer) == 5) {
			ret = relay_live_session_add(rl, id, name, host, path, timer);
			if (ret)
				printf("error %d\n", -ret);
			else
				printf("ok\n");
		} else {
			printf("what?\n");
		}
		fflush(stdout);
	}
	relay_live_stop(rl);
	return 0;
}
