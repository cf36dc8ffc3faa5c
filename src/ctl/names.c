/* SPDX-License-Identifier: MIT */
/* names.c - libtrawl-ctl's version, LTTng's log-level and process-attribute names. */
#include "common/common.h"
#include "ctl/proto.h"
#include "trawl/ctl.h"

#include <errno.h>
#include <stdlib.h>
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

TRAWL_EXPORT const char *trawl_ctl_process_attr_name(enum trawl_ctl_process_attr attr)
{
	return trawl_ctl_wire_process_attr_name((uint32_t)attr);
}
