/* SPDX-License-Identifier: MIT */
/*
 * An attacker's library, preloaded by a non-root user into their own run of
 * trawl's executables (tests/security/notrace-user.sh): a thread that waits
 * for the file $EVIL_GO, makes 1000 getppid() calls, creates $EVIL_DONE and
 * stays (the kernel consumer reads a thread's process id from /proc when it
 * converts its records).
 * The root kernel consumer hides trawl's own processes from root's traces;
 * this code must not be hidden with them.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>


static void *evil(void *arg)
{
	const char *go = getenv("EVIL_GO"), *done = getenv("EVIL_DONE");
	int i, fd;

	(void)arg;
	for (i = 0; i < 600 && access(go, F_OK); i++)
		usleep(50000);
	for (i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	fd = open(done, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	for (;;)
		pause();
	return NULL;
}

__attribute__((constructor)) static void start(void)
{
	pthread_t t;

	if (getenv("EVIL_GO") && getenv("EVIL_DONE") && !pthread_create(&t, NULL, evil, NULL))
		pthread_detach(t);
}
