/* SPDX-License-Identifier: MIT */
/*
 * ctf.h, ctf_stream.h and layout.h compile as C++ and link from it: a one-event trace,
 * written from C++, that the ctf-header-cxx test reads with babeltrace2.
 */
#include "ctf/ctf.h"
#include "ctf_stream.h"
#include "ctf/layout.h"

#include <cstdio>
#include <string>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	std::string dir = argv[1];
	mkdir(dir.c_str(), 0755);
	trawl_ctf_trace *t = trawl_ctf_trace_create(0);
	trawl_ctf_type *p = trawl_ctf_type_struct_create(8);
	trawl_ctf_event_class_desc d = {};
	d.name = "cxx:ev";
	d.loglevel = -1;
	if (!t || !p || trawl_ctf_trace_add_monotonic_clock(t) ||
	    trawl_ctf_trace_add_stream_class(t, 0, TRAWL_CTF_HEADER_COMPACT, nullptr, "monotonic") ||
	    trawl_ctf_type_struct_add(p, "s", trawl_ctf_type_string_create()) ||
	    trawl_ctf_trace_add_event_class(t, &d, p) ||
	    trawl_ctf_trace_write_metadata(t, (dir + "/metadata").c_str(), 0))
		return 1;
	trawl_ctf_stream *s = trawl_ctf_stream_create(t, 0, dir.c_str(), "chan_0", 0, 0, 4096);
	if (!s || trawl_ctf_event_begin(s, 0, 1) || trawl_ctf_write_string(s, "from C++") ||
	    trawl_ctf_event_end(s) || trawl_ctf_stream_close(s))
		return 1;
	trawl_ctf_trace_destroy(t);
	std::printf("sizeof packet start %zu\n", sizeof(trawl_ctf_packet_start));
	return 0;
}
