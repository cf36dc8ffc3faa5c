/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl/tracker.h> - process-attribute trackers.
 *
 * A tracker limits a session's domain to the processes whose attribute
 * (PID, UID, GID, or their virtual forms) is in its inclusion set.
 *
 * Part of the control API: programs include <trawl/ctl.h>, which includes
 * this header.
 */
#ifndef TRAWL_CTL_TRACKER_H
#define TRAWL_CTL_TRACKER_H

#include <stdint.h>

#include <trawl/ctl-types.h>
#include <trawl/ctl/connect.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * trawl_ctl_track - add a value to a tracker's inclusion set
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @attr: the process attribute (user space: VPID, VUID or VGID only)
 * @value: the ID
 *
 * A domain traces only the processes whose every tracked attribute is in
 * its tracker's set; a tracker that includes all (the default) becomes the
 * set {@value}. Applied to running apps before the call returns.
 *
 * Return: 0, -EEXIST (already in the set), -ENOENT (no such session),
 * -EINVAL (an attribute the domain has not), -ENOSPC (the set holds
 * TRAWL_CTL_TRACKER_MAX_VALUES values), -EOPNOTSUPP.
 */
int trawl_ctl_track(struct trawl_ctl *ctl, const char *session, enum trawl_ctl_domain domain,
		    enum trawl_ctl_process_attr attr, uint32_t value);

/**
 * trawl_ctl_untrack - remove a value from a tracker's inclusion set
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @attr: the process attribute
 * @value: the ID
 *
 * Return: 0, -ENXIO (not in the set, or the tracker includes all), -ENOENT
 * (no such session), -EINVAL, -EOPNOTSUPP.
 */
int trawl_ctl_untrack(struct trawl_ctl *ctl, const char *session, enum trawl_ctl_domain domain,
		      enum trawl_ctl_process_attr attr, uint32_t value);

/**
 * trawl_ctl_track_all - make a tracker include every process (LTTng's track --all)
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @attr: the process attribute
 *
 * Return: 0, -ENOENT, -EINVAL, -EOPNOTSUPP.
 */
int trawl_ctl_track_all(struct trawl_ctl *ctl, const char *session, enum trawl_ctl_domain domain,
			enum trawl_ctl_process_attr attr);

/**
 * trawl_ctl_untrack_all - make a tracker's set empty: no process is traced
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @attr: the process attribute
 *
 * Return: 0, -ENOENT, -EINVAL, -EOPNOTSUPP.
 */
int trawl_ctl_untrack_all(struct trawl_ctl *ctl, const char *session,
			  enum trawl_ctl_domain domain, enum trawl_ctl_process_attr attr);

/**
 * trawl_ctl_process_attr_name - how LTTng names a process attribute
 * @attr: the attribute
 *
 * Return: "process ID", "virtual process ID", "user ID", "virtual user ID",
 * "group ID" or "virtual group ID" (static storage), NULL if out of range.
 */
const char *trawl_ctl_process_attr_name(enum trawl_ctl_process_attr attr);

/* A process-attribute tracker of a session's domain; its values follow it. */
struct trawl_ctl_tracker_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	enum trawl_ctl_process_attr process_attr;
	int32_t include_all; /* 1: every process (the default); 0: the set only */
	uint32_t nr_values;  /* the TRACKER_VALUE records after this one (0 with
				include_all 0: no process at all) */
};

/* A value in the inclusion set of the TRACKER record before it. */
struct trawl_ctl_tracker_value_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	enum trawl_ctl_process_attr process_attr;
	uint32_t value; /* the ID */
};

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_TRACKER_H */
