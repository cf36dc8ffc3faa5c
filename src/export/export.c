/* SPDX-License-Identifier: MIT */
/*
 * export.c - the one pass of `trawl export` and `trawl timeline`: open the
 * traces, hand each event to the format, write its output in 1 MiB pieces.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export_int.h"
#include "jsonw.h"

static const struct {
	const char *name;
	enum trawl_export_format format;
	const struct export_ops *ops;
} formats[] = {
	{"jsonl", TRAWL_EXPORT_JSONL, &export_jsonl_ops},
	{"chrome-json", TRAWL_EXPORT_CHROME_JSON, &export_chrome_ops},
	{"perfetto", TRAWL_EXPORT_PERFETTO, &export_perfetto_ops},
	{"timeline", TRAWL_EXPORT_TIMELINE, &export_timeline_ops},
};

int trawl_export_format_parse(const char *name, enum trawl_export_format *out)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (!strcmp(name, formats[i].name)) {
			*out = formats[i].format;
			return 0;
		}
	}
	return -EINVAL;
}

static const struct export_ops *ops_of(enum trawl_export_format f)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].format == f)
			return formats[i].ops;
	return NULL;
}

int export_flush(struct export_run *x, bool force)
{
	size_t off = 0;

	if (!force && x->out.len < EXPORT_FLUSH_AT)
		return 0;
	while (off < x->out.len && !x->write_failed) {
		ssize_t n = write(x->fd, x->out.data + off, x->out.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (errno != EPIPE)
				fprintf(stderr, "%s: cannot write %s: %s\n", x->o->cmd,
					x->o->output ? x->o->output : "the output", strerror(errno));
			x->write_failed = true;
			break;
		}
		off += (size_t)n;
	}
	x->out.len = 0;
	return x->write_failed ? -EIO : 0;
}

/* Losses are said as babeltrace2 says them: an export hides none. */
static void on_discarded(void *arg, const struct trawl_reader_discarded *d)
{
	struct export_run *x = arg;
	struct trawl_reader_buf t = {0};

	if (!trawl_reader_discarded_append_text(x->r, d, &t))
		fwrite(t.data, 1, t.len, stderr);
	free(t.data);
}

static int export_loop(struct export_run *x, const struct export_ops *ops)
{
	int ret;

	ret = ops->begin ? ops->begin(x) : 0;
	while (!ret && (ret = trawl_reader_next(x->r)) > 0) {
		ret = ops->event(x);
		if (!ret)
			ret = export_flush(x, false);
	}
	if (!ret && ops->end)
		ret = ops->end(x);
	if (!ret)
		ret = export_flush(x, true);
	return ret;
}

int trawl_export_run(const struct trawl_export_opts *o)
{
	const struct export_ops *ops = ops_of(o->format);
	struct export_run x = {.o = o, .fd = STDOUT_FILENO};
	bool regular = false;
	struct stat st;
	int ret, rc = 1;

	if (!ops) {
		fprintf(stderr, "%s: unknown format\n", o->cmd);
		return 1;
	}
	ret = trawl_reader_open(o->paths, o->npaths, &x.r);
	if (ret) {
		fprintf(stderr, "%s: %s\n", o->cmd,
			x.r && *trawl_reader_error(x.r) ? trawl_reader_error(x.r) : strerror(-ret));
		goto out;
	}
	if (!ops->needs_fields)
		trawl_reader_set_flags(x.r, TRAWL_READER_NO_FIELDS);
	trawl_reader_set_discarded_cb(x.r, on_discarded, &x);
	if (o->output) {
		x.fd = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (x.fd < 0) {
			fprintf(stderr, "%s: cannot create %s: %s\n", o->cmd, o->output,
				strerror(errno));
			goto out;
		}
		/* only a regular file is removed on failure: -o /dev/null as
		 * root must not unlink the device */
		regular = !fstat(x.fd, &st) && S_ISREG(st.st_mode);
	}
	signal(SIGPIPE, SIG_IGN);
	ret = export_loop(&x, ops);
	if (ret == -EIO && x.write_failed) {
		/* said by export_flush() (or a closed pipe: nothing to say) */
	} else if (ret < 0) {
		fprintf(stderr, "%s: %s\n", o->cmd,
			*trawl_reader_error(x.r) ? trawl_reader_error(x.r) : strerror(-ret));
	} else {
		rc = 0;
	}
	if (o->output) {
		if (close(x.fd) && !rc) {
			fprintf(stderr, "%s: cannot write %s: %s\n", o->cmd, o->output,
				strerror(errno));
			rc = 1;
		}
		/* a half-written file would look like a whole one to a viewer */
		if (rc && regular)
			unlink(o->output);
	}
out:
	if (ops->destroy)
		ops->destroy(&x);
	trawl_reader_destroy(x.r);
	free(x.out.data);
	return rc;
}

/* ---- jsonl: one JSON object per event ------------------------------------- */

static int jsonl_begin(struct export_run *x)
{
	x->fmt = jsonw_names_create();
	return x->fmt ? 0 : -ENOMEM;
}

static int jsonl_event(struct export_run *x)
{
	return jsonw_event(x->r, &x->out, x->fmt);
}

static void jsonl_destroy(struct export_run *x)
{
	jsonw_names_destroy(x->fmt);
	x->fmt = NULL;
}

const struct export_ops export_jsonl_ops = {
	.begin = jsonl_begin,
	.event = jsonl_event,
	.destroy = jsonl_destroy,
	.needs_fields = true,
};
