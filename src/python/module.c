/* SPDX-License-Identifier: MIT */
/*
 * trawl._ctl - the CPython extension under the `trawl` Python package: the
 * type Ctl (a connection, struct trawl_ctl), whose methods are the calls of
 * <trawl/ctl.h> one for one, taking and returning plain Python values
 * (str, int, bool, None; lists of (kind, dict) records). The package's
 * trawl/__init__.py builds the Pythonic API (Session, Channel... objects)
 * on top, so this file only converts values and errors and stays as thin as
 * the C API: a new call of <trawl/ctl.h> is one method here. Values are
 * converted by convert.c.
 *
 * Why a hand-written extension and not ctypes or cffi: the API's records are
 * versioned structs (struct_size) and its strings belong to lists freed by
 * the library; converting them in C keeps every lifetime rule in one place,
 * and needs nothing beyond Debian's python3-dev (LTTng's own binding uses
 * SWIG, which is one more tool to build with and hides these rules).
 *
 * Errors: a failed call raises trawl.Error (an OSError) with the negative
 * errno turned positive and the daemon's one line (trawl_ctl_last_error())
 * as its message, else strerror's text.
 *
 * Threads: a connection must not be used by two threads at once (ctl.h), so
 * each Ctl holds a lock; blocking calls (a stop waits for the consumers)
 * release the GIL and take that lock instead.
 */
#include "module.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

PyObject *trawl_error; /* trawl.Error, set by the package at import */


/* Raises trawl.Error for @ret (< 0) after a call on @self (NULL: no line). */
PyObject *py_raise_ret(CtlObject *self, int ret)
{
	const char *line = self && self->ctl ? trawl_ctl_last_error(self->ctl) : "";
	PyObject *cls = trawl_error ? trawl_error : PyExc_OSError;
	PyObject *args;

	if (!line || !*line)
		line = strerror(-ret);
	args = Py_BuildValue("(is)", -ret, line);
	if (args) {
		PyErr_SetObject(cls, args);
		Py_DECREF(args);
	}
	return NULL;
}


int py_ctl_ready(CtlObject *self)
{
	if (self->ctl)
		return 0;
	PyErr_SetString(PyExc_ValueError, "the connection is closed");
	return -1;
}

/* ---- Ctl ---- */

static PyObject *Ctl_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"spawn", "user", NULL};
	int spawn = 1, user = 0, ret;
	unsigned flags = 0;
	CtlObject *self;
	struct trawl_ctl *ctl = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|pp", kwlist, &spawn, &user))
		return NULL;
	if (!spawn)
		flags |= TRAWL_CTL_CONNECT_NO_SPAWN;
	if (user)
		flags |= TRAWL_CTL_CONNECT_USER;
	self = (CtlObject *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	self->lock = PyThread_allocate_lock();
	if (!self->lock) {
		Py_DECREF(self);
		return PyErr_NoMemory();
	}
	Py_BEGIN_ALLOW_THREADS
	ret = trawl_ctl_connect(&ctl, flags);
	Py_END_ALLOW_THREADS
	if (ret < 0) {
		Py_DECREF(self);
		return py_raise_ret(NULL, ret);
	}
	self->ctl = ctl;
	return (PyObject *)self;
}

static void Ctl_dealloc(CtlObject *self)
{
	trawl_ctl_disconnect(self->ctl);
	if (self->lock)
		PyThread_free_lock(self->lock);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Ctl_close(CtlObject *self, PyObject *unused)
{
	struct trawl_ctl *ctl = self->ctl;

	self->ctl = NULL;
	if (ctl) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(self->lock, WAIT_LOCK);
		trawl_ctl_disconnect(ctl);
		PyThread_release_lock(self->lock);
		Py_END_ALLOW_THREADS
	}
	Py_RETURN_NONE;
}

static PyObject *Ctl_is_root_daemon(CtlObject *self, PyObject *unused)
{
	if (py_ctl_ready(self))
		return NULL;
	return PyBool_FromLong(trawl_ctl_is_root_daemon(self->ctl));
}

static PyObject *Ctl_daemon_quit(CtlObject *self, PyObject *unused)
{
	int ret;

	if (py_ctl_ready(self))
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_daemon_quit(self->ctl));
	return py_none_result(self, ret);
}

