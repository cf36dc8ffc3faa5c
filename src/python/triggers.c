/* SPDX-License-Identifier: MIT */
/*
 * triggers.c - trawl._ctl's triggers (Ctl.add_trigger, remove_trigger,
 * list_triggers: <trawl/ctl.h>'s trawl_ctl_trigger_*) and its
 * NotificationChannel type (trawl_ctl_notification_channel_*), which the
 * package's trawl.Condition, trawl.Action and trawl.notifications() are
 * built on.
 */
#include "module.h"

#include <errno.h>
#include <string.h>

/* ---- triggers ---- */

/* The helpers below return 0, a negative errno of the C API (not raised
 * yet), or PY_RAISED: a Python exception is set. */
#define PY_RAISED 1

/* One action, (kind, session, policy, n, output): kind a name of
 * action_names, session None for notify, policy "every" or "once-after",
 * output a snapshot-session's URL or None. */
static int trigger_action(struct trawl_ctl_trigger *t, PyObject *spec)
{
	const char *session = NULL, *output = NULL;
	unsigned long long n = 1;
	PyObject *kind, *policy = Py_None;
	struct trawl_ctl_snapshot_output *o;
	int k, p = TRAWL_CTL_RATE_EVERY_N, i, ret;

	if (!PyArg_ParseTuple(spec, "O|zOKz", &kind, &session, &policy, &n, &output) ||
	    !py_lookup(kind, action_names, ARRAY_LEN(action_names), 0, "action", &k) ||
	    (policy != Py_None &&
	     !py_lookup(policy, rate_names, ARRAY_LEN(rate_names), 0, "rate policy", &p)))
		return PY_RAISED;
	i = trawl_ctl_trigger_add_action(t, k, session);
	if (i < 0)
		return i;
	ret = trawl_ctl_trigger_action_set_rate_policy(t, i, p, n);
	if (ret || !output)
		return ret;
	o = py_snapshot_output(NULL, NULL, output, NULL, Py_None, &ret);
	if (!o)
		return PY_RAISED;
	ret = trawl_ctl_trigger_action_set_snapshot_output(t, i, o);
	trawl_ctl_snapshot_output_destroy(o);
	return ret;
}

/* add_trigger()'s condition keywords. */
struct cond_kw {
	int condition, domain, kind;
	const char *pattern, *filter, *session, *channel;
	const char *location, *event_name; /* a kernel probe rule's */
	PyObject *loglevel, *loglevel_type, *exclude, *captures, *ratio, *bytes;
};

/* @seq's strings joined by ',' into @buf (@len bytes). */
static int names_join(PyObject *seq, char *buf, size_t len)
{
	PyObject *f = PySequence_Fast(seq, "a sequence of names");
	size_t have = 0;

	if (!f)
		return PY_RAISED;
	buf[0] = '\0';
	for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(f); i++) {
		const char *x = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(f, i));

		if (!x) {
			Py_DECREF(f);
			return PY_RAISED;
		}
		if (have + strlen(x) + 2 > len) {
			Py_DECREF(f);
			return -ENAMETOOLONG;
		}
		if (have)
			buf[have++] = ',';
		memcpy(buf + have, x, strlen(x) + 1); /* fits: checked above */
		have += strlen(x);
	}
	Py_DECREF(f);
	return 0;
}

/* ValueError(@fmt with @what), PY_RAISED. */
static int refuse(const char *fmt, const char *what)
{
	PyErr_Format(PyExc_ValueError, fmt, what);
	return PY_RAISED;
}

/*
 * A kernel probe rule's keywords, checked as `trawl add-trigger` checks
 * --type=kernel:kprobe and kernel:uprobe (LTTng 2.13's checks, in its
 * order): a location and no name pattern, exclusion, filter or log level;
 * a location or event name with any other kind of rule is refused too. The
 * location itself is checked by the root daemon, as enable-event's.
 */
