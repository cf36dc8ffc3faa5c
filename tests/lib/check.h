/* SPDX-License-Identifier: MIT */
/*
 * check.h - the C tests' assertion: CHECK(cond) reports a false condition
 * with its line and counts it in check_fails, and the test goes on, so one
 * run shows every failure; main() ends with CHECK_EXIT().
 */
#ifndef TRAWL_TESTS_CHECK_H
#define TRAWL_TESTS_CHECK_H

#include <stdio.h>

static int check_fails;

#define CHECK(cond)                                                                               \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);            \
			check_fails++;                                                            \
		}                                                                                 \
	} while (0)

/* 1 if a check failed, else prints "ok" and 0: what main() returns. */
#define CHECK_EXIT() (check_fails ? 1 : (printf("ok\n"), 0))

#endif /* TRAWL_TESTS_CHECK_H */