/* create_session(name=None, output=None, no_output=False, snapshot=False, live_us=None) */
static PyObject *Ctl_create_session(CtlObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"name", "output", "no_output", "snapshot", "live_us", NULL};
	const char *name = NULL, *output = NULL;
	int no_output = 0, snapshot = 0, ret = 0;
	PyObject *live = Py_None;
	struct trawl_ctl_session_attr *a;
	struct trawl_ctl_list *l = NULL;

	if (py_ctl_ready(self) ||
	    !PyArg_ParseTupleAndKeywords(args, kw, "|zzppO", kwlist, &name, &output, &no_output,
					 &snapshot, &live))
		return NULL;
	a = trawl_ctl_session_attr_create();
	if (!a)
		return PyErr_NoMemory();
	if (name)
		ret = trawl_ctl_session_attr_set_name(a, name);
	if (!ret && output)
		ret = trawl_ctl_session_attr_set_output(a, output);
	if (!ret && no_output)
		ret = trawl_ctl_session_attr_set_no_output(a, 1);
	if (!ret && snapshot)
		ret = trawl_ctl_session_attr_set_snapshot(a, 1);
	if (!ret && live != Py_None) {
		unsigned long us = PyLong_AsUnsignedLong(live);

		if (PyErr_Occurred() || us > UINT32_MAX) {
			trawl_ctl_session_attr_destroy(a);
			if (!PyErr_Occurred())
				PyErr_SetString(PyExc_ValueError, "live_us out of range");
			return NULL;
		}
		ret = trawl_ctl_session_attr_set_live(a, (uint32_t)us);
	}
	if (!ret)
		CTL_CALL(self, ret, trawl_ctl_session_create(self->ctl, a, &l));
	trawl_ctl_session_attr_destroy(a);
	return py_list_result(self, ret, l);
}

/* set_shm_path(session, path): LTTng's set_session_shm_path, as given */
static PyObject *Ctl_set_shm_path(CtlObject *self, PyObject *args)
{
	const char *session, *path;
	int ret;

	if (py_ctl_ready(self) || !PyArg_ParseTuple(args, "ss", &session, &path))
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_session_set_shm_path(self->ctl, session, path));
	return py_none_result(self, ret);
}

/* Methods taking only a session name. */
#define SESSION_METHOD(pyname, call)                                              \
	static PyObject *Ctl_##pyname(CtlObject *self, PyObject *args)            \
	{                                                                         \
		const char *session;                                              \
		int ret;                                                          \
		if (py_ctl_ready(self) || !PyArg_ParseTuple(args, "s", &session))    \
			return NULL;                                              \
		CTL_CALL(self, ret, call(self->ctl, session));                    \
		return py_none_result(self, ret);                                    \
	}

SESSION_METHOD(destroy_session, trawl_ctl_session_destroy)
SESSION_METHOD(start, trawl_ctl_session_start)
SESSION_METHOD(stop, trawl_ctl_session_stop)
SESSION_METHOD(clear, trawl_ctl_session_clear)
SESSION_METHOD(regenerate_metadata, trawl_ctl_regenerate_metadata)
SESSION_METHOD(regenerate_statedump, trawl_ctl_regenerate_statedump)

static PyObject *Ctl_destroy_all(CtlObject *self, PyObject *unused)
{
	int ret;

	if (py_ctl_ready(self))
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_session_destroy_all(self->ctl));
	return py_none_result(self, ret);
}

static PyObject *Ctl_rotate(CtlObject *self, PyObject *args)
{
	struct trawl_ctl_list *l = NULL;
	const char *session;
	int ret;

	if (py_ctl_ready(self) || !PyArg_ParseTuple(args, "s", &session))
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_session_rotate(self->ctl, session, &l));
	return py_list_result(self, ret, l);
}

/* rotation_schedule(session, kind, value=None): value None removes it. */
static PyObject *Ctl_rotation_schedule(CtlObject *self, PyObject *args)
{
	const char *session;
	PyObject *value = Py_None;
	int kind, ret;

	if (py_ctl_ready(self) ||
	    !PyArg_ParseTuple(args, "sO&|O", &session, py_conv_rotation, &kind, &value))
		return NULL;
	if (value == Py_None) {
		CTL_CALL(self, ret, trawl_ctl_rotation_schedule_remove(self->ctl, session, kind));
	} else {
		unsigned long long v = PyLong_AsUnsignedLongLong(value);

		if (PyErr_Occurred())
			return NULL;
		CTL_CALL(self, ret,
			 trawl_ctl_rotation_schedule_add(self->ctl, session, kind, (uint64_t)v));
	}
	return py_none_result(self, ret);
}

