/* SPDX-License-Identifier: MIT */
/* relay-url.c - LTTng's -C/-D pair of URLs as one trawl-relayd URL (cli.h). */
#include "common/common.h"
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * -C tcp://HOST:PORT[/PATH] -D tcp://HOST:PORT (LTTng's spelling) as one
 * net://HOST:CTRL:DATA[/PATH] URL. Both are needed, on one host; the
 * control URL's PATH is the session's base path on relayd, as LTTng's.
 */
int cli_relay_urls_join(const char *ctrl, const char *data, char *buf, size_t len)
{
	const char *hp[2] = {ctrl, data}, *names[2] = {"control", "data"}, *path = "";
	char host[2][300];
	unsigned long port[2];
	int i, v6 = 0;

	if (!ctrl || !data)
		return cli_error(-EINVAL, "-C (control URL) and -D (data URL) go together");
	for (i = 0; i < 2; i++) {
		const char *p = hp[i], *colon, *end_hp;
		char portbuf[16], *end;

		if (!strncmp(p, "tcp://", 6)) {
			p += 6;
		} else if (!strncmp(p, "tcp6://", 7)) {
			p += 7;
			v6 = 1;
		} else {
			return cli_error(-EINVAL, "%s URL '%s': expected tcp://HOST:PORT", names[i],
					 hp[i]);
		}
		end_hp = p + strcspn(p, "/");
		if (i == 0 && *end_hp)
			path = end_hp;
		colon = memrchr(p, ':', (size_t)(end_hp - p));
		if (!colon || colon == p || (size_t)(colon - p) >= sizeof(host[i]) ||
		    (size_t)(end_hp - colon) >= sizeof(portbuf))
			return cli_error(-EINVAL, "%s URL '%s': expected tcp://HOST:PORT", names[i],
					 hp[i]);
		snprintf(host[i], sizeof(host[i]), "%.*s", (int)(colon - p), p);
		snprintf(portbuf, sizeof(portbuf), "%.*s", (int)(end_hp - colon - 1), colon + 1);
		errno = 0;
		port[i] = strtoul(portbuf, &end, 10);
		if (errno || *end || !portbuf[0] || port[i] < 1 || port[i] > 65535)
			return cli_error(-EINVAL, "%s URL '%s': port is not 1-65535", names[i],
					 hp[i]);
	}
	if (strcmp(host[0], host[1]))
		return cli_error(-EINVAL, "control and data URLs name different hosts (%s, %s): "
					  "one trawl-relayd serves both", host[0], host[1]);
	if (trawl_path_fmt(buf, len, "net%s://%s:%lu:%lu%s", v6 ? "6" : "", host[0], port[0],
			   port[1], path))
		return cli_error(-ENAMETOOLONG, "relay URL too long (at most %zu bytes)", len - 1);
	return 0;
}
