/* SPDX-License-Identifier: MIT */
/*
 * proto.c - the ctl protocol's messages, shared by client and server: the
 * record encoder (the daemon writes replies with it) and the checks that
 * everything arriving on the socket goes through before any field is used.
 * The fuzz target fuzz/ctl/ feeds the checks random bytes.
 */
#include "ctl/proto.h"

#include "trawl/ctl.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define REC_ALIGN 8u

static const struct trawl_ctl_rec_layout layouts[] = {
	[TRAWL_CTL_ITEM_SESSION] = {sizeof(struct trawl_ctl_wire_session), 3,
				    {TRAWL_CTL_NAME_MAX, TRAWL_CTL_PATH_MAX, TRAWL_CTL_PATH_MAX}},
	[TRAWL_CTL_ITEM_DOMAIN] = {sizeof(struct trawl_ctl_wire_domain), 1, {TRAWL_CTL_ERROR_MAX}},
	[TRAWL_CTL_ITEM_CHANNEL] = {sizeof(struct trawl_ctl_wire_channel), 1, {TRAWL_CTL_NAME_MAX}},
	[TRAWL_CTL_ITEM_EVENT] = {sizeof(struct trawl_ctl_wire_event), 5,
				  {TRAWL_CTL_NAME_MAX, TRAWL_CTL_NAME_MAX, TRAWL_CTL_FILTER_MAX,
				   TRAWL_CTL_TARGET_MAX, TRAWL_CTL_EXCLUSIONS_MAX}},
	[TRAWL_CTL_ITEM_CONTEXT] = {sizeof(struct trawl_ctl_wire_context), 2,
				    {TRAWL_CTL_NAME_MAX, TRAWL_CTL_NAME_MAX}},
	[TRAWL_CTL_ITEM_AVAILABLE] = {sizeof(struct trawl_ctl_wire_available), 1,
				      {TRAWL_CTL_NAME_MAX}},
	/* a field's type is free text from the domain (a kernel format's C type) */
	[TRAWL_CTL_ITEM_FIELD] = {sizeof(struct trawl_ctl_wire_field), 3,
				  {TRAWL_CTL_NAME_MAX, TRAWL_CTL_NAME_MAX, TRAWL_CTL_PATH_MAX}},
	[TRAWL_CTL_ITEM_SNAPSHOT] = {sizeof(struct trawl_ctl_wire_snapshot), 2,
				     {TRAWL_CTL_NAME_MAX, TRAWL_CTL_PATH_MAX}},
	[TRAWL_CTL_ITEM_TRACKER] = {sizeof(struct trawl_ctl_wire_tracker), 0, {0}},
	[TRAWL_CTL_ITEM_TRACKER_VALUE] = {sizeof(struct trawl_ctl_wire_tracker_value), 0, {0}},
	[TRAWL_CTL_ITEM_ROTATION] = {sizeof(struct trawl_ctl_wire_rotation), 2,
				     {TRAWL_CTL_NAME_MAX, TRAWL_CTL_PATH_MAX}},
	[TRAWL_CTL_ITEM_ROTATION_SCHEDULE] = {sizeof(struct trawl_ctl_wire_rotation_schedule), 0,
					      {0}},
	[TRAWL_CTL_ITEM_SNAPSHOT_OUTPUT] = {sizeof(struct trawl_ctl_wire_snapshot_output), 3,
					    {TRAWL_CTL_NAME_MAX, TRAWL_CTL_PATH_MAX,
					     TRAWL_CTL_PATH_MAX}},
	[TRAWL_CTL_ITEM_TRIGGER] = {sizeof(struct trawl_ctl_wire_trigger), 8,
				    {TRAWL_CTL_NAME_MAX, TRAWL_CTL_NAME_MAX, TRAWL_CTL_FILTER_MAX,
				     TRAWL_CTL_EXCLUSIONS_MAX, TRAWL_CTL_CAPTURES_MAX,
				     TRAWL_CTL_NAME_MAX, TRAWL_CTL_NAME_MAX, TRAWL_CTL_TARGET_MAX}},
	[TRAWL_CTL_ITEM_TRIGGER_ACTION] = {sizeof(struct trawl_ctl_wire_trigger_action), 5,
					   {TRAWL_CTL_NAME_MAX, TRAWL_CTL_NAME_MAX,
					    TRAWL_CTL_OUTPUT_MAX, TRAWL_CTL_OUTPUT_MAX,
					    TRAWL_CTL_OUTPUT_MAX}},
	[TRAWL_CTL_ITEM_NOTIFY_CURSOR] = {sizeof(struct trawl_ctl_wire_notify_cursor), 0, {0}},
	[TRAWL_CTL_ITEM_NOTIFICATION] = {sizeof(struct trawl_ctl_wire_notification), 2,
					 {TRAWL_CTL_NAME_MAX, TRAWL_CTL_NOTIFY_CAPTURES_MAX}},
};