/* A snapshot output description from keywords; NULL with an exception. */
struct trawl_ctl_snapshot_output *py_snapshot_output(CtlObject *self, const char *name,
							 const char *url, const char *data_url,
							 PyObject *max_size, int *ret)
{
	struct trawl_ctl_snapshot_output *o = trawl_ctl_snapshot_output_create();

	*ret = 0;
	if (!o) {
		PyErr_NoMemory();
		return NULL;
	}
	if (name)
		*ret = trawl_ctl_snapshot_output_set_name(o, name);
	if (!*ret && (url || data_url))
		*ret = trawl_ctl_snapshot_output_set_url(o, url, data_url);
	if (!*ret && max_size != Py_None) {
		unsigned long long v = PyLong_AsUnsignedLongLong(max_size);

		if (PyErr_Occurred()) {
			trawl_ctl_snapshot_output_destroy(o);
			return NULL;
		}
		*ret = trawl_ctl_snapshot_output_set_max_size(o, (uint64_t)v);
	}
	if (*ret) {
		trawl_ctl_snapshot_output_destroy(o);
		py_raise_ret(NULL, *ret);
		return NULL;
	}
	return o;
}

/* snapshot_record(session, name=None, url=None, data_url=None, max_size=None) */
static PyObject *Ctl_snapshot_record(CtlObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"session", "name", "url", "data_url", "max_size", NULL};
	const char *session, *name = NULL, *url = NULL, *data_url = NULL;
	PyObject *max_size = Py_None;
	struct trawl_ctl_snapshot_output *o = NULL;
	struct trawl_ctl_list *l = NULL;
	int ret;

	if (py_ctl_ready(self) || !PyArg_ParseTupleAndKeywords(args, kw, "s|zzzO", kwlist, &session,
							     &name, &url, &data_url, &max_size))
		return NULL;
	if (name || url || data_url || max_size != Py_None) {
		o = py_snapshot_output(self, name, url, data_url, max_size, &ret);
		if (!o)
			return NULL;
	}
	CTL_CALL(self, ret, trawl_ctl_snapshot_record_output(self->ctl, session, o, &l));
	trawl_ctl_snapshot_output_destroy(o);
	return py_list_result(self, ret, l);
}

/* snapshot_add_output(session, url, name=None, data_url=None, max_size=None) */
static PyObject *Ctl_snapshot_add_output(CtlObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"session", "url", "name", "data_url", "max_size", NULL};
	const char *session, *name = NULL, *url, *data_url = NULL;
	PyObject *max_size = Py_None;
	struct trawl_ctl_snapshot_output *o;
	struct trawl_ctl_list *l = NULL;
	int ret;

	if (py_ctl_ready(self) || !PyArg_ParseTupleAndKeywords(args, kw, "ss|zzO", kwlist, &session,
							     &url, &name, &data_url, &max_size))
		return NULL;
	o = py_snapshot_output(self, name, url, data_url, max_size, &ret);
	if (!o)
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_snapshot_add_output(self->ctl, session, o, &l));
	trawl_ctl_snapshot_output_destroy(o);
	return py_list_result(self, ret, l);
}

/* snapshot_del_output(session, id_or_name) */
static PyObject *Ctl_snapshot_del_output(CtlObject *self, PyObject *args)
{
	const char *session, *name = NULL;
	PyObject *which;
	uint32_t id = 0;
	int ret;

	if (py_ctl_ready(self) || !PyArg_ParseTuple(args, "sO", &session, &which))
		return NULL;
	if (PyLong_Check(which)) {
		unsigned long v = PyLong_AsUnsignedLong(which);

		if (PyErr_Occurred() || v == 0 || v > UINT32_MAX) {
			PyErr_Clear();
			PyErr_SetString(PyExc_ValueError, "an output id is 1 or more");
			return NULL;
		}
		id = (uint32_t)v;
	} else if (!(name = PyUnicode_Check(which) ? PyUnicode_AsUTF8(which) : NULL)) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_TypeError, "an output is named by its id or name");
		return NULL;
	}
	CTL_CALL(self, ret, trawl_ctl_snapshot_del_output(self->ctl, session, id, name));
	return py_none_result(self, ret);
}

