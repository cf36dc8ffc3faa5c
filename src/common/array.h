/* SPDX-License-Identifier: MIT */
/*
 * array.h - growing an array held as (pointer, capacity): the one place
 * that doubles a capacity, checks the multiplication for overflow and
 * keeps the old block when realloc() fails.
 */
#ifndef TRAWL_COMMON_ARRAY_H
#define TRAWL_COMMON_ARRAY_H

#include <stddef.h>

/*
 * trawl_array_grow - makes room for at least @need elements of @elem_size
 * bytes in *@arr (a malloc'd block or NULL), whose capacity *@cap counts
 * elements: the capacity doubles from @first (or from *@cap) until it is
 * enough. New elements are not initialised. Returns 0 (*@arr and *@cap
 * updated when it grew), or -ENOMEM (on overflow or allocation failure;
 * *@arr and *@cap are unchanged and still the caller's).
 */
int trawl_array_grow(void **arr, size_t *cap, size_t need, size_t elem_size, size_t first);

#endif /* TRAWL_COMMON_ARRAY_H */
