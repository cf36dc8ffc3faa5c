/* SPDX-License-Identifier: MIT */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "tp-trig.h"