static PyObject *Ctl_snapshot_outputs(CtlObject *self, PyObject *args)
{
	struct trawl_ctl_list *l = NULL;
	const char *session;
	int ret;

	if (py_ctl_ready(self) || !PyArg_ParseTuple(args, "s", &session))
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_snapshot_list_outputs(self->ctl, session, &l));
	return py_list_result(self, ret, l);
}

/* Sets an unsigned attribute from @o unless it is None; 0, or -1 with an exception. */
int py_opt_u64(PyObject *o, uint64_t max, const char *what, uint64_t *out, int *given)
{
	unsigned long long v;

	*given = 0;
	if (o == Py_None)
		return 0;
	v = PyLong_AsUnsignedLongLong(o);
	if (PyErr_Occurred())
		return -1;
	if (v > max) {
		PyErr_Format(PyExc_ValueError, "%s out of range", what);
		return -1;
	}
	*out = v;
	*given = 1;
	return 0;
}

/* A blocking timeout: an int of µs (-1: infinite) or "inf"; -1 with an
 * exception set if neither. */
static int opt_blocking(PyObject *o, int64_t *us)
{
	long long v;

	if (PyUnicode_Check(o)) {
		const char *s = PyUnicode_AsUTF8(o);

		if (s && !strcmp(s, "inf")) {
			*us = TRAWL_CTL_BLOCKING_INF;
			return 0;
		}
		if (s)
			PyErr_SetString(PyExc_ValueError, "blocking_timeout_us: microseconds, -1 or 'inf'");
		return -1;
	}
	v = PyLong_AsLongLong(o);
	if (v == -1 && PyErr_Occurred())
		return -1;
	if (v < TRAWL_CTL_BLOCKING_INF || v > TRAWL_CTL_BLOCKING_MAX_US) {
		PyErr_SetString(PyExc_ValueError, "blocking_timeout_us out of range");
		return -1;
	}
	*us = v;
	return 0;
}

/* enable_channel(session, domain, name, subbuf_size=None, num_subbuf=None,
 *                overwrite=None, switch_timer_us=None, read_timer_us=None, buffers=None,
 *                tracefile_size=None, tracefile_count=None, blocking_timeout_us=None,
 *                monitor_timer_us=None) */