const struct trawl_ctl_rec_layout *trawl_ctl_rec_layout(uint32_t kind)
{
	if (kind >= sizeof(layouts) / sizeof(layouts[0]) || !layouts[kind].body_size)
		return NULL;
	return &layouts[kind];
}

size_t trawl_ctl_rec_size(uint32_t kind, const char *const *strs)
{
	const struct trawl_ctl_rec_layout *l = trawl_ctl_rec_layout(kind);
	size_t size, n, i;

	if (!l)
		return 0;
	size = sizeof(struct trawl_ctl_wire_rec) + l->body_size;
	for (i = 0; i < l->nr_strings; i++) {
		n = strs[i] ? strlen(strs[i]) : 0;
		if (n >= l->str_max[i])
			return 0;
		size += n + 1;
	}
	return (size + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1);
}

void trawl_ctl_rec_write(void *dst, uint32_t kind, const void *body, const char *const *strs)
{
	const struct trawl_ctl_rec_layout *l = trawl_ctl_rec_layout(kind);
	struct trawl_ctl_wire_rec rec = {
		.size = (uint32_t)trawl_ctl_rec_size(kind, strs),
		.kind = (uint16_t)kind,
		.nr_strings = l->nr_strings,
	};
	char *p = dst;
	size_t i, n;

	memset(dst, 0, rec.size);
	memcpy(p, &rec, sizeof(rec));
	p += sizeof(rec);
	memcpy(p, body, l->body_size);
	p += l->body_size;
	for (i = 0; i < l->nr_strings; i++) {
		n = strs[i] ? strlen(strs[i]) : 0;
		if (n)
			memcpy(p, strs[i], n);
		p += n + 1; /* the NUL, from the memset */
	}
}

const char *trawl_ctl_wire_process_attr_name(uint32_t attr)
{
	static const char *const names[] = {
		"process ID", "virtual process ID", "user ID", "virtual user ID", "group ID",
		"virtual group ID",
	};

	return attr < sizeof(names) / sizeof(names[0]) ? names[attr] : NULL;
}

int trawl_ctl_str_ok(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

int trawl_ctl_name_valid(const char *name)
{
	size_t i, n = strnlen(name, TRAWL_CTL_NAME_MAX);

	if (n == 0 || n >= TRAWL_CTL_NAME_MAX || name[0] == '.' || name[0] == '-')
		return 0;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-' || c == ':'))
			return 0;
	}
	return 1;
}

int trawl_ctl_output_valid(const char *output)
{
	return output[0] == '/' || !strncmp(output, "net://", 6) || !strncmp(output, "net6://", 7);
}

