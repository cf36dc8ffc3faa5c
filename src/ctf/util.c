/* SPDX-License-Identifier: MIT */
/* Identifiers, uuids and the clock offset. */
#include "ctf/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/*
 * TSDL keywords (CTF 1.8 section 7.1) may not name a clock or an env entry.
 * Field names may be keywords: they are written with a leading '_'.
 */
static const char *const keywords[] = {
	"align", "callsite", "const", "char", "clock", "double", "enum", "env", "event",
	"floating_point", "float", "integer", "int", "long", "short", "signed", "stream",
	"string", "struct", "trace", "typealias", "typedef", "unsigned", "variant", "void",
	"_Bool", "_Complex", "_Imaginary",
};

/* Identifier syntax only: [A-Za-z_][A-Za-z0-9_]*, at most 255 characters. */
int ctf_name_valid(const char *name)
{
	size_t i;

	if (!name || !((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') ||
		       *name == '_'))
		return 0;
	for (i = 1; name[i]; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return 0;
	}
	return i <= 255;
}

int trawl_ctf_identifier_valid(const char *name)
{
	size_t i;

	if (!ctf_name_valid(name))
		return 0;
	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (!strcmp(name, keywords[i]))
			return 0;
	return 1;
}

int trawl_ctf_uuid_generate(uint8_t uuid[16])
{
	size_t got = 0;

	while (got < 16) {
		ssize_t n = getrandom(uuid + got, 16 - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x40); /* version 4 */
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	return 0;
}

int trawl_ctf_boot_id(uint8_t uuid[16])
{
	char text[64];
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	unsigned i, n = 0;
	const char *p;

	if (!f)
		return -errno;
	p = fgets(text, sizeof(text), f);
	fclose(f);
	if (!p)
		return -EIO;
	for (p = text; *p && n < 32; p++) {
		int v;

		if (*p == '-')
			continue;
		if (*p >= '0' && *p <= '9')
			v = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			v = *p - 'a' + 10;
		else
			break;
		if (n % 2 == 0)
			uuid[n / 2] = (uint8_t)(v << 4);
		else
			uuid[n / 2] |= (uint8_t)v;
		n++;
	}
	for (i = n / 2; i < 16; i++)
		uuid[i] = 0;
	return n == 32 ? 0 : -EIO;
}

void trawl_ctf_uuid_format(const uint8_t u[16], char buf[37])
{
	snprintf(buf, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
		 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
}

static int64_t ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

int64_t trawl_ctf_clock_offset(void)
{
	const char *v = getenv("TRAWL_CLOCK_OFFSET_NS");
	char *end;

	if (v && *v) {
		long long o = strtoll(v, &end, 10);

		if (!*end)
			return o;
	}
	return trawl_ctf_clock_offset_measure();
}

int64_t trawl_ctf_clock_offset_measure(void)
{
	int64_t best_gap = INT64_MAX, best = 0;
	int i;

	for (i = 0; i < 16; i++) {
		struct timespec m1, r, m2;
		int64_t gap;

		clock_gettime(CLOCK_MONOTONIC, &m1);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &m2);
		gap = ns(&m2) - ns(&m1);
		if (gap < best_gap) {
			best_gap = gap;
			best = ns(&r) - (ns(&m1) + gap / 2);
		}
	}
	return best;
}