static PyObject *Ctl_enable_channel(CtlObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"session",	    "domain",	       "name",
				 "subbuf_size",	    "num_subbuf",      "overwrite",
				 "switch_timer_us", "read_timer_us",   "buffers",
				 "tracefile_size",  "tracefile_count", "blocking_timeout_us",
				 "monitor_timer_us", NULL};
	PyObject *subbuf = Py_None, *num = Py_None, *overwrite = Py_None, *sw = Py_None,
		 *rd = Py_None, *buffers = Py_None, *tfs = Py_None, *tfc = Py_None,
		 *blocking = Py_None, *monitor = Py_None;
	int64_t bl;
	const char *session, *name;
	struct trawl_ctl_channel_attr *a;
	uint64_t v = 0;
	int domain, given, ret = 0;

	if (py_ctl_ready(self) ||
	    !PyArg_ParseTupleAndKeywords(args, kw, "sO&s|OOOOOOOOOO", kwlist, &session,
					 py_conv_domain, &domain, &name, &subbuf, &num, &overwrite,
					 &sw, &rd, &buffers, &tfs, &tfc, &blocking, &monitor))
		return NULL;
	a = trawl_ctl_channel_attr_create(name);
	if (!a)
		return py_raise_ret(NULL, -errno);
	if (py_opt_u64(subbuf, UINT64_MAX, "subbuf_size", &v, &given))
		goto err;
	if (given)
		ret = trawl_ctl_channel_attr_set_subbuf_size(a, v);
	if (!ret && py_opt_u64(num, UINT32_MAX, "num_subbuf", &v, &given))
		goto err;
	if (!ret && given)
		ret = trawl_ctl_channel_attr_set_num_subbuf(a, (uint32_t)v);
	if (!ret && overwrite != Py_None) {
		int o = PyObject_IsTrue(overwrite);

		if (o < 0)
			goto err;
		ret = trawl_ctl_channel_attr_set_overwrite(a, o);
	}
	if (!ret && py_opt_u64(sw, UINT32_MAX, "switch_timer_us", &v, &given))
		goto err;
	if (!ret && given)
		ret = trawl_ctl_channel_attr_set_switch_timer(a, (uint32_t)v);
	if (!ret && py_opt_u64(rd, UINT32_MAX, "read_timer_us", &v, &given))
		goto err;
	if (!ret && given)
		ret = trawl_ctl_channel_attr_set_read_timer(a, (uint32_t)v);
	if (!ret && buffers != Py_None) {
		int b;

		if (!py_conv_buffers(buffers, &b))
			goto err;
		ret = trawl_ctl_channel_attr_set_buffers(a, b);
	}
	if (!ret && py_opt_u64(tfs, UINT64_MAX, "tracefile_size", &v, &given))
		goto err;
	if (!ret && given)
		ret = trawl_ctl_channel_attr_set_tracefile_size(a, v);
	if (!ret && py_opt_u64(tfc, UINT32_MAX, "tracefile_count", &v, &given))
		goto err;
	if (!ret && given)
		ret = trawl_ctl_channel_attr_set_tracefile_count(a, (uint32_t)v);
	if (!ret && blocking != Py_None) {
		if (opt_blocking(blocking, &bl))
			goto err;
		ret = trawl_ctl_channel_attr_set_blocking_timeout(a, bl);
	}
	if (!ret && py_opt_u64(monitor, TRAWL_CTL_MONITOR_MAX_US, "monitor_timer_us", &v, &given))
		goto err;
	if (!ret && given)
		ret = trawl_ctl_channel_attr_set_monitor_timer(a, v);
	if (!ret)
		CTL_CALL(self, ret, trawl_ctl_channel_enable(self->ctl, session, domain, a));
	trawl_ctl_channel_attr_destroy(a);
	return py_none_result(self, ret);
err:
	trawl_ctl_channel_attr_destroy(a);
	return NULL;
}

static PyObject *Ctl_disable_channel(CtlObject *self, PyObject *args)
{
	const char *session, *name;
	int domain, ret;

	if (py_ctl_ready(self) ||
	    !PyArg_ParseTuple(args, "sO&s", &session, py_conv_domain, &domain, &name))
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_channel_disable(self->ctl, session, domain, name));
	return py_none_result(self, ret);
}

/* An event rule from keywords; NULL with an exception. */
/* An agent domain's log level: its name ("INFO", "JUL_INFO") or a number. */
static int agent_loglevel(int domain, PyObject *o, int *level)
{
	const char *s;

	if (PyLong_Check(o)) {
		long l = PyLong_AsLong(o);

		if (l >= INT_MIN && l <= INT_MAX && !PyErr_Occurred()) {
			*level = (int)l;
			return 1;
		}
	} else if (PyUnicode_Check(o) && (s = PyUnicode_AsUTF8(o)) &&
		   !trawl_ctl_agent_loglevel_parse((enum trawl_ctl_domain)domain, s, level)) {
		return 1;
	}
	if (!PyErr_Occurred())
		PyErr_Format(PyExc_ValueError, "unknown log level: %R", o);
	return 0;
}