static int probe_rule_check(const struct cond_kw *k)
{
	static const char *const whats[] = {
		[TRAWL_CTL_EVENT_TRACEPOINT] = "tracepoint",
		[TRAWL_CTL_EVENT_SYSCALL] = "kernel syscall",
		[TRAWL_CTL_EVENT_PROBE] = "kernel kprobe",
		[TRAWL_CTL_EVENT_FUNCTION] = "kernel function",
		[TRAWL_CTL_EVENT_USERSPACE_PROBE] = "kernel uprobe",
	};
	const char *what = (size_t)k->kind < ARRAY_LEN(whats) && whats[k->kind] ?
			   whats[k->kind] : "these";

	if (k->kind != TRAWL_CTL_EVENT_PROBE && k->kind != TRAWL_CTL_EVENT_USERSPACE_PROBE) {
		if (k->location)
			return refuse("can't use a location with %s event rules", what);
		if (k->event_name)
			return refuse("can't use an event name with %s event rules", what);
		return 0;
	}
	if (k->domain != TRAWL_CTL_DOMAIN_KERNEL)
		return refuse("%s event rules are the kernel domain's", what);
	if (k->pattern)
		return refuse("can't use a name pattern with %s event rules (the event name is "
			      "event_name)", what);
	if (k->exclude != Py_None)
		return refuse("can't use exclusions with %s event rules", what);
	if (!k->location || !k->location[0])
		return refuse("event rule of type %s requires a location", what);
	if (k->filter)
		return refuse("filter expressions are not supported for %s event rules", what);
	if (k->loglevel != Py_None || k->loglevel_type != Py_None)
		return refuse("log levels are not supported for %s event rules", what);
	return 0;
}

static int event_rule_condition(struct trawl_ctl_trigger *t, const struct cond_kw *k)
{
	int type = TRAWL_CTL_LOGLEVEL_ALL, level = 0, ret;
	char excl[TRAWL_CTL_EXCLUSIONS_MAX] = "", caps[TRAWL_CTL_CAPTURES_MAX] = "";
	char *c, *next;

	ret = probe_rule_check(k);
	if (ret)
		return ret;
	if (k->loglevel != Py_None) {
		type = TRAWL_CTL_LOGLEVEL_RANGE;
		if ((k->loglevel_type != Py_None && !py_conv_loglevel_type(k->loglevel_type, &type)) ||
		    !py_conv_loglevel(k->loglevel, &level))
			return PY_RAISED;
	}
	if (k->exclude != Py_None && (ret = names_join(k->exclude, excl, sizeof(excl))))
		return ret;
	if (k->captures != Py_None && (ret = names_join(k->captures, caps, sizeof(caps))))
		return ret;
	if (k->location) {
		ret = trawl_ctl_trigger_set_probe_rule(t, k->kind, k->location, k->event_name);
		if (ret == -ENAMETOOLONG) {
			PyErr_SetString(PyExc_ValueError, "location or event_name is too long");
			return PY_RAISED;
		}
	} else {
		ret = trawl_ctl_trigger_set_event_rule(t, k->domain, k->kind, k->pattern,
						       k->filter, type, level,
						       excl[0] ? excl : NULL);
	}
	for (c = caps[0] ? caps : NULL; c && !ret; c = next) {
		next = strchr(c, ',');
		if (next)
			*next++ = '\0';
		ret = trawl_ctl_trigger_add_capture(t, c);
	}
	return ret;
}

static int usage_condition(struct trawl_ctl_trigger *t, const struct cond_kw *k)
{
	uint64_t bytes = 0;
	double r = 0;
	int given;

	if (!k->session || !k->channel || (k->ratio == Py_None) == (k->bytes == Py_None)) {
		PyErr_SetString(PyExc_ValueError, "buffer usage: give session, channel, and ratio "
						  "or bytes");
		return PY_RAISED;
	}
	if (k->ratio != Py_None) {
		r = PyFloat_AsDouble(k->ratio);
		if (r == -1.0 && PyErr_Occurred())
			return PY_RAISED;
		if (!(r >= 0.0 && r <= 1.0)) {
			PyErr_SetString(PyExc_ValueError, "ratio: from 0 to 1");
			return PY_RAISED;
		}
	} else if (py_opt_u64(k->bytes, UINT64_MAX, "bytes", &bytes, &given)) {
		return PY_RAISED;
	}
	return trawl_ctl_trigger_set_buffer_usage(
		t, k->condition, k->session, k->channel, k->domain,
		k->ratio != Py_None ? (uint32_t)(r * 1e6 + 0.5) : UINT32_MAX, bytes);
}

static int trigger_condition(struct trawl_ctl_trigger *t, const struct cond_kw *k)
{
	uint64_t bytes = 0;
	int given;

	switch (k->condition) {
	case TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES:
		return event_rule_condition(t, k);
	case TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE:
		if (!k->session || k->bytes == Py_None) {
			PyErr_SetString(PyExc_ValueError, "session-consumed-size: give session and "
							  "bytes");
			return PY_RAISED;
		}
		if (py_opt_u64(k->bytes, UINT64_MAX, "bytes", &bytes, &given))
			return PY_RAISED;
		return trawl_ctl_trigger_set_session_consumed_size(t, k->session, bytes);
	default:
		return usage_condition(t, k);
	}
}

