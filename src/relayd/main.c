/* SPDX-License-Identifier: MIT */
/*
 * main.c - trawl-relayd: receives traces streamed by trawl's consumers over
 * TCP, writes them as local traces are laid out, and serves live viewers.
 *
 *   trawl-relayd [-o DIR] [-C tcp://ADDR:PORT] [-D tcp://ADDR:PORT]
 *                [-L tcp://ADDR:PORT] [-d | -b] [-w DIR]
 *                [--group-output-by-host | --group-output-by-session]
 *
 * As LTTng's lttng-relayd: -o takes an absolute folder only; -d and -b go to
 * the background in / (-b keeps stdout and stderr), or in the working
 * directory (-w, or $TRAWL_RELAYD_WORKING_DIRECTORY), which relayd enters
 * in the foreground too (a missing one: exit 1, "Failed to change working
 * directory to ..."; one it cannot write in: a warning). The output folder
 * is where traces go whatever the working directory.
 *
 * One thread runs a poll loop over the control and data listening sockets
 * and every streaming connection (session.c); the live server (live.c) runs
 * in threads of its own and reads what this thread has written to disk. A
 * port of 0 takes any free port; the ports taken are logged at start-up.
 */
#include "common/array.h"
#include "common/common.h"
#include "common/daemon.h"
#include "common/fs.h"
#include "common/log.h"
#include "relayd/proto.h"
#include "relayd/relayd.h"
#include "relayd/url.h"
#ifdef TRAWL_HAVE_LIVE
#include "relayd/live.h"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


static volatile sig_atomic_t quit;
static int quiet;

/* Its lines go through common/log.h (ident "trawl-relayd", set in main()). */
void relayd_log(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	trawl_vlog(TRAWL_LOG_INFO, fmt, ap);
	va_end(ap);
}

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: trawl-relayd [-o DIR] [-C URL] [-D URL] [-L URL] [-d | -b] [-w DIR]\n"
		"                    [--group-output-by-host | --group-output-by-session]\n"
		"Receives traces streamed by trawl sessions created with --set-url net://HOST or\n"
		"--live, writes them under DIR/<hostname>/<session>-<YYYYMMDD>-<HHMMSS>/ (or\n"
		"DIR/<hostname>/PATH for net://HOST/PATH), and serves them to live viewers\n"
		"(babeltrace2's lttng-live source).\n\n"
		"  -o, --output=DIR        where traces go, an absolute folder (default:\n"
		"                          ~/trawl-traces; $LTTNG_HOME/lttng-traces\n"
		"                          when LTTNG_HOME is set)\n"
		"  -C, --control-port=URL  control port, tcp://ADDR:PORT (default tcp://0.0.0.0:%d)\n"
		"  -D, --data-port=URL     data port (default tcp://0.0.0.0:%d)\n"
		"  -L, --live-port=URL     live viewers' port (default tcp://localhost:%d)\n"
		"  -d, --daemonize         run in the background (in /, standard fds closed)\n"
		"  -b, --background        run in the background, keeping stdout and stderr\n"
		"  -w, --working-directory=DIR  the daemon's working directory (default: / in\n"
		"                          the background; $TRAWL_RELAYD_WORKING_DIRECTORY)\n"
		"      --group-output-by-host     DIR/<hostname>/<session>-<date>-<time> (default)\n"
		"      --group-output-by-session  DIR/<session>/<hostname>-<date>-<time>\n"
		"  -v, --verbose           accepted, as lttng-relayd's\n"
		"  -h, --help              show this help\n"
		"A port of 0 takes a free port; the ports taken are logged at start-up.\n"
		"$TRAWL_RELAYD_DISALLOW_CLEAR=1: `trawl clear` of sessions streamed here\n"
		"is refused (LTTng's LTTNG_RELAYD_DISALLOW_CLEAR).\n",
		TRAWL_RELAY_DEFAULT_CTRL_PORT, TRAWL_RELAY_DEFAULT_DATA_PORT,
		TRAWL_RELAY_DEFAULT_LIVE_PORT);
}