static struct trawl_ctl_event *event_rule(int domain, int kind, const char *name,
					  const char *target, const char *filter,
					  PyObject *lltype, PyObject *ll, PyObject *exclude)
{
	struct trawl_ctl_event *ev = trawl_ctl_event_create(kind, name);
	int ret = 0;

	if (!ev) {
		py_raise_ret(NULL, -errno);
		return NULL;
	}
	if (exclude != Py_None) {
		PyObject *seq = PySequence_Fast(exclude, "exclude: a sequence of names");

		if (!seq || PyUnicode_Check(exclude)) {
			if (seq)
				PyErr_SetString(PyExc_TypeError, "exclude: a sequence of names, not a str");
			Py_XDECREF(seq);
			trawl_ctl_event_destroy(ev);
			return NULL;
		}
		for (Py_ssize_t i = 0; !ret && i < PySequence_Fast_GET_SIZE(seq); i++) {
			const char *x = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));

			if (!x) {
				Py_DECREF(seq);
				trawl_ctl_event_destroy(ev);
				return NULL;
			}
			ret = trawl_ctl_event_add_exclusion(ev, x);
		}
		Py_DECREF(seq);
	}
	if (!ret && target)
		ret = trawl_ctl_event_set_target(ev, target);
	if (!ret && filter)
		ret = trawl_ctl_event_set_filter(ev, filter);
	if (!ret && ll != Py_None) {
		int type = TRAWL_CTL_LOGLEVEL_RANGE, level;

		if ((lltype != Py_None && !py_conv_loglevel_type(lltype, &type)) ||
		    !(domain >= TRAWL_CTL_DOMAIN_JUL ? agent_loglevel(domain, ll, &level)
						     : py_conv_loglevel(ll, &level))) {
			trawl_ctl_event_destroy(ev);
			return NULL;
		}
		ret = trawl_ctl_event_set_loglevel(ev, type, level);
	}
	if (ret) {
		trawl_ctl_event_destroy(ev);
		py_raise_ret(NULL, ret);
		return NULL;
	}
	return ev;
}

/* enable_event(session, domain, name, channel=None, kind="tracepoint", target=None,
 *              filter=None, loglevel=None, loglevel_type=None, exclude=None) */
static PyObject *Ctl_enable_event(CtlObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"session", "domain", "name",	  "channel",	   "kind",
				 "target",  "filter", "loglevel", "loglevel_type", "exclude",
				 NULL};
	const char *session, *name, *channel = NULL, *target = NULL, *filter = NULL;
	PyObject *ll = Py_None, *lltype = Py_None, *exclude = Py_None;
	int domain, kind = TRAWL_CTL_EVENT_TRACEPOINT, ret;
	struct trawl_ctl_event *ev;

	if (py_ctl_ready(self) ||
	    !PyArg_ParseTupleAndKeywords(args, kw, "sO&s|zO&zzOOO", kwlist, &session, py_conv_domain,
					 &domain, &name, &channel, py_conv_kind, &kind, &target,
					 &filter, &ll, &lltype, &exclude))
		return NULL;
	ev = event_rule(domain, kind, name, target, filter, lltype, ll, exclude);
	if (!ev)
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_event_enable(self->ctl, session, domain, channel, ev));
	trawl_ctl_event_destroy(ev);
	return py_none_result(self, ret);
}

/* disable_event(session, domain, name, channel=None, kind="tracepoint") */
static PyObject *Ctl_disable_event(CtlObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"session", "domain", "name", "channel", "kind", NULL};
	const char *session, *name, *channel = NULL;
	int domain, kind = TRAWL_CTL_EVENT_TRACEPOINT, ret;
	struct trawl_ctl_event *ev;

	if (py_ctl_ready(self) ||
	    !PyArg_ParseTupleAndKeywords(args, kw, "sO&s|zO&", kwlist, &session, py_conv_domain,
					 &domain, &name, &channel, py_conv_kind, &kind))
		return NULL;
	ev = event_rule(domain, kind, name, NULL, NULL, Py_None, Py_None, Py_None);
	if (!ev)
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_event_disable(self->ctl, session, domain, channel, ev));
	trawl_ctl_event_destroy(ev);
	return py_none_result(self, ret);
}

/* add_context(session, domain, context, channel=None) */
static PyObject *Ctl_add_context(CtlObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"session", "domain", "context", "channel", NULL};
	const char *session, *context, *channel = NULL;
	int domain, ret;

	if (py_ctl_ready(self) || !PyArg_ParseTupleAndKeywords(args, kw, "sO&s|z", kwlist, &session,
							     py_conv_domain, &domain, &context,
							     &channel))
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_context_add(self->ctl, session, domain, channel, context));
	return py_none_result(self, ret);
}

