/* SPDX-License-Identifier: MIT */
/*
 * The grammar of every piece of client text that reaches tracefs.
 *
 * tracefs control files are small command languages: uprobe_events and
 * kprobe_events split a line on white space into a location and fetch
 * arguments (`+0(%di):string` reads memory), `#` starts a comment, a filter
 * is an expression, set_ftrace_filter takes `func:command` forms. Text a
 * client sends to the root daemon must therefore never be copied into
 * those files as given: each entry point of trawl-kernel that writes to
 * tracefs checks its text here first, against a grammar narrow enough that
 * nothing in it means anything to tracefs beyond what we intend, and then
 * writes text it formats itself from the parsed values (never the input).
 * What is refused gets one line naming the text, the offending character and
 * the grammar. docs/SECURITY.md lists the grammars.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/kernel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILTER_MAX 1024 /* bytes of a kernel filter */
#define FILTER_DEPTH 32 /* nested '(' and '!' */
#define PATTERN_MAX 255

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_alnum(int c)
{
	return is_alpha(c) || (c >= '0' && c <= '9');
}

/* @s for an error line: at most 64 bytes, anything unprintable as \xNN. */
static const char *shown(const char *s, char *buf, size_t len)
{
	size_t o = 0, i;

	for (i = 0; s[i] && o + 8 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == 64) {
			o += (size_t)snprintf(buf + o, len - o, "...");
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	return buf;
}

/* The character at @p as an error line shows it. */
static const char *shown_char(const char *p, char *buf, size_t len)
{
	unsigned char c = (unsigned char)*p;

	if (!c)
		return "the end";
	if (c >= 0x20 && c < 0x7f)
		trawl_msg_fmt(buf, len, "'%c'", c);
	else
		trawl_msg_fmt(buf, len, "byte 0x%02x", c);
	return buf;
}

/* Length of the identifier at @s ([A-Za-z_][A-Za-z0-9_]*, '.' too with @dots). */
static size_t ident_len(const char *s, int dots)
{
	size_t n = 0;

	if (!is_alpha((unsigned char)s[0]))
		return 0;
	while (is_alnum((unsigned char)s[n]) || (dots && s[n] == '.'))
		n++;
	return n;
}

static int refuse(char *err, size_t errlen, const char *what, const char *text, const char *at,
		  const char *grammar)
{
	char t[300], c[64];

	if (at)
		trawl_msg_fmt(err, errlen, "%s \"%s\": %s at character %zu: %s", what,
			      shown(text, t, sizeof(t)), shown_char(at, c, sizeof(c)),
			      (size_t)(at - text) + 1, grammar);
	else
		trawl_msg_fmt(err, errlen, "%s \"%s\": %s", what, shown(text, t, sizeof(t)),
			      grammar);
	return -EINVAL;
}

int trawl_kernel_check_probe_name(const char *name, char *err, size_t errlen)
{
	static const char g[] = "a probe name is a letter or '_' then letters, digits and '_' "
				"(at most 56)";
	size_t n = ident_len(name, 0);

	if (n == 0 || name[n] || n > TRAWL_KERNEL_PROBE_NAME_MAX)
		return refuse(err, errlen, "probe name", name,
			      n > TRAWL_KERNEL_PROBE_NAME_MAX ? NULL : name + n, g);
	return 0;
}

int trawl_kernel_check_event_pattern(const char *pattern, char *err, size_t errlen)
{
	static const char g[] = "event names are letters, digits, '_' and '*' wildcards, "
				"optionally SYSTEM:EVENT";
	const char *p;
	int colon = 0;

	if (strlen(pattern) > PATTERN_MAX)
		return refuse(err, errlen, "kernel event name", pattern, NULL, "longer than 255 bytes");
	for (p = pattern; *p; p++) {
		if (is_alnum((unsigned char)*p) || *p == '*')
			continue;
		if (*p == ':' && !colon++ && p != pattern && p[1])
			continue;
		break;
	}
	if (*p || p == pattern)
		return refuse(err, errlen, "kernel event name", pattern, p, g);
	return 0;
}

int trawl_kernel_check_ksym(const char *sym, char *err, size_t errlen)
{
	static const char g[] = "a kernel symbol is a letter or '_' then letters, digits, '_' "
				"and '.'";
	size_t n = ident_len(sym, 1);

	if (n == 0 || sym[n] || n >= sizeof(((struct trawl_kernel_kprobe_loc *)0)->sym))
		return refuse(err, errlen, "kernel symbol", sym, n >= 256 ? NULL : sym + n, g);
	return 0;
}

/* A number: decimal, or hexadecimal after 0x. Returns the bytes taken, 0 if none or too large. */
static size_t number(const char *s, uint64_t *v)
{
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	size_t i = hex ? 2 : 0, start = i;
	uint64_t x = 0;

	for (;; i++) {
		unsigned d;
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (hex && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (hex && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			break;
		if (x > (UINT64_MAX - d) / (hex ? 16 : 10))
			return 0;
		x = x * (hex ? 16 : 10) + d;
	}
	if (i == start)
		return 0;
	*v = x;
	return i;
}

int trawl_kernel_kprobe_loc_parse(const char *text, struct trawl_kernel_kprobe_loc *loc,
				  char *err, size_t errlen)
{
	static const char g[] = "expected SYMBOL, SYMBOL+OFFSET or 0xADDRESS";
	size_t n;

	memset(loc, 0, sizeof(*loc));
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		n = number(text, &loc->addr);
		if (!n || text[n] || !loc->addr)
			return refuse(err, errlen, "kernel probe location", text, n ? text + n : text, g);
		return 0;
	}
	n = ident_len(text, 1);
	if (n == 0 || n >= sizeof(loc->sym))
		return refuse(err, errlen, "kernel probe location", text, n ? NULL : text, g);
	memcpy(loc->sym, text, n);
	loc->sym[n] = '\0';
	if (!text[n])
		return 0;
	if (text[n] == '+') {
		size_t m = number(text + n + 1, &loc->offset);

		if (m && !text[n + 1 + m] && loc->offset < (1u << 20))
			return 0;
		return refuse(err, errlen, "kernel probe location", text,
			      m && text[n + 1 + m] ? text + n + 1 + m : text + n + 1,
			      "the offset is a number below 1 MiB (decimal or 0x...)");
	}
	return refuse(err, errlen, "kernel probe location", text, text + n, g);
}

int trawl_kernel_kprobe_loc_format(const struct trawl_kernel_kprobe_loc *loc, char *buf, size_t len)
{
	if (!loc->sym[0])
		return trawl_path_fmt(buf, len, "0x%llx", (unsigned long long)loc->addr);
	if (loc->offset)
		return trawl_path_fmt(buf, len, "%s+%llu", loc->sym,
				      (unsigned long long)loc->offset);
	return trawl_path_fmt(buf, len, "%s", loc->sym);
}

/* A path: absolute, of [A-Za-z0-9._+,=@%~/-], shorter than PATH_MAX. */
static const char *path_bad(const char *p, size_t n)
{
	size_t i;

	if (n == 0 || p[0] != '/')
		return p;
	for (i = 0; i < n; i++) {
		char c = p[i];

		if (!is_alnum((unsigned char)c) && !strchr("._+,=@%~/-", c))
			return p + i;
	}
	return NULL;
}

/* Copies @n bytes of @s to @dst (@len bytes) if they are an identifier (with '.' if @dots). */
static int take_ident(char *dst, size_t len, const char *s, size_t n, int dots)
{
	if (n == 0 || n >= len || ident_len(s, dots) != n)
		return -EINVAL;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

int trawl_kernel_uprobe_loc_parse(const char *text, struct trawl_kernel_uprobe_loc *loc,
				  char *err, size_t errlen)
{
	static const char g[] = "expected elf:PATH:SYMBOL or sdt:PATH:PROVIDER:NAME";
	const char *body = text, *c1, *c2, *bad;
	size_t plen;

	memset(loc, 0, sizeof(*loc));
	if (!strncmp(text, "elf:", 4)) {
		loc->kind = TRAWL_KERNEL_UPROBE_ELF;
		body += 4;
	} else if (!strncmp(text, "sdt:", 4)) {
		loc->kind = TRAWL_KERNEL_UPROBE_SDT;
		body += 4;
	} else if (text[0] != '/') {
		return refuse(err, errlen, "user-space probe", text, NULL, g);
	}
	c1 = strrchr(body, ':');
	if (!c1)
		return refuse(err, errlen, "user-space probe", text, NULL, g);
	c2 = c1;
	if (loc->kind == TRAWL_KERNEL_UPROBE_SDT) {
		for (c2 = c1 - 1; c2 >= body && *c2 != ':'; c2--)
			;
		if (c2 < body)
			return refuse(err, errlen, "user-space probe", text, NULL, g);
		if (take_ident(loc->provider, sizeof(loc->provider), c2 + 1, (size_t)(c1 - c2 - 1), 0))
			return refuse(err, errlen, "user-space probe", text, NULL,
				      "an SDT provider is a letter or '_' then letters, digits and '_'");
	}
	if (take_ident(loc->symbol, sizeof(loc->symbol), c1 + 1, strlen(c1 + 1),
		       loc->kind == TRAWL_KERNEL_UPROBE_ELF))
		return refuse(err, errlen, "user-space probe", text, NULL,
			      loc->kind == TRAWL_KERNEL_UPROBE_SDT
				      ? "an SDT probe name is a letter or '_' then letters, digits "
					"and '_'"
				      : "a symbol is a letter or '_' then letters, digits, '_' and "
					"'.' (no offset: probes go at the start of a function)");
	plen = (size_t)(c2 - body);
	bad = path_bad(body, plen);
	if (bad || plen >= sizeof(loc->path))
		return refuse(err, errlen, "user-space probe", text, bad,
			      "PATH is absolute, of letters, digits and ._+,=@%~/- only");
	memcpy(loc->path, body, plen);
	loc->path[plen] = '\0';
	return 0;
}

/* ---- kernel (ftrace) filters ---------------------------------------------- */

struct fparse {
	const char *text, *p;
	int depth;
	const char *why; /* what was expected where p stopped */
};

static void fskip(struct fparse *f)
{
	while (*f->p == ' ' || *f->p == '\t')
		f->p++;
}

static int fcmp(struct fparse *f)
{
	static const char *const ops[] = { "==", "!=", "<=", ">=", "<", ">", "~", "&" };
	size_t i;

	fskip(f);
	for (i = 0; i < TRAWL_ARRAY_SIZE(ops); i++) {
		size_t n = strlen(ops[i]);

		/* "&" alone is a bit test; "&&" joins predicates and is not an operator here. */
		if (!strncmp(f->p, ops[i], n) && !(ops[i][0] == '&' && f->p[1] == '&')) {
			f->p += n;
			return 0;
		}
	}
	f->why = "expected an operator (== != < <= > >= & ~)";
	return -EINVAL;
}

static int fvalue(struct fparse *f)
{
	fskip(f);
	if (*f->p == '"' || *f->p == '\'') {
		char q = *f->p++;

		while (*f->p && *f->p != q && *f->p != '\\' && (unsigned char)*f->p >= 0x20 &&
		       (unsigned char)*f->p < 0x7f)
			f->p++;
		if (*f->p != q) {
			f->why = "a quoted string holds printable characters except \\ and its quote";
			return -EINVAL;
		}
		f->p++;
		return 0;
	}
	if (!is_alnum((unsigned char)*f->p) && !(*f->p && strchr("-.*?", *f->p))) {
		f->why = "expected a number, a word or a quoted string";
		return -EINVAL;
	}
	while (is_alnum((unsigned char)*f->p) || (*f->p && strchr("-.*?+", *f->p)))
		f->p++;
	return 0;
}

static int fexpr(struct fparse *f);

static int funary(struct fparse *f)
{
	size_t n;
	int ret;

	fskip(f);
	if (++f->depth > FILTER_DEPTH) {
		f->why = "nested too deeply";
		return -EINVAL;
	}
	if (*f->p == '!' && f->p[1] != '=') {
		f->p++;
		ret = funary(f);
	} else if (*f->p == '(') {
		f->p++;
		ret = fexpr(f);
		fskip(f);
		if (!ret && *f->p != ')') {
			f->why = "expected ')'";
			ret = -EINVAL;
		} else if (!ret) {
			f->p++;
		}
	} else {
		n = ident_len(f->p, 1);
		if (!n) {
			f->why = "expected a field name";
			return -EINVAL;
		}
		f->p += n;
		ret = fcmp(f);
		if (!ret)
			ret = fvalue(f);
	}
	f->depth--;
	return ret;
}

static int fexpr(struct fparse *f)
{
	int ret = funary(f);

	while (!ret) {
		fskip(f);
		if ((f->p[0] == '&' && f->p[1] == '&') || (f->p[0] == '|' && f->p[1] == '|')) {
			f->p += 2;
			ret = funary(f);
		} else {
			break;
		}
	}
	return ret;
}

int trawl_kernel_check_filter(const char *filter, char *err, size_t errlen)
{
	static const char g[] = "kernel filters use ftrace's syntax: FIELD OP VALUE joined by "
				"&&, ||, ! and parentheses";
	struct fparse f = { filter, filter, 0, NULL };
	char why[200];

	if (strlen(filter) > FILTER_MAX)
		return refuse(err, errlen, "kernel filter", filter, NULL, "longer than 1024 bytes");
	if (!fexpr(&f)) {
		fskip(&f);
		if (!*f.p)
			return 0;
		f.why = "expected && or ||";
	}
	trawl_msg_fmt(why, sizeof(why), "%s (%s)", f.why, g);
	return refuse(err, errlen, "kernel filter", filter, f.p, why);
}