/* Listens on @url; returns the fd (and the port taken in *port) or -1 after a one-line error. */
static int listen_on(const char *what, const char *url, uint16_t def, uint16_t *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
	struct trawl_relay_url u;
	struct addrinfo *res;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char why[256], service[8];
	int fd, one = 1, ret;

	if (!strncmp(url, "tcp://", 6) || !strncmp(url, "tcp6://", 7)) {
		/* a port of 0 is allowed here: any free port */
		char copy[300];
		const char *colon = strrchr(url, ':');

		if (trawl_path_fmt(copy, sizeof(copy), "%s", url)) {
			ret = -EINVAL;
			trawl_msg_fmt(why, sizeof(why), "longer than %zu bytes", sizeof(copy) - 1);
		} else if (colon && !strcmp(colon, ":0") && colon > url + 5 && colon[-1] != '/') {
			copy[colon - url] = '\0';
			ret = trawl_relay_url_parse(copy, def, &u, why, sizeof(why));
			u.ctrl_port = 0;
		} else {
			ret = trawl_relay_url_parse(url, def, &u, why, sizeof(why));
		}
	} else {
		ret = -EINVAL;
		snprintf(why, sizeof(why), "expected tcp://ADDR[:PORT] or tcp6://[ADDR][:PORT]");
	}
	if (ret) {
		fprintf(stderr, "trawl-relayd: bad %s URL '%s': %s\n", what, url, why);
		return -1;
	}
	hints.ai_family = u.ipv6 ? AF_INET6 : AF_INET;
	snprintf(service, sizeof(service), "%u", u.ctrl_port);
	if (getaddrinfo(u.host, service, &hints, &res)) {
		fprintf(stderr, "trawl-relayd: %s URL '%s': cannot resolve '%s'\n", what, url, u.host);
		return -1;
	}
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		fprintf(stderr, "trawl-relayd: cannot listen on %s (%s): %s\n", url, what,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return -1;
	}
	freeaddrinfo(res);
	*port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					       : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

/*
 * The working directory (-w, $TRAWL_RELAYD_WORKING_DIRECTORY), or / for a
 * daemon without one, as LTTng's: 0, or -1 after LTTng's line when it cannot
 * be entered. One relayd cannot write in is only warned about (its rights
 * may change while it runs).
 */
static int workdir_enter(const char *dir, int daemon)
{
	if (!dir || !dir[0])
		return daemon && chdir("/") ? -1 : 0;
	if (chdir(dir)) {
		fprintf(stderr, "trawl-relayd: Failed to change working directory to \"%s\": %s\n",
			dir, strerror(errno));
		return -1;
	}
	if (access(".", W_OK) && errno == EACCES)
		fprintf(stderr, "trawl-relayd: Working directory \"%s\" is not writable\n", dir);
	return 0;
}

/* Copies option -@opt's @arg into @buf: 0, or -1 with one line when it does not fit. */
static int opt_copy(char *buf, size_t len, int opt, const char *arg)
{
	if (!trawl_path_fmt(buf, len, "%s", arg))
		return 0;
	fprintf(stderr, "trawl-relayd: -%c: longer than %zu bytes: %s\n", opt, len - 1, arg);
	return -1;
}

static void peer_name(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ss;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
	}
	trawl_msg_fmt(buf, len, "peer %s:%u", host, port);
}

/*
 * In the background (common/daemon.h): the shell that ran `trawl-relayd -d`
 * gets its status once the ports listen and the live server runs. Our
 * standard fds go to /dev/null (nothing reads them any more), unless
 * @keep_fds (-b, LTTng's --background).
 */
static int daemonize(int *ready_fd, int keep_fds)
{
	int ret = trawl_daemon_start(ready_fd);
	int fd;

	if (ret || keep_fds)
		return ret;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	quiet = 1;
	return 0;
}

/*
 * Streaming connections: as many as the fd limit allows (raised to its hard
 * limit at start), at most MAX_CONNS_PER_HOST from one address, so that one
 * host (or one local user) cannot take every slot from the others. A peer
 * never holds the loop: reads follow poll(), replies never wait (session.c),
 * and one that names no session is dropped after RELAY_HELLO_TIMEOUT_S.
 */
#define MAX_CONNS_PER_HOST 256
#define FD_RESERVE 64 /* files being written, the live server's sockets */

struct conn_slot {
	struct relay_conn *c;
	struct sockaddr_storage addr; /* its port zeroed: the host */
};

static uint32_t conn_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 1024 - FD_RESERVE;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 20))
		rl.rlim_cur = 1u << 20;
	/* Each connection may hold open files of its own: half for sockets. */
	return rl.rlim_cur > 2 * FD_RESERVE ? (uint32_t)(rl.rlim_cur - FD_RESERVE) / 2 : 16;
}

static void host_of(struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = 0;
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = 0;
}

static int same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return !memcmp(&((const struct sockaddr_in *)a)->sin_addr,
			       &((const struct sockaddr_in *)b)->sin_addr, sizeof(struct in_addr));
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
	return 0;
}