/* track(session, domain, attr, value) / untrack(...): value None = all. */
static PyObject *tracker_call(CtlObject *self, PyObject *args, int add)
{
	const char *session;
	PyObject *value;
	int domain, attr, ret;

	if (py_ctl_ready(self) || !PyArg_ParseTuple(args, "sO&O&O", &session, py_conv_domain, &domain,
						 py_conv_attr, &attr, &value))
		return NULL;
	if (value == Py_None) {
		if (add)
			CTL_CALL(self, ret, trawl_ctl_track_all(self->ctl, session, domain, attr));
		else
			CTL_CALL(self, ret, trawl_ctl_untrack_all(self->ctl, session, domain, attr));
	} else {
		unsigned long v = PyLong_AsUnsignedLong(value);

		if (PyErr_Occurred())
			return NULL;
		if (v > UINT32_MAX) {
			PyErr_SetString(PyExc_ValueError, "an ID fits in 32 bits");
			return NULL;
		}
		if (add)
			CTL_CALL(self, ret,
				 trawl_ctl_track(self->ctl, session, domain, attr, (uint32_t)v));
		else
			CTL_CALL(self, ret,
				 trawl_ctl_untrack(self->ctl, session, domain, attr, (uint32_t)v));
	}
	return py_none_result(self, ret);
}

static PyObject *Ctl_track(CtlObject *self, PyObject *args)
{
	return tracker_call(self, args, 1);
}

static PyObject *Ctl_untrack(CtlObject *self, PyObject *args)
{
	return tracker_call(self, args, 0);
}

static PyObject *Ctl_list_sessions(CtlObject *self, PyObject *unused)
{
	struct trawl_ctl_list *l = NULL;
	int ret;

	if (py_ctl_ready(self))
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_list_sessions(self->ctl, &l));
	return py_list_result(self, ret, l);
}

static PyObject *Ctl_list_session(CtlObject *self, PyObject *args)
{
	struct trawl_ctl_list *l = NULL;
	const char *session;
	int ret;

	if (py_ctl_ready(self) || !PyArg_ParseTuple(args, "s", &session))
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_list_session(self->ctl, session, &l));
	return py_list_result(self, ret, l);
}

/* list_available(domain, kind="tracepoint", fields=False) */
static PyObject *Ctl_list_available(CtlObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"domain", "kind", "fields", NULL};
	int domain, kind = TRAWL_CTL_EVENT_TRACEPOINT, fields = 0, ret;
	struct trawl_ctl_list *l = NULL;

	if (py_ctl_ready(self) || !PyArg_ParseTupleAndKeywords(args, kw, "O&|O&p", kwlist,
							     py_conv_domain, &domain, py_conv_kind,
							     &kind, &fields))
		return NULL;
	CTL_CALL(self, ret, trawl_ctl_list_available(self->ctl, domain, kind, fields, &l));
	return py_list_result(self, ret, l);
}

#define METH(name, flags) {#name, (PyCFunction)(void (*)(void))Ctl_##name, flags, NULL}

static PyMethodDef Ctl_methods[] = {
	METH(close, METH_NOARGS),
	METH(is_root_daemon, METH_NOARGS),
	METH(daemon_quit, METH_NOARGS),
	METH(create_session, METH_VARARGS | METH_KEYWORDS),
	METH(destroy_session, METH_VARARGS),
	METH(set_shm_path, METH_VARARGS),
	METH(destroy_all, METH_NOARGS),
	METH(start, METH_VARARGS),
	METH(stop, METH_VARARGS),
	METH(clear, METH_VARARGS),
	METH(rotate, METH_VARARGS),
	METH(rotation_schedule, METH_VARARGS),
	METH(regenerate_metadata, METH_VARARGS),
	METH(regenerate_statedump, METH_VARARGS),
	METH(snapshot_record, METH_VARARGS | METH_KEYWORDS),
	METH(snapshot_add_output, METH_VARARGS | METH_KEYWORDS),
	METH(snapshot_del_output, METH_VARARGS),
	METH(snapshot_outputs, METH_VARARGS),
	METH(enable_channel, METH_VARARGS | METH_KEYWORDS),
	METH(disable_channel, METH_VARARGS),
	METH(enable_event, METH_VARARGS | METH_KEYWORDS),
	METH(disable_event, METH_VARARGS | METH_KEYWORDS),
	METH(add_context, METH_VARARGS | METH_KEYWORDS),
	METH(track, METH_VARARGS),
	METH(untrack, METH_VARARGS),
	METH(list_sessions, METH_NOARGS),
	METH(list_session, METH_VARARGS),
	METH(list_available, METH_VARARGS | METH_KEYWORDS),
	METH(add_trigger, METH_VARARGS | METH_KEYWORDS),
	METH(remove_trigger, METH_VARARGS | METH_KEYWORDS),
	METH(list_triggers, METH_NOARGS),
	{NULL, NULL, 0, NULL},
};

