/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the `trawl` command's internals: the table of subcommands, their
 * documentation (the one source of both `--help` and the man pages, which
 * the build makes with `trawl help --man CMD`), and the shared helpers.
 *
 * Errors: subcommands return an exit status made by cli_error() (or 0).
 * Every failure prints exactly one line on stderr, naming what was wrong.
 */
#ifndef TRAWL_CLI_H
#define TRAWL_CLI_H

#include "trawl/ctl.h"

#include <stddef.h>
#include <stdint.h>

/* Exit statuses, one per kind of failure (documented in trawl(1)). */
enum cli_exit {
	CLI_OK = 0,
	CLI_EXIT_ERROR = 1,      /* anything else */
	CLI_EXIT_USAGE = 2,      /* bad command line */
	CLI_EXIT_NO_DAEMON = 3,  /* no session daemon and none could be started */
	CLI_EXIT_PERM = 4,       /* permission denied */
	CLI_EXIT_NOT_FOUND = 5,  /* unknown session, channel or event */
	CLI_EXIT_EXISTS = 6,     /* already exists / already enabled */
	CLI_EXIT_INVALID = 7,    /* bad value (size, name, loglevel...) */
	CLI_EXIT_STATE = 8,      /* wrong state (already started, not started) */
	CLI_EXIT_UNSUPPORTED = 9, /* not possible on this system or domain */
	CLI_EXIT_PROTOCOL = 10,  /* the daemon misbehaved */
	CLI_EXIT_LOST = 11,      /* done (stopped), but the trace lacks data: loss.c */
};

struct cli_option_doc {
	const char *spelling; /* "-s, --session=NAME" */
	const char *text;
};

/* What `trawl --mi xml CMD` does (mi.c). */
enum cli_mi_kind {
	CLI_MI_REFUSED = 0, /* one line on stderr: --mi does not apply */
	CLI_MI_RESULT,      /* the document ends with <success> */
	CLI_MI_LISTING,     /* no <success> (list, version) */
	CLI_MI_PLAIN,       /* runs as without --mi (help: LTTng shows its manual) */
};

struct cli_cmd {
	const char *name;
	const char *summary;  /* one line, no period */
	const char *synopsis; /* after "trawl NAME " */
	const char *description;
	const struct cli_option_doc *options; /* NULL-terminated */
	int (*run)(int argc, char **argv);
	enum cli_mi_kind mi;
	const char *mi_name; /* the <name> of its MI document, if not @name */
};

extern const struct cli_cmd *const cli_cmds[];
const struct cli_cmd *cli_cmd_find(const char *name);

/* Set by global options. */
extern int cli_quiet;
/* 1: run as `lttng` (argv[0]'s name): LTTng's exit statuses where trawl's differ (loss.c). */
extern int cli_as_lttng;

/* Prints "trawl: <msg>" and returns the exit status for @err (negative errno). */
int cli_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A channel's sub-buffer size when none is given, by domain (the daemon's,
 * sessiond/cmd-channel.c: 512 KiB in user space, as LTTng's; 1 MiB in the kernel) */
