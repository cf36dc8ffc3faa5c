/* SPDX-License-Identifier: MIT */
/*
 * api.c - libtrawl-ctl used directly, as a program embedding it would:
 * connect (starting the daemon), create a session with a channel, an event
 * rule and a loglevel, list it back and check every attribute, exercise
 * the error codes, and destroy it. Runs against a private daemon (the test
 * sets TRAWL_RUNTIME_DIR / TRAWL_ROOT_RUNTIME_DIR / HOME).
 */
#include <trawl/ctl.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;

#define CHECK(cond)                                                                               \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "FAIL line %d: %s\n", __LINE__, #cond);                    \
			fails++;                                                                  \
		}                                                                                 \
	} while (0)

int main(int argc, char **argv)
{
	struct trawl_ctl_channel_attr *attr;
	struct trawl_ctl_event *ev;
	struct trawl_ctl_list *l;
	struct trawl_ctl *ctl;
	char name[256], path[1024];
	size_t i, n;
	int ret, seen_chan = 0, seen_ev = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: api OUTPUT-DIR\n");
		return 2;
	}
	ret = trawl_ctl_connect(&ctl, 0);
	if (ret) {
		fprintf(stderr, "connect: %s\n", strerror(-ret));
		return 1;
	}
	CHECK(trawl_ctl_session_create(ctl, "api", argv[1], 0, name, sizeof(name), path,
				       sizeof(path)) == 0);
	CHECK(!strcmp(name, "api") && !strcmp(path, argv[1]));
	CHECK(trawl_ctl_session_create(ctl, "api", argv[1], 0, NULL, 0, NULL, 0) == -EEXIST);
	CHECK(trawl_ctl_last_error(ctl)[0] != '\0');
	CHECK(trawl_ctl_session_create(ctl, "bad/name", argv[1], 0, NULL, 0, NULL, 0) == -EINVAL);
	CHECK(trawl_ctl_session_start(ctl, "nosuch") == -ENOENT);

	attr = trawl_ctl_channel_attr_create("chan");
	CHECK(attr != NULL);
	CHECK(trawl_ctl_channel_attr_set_subbuf_size(attr, 3000) == -EINVAL);
	CHECK(trawl_ctl_channel_attr_set_subbuf_size(attr, 65536) == 0);
	CHECK(trawl_ctl_channel_attr_set_num_subbuf(attr, 8) == 0);
	CHECK(trawl_ctl_channel_attr_set_overwrite(attr, 1) == 0);
	CHECK(trawl_ctl_channel_attr_set_switch_timer(attr, 100000) == 0);
	ret = trawl_ctl_channel_enable(ctl, "api", TRAWL_CTL_DOMAIN_UST, attr);
	trawl_ctl_channel_attr_destroy(attr);
	if (ret == -EOPNOTSUPP) {
		printf("SKIP: user-space domain not built\n");
		trawl_ctl_session_destroy(ctl, "api");
		trawl_ctl_disconnect(ctl);
		return 77;
	}
	CHECK(ret == 0);
	ev = trawl_ctl_event_create(TRAWL_CTL_EVENT_TRACEPOINT, "prov:*");
	CHECK(ev != NULL);
	CHECK(trawl_ctl_event_set_loglevel(ev, TRAWL_CTL_LOGLEVEL_RANGE, 99) == -EINVAL);
	CHECK(trawl_ctl_event_set_loglevel(ev, TRAWL_CTL_LOGLEVEL_RANGE,
					   trawl_ctl_loglevel_parse("TRACE_WARNING")) == 0);
	CHECK(trawl_ctl_event_enable(ctl, "api", TRAWL_CTL_DOMAIN_UST, "chan", ev) == 0);
	CHECK(trawl_ctl_event_enable(ctl, "api", TRAWL_CTL_DOMAIN_UST, "chan", ev) == -EEXIST);
	trawl_ctl_event_destroy(ev);

	CHECK(trawl_ctl_list_session(ctl, "api", &l) == 0);
	n = trawl_ctl_list_count(l);
	for (i = 0; i < n; i++) {
		switch (trawl_ctl_list_kind(l, i)) {
		case TRAWL_CTL_ITEM_CHANNEL:
			seen_chan = 1;
			CHECK(!strcmp(trawl_ctl_list_name(l, i), "chan"));
			CHECK(trawl_ctl_list_value(l, i, 0) == 65536);
			CHECK(trawl_ctl_list_value(l, i, 1) == 8);
			CHECK(trawl_ctl_list_value(l, i, 2) == 1);
			CHECK(trawl_ctl_list_value(l, i, 3) == 100000);
			break;
		case TRAWL_CTL_ITEM_EVENT:
			seen_ev = 1;
			CHECK(!strcmp(trawl_ctl_list_name(l, i), "prov:*"));
			CHECK(trawl_ctl_list_loglevel(l, i) == 4);
			CHECK(trawl_ctl_list_value(l, i, 0) == TRAWL_CTL_LOGLEVEL_RANGE);
			CHECK(trawl_ctl_list_enabled(l, i));
			break;
		default:
			break;
		}
	}
	CHECK(seen_chan && seen_ev);
	trawl_ctl_list_destroy(l);

	CHECK(trawl_ctl_session_start(ctl, "api") == 0);
	CHECK(trawl_ctl_session_start(ctl, "api") == -EBUSY);
	CHECK(trawl_ctl_session_stop(ctl, "api") == 0);
	CHECK(trawl_ctl_session_destroy(ctl, "api") == 0);
	CHECK(trawl_ctl_session_destroy(ctl, "api") == -ENOENT);
	CHECK(!strcmp(trawl_ctl_loglevel_name(14), "TRACE_DEBUG"));
	CHECK(trawl_ctl_version()[0] != '\0');
	trawl_ctl_disconnect(ctl);
	if (fails)
		return 1;
	printf("ok\n");
	return 0;
}
