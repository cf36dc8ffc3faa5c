/* SPDX-License-Identifier: MIT */
/*
 * The grammars of client text bound for tracefs (src/kernel/check.c): what
 * each validator accepts, what it refuses (with one line naming the
 * character), and that what we write is formatted from parsed values. The
 * refused inputs are the injections tracefs would otherwise take: a space
 * or '#' that adds fetch arguments or comments out the rest of a line, a
 * newline that starts a second command, set_ftrace_filter's "func:command".
 */
#include "kernel/kernel.h"
#include "../lib/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*check_fn)(const char *text, char *err, size_t errlen);

/* @fn must accept @ok[] and refuse @bad[] with one line (no newline) naming the text. */
static void table(const char *what, check_fn fn, const char *const *ok, const char *const *bad)
{
	char err[TRAWL_KERNEL_ERR_LEN];

	for (; *ok; ok++) {
		err[0] = '\0';
		if (fn(*ok, err, sizeof(err)) != 0) {
			fprintf(stderr, "FAIL: %s refused \"%s\": %s\n", what, *ok, err);
			check_fails++;
		}
	}
	for (; *bad; bad++) {
		err[0] = '\0';
		if (fn(*bad, err, sizeof(err)) != -22) {
			fprintf(stderr, "FAIL: %s accepted \"%s\"\n", what, *bad);
			check_fails++;
		} else if (!err[0] || strchr(err, '\n')) {
			fprintf(stderr, "FAIL: %s: bad error line for \"%s\": \"%s\"\n", what, *bad, err);
			check_fails++;
		}
	}
}

static int kprobe(const char *t, char *err, size_t len)
{
	struct trawl_kernel_kprobe_loc loc;

	return trawl_kernel_kprobe_loc_parse(t, &loc, err, len);
}

static int uprobe(const char *t, char *err, size_t len)
{
	struct trawl_kernel_uprobe_loc loc;

	return trawl_kernel_uprobe_loc_parse(t, &loc, err, len);
}

static void names(void)
{
	static const char *const ok[] = { "a", "_x", "add", "kp_1", "A23456789012345678901234567890123456789012345678901234", NULL };
	static const char *const bad[] = { "", "1a", "a b", "a#", "a/b", "a:b", "a.b", "a-b", "a\nb",
					   "x\n-:trawl_1_1/y", "\xc3\xa0", "a=+0(%di):string",
					   "A234567890123456789012345678901234567890123456789012345678", NULL };

	table("probe name", trawl_kernel_check_probe_name, ok, bad);
}

static void patterns(void)
{
	static const char *const ok[] = { "sched_switch", "sched_*", "*", "sched:sched_switch", "*:*",
					  "syscall_entry_openat", "9p_client_req", NULL };
	static const char *const bad[] = { "", "a b", "a/../b", "sched:", ":x", "a:b:c", "a?", "a[b]",
					   "../../x", "a\n", "x;y", NULL };

	table("event pattern", trawl_kernel_check_event_pattern, ok, bad);
}

static void ksyms(void)
{
	static const char *const ok[] = { "do_sys_openat2", "_text", "foo.isra.0", "bar.cold", NULL };
	static const char *const bad[] = { "", "do_sys_openat2 +0(%si):string", "schedule:traceoff",
					   "!schedule", "*:mod:ext4", "a\nb", "1x", "do_sys_openat2+4",
					   NULL };

	table("kernel symbol", trawl_kernel_check_ksym, ok, bad);
}

static void kprobes(void)
{
	static const char *const ok[] = { "do_sys_openat2", "do_sys_openat2+4", "foo.isra.0+0x1f",
					  "0xffffffff81000000", NULL };
	static const char *const bad[] = { "", "do_sys_openat2 x=+0(%si):string", "do_sys_openat2#",
					   "do_sys_openat2+", "do_sys_openat2+4 a", "do_sys_openat2+x",
					   "do_sys_openat2+99999999", "0x", "0x0", "0xg", "0x1 a=%di",
					   "do_sys_openat2\n-:g/e", "do_sys_openat2-4", "%di",
					   "do_sys_openat2+0xffffffffffffffffff", NULL };
	struct trawl_kernel_kprobe_loc loc;
	char buf[300], err[TRAWL_KERNEL_ERR_LEN];

	table("kprobe location", kprobe, ok, bad);
	/* What goes to kprobe_events is formatted from the numbers. */
	CHECK(trawl_kernel_kprobe_loc_parse("foo.isra.0+0x1f", &loc, err, sizeof(err)) == 0);
	trawl_kernel_kprobe_loc_format(&loc, buf, sizeof(buf));
	CHECK(!strcmp(buf, "foo.isra.0+31"));
	CHECK(trawl_kernel_kprobe_loc_parse("0xFFFFffff81000000", &loc, err, sizeof(err)) == 0);
	trawl_kernel_kprobe_loc_format(&loc, buf, sizeof(buf));
	CHECK(!strcmp(buf, "0xffffffff81000000"));
	CHECK(trawl_kernel_kprobe_loc_parse("do_sys_openat2 x=+0(%si):string", &loc, err,
					    sizeof(err)) < 0);
	CHECK(strstr(err, "' ' at character 15") != NULL);
}

