/* SPDX-License-Identifier: MIT */
/* A provider of tdup:ev (tp-dup.h), DUP_VARIANT given by the build. */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "tp-dup.h"
