// SPDX-License-Identifier: MIT
// <trawl/ctl.h> compiles as C++, its records and enums are usable there, and
// every function it declares links from C++ (each is taken by address).
#include <trawl/ctl.h>

#include <cstdio>
#include <cstring>

namespace {

template <typename T> void *addr(T f)
{
	return reinterpret_cast<void *>(f);
}

void *const functions[] = {
	addr(trawl_ctl_connect), addr(trawl_ctl_disconnect), addr(trawl_ctl_is_root_daemon),
	addr(trawl_ctl_last_error), addr(trawl_ctl_daemon_quit),
	addr(trawl_ctl_session_attr_create), addr(trawl_ctl_session_attr_destroy),
	addr(trawl_ctl_session_attr_set_name), addr(trawl_ctl_session_attr_set_output),
	addr(trawl_ctl_session_attr_set_no_output), addr(trawl_ctl_session_attr_set_snapshot),
	addr(trawl_ctl_session_attr_set_live), addr(trawl_ctl_session_create),
	addr(trawl_ctl_session_destroy), addr(trawl_ctl_session_destroy_all),
	addr(trawl_ctl_session_start), addr(trawl_ctl_session_stop), addr(trawl_ctl_snapshot_record),
	addr(trawl_ctl_current_session_get), addr(trawl_ctl_current_session_set),
	addr(trawl_ctl_current_session_clear), addr(trawl_ctl_channel_attr_create),
	addr(trawl_ctl_channel_attr_destroy), addr(trawl_ctl_channel_attr_set_subbuf_size),
	addr(trawl_ctl_channel_attr_set_num_subbuf), addr(trawl_ctl_channel_attr_set_overwrite),
	addr(trawl_ctl_channel_attr_set_switch_timer), addr(trawl_ctl_channel_attr_set_read_timer),
	addr(trawl_ctl_channel_attr_set_buffers), addr(trawl_ctl_channel_enable),
	addr(trawl_ctl_channel_disable), addr(trawl_ctl_event_create), addr(trawl_ctl_event_destroy),
	addr(trawl_ctl_event_set_target), addr(trawl_ctl_event_set_filter),
	addr(trawl_ctl_event_set_loglevel), addr(trawl_ctl_event_enable),
	addr(trawl_ctl_event_disable), addr(trawl_ctl_context_add), addr(trawl_ctl_list_sessions),
	addr(trawl_ctl_list_session), addr(trawl_ctl_list_available), addr(trawl_ctl_list_destroy),
	addr(trawl_ctl_list_count), addr(trawl_ctl_list_kind), addr(trawl_ctl_list_session_at),
	addr(trawl_ctl_list_domain_at), addr(trawl_ctl_list_channel_at),
	addr(trawl_ctl_list_event_at), addr(trawl_ctl_list_context_at),
	addr(trawl_ctl_list_available_at), addr(trawl_ctl_list_field_at),
	addr(trawl_ctl_list_snapshot_at), addr(trawl_ctl_version), addr(trawl_ctl_loglevel_parse),
	addr(trawl_ctl_loglevel_name), addr(trawl_ctl_agent_loglevel_parse),
	addr(trawl_ctl_agent_loglevel_name),
};

const char *domain_name(trawl_ctl_domain d)
{
	switch (d) {
	case TRAWL_CTL_DOMAIN_KERNEL:
		return "kernel";
	case TRAWL_CTL_DOMAIN_UST:
		return "ust";
	case TRAWL_CTL_DOMAIN_JUL:
		return "jul";
	case TRAWL_CTL_DOMAIN_LOG4J:
		return "log4j";
	case TRAWL_CTL_DOMAIN_PYTHON:
		return "python";
	case TRAWL_CTL_DOMAIN_NONE:
		break;
	}
	return "none";
}

} // namespace

int main()
{
	trawl_ctl_channel_info info;
	trawl_ctl_session_attr *attr = trawl_ctl_session_attr_create();
	char name[TRAWL_CTL_NAME_MAX];

	for (void *f : functions)
		if (!f)
			return 1;
	std::memset(&info, 0, sizeof(info));
	info.struct_size = sizeof(info);
	info.buffers = TRAWL_CTL_BUFFERS_PER_UID;
	if (!attr || trawl_ctl_session_attr_set_name(attr, "cxx") != 0 ||
	    trawl_ctl_session_attr_set_live(attr, TRAWL_CTL_LIVE_TIMER_DEFAULT) != 0)
		return 1;
	trawl_ctl_session_attr_destroy(attr);
	std::snprintf(name, sizeof(name), "%s", domain_name(TRAWL_CTL_DOMAIN_UST));
	return trawl_ctl_version()[0] && info.struct_size == sizeof(info) &&
			       trawl_ctl_loglevel_parse("TRACE_INFO") == 6 && !std::strcmp(name, "ust")
		       ? 0
		       : 1;
}
