// SPDX-License-Identifier: MIT
/*
 * trawl-test-guard CMD [ARG...]: runs one test so that nothing it started
 * outlives it. Every ctest test is started through it (tests/CMakeLists.txt).
 *
 * Why: a test's trace daemons daemonize (setsid, double fork), so when ctest
 * kills a test on timeout with SIGKILL, neither the test's own cleanup (trap,
 * atexit) nor ctest's process-tree kill reaches them. One such root daemon,
 * left tracing every kernel event, wrote 77 GB and filled the disk CI ran on.
 *
 * How: the guard puts the test in a cgroup of its own (cgroup v2 if mounted,
 * else v1's pids hierarchy) and marks its environment with a token, then execs
 * the test. A watcher, detached from ctest's process tree, waits on a pidfd
 * of the test; when it ends, however it ends, the watcher sends SIGTERM (the
 * daemons' clean stop, which also removes their tracefs instances) and then
 * SIGKILL to every process in that cgroup or carrying the token, and removes
 * the tracefs instances of the trawl processes it had to kill. Without root
 * or cgroups, the token alone still finds processes that kept the environment.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TOKEN_VAR "TRAWL_TEST_TOKEN"
#define MAX_PIDS 4096

static char cgroup[256];     /* the test's cgroup folder, "" if none */
static char token[128];      /* "TRAWL_TEST_TOKEN=<value>" as found in /proc/PID/environ */
static pid_t killed[MAX_PIDS];
static int nkilled;

static const char *const cgroup_roots[] = {
	"/sys/fs/cgroup/unified", /* hybrid v1/v2 */
	"/sys/fs/cgroup",         /* pure v2 */
	"/sys/fs/cgroup/pids",    /* v1 */
};

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* Makes the test's cgroup; leaves cgroup[] empty when no hierarchy takes one. */
static void cgroup_make(pid_t self)
{
	for (size_t i = 0; i < sizeof(cgroup_roots) / sizeof(cgroup_roots[0]); i++) {
		char procs[300];
		int n;

		n = snprintf(procs, sizeof(procs), "%s/cgroup.procs", cgroup_roots[i]);
		if (n < 0 || (size_t)n >= sizeof(procs) || access(procs, W_OK) != 0)
			continue;
		n = snprintf(cgroup, sizeof(cgroup), "%s/trawl-test-%d", cgroup_roots[i], (int)self);
		if (n > 0 && (size_t)n < sizeof(cgroup) && mkdir(cgroup, 0755) == 0)
			return;
	}
	cgroup[0] = '\0';
}

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t off = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (off + 1 < size && (n = read(fd, buf + off, size - 1 - off)) > 0)
		off += (size_t)n;
	close(fd);
	buf[off] = '\0';
	return (int)off;
}

static int has_token(pid_t pid)
{
	char path[64], env[65536];
	int n;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	n = read_file(path, env, sizeof(env));
	for (int i = 0; i < n; i += (int)strlen(env + i) + 1)
		if (strcmp(env + i, token) == 0)
			return 1;
	return 0;
}

static void remember(pid_t pid)
{
	for (int i = 0; i < nkilled; i++)
		if (killed[i] == pid)
			return;
	if (nkilled < MAX_PIDS)
		killed[nkilled++] = pid;
}

/* Signals every process of the test's cgroup or environment; returns how many. */
static int signal_all(int sig)
{
	char path[300], buf[65536], *line, *save = NULL;
	struct dirent *de;
	pid_t me = getpid();
	int count = 0;
	DIR *d;

	if (cgroup[0] && snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup) < (int)sizeof(path) &&
	    read_file(path, buf, sizeof(buf)) > 0) {
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			pid_t pid = (pid_t)atoi(line);

			if (pid > 1 && pid != me && kill(pid, sig) == 0) {
				remember(pid);
				count++;
			}
		}
	}
	d = opendir("/proc");
	if (!d)
		return count;
	while ((de = readdir(d))) {
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (pid > 1 && pid != me && has_token(pid) && kill(pid, sig) == 0) {
			remember(pid);
			count++;
		}
	}
	closedir(d);
	return count;
}

/* tracefs instances are named "trawl-<pid>-..." by the process that made them. */
static void remove_instances(void)
{
	const char *inst = "/sys/kernel/tracing/instances";
	struct dirent *de;
	DIR *d = opendir(inst);

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[512];
		int pid = 0, n = 0;

		if (sscanf(de->d_name, "trawl-%d-%n", &pid, &n) != 1 || n == 0)
			continue;
		for (int i = 0; i < nkilled; i++) {
			if (killed[i] != pid || kill(pid, 0) == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s/tracing_on", inst, de->d_name);
			write_str(path, "0");
			snprintf(path, sizeof(path), "%s/%s", inst, de->d_name);
			if (rmdir(path) == 0)
				fprintf(stderr, "trawl-test-guard: removed tracefs instance %s\n", de->d_name);
		}
	}
	closedir(d);
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* After the test ended: SIGTERM, up to 5 s for clean exits, then SIGKILL. */
static void reap(void)
{
	int left = signal_all(SIGTERM);

	for (int i = 0; left && i < 50; i++) {
		nap_ms(100);
		left = signal_all(0);
	}
	for (int i = 0; left && i < 50; i++) {
		signal_all(SIGKILL);
		nap_ms(100);
		left = signal_all(0);
	}
	remove_instances();
	if (cgroup[0])
		rmdir(cgroup);
}

/* The watcher: detached, waits for @test to end, then reaps. Never returns. */
static void watch(pid_t test, int ready)
{
	int pidfd, devnull;

	setsid();
	if (fork() != 0)
		_exit(0); /* the grandchild is reparented away from ctest's tree */
	pidfd = (int)syscall(SYS_pidfd_open, test, 0);
	devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0) { /* ctest waits for EOF on the test's output pipes */
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
	}
	if (write(ready, "r", 1) != 1)
		_exit(1);
	close(ready);
	if (pidfd >= 0) {
		struct pollfd p = { .fd = pidfd, .events = POLLIN };

		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
	}
	reap();
	_exit(0);
}

int main(int argc, char **argv)
{
	pid_t self = getpid(), child;
	int pipefd[2], status;
	char c, value[64];

	if (argc < 2) {
		fprintf(stderr, "usage: trawl-test-guard CMD [ARG...]\n");
		return 2;
	}
	srand((unsigned)time(NULL) ^ (unsigned)self);
	snprintf(value, sizeof(value), "%d-%d-%ld", (int)self, rand(), (long)time(NULL));
	snprintf(token, sizeof(token), TOKEN_VAR "=%s", value);
	setenv(TOKEN_VAR, value, 1);
	cgroup_make(self);
	if (pipe2(pipefd, O_CLOEXEC) < 0 || (child = fork()) < 0) {
		perror("trawl-test-guard");
		return 2;
	}
	if (child == 0) {
		close(pipefd[0]);
		watch(self, pipefd[1]);
	}
	close(pipefd[1]);
	waitpid(child, &status, 0);
	if (read(pipefd[0], &c, 1) != 1)
		fprintf(stderr, "trawl-test-guard: no watcher; daemons this test leaves will stay\n");
	close(pipefd[0]);
	if (cgroup[0]) { /* only now, so the watcher stays outside the cgroup it empties */
		char procs[300];

		snprintf(procs, sizeof(procs), "%s/cgroup.procs", cgroup);
		if (write_str(procs, "0") < 0)
			cgroup[0] = '\0';
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "trawl-test-guard: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
