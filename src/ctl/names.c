/* SPDX-License-Identifier: MIT */
/* names.c - libtrawl-ctl's version, LTTng's log-level and process-attribute names. */
#include "common/common.h"
#include "ctl/proto.h"
#include "trawl/ctl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

TRAWL_EXPORT const char *trawl_ctl_version(void)
{
	return TRAWL_VERSION_STRING;
}

static const char *const loglevels[] = {
	"TRACE_EMERG",          "TRACE_ALERT",         "TRACE_CRIT",
	"TRACE_ERR",            "TRACE_WARNING",       "TRACE_NOTICE",
	"TRACE_INFO",           "TRACE_DEBUG_SYSTEM",  "TRACE_DEBUG_PROGRAM",
	"TRACE_DEBUG_PROCESS",  "TRACE_DEBUG_MODULE",  "TRACE_DEBUG_UNIT",
	"TRACE_DEBUG_FUNCTION", "TRACE_DEBUG_LINE",    "TRACE_DEBUG",
};

TRAWL_EXPORT int trawl_ctl_loglevel_parse(const char *name)
{
	size_t i;
	char *end;
	long v;

	v = strtol(name, &end, 10);
	if (*name && !*end)
		return v >= 0 && v <= 14 ? (int)v : -EINVAL;
	for (i = 0; i < TRAWL_ARRAY_SIZE(loglevels); i++)
		if (!strcasecmp(name, loglevels[i]) || !strcasecmp(name, loglevels[i] + 6))
			return (int)i;
	return -EINVAL;
}

TRAWL_EXPORT const char *trawl_ctl_loglevel_name(int level)
{
	return level >= 0 && level < (int)TRAWL_ARRAY_SIZE(loglevels) ? loglevels[level] : NULL;
}

struct agent_level {
	const char *name; /* with its prefix: "JUL_SEVERE" */
	int value;
};

static const struct agent_level jul_levels[] = {
	{"JUL_OFF", TRAWL_CTL_JUL_OFF},       {"JUL_SEVERE", TRAWL_CTL_JUL_SEVERE},
	{"JUL_WARNING", TRAWL_CTL_JUL_WARNING}, {"JUL_INFO", TRAWL_CTL_JUL_INFO},
	{"JUL_CONFIG", TRAWL_CTL_JUL_CONFIG}, {"JUL_FINE", TRAWL_CTL_JUL_FINE},
	{"JUL_FINER", TRAWL_CTL_JUL_FINER},   {"JUL_FINEST", TRAWL_CTL_JUL_FINEST},
	{"JUL_ALL", TRAWL_CTL_JUL_ALL},       {NULL, 0},
};

static const struct agent_level log4j_levels[] = {
	{"LOG4J_OFF", TRAWL_CTL_LOG4J_OFF},     {"LOG4J_FATAL", TRAWL_CTL_LOG4J_FATAL},
	{"LOG4J_ERROR", TRAWL_CTL_LOG4J_ERROR}, {"LOG4J_WARN", TRAWL_CTL_LOG4J_WARN},
	{"LOG4J_INFO", TRAWL_CTL_LOG4J_INFO},   {"LOG4J_DEBUG", TRAWL_CTL_LOG4J_DEBUG},
	{"LOG4J_TRACE", TRAWL_CTL_LOG4J_TRACE}, {"LOG4J_ALL", TRAWL_CTL_LOG4J_ALL},
	{NULL, 0},
};

static const struct agent_level python_levels[] = {
	{"PYTHON_CRITICAL", TRAWL_CTL_PYTHON_CRITICAL}, {"PYTHON_ERROR", TRAWL_CTL_PYTHON_ERROR},
	{"PYTHON_WARNING", TRAWL_CTL_PYTHON_WARNING},   {"PYTHON_INFO", TRAWL_CTL_PYTHON_INFO},
	{"PYTHON_DEBUG", TRAWL_CTL_PYTHON_DEBUG},       {"PYTHON_NOTSET", TRAWL_CTL_PYTHON_NOTSET},
	{NULL, 0},
};

static const struct agent_level *agent_levels(enum trawl_ctl_domain domain)
{
	switch (domain) {
	case TRAWL_CTL_DOMAIN_JUL:
		return jul_levels;
	case TRAWL_CTL_DOMAIN_LOG4J:
		return log4j_levels;
	case TRAWL_CTL_DOMAIN_PYTHON:
		return python_levels;
	default:
		return NULL;
	}
}

TRAWL_EXPORT int trawl_ctl_agent_loglevel_parse(enum trawl_ctl_domain domain, const char *name,
						int *level)
{
	const struct agent_level *l = agent_levels(domain);

	for (; l && l->name; l++) {
		const char *bare = strchr(l->name, '_') + 1;

		/* LTTng 2.13 refuses the negative one (ALL): its lookup's
		 * "not found" is any negative value */
		if (l->value >= 0 && (!strcasecmp(name, l->name) || !strcasecmp(name, bare))) {
			*level = l->value;
			return 0;
		}
	}
	return -EINVAL;
}

TRAWL_EXPORT const char *trawl_ctl_agent_loglevel_name(enum trawl_ctl_domain domain, int level)
{
	const struct agent_level *l = agent_levels(domain);

	for (; l && l->name; l++)
		if (l->value == level)
			return l->name;
	return NULL;
}

TRAWL_EXPORT const char *trawl_ctl_process_attr_name(enum trawl_ctl_process_attr attr)
{
	return trawl_ctl_wire_process_attr_name((uint32_t)attr);
}
