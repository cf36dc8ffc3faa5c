/* SPDX-License-Identifier: MIT */
/*
 * Command-line options of `trawl view`, spelled and meaning as babeltrace2's
 * (`babeltrace2 --help` and `babeltrace2-convert(1)`), plus trawl's own
 * --count, --decode-only and -e VIEWER.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "view.h"
#include "view_int.h"

#define NSEC_PER_SEC 1000000000LL

enum {
	OPT_NO_DELTA = 256, OPT_CLOCK_CYCLES, OPT_CLOCK_DATE, OPT_CLOCK_GMT,
	OPT_CLOCK_SECONDS, OPT_CLOCK_OFFSET, OPT_CLOCK_OFFSET_NS, OPT_BEGIN,
	OPT_END, OPT_TIMERANGE, OPT_STREAM_INTERSECTION, OPT_COUNT,
	OPT_DECODE_ONLY, OPT_NO_PROGRESS, OPT_CLOCK_FORCE_CORRELATE, OPT_FORMAT,
};

static const struct option long_opts[] = {
	{ "input-format", required_argument, NULL, 'i' },
	{ "names", required_argument, NULL, 'n' },
	{ "fields", required_argument, NULL, 'f' },
	{ "output-format", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'w' },
	{ "viewer", required_argument, NULL, 'e' },
	{ "no-delta", no_argument, NULL, OPT_NO_DELTA },
	{ "clock-cycles", no_argument, NULL, OPT_CLOCK_CYCLES },
	{ "clock-date", no_argument, NULL, OPT_CLOCK_DATE },
	{ "clock-gmt", no_argument, NULL, OPT_CLOCK_GMT },
	{ "clock-seconds", no_argument, NULL, OPT_CLOCK_SECONDS },
	{ "clock-offset", required_argument, NULL, OPT_CLOCK_OFFSET },
	{ "clock-offset-ns", required_argument, NULL, OPT_CLOCK_OFFSET_NS },
	{ "clock-force-correlate", no_argument, NULL, OPT_CLOCK_FORCE_CORRELATE },
	{ "begin", required_argument, NULL, OPT_BEGIN },
	{ "end", required_argument, NULL, OPT_END },
	{ "timerange", required_argument, NULL, OPT_TIMERANGE },
	{ "stream-intersection", no_argument, NULL, OPT_STREAM_INTERSECTION },
	{ "count", no_argument, NULL, OPT_COUNT },
	{ "decode-only", no_argument, NULL, OPT_DECODE_ONLY },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f, const char *cmd)
{
	fprintf(f,
		"Usage: %s [OPTIONS] TRACE-PATH...\n"
		"       %s [OPTIONS] -i lttng-live net://HOST[:PORT][/host/HOSTNAME/SESSION]\n"
		"\n"
		"Print the events of CTF traces as babeltrace2's text output does.\n"
		"\n"
		"  -i, --input-format=FMT    ctf (default: trace folders), or lttng-live:\n"
		"                            follow a live session of a relay daemon, or\n"
		"                            list its sessions (URL without /host/...)\n"
		"  -n, --names=LIST          print field names: payload, context, scope,\n"
		"                            header, all, none (default: payload,context)\n"
		"  -f, --fields=LIST         also print: trace, trace:hostname, trace:domain,\n"
		"                            trace:procname, trace:vpid, loglevel, emf,\n"
		"                            callsite, all\n"
		"      --no-delta            do not print the time since the previous event\n"
		"      --clock-cycles        print timestamps in clock cycles\n"
		"      --clock-date          print the date too\n"
		"      --clock-gmt           print times in UTC, not local time\n"
		"      --clock-seconds       print times as seconds since the Epoch\n"
		"      --clock-offset=SEC    add SEC seconds to every clock's offset\n"
		"      --clock-offset-ns=NS  add NS nanoseconds to every clock's offset\n"
		"      --begin=TIME          start at TIME ([YYYY-MM-DD ]HH:MM:SS[.NS] or SEC[.NS])\n"
		"      --end=TIME            stop after TIME\n"
		"      --timerange=[B,E]     same as --begin=B --end=E\n"
		"      --stream-intersection only print the time range every stream covers\n"
		"  -o, --output-format=FMT   text (default), json (one JSON object per event,\n"
		"                            every field typed), dummy (decode only),\n"
		"                            ctf-metadata\n"
		"      --format=FMT          same as -o\n"
		"      --decode-only         same as -o dummy\n"
		"      --count               a table of events per name, discarded records\n"
		"                            and the time span, instead of the events\n"
		"  -w, --output=FILE         write to FILE instead of standard output\n"
		"  -e, --viewer=VIEWER       run VIEWER with the trace paths instead\n"
		"      --no-progress         no progress indicator on standard error\n"
		"  -h, --help                this help\n"
		"  -V, --version             print the version\n",
		cmd, cmd);
}

static int set_names(struct view_opts *o, const char *list)
{
	char *dup = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!dup)
		return -ENOMEM;
	o->text.names = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "payload") || !strcmp(tok, "args") ||
		    !strcmp(tok, "arg"))
			o->text.names |= TRAWL_READER_TEXT_NAMES_PAYLOAD;
		else if (!strcmp(tok, "context") || !strcmp(tok, "ctx"))
			o->text.names |= TRAWL_READER_TEXT_NAMES_CONTEXT;
		else if (!strcmp(tok, "scope"))
			o->text.names |= TRAWL_READER_TEXT_NAMES_SCOPE;
		else if (!strcmp(tok, "header"))
			o->text.names |= TRAWL_READER_TEXT_NAMES_HEADER;
		else if (!strcmp(tok, "all"))
			o->text.names |= TRAWL_READER_TEXT_NAMES_PAYLOAD |
					 TRAWL_READER_TEXT_NAMES_CONTEXT |
					 TRAWL_READER_TEXT_NAMES_SCOPE |
					 TRAWL_READER_TEXT_NAMES_HEADER;
		else if (!strcmp(tok, "none"))
			;
		else
			ret = -EINVAL;
	}
	free(dup);
	return ret;
}

static const struct {
	const char *name;
	unsigned int bits;
} field_names[] = {
	{ "trace", TRAWL_READER_TEXT_FIELD_TRACE },
	{ "trace:hostname", TRAWL_READER_TEXT_FIELD_HOSTNAME },
	{ "trace:domain", TRAWL_READER_TEXT_FIELD_DOMAIN },
	{ "trace:procname", TRAWL_READER_TEXT_FIELD_PROCNAME },
	{ "trace:vpid", TRAWL_READER_TEXT_FIELD_VPID },
	{ "loglevel", TRAWL_READER_TEXT_FIELD_LOGLEVEL },
	{ "emf", TRAWL_READER_TEXT_FIELD_EMF },
	{ "callsite", TRAWL_READER_TEXT_FIELD_CALLSITE },
	{ "all", 0xffu },
};

static int set_fields(struct view_opts *o, const char *list)
{
	char *dup = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!dup)
		return -ENOMEM;
	/* the list replaces the default fields (hostname, procname, vpid) */
	if (!o->fields_set) {
		o->text.fields = 0;
		o->fields_set = true;
	}
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned int i;

		for (i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
			if (!strcmp(tok, field_names[i].name))
				break;
		if (i == sizeof(field_names) / sizeof(field_names[0]))
			ret = -EINVAL;
		else
			o->text.fields |= field_names[i].bits;
	}
	free(dup);
	return ret;
}