static PyTypeObject CtlType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "trawl._ctl.Ctl",
	.tp_doc = "A connection to a trawl session daemon (struct trawl_ctl).",
	.tp_basicsize = sizeof(CtlObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = Ctl_new,
	.tp_dealloc = (destructor)Ctl_dealloc,
	.tp_methods = Ctl_methods,
};

/* ---- module functions ---- */

static PyObject *mod_set_error(PyObject *mod, PyObject *cls)
{
	if (!PyType_Check(cls) || !PyObject_IsSubclass(cls, PyExc_OSError)) {
		PyErr_SetString(PyExc_TypeError, "an OSError subclass is needed");
		return NULL;
	}
	Py_XSETREF(trawl_error, Py_NewRef(cls));
	Py_RETURN_NONE;
}

static PyObject *mod_version(PyObject *mod, PyObject *unused)
{
	return PyUnicode_FromString(trawl_ctl_version());
}

static PyObject *mod_current_session(PyObject *mod, PyObject *unused)
{
	char buf[TRAWL_CTL_NAME_MAX];
	int ret = trawl_ctl_current_session_get(buf, sizeof(buf));

	if (ret == -ENOENT)
		Py_RETURN_NONE;
	if (ret < 0)
		return py_raise_ret(NULL, ret);
	return PyUnicode_DecodeFSDefault(buf);
}

static PyObject *mod_set_current_session(PyObject *mod, PyObject *args)
{
	const char *name;

	if (!PyArg_ParseTuple(args, "z", &name))
		return NULL;
	return py_none_result(NULL, name ? trawl_ctl_current_session_set(name)
				      : trawl_ctl_current_session_clear(NULL));
}

static PyObject *mod_loglevel_name(PyObject *mod, PyObject *args)
{
	int level;

	if (!PyArg_ParseTuple(args, "O&", py_conv_loglevel, &level))
		return NULL;
	return PyUnicode_FromString(trawl_ctl_loglevel_name(level));
}

static PyMethodDef mod_methods[] = {
	{"_set_error", mod_set_error, METH_O, NULL},
	{"version", mod_version, METH_NOARGS, "libtrawl-ctl's version."},
	{"current_session", mod_current_session, METH_NOARGS,
	 "The user's current session ($HOME/.trawlrc), or None."},
	{"set_current_session", mod_set_current_session, METH_VARARGS,
	 "Make a session the current one (None: forget it)."},
	{"loglevel_name", mod_loglevel_name, METH_VARARGS, "TRACE_EMERG .. TRACE_DEBUG."},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {
	PyModuleDef_HEAD_INIT,
	.m_name = "trawl._ctl",
	.m_doc = "libtrawl-ctl, call for call (use the `trawl` package).",
	.m_size = -1,
	.m_methods = mod_methods,
};

PyMODINIT_FUNC PyInit__ctl(void);
PyMODINIT_FUNC PyInit__ctl(void)
{
	PyObject *m;

	if (PyType_Ready(&CtlType) < 0 || PyType_Ready(&py_notification_channel_type) < 0)
		return NULL;
	m = PyModule_Create(&moddef);
	if (!m)
		return NULL;
	if (PyModule_AddObjectRef(m, "Ctl", (PyObject *)&CtlType) < 0 ||
	    PyModule_AddObjectRef(m, "NotificationChannel", (PyObject *)&py_notification_channel_type) < 0 ||
	    PyModule_AddIntConstant(m, "NAME_MAX", TRAWL_CTL_NAME_MAX) < 0 ||
	    PyModule_AddIntConstant(m, "TRACKER_MAX_VALUES", TRAWL_CTL_TRACKER_MAX_VALUES) < 0 ||
	    PyModule_AddIntConstant(m, "LIVE_TIMER_DEFAULT", TRAWL_CTL_LIVE_TIMER_DEFAULT) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
