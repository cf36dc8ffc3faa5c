/* SPDX-License-Identifier: MIT */
/*
 * The victim of tests/security/probes.sh: another user's program handling
 * a secret. `victim-crypt SECRET N` hashes SECRET with crypt(3) N times
 * (so SECRET is the first argument of a libcrypt function N times) and
 * prints "hashed N".
 */
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 30, i;

	if (argc < 2)
		return 2;
	for (i = 0; i < n; i++)
		if (!crypt(argv[1], "$6$trawlsalt$"))
			return 1;
	printf("hashed %ld\n", n);
	return 0;
}
