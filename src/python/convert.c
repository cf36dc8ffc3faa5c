/* SPDX-License-Identifier: MIT */
/*
 * convert.c - values between Python and <trawl/ctl.h> for the trawl._ctl
 * extension: the records of a struct trawl_ctl_list as (kind, dict)
 * tuples, the names of <trawl/ctl-types.h>'s values, and the converters
 * for PyArg_Parse "O&". The Ctl type that uses them is module.c's.
 */
#include "module.h"

#include <errno.h>
#include <string.h>

/* ---- records of a struct trawl_ctl_list as (kind, dict) tuples ---- */

const char *const domain_names[] = {"none", "kernel", "ust", "jul", "log4j", "python"};
const char *const condition_names[] = {"none", "event-rule-matches",
					      "session-consumed-size", "buffer-usage-high",
					      "buffer-usage-low"};
const char *const action_names[] = {"notify", "start-session", "stop-session",
					   "rotate-session", "snapshot-session"};
const char *const rate_names[] = {"every", "once-after"};
static const char *const kind_names[] = {"tracepoint", "syscall", "probe", "function",
					 "userspace-probe"};
static const char *const loglevel_type_names[] = {"all", "range", "single"};
static const char *const buffers_names[] = {"default", "per-uid", "per-pid", "global"};
static const char *const attr_names[] = {"pid", "vpid", "uid", "vuid", "gid", "vgid"};


/* Sets d[key] = value (a new reference, stolen); 0 or -1 with an exception. */
int py_put(PyObject *d, const char *key, PyObject *value)
{
	int ret;

	if (!value)
		return -1;
	ret = PyDict_SetItemString(d, key, value);
	Py_DECREF(value);
	return ret;
}

PyObject *py_str_or_none(const char *s)
{
	if (s && *s)
		return PyUnicode_DecodeFSDefault(s);
	Py_RETURN_NONE;
}


/* "a,b" as ["a", "b"] ("" as []). */
PyObject *py_split_names(const char *s)
{
	PyObject *all, *sep, *out = NULL;

	if (!s || !*s)
		return PyList_New(0);
	all = PyUnicode_DecodeFSDefault(s);
	sep = PyUnicode_FromString(",");
	if (all && sep)
		out = PyUnicode_Split(all, sep, -1);
	Py_XDECREF(all);
	Py_XDECREF(sep);
	return out;
}

/*
 * A record of what a session holds (its domains, channels, rules,
 * trackers, rotation schedules, snapshot outputs) into @d: 0 or a
 * negative errno; *@bad set if a key could not be set.
 */
static int session_record(PyObject *d, const struct trawl_ctl_list *l, size_t i,
			  enum trawl_ctl_item_kind k, int *bad)
{
	int ret = -EINVAL;

