/* SPDX-License-Identifier: MIT */
/*
 * cmd-trigger.c - `trawl add-trigger` and `remove-trigger`, with LTTng
 * 2.13's syntax and text (`list-triggers` is cmd-list-triggers.c).
 *
 * add-trigger's options depend on where they stand, as LTTng's argpar
 * parsing has them: after `--condition event-rule-matches`, --name is the
 * event name pattern; after `--action snapshot-session S`, --name is the
 * output's name; elsewhere --name is the trigger's. A condition's or an
 * action's options end at the first option it does not know, which the
 * level above then reads.
 */
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * A refusal, in one line: trawl's words, or, run as `lttng` (cli_as_lttng:
 * trawl installed in LTTng's place), LTTng 2.13's own line, word for word,
 * as its scripts compare standard error (tools/trigger/test_add_trigger_cli).
 * Both formats take the same arguments. An exit status.
 */
#define REFUSE(err, lttng_fmt, trawl_fmt, ...)                                   \
	(cli_as_lttng ? lttng_error(err, "Error: " lttng_fmt "\n", __VA_ARGS__) \
		      : cli_error(err, trawl_fmt, __VA_ARGS__))
#define REFUSE0(err, lttng_line, trawl_line)                                     \
	(cli_as_lttng ? lttng_error(err, "%s", "Error: " lttng_line "\n")        \
		      : cli_error(err, "%s", trawl_line))

__attribute__((format(printf, 2, 3))) static int lttng_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	return cli_exit_of(err) ? cli_exit_of(err) : CLI_EXIT_ERROR;
}

/* The arguments being read: argv[i] is the next. */
struct args {
	int argc;
	char **argv;
	int i;
};

/*
 * If argv[i] is option --@lng (or -@shrt, 0: none), which takes a value:
 * 1 with *@val set and the option consumed ("--lng=V", "--lng V", "-sV",
 * "-s V"); 0 if it is another; -1 (said) if its value is missing.
 */
static int opt_val(struct args *a, const char *lng, char shrt, const char **val)
{
	const char *s = a->argv[a->i];
	size_t n = strlen(lng);

	if (s[0] == '-' && s[1] == '-' && !strncmp(s + 2, lng, n) && (s[2 + n] == '=' || !s[2 + n])) {
		if (s[2 + n] == '=') {
			*val = s + 3 + n;
			a->i++;
			return 1;
		}
	} else if (shrt && s[0] == '-' && s[1] == shrt) {
		if (s[2]) {
			*val = s + 2;
			a->i++;
			return 1;
		}
	} else {
		return 0;
	}
	if (a->i + 1 >= a->argc) {
		/* LTTng's argpar numbers the arguments from the command's name, #1 */
		if (cli_as_lttng)
			lttng_error(-EINVAL, "Error: While parsing argument #%d (`%s`): Missing "
					     "required argument for option `%s`\n", a->i + 1, s, s);
		else
			cli_error(-EINVAL, "missing value for option '%s'", s);
		return -1;
	}
	*val = a->argv[a->i + 1];
	a->i += 2;
	return 1;
}

static int is_option(const char *s)
{
	return s[0] == '-' && s[1];
}

/* An option given twice: LTTng's line. */
static int dup_opt(const char **dst, const char *val, const char *name)
{
	if (*dst) {
		REFUSE(-EINVAL, "Duplicate '%s' given.", "duplicate '%s' given", name);
		return -1;
	}
	*dst = val;
	return 0;
}

/* A capture descriptor as LTTng takes it: FIELD, $ctx.NAME or
 * $app.PROVIDER:TYPE, then an optional [INDEX]. */
static int capture_valid(const char *s)
{
	const char *p = s;
	size_t n;

	if (!strncmp(p, "$ctx.", 5)) {
		p += 5;
	} else if (!strncmp(p, "$app.", 5)) {
		p += 5;
		n = strcspn(p, ":");
		if (!n || !p[n])
			return 0;
		p += n + 1;
	} else if (p[0] == '$') {
		return 0;
	}
	n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	if (!n || (p[0] >= '0' && p[0] <= '9'))
		return 0;
	p += n;
	if (*p == '[') {
		n = strspn(p + 1, "0123456789");
		if (!n || p[1 + n] != ']')
			return 0;
		p += n + 2;
	}
	return *p == '\0';
}

/* --log-level: "..", "LEVEL" (exactly) or "LEVEL.." (at least as severe). */
/* LTTng's --log-level (LEVEL, LEVEL.. or ..) of @domain: 0, or -1 if unknown. */
static int loglevel_of(enum trawl_ctl_domain domain, const char *s,
		       enum trawl_ctl_loglevel_type *type, int *level)
{
	char buf[64];
	size_t n = strlen(s);

