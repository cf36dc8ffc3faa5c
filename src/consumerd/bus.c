/* SPDX-License-Identifier: MIT */
/*
 * bus.c - SIGBUS on a stream's mapping turned into an error (bus.h), as
 * lttng-consumerd does for its --shm-path buffers: a handler that jumps
 * back to the guard armed around the access, else the default action.
 */
#include "consumerd/bus.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;

static void bus_handler(int sig)
{
	if (!bus_armed) {
		/* Not a stream's mapping: the access faults again on return,
		 * and kills us as it would have. */
		signal(sig, SIG_DFL);
		return;
	}
	bus_armed = 0;
	siglongjmp(bus_jmp, 1);
}

int trawl_cons_bus_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bus_handler;
	sigemptyset(&sa.sa_mask);
	/* Not blocked in the handler: the jump leaves it, the mask as it was
	 * (sigsetjmp(.., 0) saves none: no syscall per guarded access). */
	sa.sa_flags = SA_NODEFER;
	return sigaction(SIGBUS, &sa, NULL) ? -errno : 0;
}

int trawl_cons_guarded(int (*fn)(void *), void *arg, int *bus)
{
	volatile int ret = -EFAULT;

	*bus = 0;
	if (bus_armed)
		return fn(arg);
	if (sigsetjmp(bus_jmp, 0)) {
		*bus = 1;
		return -EFAULT;
	}
	bus_armed = 1;
	ret = fn(arg);
	bus_armed = 0;
	return ret;
}

int trawl_cons_fd_shrinkable(int fd)
{
	int seals = fcntl(fd, F_GET_SEALS);

	return seals < 0 || !(seals & F_SEAL_SHRINK);
}
