/* SPDX-License-Identifier: MIT */
/*
 * main.c - trawl-sessiond: start-up, the one-instance lock, and the poll loop.
 *
 * Start-up order matters for clients that start the daemon themselves
 * (libtrawl-ctl runs `trawl-sessiond --daemonize` and connects once it
 * exits): the daemonizing parent exits only after the child holds the lock
 * and listens, so the client's connect right after never races the bind.
 * A daemon that finds the lock held exits 0: another one serves.
 *
 * A dead daemon leaves its socket file behind; the next one takes the lock
 * (flock dies with its holder), removes the stale socket and binds again.
 */
#include "common/common.h"
#include "common/daemon.h"
#include "config/config.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct sessiond sd;

void sd_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trawl_vlog(TRAWL_LOG_INFO, fmt, ap);
	va_end(ap);
}

void sd_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trawl_vlog(TRAWL_LOG_WARN, fmt, ap);
	va_end(ap);
}

void sd_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trawl_vlog(TRAWL_LOG_DEBUG, fmt, ap);
	va_end(ap);
}

/* What a child running as another user writes to its stderr (log_pipe()). */
struct log_pipe {
	uid_t uid;
	char who[48];
	size_t len;
	char buf[512];
};

static void log_pipe_readable(int fd, short revents, void *arg)
{
	struct log_pipe *lp = arg;
	ssize_t n = read(fd, lp->buf + lp->len, sizeof(lp->buf) - 1 - lp->len);
	char *nl;

	if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR))) {
		if (lp->len) {
			lp->buf[lp->len] = '\0';
			sd_log_peer(lp->uid, TRAWL_LOG_WARN, "%s: %s", lp->who, lp->buf);
		}
		sd_watch_del(fd);
		close(fd);
		free(lp);
		return;
	}
	if (n < 0)
		return;
	lp->len += (size_t)n;
	lp->buf[lp->len] = '\0';
	/* One log line per line written; a line too long is cut. */
	while ((nl = memchr(lp->buf, '\n', lp->len)) || lp->len == sizeof(lp->buf) - 1) {
		size_t k = nl ? (size_t)(nl - lp->buf) + 1 : lp->len;

		lp->buf[k - (nl != NULL)] = '\0';
		sd_log_peer(lp->uid, TRAWL_LOG_WARN, "%s: %s", lp->who, lp->buf);
		memmove(lp->buf, lp->buf + k, lp->len - k);
		lp->len -= k;
	}
}

int sd_log_pipe(uid_t uid, const char *who)
{
	struct log_pipe *lp = calloc(1, sizeof(*lp));
	int p[2];

	if (!lp || pipe2(p, O_CLOEXEC)) {
		free(lp);
		return -ENOMEM;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	lp->uid = uid;
	trawl_msg_fmt(lp->who, sizeof(lp->who), "%s", who);
	if (sd_watch_add(p[0], log_pipe_readable, lp)) {
		close(p[0]);
		close(p[1]);
		free(lp);
		return -ENOMEM;
	}
	/* Drained in nested rounds too: a consumer the daemon waits for must
	 * not block on a full pipe meanwhile. */
	sd_watch_nested(p[0], 1);
	return p[1];
}

void sd_log_peer(uid_t uid, enum trawl_log_level level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!trawl_log_enabled(level))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	trawl_log_peer(uid, level, "%s", line);
}

/* ---- start-up ---- */

static int take_lock(const char *dir)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/sessiond.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int ret = errno == EWOULDBLOCK ? -EALREADY : -errno;

		close(fd);
		return ret;
	}
	/* The pid, for people and tests; the lock is what counts. */
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%d\n", (int)getpid());
	return fd; /* kept open (and locked) for the daemon's lifetime */
}

static void init_domains(void)
{
	struct trawl_domain_env env = {
		.runtime_dir = sd.runtime_dir,
		.consumerd = sd.consumerd,
		.root_daemon = sd.root_daemon,
	};
	const struct trawl_domain_ops *all[SD_NR_DOMAINS] = {NULL};
	int i;

#ifdef TRAWL_HAVE_UST_DOMAIN
	all[TRAWL_CTL_DOMAIN_UST] = &trawl_domain_ust_ops;
#endif
#ifdef TRAWL_HAVE_KERNEL_DOMAIN
	if (sd.root_daemon)
		all[TRAWL_CTL_DOMAIN_KERNEL] = &trawl_domain_kernel_ops;
#endif
	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct trawl_domain_err err = {""};

		sd.domains[i] = all[i];
		if (!all[i]) {
			sd.domain_ret[i] = -EOPNOTSUPP;
			if (i == TRAWL_CTL_DOMAIN_KERNEL && !sd.root_daemon)
				trawl_msg_fmt(
					sd.domain_err[i], sizeof(sd.domain_err[i]),
					"kernel tracing needs the root session daemon (run as "
					"root, "
					"or in group 'tracing' while root's trawl-sessiond runs)");
			else
				trawl_msg_fmt(sd.domain_err[i], sizeof(sd.domain_err[i]),
					      "%s tracing is not available in this build",
					      sd_domain_name((uint32_t)i));
			continue;
		}
		if (all[i]->init) {
			sd.domain_ret[i] = all[i]->init(&env, &err);
			if (sd.domain_ret[i]) {
				trawl_msg_fmt(sd.domain_err[i], sizeof(sd.domain_err[i]), "%s",
					      err.msg[0] ? err.msg : strerror(-sd.domain_ret[i]));
				sd_log("%s domain unavailable: %s", all[i]->name, sd.domain_err[i]);
			}
		}
	}
}

