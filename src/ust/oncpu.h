/* SPDX-License-Identifier: MIT */
/*
 * oncpu.h - an add to a counter that only threads of one CPU add to,
 * without a lock prefix: the commit of an event on its stream's own CPU
 * (fastpath.c says why; ringbuffer.h, how readers add the two counts).
 *
 * A plain add (one instruction) is exact against every other writer on the
 * same CPU: no interrupt, preemption or signal splits an instruction. What
 * it must not meet is a writer on another CPU, so it runs inside an rseq
 * critical section (the rseq area glibc registers for every thread, at
 * __rseq_offset from the thread pointer; the kernel keeps the CPU the
 * thread runs on in its cpu_id): the section compares cpu_id with the
 * counter's CPU, then adds. If the kernel preempts, migrates or signals
 * the thread inside it, the thread resumes at the section's abort label
 * instead, before the add, so the add only ever runs on that CPU, in the
 * same time slice as the comparison. The add is the section's last
 * instruction: once it has run, the section is over, nothing to undo.
 *
 * Order: the caller's stores before the add (the event's bytes) are seen
 * by any reader that sees the add (x86 is TSO: a store is ordered after
 * every earlier store; the memory clobber keeps the compiler's stores
 * before it), as the release add it replaces promised.
 *
 * Nesting: a signal handler's event that interrupted a section aborts it
 * (the kernel does, when it delivers the signal) and runs a section of its
 * own; rseq allows that, since a section is entered anew each time. A
 * signal that lands between the store of rseq_cs and the section's start
 * leaves rseq_cs to the handler: libtrawl-ust's commit has one section
 * (trawl_ust_commit()), so a handler's event stores the same descriptor
 * back. (A handler that ran another library's rseq section there would
 * leave the section that follows unguarded, as it would any rseq user's.)
 */
#ifndef TRAWL_UST_ONCPU_H
#define TRAWL_UST_ONCPU_H

#include <stddef.h>
#include <stdint.h>
#include <sys/rseq.h>

#if defined(__x86_64__)
#define TRAWL_UST_ONCPU 1
/* The signature glibc registers rseq with on x86 (RSEQ_SIG, its
 * <bits/rseq.h>): the kernel checks it in the 4 bytes before an abort
 * label, so that a section can only send a thread where its code says. */
#define TRAWL_UST_RSEQ_SIG 0x53053053
_Static_assert(offsetof(struct rseq, cpu_id) == 4, "struct rseq: cpu_id at 4");
_Static_assert(offsetof(struct rseq, rseq_cs) == 8, "struct rseq: rseq_cs at 8");

/*
 * trawl_ust_add_on_cpu - *@count += @len, if this thread runs on @cpu
 *
 * Returns 0 when added, -1 when not (the thread is on another CPU, rseq is
 * not registered, or the kernel aborted the section): then nothing was
 * added, and the caller adds elsewhere (fastpath.c: with a lock prefix).
 * @count must be added to by no one on another CPU: only through this, with
 * the same @cpu.
 */
static inline __attribute__((always_inline)) int trawl_ust_add_on_cpu(uint64_t *count, uint64_t len,
									uint32_t cpu)
{
	/*
	 * The section's descriptor (struct rseq_cs: version 0, flags 0,
	 * start_ip, post_commit_offset, abort_ip) in its own section, stored in
	 * the thread's rseq_cs before the section starts; the abort label,
	 * after the signature, out of line. The signature's three bytes before
	 * it make it decode as one instruction (ud1 sig(%rip), %edi), as
	 * disassemblers expect. A thread with no rseq registered has a
	 * negative cpu_id (RSEQ_CPU_ID_REGISTRATION_FAILED): never @cpu.
	 */
	__asm__ goto(".pushsection __rseq_cs, \"aw\"\n\t"
		     ".balign 32\n\t"
		     "3:\n\t"
		     ".long 0, 0\n\t"
		     ".quad 1f, 2f - 1f, 4f\n\t"
		     ".popsection\n\t"
		     "leaq 3b(%%rip), %%rax\n\t"
		     "movq %%rax, %%fs:8(%[area])\n\t"
		     "1:\n\t"
		     "cmpl %[cpu], %%fs:4(%[area])\n\t"
		     "jnz %l[other]\n\t"
		     "addq %[len], %[count]\n\t"
		     "2:\n\t"
		     ".pushsection __rseq_failure, \"ax\"\n\t"
		     ".byte 0x0f, 0xb9, 0x3d\n\t"
		     ".long %c[sig]\n\t"
		     "4:\n\t"
		     "jmp %l[other]\n\t"
		     ".popsection"
		     :
		     : [area] "r"(__rseq_offset), [cpu] "r"(cpu), [len] "r"(len), [count] "m"(*count),
		       [sig] "i"(TRAWL_UST_RSEQ_SIG)
		     : "rax", "memory", "cc"
		     : other);
	return 0;
other:
	return -1;
}
#endif

#endif /* TRAWL_UST_ONCPU_H */
