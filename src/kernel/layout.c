/* SPDX-License-Identifier: MIT */
/*
 * LTTng-modules' event layout for ftrace records.
 *
 * trawl's kernel traces say they are LTTng-modules 2.13 traces, so the tools
 * built for those (lttng-analyses, Trace Compass) read them by LTTng's event
 * and field names: `sched_switch.next_tid`, `irq_softirq_entry.vec`,
 * `block_rq_issue.tid`, ... The kernel's tracepoints are the same as the ones
 * LTTng-modules instruments, but ftrace records them with the kernel's own
 * TRACE_EVENT fields: other names (`next_pid` for a thread id), other value
 * conventions (`prio` as the kernel's 0..139, where LTTng records
 * prio - MAX_RT_PRIO, so -100..39; block's `rwbs` as text where LTTng records
 * flag bits), other types (`gfp_flags` as unsigned long, LTTng's gfp_t is 32
 * bits) and fields LTTng does not have (block's `ioprio`, `cmd`).
 *
 * The table below gives, for each tracepoint LTTng-modules instruments in the
 * subsystems those tools read, LTTng's event name and its fields in LTTng's
 * order, as "name:type[=source][@derivation]":
 *   type    i8 u8 i16 u16 i32 u32 i64 u64 (decimal), x32 x64 (hex), n16 n32
 *           (network byte order), t16 (16-char text array), str (string),
 *           seq (u8 length + s32 elements)
 *   source  the ftrace field read (default: the same name, else for a
 *           `..tid` name the ftrace `..pid` one: the kernel's "pid" there is
 *           task->pid, a thread id); common_pid is the record header's pid,
 *           which is current->pid, the thread LTTng records as block's `tid`
 *   @prio   value - 100 (MAX_RT_PRIO), as LTTng's `p->prio - MAX_RT_PRIO`
 *   @rwbs   rwbs text -> LTTng's RWBS_FLAG_* bits (rwbs_flags() below)
 *   @fork.* sched_process_fork's fields its ftrace record lacks (fork.c)
 * A field whose source this kernel's record lacks is left out (the record
 * layout varies between kernel versions; LTTng's does too). Fields the
 * ftrace record has and LTTng does not are dropped.
 *
 * How the table was made: LTTng-modules' stable-2.13
 * include/instrumentation/events/{sched,irq,timer,kmem,block,net,power,
 * signal,workqueue,writeback,skb,napi}.h and arch/x86/irq_vectors.h were run
 * through the C preprocessor for Linux 6.18 (LTTNG_KERNEL_VERSION tests
 * resolved, distribution ranges false, CONFIG_LTTNG_EXPERIMENTAL_BITWISE_ENUM
 * off as in LTTng's default build) with the ctf_* field macros printing
 * name and C type; each event's list was then compared with this kernel's
 * tracefs `format` file and the sources and derivations written by hand.
 * Left out on purpose, with why: kmem_mm_page_*'s `page` (a struct page
 * address the record does not carry; `pfn` identifies the page), the
 * `network_header` LTTng decodes from net_dev_queue / netif_receive_skb /
 * netif_rx skbs (a BPF program would have to read the packet), kmalloc's
 * `accounted` (the __GFP_ACCOUNT bit's position varies with the kernel
 * config), sched_switch's `prev_state` as the experimental bitwise enum
 * (LTTng's default build records it as an integer, with the same values as
 * ftrace since Linux 4.15: 0 running, 1 << (state index - 1) otherwise,
 * TASK_REPORT_MAX when preempted).
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct layout {
	const char *sys;     /* ftrace system */
	const char *event;   /* tracepoint name */
	const char *lttng;   /* LTTng's event name */
	const char *fields;  /* LTTng's fields, or NULL: ftrace's are LTTng's */
};