/* add_trigger(condition, actions, name=None, owner_uid=None, domain="ust",
 *             pattern=None, kind="tracepoint", filter=None, loglevel=None,
 *             loglevel_type=None, exclude=None, captures=None, session=None,
 *             channel=None, ratio=None, bytes=None, location=None,
 *             event_name=None): its records */
PyObject *Ctl_add_trigger(CtlObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"condition", "actions",  "name",     "owner_uid",
				 "domain",    "pattern",  "kind",     "filter",
				 "loglevel",  "loglevel_type", "exclude", "captures",
				 "session",   "channel",  "ratio",    "bytes",
				 "location",  "event_name", NULL};
	struct cond_kw k = {
		.domain = TRAWL_CTL_DOMAIN_UST, .kind = TRAWL_CTL_EVENT_TRACEPOINT,
		.loglevel = Py_None, .loglevel_type = Py_None, .exclude = Py_None,
		.captures = Py_None, .ratio = Py_None, .bytes = Py_None,
	};
	PyObject *cond, *actions, *owner = Py_None, *seq;
	const char *name = NULL;
	struct trawl_ctl_trigger *t;
	struct trawl_ctl_list *l = NULL;
	uint64_t uid = 0;
	int given, ret = 0;

	if (py_ctl_ready(self) ||
	    !PyArg_ParseTupleAndKeywords(args, kw, "OO|zOO&zO&zOOOOzzOOzz", kwlist, &cond,
					 &actions, &name, &owner, py_conv_domain, &k.domain,
					 &k.pattern, py_conv_kind, &k.kind, &k.filter, &k.loglevel,
					 &k.loglevel_type, &k.exclude, &k.captures, &k.session,
					 &k.channel, &k.ratio, &k.bytes, &k.location,
					 &k.event_name) ||
	    !py_lookup(cond, condition_names, ARRAY_LEN(condition_names), 1, "condition",
		       &k.condition) ||
	    py_opt_u64(owner, UINT32_MAX - 1, "owner_uid", &uid, &given))
		return NULL;
	seq = PySequence_Fast(actions, "actions: a sequence of (kind, session, ...) tuples");
	if (!seq)
		return NULL;
	t = trawl_ctl_trigger_create();
	if (!t) {
		Py_DECREF(seq);
		return PyErr_NoMemory();
	}
	if (name)
		ret = trawl_ctl_trigger_set_name(t, name);
	if (!ret && given)
		ret = trawl_ctl_trigger_set_owner_uid(t, (uint32_t)uid);
	if (!ret)
		ret = trigger_condition(t, &k);
	for (Py_ssize_t i = 0; !ret && i < PySequence_Fast_GET_SIZE(seq); i++)
		ret = trigger_action(t, PySequence_Fast_GET_ITEM(seq, i));
	Py_DECREF(seq);
	if (!ret)
		CTL_CALL(self, ret, trawl_ctl_trigger_register(self->ctl, t, &l));
	trawl_ctl_trigger_destroy(t);
	if (ret == PY_RAISED)
		return NULL;
	return py_list_result(self, ret, l);
}

/* remove_trigger(name, owner_uid=None) */
PyObject *Ctl_remove_trigger(CtlObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"name", "owner_uid", NULL};
	PyObject *owner = Py_None;
	const char *name;
	uint64_t v = UINT32_MAX;
	int given, ret;

	if (py_ctl_ready(self) || !PyArg_ParseTupleAndKeywords(args, kw, "s|O", kwlist, &name, &owner))
		return NULL;
	if (py_opt_u64(owner, UINT32_MAX - 1, "owner_uid", &v, &given))
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_trigger_unregister(self->ctl, name, (uint32_t)v));
	return py_none_result(self, ret);
}

PyObject *Ctl_list_triggers(CtlObject *self, PyObject *unused)
{
	struct trawl_ctl_list *l = NULL;
	int ret;

	if (py_ctl_ready(self))
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_list_triggers(self->ctl, &l));
	return py_list_result(self, ret, l);
}

/* ---- notification channels ---- */

/*
 * A notification channel (struct trawl_ctl_notification_channel): not
 * thread-safe in C, so each holds a lock. receive() waits in slices of
 * RECV_SLICE_MS with the GIL released, so that a signal (Ctrl-C) and a
 * close() from another thread end a wait within a slice; a close() during
 * a wait only marks the channel, and the waiting thread frees it.
 */
#define RECV_SLICE_MS 200

typedef struct {
	PyObject_HEAD
	struct trawl_ctl_notification_channel *ch;
	PyThread_type_lock lock;
	int closing;
	int waiting; /* threads inside receive() */
} NotifObject;

