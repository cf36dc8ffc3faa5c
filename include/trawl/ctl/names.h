/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl/names.h> - names of values: the library's version, log levels.
 *
 * The names the commands print and take, turned into values and back.
 *
 * Part of the control API: programs include <trawl/ctl.h>, which includes
 * this header.
 */
#ifndef TRAWL_CTL_NAMES_H
#define TRAWL_CTL_NAMES_H

#include <trawl/ctl-types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * trawl_ctl_version - this library's version
 *
 * Return: "0.1.0", static storage.
 */
const char *trawl_ctl_version(void);

/**
 * trawl_ctl_loglevel_parse - a log level from its name
 * @name: "TRACE_EMERG" .. "TRACE_DEBUG", also without the TRACE_ prefix, in
 *        any case, or the number 0 .. 14
 *
 * Return: 0..14, or -EINVAL if unknown.
 */
int trawl_ctl_loglevel_parse(const char *name);

/**
 * trawl_ctl_loglevel_name - a log level's name
 * @level: 0..14
 *
 * Return: "TRACE_EMERG".."TRACE_DEBUG" (static storage), NULL if out of range.
 */
const char *trawl_ctl_loglevel_name(int level);

/**
 * trawl_ctl_agent_loglevel_parse - an agent domain's log level from its name
 * @domain: TRAWL_CTL_DOMAIN_JUL, _LOG4J or _PYTHON
 * @name: LTTng 2.13's names, in any case: "SEVERE" or "JUL_SEVERE", "FATAL"
 *        or "LOG4J_FATAL", "INFO" or "PYTHON_INFO", ...
 * @level: the level's value (TRAWL_CTL_JUL_SEVERE, ...)
 *
 * As LTTng 2.13's client, the levels "ALL" (JUL, log4j) are not taken: a
 * rule of every level has no --loglevel.
 *
 * Return: 0, or -EINVAL if unknown.
 */
int trawl_ctl_agent_loglevel_parse(enum trawl_ctl_domain domain, const char *name, int *level);

/**
 * trawl_ctl_agent_loglevel_name - an agent domain's log level's name
 * @domain: TRAWL_CTL_DOMAIN_JUL, _LOG4J or _PYTHON
 * @level: a level of the domain
 *
 * Return: "JUL_SEVERE", "LOG4J_ALL", "PYTHON_INFO", ... (static storage), or
 * NULL for a level the framework does not name.
 */
const char *trawl_ctl_agent_loglevel_name(enum trawl_ctl_domain domain, int level);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_NAMES_H */
