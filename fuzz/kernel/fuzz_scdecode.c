/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the decoding of syscall structures (scdecode-data.c):
 * the bytes BPF read from a traced program's memory (a socket address, a
 * pollfd array, epoll events, fd sets) are the program's to choose, and so
 * are the arguments and the return value. The input is: 6 u64 arguments, an
 * s64 return value, 6 u16 lengths (cut to the data that follows), one byte
 * of aux, then the data. Every decoded field is written for every argument;
 * each must stay within the bound convert.c reserves (twice the data, or
 * TRAWL_KERNEL_OP_MAX_OUT), and the CTF types must build and free cleanly.
 */
#include "kernel/internal.h"
#include "ctf/ctf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_kernel_scinfo sc = { .found = 1 };
	size_t head = 6 * 8 + 8 + 6 * 2 + 1, room, left;
	uint8_t aux, *out;
	int x, a, i;

	if (size < head)
		return 0;
	memcpy(sc.args, data, 48);
	memcpy(&sc.ret, data + 48, 8);
	memcpy(sc.len, data + 56, 12);
	aux = data[68];
	left = size - head;
	for (i = 0; i < 6; i++) { /* as scaux.c keeps them: the lengths sum to the data */
		if (sc.len[i] > left)
			sc.len[i] = (uint16_t)left;
		left -= sc.len[i];
	}
	sc.data = malloc(size - head + 1);
	if (!sc.data)
		return 0;
	memcpy(sc.data, data + head, size - head);
	room = 2 * (size - head) + TRAWL_KERNEL_OP_MAX_OUT;
	out = malloc(room);
	for (x = TRAWL_KX_SC_INT1; out && x <= TRAWL_KX_EPOLL_EVENT; x++) {
		for (a = 0; a < 6; a++) {
			struct trawl_kernel_op op = { .kind = TRAWL_KOP_SC, .xform = (uint8_t)x, .arg = (uint8_t)a,
						      .aux = aux, .dst = 1 };
			uint8_t *end = trawl_kernel_scdecode_write(&op, &sc, out);

			if ((size_t)(end - out) > room)
				abort();
		}
	}
	for (x = TRAWL_KX_SA_V4; x <= TRAWL_KX_EPOLL_EVENT; x++) {
		struct trawl_kernel_field f = { .name = "readfds", .kind = TRAWL_KF_DECODED, .xform = (uint8_t)x };

		trawl_ctf_type_destroy(trawl_kernel_scdecode_type(&f));
	}
	free(out);
	free(sc.data);
	return 0;
}
