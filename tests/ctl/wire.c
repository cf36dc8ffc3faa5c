/* SPDX-License-Identifier: MIT */
/*
 * wire.c - the ctl protocol's records, without a daemon: what the daemon's
 * encoder writes, the client's check accepts and the typed getters read
 * back field for field; every way a hostile peer could bend a record (a
 * string without its NUL, a size past the payload, bytes after the
 * strings, an unknown kind, an enum out of range, more records announced
 * than sent) is refused by trawl_ctl_reply_check(); requests likewise.
 */
#include "ctl/ctl-int.h"

#include "../lib/check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static unsigned char buf[1 << 16];
static size_t len;
static uint32_t nr;

static void reply_reset(void)
{
	memset(buf, 0, sizeof(buf));
	len = sizeof(struct trawl_ctl_wire_reply);
	nr = 0;
}

/* Appends a record; returns its offset. */
static size_t add(uint32_t kind, const void *body, const char *const *strs)
{
	size_t n = trawl_ctl_rec_size(kind, strs), off = len;

	CHECK(n && n % 8 == 0);
	trawl_ctl_rec_write(buf + len, kind, body, strs);
	len += n;
	nr++;
	return off;
}

static void reply_finish(uint32_t records)
{
	struct trawl_ctl_wire_reply h = {sizeof(h), records, "why"};

	memcpy(buf, &h, sizeof(h));
}