/* Takes one connection from @lfd into @slots, unless over a limit. */
static void accept_conn(int lfd, struct conn_slot **slots, size_t *nr, size_t *cap, uint32_t limit)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	size_t i, same = 0;
	char name[64];
	int fd;

	fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	peer_name(&ss, name, sizeof(name));
	host_of(&ss);
	for (i = 0; i < *nr; i++)
		same += same_host(&(*slots)[i].addr, &ss);
	if (*nr >= limit || same >= MAX_CONNS_PER_HOST) {
		relayd_log("%s: %s: refusing a connection", name,
			   *nr >= limit ? "as many connections as the fd limit allows"
					: "its host holds the most connections one host may");
		close(fd);
		return;
	}
	if (trawl_array_grow((void **)slots, cap, *nr + 1, sizeof(**slots), 64)) {
		close(fd);
		return;
	}
	(*slots)[*nr].c = relay_conn_create(fd, name);
	(*slots)[*nr].addr = ss;
	if ((*slots)[*nr].c)
		(*nr)++;
}

/* The poll loop: accepts on @lfd[0..1], reads connections, until a signal. */
/*
 * The output folder, created if needed. relayd's sessions are found again by
 * path (the live server reads what is written), so a root relayd writes only
 * in a folder no other user can change (trawl_fs_dir_private()): a user who
 * could rename a session's folder could swap in links to root's files for
 * the live server to read out. Returns its fd, or -1 after one line on stderr.
 */
int relayd_output_open(const char *output)
{
	char where[PATH_MAX] = "";
	int fd = trawl_fs_dir_open(AT_FDCWD, output, TRAWL_FS_CREATE, 0750, where, sizeof(where)),
	    ret;

	if (fd < 0) {
		fprintf(stderr, "trawl-relayd: cannot create output folder %s: %s\n",
			where[0] ? where : output, trawl_fs_strerror(fd));
		return -1;
	}
	ret = faccessat(fd, ".", W_OK | X_OK, 0) ? -errno : 0;
	if (ret) {
		fprintf(stderr, "trawl-relayd: cannot write in output folder %s: %s\n", output,
			strerror(-ret));
	} else if (geteuid() == 0 && (ret = trawl_fs_dir_private(fd, where, sizeof(where)))) {
		fprintf(stderr, "trawl-relayd: output folder %s: %s %s; as root, relayd writes only "
			"where no other user can change what it wrote (use a folder of root's, or run "
			"it as that user)\n", output, where[0] ? where : output,
			ret == -EPERM ? "belongs to another user or is writable by others"
				      : strerror(-ret));
	}
	if (ret) {
		close(fd);
		return -1;
	}
	return fd;
}

