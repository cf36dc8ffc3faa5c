/* SPDX-License-Identifier: MIT */
/*
 * reply.c - the records of a reply under construction, in their wire form
 * (src/ctl/proto.h): client.c sends them after the command is done.
 */
#include "common/array.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <stdlib.h>

int sd_reply_rec(struct sd_reply *r, enum trawl_ctl_item_kind kind, const void *body,
		 const char *const *strs)
{
	size_t size = trawl_ctl_rec_size((uint32_t)kind, strs);

	if (r->status)
		return r->status;
	if (!size)
		return sd_fail(r, -ENAMETOOLONG, "a name is too long to send (internal error)");
	/* Too much to send is a failure the client hears of, never a cut list. */
	if (r->head.nr_records == TRAWL_CTL_MAX_RECORDS ||
	    size > TRAWL_CTL_MAX_PAYLOAD - sizeof(r->head) - r->len)
		return sd_fail(r, -E2BIG, "the answer is too large to send (over %u records "
					  "or %u MiB)", TRAWL_CTL_MAX_RECORDS,
			       TRAWL_CTL_MAX_PAYLOAD >> 20);
	if (trawl_array_grow((void **)&r->recs, &r->cap, r->len + size, 1, 4096))
		return sd_fail(r, -ENOMEM, "out of memory");
	trawl_ctl_rec_write(r->recs + r->len, (uint32_t)kind, body, strs);
	r->len += size;
	r->head.nr_records++;
	return 0;
}