	*type = TRAWL_CTL_LOGLEVEL_ALL;
	*level = 0;
	if (!strcmp(s, ".."))
		return 0;
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	if (n > 2 && !strcmp(buf + n - 2, "..")) {
		buf[n - 2] = '\0';
		*type = TRAWL_CTL_LOGLEVEL_RANGE;
	} else {
		*type = TRAWL_CTL_LOGLEVEL_SINGLE;
	}
	if (domain >= TRAWL_CTL_DOMAIN_JUL) {
		/* an agent domain's names, as LTTng 2.13's add-trigger takes
		 * them: exactly (case and all), never as LEVEL.. */
		const char *full;

		if (*type == TRAWL_CTL_LOGLEVEL_RANGE ||
		    trawl_ctl_agent_loglevel_parse(domain, buf, level))
			return -1;
		full = trawl_ctl_agent_loglevel_name(domain, *level);
		return full && (!strcmp(buf, full) || !strcmp(buf, strchr(full, '_') + 1)) ? 0 : -1;
	}
	*level = trawl_ctl_loglevel_parse(buf);
	return *level < 0 ? -1 : 0;
}

/* LTTng 2.13's event rule types (--type). */
struct rule_type {
	const char *what; /* LTTng's name of the type, in its lines */
	enum trawl_ctl_domain domain;
	enum trawl_ctl_event_kind kind;
	unsigned probe : 1;     /* --location, no --name */
	unsigned loglevels : 1; /* takes --log-level */
	unsigned syscall : 1;   /* syscall[:TYPE] */
};

static const struct rule_type rule_user = {"user tracepoint", TRAWL_CTL_DOMAIN_UST,
					   TRAWL_CTL_EVENT_TRACEPOINT, 0, 1, 0};
static const struct rule_type rule_kernel = {"kernel tracepoint", TRAWL_CTL_DOMAIN_KERNEL,
					     TRAWL_CTL_EVENT_TRACEPOINT, 0, 0, 0};
static const struct rule_type rule_syscall = {"kernel syscall", TRAWL_CTL_DOMAIN_KERNEL,
					      TRAWL_CTL_EVENT_SYSCALL, 0, 0, 1};
static const struct rule_type rule_kprobe = {"kernel kprobe", TRAWL_CTL_DOMAIN_KERNEL,
					     TRAWL_CTL_EVENT_PROBE, 1, 0, 0};
static const struct rule_type rule_uprobe = {"kernel uprobe", TRAWL_CTL_DOMAIN_KERNEL,
					     TRAWL_CTL_EVENT_USERSPACE_PROBE, 1, 0, 0};
static const struct rule_type rule_jul = {"jul logging", TRAWL_CTL_DOMAIN_JUL,
					  TRAWL_CTL_EVENT_TRACEPOINT, 0, 1, 0};
static const struct rule_type rule_log4j = {"log4j logging", TRAWL_CTL_DOMAIN_LOG4J,
					    TRAWL_CTL_EVENT_TRACEPOINT, 0, 1, 0};
static const struct rule_type rule_python = {"python logging", TRAWL_CTL_DOMAIN_PYTHON,
					     TRAWL_CTL_EVENT_TRACEPOINT, 0, 1, 0};

static int is_either(const char *s, const char *a, const char *b)
{
	return !strcmp(s, a) || !strcmp(s, b);
}

/* --type's rule type, or NULL (an invalid value). */
static const struct rule_type *rule_type_of(const char *s)
{
	if (is_either(s, "user", "user:tracepoint"))
		return &rule_user;
	if (is_either(s, "kernel", "kernel:tracepoint"))
		return &rule_kernel;
	if (is_either(s, "jul", "jul:logging"))
		return &rule_jul;
	if (is_either(s, "log4j", "log4j:logging"))
		return &rule_log4j;
	if (is_either(s, "python", "python:logging"))
		return &rule_python;
	if (is_either(s, "kprobe", "kernel:kprobe"))
		return &rule_kprobe;
	if (!strcmp(s, "kernel:uprobe"))
		return &rule_uprobe;
	/* LTTng's: syscall or kernel:syscall, then ":" anything (checked later) */
	if (!strncmp(s, "kernel:", 7))
		s += 7;
	if (!strncmp(s, "syscall", 7) && (!s[7] || s[7] == ':'))
		return &rule_syscall;
	return NULL;
}

/* A syscall rule's TYPE: trawl's triggers see entry and exit alike. */
static int syscall_type_ok(const char *s)
{
	const char *t = strchr(strncmp(s, "kernel:", 7) ? s : s + 7, ':');

	return !t || is_either(t + 1, "entry+exit", "*") || is_either(t + 1, "entry", "exit");
}

/*
 * Why LTTng's parser refuses capture descriptor @v (its line's text after
 * "While parsing expression ...: "), or NULL if it is one trawl takes or
 * refuses for another reason. The operators are those of LTTng's filter
 * grammar, which its --capture parses.
 */