int trawl_ctl_trigger_name_valid(const char *name)
{
	size_t i, n = strnlen(name, TRAWL_CTL_NAME_MAX);

	if (n == 0 || n >= TRAWL_CTL_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (name[i] < 0x20 || name[i] > 0x7e)
			return 0;
	return 1;
}

int trawl_ctl_hdr_check(const struct trawl_ctl_wire_hdr *hdr, int is_reply)
{
	if (hdr->magic != TRAWL_CTL_MAGIC)
		return -EPROTO;
	if (hdr->version != TRAWL_CTL_VERSION)
		return -EPROTONOSUPPORT;
	if (hdr->cmd == 0 || hdr->cmd >= TRAWL_CTL_CMD_MAX_)
		return -EPROTO;
	if (is_reply) {
		if (hdr->size < sizeof(struct trawl_ctl_wire_reply) || hdr->size > TRAWL_CTL_MAX_PAYLOAD)
			return -EPROTO;
		if (hdr->status > 0 || hdr->status < -4095)
			return -EPROTO;
	} else {
		if (hdr->size != sizeof(struct trawl_ctl_wire_req) || hdr->status != 0)
			return -EPROTO;
	}
	return 0;
}

static int req_strings_ok(const struct trawl_ctl_wire_req *r)
{
	return trawl_ctl_str_ok(r->session, sizeof(r->session)) &&
	       trawl_ctl_str_ok(r->channel, sizeof(r->channel)) &&
	       trawl_ctl_str_ok(r->name, sizeof(r->name)) &&
	       trawl_ctl_str_ok(r->target, sizeof(r->target)) &&
	       trawl_ctl_str_ok(r->filter, sizeof(r->filter)) &&
	       trawl_ctl_str_ok(r->output, sizeof(r->output)) &&
	       trawl_ctl_str_ok(r->exclusions, sizeof(r->exclusions)) &&
	       trawl_ctl_str_ok(r->trigger.name, sizeof(r->trigger.name)) &&
	       trawl_ctl_str_ok(r->trigger.captures, sizeof(r->trigger.captures));
}

static int action_ok(const struct trawl_ctl_wire_action *a)
{
	if (!trawl_ctl_str_ok(a->session, sizeof(a->session)) ||
	    !trawl_ctl_str_ok(a->name, sizeof(a->name)) ||
	    !trawl_ctl_str_ok(a->output, sizeof(a->output)) ||
	    !trawl_ctl_str_ok(a->ctrl_url, sizeof(a->ctrl_url)) ||
	    !trawl_ctl_str_ok(a->data_url, sizeof(a->data_url)))
		return 0;
	/* given URLs: both, with a network output, or neither */
	if (!a->ctrl_url[0] != !a->data_url[0] || (a->ctrl_url[0] && a->output[0] == '/') ||
	    (a->ctrl_url[0] && !a->output[0]))
		return 0;
	if (a->kind > TRAWL_CTL_WIRE_ACTION_LAST || a->rate_policy > TRAWL_CTL_WIRE_RATE_LAST ||
	    !a->rate_value)
		return 0;
	if ((a->kind == TRAWL_CTL_ACTION_NOTIFY) != !a->session[0])
		return 0;
	if (a->session[0] && !trawl_ctl_name_valid(a->session))
		return 0;
	if (a->kind != TRAWL_CTL_ACTION_SNAPSHOT_SESSION)
		return !a->name[0] && !a->output[0] && a->max_size == TRAWL_CTL_SIZE_UNSET;
	/* an output's name or size only with its destination (LTTng's rule) */
	if (!a->output[0])
		return !a->name[0] && a->max_size == TRAWL_CTL_SIZE_UNSET;
	return trawl_ctl_output_valid(a->output) && (!a->name[0] || trawl_ctl_name_valid(a->name));
}

/* ADD_TRIGGER: the condition whole, every action. */
static int trigger_ok(const struct trawl_ctl_wire_req *r)
{
	const struct trawl_ctl_wire_trigger_req *t = &r->trigger;
	uint32_t i;

	if (t->name[0] && !trawl_ctl_trigger_name_valid(t->name))
		return 0;
	if (!t->nr_actions || t->nr_actions > TRAWL_CTL_TRIGGER_MAX_ACTIONS || t->reserved)
		return 0;
	for (i = 0; i < t->nr_actions; i++)
		if (!action_ok(&t->actions[i]))
			return 0;
	switch (t->condition) {
	case TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES:
		if (r->event_kind == TRAWL_CTL_EVENT_PROBE ||
		    r->event_kind == TRAWL_CTL_EVENT_USERSPACE_PROBE)
			/* a probe: its location; no filter, as in LTTng */
			return r->domain == TRAWL_CTL_DOMAIN_KERNEL && r->name[0] && r->target[0] &&
			       !r->filter[0] && !r->exclusions[0];
		return r->domain != TRAWL_CTL_DOMAIN_NONE && r->name[0] && !r->target[0] &&
		       (r->event_kind == TRAWL_CTL_EVENT_TRACEPOINT ||
			(r->event_kind == TRAWL_CTL_EVENT_SYSCALL &&
			 r->domain == TRAWL_CTL_DOMAIN_KERNEL));
	case TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE:
		return r->session[0] && t->threshold && !t->captures[0];
	case TRAWL_CTL_CONDITION_BUFFER_USAGE_HIGH:
	case TRAWL_CTL_CONDITION_BUFFER_USAGE_LOW:
		return r->session[0] && r->channel[0] && r->domain != TRAWL_CTL_DOMAIN_NONE &&
		       !t->captures[0] &&
		       (t->ratio_ppm == UINT32_MAX || t->ratio_ppm <= TRAWL_CTL_WIRE_RATIO_ONE);
	default:
		return 0;
	}
}

static int req_values_ok(const struct trawl_ctl_wire_req *r)
{
	return r->domain <= TRAWL_CTL_WIRE_DOMAIN_LAST &&
	       r->event_kind <= TRAWL_CTL_WIRE_EVENT_KIND_LAST &&
	       r->loglevel_type <= TRAWL_CTL_WIRE_LOGLEVEL_TYPE_LAST &&
	       r->overwrite <= TRAWL_CTL_MODE_OVERWRITE && r->buffers <= TRAWL_CTL_WIRE_BUFFERS_LAST &&
	       !(r->flags & ~TRAWL_CTL_F_KNOWN_) &&
	       (TRAWL_CTL_WIRE_IS_AGENT(r->domain) ||
		(r->loglevel >= 0 && r->loglevel <= TRAWL_CTL_WIRE_LOGLEVEL_MAX)) &&
	       r->process_attr <= TRAWL_CTL_WIRE_PROCESS_ATTR_LAST &&
	       r->rotation_kind <= TRAWL_CTL_WIRE_ROTATION_LAST &&
	       r->blocking_timeout_us >= -1 && r->blocking_timeout_us <= TRAWL_CTL_BLOCKING_MAX_US &&
	       r->chan_output <= TRAWL_CTL_WIRE_OUTPUT_LAST;
}

int trawl_ctl_req_check(uint16_t cmd, const void *payload, size_t len)
{
	struct trawl_ctl_wire_req r;

	if (len != sizeof(r))
		return -EPROTO;
	memcpy(&r, payload, sizeof(r));
	if (r.struct_size != sizeof(r) || !req_strings_ok(&r))
		return -EPROTO;
	if (!req_values_ok(&r))
		return -EINVAL;
	if (r.session[0] && !trawl_ctl_name_valid(r.session))
		return -EINVAL;
	if (r.channel[0] && !trawl_ctl_name_valid(r.channel))
		return -EINVAL;
	/* the daemon checks the rest of a URL */
	if (r.output[0] && !trawl_ctl_output_valid(r.output))
		return -EINVAL;
	switch (cmd) {
	case TRAWL_CTL_CMD_CREATE:
		if (r.name[0] && !trawl_ctl_name_valid(r.name))
			return -EINVAL;
		break;
	case TRAWL_CTL_CMD_ENABLE_CHANNEL:
	case TRAWL_CTL_CMD_DISABLE_CHANNEL:
	case TRAWL_CTL_CMD_ENABLE_EVENT:
	case TRAWL_CTL_CMD_DISABLE_EVENT:
	case TRAWL_CTL_CMD_ADD_CONTEXT:
	case TRAWL_CTL_CMD_LIST_AVAILABLE:
		if (r.domain == TRAWL_CTL_DOMAIN_NONE)
			return -EINVAL;
		break;
	case TRAWL_CTL_CMD_SNAPSHOT_ADD_OUTPUT:
		if (!r.output[0] || (r.name[0] && !trawl_ctl_name_valid(r.name)) ||
		    r.max_size == TRAWL_CTL_SIZE_UNSET)
			return -EINVAL;
		break;
	case TRAWL_CTL_CMD_SNAPSHOT_RECORD:
		if (r.name[0] && !trawl_ctl_name_valid(r.name))
			return -EINVAL;
		break;
	case TRAWL_CTL_CMD_SET_SHM_PATH:
		if (r.output[0] != '/')
			return -EINVAL;
		break;
	case TRAWL_CTL_CMD_SNAPSHOT_DEL_OUTPUT:
		/* by id, or by a name (only the name's form is checked: LTTng
		 * names its outputs snapshot-N, and so do we) */
		if (!r.value == !r.name[0] || (r.name[0] && !trawl_ctl_name_valid(r.name)))
			return -EINVAL;
		break;
	case TRAWL_CTL_CMD_ADD_TRIGGER:
		if (!trigger_ok(&r))
			return -EINVAL;
		break;
	case TRAWL_CTL_CMD_REMOVE_TRIGGER:
		if (!trawl_ctl_trigger_name_valid(r.trigger.name))
			return -EINVAL;
		break;
	case TRAWL_CTL_CMD_NOTIFY_WAIT:
		if (r.value > TRAWL_CTL_NOTIFY_WAIT_MAX_MS)
			return -EINVAL;
		break;
	case TRAWL_CTL_CMD_TRACK:
	case TRAWL_CTL_CMD_UNTRACK:
		/* (uid_t)-1 and (pid_t)-1 mean "no ID" to the kernel: never a value */
		if (r.domain == TRAWL_CTL_DOMAIN_NONE ||
		    (!(r.flags & TRAWL_CTL_F_ALL) && r.value == UINT32_MAX))
			return -EINVAL;
		break;
	default:
		break;
	}
	return 0;
}

/* 1 if each enum of a record body of @kind holds a value the protocol knows. */
static int body_ok(uint32_t kind, const unsigned char *body)
{
	union {
		struct trawl_ctl_wire_session s;
		struct trawl_ctl_wire_domain d;
		struct trawl_ctl_wire_channel c;
		struct trawl_ctl_wire_event e;
		struct trawl_ctl_wire_context x;
		struct trawl_ctl_wire_available a;
		struct trawl_ctl_wire_field f;
		struct trawl_ctl_wire_tracker t;
		struct trawl_ctl_wire_tracker_value v;
		struct trawl_ctl_wire_rotation_schedule r;
		struct trawl_ctl_wire_trigger g;
		struct trawl_ctl_wire_trigger_action ga;
		struct trawl_ctl_wire_notification n;
	} u;
	uint32_t domain;

	memcpy(&u, body, trawl_ctl_rec_layout(kind)->body_size);
	switch (kind) {
	case TRAWL_CTL_ITEM_SESSION:
		return u.s.active <= 1 && u.s.snapshot <= 1;
	case TRAWL_CTL_ITEM_DOMAIN:
		domain = u.d.domain;
		return domain && domain <= TRAWL_CTL_WIRE_DOMAIN_LAST && u.d.consumer_alive <= 1;
	case TRAWL_CTL_ITEM_CHANNEL:
		return u.c.domain && u.c.domain <= TRAWL_CTL_WIRE_DOMAIN_LAST && u.c.enabled <= 1 &&
		       u.c.overwrite <= 1 && u.c.buffers && u.c.buffers <= TRAWL_CTL_WIRE_BUFFERS_LAST &&
		       u.c.blocking_timeout_us >= -1 && u.c.blocking_timeout_us <= TRAWL_CTL_BLOCKING_MAX_US &&
		       u.c.output >= TRAWL_CTL_OUTPUT_SPLICE && u.c.output <= TRAWL_CTL_WIRE_OUTPUT_LAST &&
		       u.c.monitor_timer_us != TRAWL_CTL_WIRE_MONITOR_OFF &&
		       u.c.memory_resident <= u.c.memory_size;
	case TRAWL_CTL_ITEM_EVENT:
		return u.e.domain && u.e.domain <= TRAWL_CTL_WIRE_DOMAIN_LAST && u.e.enabled <= 1 &&
		       u.e.kind <= TRAWL_CTL_WIRE_EVENT_KIND_LAST &&
		       u.e.loglevel_type <= TRAWL_CTL_WIRE_LOGLEVEL_TYPE_LAST &&
		       (TRAWL_CTL_WIRE_IS_AGENT(u.e.domain) ||
			(u.e.loglevel >= 0 && u.e.loglevel <= TRAWL_CTL_WIRE_LOGLEVEL_MAX));
	case TRAWL_CTL_ITEM_CONTEXT:
		return u.x.domain && u.x.domain <= TRAWL_CTL_WIRE_DOMAIN_LAST;
	case TRAWL_CTL_ITEM_AVAILABLE:
		return u.a.domain && u.a.domain <= TRAWL_CTL_WIRE_DOMAIN_LAST &&
		       u.a.kind <= TRAWL_CTL_WIRE_EVENT_KIND_LAST && u.a.loglevel >= -1 &&
		       u.a.loglevel <= TRAWL_CTL_WIRE_LOGLEVEL_MAX && u.a.pid >= 0;
	case TRAWL_CTL_ITEM_FIELD:
		return u.f.domain && u.f.domain <= TRAWL_CTL_WIRE_DOMAIN_LAST;
	case TRAWL_CTL_ITEM_TRACKER:
		return u.t.domain && u.t.domain <= TRAWL_CTL_WIRE_DOMAIN_LAST &&
		       u.t.process_attr <= TRAWL_CTL_WIRE_PROCESS_ATTR_LAST && u.t.include_all <= 1 &&
		       u.t.nr_values <= TRAWL_CTL_TRACKER_MAX_VALUES &&
		       !(u.t.include_all && u.t.nr_values);
	case TRAWL_CTL_ITEM_ROTATION_SCHEDULE:
		return u.r.kind >= TRAWL_CTL_ROTATION_TIMER && u.r.kind <= TRAWL_CTL_WIRE_ROTATION_LAST &&
		       u.r.value;
	case TRAWL_CTL_ITEM_TRIGGER:
		return u.g.condition && u.g.condition <= TRAWL_CTL_WIRE_CONDITION_LAST &&
		       u.g.domain <= TRAWL_CTL_WIRE_DOMAIN_LAST &&
		       u.g.event_kind <= TRAWL_CTL_WIRE_EVENT_KIND_LAST &&
		       u.g.loglevel_type <= TRAWL_CTL_WIRE_LOGLEVEL_TYPE_LAST &&
		       (TRAWL_CTL_WIRE_IS_AGENT(u.g.domain) ||
			(u.g.loglevel >= 0 && u.g.loglevel <= TRAWL_CTL_WIRE_LOGLEVEL_MAX)) &&
		       u.g.nr_actions &&
		       u.g.nr_actions <= TRAWL_CTL_TRIGGER_MAX_ACTIONS &&
		       (u.g.ratio_ppm == UINT32_MAX || u.g.ratio_ppm <= TRAWL_CTL_WIRE_RATIO_ONE);
	case TRAWL_CTL_ITEM_TRIGGER_ACTION:
		return u.ga.kind <= TRAWL_CTL_WIRE_ACTION_LAST &&
		       u.ga.rate_policy <= TRAWL_CTL_WIRE_RATE_LAST && u.ga.rate_value &&
		       u.ga.failures <= u.ga.runs;
	case TRAWL_CTL_ITEM_NOTIFICATION:
		return u.n.condition && u.n.condition <= TRAWL_CTL_WIRE_CONDITION_LAST &&
		       u.n.nr_captures <= TRAWL_CTL_NOTIFY_CAPTURES_MAX && !u.n.reserved;
	case TRAWL_CTL_ITEM_TRACKER_VALUE:
		return u.v.domain && u.v.domain <= TRAWL_CTL_WIRE_DOMAIN_LAST &&
		       u.v.process_attr <= TRAWL_CTL_WIRE_PROCESS_ATTR_LAST;
	default:
		return 1;
	}
}

/* Checks the record at @p, which has @avail bytes left in the payload. */
static int rec_check(const unsigned char *p, size_t avail)
{
	const struct trawl_ctl_rec_layout *l;
	struct trawl_ctl_wire_rec rec;
	size_t off, i;

	if (avail < sizeof(rec))
		return -EPROTO;
	memcpy(&rec, p, sizeof(rec));
	l = trawl_ctl_rec_layout(rec.kind);
	if (!l || rec.nr_strings != l->nr_strings || rec.size % REC_ALIGN || rec.size > avail ||
	    rec.size < sizeof(rec) + l->body_size)
		return -EPROTO;
	if (!body_ok(rec.kind, p + sizeof(rec)))
		return -EPROTO;
	off = sizeof(rec) + l->body_size;
	for (i = 0; i < l->nr_strings; i++) {
		const char *s = (const char *)p + off;
		size_t n = strnlen(s, rec.size - off);

		if (n == rec.size - off || n >= l->str_max[i])
			return -EPROTO;
		off += n + 1;
	}
	/* Only padding may follow the strings: nothing a peer could smuggle. */
	if (rec.size - off >= REC_ALIGN)
		return -EPROTO;
	for (; off < rec.size; off++)
		if (p[off])
			return -EPROTO;
	return 0;
}

int trawl_ctl_reply_check(const void *payload, size_t len)
{
	const unsigned char *p = payload;
	struct trawl_ctl_wire_reply h;
	struct trawl_ctl_wire_rec rec;
	size_t off;
	uint32_t i;

	if (len < sizeof(h) || len > TRAWL_CTL_MAX_PAYLOAD)
		return -EPROTO;
	memcpy(&h, payload, sizeof(h));
	if (h.struct_size != sizeof(h) || h.nr_records > TRAWL_CTL_MAX_RECORDS ||
	    !trawl_ctl_str_ok(h.err, sizeof(h.err)))
		return -EPROTO;
	off = sizeof(h);
	for (i = 0; i < h.nr_records; i++) {
		if (rec_check(p + off, len - off))
			return -EPROTO;
		memcpy(&rec, p + off, sizeof(rec));
		off += rec.size;
	}
	return off == len ? 0 : -EPROTO;
}
