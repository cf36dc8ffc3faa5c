/* SPDX-License-Identifier: MIT */
/* fake_app.c - the ustctl tests' app played by bytes (fake_app.h). */
#define _GNU_SOURCE
#include "fake_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io.h"
#include "ustabi/wire.h"

void fake_app_put(int fd, const void *buf, size_t len)
{
	if (trawl_io_send_all(fd, buf, len))
		abort();
}

void fake_app_register(int fd, uint32_t nr_events, const char *procname)
{
	fake_app_register_minor(fd, nr_events, procname, TRAWL_UST_WIRE_ABI_MINOR);
}

void fake_app_register_minor(int fd, uint32_t nr_events, const char *procname, uint32_t minor)
{
	struct trawl_wire_register r;

	memset(&r, 0, sizeof(r));
	trawl_wire_hdr_init(&r.hdr, TRAWL_WIRE_REGISTER, sizeof(r));
	r.pid = (uint32_t)getpid();
	r.bits_per_long = 64;
	r.abi_major = TRAWL_UST_WIRE_ABI_MAJOR;
	r.abi_minor = minor;
	r.nr_events = nr_events;
	if (snprintf(r.procname, sizeof(r.procname), "%s", procname) >= (int)sizeof(r.procname))
		abort();
	fake_app_put(fd, &r, sizeof(r));
}

void fake_app_event(int fd, const char *name)
{
	struct trawl_wire_event e;

	memset(&e, 0, sizeof(e));
	trawl_wire_hdr_init(&e.hdr, TRAWL_WIRE_EVENT, sizeof(e));
	if (snprintf(e.name, sizeof(e.name), "%s", name) >= (int)sizeof(e.name))
		abort();
	e.loglevel = 13;
	fake_app_put(fd, &e, sizeof(e));
}
