/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl-types.h> - the vocabulary of a tracing configuration: domains,
 * kinds of event rules, log-level conditions, buffering schemes, and the
 * limits on names and paths.
 *
 * These enums are the one definition of each value. The public control API
 * (<trawl/ctl.h>, which includes this header), the ctl protocol between
 * libtrawl-ctl and trawl-sessiond, and the session daemon's domains all use
 * them as they are; nothing converts one set of values into another. A value
 * is never renumbered; new values are added at the end.
 */
#ifndef TRAWL_CTL_TYPES_H
#define TRAWL_CTL_TYPES_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Limits, in bytes with the terminating NUL: a name is at most 255 bytes. The
 * control API refuses longer strings (-ENAMETOOLONG) rather than cut them, and
 * never returns longer ones, so a buffer of this size always suffices.
 */
#define TRAWL_CTL_NAME_MAX 256   /* session, channel, event and context names */
#define TRAWL_CTL_PATH_MAX 1024  /* trace folders and URLs the daemon returns */
#define TRAWL_CTL_OUTPUT_MAX 901 /* a session's output as given: the daemon makes
				    folders inside it, within TRAWL_CTL_PATH_MAX */
#define TRAWL_CTL_FILTER_MAX 1024 /* an event rule's filter expression */
#define TRAWL_CTL_TARGET_MAX 1024 /* a probe's location */
#define TRAWL_CTL_ERROR_MAX 1024 /* the daemon's one-line explanation of a failure */
#define TRAWL_CTL_EXCLUSIONS_MAX 1024 /* an event rule's exclusions, joined by ',' */
/* A channel's blocking timeout (µs): without end, and the longest finite one
 * (LTTng 2.13's: the milliseconds must fit a 32-bit int). */
#define TRAWL_CTL_BLOCKING_INF (-1)
#define TRAWL_CTL_BLOCKING_MAX_US 2147483647999LL
/* A channel's monitor timer (µs): LTTng's default, and the longest trawl takes. */
#define TRAWL_CTL_MONITOR_DEFAULT_US 1000000u
#define TRAWL_CTL_MONITOR_MAX_US 4294967294ULL

/* Where events come from. */
enum trawl_ctl_domain {
	TRAWL_CTL_DOMAIN_NONE = 0,   /* no domain (sessions, daemon-wide commands) */
	TRAWL_CTL_DOMAIN_KERNEL = 1, /* the Linux kernel (root session daemon only) */
	TRAWL_CTL_DOMAIN_UST = 2,    /* user-space applications (libtrawl-ust) */
	/* LTTng's agent domains: logging frameworks whose agents (in the
	 * application) send each log record of an enabled logger through a
	 * user-space tracepoint, recorded in the session's user-space channel
	 * lttng_jul_channel (lttng_log4j_channel, lttng_python_channel). An event
	 * rule's name is a logger name, or "*"; its log levels are the
	 * framework's (TRAWL_CTL_JUL_*, ...). */
	TRAWL_CTL_DOMAIN_JUL = 3,    /* java.util.logging */
	TRAWL_CTL_DOMAIN_LOG4J = 4,  /* Apache log4j 1.2 */
	TRAWL_CTL_DOMAIN_PYTHON = 5, /* Python's logging */
};

/* The agent domains' log levels (LTTng 2.13's values): more severe is larger. */
#define TRAWL_CTL_JUL_OFF 2147483647
#define TRAWL_CTL_JUL_SEVERE 1000
#define TRAWL_CTL_JUL_WARNING 900
#define TRAWL_CTL_JUL_INFO 800
#define TRAWL_CTL_JUL_CONFIG 700
#define TRAWL_CTL_JUL_FINE 500
#define TRAWL_CTL_JUL_FINER 400
#define TRAWL_CTL_JUL_FINEST 300
#define TRAWL_CTL_JUL_ALL (-2147483647 - 1)
#define TRAWL_CTL_LOG4J_OFF 2147483647
#define TRAWL_CTL_LOG4J_FATAL 50000
#define TRAWL_CTL_LOG4J_ERROR 40000
#define TRAWL_CTL_LOG4J_WARN 30000
#define TRAWL_CTL_LOG4J_INFO 20000
#define TRAWL_CTL_LOG4J_DEBUG 10000
#define TRAWL_CTL_LOG4J_TRACE 5000
#define TRAWL_CTL_LOG4J_ALL (-2147483647 - 1)
#define TRAWL_CTL_PYTHON_CRITICAL 50
#define TRAWL_CTL_PYTHON_ERROR 40
#define TRAWL_CTL_PYTHON_WARNING 30
#define TRAWL_CTL_PYTHON_INFO 20
#define TRAWL_CTL_PYTHON_DEBUG 10
#define TRAWL_CTL_PYTHON_NOTSET 0

/* What an event rule's name (and target) designate. */
enum trawl_ctl_event_kind {
	TRAWL_CTL_EVENT_TRACEPOINT = 0,      /* name: tracepoint name or pattern ("*", "sched_*") */
	TRAWL_CTL_EVENT_SYSCALL = 1,         /* name: system call name or "*" (kernel) */
	TRAWL_CTL_EVENT_PROBE = 2,           /* target: SYM[+OFF] or 0xADDR (kernel) */
	TRAWL_CTL_EVENT_FUNCTION = 3,        /* target: SYM, entry and return (kernel) */
	TRAWL_CTL_EVENT_USERSPACE_PROBE = 4, /* target: elf:PATH:SYMBOL or sdt:PATH:PROVIDER:NAME (kernel) */
};