static const struct layout layouts[] = {
	/* sched.h */
	{ "sched", "sched_kthread_stop", "sched_kthread_stop", "comm:t16 tid:i32" },
	{ "sched", "sched_kthread_stop_ret", "sched_kthread_stop_ret", NULL },
	{ "sched", "sched_waking", "sched_waking", "comm:t16 tid:i32 prio:i32@prio target_cpu:i32" },
	{ "sched", "sched_wakeup", "sched_wakeup", "comm:t16 tid:i32 prio:i32@prio target_cpu:i32" },
	{ "sched", "sched_wakeup_new", "sched_wakeup_new",
	  "comm:t16 tid:i32 prio:i32@prio target_cpu:i32" },
	{ "sched", "sched_switch", "sched_switch",
	  "prev_comm:t16 prev_tid:i32 prev_prio:i32@prio prev_state:i64 next_comm:t16 next_tid:i32 "
	  "next_prio:i32@prio" },
	{ "sched", "sched_migrate_task", "sched_migrate_task",
	  "comm:t16 tid:i32 prio:i32@prio orig_cpu:i32 dest_cpu:i32" },
	{ "sched", "sched_process_free", "sched_process_free", "comm:t16 tid:i32 prio:i32@prio" },
	{ "sched", "sched_process_exit", "sched_process_exit",
	  "comm:t16 tid:i32 prio:i32@prio group_dead:u8" },
	{ "sched", "sched_wait_task", "sched_wait_task", "comm:t16 tid:i32 prio:i32@prio" },
	{ "sched", "sched_process_wait", "sched_process_wait", "comm:t16 tid:i32 prio:i32@prio" },
	{ "sched", "sched_process_fork", "sched_process_fork",
	  "parent_comm:t16 parent_tid:i32 parent_pid:i32@fork.parent_pid "
	  "parent_ns_inum:u32@fork.parent_ns child_comm:t16 child_tid:i32 vtids:seq@fork.vtids "
	  "child_pid:i32@fork.child_pid child_ns_inum:u32@fork.child_ns" },
	{ "sched", "sched_process_exec", "sched_process_exec", "filename:str tid:i32 old_tid:i32" },
	{ "sched", "sched_stat_wait", "sched_stat_wait", "comm:t16 tid:i32 delay:u64" },
	{ "sched", "sched_stat_sleep", "sched_stat_sleep", "comm:t16 tid:i32 delay:u64" },
	{ "sched", "sched_stat_iowait", "sched_stat_iowait", "comm:t16 tid:i32 delay:u64" },
	{ "sched", "sched_stat_blocked", "sched_stat_blocked", "comm:t16 tid:i32 delay:u64" },
	{ "sched", "sched_stat_runtime", "sched_stat_runtime", "comm:t16 tid:i32 runtime:u64" },
	/* ftrace's newprio is already min(normal_prio, pi prio): LTTng's pi_task->prio when boosting */
	{ "sched", "sched_pi_setprio", "sched_pi_setprio",
	  "comm:t16 tid:i32 oldprio:i32@prio newprio:i32@prio" },
	/* irq.h (LTTng >= 2.7 names) */
	{ "irq", "irq_handler_entry", "irq_handler_entry", "irq:i32 name:str" },
	{ "irq", "irq_handler_exit", "irq_handler_exit", "irq:i32 ret:i32" },
	{ "irq", "softirq_entry", "irq_softirq_entry", "vec:u32" },
	{ "irq", "softirq_exit", "irq_softirq_exit", "vec:u32" },
	{ "irq", "softirq_raise", "irq_softirq_raise", "vec:u32" },
	/* timer.h */
	{ "timer", "timer_init", "timer_init", "timer:x64" },
	{ "timer", "timer_start", "timer_start",
	  "timer:x64 function:x64 expires:u64 bucket_expiry:u64 now:u64 flags:u32" },
	{ "timer", "timer_expire_entry", "timer_expire_entry",
	  "timer:x64 now:u64 function:x64 baseclk:u64" },
	{ "timer", "timer_expire_exit", "timer_expire_exit", "timer:x64" },
	{ "timer", "timer_cancel", "timer_cancel", "timer:x64" },
	{ "timer", "hrtimer_init", "timer_hrtimer_init", "hrtimer:x64 clockid:i32 mode:u32" },
	{ "timer", "hrtimer_setup", "timer_hrtimer_init", "hrtimer:x64 clockid:i32 mode:u32" },
	{ "timer", "hrtimer_start", "timer_hrtimer_start",
	  "hrtimer:x64 function:x64 expires:i64 softexpires:i64 mode:u32" },
	{ "timer", "hrtimer_expire_entry", "timer_hrtimer_expire_entry",
	  "hrtimer:x64 now:i64 function:x64" },
	{ "timer", "hrtimer_expire_exit", "timer_hrtimer_expire_exit", "hrtimer:x64" },
	{ "timer", "hrtimer_cancel", "timer_hrtimer_cancel", "hrtimer:x64" },
	{ "timer", "itimer_state", "timer_itimer_state",
	  "which:i32 expires:u64 value_sec:i64 value_nsec:i64 interval_sec:i64 interval_nsec:i64" },
	{ "timer", "itimer_expire", "timer_itimer_expire", "which:i32 pid:i32 now:u64" },
	/* kmem.h */
	{ "kmem", "kmalloc", "kmem_kmalloc",
	  "call_site:x64 ptr:x64 bytes_req:u64 bytes_alloc:u64 gfp_flags:u32 node:i32" },
	{ "kmem", "kmem_cache_alloc", "kmem_cache_alloc",
	  "call_site:x64 ptr:x64 bytes_req:u64 bytes_alloc:u64 gfp_flags:u32 node:i32" },
	{ "kmem", "kfree", "kmem_kfree", "call_site:x64 ptr:x64" },
	{ "kmem", "kmem_cache_free", "kmem_cache_free", "call_site:x64 ptr:x64 name:str" },
	{ "kmem", "mm_page_free", "kmem_mm_page_free", "pfn:u64 order:u32" },
	{ "kmem", "mm_page_free_batched", "kmem_mm_page_free_batched", "pfn:u64" },
	{ "kmem", "mm_page_alloc", "kmem_mm_page_alloc",
	  "pfn:u64 order:u32 gfp_flags:u32 migratetype:i32" },
	{ "kmem", "mm_page_alloc_zone_locked", "kmem_mm_page_alloc_zone_locked",
	  "pfn:u64 order:u32 migratetype:i32 percpu_refill:i32" },
	{ "kmem", "mm_page_pcpu_drain", "kmem_mm_page_pcpu_drain",
	  "pfn:u64 order:u32 migratetype:i32" },
	{ "kmem", "mm_page_alloc_extfrag", "kmem_mm_page_alloc_extfrag",
	  "pfn:u64 alloc_order:i32 fallback_order:i32 alloc_migratetype:i32 "
	  "fallback_migratetype:i32 change_ownership:i32" },
	/* block.h: rwbs as flag bits, tid = the thread that made the request */
	{ "block", "block_touch_buffer", "block_touch_buffer", "dev:u32 sector:u64 size:u64" },
	{ "block", "block_dirty_buffer", "block_dirty_buffer", "dev:u32 sector:u64 size:u64" },
	{ "block", "block_rq_requeue", "block_rq_requeue",
	  "dev:u32 sector:u64 nr_sector:u32 rwbs:u32@rwbs" },
	{ "block", "block_rq_complete", "block_rq_complete",
	  "dev:u32 sector:u64 nr_sector:u32 error:i32 rwbs:u32@rwbs" },
	{ "block", "block_rq_error", "block_rq_error",
	  "dev:u32 sector:u64 nr_sector:u32 error:i32 rwbs:u32@rwbs" },
	{ "block", "block_rq_insert", "block_rq_insert",
	  "dev:u32 sector:u64 nr_sector:u32 bytes:u32 tid:i32=common_pid rwbs:u32@rwbs comm:t16" },
	{ "block", "block_rq_issue", "block_rq_issue",
	  "dev:u32 sector:u64 nr_sector:u32 bytes:u32 tid:i32=common_pid rwbs:u32@rwbs comm:t16" },
	{ "block", "block_rq_merge", "block_rq_merge",
	  "dev:u32 sector:u64 nr_sector:u32 bytes:u32 tid:i32=common_pid rwbs:u32@rwbs comm:t16" },
	{ "block", "block_bio_complete", "block_bio_complete",
	  "dev:u32 sector:u64 nr_sector:u32 error:i32 rwbs:u32@rwbs" },
	{ "block", "block_bio_backmerge", "block_bio_backmerge",
	  "dev:u32 sector:u64 nr_sector:u32 rwbs:u32@rwbs tid:i32=common_pid comm:t16" },
	{ "block", "block_bio_frontmerge", "block_bio_frontmerge",
	  "dev:u32 sector:u64 nr_sector:u32 rwbs:u32@rwbs tid:i32=common_pid comm:t16" },
	{ "block", "block_bio_queue", "block_bio_queue",
	  "dev:u32 sector:u64 nr_sector:u32 rwbs:u32@rwbs tid:i32=common_pid comm:t16" },
	{ "block", "block_getrq", "block_getrq",
	  "dev:u32 sector:u64 nr_sector:u32 rwbs:u32@rwbs tid:i32=common_pid comm:t16" },
	{ "block", "block_plug", "block_plug", "tid:i32=common_pid comm:t16" },
	{ "block", "block_unplug", "block_unplug", "nr_rq:i32 tid:i32=common_pid comm:t16" },
	{ "block", "block_split", "block_split",
	  "dev:u32 sector:u64 rwbs:u32@rwbs new_sector:u64 tid:i32=common_pid comm:t16" },
	{ "block", "block_bio_remap", "block_bio_remap",
	  "dev:u32 sector:u64 nr_sector:u32 rwbs:u32@rwbs old_dev:u32 old_sector:u64" },
	{ "block", "block_rq_remap", "block_rq_remap",
	  "dev:u32 sector:u64 nr_sector:u32 old_dev:u32 old_sector:u64 rwbs:u32@rwbs" },
	/* net.h */
	{ "net", "net_dev_xmit", "net_dev_xmit", "skbaddr:x64 rc:i32 len:u32 name:str" },
	{ "net", "net_dev_queue", "net_dev_queue", "skbaddr:x64 len:u32 name:str" },
	{ "net", "netif_receive_skb", "net_if_receive_skb", "skbaddr:x64 len:u32 name:str" },
	{ "net", "netif_rx", "net_if_rx", "skbaddr:x64 len:u32 name:str" },
	{ "net", "napi_gro_frags_entry", "net_napi_gro_frags_entry", "skbaddr:x64" },
	{ "net", "napi_gro_receive_entry", "net_napi_gro_receive_entry", "skbaddr:x64" },
	{ "net", "netif_receive_skb_entry", "net_if_receive_skb_entry", "skbaddr:x64" },
	{ "net", "netif_receive_skb_list_entry", "net_if_receive_skb_list_entry", "skbaddr:x64" },
	{ "net", "netif_rx_entry", "net_if_rx_entry", "skbaddr:x64" },
	{ "net", "napi_gro_frags_exit", "net_napi_gro_frags_exit", "ret:i32" },
	{ "net", "napi_gro_receive_exit", "net_napi_gro_receive_exit", "ret:i32" },
	{ "net", "netif_receive_skb_exit", "net_if_receive_skb_exit", "ret:i32" },
	{ "net", "netif_receive_skb_list_exit", "net_if_receive_skb_list_exit", "ret:i32" },
	{ "net", "netif_rx_exit", "net_if_rx_exit", "ret:i32" },
	{ "napi", "napi_poll", "napi_poll", "napi:x64 dev_name:str work:i32 budget:i32" },
	{ "skb", "kfree_skb", "skb_kfree",
	  "skbaddr:x64 location:x64 protocol:n16 reason:u8 rx_skaddr:x64=rx_sk" },
	{ "skb", "consume_skb", "skb_consume", "skbaddr:x64 location:x64" },
	{ "skb", "skb_copy_datagram_iovec", "skb_copy_datagram_iovec", "skbaddr:x64 len:i32" },
	/* power.h */
	{ "power", "cpu_idle", "power_cpu_idle", "state:u32 cpu_id:u32" },
	{ "power", "cpu_frequency", "power_cpu_frequency", "state:u32 cpu_id:u32" },
	{ "power", "wakeup_source_activate", "power_wakeup_source_activate", "name:str state:u64" },
	{ "power", "wakeup_source_deactivate", "power_wakeup_source_deactivate",
	  "name:str state:u64" },
	/* signal.h */
	{ "signal", "signal_generate", "signal_generate",
	  "sig:i32 errno:i32 code:i32 comm:t16 pid:i32 group:i32 result:i32" },
	{ "signal", "signal_deliver", "signal_deliver",
	  "sig:i32 errno:i32 code:i32 sa_handler:u64 sa_flags:u64" },
	/* workqueue.h */
	{ "workqueue", "workqueue_queue_work", "workqueue_queue_work",
	  "work:x64 function:x64 req_cpu:i32" },
	{ "workqueue", "workqueue_activate_work", "workqueue_activate_work", "work:x64" },
	{ "workqueue", "workqueue_execute_start", "workqueue_execute_start", "work:x64 function:x64" },
	{ "workqueue", "workqueue_execute_end", "workqueue_execute_end", "work:x64 function:x64" },
	/* writeback.h */
	{ "writeback", "writeback_dirty_folio", "writeback_dirty_folio", "name:str ino:u64 index:u64" },
	{ "writeback", "folio_wait_writeback", "folio_wait_writeback", "name:str ino:u64 index:u64" },
	{ "writeback", "writeback_mark_inode_dirty", "writeback_mark_inode_dirty",
	  "name:str ino:u64 state:u64 flags:u64" },
	{ "writeback", "writeback_dirty_inode_start", "writeback_dirty_inode_start",
	  "name:str ino:u64 state:u64 flags:u64" },
	{ "writeback", "writeback_dirty_inode", "writeback_dirty_inode",
	  "name:str ino:u64 state:u64 flags:u64" },
	{ "writeback", "writeback_write_inode_start", "writeback_write_inode_start",
	  "name:str ino:u64 sync_mode:i32" },
	{ "writeback", "writeback_write_inode", "writeback_write_inode",
	  "name:str ino:u64 sync_mode:i32" },
	{ "writeback", "writeback_queue", "writeback_queue", "name:str" },
	{ "writeback", "writeback_exec", "writeback_exec", "name:str" },
	{ "writeback", "writeback_start", "writeback_start", "name:str" },
	{ "writeback", "writeback_written", "writeback_written", "name:str" },
	{ "writeback", "writeback_wait", "writeback_wait", "name:str" },
	{ "writeback", "writeback_pages_written", "writeback_pages_written", "pages:i64" },
	{ "writeback", "writeback_wake_background", "writeback_wake_background", "name:str" },
	{ "writeback", "writeback_bdi_register", "writeback_bdi_register", "name:str" },
	{ "writeback", "wbc_writepage", "writeback_wbc_writepage",
	  "name:str nr_to_write:i64 pages_skipped:i64 sync_mode:i32 for_kupdate:i32 "
	  "for_background:i32 range_cyclic:i32 range_start:i64 range_end:i64" },
	{ "writeback", "writeback_queue_io", "writeback_queue_io", "name:str older:u64 moved:i32" },
	{ "writeback", "global_dirty_state", "writeback_global_dirty_state",
	  "nr_dirty:u64 nr_writeback:u64 nr_dirtied:u64 nr_written:u64 background_thresh:u64 "
	  "dirty_thresh:u64 dirty_limit:u64" },
	{ "writeback", "bdi_dirty_ratelimit", "writeback_bdi_dirty_ratelimit",
	  "bdi:str write_bw:u64 avg_write_bw:u64 dirty_rate:u64 dirty_ratelimit:u64 "
	  "task_ratelimit:u64 balanced_dirty_ratelimit:u64" },
	{ "writeback", "balance_dirty_pages", "writeback_balance_dirty_pages",
	  "bdi:str limit:u64 setpoint:u64 dirty:u64 wb_setpoint:u64 wb_dirty:u64 "
	  "dirty_ratelimit:u64 task_ratelimit:u64 dirtied:u32 dirtied_pause:u32 paused:u64 "
	  "pause:i64 period:u64 think:i64 cgroup_ino:u64" },
	{ "writeback", "writeback_sb_inodes_requeue", "writeback_sb_inodes_requeue",
	  "name:str ino:u64 state:u64 dirtied_when:u64" },
	{ "writeback", "writeback_single_inode", "writeback_single_inode",
	  "name:str ino:u64 state:u64 dirtied_when:u64 writeback_index:u64 nr_to_write:i64 "
	  "wrote:u64" },
	/* arch/x86/irq_vectors.h: ftrace's system irq_vectors, LTTng's x86_irq_vectors */
	{ "irq_vectors", "local_timer_entry", "x86_irq_vectors_local_timer_entry", NULL },
	{ "irq_vectors", "local_timer_exit", "x86_irq_vectors_local_timer_exit", NULL },
	{ "irq_vectors", "reschedule_entry", "x86_irq_vectors_reschedule_entry", NULL },
	{ "irq_vectors", "reschedule_exit", "x86_irq_vectors_reschedule_exit", NULL },
	{ "irq_vectors", "spurious_apic_entry", "x86_irq_vectors_spurious_apic_entry", NULL },
	{ "irq_vectors", "spurious_apic_exit", "x86_irq_vectors_spurious_apic_exit", NULL },
	{ "irq_vectors", "error_apic_entry", "x86_irq_vectors_error_apic_entry", NULL },
	{ "irq_vectors", "error_apic_exit", "x86_irq_vectors_error_apic_exit", NULL },
	{ "irq_vectors", "x86_platform_ipi_entry", "x86_irq_vectors_ipi_entry", NULL },
	{ "irq_vectors", "x86_platform_ipi_exit", "x86_irq_vectors_ipi_exit", NULL },
	{ "irq_vectors", "irq_work_entry", "x86_irq_vectors_irq_work_entry", NULL },
	{ "irq_vectors", "irq_work_exit", "x86_irq_vectors_irq_work_exit", NULL },
	{ "irq_vectors", "call_function_entry", "x86_irq_vectors_call_function_entry", NULL },
	{ "irq_vectors", "call_function_exit", "x86_irq_vectors_call_function_exit", NULL },
	{ "irq_vectors", "call_function_single_entry",
	  "x86_irq_vectors_call_function_single_entry", NULL },
	{ "irq_vectors", "call_function_single_exit",
	  "x86_irq_vectors_call_function_single_exit", NULL },
	{ "irq_vectors", "thermal_apic_entry", "x86_irq_vectors_thermal_apic_entry", NULL },
	{ "irq_vectors", "thermal_apic_exit", "x86_irq_vectors_thermal_apic_exit", NULL },
	/* other subsystems LTTng-modules names with a prefix of its own */
	{ "printk", "console", "printk_console", NULL },
	{ "exceptions", "page_fault_user", "x86_exceptions_page_fault_user", NULL },
	{ "exceptions", "page_fault_kernel", "x86_exceptions_page_fault_kernel", NULL },
	{ "vmscan", "mm_shrink_slab_start", "mm_vmscan_shrink_slab_start", NULL },
	{ "vmscan", "mm_shrink_slab_end", "mm_vmscan_shrink_slab_end", NULL },
	{ "compaction", "mm_compaction_isolate_migratepages", "compaction_isolate_migratepages", NULL },
	{ "compaction", "mm_compaction_isolate_freepages", "compaction_isolate_freepages", NULL },
	{ "compaction", "mm_compaction_migratepages", "compaction_migratepages", NULL },
};

