/* SPDX-License-Identifier: MIT */
/*
 * unit.c - src/filter's parser, binder and interpreter, without daemons:
 * each expression is evaluated over one fixed event (the fields below) and
 * compared with the expected result; each bad one must be refused with the
 * column of its mistake. Values are allocated to their exact size, so an
 * ASan build catches any read past them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"

static const struct trawl_filter_field fields[] = {
	{ "a", TRAWL_FILTER_FIELD_INT, 32, 1, 0, 0 },
	{ "u", TRAWL_FILTER_FIELD_INT, 64, 0, 0, 0 },
	{ "x", TRAWL_FILTER_FIELD_INT, 32, 0, 0, 0 },
	{ "f", TRAWL_FILTER_FIELD_FLOAT, 64, 1, 0, 0 },
	{ "s", TRAWL_FILTER_FIELD_STRING, 8, 0, 1, 0 },
	{ "t", TRAWL_FILTER_FIELD_ARRAY, 8, 1, 1, 0 },
	{ "arr", TRAWL_FILTER_FIELD_ARRAY, 16, 1, 0, 0 },
	{ "_seq_length", TRAWL_FILTER_FIELD_INT, 8, 0, 0, 0 },
	{ "seq", TRAWL_FILTER_FIELD_SEQUENCE, 8, 0, 0, 0 },
	{ "e", TRAWL_FILTER_FIELD_INT, 32, 1, 0, 0 },
	{ "empty", TRAWL_FILTER_FIELD_SEQUENCE, 32, 1, 0, 0 },
	{ "ts", TRAWL_FILTER_FIELD_SEQUENCE, 8, 1, 1, 0 },
	{ "net", TRAWL_FILTER_FIELD_ARRAY, 32, 0, 0, 1 },
	{ "g", TRAWL_FILTER_FIELD_STRING, 8, 0, 1, 0 },
};
#define NR_FIELDS (sizeof(fields) / sizeof(fields[0]))

/* Results as LTTng 2.13 gives them (checked against it side by side where
 * tests/filter/lttng.py can run it): signed 64-bit integers, logical ">>",
 * bitwise operators before comparisons, a literal's '*' at its end a
 * prefix, any other a star-glob pattern (the right operand's when both
 * could be), a string or a float as the value false. */
