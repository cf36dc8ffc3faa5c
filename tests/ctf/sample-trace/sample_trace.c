/* SPDX-License-Identifier: MIT */
/*
 * sample-trace: writes a small, realistic CTF 1.8 trace with the tests' writer,
 * shaped like what the user-space tracer records for a traced program: a web
 * server on two CPUs handling requests, with LTTng-UST's usual event context
 * (vpid, vtid, procname) and the trace layout LTTng uses
 * (DIR/metadata, DIR/channel0_<cpu>, DIR/index/channel0_<cpu>.idx).
 *
 *   sample-trace DIR [REQUESTS]
 *
 * The timestamps are the monotonic clock at start plus a deterministic
 * schedule (the random numbers come from a fixed seed), so two runs differ
 * only by their start time and uuid.
 */
#include "ctf/ctf.h"
#include "ctf_stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

enum {
	EV_REQUEST_BEGIN,
	EV_REQUEST_END,
	EV_CACHE_LOOKUP,
	EV_LOG,
	NR_CPUS = 2,
};

static const char *const methods[] = { "GET", "POST", "PUT", "DELETE" };
static const char *const paths[] = { "/", "/index.html", "/api/v1/users", "/api/v1/orders",
				     "/static/app.js", "/caf\xc3\xa9/men\xc3\xbc" };

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static struct trawl_ctf_type *u(unsigned bits)
{
	return trawl_ctf_type_integer_create(bits, 0, 8);
}

static struct trawl_ctf_type *s(unsigned bits)
{
	return trawl_ctf_type_integer_create(bits, 1, 8);
}

static struct trawl_ctf_type *hex(unsigned bits)
{
	struct trawl_ctf_type *t = u(bits);

	if (t)
		trawl_ctf_type_integer_set_base(t, 16);
	return t;
}

/* Adds a field; remembers the first error in *err (types are taken either way). */
static void field(struct trawl_ctf_type *st, const char *name, struct trawl_ctf_type *t, int *err)
{
	int ret = trawl_ctf_type_struct_add(st, name, t);

	if (ret && !*err)
		*err = ret;
}

static int add_event(struct trawl_ctf_trace *t, const char *name, uint32_t id, int loglevel,
		     struct trawl_ctf_type *payload)
{
	return trawl_ctf_trace_add_event_class(t, &(struct trawl_ctf_event_class_desc){
		.name = name, .id = id, .stream_id = 0, .loglevel = loglevel }, payload);
}

