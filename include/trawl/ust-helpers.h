/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ust-helpers.h> - what the helper libraries (libtrawl-ust-fork,
 * libtrawl-ust-dl; LTTng-UST's liblttng-ust-fork and liblttng-ust-dl) call
 * in libtrawl-ust. A program rarely needs them: it preloads or links the
 * helper library instead.
 */
#ifndef TRAWL_UST_HELPERS_H
#define TRAWL_UST_HELPERS_H

#include <trawl/tracepoint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * trawl_ust_dl_update - the set of loaded objects may have changed
 * @ip: the caller of dlopen()/dlclose(), for the events' "ip" context
 *
 * Records lttng_ust_lib:load (with build_id and debug_link) for each object
 * loaded since the last call, and lttng_ust_lib:unload for each one gone.
 * Call it after a successful dlopen(), dlmopen() or dlclose().
 */
void trawl_ust_dl_update(void *ip);

/*
 * Around a fork the C library does not see (a raw clone() without
 * CLONE_VM): what pthread_atfork() does for fork(). prepare before the
 * clone, parent and child after it in each; the child then registers as a
 * new app. trawl_ust_fork_child_wait() waits (at most
 * TRAWL_UST_REGISTER_TIMEOUT ms) until the child is set up by the running
 * session daemons, so that its first events are recorded: what
 * libtrawl-ust-fork does after fork(), daemon() and clone().
 */
void trawl_ust_fork_prepare(void);
void trawl_ust_fork_parent(void);
void trawl_ust_fork_child(void);
void trawl_ust_fork_child_wait(void);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_UST_HELPERS_H */
