/* SPDX-License-Identifier: MIT */
/* The probes of tp-classic.h, in the classic spelling (its own file: the
 * two spellings of the provider macros do not mix in one file of probes,
 * with LTTng-UST either). */
#define TRACEPOINT_CREATE_PROBES
#include "tp-classic.h"