static const char *capture_refusal(const char *v)
{
	const char *p = v;

	if (strstr(v, "||") || strstr(v, "&&"))
		return "Logical operators are not allowed in capture expressions.";
	if (strchr("!-+~", v[0]))
		return "Unary operators are not allowed in capture expressions.";
	if (strpbrk(v + 1, "=<>+-*/%&|^!"))
		return "Binary operators are not allowed in capture expressions.";
	if (!strncmp(p, "$ctx.", 5) || !strncmp(p, "$app.", 5))
		p += 5;
	if (strchr(p, '.'))
		return "Capturing subfields is not supported.";
	return NULL;
}

/* Adds -x's names (each may hold several, joined by ',') to @buf. */
static int exclusion_add(char *buf, size_t len, const char *x)
{
	size_t have = strlen(buf), n = strlen(x);

	if (!n || have + !!have + n >= len)
		return cli_error(-EINVAL, "exclusion '%s' is empty or too long", x), -1;
	if (have)
		buf[have++] = ',';
	memcpy(buf + have, x, n + 1);
	return 0;
}

/* `--condition event-rule-matches` and its options, into @t. 0 or an exit status. */
static int parse_event_rule(struct args *a, struct trawl_ctl_trigger *t)
{
	const char *type = NULL, *pattern = NULL, *filter = NULL, *loglevel = NULL, *v;
	const char *location = NULL, *event_name = NULL;
	const char *caps[64];
	char excl[TRAWL_CTL_EXCLUSIONS_MAX] = "";
	enum trawl_ctl_loglevel_type llt = TRAWL_CTL_LOGLEVEL_ALL;
	const struct rule_type *rt;
	enum trawl_ctl_domain domain;
	enum trawl_ctl_event_kind kind;
	size_t nr_caps = 0, i;
	int ll = 0, ret;

	while (a->i < a->argc) {
		if (!is_option(a->argv[a->i]))
			return REFUSE(-EINVAL, "Unexpected argument '%s'", "unexpected argument '%s'",
				      a->argv[a->i]);
		if ((ret = opt_val(a, "type", 't', &v)) != 0) {
			if (ret < 0)
				return CLI_EXIT_USAGE;
			if (type)
				return REFUSE0(-EINVAL, "More than one `--type` was specified.",
					       "more than one `--type` was specified");
			type = v;
		} else if ((ret = opt_val(a, "name", 'n', &v)) != 0) {
			if (ret < 0 || dup_opt(&pattern, v, "--name"))
				return CLI_EXIT_USAGE;
		} else if ((ret = opt_val(a, "filter", 'f', &v)) != 0) {
			if (ret < 0 || dup_opt(&filter, v, "--filter"))
				return CLI_EXIT_USAGE;
		} else if ((ret = opt_val(a, "log-level", 'l', &v)) != 0) {
			if (ret < 0 || dup_opt(&loglevel, v, "--log-level"))
				return CLI_EXIT_USAGE;
		} else if ((ret = opt_val(a, "location", 'L', &v)) != 0) {
			if (ret < 0 || dup_opt(&location, v, "--location"))
				return CLI_EXIT_USAGE;
		} else if ((ret = opt_val(a, "event-name", 'E', &v)) != 0) {
			if (ret < 0 || dup_opt(&event_name, v, "--event-name"))
				return CLI_EXIT_USAGE;
		} else if ((ret = opt_val(a, "exclude-name", 'x', &v)) != 0) {
			if (ret < 0 || exclusion_add(excl, sizeof(excl), v))
				return CLI_EXIT_USAGE;
		} else if ((ret = opt_val(a, "capture", 0, &v)) != 0) {
			if (ret < 0)
				return CLI_EXIT_USAGE;
			if (cli_as_lttng && capture_refusal(v))
				return lttng_error(-EINVAL, "Error: While parsing expression `%s`: %s\n",
						   v, capture_refusal(v));
			if (cli_as_lttng && !strncmp(v, "$app.", 5) && !strchr(v + 5, ':'))
				return lttng_error(-EINVAL, "Error: Invalid app-specific context field "
						   "name: missing colon in `%s`.\n", v + 5);
			if (cli_as_lttng && !strncmp(v, "$app.", 5) && v[strlen(v) - 1] == ':')
				return lttng_error(-EINVAL, "Error: Invalid app-specific context field "
						   "name: missing type name after colon in `%s`.\n",
						   v + 5);
			if (!capture_valid(v))
				return REFUSE(-EINVAL, "Failed to parse capture expression `%s`.",
					      "failed to parse capture expression `%s`", v);
			if (nr_caps == sizeof(caps) / sizeof(caps[0]))
				return cli_error(-E2BIG, "too many --capture");
			caps[nr_caps++] = v;
		} else {
			break; /* the level above's */
		}
	}
	/* LTTng 2.13's checks, in its order and (run as lttng) words */
	if (!type)
		return REFUSE0(-EINVAL, "Event rule requires a --type.",
			       "event rule requires a --type");
	rt = rule_type_of(type);
	if (!rt)
		return REFUSE(-EINVAL, "Invalid `--type` value: %s", "invalid `--type` value: %s",
			      type);
	if (rt->probe && pattern)
		return REFUSE(-EINVAL, "Can't use --name with %s event rules.",
			      "can't use --name with %s event rules", rt->what);
	if (rt->probe && excl[0])
		return REFUSE(-EINVAL, "Can't use --exclude-name/-x with %s event rules.",
			      "can't use --exclude-name/-x with %s event rules", rt->what);
	if (rt->probe && !location)
		return REFUSE(-EINVAL, "Event rule of type %s requires a --location.",
			      "event rule of type %s requires a --location", rt->what);
	if (!rt->probe && location)
		return REFUSE(-EINVAL, "Can't use --location with %s event rules.",
			      "can't use --location with %s event rules", rt->what);
	if (!rt->probe && event_name)
		return REFUSE(-EINVAL, "Can't use --event-name with %s event rules.",
			      "can't use --event-name with %s event rules", rt->what);
	if (filter && rt->probe)
		return REFUSE(-EINVAL, "Filter expressions are not supported for %s event rules.",
			      "filter expressions are not supported for %s event rules", rt->what);
	if (excl[0] && rt != &rule_user)
		return REFUSE(-EINVAL, "Event name exclusions are not yet implemented for %s event "
				       "rules.", "event name exclusions are not yet implemented for "
				       "%s event rules", rt->what);
	if (excl[0] && !strchr(pattern ? pattern : "*", '*'))
		return REFUSE(-EINVAL, "Event %s: Exclusions can only be used with a globbing pattern",
			      "event %s: exclusions can only be used with a globbing pattern",
			      pattern);
	if (loglevel && strcmp(loglevel, "..") && !rt->loglevels)
		return REFUSE(-EINVAL, "Log levels are not supported for %s event rules.",
			      "log levels are not supported for %s event rules", rt->what);
	if (loglevel && loglevel_of(rt->domain, loglevel, &llt, &ll))
		return REFUSE(-EINVAL, "Failed to parse log level string `%s`.",
			      "failed to parse log level string `%s`", loglevel);
	if (rt->syscall && !syscall_type_ok(type))
		return REFUSE(-EINVAL, "Failed to parse syscall type '%s'.",
			      "failed to parse syscall type '%s'", type);
	domain = rt->domain;
	kind = rt->kind;
	if (rt->probe)
		/* the location is checked by the root daemon, as enable-event's */
		ret = trawl_ctl_trigger_set_probe_rule(t, kind, location, event_name);
	else
		ret = trawl_ctl_trigger_set_event_rule(t, domain, kind, pattern, filter, llt, ll,
						       excl[0] ? excl : NULL);
	if (ret == -ENAMETOOLONG && rt->probe)
		return cli_error(ret, "--location or --event-name is too long");
	if (ret)
		return cli_error(ret, "event rule: %s", strerror(-ret));
	for (i = 0; i < nr_caps; i++) {
		ret = trawl_ctl_trigger_add_capture(t, caps[i]);
		if (ret)
			return cli_error(ret, "--capture %s: %s", caps[i],
					 ret == -ENAMETOOLONG ? "the captures are too long" : strerror(-ret));
	}
	return 0;
}