static int parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int set_timerange(struct view_opts *o, char *arg)
{
	size_t n = strlen(arg);
	char *comma;

	if (n >= 2 && arg[0] == '[' && arg[n - 1] == ']') {
		arg[n - 1] = '\0';
		arg++;
	}
	comma = strchr(arg, ',');
	if (!comma)
		return -EINVAL;
	*comma = '\0';
	o->begin = arg;
	o->end = comma + 1;
	return 0;
}

int view_parse_opts(int argc, char **argv, struct view_opts *o)
{
	const char *cmd = argc > 0 && argv[0] ? argv[0] : "view";
	int c;
	int64_t v;

	memset(o, 0, sizeof(*o));
	trawl_reader_text_options_init(&o->text);
	o->progress = true;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+i:n:f:o:w:e:hV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (strcmp(optarg, "ctf") && strcmp(optarg, "lttng-live")) {
				fprintf(stderr, "%s: unknown input format: %s (ctf or lttng-live)\n",
					cmd, optarg);
				return -1;
			}
			o->live = !strcmp(optarg, "lttng-live");
			break;
		case 'n':
			if (set_names(o, optarg)) {
				fprintf(stderr, "%s: invalid --names value: %s\n", cmd, optarg);
				return -1;
			}
			break;
		case 'f':
			if (set_fields(o, optarg)) {
				fprintf(stderr, "%s: invalid --fields value: %s\n", cmd, optarg);
				return -1;
			}
			break;
		case 'o':
		case OPT_FORMAT:
			if (!strcmp(optarg, "json"))
				o->output = OUT_JSON;
			else if (!strcmp(optarg, "text"))
				o->output = OUT_TEXT;
			else if (!strcmp(optarg, "dummy"))
				o->output = OUT_DUMMY;
			else if (!strcmp(optarg, "ctf-metadata"))
				o->output = OUT_METADATA;
			else {
				fprintf(stderr, "%s: unknown output format: %s\n", cmd, optarg);
				return -1;
			}
			break;
		case 'w':
			o->output_path = optarg;
			break;
		case 'e':
			o->viewer = optarg;
			break;
		case OPT_NO_DELTA:
			o->text.flags |= TRAWL_READER_TEXT_NO_DELTA;
			break;
		case OPT_CLOCK_CYCLES:
			o->text.flags |= TRAWL_READER_TEXT_CLOCK_CYCLES;
			break;
		case OPT_CLOCK_DATE:
			o->text.flags |= TRAWL_READER_TEXT_CLOCK_DATE;
			break;
		case OPT_CLOCK_GMT:
			o->text.flags |= TRAWL_READER_TEXT_CLOCK_GMT;
			break;
		case OPT_CLOCK_SECONDS:
			o->text.flags |= TRAWL_READER_TEXT_CLOCK_SECONDS;
			break;
		case OPT_CLOCK_OFFSET:
			if (parse_i64(optarg, &v) || v > INT64_MAX / 1000000000LL ||
			    v < INT64_MIN / 1000000000LL) {
				fprintf(stderr, "%s: invalid --clock-offset: %s\n", cmd, optarg);
				return -1;
			}
			o->clock_offset_s = v;
			break;
		case OPT_CLOCK_OFFSET_NS:
			if (parse_i64(optarg, &v)) {
				fprintf(stderr, "%s: invalid --clock-offset-ns: %s\n", cmd, optarg);
				return -1;
			}
			o->clock_offset_ns = v;
			break;
		case OPT_CLOCK_FORCE_CORRELATE:
			break;
		case OPT_BEGIN:
			o->begin = optarg;
			break;
		case OPT_END:
			o->end = optarg;
			break;
		case OPT_TIMERANGE:
			if (set_timerange(o, optarg)) {
				fprintf(stderr, "%s: invalid --timerange (expected [BEGIN,END]): %s\n",
					cmd, optarg);
				return -1;
			}
			break;
		case OPT_STREAM_INTERSECTION:
			o->stream_intersection = true;
			break;
		case OPT_COUNT:
			o->output = OUT_COUNT;
			break;
		case OPT_DECODE_ONLY:
			o->output = OUT_DUMMY;
			break;
		case OPT_NO_PROGRESS:
			o->progress = false;
			break;
		case 'h':
			usage(stdout, cmd);
			return 1;
		case 'V':
			printf("trawl view 0.1.0\n");
			return 1;
		default:
			if (optopt && optopt < 256)
				fprintf(stderr, "%s: unknown or incomplete option -%c (see --help)\n",
					cmd, optopt);
			else
				fprintf(stderr, "%s: unknown or incomplete option %s (see --help)\n",
					cmd, argv[optind - 1]);
			return -1;
		}
	}
	o->paths = (const char **)(argv + optind);
	o->npaths = argc - optind;
	if (o->npaths == 0) {
		fprintf(stderr, "%s: no trace path given (see --help)\n", cmd);
		return -1;
	}
	if (o->live && o->npaths != 1) {
		fprintf(stderr, "%s: lttng-live takes one URL\n", cmd);
		return -1;
	}
	return 0;
}