static const struct {
	const char *expr;
	int want;
} good[] = {
	{ "a == -5", 1 }, { "a < 0", 1 }, { "u > 0", 0 }, { "u == -1", 1 },
	{ "u == 0xffffffffffffffff", 1 }, { "u > a", 1 }, { "a < u", 1 }, { "x == 7.0", 1 },
	{ "f > 2", 1 }, { "f == 2.5", 1 }, { "f < x", 1 }, { "-f == -2.5", 1 }, { "+x == 7", 1 },
	{ "s == \"hello\\*world\"", 1 }, { "s == \"hello*\"", 1 }, { "s == \"*world\"", 1 },
	{ "s == \"h*o*d\"", 1 }, { "s == \"hello\\*\"", 0 }, { "s == \"*\"", 1 }, { "s == \"**\"", 1 },
	{ "s == \"\"", 0 }, { "s != \"x*\"", 1 }, { "\"*o*\" == s", 1 }, { "s > \"hello\"", 1 },
	{ "s < \"hellp\"", 1 }, { "\"abc\" == \"abc\"", 1 }, { "'abc' == \"abc\"", 1 },
	{ "\"a\\\\b\" == \"a\\\\b\"", 1 }, { "s < \"i*\"", 1 }, { "s > \"hello*\"", 0 },
	{ "\"a*\" == \"b*\"", 0 }, { "\"ab*\" == \"abc*\"", 1 }, { "\"salut*\" == \"salut vous*\"", 1 },
	{ "\"x\\*y\" == \"x*y\"", 1 }, { "\"x\\*y\" == \"x\\*y\"", 1 }, { "\"a\\*r\" == \"a*\"", 1 },
	{ "g == \"\"", 1 }, { "g == \"*\"", 1 }, { "g == \"**\"", 0 }, { "g < \"a\"", 1 },
	{ "t == \"abcd\"", 1 }, { "t == \"abc\"", 0 }, { "t == \"abcd*\"", 1 }, { "t == \"abcde\"", 0 },
	{ "t > \"abc\"", 1 }, { "t == s", 0 }, { "ts == \"xy\"", 1 }, { "ts == \"x*\"", 1 },
	{ "arr[0] == 1", 1 }, { "arr[1] == -2", 1 }, { "arr[2] == 3", 1 }, { "arr[3] == 0", 0 },
	{ "arr[3] != 0", 0 }, { "arr[0x1] == -2", 1 }, { "seq[0] == 200", 1 }, { "seq[1] == 5", 1 },
	{ "seq[2] == 0 || 1", 0 }, { "_seq_length == 2", 1 }, { "empty[0] == 0", 0 },
	{ "net[0] == 1", 1 }, { "net[1] == 0x01020304", 1 }, { "t[1] == 98", 1 },
	{ "arr == 1", 0 }, { "a[0] == 1", 0 }, { "arr[0][0] == 1", 0 }, { "e == 12", 1 },
	{ "$ctx.vpid == 42", 1 }, { "$ctx.pid == 42", 1 }, { "$ctx.vtid == 43", 1 },
	{ "$ctx.procname == \"test*\"", 1 }, { "$ctx.procname == \"testproc\"", 1 },
	{ "$ctx.procname == \"testpro\"", 0 }, { "$ctx.pthread_id == 0xffffffffffffffff", 1 },
	{ "$ctx.cpu_id == 0", 0 }, { "$ctx.cpu_id != 0", 0 }, { "$ctx.nice == 0", 0 },
	{ "$ctx.zzz == 1 || 1", 0 }, { "$ctx.vtid.blah == 43", 0 }, { "$app.p:c == 1 || 1", 0 },
	{ "a.b == 1 || 1", 0 }, { "a->b == 1 || 1", 0 }, { "arr[0].x == 1 || 1", 0 },
	{ "nosuch == 1 || 1", 0 }, { "!nosuch", 0 }, { "1 || nosuch", 0 },
	{ "1 && 0", 0 }, { "1 || 0", 1 }, { "0 || 0", 0 }, { "!0", 1 }, { "!(a == -5)", 0 },
	{ "a == -5 && x == 7 && f > 1", 1 }, { "(a == 1 || x == 7) && !(f < 0)", 1 },
	{ "(a == 1 || a == -5) && (x != 7 || f >= 2.5)", 1 }, { "a == 1 && x == 7 || f < 0", 0 },
	{ "f < 0 || a == -5 && x == 7", 1 }, { "!(a != -5) && (u > 0x7fffffffffffffff || x < 0)", 0 },
	{ "(a >> 1) == -3", 0 }, { "(a >> 1) == 0x7ffffffffffffffd", 1 }, { "(x << 70) == 0", 0 },
	{ "(a == -5) == 1", 1 }, { "(a && x) == 1", 1 },
	{ "(0 || a) != 0", 1 }, { "(1 && 0) == 0", 1 }, { "(f > 1) == 1.0", 1 }, { "-a == 5", 1 },
	{ "(x | 0x8000000000000000) > 0", 0 }, { "(a & 0xff) == 0xfb", 1 }, { "(s == \"h*\") == 1", 1 },
	{ "0 && s", 0 }, { "1 || s", 0 }, { "1 && s", 0 }, { "s || 1", 0 }, { "a && x", 1 },
	{ "f && 0.0", 0 }, { "!!f", 1 }, { "(x & 3) == 3", 1 }, { "(x | 8) == 15", 1 }, { "f", 0 },
	{ "s", 0 }, { "-f", 0 }, { "f & 1", 0 }, { "~f == 1", 0 }, { "s == 1 || 1", 0 }, { "x == \"7\"", 0 },
	{ "(x ^ 7) == 0", 1 }, { "~0 == -1", 1 }, { "(1 << 63) == 0x8000000000000000", 1 },
	{ "(1 << 63) < 0", 1 }, { "(1 << 63) == 9223372036854775808", 1 }, { "~0 >> 4 == 0x0fffffffffffffff", 1 },
	{ "(-8 >> 1) == -4", 0 }, { "(x >> 64) == 0", 0 }, { "(x << -1) == 0", 0 }, { "1 << 63 >> 63 == 1", 1 },
	{ "(u >> 60) == 15", 1 }, { "(u & 1) == 1", 1 }, { "-9223372036854775808 < 0", 1 },
	{ "-9223372036854775808 == (1 << 63)", 1 }, { "- -1 == 1", 1 }, { "-(-9223372036854775808) > 0", 0 },
	{ "-18446744073709551615 < 0", 0 }, { "0x10 == 16", 1 }, { "010 == 8", 1 }, { "0 == 0", 1 },
	{ "1e2 == 100", 1 }, { ".5 == 0.5", 1 }, { "10UL == 10", 1 }, { "1.5f == 1.5", 1 }, { "0x1p3 == 8", 1 },
	{ "x", 1 }, { "1", 1 }, { "0.0", 0 }, { "1.0", 0 }, { "1.0 || x || 1.0", 1 }, { "a == -5 == 1", 1 },
	{ "1 < 2 == 1", 1 }, { "x & 1 == 1", 1 }, { "1&3==1", 1 }, { "(3|1==3)==1", 1 }, { "(2^1==3)==1", 1 },
	{ "(1<<2!=4)==0", 1 }, { "x /* seven */ == 7", 1 }, { "x == 7 // seven", 1 },
	{ "((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))) == 1", 1 },
};