/* --rate-policy=every:N|once-after:N of action @i. 0 or an exit status. */
static int rate_policy_set(struct trawl_ctl_trigger *t, int i, const char *s)
{
	enum trawl_ctl_rate_policy p;
	const char *colon = strchr(s, ':');
	unsigned long long n;
	char *end;

	if (!colon || colon == s)
		return REFUSE0(-EINVAL, "Rate policy format is invalid.",
			       "rate policy format is invalid");
	if ((size_t)(colon - s) == 5 && !strncmp(s, "every", 5))
		p = TRAWL_CTL_RATE_EVERY_N;
	else if ((size_t)(colon - s) == 10 && !strncmp(s, "once-after", 10))
		p = TRAWL_CTL_RATE_ONCE_AFTER_N;
	else
		return REFUSE(-EINVAL, "Rate policy type `%.*s` unknown.",
			      "rate policy type `%.*s` unknown", (int)(colon - s), s);
	errno = 0;
	n = strtoull(colon + 1, &end, 10);
	if (errno || *end || !colon[1] || colon[1] == '-' || colon[1] == '+')
		return REFUSE(-EINVAL, "Failed to parse rate policy value `%s` as an integer.",
			      "failed to parse rate policy value `%s` as an integer", colon + 1);
	if (!n)
		return REFUSE(-EINVAL, "Rate policy value `%s` must be > 0.",
			      "rate policy value `%s` must be > 0", colon + 1);
	return trawl_ctl_trigger_action_set_rate_policy(t, i, p, n) ? CLI_EXIT_INVALID : 0;
}