	switch (k) {
	case TRAWL_CTL_ITEM_SESSION: {
		struct trawl_ctl_session_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_session_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_STR(d, "name", r.name);
		*bad |= PUT_OPT(d, "output", r.output);
		*bad |= PUT_BOOL(d, "active", r.active);
		*bad |= PUT_BOOL(d, "snapshot", r.snapshot);
		*bad |= PUT_U64(d, "live_timer_us", r.live_timer_us);
		*bad |= PUT_U64(d, "uid", r.uid);
		*bad |= PUT_OPT(d, "shm_path", r.shm_path);
		break;
	}
	case TRAWL_CTL_ITEM_DOMAIN: {
		struct trawl_ctl_domain_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_domain_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_NAME(d, "domain", domain_names, r.domain);
		*bad |= PUT_BOOL(d, "consumer_alive", r.consumer_alive);
		*bad |= PUT_U64(d, "events_discarded", r.events_discarded);
		*bad |= PUT_U64(d, "bytes_written", r.bytes_written);
		*bad |= PUT_OPT(d, "problem", r.problem);
		break;
	}
	case TRAWL_CTL_ITEM_CHANNEL: {
		struct trawl_ctl_channel_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_channel_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_NAME(d, "domain", domain_names, r.domain);
		*bad |= PUT_STR(d, "name", r.name);
		*bad |= PUT_BOOL(d, "enabled", r.enabled);
		*bad |= PUT_BOOL(d, "overwrite", r.overwrite);
		*bad |= PUT_U64(d, "subbuf_size", r.subbuf_size);
		*bad |= PUT_U64(d, "num_subbuf", r.num_subbuf);
		*bad |= PUT_U64(d, "switch_timer_us", r.switch_timer_us);
		*bad |= PUT_U64(d, "read_timer_us", r.read_timer_us);
		*bad |= PUT_NAME(d, "buffers", buffers_names, r.buffers);
		*bad |= PUT_U64(d, "tracefile_size", r.tracefile_size);
		*bad |= PUT_U64(d, "tracefile_count", r.tracefile_count);
		*bad |= py_put(d, "blocking_timeout_us", PyLong_FromLongLong((long long)r.blocking_timeout_us));
		/* LTTng's per-channel statistics (list of a session), its output type */
		*bad |= PUT_U64(d, "discarded_events", r.discarded_events);
		*bad |= PUT_U64(d, "lost_packets", r.lost_packets);
		*bad |= PUT_STR(d, "output", r.output == TRAWL_CTL_OUTPUT_SPLICE ? "splice" : "mmap");
		*bad |= PUT_U64(d, "monitor_timer_us", r.monitor_timer_us);
		*bad |= PUT_U64(d, "memory_resident", r.memory_resident);
		*bad |= PUT_U64(d, "memory_size", r.memory_size);
		break;
	}
	case TRAWL_CTL_ITEM_EVENT: {
		struct trawl_ctl_event_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_event_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_NAME(d, "domain", domain_names, r.domain);
		*bad |= PUT_STR(d, "channel", r.channel);
		*bad |= PUT_STR(d, "name", r.name);
		*bad |= PUT_NAME(d, "kind", kind_names, r.kind);
		*bad |= PUT_BOOL(d, "enabled", r.enabled);
		*bad |= PUT_NAME(d, "loglevel_type", loglevel_type_names, r.loglevel_type);
		if (r.loglevel_type == TRAWL_CTL_LOGLEVEL_ALL)
			*bad |= py_put(d, "loglevel", Py_NewRef(Py_None));
		else
			*bad |= PUT_INT(d, "loglevel", r.loglevel);
		*bad |= PUT_OPT(d, "filter", r.filter);
		*bad |= PUT_OPT(d, "target", r.target);
		*bad |= py_put(d, "exclusions", py_split_names(r.exclusions));
		break;
	}
	case TRAWL_CTL_ITEM_CONTEXT: {
		struct trawl_ctl_context_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_context_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_NAME(d, "domain", domain_names, r.domain);
		*bad |= PUT_STR(d, "channel", r.channel);
		*bad |= PUT_STR(d, "name", r.name);
		break;
	}
	case TRAWL_CTL_ITEM_TRACKER: {
		struct trawl_ctl_tracker_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_tracker_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_NAME(d, "domain", domain_names, r.domain);
		*bad |= PUT_NAME(d, "attr", attr_names, r.process_attr);
		*bad |= PUT_BOOL(d, "include_all", r.include_all);
		*bad |= PUT_U64(d, "nr_values", r.nr_values);
		break;
	}
	case TRAWL_CTL_ITEM_TRACKER_VALUE: {
		struct trawl_ctl_tracker_value_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_tracker_value_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_NAME(d, "domain", domain_names, r.domain);
		*bad |= PUT_NAME(d, "attr", attr_names, r.process_attr);
		*bad |= PUT_U64(d, "value", r.value);
		break;
	}
	case TRAWL_CTL_ITEM_ROTATION_SCHEDULE: {
		struct trawl_ctl_rotation_schedule_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_rotation_schedule_at(l, i, &r);
		if (ret)
			break;
		*bad |= py_put(d, "kind", PyUnicode_FromString(
					      r.kind == TRAWL_CTL_ROTATION_TIMER ? "timer" : "size"));
		*bad |= PUT_U64(d, "value", r.value);
		break;
	}
	case TRAWL_CTL_ITEM_SNAPSHOT_OUTPUT: {
		struct trawl_ctl_snapshot_output_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_snapshot_output_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_U64(d, "id", r.id);
		*bad |= PUT_STR(d, "name", r.name);
		*bad |= PUT_STR(d, "ctrl_url", r.ctrl_url);
		*bad |= PUT_OPT(d, "data_url", r.data_url);
		*bad |= PUT_U64(d, "max_size", r.max_size);
		break;
	}
	default:
		break;
	}
	return ret;
}

/*
 * A record of what the daemon lists beside its sessions (what can be
 * traced, the snapshots and rotations taken, the triggers) into @d: 0 or
 * a negative errno; *@bad set if a key could not be set.
 */
static int listing_record(PyObject *d, const struct trawl_ctl_list *l, size_t i,
			  enum trawl_ctl_item_kind k, int *bad)
{
	int ret = -EINVAL;