/* A reply of every kind of record, read back through the getters. */
static void test_roundtrip(void)
{
	struct trawl_ctl_wire_session ws = {1, 1, 5000, 1234};
	struct trawl_ctl_wire_channel wc = {2, 1, 1u << 20, 4, 1, 200, 1000, 2, 3, 65536, -1, 17, 5, 1, 0,
					     12288, 8413184};
	struct trawl_ctl_wire_event we = {2, 0, 0, 2, 14, 0};
	struct trawl_ctl_wire_available wa = {1, 1, -1, 0};
	struct trawl_ctl_wire_snapshot wn = {3, 0};
	struct trawl_ctl_wire_rotation wr = {7};
	struct trawl_ctl_wire_rotation_schedule wrs = {TRAWL_CTL_ROTATION_SIZE, 0, 4096};
	struct trawl_ctl_rotation_schedule_info rs = {.struct_size = sizeof(rs)};
	struct trawl_ctl_wire_snapshot_output wo = {2, 0, 1u << 20};
	const char *s_so[] = {"flight", "/tmp/out", ""};
	struct trawl_ctl_snapshot_output_info so = {.struct_size = sizeof(so)};
	const char *s_sess[] = {"sess", "/tmp/out", "/dev/shm/sess"}, *s_chan[] = {"chan"};
	const char *s_ev[] = {"chan", "p:e", "x == 1", "", "a:b*,c"}, *s_av[] = {"openat"};
	const char *s_sn[] = {"sess", "/tmp/out/snapshot-3"};
	const char *s_ro[] = {"sess", "/tmp/out/archives/20261204T185741+0000-20261204T185742+0000-7"};
	struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};
	struct trawl_ctl_channel_info c = {.struct_size = sizeof(c)};
	struct trawl_ctl_event_info e = {.struct_size = sizeof(e)};
	struct trawl_ctl_available_info a = {.struct_size = sizeof(a)};
	struct trawl_ctl_snapshot_info n = {.struct_size = sizeof(n)};
	struct trawl_ctl_rotation_info ro = {.struct_size = sizeof(ro)};
	struct trawl_ctl_list *l;
	unsigned char *copy;

	reply_reset();
	add(TRAWL_CTL_ITEM_SESSION, &ws, s_sess);
	add(TRAWL_CTL_ITEM_CHANNEL, &wc, s_chan);
	add(TRAWL_CTL_ITEM_EVENT, &we, s_ev);
	add(TRAWL_CTL_ITEM_AVAILABLE, &wa, s_av);
	add(TRAWL_CTL_ITEM_SNAPSHOT, &wn, s_sn);
	add(TRAWL_CTL_ITEM_ROTATION, &wr, s_ro);
	add(TRAWL_CTL_ITEM_ROTATION_SCHEDULE, &wrs, NULL);
	add(TRAWL_CTL_ITEM_SNAPSHOT_OUTPUT, &wo, s_so);
	reply_finish(nr);
	CHECK(trawl_ctl_reply_check(buf, len) == 0);
	copy = malloc(len);
	memcpy(copy, buf, len);
	l = ctl_list_from_reply(copy, len);
	CHECK(l && trawl_ctl_list_count(l) == 8);
	CHECK(trawl_ctl_list_session_at(l, 0, &s) == 0);
	CHECK(!strcmp(s.name, "sess") && !strcmp(s.output, "/tmp/out") &&
	      !strcmp(s.shm_path, "/dev/shm/sess") && s.active == 1 &&
	      s.snapshot == 1 && s.live_timer_us == 5000 && s.uid == 1234);
	CHECK(trawl_ctl_list_channel_at(l, 1, &c) == 0);
	CHECK(c.domain == TRAWL_CTL_DOMAIN_UST && !strcmp(c.name, "chan") && c.enabled == 1 &&
	      c.subbuf_size == 1u << 20 && c.num_subbuf == 4 && c.overwrite == 1 &&
	      c.switch_timer_us == 200 && c.read_timer_us == 1000 &&
	      c.buffers == TRAWL_CTL_BUFFERS_PER_PID && c.tracefile_count == 3 &&
	      c.tracefile_size == 65536 && c.blocking_timeout_us == TRAWL_CTL_BLOCKING_INF &&
	      c.discarded_events == 17 && c.lost_packets == 5 &&
	      c.output == TRAWL_CTL_OUTPUT_SPLICE && c.memory_resident == 12288 &&
	      c.memory_size == 8413184);
	CHECK(trawl_ctl_list_event_at(l, 2, &e) == 0);
	CHECK(!strcmp(e.channel, "chan") && !strcmp(e.name, "p:e") && !strcmp(e.filter, "x == 1") &&
	      !strcmp(e.target, "") && !strcmp(e.exclusions, "a:b*,c") && e.enabled == 0 &&
	      e.loglevel_type == TRAWL_CTL_LOGLEVEL_SINGLE &&
	      e.loglevel == 14 && e.kind == TRAWL_CTL_EVENT_TRACEPOINT);
	CHECK(trawl_ctl_list_available_at(l, 3, &a) == 0);
	CHECK(!strcmp(a.name, "openat") && a.kind == TRAWL_CTL_EVENT_SYSCALL && a.loglevel == -1 &&
	      a.domain == TRAWL_CTL_DOMAIN_KERNEL);
	CHECK(trawl_ctl_list_snapshot_at(l, 4, &n) == 0);
	CHECK(n.seq == 3 && !strcmp(n.session, "sess") && !strcmp(n.path, "/tmp/out/snapshot-3"));
	CHECK(trawl_ctl_list_rotation_at(l, 5, &ro) == 0);
	CHECK(ro.chunk_id == 7 && !strcmp(ro.session, "sess") && !strcmp(ro.path, s_ro[1]));
	CHECK(trawl_ctl_list_rotation_at(l, 4, &ro) == -EINVAL);
	CHECK(trawl_ctl_list_rotation_schedule_at(l, 6, &rs) == 0);
	CHECK(rs.kind == TRAWL_CTL_ROTATION_SIZE && rs.value == 4096);
	CHECK(trawl_ctl_list_snapshot_output_at(l, 7, &so) == 0);
	CHECK(so.id == 2 && so.max_size == 1u << 20 && !strcmp(so.name, "flight") &&
	      !strcmp(so.ctrl_url, "/tmp/out") && !strcmp(so.data_url, ""));
	CHECK(trawl_ctl_list_snapshot_output_at(l, 4, &so) == -EINVAL);
	CHECK(trawl_ctl_list_event_at(l, 4, &e) == -EINVAL);
	CHECK(trawl_ctl_list_event_at(l, 2, NULL) == -EINVAL);
	CHECK(trawl_ctl_list_event_at(NULL, 2, &e) == -EINVAL);
	trawl_ctl_list_destroy(l);
}

