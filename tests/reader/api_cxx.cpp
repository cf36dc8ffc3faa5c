// SPDX-License-Identifier: MIT
// <trawl/reader.h> compiles as C++ (warnings as errors, -Wshadow: no name
// hides another) and works from C++: a trace read with a text line, the
// fields of each event walked, and a discarded-record callback.
// Usage: reader-api-cxx CORPUS_DIR
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <trawl/reader.h>

static int fields_seen;

static void walk(const trawl_reader_field *f)
{
	fields_seen++;
	for (size_t i = 0; i < trawl_reader_field_count(f); i++)
		walk(trawl_reader_field_at(f, i));
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	std::string path = std::string(argv[1]) + "/succeed/wk-heartbeat-u";
	const char *paths[] = { path.c_str() };
	trawl_reader *r = nullptr;
	trawl_reader_buf line = {};
	trawl_reader_text_options o;
	int n = 0, ret;

	if (trawl_reader_open(paths, 1, &r) != 0)
		return 1;
	trawl_reader_text_options_init(&o);
	o.flags |= TRAWL_READER_TEXT_CLOCK_GMT;
	trawl_reader_set_text_options(r, &o);
	trawl_reader_set_discarded_cb(r, [](void *, const trawl_reader_discarded *) {}, nullptr);
	while ((ret = trawl_reader_next(r)) > 0) {
		const trawl_reader_field *payload;

		line.len = 0;
		if (trawl_reader_event_append_line(r, &line) != 0)
			return 1;
		if (trawl_reader_event_field(r, TRAWL_READER_SCOPE_EVENT_PAYLOAD, &payload) != 0)
			return 1;
		walk(payload);
		const trawl_reader_field *msg = trawl_reader_field_member(payload, "msg");
		if (!msg || std::strcmp(trawl_reader_field_string(msg, nullptr), "heartbeat"))
			return 1;
		const char *fast = nullptr;
		int idx = trawl_reader_event_class_field_index(trawl_reader_event_class_of(r),
							       TRAWL_READER_SCOPE_EVENT_PAYLOAD, "msg");
		if (trawl_reader_event_string(r, TRAWL_READER_SCOPE_EVENT_PAYLOAD, idx, &fast,
					      nullptr) != 0 || std::strcmp(fast, "heartbeat"))
			return 1;
		const trawl_reader_member want[1] = { { TRAWL_READER_SCOPE_EVENT_PAYLOAD, idx } };
		trawl_reader_value got[1];
		if (trawl_reader_event_read(r, want, 1, got) != 0 || got[0].ret != 0 ||
		    std::strcmp(got[0].str, "heartbeat"))
			return 1;
		trawl_reader_selection *sel = nullptr;
		if (trawl_reader_event_class_field_kind(trawl_reader_event_class_of(r),
							TRAWL_READER_SCOPE_EVENT_PAYLOAD, idx) !=
			    TRAWL_READER_FIELD_STRING ||
		    trawl_reader_selection_create(trawl_reader_event_class_of(r), want, 1, &sel) != 0)
			return 1;
		int sret = trawl_reader_event_read_selection(r, sel, got);
		trawl_reader_selection_destroy(sel);
		if (sret != 0 || got[0].ret != 0 || std::strcmp(got[0].str, "heartbeat"))
			return 1;
		n++;
	}
	std::free(line.data);
	trawl_reader_destroy(r);
	if (ret != 0 || n != 20 || fields_seen != 40)
		return 1;
	std::printf("C++: 20 events, %d fields\n", fields_seen);
	return 0;
}