	switch (k) {
	case TRAWL_CTL_ITEM_AVAILABLE: {
		struct trawl_ctl_available_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_available_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_NAME(d, "domain", domain_names, r.domain);
		*bad |= PUT_STR(d, "name", r.name);
		*bad |= PUT_NAME(d, "kind", kind_names, r.kind);
		if (r.loglevel < 0)
			*bad |= py_put(d, "loglevel", Py_NewRef(Py_None));
		else
			*bad |= PUT_INT(d, "loglevel", r.loglevel);
		*bad |= PUT_INT(d, "pid", r.pid);
		break;
	}
	case TRAWL_CTL_ITEM_FIELD: {
		struct trawl_ctl_field_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_field_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_NAME(d, "domain", domain_names, r.domain);
		*bad |= PUT_STR(d, "event", r.event);
		*bad |= PUT_STR(d, "name", r.name);
		*bad |= PUT_STR(d, "type", r.type);
		break;
	}
	case TRAWL_CTL_ITEM_SNAPSHOT: {
		struct trawl_ctl_snapshot_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_snapshot_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_STR(d, "session", r.session);
		*bad |= PUT_STR(d, "path", r.path);
		*bad |= PUT_U64(d, "seq", r.seq);
		break;
	}
	case TRAWL_CTL_ITEM_ROTATION: {
		struct trawl_ctl_rotation_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_rotation_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_STR(d, "session", r.session);
		*bad |= PUT_STR(d, "path", r.path);
		*bad |= PUT_U64(d, "chunk_id", r.chunk_id);
		break;
	}
	case TRAWL_CTL_ITEM_TRIGGER: {
		struct trawl_ctl_trigger_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_trigger_at(l, i, &r);
		if (ret)
			break;
		*bad |= PUT_STR(d, "name", r.name);
		*bad |= PUT_U64(d, "owner_uid", r.owner_uid);
		*bad |= py_put(d, "condition",
			   PyUnicode_FromString(NAME_OF(condition_names, r.condition)));
		*bad |= py_put(d, "domain", PyUnicode_FromString(NAME_OF(domain_names, r.domain)));
		*bad |= PUT_STR(d, "pattern", r.pattern);
		*bad |= PUT_OPT(d, "filter", r.filter);
		*bad |= py_put(d, "exclusions", py_split_names(r.exclusions));
		*bad |= py_put(d, "captures", py_split_names(r.captures));
		*bad |= PUT_OPT(d, "session", r.session);
		*bad |= PUT_OPT(d, "channel", r.channel);
		*bad |= r.ratio_ppm == UINT32_MAX
			       ? py_put(d, "ratio", Py_NewRef(Py_None))
			       : py_put(d, "ratio", PyFloat_FromDouble(r.ratio_ppm / 1e6));
		*bad |= PUT_U64(d, "threshold", r.threshold);
		*bad |= PUT_U64(d, "nr_actions", r.nr_actions);
		*bad |= PUT_U64(d, "occurrences", r.occurrences);
		*bad |= PUT_U64(d, "discarded", r.discarded);
		*bad |= PUT_OPT(d, "location", r.location); /* a kernel probe rule's */
		break;
	}
	case TRAWL_CTL_ITEM_TRIGGER_ACTION: {
		struct trawl_ctl_trigger_action_info r = {.struct_size = sizeof(r)};

		ret = trawl_ctl_list_trigger_action_at(l, i, &r);
		if (ret)
			break;
		*bad |= py_put(d, "kind", PyUnicode_FromString(NAME_OF(action_names, r.kind)));
		*bad |= PUT_OPT(d, "session", r.session);
		*bad |= py_put(d, "rate_policy",
			   PyUnicode_FromString(NAME_OF(rate_names, r.rate_policy)));
		*bad |= PUT_U64(d, "rate_value", r.rate_value);
		*bad |= PUT_U64(d, "runs", r.runs);
		*bad |= PUT_U64(d, "failures", r.failures);
		break;
	}
	default:
		break;
	}
	return ret;
}