struct snap_opts {
	const char *path, *url, *ctrl_url, *data_url, *name, *max_size;
};

/* A snapshot-session action's own output, if given. 0 or an exit status. */
static int snapshot_output_set(struct trawl_ctl_trigger *t, int i, const struct snap_opts *o)
{
	struct trawl_ctl_snapshot_output *out;
	const char *dest = o->path ? o->path : o->url;
	char joined[1400];
	uint64_t max = 0;
	int ret;

	if (o->ctrl_url && !o->data_url)
		return REFUSE0(-EINVAL, "--ctrl-url is specified, but --data-url is missing.",
			       "--ctrl-url is specified, but --data-url is missing");
	if (o->data_url && !o->ctrl_url)
		return REFUSE0(-EINVAL, "--data-url is specified, but --ctrl-url is missing.",
			       "--data-url is specified, but --ctrl-url is missing");
	if (!!o->path + !!o->url + !!o->ctrl_url > 1)
		return REFUSE0(-EINVAL, "The --ctrl-url/--data-url, --url, and --path options can't "
					"be used together.",
			       "the --ctrl-url/--data-url, --url, and --path options can't be used "
			       "together");
	if (o->ctrl_url) {
		/* one trawl-relayd URL, net://HOST:CTRL:DATA[/PATH] */
		ret = cli_relay_urls_join(o->ctrl_url, o->data_url, joined, sizeof(joined));
		if (ret)
			return ret;
		dest = joined;
	}
	if (!dest) {
		if (o->name)
			return REFUSE0(-EINVAL, "Can't provide a snapshot output name without a "
						"snapshot output destination.",
				       "can't provide a snapshot output name without a snapshot "
				       "output destination");
		if (o->max_size)
			return REFUSE0(-EINVAL, "Can't provide a snapshot output max size without a "
						"snapshot output destination.",
				       "can't provide a snapshot output max size without a snapshot "
				       "output destination");
		return 0;
	}
	/* LTTng's: --url takes a URL, --path a local path */
	if (o->url && !strstr(o->url, "://"))
		return REFUSE(-EINVAL, "Failed to parse '%s' as an URL.",
			      "failed to parse '%s' as an URL", o->url);
	if (o->path && (strstr(o->path, "://") || o->path[0] != '/'))
		return REFUSE(-EINVAL, "Failed to parse '%s' as a local path.",
			      "failed to parse '%s' as a local path", o->path);
	if (o->max_size && cli_parse_size(o->max_size, &max))
		return REFUSE(-EINVAL, "Failed to parse `%s` as a size.",
			      "failed to parse `%s` as a size", o->max_size);
	out = trawl_ctl_snapshot_output_create();
	if (!out)
		return cli_error(-ENOMEM, "out of memory");
	ret = o->name ? trawl_ctl_snapshot_output_set_name(out, o->name) : 0;
	if (ret) {
		trawl_ctl_snapshot_output_destroy(out);
		return cli_error(ret, "failed to set name of snapshot output");
	}
	ret = trawl_ctl_snapshot_output_set_url(out, dest, NULL);
	if (!ret && o->max_size)
		ret = trawl_ctl_snapshot_output_set_max_size(out, max);
	if (!ret)
		ret = trawl_ctl_trigger_action_set_snapshot_output(t, i, out);
	/* listed as given, as LTTng lists them */
	if (!ret && o->ctrl_url)
		ret = trawl_ctl_trigger_action_set_snapshot_given_urls(t, i, o->ctrl_url, o->data_url);
	trawl_ctl_snapshot_output_destroy(out);
	if (ret)
		return REFUSE(ret, "Failed to parse '%s' as %s.", "failed to parse '%s' as %s", dest,
			      o->path ? "a local path" : "an URL");
	return 0;
}

/*
 * Run as lttng, after a --condition or --action refused: LTTng 2.13's list
 * of the names it takes (it lists only its first action's). @status back.
 */
static int names_hint(const char *what, const char *names, int status)
{
	if (cli_as_lttng)
		fprintf(stderr, "Error: Valid %s names are:\nError:   %s\n", what, names);
	return status;
}

static const struct {
	const char *name;
	enum trawl_ctl_action_kind kind;
} action_names[] = {
	{"notify", TRAWL_CTL_ACTION_NOTIFY},
	{"start-session", TRAWL_CTL_ACTION_START_SESSION},
	{"stop-session", TRAWL_CTL_ACTION_STOP_SESSION},
	{"rotate-session", TRAWL_CTL_ACTION_ROTATE_SESSION},
	{"snapshot-session", TRAWL_CTL_ACTION_SNAPSHOT_SESSION},
};

/* `--action NAME` (argument @at, @arg as typed) and its arguments, into @t.
 * 0 or an exit status. */
