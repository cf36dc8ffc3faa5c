/* SPDX-License-Identifier: MIT */
/*
 * Prints the caller's triggers as the daemon counts them, one line each
 * (triggers.py reads it):
 *
 *   NAME occurrences=N            (with -d: NAME occurrences=N discarded=D)
 *     ACTION-KIND runs=R failures=F
 */
#include <stdio.h>
#include <string.h>

#include <trawl/ctl.h>

int main(int argc, char **argv)
{
	int discarded = argc > 1 && !strcmp(argv[1], "-d");
	struct trawl_ctl *ctl;
	struct trawl_ctl_list *l;
	size_t i, n;
	int ret = trawl_ctl_connect(&ctl, TRAWL_CTL_CONNECT_NO_SPAWN);

	if (ret) {
		fprintf(stderr, "connect: %d\n", ret);
		return 1;
	}
	ret = trawl_ctl_list_triggers(ctl, &l);
	if (ret) {
		fprintf(stderr, "list-triggers: %d: %s\n", ret, trawl_ctl_last_error(ctl));
		trawl_ctl_disconnect(ctl);
		return 1;
	}
	n = trawl_ctl_list_count(l);
	for (i = 0; i < n; i++) {
		if (trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_TRIGGER) {
			struct trawl_ctl_trigger_info t = { .struct_size = sizeof(t) };

			if (trawl_ctl_list_trigger_at(l, i, &t))
				continue;
			printf("%s occurrences=%llu", t.name, (unsigned long long)t.occurrences);
			if (discarded)
				printf(" discarded=%llu", (unsigned long long)t.discarded);
			printf("\n");
		} else if (trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_TRIGGER_ACTION) {
			struct trawl_ctl_trigger_action_info a = { .struct_size = sizeof(a) };

			if (!trawl_ctl_list_trigger_action_at(l, i, &a))
				printf("  %d runs=%llu failures=%llu\n", (int)a.kind,
				       (unsigned long long)a.runs, (unsigned long long)a.failures);
		}
	}
	trawl_ctl_list_destroy(l);
	trawl_ctl_disconnect(ctl);
	return 0;
}
