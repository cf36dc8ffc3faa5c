/* SPDX-License-Identifier: MIT */
/*
 * ust-app-net N: N events tnet:peer, event i describing the peer
 * 10.0.<i>.1:<8000 + i> (from a sockaddr_in, network byte order) and the
 * value i - N/2 in every width, in network byte order too (htobe64 ...).
 * Waits up to 5 s for the tracepoint to be enabled first.
 */
#include "tp.h"

#include <arpa/inet.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, i;

	for (i = 0; i < 500 && !tracepoint_enabled(tnet, peer); i++)
		usleep(10000);
	for (i = 0; i < n; i++) {
		struct sockaddr_in sin;
		int32_t v = i - n / 2;
		char ip[32];

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons((uint16_t)(8000 + i));
		snprintf(ip, sizeof(ip), "10.0.%d.1", i & 0xff);
		inet_pton(AF_INET, ip, &sin.sin_addr);
		tracepoint(tnet, peer, i, &sin, htobe64((uint64_t)(int64_t)v * 1000003),
			   (int32_t)htobe32((uint32_t)v));
	}
	return 0;
}