static void uprobes(void)
{
	static const char *const ok[] = { "elf:/usr/bin/true:main", "/usr/bin/true:main",
					  "elf:/a/b-c_d.e+f,g=h@i%j~k/l:_Z3foov",
					  "sdt:/usr/lib/libc.so.6:libc:setjmp", "elf:/x:foo.cold", NULL };
	static const char *const bad[] = {
		"", "true:main", "elf:bin/true:main", "elf:/usr/bin/true", "elf::main",
		"elf:/usr/bin/true:", "elf:/usr/bin/true:main+4", "elf:/usr/bin/true:0x1000",
		"elf:/lib/libcrypt.so.1:0x15da0 pw=+0(%di):string #/t:main",
		"elf:/tmp/a b:main", "elf:/tmp/a#b:main", "elf:/tmp/a\nb:main", "elf:/tmp/\xc3\xa0:main",
		"elf:/tmp/a\tb:main", "elf:/tmp/a;b:main", "elf:/tmp/a(b):main", "elf:/tmp/a\\b:main",
		"elf:/tmp/x:main a=%di", "sdt:/usr/bin/true:main", "sdt:/x:1p:n", "sdt:/x:p:n-1",
		"sdt::p:n", "sdt:/x::n", "kprobe:/x:main", NULL };
	struct trawl_kernel_uprobe_loc loc;
	char err[TRAWL_KERNEL_ERR_LEN];

	table("uprobe location", uprobe, ok, bad);
	CHECK(trawl_kernel_uprobe_loc_parse("sdt:/a:b:c/d:prov:name", &loc, err, sizeof(err)) < 0);
	CHECK(trawl_kernel_uprobe_loc_parse("sdt:/a/b:prov:name", &loc, err, sizeof(err)) == 0);
	CHECK(loc.kind == TRAWL_KERNEL_UPROBE_SDT && !strcmp(loc.path, "/a/b") &&
	      !strcmp(loc.provider, "prov") && !strcmp(loc.symbol, "name"));
	CHECK(trawl_kernel_uprobe_loc_parse("/a/b:fn", &loc, err, sizeof(err)) == 0);
	CHECK(loc.kind == TRAWL_KERNEL_UPROBE_ELF && !strcmp(loc.path, "/a/b") &&
	      !strcmp(loc.symbol, "fn"));
	/* The attack of issue 10: refused, naming the first character outside the grammar. */
	CHECK(trawl_kernel_uprobe_loc_parse("elf:/tmp/lnk:0x15da0 pw=+0(%di):string #/t:main", &loc,
					    err, sizeof(err)) < 0);
	CHECK(strstr(err, "':' at character 13") != NULL);
}

static void filters(void)
{
	static const char *const ok[] = {
		"prev_pid == 0", "prev_comm == \"kperfpages\"", "common_pid != 1 && next_pid > 10",
		"!(a == 1 || b <= -2) && c & 0x10", "comm ~ \"bash*\"", "comm ~ bash*", "a==1",
		"call_site.function == kmalloc", "x >= 1 && (y < 2 || !(z == 'q'))", "  a == 1  ",
		NULL };
	static const char *const bad[] = {
		"", "$ctx.procname == 1", "a", "a ==", "== 1", "a == 1 &&", "(a == 1", "a == 1)",
		"a == \"x", "a == \"x\ny\"", "a == 1\n", "a == 1 # c", "a = 1", "a == 1 ; b == 2",
		"a == \"x\\\"\"", "a == 1 | b == 2", "a == `id`", "a == \"\x01\"", "a == $x",
		"a == 1 && b == 2 c", NULL };
	char deep[200], err[TRAWL_KERNEL_ERR_LEN], *big;
	size_t i;

	table("filter", trawl_kernel_check_filter, ok, bad);
	/* Nesting and length are bounded. */
	for (i = 0; i < 40; i++)
		deep[i] = '(';
	strcpy(deep + 40, "a == 1");
	for (i = 0; i < 40; i++)
		strcat(deep, ")");
	CHECK(trawl_kernel_check_filter(deep, err, sizeof(err)) < 0 && strstr(err, "nested"));
	big = malloc(2000);
	CHECK(big != NULL);
	if (big) {
		strcpy(big, "a == 1");
		while (strlen(big) < 1100)
			strcat(big, " && a == 1");
		CHECK(trawl_kernel_check_filter(big, err, sizeof(err)) < 0 && strstr(err, "1024"));
		free(big);
	}
}

int main(void)
{
	names();
	patterns();
	ksyms();
	kprobes();
	uprobes();
	filters();
	if (check_fails)
		fprintf(stderr, "%d failure(s)\n", check_fails);
	return CHECK_EXIT();
}
