/* SPDX-License-Identifier: MIT */
/* consumerd.h - the consumers trawl-consumerd dispatches to. */
#ifndef TRAWL_CONSUMERD_H
#define TRAWL_CONSUMERD_H

/* The user-space consumer: `trawl-consumerd --ust --fd N` (ust-consumer.c). */
int trawl_ust_consumer_main(int argc, char **argv);

#endif /* TRAWL_CONSUMERD_H */
