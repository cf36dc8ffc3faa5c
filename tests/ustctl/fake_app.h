/* SPDX-License-Identifier: MIT */
/*
 * fake_app.h - the traced app of the ustctl tests that read the daemon's side
 * (added.c, tally.c), played by bytes written in advance on one end of a
 * socketpair: each call writes one wire message (src/ustabi/wire.h) whole, or
 * aborts the test.
 */
#ifndef TRAWL_TESTS_USTCTL_FAKE_APP_H
#define TRAWL_TESTS_USTCTL_FAKE_APP_H

#include <stddef.h>
#include <stdint.h>

/* @len bytes of @buf, all of them. */
void fake_app_put(int fd, const void *buf, size_t len);
/* REGISTER: this process's pid, 64-bit, the current ABI, @nr_events to come. */
void fake_app_register(int fd, uint32_t nr_events, const char *procname);
/* The same, of app wire ABI minor @minor (an older app's). */
void fake_app_register_minor(int fd, uint32_t nr_events, const char *procname, uint32_t minor);
/* EVENT @name ("provider:event"), log level 13. */
void fake_app_event(int fd, const char *name);

#endif /* TRAWL_TESTS_USTCTL_FAKE_APP_H */