static void serve(const int lfd[2])
{
	struct conn_slot *slots = NULL;
	struct pollfd *pfd = NULL;
	size_t nconns = 0, cap = 0, pcap = 0, i;
	uint32_t limit = conn_limit();

	while (!quit) {
		int n;

		if (trawl_array_grow((void **)&pfd, &pcap, 2 + nconns, sizeof(*pfd), 64))
			break;
		for (i = 0; i < 2; i++)
			pfd[i] = (struct pollfd){.fd = lfd[i], .events = POLLIN};
		for (i = 0; i < nconns; i++)
			pfd[2 + i] = (struct pollfd){.fd = relay_conn_fd(slots[i].c), .events = POLLIN};
		n = poll(pfd, (nfds_t)(2 + nconns), 1000);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			relayd_log("poll: %s", strerror(errno));
			break;
		}
		/* Connections first: an accept below changes the array's tail. */
		for (i = nconns; i-- > 0;) {
			if (!pfd[2 + i].revents && !relay_conn_expired(slots[i].c))
				continue;
			if (!pfd[2 + i].revents || relay_conn_readable(slots[i].c) < 0) {
				relay_conn_destroy(slots[i].c);
				slots[i] = slots[--nconns];
			}
		}
		for (i = 0; i < 2; i++)
			if (pfd[i].revents & POLLIN)
				accept_conn(lfd[i], &slots, &nconns, &cap, limit);
	}
	while (nconns > 0)
		relay_conn_destroy(slots[--nconns].c);
	free(slots);
	free(pfd);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"control-port", required_argument, NULL, 'C'},
		{"data-port", required_argument, NULL, 'D'},
		{"live-port", required_argument, NULL, 'L'},
		{"daemonize", no_argument, NULL, 'd'},
		{"background", no_argument, NULL, 'b'},
		{"working-directory", required_argument, NULL, 'w'},
		{"group-output-by-host", no_argument, NULL, 'p'},
		{"group-output-by-session", no_argument, NULL, 's'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char ctrl[300], data[300], live[300], output[PATH_MAX] = "";
	const char *workdir = getenv("TRAWL_RELAYD_WORKING_DIRECTORY");
	uint16_t ports[3] = {0, 0, 0};
	int lfd[2], live_fd, out_fd, c, daemon = 0, keep_fds = 0, ready_fd = -1, ret;
	int group = 0; /* 'p' or 's' once given */
	const struct trawl_log_config log = {.ident = "trawl-relayd", .level = TRAWL_LOG_INFO};
	struct relay_live *lv = NULL;
	struct sigaction sa;

	trawl_log_open(&log);
	snprintf(ctrl, sizeof(ctrl), "tcp://0.0.0.0:%d", TRAWL_RELAY_DEFAULT_CTRL_PORT);
	snprintf(data, sizeof(data), "tcp://0.0.0.0:%d", TRAWL_RELAY_DEFAULT_DATA_PORT);
	snprintf(live, sizeof(live), "tcp://localhost:%d", TRAWL_RELAY_DEFAULT_LIVE_PORT);
	while ((c = getopt_long(argc, argv, "o:C:D:L:dbw:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (opt_copy(output, sizeof(output), c, optarg))
				return 2;
			break;
		case 'C':
			if (opt_copy(ctrl, sizeof(ctrl), c, optarg))
				return 2;
			break;
		case 'D':
			if (opt_copy(data, sizeof(data), c, optarg))
				return 2;
			break;
		case 'L':
			if (opt_copy(live, sizeof(live), c, optarg))
				return 2;
			break;
		case 'd':
			daemon = 1;
			break;
		case 'b':
			daemon = keep_fds = 1;
			break;
		case 'w':
			workdir = optarg;
			break;
		case 'p':
		case 's':
			if (group) {
				fprintf(stderr, "trawl-relayd: cannot set --group-output-by-%s, another "
						"--group-output-by argument is present\n",
					c == 's' ? "session" : "host");
				return 1;
			}
			group = c;
			break;
		case 'v':
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "trawl-relayd: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (!output[0] && trawl_traces_dir(output, sizeof(output))) {
		fprintf(stderr, "trawl-relayd: no home folder (HOME, LTTNG_HOME) or too long a one: "
				"give the output folder with -o\n");
		return 1;
	}
	if (output[0] != '/') {
		fprintf(stderr, "trawl-relayd: give an absolute path for -o, --output (not '%s')\n",
			output);
		return 1;
	}
	out_fd = relayd_output_open(output);
	if (out_fd < 0 || workdir_enter(workdir, daemon))
		return 1;
	lfd[0] = listen_on("control", ctrl, TRAWL_RELAY_DEFAULT_CTRL_PORT, &ports[0]);
	if (lfd[0] < 0)
		return 1;
	lfd[1] = listen_on("data", data, TRAWL_RELAY_DEFAULT_DATA_PORT, &ports[1]);
	if (lfd[1] < 0)
		return 1;
	live_fd = listen_on("live", live, TRAWL_RELAY_DEFAULT_LIVE_PORT, &ports[2]);
	if (live_fd < 0)
		return 1;
	fprintf(stderr, "trawl-relayd[%d]: control port %u, data port %u, live port %u, output %s\n",
		(int)getpid(), ports[0], ports[1], ports[2], output);
	if (daemon && (ret = daemonize(&ready_fd, keep_fds)) < 0) {
		fprintf(stderr, "trawl-relayd: cannot daemonize: %s\n", strerror(-ret));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
#ifdef TRAWL_HAVE_LIVE
	lv = relay_live_start(live_fd);
	if (!lv)
		relayd_log("the live server did not start: live viewers cannot attach");
#else
	/* Built without the live server: viewers are refused, streaming works. */
	close(live_fd);
#endif
	relay_sessions_init(out_fd, output, group == 's', lv);
	relay_sessions_allow_clear(!getenv("TRAWL_RELAYD_DISALLOW_CLEAR") ||
				   !strcmp(getenv("TRAWL_RELAYD_DISALLOW_CLEAR"), "0"));
	trawl_daemon_ready(&ready_fd, 1); /* the parent exits 0 now */
	serve(lfd);
#ifdef TRAWL_HAVE_LIVE
	if (lv)
		relay_live_stop(lv);
#endif
	close(lfd[0]);
	close(lfd[1]);
	return 0;
}