/* Refused as LTTng 2.13 refuses them, each with its column. */
static const struct {
	const char *expr;
	unsigned int column;
} bad[] = {
	{ "a == )", 6 }, { "(a", 3 }, { "a + 1", 3 }, { "a * 2 == 1", 3 }, { "a - 1", 3 }, { "a / 1", 3 },
	{ "a % 1", 3 }, { "\"x", 1 }, { "!+-+++--!44+1", 12 }, { "a[1.5] == 1", 3 }, { "a[-1] == 1", 3 },
	{ "a[x] == 1", 3 }, { "a[(1)] == 1", 3 }, { "a[1 == 1", 5 }, { "$foo == 1", 1 }, { "$ctx == 1", 1 },
	{ "$global.value == 0", 1 }, { "a == \"x\" 1", 10 }, { "!\"s\"", 1 }, { "+\"s\" == 1", 1 },
	{ "\"s\" && 1", 5 }, { "1 || \"s\"", 3 }, { "1 & 1.5", 3 }, { "1.5 << 1", 5 }, { "\"a\" | 1", 5 },
	{ "a == 0x", 6 }, { "a == 1x", 6 }, { "a == 1.5.5", 6 }, { "a == 99999999999999999999", 6 },
	{ "a == 08", 6 }, { "a == \"\\x\"", 7 }, { "a == \"\\n\"", 7 }, { "a == \"\\\"\"", 7 },
	{ "a = 1", 3 }, { "", 1 }, { "   ", 1 }, { "/* c */", 1 }, { "a /* c", 3 }, { "\"s\"", 1 },
	{ "'a'", 1 }, { "\"a*b\" == \"b*\"", 7 }, { "\"a*\" == \"x*y\"", 6 }, { "\"a*b\" == \"c*d\"", 7 },
	{ "s < \"a*b\"", 3 }, { "\"a*b\" >= s", 7 }, { "\"a\" == 1", 5 }, { "1.5 != \"b\"", 5 },
	{ "~\"a\"", 1 }, { "-\"a\" == 1", 1 }, { "a ==", 5 }, { "a == 1 &&", 10 }, { "()", 2 },
	{ "a @ 1", 3 }, { "a == 1)", 7 }, { "a->", 4 }, { "a.1 == 1", 2 },
	{ "((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))", 33 },
	{ "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!1", 33 },
};

static int ctx_value(void *arg, unsigned int which, struct trawl_ust_filter_arg *out)
{
	static const char procname[8] = "testproc"; /* no NUL: bounded by n */

	(void)arg;
	switch (which) {
	case TRAWL_FILTER_CTX_VPID:
	case TRAWL_FILTER_CTX_PID:
		out->i = 42;
		return 0;
	case TRAWL_FILTER_CTX_VTID:
		out->i = 43;
		return 0;
	case TRAWL_FILTER_CTX_PROCNAME:
		out->p = procname;
		out->n = sizeof(procname);
		return 0;
	case TRAWL_FILTER_CTX_PTHREAD_ID:
		out->i = -1;
		return 0;
	default:
		return -1; /* cpu_id: "no value" */
	}
}