static int parse_action(struct args *a, const char *name, struct trawl_ctl_trigger *t, int at,
			const char *arg)
{
	struct snap_opts so = {0};
	const char *session = NULL, *rate = NULL, *v;
	enum trawl_ctl_action_kind kind;
	size_t k;
	int i, ret, snap;

	for (k = 0; k < sizeof(action_names) / sizeof(action_names[0]); k++)
		if (!strcmp(name, action_names[k].name))
			break;
	if (k == sizeof(action_names) / sizeof(action_names[0])) {
		if (!cli_as_lttng)
			return cli_error(-EINVAL, "unknown action name '%s' (valid: notify, "
						  "start-session, stop-session, rotate-session, "
						  "snapshot-session)", name);
		lttng_error(-EINVAL, "Error: While parsing argument #%d (`%s`): Unknown action name "
				     "'%s'\n", at + 1, arg, name);
		return names_hint("action", "notify", CLI_EXIT_ERROR);
	}
	kind = action_names[k].kind;
	snap = kind == TRAWL_CTL_ACTION_SNAPSHOT_SESSION;
	while (a->i < a->argc) {
		const char *s = a->argv[a->i];

		if (!is_option(s)) {
			if (kind == TRAWL_CTL_ACTION_NOTIFY || session)
				return REFUSE(-EINVAL, "Unexpected argument `%s`.",
					      "unexpected argument `%s`", s);
			session = s;
			a->i++;
		} else if ((ret = opt_val(a, "rate-policy", 0, &v)) != 0) {
			if (ret < 0 || dup_opt(&rate, v, "--rate-policy"))
				return CLI_EXIT_USAGE;
		} else if (snap && (ret = opt_val(a, "path", 0, &v)) != 0) {
			if (ret < 0 || dup_opt(&so.path, v, "--path"))
				return CLI_EXIT_USAGE;
		} else if (snap && (ret = opt_val(a, "url", 0, &v)) != 0) {
			if (ret < 0 || dup_opt(&so.url, v, "--url"))
				return CLI_EXIT_USAGE;
		} else if (snap && (ret = opt_val(a, "ctrl-url", 0, &v)) != 0) {
			if (ret < 0 || dup_opt(&so.ctrl_url, v, "--ctrl-url"))
				return CLI_EXIT_USAGE;
		} else if (snap && (ret = opt_val(a, "data-url", 0, &v)) != 0) {
			if (ret < 0 || dup_opt(&so.data_url, v, "--data-url"))
				return CLI_EXIT_USAGE;
		} else if (snap && (ret = opt_val(a, "name", 0, &v)) != 0) {
			if (ret < 0 || dup_opt(&so.name, v, "--name"))
				return CLI_EXIT_USAGE;
		} else if (snap && (ret = opt_val(a, "max-size", 0, &v)) != 0) {
			if (ret < 0 || dup_opt(&so.max_size, v, "--max-size"))
				return CLI_EXIT_USAGE;
		} else {
			break; /* the level above's */
		}
	}
	if (kind != TRAWL_CTL_ACTION_NOTIFY && !session)
		return REFUSE0(-EINVAL, "Missing session name.", "missing session name");
	i = trawl_ctl_trigger_add_action(t, kind, session);
	if (i == -E2BIG)
		return cli_error(i, "a trigger has at most %d actions", TRAWL_CTL_TRIGGER_MAX_ACTIONS);
	if (i < 0)
		return cli_error(i, "invalid session name '%s'", session);
	if (rate && (ret = rate_policy_set(t, i, rate)))
		return ret;
	return snap ? snapshot_output_set(t, i, &so) : 0;
}

static const struct cli_option_doc add_opts_doc[] = {
	{"-h, --help", "Show this help."},
	{"--name=NAME", "Name the trigger (default: triggerN)."},
	{"--owner-uid=UID", "Register the trigger for user UID (root only)."},
	{"--condition=event-rule-matches", "The condition: an event matches the rule described by "
					   "the options that follow it: -t/--type=user|kernel|syscall|"
					   "kernel:kprobe|kernel:uprobe|jul|log4j|python, "
					   "-n/--name=PATTERN, -f/--filter=EXPR, "
					   "-l/--log-level=LEVEL|LEVEL..|.., -x/--exclude-name=NAME, "
					   "-L/--location=LOCATION (a probe's: SYMBOL[+OFFSET] or 0xADDRESS; "
					   "[elf:]PATH:SYMBOL or sdt:PATH:PROVIDER:NAME), "
					   "-E/--event-name=NAME (a probe's; default: the location), "
					   "--capture=DESCRIPTOR."},
	{"--action=ACTION", "An action when the condition holds: notify, start-session SESSION, "
			    "stop-session SESSION, rotate-session SESSION, snapshot-session "
			    "SESSION [--path=DIR | --url=URL] [--name=NAME] [--max-size=SIZE]; "
			    "each may be followed by --rate-policy=every:N|once-after:N."},
	{NULL, NULL},
};