/*
 * Which log levels an event rule accepts. Levels are LTTng's: 0 (TRACE_EMERG,
 * most severe) to 14 (TRACE_DEBUG), as <trawl/tracepoint.h> names them.
 */
enum trawl_ctl_loglevel_type {
	TRAWL_CTL_LOGLEVEL_ALL = 0,    /* every level */
	TRAWL_CTL_LOGLEVEL_RANGE = 1,  /* this level or more severe (value <= level) */
	TRAWL_CTL_LOGLEVEL_SINGLE = 2, /* exactly this level */
};

/*
 * How LTTng's consumer takes a channel's packets (enable-channel --output):
 * what the channel says it uses. trawl's consumers write every channel the
 * same way whichever is chosen (user space: its buffers mapped; kernel:
 * tracefs' pages read and converted).
 */
enum trawl_ctl_output {
	TRAWL_CTL_OUTPUT_DEFAULT = 0, /* the domain's: splice (kernel), mmap (user space); a
					 kernel channel of a snapshot session: mmap */
	TRAWL_CTL_OUTPUT_SPLICE = 1,  /* kernel only */
	TRAWL_CTL_OUTPUT_MMAP = 2,
};

/* How a channel's ring buffers are shared. */
enum trawl_ctl_buffers {
	TRAWL_CTL_BUFFERS_DEFAULT = 0, /* the domain's own: per user (UST), global (kernel) */
	TRAWL_CTL_BUFFERS_PER_UID = 1, /* user space: one set per user, shared by their apps */
	TRAWL_CTL_BUFFERS_PER_PID = 2, /* user space: one set per process */
	TRAWL_CTL_BUFFERS_GLOBAL = 3,  /* kernel: one set for the whole system */
};

/*
 * The process attributes a session's trackers filter on (LTTng's values).
 * A domain traces a process only if each of its trackers includes the
 * process's value (all of them by default). User space has the virtual ones
 * only: VPID, VUID and VGID, as the process sees itself (its getpid(),
 * getuid(), getgid()); the kernel has all six.
 */
enum trawl_ctl_process_attr {
	TRAWL_CTL_PROCESS_ATTR_PID = 0,  /* process ID (the kernel's tgid) */
	TRAWL_CTL_PROCESS_ATTR_VPID = 1, /* process ID in its own PID namespace */
	TRAWL_CTL_PROCESS_ATTR_UID = 2,  /* real user ID */
	TRAWL_CTL_PROCESS_ATTR_VUID = 3, /* user ID in its own user namespace */
	TRAWL_CTL_PROCESS_ATTR_GID = 4,  /* real group ID */
	TRAWL_CTL_PROCESS_ATTR_VGID = 5, /* group ID in its own user namespace */
};
#define TRAWL_CTL_PROCESS_ATTR_COUNT 6

/*
 * What triggers an automatic rotation of a session (LTTng's
 * enable-rotation --timer / --size).
 */
enum trawl_ctl_rotation_schedule {
	TRAWL_CTL_ROTATION_TIMER = 1, /* every given period (µs) */
	TRAWL_CTL_ROTATION_SIZE = 2,  /* each time the current chunk holds the given bytes */
};

/* The most values one tracker's inclusion set holds (a bound on what one
 * client makes a daemon keep). */
#define TRAWL_CTL_TRACKER_MAX_VALUES 4096


/*
 * Triggers (LTTng 2.13's add-trigger): a condition, and the actions taken
 * each time it holds, each under its rate policy.
 */
enum trawl_ctl_condition_kind {
	TRAWL_CTL_CONDITION_NONE = 0,
	TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES = 1,    /* an event matches a rule */
	TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE = 2, /* a session wrote past a threshold */
	TRAWL_CTL_CONDITION_BUFFER_USAGE_HIGH = 3,     /* a channel's buffers fill past ... */
	TRAWL_CTL_CONDITION_BUFFER_USAGE_LOW = 4,      /* ... or empty below a threshold */
};

enum trawl_ctl_action_kind {
	TRAWL_CTL_ACTION_NOTIFY = 0,           /* to the notification channels' subscribers */
	TRAWL_CTL_ACTION_START_SESSION = 1,
	TRAWL_CTL_ACTION_STOP_SESSION = 2,
	TRAWL_CTL_ACTION_ROTATE_SESSION = 3,
	TRAWL_CTL_ACTION_SNAPSHOT_SESSION = 4, /* a snapshot record of the session */
};

/* When an action runs, counted in occurrences of its trigger's condition. */
enum trawl_ctl_rate_policy {
	TRAWL_CTL_RATE_EVERY_N = 0,      /* every Nth (1: each time, the default) */
	TRAWL_CTL_RATE_ONCE_AFTER_N = 1, /* once, at the Nth */
};

/* Bounds on one trigger (what one request makes a daemon keep). */
#define TRAWL_CTL_TRIGGER_MAX_ACTIONS 8
#define TRAWL_CTL_CAPTURES_MAX 1024 /* capture descriptors, joined by ',' */

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_TYPES_H */