int main(void)
{
	struct trawl_ust_filter_arg args[NR_FIELDS];
	char *s = malloc(12), *t = malloc(4), *ts = malloc(2);
	int16_t *arr = malloc(3 * sizeof(*arr));
	uint8_t *seq = malloc(2), *net = malloc(8), *g = malloc(1);
	int fails = 0;
	size_t i;

	if (!s || !t || !ts || !arr || !seq || !net || !g)
		return 1;
	/* Two big-endian 32-bit elements: 1 and 0x01020304. */
	memcpy(net, "\0\0\0\1\1\2\3\4", 8);
	g[0] = '\0';
	memcpy(s, "hello*world", 12);
	memcpy(t, "abcd", 4);
	memcpy(ts, "xy", 2);
	arr[0] = 1;
	arr[1] = -2;
	arr[2] = 3;
	seq[0] = 200;
	seq[1] = 5;
	memset(args, 0, sizeof(args));
	args[0].i = -5;
	args[1].i = -1; /* u: all ones */
	args[2].i = 7;
	args[3].d = 2.5;
	args[4].p = s;
	args[5].p = t;
	args[5].n = 4;
	args[6].p = arr;
	args[6].n = 3;
	args[7].i = 2;
	args[8].p = seq;
	args[8].n = 2;
	args[9].i = 12;
	args[10].p = NULL;
	args[10].n = 0;
	args[11].p = ts;
	args[11].n = 2;
	args[12].p = net;
	args[12].n = 2;
	args[13].p = g;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct trawl_filter_error err;
		struct trawl_filter_prog *prog;
		struct trawl_filter *f;
		int got;

		if (trawl_filter_parse(good[i].expr, &f, &err)) {
			fprintf(stderr, "FAIL: '%s': refused: %s\n", good[i].expr, err.msg);
			fails++;
			continue;
		}
		if (trawl_filter_bind(f, fields, NR_FIELDS, &prog)) {
			fprintf(stderr, "FAIL: '%s': bind failed\n", good[i].expr);
			trawl_filter_destroy(f);
			fails++;
			continue;
		}
		trawl_filter_destroy(f); /* the bound program owns its copies */
		got = trawl_filter_run(prog, args, ctx_value, NULL);
		if (got != good[i].want) {
			fprintf(stderr, "FAIL: '%s': %d, expected %d\n", good[i].expr, got, good[i].want);
			fails++;
		}
		trawl_filter_prog_destroy(prog);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct trawl_filter_error err;
		struct trawl_filter *f = NULL;
		char want[32];

		if (!trawl_filter_parse(bad[i].expr, &f, &err)) {
			fprintf(stderr, "FAIL: '%s': accepted\n", bad[i].expr);
			trawl_filter_destroy(f);
			fails++;
			continue;
		}
		snprintf(want, sizeof(want), " at column %u", bad[i].column);
		if (err.column != bad[i].column || strncmp(err.msg, "filter: ", 8) ||
		    strlen(err.msg) < strlen(want) || strcmp(err.msg + strlen(err.msg) - strlen(want), want) ||
		    strchr(err.msg, '\n')) {
			fprintf(stderr, "FAIL: '%s': \"%s\", expected column %u\n", bad[i].expr, err.msg,
				bad[i].column);
			fails++;
		}
		/* Without an error buffer too. */
		if (!trawl_filter_parse(bad[i].expr, &f, NULL)) {
			fprintf(stderr, "FAIL: '%s': accepted without an error buffer\n", bad[i].expr);
			trawl_filter_destroy(f);
			fails++;
		}
	}
	{
		/* The length limit: TRAWL_FILTER_MAX_LEN bytes pass, one more fails. */
		char *big = malloc(TRAWL_FILTER_MAX_LEN + 2);
		struct trawl_filter_error err;
		struct trawl_filter *f;

		if (!big)
			return 1;
		memset(big, ' ', TRAWL_FILTER_MAX_LEN + 1);
		big[0] = '1';
		big[TRAWL_FILTER_MAX_LEN] = '\0';
		if (trawl_filter_parse(big, &f, &err)) {
			fprintf(stderr, "FAIL: %u bytes refused: %s\n", TRAWL_FILTER_MAX_LEN, err.msg);
			fails++;
		} else {
			trawl_filter_destroy(f);
		}
		big[TRAWL_FILTER_MAX_LEN] = ' ';
		big[TRAWL_FILTER_MAX_LEN + 1] = '\0';
		if (!trawl_filter_parse(big, &f, &err)) {
			fprintf(stderr, "FAIL: %u bytes accepted\n", TRAWL_FILTER_MAX_LEN + 1);
			trawl_filter_destroy(f);
			fails++;
		}
		free(big);
	}
	free(s);
	free(t);
	free(ts);
	free(arr);
	free(seq);
	free(net);
	free(g);
	if (fails) {
		fprintf(stderr, "%d failure(s)\n", fails);
		return 1;
	}
	printf("PASS: %zu expressions evaluated, %zu refused with their column\n",
	       sizeof(good) / sizeof(good[0]), sizeof(bad) / sizeof(bad[0]));
	return 0;
}