/* add-trigger's command line into @t, @owner set if given. 0 or an exit status. */
static int parse_add(int argc, char **argv, struct trawl_ctl_trigger *t)
{
	struct args a = {argc, argv, 1};
	const char *name = NULL, *owner = NULL, *v;
	int have_cond = 0, nr_actions = 0, ret;

	while (a.i < a.argc) {
		const char *s = a.argv[a.i];
		int at = a.i;

		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			cli_help_print(&cli_cmd_add_trigger);
			return -1;
		}
		if (!is_option(s))
			return REFUSE(-EINVAL, "Unexpected argument `%s`.", "unexpected argument `%s`",
				      s);
		if ((ret = opt_val(&a, "name", 0, &v)) != 0) {
			if (ret < 0 || dup_opt(&name, v, "--name"))
				return CLI_EXIT_USAGE;
		} else if ((ret = opt_val(&a, "owner-uid", 0, &v)) != 0) {
			if (ret < 0 || dup_opt(&owner, v, "--owner-uid"))
				return CLI_EXIT_USAGE;
		} else if ((ret = opt_val(&a, "condition", 0, &v)) != 0) {
			if (ret < 0)
				return names_hint("condition", "event-rule-matches", CLI_EXIT_USAGE);
			if (have_cond)
				return REFUSE0(-EINVAL, "A --condition was already given.",
					       "a --condition was already given");
			if (strcmp(v, "event-rule-matches")) {
				if (!cli_as_lttng)
					return cli_error(-EINVAL, "unknown condition name '%s' (valid: "
								  "event-rule-matches)", v);
				lttng_error(-EINVAL, "Error: While parsing argument #%d (`%s`): Unknown "
						     "condition name '%s'\n", at + 1, s, v);
				return names_hint("condition", "event-rule-matches", CLI_EXIT_ERROR);
			}
			have_cond = 1;
			if ((ret = parse_event_rule(&a, t)))
				return ret;
		} else if ((ret = opt_val(&a, "action", 0, &v)) != 0) {
			if (ret < 0)
				return names_hint("action", "notify", CLI_EXIT_USAGE);
			if ((ret = parse_action(&a, v, t, at, s)))
				return ret;
			nr_actions++;
		} else if (cli_as_lttng) {
			return lttng_error(-EINVAL, "Error: While parsing argument #%d (`%s`): Unknown "
						    "option `%s`\n", at + 1, s, s);
		} else {
			return cli_error(-EINVAL, "unknown option '%s'", s);
		}
	}
	if (!have_cond)
		return REFUSE0(-EINVAL, "Missing --condition.", "missing --condition");
	if (!nr_actions)
		return REFUSE0(-EINVAL, "Need at least one --action.", "need at least one --action");
	if (name && (ret = trawl_ctl_trigger_set_name(t, name)))
		return cli_error(ret, "invalid trigger name '%s'", name);
	if (owner) {
		uint32_t uid;

		if (cli_parse_u32(owner, &uid) || uid == UINT32_MAX)
			return REFUSE(-EINVAL, "Failed to parse `%s` as a user id.",
				      "failed to parse `%s` as a user id", owner);
		trawl_ctl_trigger_set_owner_uid(t, uid);
	}
	return 0;
}

static int run_add(int argc, char **argv)
{
	struct trawl_ctl_trigger *t = trawl_ctl_trigger_create();
	struct trawl_ctl_trigger_info info = {.struct_size = sizeof(info)};
	struct trawl_ctl_list *out = NULL;
	struct trawl_ctl *ctl;
	int ret;

	if (!t)
		return cli_error(-ENOMEM, "out of memory");
	ret = parse_add(argc, argv, t);
	if (ret) {
		trawl_ctl_trigger_destroy(t);
		return ret < 0 ? 0 : ret;
	}
	ret = cli_connect(&ctl);
	if (ret) {
		trawl_ctl_trigger_destroy(t);
		return ret;
	}
	ret = trawl_ctl_trigger_register(ctl, t, &out);
	trawl_ctl_trigger_destroy(t);
	if (ret) {
		ret = cli_fail(ctl, ret, "failed to register trigger");
		trawl_ctl_disconnect(ctl);
		return ret;
	}
	if (cli_mi)
		cli_mi_trigger(out, 0, 0);
	else if (!trawl_ctl_list_trigger_at(out, 0, &info) && !cli_quiet)
		printf("Added trigger `%s`.\n", info.name);
	trawl_ctl_list_destroy(out);
	trawl_ctl_disconnect(ctl);
	return 0;
}

