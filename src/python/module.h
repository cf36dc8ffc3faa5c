/* SPDX-License-Identifier: MIT */
/*
 * module.h - what the files of the trawl._ctl extension share: module.c
 * (the module, the Ctl type), convert.c (records and argument
 * conversions) and triggers.c (triggers and notification channels). Conventions are
 * module.c's: a failed call raises trawl.Error through py_raise_ret(), a
 * converter for PyArg_Parse "O&" returns 1 or 0 with an exception set.
 */
#ifndef TRAWL_PYTHON_MODULE_H
#define TRAWL_PYTHON_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <trawl/ctl.h>

#include <stdint.h>

/* A connection (struct trawl_ctl), used by one thread at a time: @lock. */
typedef struct {
	PyObject_HEAD
	struct trawl_ctl *ctl;
	PyThread_type_lock lock;
} CtlObject;

extern PyObject *trawl_error; /* trawl.Error, set by the package at import */

/* Runs @call with the GIL released and the connection's lock held. */
#define CTL_CALL(self, ret, call)                                         \
	do {                                                              \
		Py_BEGIN_ALLOW_THREADS                                    \
		PyThread_acquire_lock((self)->lock, WAIT_LOCK);           \
		(ret) = (call);                                           \
		PyThread_release_lock((self)->lock);                      \
		Py_END_ALLOW_THREADS                                      \
	} while (0)

#define NAME_OF(table, v) \
	((unsigned)(v) < sizeof(table) / sizeof(table[0]) ? table[(unsigned)(v)] : "unknown")

#define PUT_STR(d, k, v) py_put(d, k, PyUnicode_DecodeFSDefault((v) ? (v) : ""))
#define PUT_OPT(d, k, v) py_put(d, k, py_str_or_none(v))
#define PUT_U64(d, k, v) py_put(d, k, PyLong_FromUnsignedLongLong((unsigned long long)(v)))
#define PUT_INT(d, k, v) py_put(d, k, PyLong_FromLong((long)(v)))
#define PUT_BOOL(d, k, v) py_put(d, k, PyBool_FromLong((v) != 0))
#define PUT_NAME(d, k, t, v) py_put(d, k, PyUnicode_FromString(NAME_OF(t, v)))

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Names of <trawl/ctl-types.h>'s values, by value. */
extern const char *const domain_names[6];
extern const char *const condition_names[5];
extern const char *const action_names[5];
extern const char *const rate_names[2];

/* Raises trawl.Error for @ret (< 0) after a call on @self (NULL: no line); NULL. */
PyObject *py_raise_ret(CtlObject *self, int ret);
/* 0, or -1 with ValueError if the connection is closed. */
int py_ctl_ready(CtlObject *self);
/* Sets d[key] = value (stolen; NULL: an exception is set). 0 or 1 (failed). */
int py_put(PyObject *d, const char *key, PyObject *value);
PyObject *py_str_or_none(const char *s);
/* "a,b" as ["a", "b"] ("" as []). */
PyObject *py_split_names(const char *s);
/* A call's result: raises for @ret < 0, else @l as [(kind, dict)] (freed). */
PyObject *py_list_result(CtlObject *self, int ret, struct trawl_ctl_list *l);
PyObject *py_none_result(CtlObject *self, int ret);
/* @o (a name of @table from @first, or its index) into *@out: 1, or 0 with ValueError. */
int py_lookup(PyObject *o, const char *const *table, size_t n, int first, const char *what,
	      int *out);
int py_conv_domain(PyObject *o, void *p);
int py_conv_kind(PyObject *o, void *p);
int py_conv_loglevel_type(PyObject *o, void *p);
int py_conv_loglevel(PyObject *o, void *p);
int py_conv_attr(PyObject *o, void *p);
int py_conv_buffers(PyObject *o, void *p);
int py_conv_rotation(PyObject *o, void *p);
/* @o (None: *@given 0) as an unsigned at most @max: 0, or -1 with an exception. */
int py_opt_u64(PyObject *o, uint64_t max, const char *what, uint64_t *out, int *given);
/* A snapshot output description from keywords (the caller's to destroy);
 * NULL with an exception (*@ret: the C API's error, or 0). */
struct trawl_ctl_snapshot_output *py_snapshot_output(CtlObject *self, const char *name,
						     const char *url, const char *data_url,
						     PyObject *max_size, int *ret);

/* triggers.c: Ctl's trigger methods, and the NotificationChannel type. */
PyObject *Ctl_add_trigger(CtlObject *self, PyObject *args, PyObject *kw);
PyObject *Ctl_remove_trigger(CtlObject *self, PyObject *args, PyObject *kw);
PyObject *Ctl_list_triggers(CtlObject *self, PyObject *unused);
extern PyTypeObject py_notification_channel_type;

#endif /* TRAWL_PYTHON_MODULE_H */