static PyObject *notif_closed(void)
{
	PyErr_SetString(PyExc_ValueError, "the notification channel is closed");
	return NULL;
}

static PyObject *Notif_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {NULL};
	struct trawl_ctl_notification_channel *ch = NULL;
	NotifObject *self;
	int ret;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "", kwlist))
		return NULL;
	self = (NotifObject *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	self->lock = PyThread_allocate_lock();
	if (!self->lock) {
		Py_DECREF(self);
		return PyErr_NoMemory();
	}
	Py_BEGIN_ALLOW_THREADS
	ret = trawl_ctl_notification_channel_create(&ch);
	Py_END_ALLOW_THREADS
	if (ret < 0) {
		Py_DECREF(self);
		return py_raise_ret(NULL, ret);
	}
	self->ch = ch;
	return (PyObject *)self;
}

static void Notif_dealloc(NotifObject *self)
{
	trawl_ctl_notification_channel_destroy(self->ch);
	if (self->lock)
		PyThread_free_lock(self->lock);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Notif_close(NotifObject *self, PyObject *unused)
{
	struct trawl_ctl_notification_channel *ch = self->ch;

	self->closing = 1;
	if (self->waiting || !ch)
		Py_RETURN_NONE; /* the waiting thread frees it */
	self->ch = NULL;
	trawl_ctl_notification_channel_destroy(ch);
	Py_RETURN_NONE;
}

static PyObject *Notif_subscribe(NotifObject *self, PyObject *args)
{
	const char *name;
	int ret, unsub = 0;

	if (!PyArg_ParseTuple(args, "s|p", &name, &unsub))
		return NULL;
	if (!self->ch || self->closing)
		return notif_closed();
	if (self->waiting) {
		PyErr_SetString(PyExc_RuntimeError, "another thread is receiving on the channel");
		return NULL;
	}
	ret = unsub ? trawl_ctl_notification_channel_unsubscribe(self->ch, name)
		    : trawl_ctl_notification_channel_subscribe(self->ch, name);
	return py_none_result(NULL, ret);
}

/* A captured value as Python has it: None (unavailable), int (integers and
 * enumerations: their value), float, str (undecodable bytes replaced), or a
 * list of ints. NULL with an exception set. */
static PyObject *capture_py(const struct trawl_ctl_capture_value *v)
{
	uint64_t u;
	int64_t i;
	double r;
	const char *str;
	PyObject *l;
	uint32_t k, nr;

	switch (v ? trawl_ctl_capture_value_type(v) : TRAWL_CTL_CAPTURE_UNAVAILABLE) {
	case TRAWL_CTL_CAPTURE_UNSIGNED_INT:
	case TRAWL_CTL_CAPTURE_UNSIGNED_ENUM:
		trawl_ctl_capture_value_unsigned(v, &u);
		return PyLong_FromUnsignedLongLong(u);
	case TRAWL_CTL_CAPTURE_SIGNED_INT:
	case TRAWL_CTL_CAPTURE_SIGNED_ENUM:
		trawl_ctl_capture_value_signed(v, &i);
		return PyLong_FromLongLong(i);
	case TRAWL_CTL_CAPTURE_REAL:
		trawl_ctl_capture_value_real(v, &r);
		return PyFloat_FromDouble(r);
	case TRAWL_CTL_CAPTURE_STRING:
		str = trawl_ctl_capture_value_string(v);
		return PyUnicode_DecodeUTF8(str, (Py_ssize_t)strlen(str), "replace");
	case TRAWL_CTL_CAPTURE_ARRAY:
		nr = trawl_ctl_capture_value_array_length(v);
		l = PyList_New((Py_ssize_t)nr);
		for (k = 0; l && k < nr; k++) {
			PyObject *e = capture_py(trawl_ctl_capture_value_array_element(v, k));

			if (!e) {
				Py_CLEAR(l);
				break;
			}
			PyList_SET_ITEM(l, (Py_ssize_t)k, e);
		}
		return l;
	case TRAWL_CTL_CAPTURE_UNAVAILABLE:
	default:
		Py_RETURN_NONE;
	}
}

/* The notification's captures typed (capture_py()), in the trigger's order */
static PyObject *capture_values(const struct trawl_ctl_notification *n)
{
	uint32_t i, nr = trawl_ctl_notification_capture_count(n);
	PyObject *l = PyList_New((Py_ssize_t)nr);

	for (i = 0; l && i < nr; i++) {
		PyObject *v = capture_py(trawl_ctl_notification_capture_value(n, i));

		if (!v) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, v);
	}
	return l;
}