static int describe(struct trawl_ctf_trace *t)
{
	struct trawl_ctf_type *ctx, *p, *e, *procname;
	struct utsname un;
	char date[32];
	time_t now = time(NULL);
	int err = 0;

	if (uname(&un))
		strcpy(un.nodename, "localhost");
	strftime(date, sizeof(date), "%Y%m%dT%H%M%S+0000", gmtime(&now));
	err = trawl_ctf_trace_env_add_string(t, "hostname", un.nodename);
	err = err ?: trawl_ctf_trace_env_add_string(t, "domain", "ust");
	err = err ?: trawl_ctf_trace_env_add_string(t, "tracer_name", "trawl");
	err = err ?: trawl_ctf_trace_env_add_int(t, "tracer_major", 0);
	err = err ?: trawl_ctf_trace_env_add_int(t, "tracer_minor", 1);
	err = err ?: trawl_ctf_trace_env_add_int(t, "tracer_patchlevel", 0);
	err = err ?: trawl_ctf_trace_env_add_string(t, "trace_name", "sample");
	err = err ?: trawl_ctf_trace_env_add_string(t, "trace_creation_datetime", date);
	err = err ?: trawl_ctf_trace_env_add_string(t, "trace_buffering_scheme", "uid");
	err = err ?: trawl_ctf_trace_env_add_int(t, "architecture_bit_width", 64);
	err = err ?: trawl_ctf_trace_add_monotonic_clock(t);
	if (err)
		return err;

	/* The event context LTTng-UST users add most: vpid, vtid, procname. */
	ctx = trawl_ctf_type_struct_create(8);
	procname = u(8);
	if (!ctx || !procname) {
		trawl_ctf_type_destroy(ctx);
		trawl_ctf_type_destroy(procname);
		return -ENOMEM;
	}
	trawl_ctf_type_integer_set_utf8(procname);
	field(ctx, "vpid", s(32), &err);
	field(ctx, "vtid", s(32), &err);
	field(ctx, "procname", trawl_ctf_type_array_create(procname, 16), &err);
	if (err) {
		trawl_ctf_type_destroy(ctx);
		return err;
	}
	err = trawl_ctf_trace_add_stream_class(t, 0, TRAWL_CTF_HEADER_COMPACT, ctx, "monotonic");
	if (err)
		return err;

	p = trawl_ctf_type_struct_create(8);
	e = trawl_ctf_type_enum_create(u(8));
	if (!p || !e) {
		trawl_ctf_type_destroy(p);
		trawl_ctf_type_destroy(e);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (!err)
			err = trawl_ctf_type_enum_add(e, methods[i], i, i);
	field(p, "request_id", u(64), &err);
	field(p, "method", e, &err);
	field(p, "path", trawl_ctf_type_string_create(), &err);
	field(p, "client_addr", hex(32), &err);
	field(p, "client_port", u(16), &err);
	err = err ?: add_event(t, "sample_http:request_begin", EV_REQUEST_BEGIN, 13, p);

	p = trawl_ctf_type_struct_create(8);
	e = trawl_ctf_type_enum_create(u(16));
	if (!p || !e) {
		trawl_ctf_type_destroy(p);
		trawl_ctf_type_destroy(e);
		return err ?: -ENOMEM;
	}
	err = err ?: trawl_ctf_type_enum_add(e, "OK", 200, 299);
	err = err ?: trawl_ctf_type_enum_add(e, "REDIRECT", 300, 399);
	err = err ?: trawl_ctf_type_enum_add(e, "CLIENT_ERROR", 400, 499);
	err = err ?: trawl_ctf_type_enum_add(e, "SERVER_ERROR", 500, 599);
	field(p, "request_id", u(64), &err);
	field(p, "status", e, &err);
	field(p, "bytes_sent", u(64), &err);
	field(p, "latency_ms", trawl_ctf_type_float_create(64, 8), &err);
	err = err ?: add_event(t, "sample_http:request_end", EV_REQUEST_END, 13, p);

	/* A cache lookup: the probed bucket chain as a sequence of hashes. */
	p = trawl_ctf_type_struct_create(8);
	if (!p)
		return err ?: -ENOMEM;
	field(p, "key", trawl_ctf_type_string_create(), &err);
	field(p, "hit", u(8), &err);
	field(p, "_chain_length", u(32), &err);
	field(p, "chain", trawl_ctf_type_sequence_create(hex(64), "_chain_length"), &err);
	err = err ?: add_event(t, "sample_http:cache_lookup", EV_CACHE_LOOKUP, 14, p);

	/* tracef()-style free text. */
	p = trawl_ctf_type_struct_create(8);
	if (!p)
		return err ?: -ENOMEM;
	field(p, "_msg_length", u(32), &err);
	{
		struct trawl_ctf_type *c = u(8);

		if (c)
			trawl_ctf_type_integer_set_utf8(c);
		field(p, "msg", c ? trawl_ctf_type_sequence_create(c, "_msg_length") : NULL, &err);
	}
	err = err ?: add_event(t, "lttng_ust_tracef:event", EV_LOG, 14, p);
	return err;
}

struct cpu {
	struct trawl_ctf_stream *st;
	int32_t vtid;
	uint64_t ts;
};

static void context(struct cpu *c, int32_t vpid)
{
	static const char name[16] = "sample-httpd";

	trawl_ctf_write_int(c->st, vpid, 32, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_int(c->st, c->vtid, 32, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_bytes(c->st, name, sizeof(name), 8);
	trawl_ctf_event_payload(c->st);
}

static int request(struct cpu *c, int32_t vpid, uint64_t id)
{
	unsigned m = rnd() % 4, pi = rnd() % 6;
	uint32_t status = (uint32_t[]){ 200, 200, 200, 201, 304, 404, 500 }[rnd() % 7];
	uint64_t chain[8];
	uint32_t nchain = rnd() % 5;
	double latency;
	char key[48], msg[96];
	int ret;

	c->ts += 2000 + rnd() % 50000;
	ret = trawl_ctf_event_begin(c->st, EV_REQUEST_BEGIN, c->ts);
	if (ret)
		return ret;
	context(c, vpid);
	trawl_ctf_write_uint(c->st, id, 64, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_uint(c->st, m, 8, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_string(c->st, paths[pi]);
	trawl_ctf_write_uint(c->st, 0xc0a80000u | (rnd() & 0xffff), 32, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_uint(c->st, 1024 + rnd() % 60000, 16, 8, TRAWL_CTF_BO_NATIVE);
	ret = trawl_ctf_event_end(c->st);
	if (ret)
		return ret;

	c->ts += 500 + rnd() % 4000;
	snprintf(key, sizeof(key), "%s %s", methods[m], paths[pi]);
	for (uint32_t i = 0; i < nchain; i++)
		chain[i] = (uint64_t)rnd() << 32 | rnd();
	ret = trawl_ctf_event_begin(c->st, EV_CACHE_LOOKUP, c->ts);
	if (ret)
		return ret;
	context(c, vpid);
	trawl_ctf_write_string(c->st, key);
	trawl_ctf_write_uint(c->st, nchain > 0 && rnd() % 2, 8, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_uint(c->st, nchain, 32, 8, TRAWL_CTF_BO_NATIVE);
	for (uint32_t i = 0; i < nchain; i++)
		trawl_ctf_write_uint(c->st, chain[i], 64, 8, TRAWL_CTF_BO_NATIVE);
	ret = trawl_ctf_event_end(c->st);
	if (ret)
		return ret;

	if (status >= 500) {
		int n = snprintf(msg, sizeof(msg), "upstream timed out for request %llu",
				 (unsigned long long)id);

		c->ts += 100 + rnd() % 1000;
		ret = trawl_ctf_event_begin(c->st, EV_LOG, c->ts);
		if (ret)
			return ret;
		context(c, vpid);
		trawl_ctf_write_uint(c->st, (uint32_t)n, 32, 8, TRAWL_CTF_BO_NATIVE);
		trawl_ctf_write_bytes(c->st, msg, (size_t)n, 8);
		ret = trawl_ctf_event_end(c->st);
		if (ret)
			return ret;
	}

	latency = (double)(rnd() % 200000) / 1000.0 + 0.25;
	c->ts += (uint64_t)(latency * 1e6);
	ret = trawl_ctf_event_begin(c->st, EV_REQUEST_END, c->ts);
	if (ret)
		return ret;
	context(c, vpid);
	trawl_ctf_write_uint(c->st, id, 64, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_uint(c->st, status, 16, 8, TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_uint(c->st, status == 304 ? 0 : 200 + rnd() % 100000, 64, 8,
			     TRAWL_CTF_BO_NATIVE);
	trawl_ctf_write_double(c->st, latency, 8, TRAWL_CTF_BO_NATIVE);
	return trawl_ctf_event_end(c->st);
}

int main(int argc, char **argv)
{
	struct trawl_ctf_trace *t;
	struct cpu cpus[NR_CPUS] = { 0 };
	struct timespec now;
	unsigned long requests = 200;
	char path[4096];
	int32_t vpid = (int32_t)getpid();
	int ret = 0, cret;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: sample-trace DIR [REQUESTS]\n");
		return 2;
	}
	if (argc == 3) {
		char *end;

		requests = strtoul(argv[2], &end, 10);
		if (*end || requests > 10000000) {
			fprintf(stderr, "sample-trace: bad request count: %s\n", argv[2]);
			return 2;
		}
	}
	if (mkdir(argv[1], 0755) && errno != EEXIST) {
		fprintf(stderr, "sample-trace: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	t = trawl_ctf_trace_create(0);
	if (!t) {
		fprintf(stderr, "sample-trace: %s\n", strerror(errno));
		return 1;
	}
	ret = describe(t);
	if (ret)
		goto out_trace;
	if (snprintf(path, sizeof(path), "%s/metadata", argv[1]) >= (int)sizeof(path)) {
		ret = -ENAMETOOLONG;
		goto out_trace;
	}
	ret = trawl_ctf_trace_write_metadata(t, path, 0);
	if (ret)
		goto out_trace;

	clock_gettime(CLOCK_MONOTONIC, &now);
	for (int i = 0; i < NR_CPUS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "channel0_%d", i);
		cpus[i].st = trawl_ctf_stream_create(t, 0, argv[1], name, (uint64_t)i, (uint32_t)i,
						     4096);
		if (!cpus[i].st) {
			ret = -errno;
			goto out_streams;
		}
		cpus[i].vtid = vpid + 1 + i;
		cpus[i].ts = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	}
	for (unsigned long id = 0; id < requests && !ret; id++)
		ret = request(&cpus[rnd() % NR_CPUS], vpid, id + 1);

out_streams:
	for (int i = 0; i < NR_CPUS; i++) {
		cret = trawl_ctf_stream_close(cpus[i].st);
		if (!ret)
			ret = cret;
	}
out_trace:
	trawl_ctf_trace_destroy(t);
	if (ret) {
		fprintf(stderr, "sample-trace: %s\n", strerror(-ret));
		return 1;
	}
	return 0;
}