static void fini_domains(void)
{
	int i;

	for (i = 1; i < SD_NR_DOMAINS; i++)
		if (sd.domains[i] && !sd.domain_ret[i] && sd.domains[i]->fini)
			sd.domains[i]->fini();
}

static void usage(FILE *f)
{
	fprintf(f, "usage: trawl-sessiond [--daemonize | -d] [--foreground] [--log-level LEVEL]\n"
		   "                      [--load PATH | --no-autoload] [--limit NAME=VALUE]...\n"
		   "                      [--consumerd-path PATH] [--help]\n"
		   "The trawl session daemon. Started by `trawl` when needed; run it as root\n"
		   "(--daemonize, or the trawl-sessiond.service unit) to trace the kernel and\n"
		   "serve members of group 'tracing'.\n"
		   "State folder: $TRAWL_RUNTIME_DIR, $XDG_RUNTIME_DIR/trawl or ~/.trawl\n"
		   "(root: $TRAWL_ROOT_RUNTIME_DIR or /run/trawl); its log is sessiond.log there.\n"
		   "--log-level: error, warning, info (default) or debug.\n"
		   "--load PATH: load the sessions of PATH (a session file, or a folder of\n"
		   "*.lttng files) at start; without it, those of LTTng's autoload folders\n"
		   "$LTTNG_HOME/.lttng/sessions/auto (else $HOME's) and /etc/lttng/sessions/auto\n"
		   "that this user owns (root: both); --no-autoload: none.\n"
		   "--consumerd-path PATH (LTTng's --consumerd64-path): the consumer program\n"
		   "to start (default: trawl-consumerd beside this program, else on PATH);\n"
		   "--consumerd32-path is accepted and ignored (no 32-bit consumer).\n"
		   "--limit: what other users may make the daemon hold (docs/SECURITY.md);\n"
		   "bytes take K, M or G. The limits and their values:\n");
	sd_limits_usage(f);
}

/* The daemonizing parent exits with what we say here (common/daemon.h). */
static void tell_ready(int *ready_fd, char c)
{
	int ret = trawl_daemon_ready(ready_fd, !c);

	if (ret)
		sd_log("cannot tell the parent: %s", strerror(-ret));
}

/*
 * The daemon's log: sessiond.log in its state folder, read by its user
 * only (the root daemon's names every user's sessions and paths), cut at
 * sd_limits.log_bytes (log.h). It is fd 2 too, for what the daemon's
 * libraries (and sanitizers) write there.
 */
