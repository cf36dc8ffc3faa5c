/* SPDX-License-Identifier: MIT */
/* array.c - growing an array (array.h). */
#include "common/array.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int trawl_array_grow(void **arr, size_t *cap, size_t need, size_t elem_size, size_t first)
{
	size_t n = *cap ? *cap : (first ? first : 1);
	void *p;

	if (need <= *cap)
		return 0;
	if (!elem_size)
		return -EINVAL;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (n > SIZE_MAX / elem_size)
		return -ENOMEM;
	p = realloc(*arr, n * elem_size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}
