/* SPDX-License-Identifier: MIT */
/*
 * count.c - counts a lost packet's events with the reader's public
 * trawl_reader_packet_count_events() (the decoder trawl view uses), on a
 * copy of the packet made to say what it would have said on disk.
 *
 * Only packets that could not be written come here: the metadata is parsed
 * again for each, which costs about what writing the packet would have.
 */
#include "consumerd/count.h"
#include "ctf/layout.h"

#include <trawl/reader.h>

#include <stdlib.h>
#include <string.h>

int64_t trawl_cons_packet_events(const char *metadata, size_t len, const void *pkt,
				 size_t content)
{
	struct trawl_ctf_packet_start *head;
	uint64_t n = 0;
	uint8_t *copy;
	int ret;

	if (!metadata || content < sizeof(*head))
		return -1;
	copy = malloc(content);
	if (!copy)
		return -1;
	/* a copy: the program may write the shared memory while we decode */
	memcpy(copy, pkt, content);
	head = (struct trawl_ctf_packet_start *)copy;
	/* its content only (the padding written after it is not read: ctf/packet.h) */
	if (head->context.content_size > (uint64_t)content * 8) {
		free(copy);
		return -1;
	}
	head->context.packet_size = head->context.content_size;
	content = (size_t)((head->context.content_size + 7) / 8);
	ret = trawl_reader_packet_count_events(metadata, len, copy, content, &n);
	free(copy);
	return ret || n > INT64_MAX ? -1 : (int64_t)n;
}