static void redirect_std(const char *dir, enum trawl_log_level level)
{
	struct trawl_log_config cfg = {
		.ident = "trawl-sessiond",
		.level = level,
		.max_bytes = sd_limits.log_bytes,
		.mode = 0600,
		.uid = geteuid(),
		.gid = getegid(),
		.to_stderr = 1,
	};
	char path[4200];
	int fd = open("/dev/null", O_RDWR);

	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2); /* until the log is open */
		if (fd > 2)
			close(fd);
	}
	snprintf(path, sizeof(path), "%s/sessiond.log", dir);
	cfg.path = path;
	trawl_log_open(&cfg);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"daemonize", no_argument, NULL, 'd'},
		{"foreground", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{"limit", required_argument, NULL, 'L'},
		{"log-level", required_argument, NULL, 'l'},
		{"load", required_argument, NULL, 'P'},
		{"no-autoload", no_argument, NULL, 'N'},
		{"consumerd-path", required_argument, NULL, 'C'},
		{"consumerd64-path", required_argument, NULL, 'C'},
		{"consumerd32-path", required_argument, NULL, '3'},
		{NULL, 0, NULL, 0},
	};
	enum trawl_log_level level = TRAWL_LOG_INFO;
	const char *load_path = NULL;
	int autoload = 1;
	int daemon_mode = 0, ready_fd = -1, lock_fd, listen_fd, sigfd, c, ret;
	char sock[4200];
	sigset_t set;

	while ((c = getopt_long(argc, argv, "dfhL:l:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			daemon_mode = 1;
			break;
		case 'f':
			daemon_mode = 0;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'L':
			ret = sd_limit_set(optarg);
			if (ret) {
				fprintf(stderr, "trawl-sessiond: --limit %s: %s\n", optarg,
					ret == -ENOENT ? "no such limit (see --help)"
						       : "not a number in range");
				return 2;
			}
			break;
		case 'P':
			load_path = optarg;
			break;
		case 'N':
			autoload = 0;
			break;
		case 'C':
			/* The operator's choice (whoever starts the daemon): it
			 * runs as each session's owner, never as root. */
			/* Made absolute (--daemonize leaves the folder), its last
			 * part kept: a link's name is the process's name. */
			ret = optarg[0] == '/'
				      ? trawl_path_fmt(sd.consumerd, sizeof(sd.consumerd), "%s", optarg)
			      : !getcwd(sock, sizeof(sock)) ? -errno
				      : trawl_path_fmt(sd.consumerd, sizeof(sd.consumerd), "%s/%s",
						       sock, optarg);
			if (!ret && access(sd.consumerd, X_OK))
				ret = -errno;
			if (ret) {
				fprintf(stderr, "trawl-sessiond: --consumerd-path %s: %s\n", optarg,
					strerror(-ret));
				return 2;
			}
			break;
		case '3':
			break;
		case 'l':
			if (trawl_log_level_parse(optarg, &level)) {
				fprintf(stderr, "trawl-sessiond: --log-level %s: not error, warning, "
						"info or debug\n", optarg);
				return 2;
			}
			trawl_log_set_level(level);
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	sd.root_daemon = geteuid() == 0;
	sd.next_id = 1;
	sd_limits_fds();
	sd_clock_offset_refresh();
	umask(022);
	signal(SIGPIPE, SIG_IGN);
	ret = trawl_runtime_dir_create(sd.runtime_dir, sizeof(sd.runtime_dir), sd.root_daemon);
	if (ret) {
		fprintf(stderr, "trawl-sessiond: cannot create the state folder: %s\n",
			strerror(-ret));
		return 1;
	}
	if (!sd.consumerd[0] &&
	    trawl_find_program("trawl-consumerd", sd.consumerd, sizeof(sd.consumerd)))
		sd.consumerd[0] = '\0';
	if (daemon_mode) {
		ret = trawl_daemon_start(&ready_fd);
		if (ret) {
			fprintf(stderr, "trawl-sessiond: cannot daemonize: %s\n", strerror(-ret));
			return 1;
		}
	}
	lock_fd = take_lock(sd.runtime_dir);
	if (lock_fd == -EALREADY) {
		/* Another daemon serves this folder: nothing to do, and not an error. */
		tell_ready(&ready_fd, 0);
		return 0;
	}
	if (lock_fd < 0) {
		fprintf(stderr, "trawl-sessiond: cannot lock %s: %s\n", sd.runtime_dir,
			strerror(-lock_fd));
		tell_ready(&ready_fd, 1);
		return 1;
	}
	if (daemon_mode)
		redirect_std(sd.runtime_dir, level);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	init_domains();
	snprintf(sock, sizeof(sock), "%s/sessiond.sock", sd.runtime_dir);
	listen_fd = sd_client_listen(sock, sd.root_daemon);
	if (listen_fd < 0) {
		sd_log("cannot listen on %s: %s", sock, strerror(-listen_fd));
		tell_ready(&ready_fd, 1);
		return 1;
	}
	sd_log("serving %s (%s daemon; fd limit %u)", sock, sd.root_daemon ? "root" : "user",
	       sd.fd_limit);
	ret = sd_agent_port_start();
	if (ret)
		sd_warn("agents (JUL, log4j, Python logging) cannot register: no port on "
			"127.0.0.1: %s", strerror(-ret));
	/* With sessions to load, the loop tells the parent once they are. */
	autoload = load_path || (autoload && trawl_config_autoload_pending());
	if (!autoload || (ret = sd_autoload_start(load_path, &ready_fd))) {
		if (autoload)
			sd_warn("cannot load sessions: %s", strerror(-ret));
		tell_ready(&ready_fd, 0);
	}
	ret = sd_loop_run(sigfd);
	sd_ops_finish();
	sd_triggers_fini();
	sd_notify_fini();
	while (sd.sessions)
		sd_session_destroy(sd.sessions);
	sd_agent_port_stop();
	fini_domains();
	unlink(sock);
	close(listen_fd);
	close(lock_fd);
	sd_log("exited");
	return ret ? 1 : 0;
}