/* One record as a dict; NULL with an exception. */
static PyObject *record_dict(const struct trawl_ctl_list *l, size_t i, enum trawl_ctl_item_kind k)
{
	PyObject *d = PyDict_New();
	int bad = 0, ret = -EINVAL;

	if (!d)
		return NULL;
	switch (k) {
	case TRAWL_CTL_ITEM_SESSION:
	case TRAWL_CTL_ITEM_DOMAIN:
	case TRAWL_CTL_ITEM_CHANNEL:
	case TRAWL_CTL_ITEM_EVENT:
	case TRAWL_CTL_ITEM_CONTEXT:
	case TRAWL_CTL_ITEM_TRACKER:
	case TRAWL_CTL_ITEM_TRACKER_VALUE:
	case TRAWL_CTL_ITEM_ROTATION_SCHEDULE:
	case TRAWL_CTL_ITEM_SNAPSHOT_OUTPUT:
		ret = session_record(d, l, i, k, &bad);
		break;
	case TRAWL_CTL_ITEM_AVAILABLE:
	case TRAWL_CTL_ITEM_FIELD:
	case TRAWL_CTL_ITEM_SNAPSHOT:
	case TRAWL_CTL_ITEM_ROTATION:
	case TRAWL_CTL_ITEM_TRIGGER:
	case TRAWL_CTL_ITEM_TRIGGER_ACTION:
		ret = listing_record(d, l, i, k, &bad);
		break;
	case TRAWL_CTL_ITEM_NOTIFY_CURSOR:
	case TRAWL_CTL_ITEM_NOTIFICATION:
	case TRAWL_CTL_ITEM_NONE:
		break;
	}
	if (ret) {
		Py_DECREF(d);
		return py_raise_ret(NULL, ret);
	}
	if (bad) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

static const char *const item_names[] = {
	"none",	   "session",	"domain",  "channel",	    "event",
	"context", "available", "field",   "snapshot",	    "tracker",
	"tracker_value", "rotation", "rotation_schedule", "snapshot_output", "trigger",
	"trigger_action", "notify_cursor", "notification",
};

/* The list as [(kind, dict)], and frees it; NULL with an exception. */
static PyObject *list_to_py(struct trawl_ctl_list *l)
{
	size_t n = l ? trawl_ctl_list_count(l) : 0;
	PyObject *out = PyList_New((Py_ssize_t)n);

	for (size_t i = 0; out && i < n; i++) {
		enum trawl_ctl_item_kind k = trawl_ctl_list_kind(l, i);
		PyObject *d = record_dict(l, i, k);
		PyObject *t = d ? Py_BuildValue("(sN)", NAME_OF(item_names, k), d) : NULL;

		if (!t) {
			Py_CLEAR(out);
			break;
		}
		PyList_SET_ITEM(out, (Py_ssize_t)i, t);
	}
	trawl_ctl_list_destroy(l);
	return out;
}

/* The result of a call that may fill a list: raises, or returns the list. */
PyObject *py_list_result(CtlObject *self, int ret, struct trawl_ctl_list *l)
{
	if (ret < 0) {
		trawl_ctl_list_destroy(l);
		return py_raise_ret(self, ret);
	}
	return list_to_py(l);
}

PyObject *py_none_result(CtlObject *self, int ret)
{
	if (ret < 0)
		return py_raise_ret(self, ret);
	Py_RETURN_NONE;
}

/* ---- converters for PyArg_Parse "O&" ---- */

int py_lookup(PyObject *o, const char *const *table, size_t n, int first, const char *what,
		  int *out)
{
	const char *s;

	if (PyLong_Check(o)) {
		long v = PyLong_AsLong(o);

		if (v >= first && (size_t)v < n) {
			*out = (int)v;
			return 1;
		}
	} else if ((s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL)) {
		for (size_t i = (size_t)first; i < n; i++)
			if (!strcmp(s, table[i])) {
				*out = (int)i;
				return 1;
			}
	}
	if (!PyErr_Occurred())
		PyErr_Format(PyExc_ValueError, "unknown %s: %R", what, o);
	return 0;
}


int py_conv_domain(PyObject *o, void *p)
{
	if (PyUnicode_Check(o) && !strcmp(PyUnicode_AsUTF8(o) ?: "", "userspace")) {
		*(int *)p = TRAWL_CTL_DOMAIN_UST;
		return 1;
	}
	return py_lookup(o, domain_names, ARRAY_LEN(domain_names), 1, "domain", p);
}

int py_conv_kind(PyObject *o, void *p)
{
	return py_lookup(o, kind_names, ARRAY_LEN(kind_names), 0, "event kind", p);
}

int py_conv_attr(PyObject *o, void *p)
{
	return py_lookup(o, attr_names, ARRAY_LEN(attr_names), 0, "process attribute", p);
}

int py_conv_buffers(PyObject *o, void *p)
{
	return py_lookup(o, buffers_names, ARRAY_LEN(buffers_names), 0, "buffering scheme", p);
}

int py_conv_loglevel_type(PyObject *o, void *p)
{
	return py_lookup(o, loglevel_type_names, ARRAY_LEN(loglevel_type_names), 0,
		      "log level condition", p);
}

int py_conv_rotation(PyObject *o, void *p)
{
	static const char *const names[] = {"", "timer", "size"};

	return py_lookup(o, names, ARRAY_LEN(names), 1, "rotation schedule", p);
}

/* A log level: a name ("TRACE_INFO", "info") or 0..14. */
int py_conv_loglevel(PyObject *o, void *p)
{
	int v = -EINVAL;

	if (PyLong_Check(o)) {
		long l = PyLong_AsLong(o);

		v = l >= 0 && l <= 14 ? (int)l : -EINVAL;
	} else if (PyUnicode_Check(o)) {
		const char *s = PyUnicode_AsUTF8(o);

		v = s ? trawl_ctl_loglevel_parse(s) : -EINVAL;
	}
	if (v < 0) {
		if (!PyErr_Occurred())
			PyErr_Format(PyExc_ValueError, "unknown log level: %R", o);
		return 0;
	}
	*(int *)p = v;
	return 1;
}