#define CLI_DEFAULT_SUBBUF_SIZE(domain) ((domain) == TRAWL_CTL_DOMAIN_UST ? 1ull << 19 : 1ull << 20)
/* A usage error: prints "trawl CMD: <msg> (see trawl CMD --help)", returns 2. */
int cli_usage(const struct cli_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Maps a negative errno to an exit status. */
int cli_exit_of(int err);

/*
 * After a failed library call: prints the daemon's line if it sent one,
 * else "@what: strerror". Returns the exit status.
 */
int cli_fail(struct trawl_ctl *ctl, int err, const char *what);

/*
 * A comma list (enable-channel a,b,c ...) tries every item, as LTTng does:
 * a failed item is said (cli_fail()) and the rest go on, the command's exit
 * status that of the first failure (*@first, 0 until then). Returns 1 when
 * the rest cannot go on either: the connection to the daemon is gone.
 */
int cli_list_fail(struct trawl_ctl *ctl, int err, const char *what, int *first);
/* As cli_list_fail() for a failure the client found itself (@status printed). */
void cli_list_note(int status, int *first);

/* Connects (starting the user's daemon if needed); prints the error itself. */
int cli_connect(struct trawl_ctl **ctl);

/* The session to act on: @given, else the current one. Prints the error. */
int cli_session(const char *given, char *buf, size_t len);

/*
 * The command line of a command shaped like `destroy` and `clear`: options
 * -h and -a/--all, then an optional session NAME (not with --all), into
 * @name (@len bytes: the current session if none) unless *@all. Returns 0,
 * -1 once the help is printed (exit 0), or the exit status of a bad
 * command line (its line printed).
 */
int cli_session_or_all(const struct cli_cmd *cmd, int argc, char **argv, char *name, size_t len,
		       int *all);

/*
 * The whole of a command shaped like `start` and `stop`: options -h and
 * --no-wait, an optional session NAME, then @run on it, which prints what
 * it did (or its error) and returns the exit status.
 */
int cli_session_run(const struct cli_cmd *cmd, int argc, char **argv,
		    int (*run)(struct trawl_ctl *ctl, const char *name));

/*
 * Stops session @name (loss.c). Returns 0 once it is stopped, with *@lost
 * set if the trace lacks data (the one line said on stderr); else the exit
 * status of a stop that did not happen (its line printed).
 */
int cli_loss_stop(struct trawl_ctl *ctl, const char *name, int *lost);
/*
 * For destroy: as cli_loss_stop() if session @name traces (0 if it does not,
 * or is not found), or for each of the caller's sessions that trace.
 */
int cli_loss_stop_active(struct trawl_ctl *ctl, const char *name, int *lost);
int cli_loss_stop_all(struct trawl_ctl *ctl, int *lost);
/* CLI_EXIT_LOST, the line said, if session @name lost data so far; else 0. */
int cli_loss_status(struct trawl_ctl *ctl, const char *name);

/*
 * The options the channel and event commands share: -k/--kernel,
 * -u/--userspace, -s/--session NAME and, where it applies, -c/--channel NAME.
 * Put CLI_TARGET_OPTIONS (and CLI_CHANNEL_OPTION) in the getopt table,
 * offer each option to cli_target_opt(), then cli_target_connect().
 */
struct cli_target {
	enum trawl_ctl_domain domain; /* TRAWL_CTL_DOMAIN_NONE until -k or -u */
	int domains_given;            /* how many of -k, -u, -j, -l, -p (LTTng takes one) */
	const char *session;          /* as given; NULL: the current session */
	const char *channel;          /* as given; NULL: channel0 */
	char name[TRAWL_CTL_NAME_MAX]; /* the session, once resolved */
};

#define CLI_TARGET_OPTIONS                                                                        \
	{"kernel", no_argument, NULL, 'k'}, {"userspace", no_argument, NULL, 'u'},                \
	{                                                                                         \
		"session", required_argument, NULL, 's'                                           \
	}
#define CLI_CHANNEL_OPTION {"channel", required_argument, NULL, 'c'}
/* LTTng's agent domains (enable-event, disable-event, list): -j, -l, -p */
#define CLI_AGENT_OPTIONS                                                                         \
	{"jul", no_argument, NULL, 'j'}, {"log4j", no_argument, NULL, 'l'},                       \
	{                                                                                         \
		"python", no_argument, NULL, 'p'                                                  \
	}

/* Takes -k, -u, -s and -c into @t: returns 1 if @c was one of them. */
int cli_target_opt(struct cli_target *t, int c, const char *arg);
/* Takes -j, -l, -p (CLI_AGENT_OPTIONS) into @t: returns 1 if @c was one of them. */
int cli_agent_opt(struct cli_target *t, int c);
/*
 * After the options: checks a domain was given, resolves the session into
 * @t->name and connects. Returns 0 or the exit status (the error printed).
 */
int cli_target_connect(const struct cli_cmd *cmd, struct cli_target *t, struct trawl_ctl **ctl);
/* "kernel" or "ust" (LTTng 2.13's words), for the commands' messages. */
const char *cli_domain_word(enum trawl_ctl_domain domain);

/*
 * The trace folder a reading command reads, into @path: @dir (-t DIR) or
 * @target when it names a folder, else session @target's output (NULL: the
 * current session). Returns 0 or the exit status (the error printed).
 */
int cli_trace_path(const struct cli_cmd *cmd, const char *target, const char *dir,
		   char *path, size_t len);

/* Handles -h/--help: prints @cmd's help on stdout. */
void cli_help_print(const struct cli_cmd *cmd);
void cli_man_print(const struct cli_cmd *cmd);

/* LTTng's unit of µs in its messages: "µs" where the locale says UTF-8, else "us". */
const char *cli_usec_unit(void);

/*
 * cli_relay_urls_join - LTTng's -C tcp://HOST:PORT[/PATH] -D tcp://HOST:PORT
 * (tcp6:// too) as one net[6]://HOST:CTRL:DATA[/PATH] in @buf (relay-url.c):
 * 0, or the exit status after one line (both needed, on one host).
 */
int cli_relay_urls_join(const char *ctrl, const char *data, char *buf, size_t len);

/* "4096", "4k", "4K", "1M", "2G" -> bytes; 0 or -EINVAL. */
int cli_parse_size(const char *s, uint64_t *out);
int cli_parse_u32(const char *s, uint32_t *out);

/* Subcommands, one file each. */
extern const struct cli_cmd cli_cmd_create, cli_cmd_destroy, cli_cmd_enable_channel,
	cli_cmd_disable_channel, cli_cmd_enable_event, cli_cmd_disable_event,
	cli_cmd_add_context, cli_cmd_start, cli_cmd_stop, cli_cmd_list, cli_cmd_status,
	cli_cmd_view, cli_cmd_set_session, cli_cmd_crash, cli_cmd_version, cli_cmd_help, cli_cmd_snapshot,
	cli_cmd_track, cli_cmd_untrack, cli_cmd_regenerate, cli_cmd_metadata, cli_cmd_clear,
	cli_cmd_rotate, cli_cmd_enable_rotation, cli_cmd_disable_rotation, cli_cmd_save,
	cli_cmd_load, cli_cmd_add_trigger, cli_cmd_list_triggers, cli_cmd_remove_trigger;
/* Built with src/export. */
extern const struct cli_cmd cli_cmd_export, cli_cmd_timeline;
struct trawl_export_opts;
/* cmd-export.c: runs @eo on the trace folder ARG or DIR names (cli_trace_path). */
int cli_export_trace(const struct cli_cmd *cmd, const char *arg, const char *dir,
		     struct trawl_export_opts *eo);

/*
 * --mi xml (mi.c). While cli_mi is set, main() has opened the document and
 * its <output> and stdout goes to /dev/null (the commands' usual lines
 * vanish): a command writes its result with the calls below, and main()
 * closes the document. Names given to cli_mi_open() are literals.
 */
extern int cli_mi;
int cli_mi_begin(const struct cli_cmd *cmd);
/* Closes what is open, adds <success> for CLI_MI_RESULT and prints the document: @ret or
 * the exit status of a failure to print it. */
int cli_mi_end(const struct cli_cmd *cmd, int ret);
void cli_mi_open(const char *name);
void cli_mi_close(void);
int cli_mi_depth(void);
void cli_mi_close_to(int depth);
void cli_mi_str(const char *name, const char *text);
void cli_mi_u64(const char *name, uint64_t v);
void cli_mi_i64(const char *name, int64_t v);
void cli_mi_bool(const char *name, int v);
/* LTTng's objects, each left open for the caller to add to and close. */
void cli_mi_session_open(const struct trawl_ctl_session_info *s);
void cli_mi_channel_open(const struct trawl_ctl_channel_info *c);
/* <session> of session @name as the daemon lists it now, closed (nothing if not found). */
void cli_mi_session_named(struct trawl_ctl *ctl, const char *name);
struct cli_mi_event {
	const char *name;
	enum trawl_ctl_event_kind kind;
	int enabled;
	const char *filter;  /* NULL or "": none */
	const char *target;  /* a probe's location */
	int loglevel;        /* -1: none */
	enum trawl_ctl_loglevel_type loglevel_type;
	const char *exclusions; /* NULL or "": none; else joined by ',' */
	int exclusions_apart;   /* enable-event's: an empty <exclusions/>, then the names */
	enum trawl_ctl_domain domain; /* an agent domain: its level names, always shown */
};
void cli_mi_event_of(struct cli_mi_event *m, const struct trawl_ctl_event_info *e);
void cli_mi_event_open(const struct cli_mi_event *e);
/* <vpid_process_attr_tracker><process_attr_values> (two elements). */
void cli_mi_tracker_open(enum trawl_ctl_process_attr a);
/* <vpid><type><id>N</id></type> (or <all>true</all>), <vpid> left open. */
void cli_mi_tracker_value_open(enum trawl_ctl_process_attr a, int all, uint32_t id);
const char *cli_mi_process_attr_name(enum trawl_ctl_process_attr a);
/*
 * A trigger's probe location, as list-triggers shows it (mi-trigger.c).
 * A kprobe's (@uprobe 0): SYMBOL[+OFFSET] or 0xADDRESS, into @sym (""
 * for an address) and @value (the offset or the address). A uprobe's:
 * [elf:]PATH:SYMBOL or sdt:PATH:PROVIDER:NAME into @sdt, @path,
 * @provider ("" for ELF) and @sym. 0, or -1 if @loc is none of these.
 */
struct cli_probe_loc {
	int sdt;
	uint64_t value;
	char path[TRAWL_CTL_TARGET_MAX], provider[TRAWL_CTL_TARGET_MAX], sym[TRAWL_CTL_TARGET_MAX];
};
int cli_probe_loc_split(const char *loc, int uprobe, struct cli_probe_loc *out);

/* The trigger at @at of @list (mi-trigger.c), with its error counters if @errors. */
void cli_mi_trigger(const struct trawl_ctl_list *list, size_t at, int errors);
const char *cli_mi_domain_name(enum trawl_ctl_domain d);
const char *cli_mi_buffers_name(enum trawl_ctl_domain d, enum trawl_ctl_buffers b);

/* The standard option for help, for each subcommand's getopt table. */
#define CLI_HELP_OPTION {"help", no_argument, NULL, 'h'}

#endif /* TRAWL_CLI_H */
