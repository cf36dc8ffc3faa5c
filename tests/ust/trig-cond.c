/* SPDX-License-Identifier: MIT */
/*
 * Registers a trigger on a condition LTTng 2.13's add-trigger has no option
 * for (its C API's only), through <trawl/ctl.h> (triggers.py conditions):
 *
 *   ust-trig-cond NAME high|low|khigh|klow SESSION CHANNEL THRESHOLD ACTION...
 *   ust-trig-cond NAME size SESSION BYTES ACTION...
 *
 * high, low: the user-space channel's buffer usage (khigh, klow: the kernel
 * channel's); THRESHOLD a ratio with a '.' (0.5), else bytes. size: the
 * session's consumed size.
 * ACTION: notify, or start|stop|rotate|snapshot:SESSION, either followed by
 * /every:N or /once-after:N for its rate policy. Exits 0, or 1 with the
 * daemon's line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trawl/ctl.h>

static int add_action(struct trawl_ctl_trigger *t, char *spec)
{
	static const struct {
		const char *name;
		enum trawl_ctl_action_kind kind;
	} kinds[] = {
		{"notify", TRAWL_CTL_ACTION_NOTIFY},
		{"start", TRAWL_CTL_ACTION_START_SESSION},
		{"stop", TRAWL_CTL_ACTION_STOP_SESSION},
		{"rotate", TRAWL_CTL_ACTION_ROTATE_SESSION},
		{"snapshot", TRAWL_CTL_ACTION_SNAPSHOT_SESSION},
	};
	char *policy = strchr(spec, '/'), *session;
	size_t k;
	int i;

	if (policy)
		*policy++ = '\0';
	session = strchr(spec, ':');
	if (session)
		*session++ = '\0';
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && strcmp(kinds[k].name, spec); k++)
		;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return -EINVAL;
	i = trawl_ctl_trigger_add_action(t, kinds[k].kind, session);
	if (i < 0 || !policy)
		return i < 0 ? i : 0;
	if (!strncmp(policy, "every:", 6))
		return trawl_ctl_trigger_action_set_rate_policy(t, i, TRAWL_CTL_RATE_EVERY_N,
								 strtoull(policy + 6, NULL, 10));
	if (!strncmp(policy, "once-after:", 11))
		return trawl_ctl_trigger_action_set_rate_policy(t, i, TRAWL_CTL_RATE_ONCE_AFTER_N,
								 strtoull(policy + 11, NULL, 10));
	return -EINVAL;
}

int main(int argc, char **argv)
{
	struct trawl_ctl_trigger *t;
	struct trawl_ctl *ctl;
	int ret, first, i;

	if (argc < 6) {
		fprintf(stderr, "usage: ust-trig-cond NAME high|low SESSION CHANNEL THRESHOLD "
				"ACTION... | NAME size SESSION BYTES ACTION...\n");
		return 2;
	}
	t = trawl_ctl_trigger_create();
	if (!t)
		return 1;
	ret = trawl_ctl_trigger_set_name(t, argv[1]);
	if (!ret && !strcmp(argv[2], "size")) {
		ret = trawl_ctl_trigger_set_session_consumed_size(t, argv[3],
								   strtoull(argv[4], NULL, 10));
		first = 5;
	} else if (!ret && argc > 6 &&
		   (!strcmp(argv[2] + (argv[2][0] == 'k'), "high") ||
		    !strcmp(argv[2] + (argv[2][0] == 'k'), "low"))) {
		const char *v = argv[5], *cond = argv[2] + (argv[2][0] == 'k');
		int ratio = strchr(v, '.') != NULL;

		ret = trawl_ctl_trigger_set_buffer_usage(
			t,
			cond[0] == 'h' ? TRAWL_CTL_CONDITION_BUFFER_USAGE_HIGH
				       : TRAWL_CTL_CONDITION_BUFFER_USAGE_LOW,
			argv[3], argv[4],
			argv[2][0] == 'k' ? TRAWL_CTL_DOMAIN_KERNEL : TRAWL_CTL_DOMAIN_UST,
			ratio ? (uint32_t)(strtod(v, NULL) * 1000000.0 + 0.5) : UINT32_MAX,
			ratio ? 0 : strtoull(v, NULL, 10));
		first = 6;
	} else {
		ret = ret ? ret : -EINVAL;
		first = argc;
	}
	for (i = first; i < argc && !ret; i++)
		ret = add_action(t, argv[i]);
	if (ret) {
		fprintf(stderr, "bad trigger: %s\n", strerror(-ret));
		trawl_ctl_trigger_destroy(t);
		return 1;
	}
	ret = trawl_ctl_connect(&ctl, TRAWL_CTL_CONNECT_NO_SPAWN);
	if (ret) {
		fprintf(stderr, "connect: %s\n", strerror(-ret));
		trawl_ctl_trigger_destroy(t);
		return 1;
	}
	ret = trawl_ctl_trigger_register(ctl, t, NULL);
	if (ret)
		fprintf(stderr, "register %s: %s\n", argv[1], trawl_ctl_last_error(ctl));
	trawl_ctl_disconnect(ctl);
	trawl_ctl_trigger_destroy(t);
	return ret ? 1 : 0;
}