static PyObject *notification_dict(const struct trawl_ctl_notification *n)
{
	PyObject *d = PyDict_New(), *caps;
	uint32_t i, nr = trawl_ctl_notification_capture_count(n);
	int bad = 0;

	if (!d)
		return NULL;
	caps = PyList_New((Py_ssize_t)nr);
	for (i = 0; caps && i < nr; i++) {
		PyObject *v = PyUnicode_DecodeUTF8(trawl_ctl_notification_capture(n, i),
						   (Py_ssize_t)strlen(trawl_ctl_notification_capture(n, i)),
						   "replace");

		if (!v) {
			Py_CLEAR(caps);
			break;
		}
		PyList_SET_ITEM(caps, (Py_ssize_t)i, v);
	}
	bad |= py_put(d, "trigger", PyUnicode_FromString(trawl_ctl_notification_trigger(n)));
	bad |= PUT_U64(d, "owner_uid", trawl_ctl_notification_owner_uid(n));
	bad |= py_put(d, "condition",
		   PyUnicode_FromString(NAME_OF(condition_names, trawl_ctl_notification_condition(n))));
	bad |= PUT_U64(d, "timestamp_ns", trawl_ctl_notification_timestamp_ns(n));
	bad |= py_put(d, "captures", caps);
	bad |= py_put(d, "values", capture_values(n));
	if (bad) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

/* receive(timeout_ms=-1): the next notification as a dict, or None when
 * @timeout_ms passed (-1: never) or the channel was closed meanwhile */
static PyObject *Notif_receive(NotifObject *self, PyObject *args)
{
	struct trawl_ctl_notification *n = NULL;
	long long timeout = -1, left;
	PyObject *out = NULL;
	int ret = -ETIMEDOUT;

	if (!PyArg_ParseTuple(args, "|L", &timeout))
		return NULL;
	if (!self->ch || self->closing)
		return notif_closed();
	if (self->waiting) {
		PyErr_SetString(PyExc_RuntimeError, "another thread is receiving on the channel");
		return NULL;
	}
	self->waiting = 1;
	left = timeout;
	for (;;) {
		int slice = left < 0 || left > RECV_SLICE_MS ? RECV_SLICE_MS : (int)left;

		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(self->lock, WAIT_LOCK);
		ret = trawl_ctl_notification_channel_receive(self->ch, slice, &n);
		PyThread_release_lock(self->lock);
		Py_END_ALLOW_THREADS
		/* (a loss: counted by dropped(), the next one asked for) */
		if (ret == TRAWL_CTL_NOTIFICATIONS_DROPPED && !self->closing)
			continue;
		if (ret != -ETIMEDOUT || self->closing)
			break;
		if (PyErr_CheckSignals())
			break;
		if (left >= 0 && (left -= slice) <= 0)
			break;
	}
	self->waiting = 0;
	if (!ret) {
		out = notification_dict(n);
		trawl_ctl_notification_destroy(n);
	}
	if (self->closing && self->ch) {
		trawl_ctl_notification_channel_destroy(self->ch);
		self->ch = NULL;
	}
	if (out || PyErr_Occurred())
		return out;
	if (ret == -ETIMEDOUT || self->closing)
		Py_RETURN_NONE;
	return py_raise_ret(NULL, ret);
}

static PyObject *Notif_fileno(NotifObject *self, PyObject *unused)
{
	int fd;

	if (!self->ch || self->closing)
		return notif_closed();
	fd = trawl_ctl_notification_channel_get_fd(self->ch);
	return fd < 0 ? py_raise_ret(NULL, fd) : PyLong_FromLong(fd);
}

static PyObject *Notif_dropped(NotifObject *self, PyObject *unused)
{
	if (!self->ch)
		return notif_closed();
	return PyLong_FromUnsignedLongLong(trawl_ctl_notification_channel_dropped(self->ch));
}

#define NMETH(name, flags) {#name, (PyCFunction)(void (*)(void))Notif_##name, flags, NULL}

static PyMethodDef Notif_methods[] = {
	NMETH(close, METH_NOARGS),
	NMETH(subscribe, METH_VARARGS),
	NMETH(receive, METH_VARARGS),
	NMETH(fileno, METH_NOARGS),
	NMETH(dropped, METH_NOARGS),
	{NULL, NULL, 0, NULL},
};

PyTypeObject py_notification_channel_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "trawl._ctl.NotificationChannel",
	.tp_doc = "A notification channel (struct trawl_ctl_notification_channel).",
	.tp_basicsize = sizeof(NotifObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = Notif_new,
	.tp_dealloc = (destructor)Notif_dealloc,
	.tp_methods = Notif_methods,
};