static const struct layout *layout_get(const char *sys, const char *ev)
{
	size_t i;

	for (i = 0; i < TRAWL_ARRAY_SIZE(layouts); i++)
		if (!strcmp(layouts[i].event, ev) && !strcmp(layouts[i].sys, sys))
			return &layouts[i];
	return NULL;
}

const char *trawl_kernel_layout_name(const char *sys, const char *ev)
{
	const struct layout *l = layout_get(sys, ev);

	return l ? l->lttng : NULL;
}

int trawl_kernel_layout_find(const char *lttng_name, const char **sys, const char **ev)
{
	size_t i;

	for (i = 0; i < TRAWL_ARRAY_SIZE(layouts); i++) {
		if (!strcmp(layouts[i].lttng, lttng_name)) {
			*sys = layouts[i].sys;
			*ev = layouts[i].event;
			return 0;
		}
	}
	return -ENOENT;
}

static const struct trawl_kernel_field *src_find(const struct trawl_kernel_event *ev, const char *name)
{
	int i;

	for (i = 0; i < ev->nfields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
}

/* The ftrace field an LTTng field is read from (see the top of the file). */
static int src_resolve(const struct trawl_kernel_event *ev, const char *name, const char *src,
		       struct trawl_kernel_field *out)
{
	static const struct trawl_kernel_field common_pid = {
		.name = "common_pid", .offset = 4, .size = 4, .ctf_size = 4,
		.kind = TRAWL_KF_INT, .is_signed = 1,
	};
	const struct trawl_kernel_field *f;
	size_t n = strlen(name);

	if (src && !strcmp(src, "common_pid")) {
		*out = common_pid;
		return 0;
	}
	f = src_find(ev, src ? src : name);
	if (!f && !src && n >= 3 && !strcmp(name + n - 3, "tid")) {
		char alt[64];

		if (!trawl_path_fmt(alt, sizeof(alt), "%.*spid", (int)(n - 3), name))
			f = src_find(ev, alt);
	}
	if (!f)
		return -ENOENT;
	*out = *f;
	return 0;
}

static int type_parse(const char *t, struct trawl_kernel_field *o)
{
	o->count = 0;
	o->big_endian = 0;
	if (!strcmp(t, "str")) {
		o->kind = TRAWL_KF_STRING;
		return 0;
	}
	if (!strcmp(t, "seq")) {
		o->kind = TRAWL_KF_SEQ_I32;
		o->ctf_size = 4;
		o->is_signed = 1;
		return 0;
	}
	if (t[0] == 't') {
		o->kind = TRAWL_KF_TEXT;
		o->count = (uint16_t)atoi(t + 1);
		o->ctf_size = 1;
		/* written whole by convert.c: within TRAWL_KERNEL_OP_MAX_OUT */
		return o->count && o->count <= 64 ? 0 : -EINVAL;
	}
	if (!strchr("iuxn", t[0]))
		return -EINVAL;
	o->kind = t[0] == 'x' ? TRAWL_KF_HEX : TRAWL_KF_INT;
	o->is_signed = t[0] == 'i';
	o->big_endian = t[0] == 'n';
	o->ctf_size = (uint16_t)(atoi(t + 1) / 8);
	return o->ctf_size == 1 || o->ctf_size == 2 || o->ctf_size == 4 || o->ctf_size == 8 ? 0
											 : -EINVAL;
}

static int xform_parse(const char *x)
{
	static const char *const names[] = {
		[TRAWL_KX_PRIO] = "prio", [TRAWL_KX_RWBS] = "rwbs",
		[TRAWL_KX_FORK_PARENT_PID] = "fork.parent_pid",
		[TRAWL_KX_FORK_PARENT_NS] = "fork.parent_ns", [TRAWL_KX_FORK_VTIDS] = "fork.vtids",
		[TRAWL_KX_FORK_CHILD_PID] = "fork.child_pid", [TRAWL_KX_FORK_CHILD_NS] = "fork.child_ns",
	};
	size_t i;

	for (i = 1; i < TRAWL_ARRAY_SIZE(names); i++)
		if (!strcmp(x, names[i]))
			return (int)i;
	return -EINVAL;
}

/*
 * One "name:type[=source][@derivation]" of the table into @o. Returns 1 when
 * the field is made, 0 when this kernel's record has no source for it.
 */
static int field_make(const struct trawl_kernel_event *ev, char *tok, struct trawl_kernel_field *o)
{
	char *type = strchr(tok, ':'), *src, *xf;
	struct trawl_kernel_field out;
	int x = TRAWL_KX_COPY;

	if (!type)
		return -EINVAL;
	*type++ = '\0';
	xf = strchr(type, '@');
	if (xf)
		*xf++ = '\0';
	src = strchr(type, '=');
	if (src)
		*src++ = '\0';
	if (xf && (x = xform_parse(xf)) < 0)
		return x;
	memset(&out, 0, sizeof(out));
	if (x < TRAWL_KX_FORK_PARENT_PID) {
		if (src_resolve(ev, tok, src, &out) < 0)
			return 0;
		if (x == TRAWL_KX_RWBS && out.kind != TRAWL_KF_TEXT)
			return 0;
	}
	out.src_kind = out.kind;
	out.src_signed = out.is_signed;
	out.xform = (uint8_t)x;
	if (trawl_path_fmt(out.name, sizeof(out.name), "%s", tok))
		return -ENAMETOOLONG;
	if (type_parse(type, &out) < 0)
		return -EINVAL;
	/* The conversions convert.c knows; anything else keeps ftrace's field. */
	if (x == TRAWL_KX_COPY) {
		int src_int = out.src_kind == TRAWL_KF_INT || out.src_kind == TRAWL_KF_HEX;
		int dst_int = out.kind == TRAWL_KF_INT || out.kind == TRAWL_KF_HEX;
		int dst_txt = out.kind == TRAWL_KF_TEXT || out.kind == TRAWL_KF_STRING;
		int src_txt = out.src_kind == TRAWL_KF_TEXT || out.src_kind == TRAWL_KF_STRING;

		if (dst_int != src_int || dst_txt != src_txt)
			return 0;
	}
	*o = out;
	return 1;
}

int trawl_kernel_layout_apply(struct trawl_kernel_event *ev)
{
	const struct layout *l = layout_get(ev->system, ev->name);
	struct trawl_kernel_field *out;
	char spec[1024], *tok, *save = NULL;
	int n = 0, ret;

	if (!l)
		return 0;
	ret = trawl_path_fmt(ev->ctf_name, sizeof(ev->ctf_name), "%s", l->lttng);
	if (ret || !l->fields)
		return ret;
	if (trawl_path_fmt(spec, sizeof(spec), "%s", l->fields))
		return -EINVAL;
	out = calloc(32, sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (tok = strtok_r(spec, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (n == 32) {
			ret = -E2BIG;
			goto err;
		}
		ret = field_make(ev, tok, &out[n]);
		if (ret < 0)
			goto err;
		n += ret;
	}
	free(ev->fields);
	ev->fields = out;
	ev->nfields = n;
	return 0;
err:
	free(out);
	return ret;
}