/* A valid one-record reply at buf; returns the record's offset. */
static size_t one_event(void)
{
	struct trawl_ctl_wire_event we = {2, 1, 0, 1, 3, 0};
	const char *strs[] = {"c", "ev", "", "", ""};
	size_t off;

	reply_reset();
	off = add(TRAWL_CTL_ITEM_EVENT, &we, strs);
	reply_finish(1);
	CHECK(trawl_ctl_reply_check(buf, len) == 0);
	return off;
}

static void put32(size_t off, uint32_t v)
{
	memcpy(buf + off, &v, sizeof(v));
}

static void test_hostile_replies(void)
{
	size_t off, body;
	char longname[TRAWL_CTL_NAME_MAX + 1];
	const char *strs[] = {longname};
	struct trawl_ctl_wire_channel wc = {1, 1, 4096, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 2, 0, 0, 0};

	body = sizeof(struct trawl_ctl_wire_rec);
	off = one_event();
	buf[len - 1] = 'x'; /* padding after the strings must be zero */
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	off = one_event();
	memset(buf + off + body + sizeof(struct trawl_ctl_wire_event), 'A', len - off - body -
	       sizeof(struct trawl_ctl_wire_event)); /* strings without their NUL */
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	off = one_event();
	put32(off, 1u << 30); /* a record past the payload */
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	off = one_event();
	put32(off, 12); /* not a multiple of 8, smaller than its body */
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	off = one_event();
	buf[off + 4] = 99; /* unknown kind */
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	off = one_event();
	buf[off + 6] = 3; /* not the kind's number of strings */
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	off = one_event();
	put32(off + body + 8, 7); /* event kind out of range */
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	off = one_event();
	put32(off + body + 16, 15); /* log level out of range */
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	one_event();
	reply_finish(2); /* more records announced than sent */
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	one_event();
	CHECK(trawl_ctl_reply_check(buf, len + 8) == -EPROTO); /* bytes after the records */
	CHECK(trawl_ctl_reply_check(buf, 8) == -EPROTO);        /* shorter than the head */
	one_event();
	buf[offsetof(struct trawl_ctl_wire_reply, err) + TRAWL_CTL_ERROR_MAX - 1] = 'x';
	memset(buf + offsetof(struct trawl_ctl_wire_reply, err), 'x', TRAWL_CTL_ERROR_MAX);
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO); /* error line without its NUL */
	/* A string over its limit is refused by the encoder too. */
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CHECK(trawl_ctl_rec_size(TRAWL_CTL_ITEM_CHANNEL, strs) == 0);
	CHECK(trawl_ctl_rec_size(99, strs) == 0);
	/* A channel whose scheme is DEFAULT (never resolved) is refused. */
	reply_reset();
	longname[0] = '\0';
	wc.buffers = TRAWL_CTL_BUFFERS_DEFAULT;
	add(TRAWL_CTL_ITEM_CHANNEL, &wc, strs);
	reply_finish(1);
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	/* Nor more memory written than its buffers have. */
	reply_reset();
	wc.buffers = TRAWL_CTL_BUFFERS_PER_UID;
	wc.memory_resident = 8192;
	wc.memory_size = 4096;
	add(TRAWL_CTL_ITEM_CHANNEL, &wc, strs);
	reply_finish(1);
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
}