const struct cli_cmd cli_cmd_add_trigger = {
	.name = "add-trigger",
	.summary = "Add a trigger",
	.synopsis = "[--name=NAME] [--owner-uid=UID] --condition=CONDITION [CONDITION ARGS] "
		    "--action=ACTION [ACTION ARGS] [--action=ACTION [ACTION ARGS]]...",
	.description = "Registers a trigger with the session daemon: when CONDITION holds, "
		       "each ACTION runs, in order, under its rate policy. The trigger "
		       "belongs to you: you alone list and remove it (root sees every user's). "
		       "The condition is event-rule-matches (the C API also offers "
		       "session-consumed-size and buffer-usage-high/low).",
	.options = add_opts_doc,
	.run = run_add,
	.mi = CLI_MI_RESULT,
};

/* ---- remove-trigger ---- */

static const struct cli_option_doc remove_opts_doc[] = {
	{"-h, --help", "Show this help."},
	{"--owner-uid=UID", "Remove user UID's trigger NAME (root only)."},
	{NULL, NULL},
};

/*
 * For --mi: the list of triggers holding @name of @uid (UINT32_MAX: the
 * caller's), at *@at, to write once removed, as LTTng does; else NULL.
 */
static struct trawl_ctl_list *mi_find(struct trawl_ctl *ctl, const char *name, uint32_t uid,
				      size_t *at)
{
	struct trawl_ctl_list *list;
	size_t i, n;

	if (trawl_ctl_list_triggers(ctl, &list))
		return NULL;
	n = trawl_ctl_list_count(list);
	for (i = 0; i < n; i++) {
		struct trawl_ctl_trigger_info g = {.struct_size = sizeof(g)};

		if (!trawl_ctl_list_trigger_at(list, i, &g) && !strcmp(g.name, name) &&
		    g.owner_uid == (uid == UINT32_MAX ? (uint32_t)getuid() : uid)) {
			*at = i;
			return list;
		}
	}
	trawl_ctl_list_destroy(list);
	return NULL;
}

static int run_remove(int argc, char **argv)
{
	struct args a = {argc, argv, 1};
	const char *name = NULL, *owner = NULL, *v;
	uint32_t uid = UINT32_MAX;
	struct trawl_ctl_list *mi_listed = NULL;
	struct trawl_ctl *ctl;
	size_t mi_at = 0;
	int ret;

	while (a.i < a.argc) {
		const char *s = a.argv[a.i];

		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			cli_help_print(&cli_cmd_remove_trigger);
			return 0;
		}
		if ((ret = opt_val(&a, "owner-uid", 0, &v)) != 0) {
			if (ret < 0 || dup_opt(&owner, v, "--owner-uid"))
				return CLI_EXIT_USAGE;
		} else if (is_option(s) && cli_as_lttng) {
			return lttng_error(-EINVAL, "Error: While parsing argument #%d (`%s`): Unknown "
						    "option `%s`\n", a.i + 1, s, s);
		} else if (is_option(s)) {
			return cli_error(-EINVAL, "unknown option '%s'", s);
		} else if (name) {
			return REFUSE(-EINVAL, "Unexpected argument '%s'", "unexpected argument '%s'", s);
		} else {
			name = s;
			a.i++;
		}
	}
	if (!name)
		return REFUSE0(-EINVAL, "Missing `name` argument.", "missing `name` argument");
	if (owner && (cli_parse_u32(owner, &uid) || uid == UINT32_MAX))
		return REFUSE(-EINVAL, "Failed to parse `%s` as an integer.",
			      "failed to parse `%s` as an integer", owner);
	if (!name[0] || strlen(name) >= TRAWL_CTL_NAME_MAX)
		return REFUSE(-ENOENT, "Couldn't find trigger with name `%s`.",
			      "couldn't find trigger with name `%s`", name);
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	if (cli_mi)
		mi_listed = mi_find(ctl, name, uid, &mi_at);
	ret = trawl_ctl_trigger_unregister(ctl, name, uid);
	if (mi_listed && !ret)
		cli_mi_trigger(mi_listed, mi_at, 0);
	trawl_ctl_list_destroy(mi_listed);
	if (ret == -ENOENT) {
		trawl_ctl_disconnect(ctl);
		return REFUSE(ret, "Couldn't find trigger with name `%s`.",
			      "couldn't find trigger with name `%s`", name);
	}
	if (ret) {
		ret = cli_fail(ctl, ret, "failed to unregister trigger");
		trawl_ctl_disconnect(ctl);
		return ret;
	}
	trawl_ctl_disconnect(ctl);
	if (!cli_quiet)
		printf("Removed trigger `%s`.\n", name);
	return 0;
}

const struct cli_cmd cli_cmd_remove_trigger = {
	.name = "remove-trigger",
	.summary = "Remove a trigger",
	.synopsis = "[--owner-uid=UID] NAME",
	.description = "Removes your trigger NAME.",
	.options = remove_opts_doc,
	.run = run_remove,
	.mi = CLI_MI_RESULT,
};
