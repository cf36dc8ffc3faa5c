/* SPDX-License-Identifier: MIT */
/* show.h - printing a session's details. */
#ifndef TRAWL_CLI_SHOW_H
#define TRAWL_CLI_SHOW_H

#include "trawl/ctl.h"

/*
 * Prints a trawl_ctl_list_session() result (with --mi, its <session> inside
 * the <sessions> the caller opened); returns 1 if a consumer died.
 */
int cli_show_session(const struct trawl_ctl_list *l);
/* `list SESSION -d`: the session, then only the names of its domains. */
int cli_show_domains(const struct trawl_ctl_list *l);

#endif