static void test_requests(void)
{
	struct trawl_ctl_wire_req r;
	struct trawl_ctl_wire_hdr h = {TRAWL_CTL_MAGIC, TRAWL_CTL_VERSION, TRAWL_CTL_CMD_CREATE,
				       sizeof(r), 0};

	memset(&r, 0, sizeof(r));
	r.struct_size = sizeof(r);
	strcpy(r.name, "ok");
	strcpy(r.output, "/tmp/x");
	CHECK(trawl_ctl_hdr_check(&h, 0) == 0);
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_CREATE, &r, sizeof(r)) == 0);
	h.version++;
	CHECK(trawl_ctl_hdr_check(&h, 0) == -EPROTONOSUPPORT);
	h.version--;
	h.magic++;
	CHECK(trawl_ctl_hdr_check(&h, 0) == -EPROTO);
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_CREATE, &r, sizeof(r) - 1) == -EPROTO);
	strcpy(r.output, "relative");
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_CREATE, &r, sizeof(r)) == -EINVAL);
	strcpy(r.output, "/tmp/x");
	strcpy(r.name, "../etc");
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_CREATE, &r, sizeof(r)) == -EINVAL);
	strcpy(r.name, "ok");
	r.flags = 0x80;
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_CREATE, &r, sizeof(r)) == -EINVAL);
	r.flags = 0;
	r.buffers = TRAWL_CTL_BUFFERS_GLOBAL + 1;
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_ENABLE_CHANNEL, &r, sizeof(r)) == -EINVAL);
	r.buffers = 0;
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_ENABLE_CHANNEL, &r, sizeof(r)) == -EINVAL); /* no domain */
	memset(r.filter, 'f', sizeof(r.filter));
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_CREATE, &r, sizeof(r)) == -EPROTO);
}

/* TRACK/UNTRACK requests and TRACKER records: what the checks refuse. */
static void test_trackers(void)
{
	struct trawl_ctl_wire_tracker t = {TRAWL_CTL_DOMAIN_UST, TRAWL_CTL_PROCESS_ATTR_VPID, 0, 1};
	struct trawl_ctl_wire_tracker_value v = {TRAWL_CTL_DOMAIN_UST, 1, 1234, 0};
	struct trawl_ctl_wire_req r;
	size_t off;

	memset(&r, 0, sizeof(r));
	r.struct_size = sizeof(r);
	r.domain = TRAWL_CTL_DOMAIN_UST;
	r.process_attr = TRAWL_CTL_PROCESS_ATTR_VGID;
	r.value = 5;
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_TRACK, &r, sizeof(r)) == 0);
	r.value = UINT32_MAX; /* "no ID" is never a value */
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_UNTRACK, &r, sizeof(r)) == -EINVAL);
	r.flags = TRAWL_CTL_F_ALL; /* ... but is ignored with --all */
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_UNTRACK, &r, sizeof(r)) == 0);
	r.process_attr = TRAWL_CTL_PROCESS_ATTR_VGID + 1;
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_TRACK, &r, sizeof(r)) == -EINVAL);
	r.process_attr = 0;
	r.domain = TRAWL_CTL_DOMAIN_NONE;
	CHECK(trawl_ctl_req_check(TRAWL_CTL_CMD_TRACK, &r, sizeof(r)) == -EINVAL);

	reply_reset();
	add(TRAWL_CTL_ITEM_TRACKER, &t, NULL);
	add(TRAWL_CTL_ITEM_TRACKER_VALUE, &v, NULL);
	reply_finish(2);
	CHECK(trawl_ctl_reply_check(buf, len) == 0);
	t.include_all = 1; /* all, and values besides */
	reply_reset();
	off = add(TRAWL_CTL_ITEM_TRACKER, &t, NULL);
	reply_finish(1);
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	put32(off + sizeof(struct trawl_ctl_wire_rec) + 8, 0);
	CHECK(trawl_ctl_reply_check(buf, len) == 0);
	put32(off + sizeof(struct trawl_ctl_wire_rec) + 4, 6); /* no such attribute */
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	put32(off + sizeof(struct trawl_ctl_wire_rec) + 4, 0);
	put32(off + sizeof(struct trawl_ctl_wire_rec) + 8, 2); /* include_all is 0 or 1 */
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
	put32(off + sizeof(struct trawl_ctl_wire_rec) + 8, 0);
	put32(off + sizeof(struct trawl_ctl_wire_rec) + 12, TRAWL_CTL_TRACKER_MAX_VALUES + 1);
	CHECK(trawl_ctl_reply_check(buf, len) == -EPROTO);
}

int main(void)
{
	test_roundtrip();
	test_hostile_replies();
	test_requests();
	test_trackers();
	return CHECK_EXIT();
}