int trawl_view_option_arg(const char *arg)
{
	static const char shorts_arg[] = "infowe", shorts_flag[] = "hV";
	const struct option *lo;
	size_t n;

	if (arg[0] != '-' || !arg[1])
		return -1;
	if (arg[1] != '-') {
		/* -X, or -XVALUE for an option with an argument */
		if (strchr(shorts_arg, arg[1]))
			return arg[2] ? 0 : 1;
		return strchr(shorts_flag, arg[1]) && !arg[2] ? 0 : -1;
	}
	n = strcspn(arg + 2, "=");
	for (lo = long_opts; lo->name; lo++) {
		if (strlen(lo->name) != n || strncmp(lo->name, arg + 2, n))
			continue;
		if (lo->has_arg == no_argument)
			return arg[2 + n] ? -1 : 0;
		return arg[2 + n] ? 0 : 1;
	}
	return -1;
}

/* ---- time arguments (--begin, --end) -------------------------------------- */

static int parse_frac(const char *s, int64_t *ns, const char **end)
{
	int digits = 0;
	int64_t v = 0;

	while (*s >= '0' && *s <= '9') {
		if (digits < 9) {
			v = v * 10 + (*s - '0');
			digits++;
		}
		s++;
	}
	if (!digits)
		return -1;
	while (digits++ < 9)
		v *= 10;
	*ns = v;
	*end = s;
	return 0;
}

int view_parse_time(const char *s, bool gmt, int64_t day_ref_ns, int64_t *out)
{
	int y, mo, d, h, mi, sec, n = 0;
	int64_t frac = 0;
	const char *rest;
	struct tm tm;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%d-%d-%d %d:%d:%d%n", &y, &mo, &d, &h, &mi, &sec, &n) == 6) {
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
	} else if (sscanf(s, "%d:%d:%d%n", &h, &mi, &sec, &n) == 3) {
		time_t ref = (time_t)(day_ref_ns / NSEC_PER_SEC);

		if (gmt ? !gmtime_r(&ref, &tm) : !localtime_r(&ref, &tm))
			return -1;
	} else {
		/* [-]SEC[.NS] */
		char *end;
		long long v;
		bool neg = s[0] == '-';

		v = strtoll(s, &end, 10);
		if (end == s)
			return -1;
		if (*end == '.') {
			if (parse_frac(end + 1, &frac, &rest) || *rest)
				return -1;
		} else if (*end) {
			return -1;
		}
		*out = v * NSEC_PER_SEC + (neg ? -frac : frac);
		return 0;
	}
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	rest = s + n;
	if (*rest == '.') {
		if (parse_frac(rest + 1, &frac, &rest))
			return -1;
	}
	if (*rest)
		return -1;
	t = gmt ? timegm(&tm) : mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = (int64_t)t * NSEC_PER_SEC + frac;
	return 0;
}
