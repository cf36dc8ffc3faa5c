/* SPDX-License-Identifier: MIT */
/*
 * LTTng-UST compatibility: <lttng/ust-version.h>. The LTTng-UST API level
 * trawl's compatibility headers and libtrawl-ust offer (2.13), for the
 * programs and build systems (FindLTTngUST.cmake) that check it.
 */
#ifndef TRAWL_LTTNG_UST_VERSION_H
#define TRAWL_LTTNG_UST_VERSION_H

#define LTTNG_UST_MAJOR_VERSION 2
#define LTTNG_UST_MINOR_VERSION 13
#define LTTNG_UST_PATCHLEVEL_VERSION 5
#define LTTNG_UST_VERSION "2.13.5"
#define LTTNG_UST_VERSION_ENCODE(major, minor, patch) (((major) << 16) | ((minor) << 8) | (patch))
#define LTTNG_UST_VERSION_CODE                                                                        \
	LTTNG_UST_VERSION_ENCODE(LTTNG_UST_MAJOR_VERSION, LTTNG_UST_MINOR_VERSION, LTTNG_UST_PATCHLEVEL_VERSION)

#endif
