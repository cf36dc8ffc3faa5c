/* SPDX-License-Identifier: MIT */
/*
 * xmltree.h - reading a parsed session file's tree with the schema's rules
 * (xmltree.c): the children an element may have, leaf values of the
 * schema's types. Every failure writes "FILE:LINE: what" into the
 * parse's message buffer and returns -EINVAL (or -ENOMEM).
 */
#ifndef TRAWL_CONFIG_XMLTREE_H
#define TRAWL_CONFIG_XMLTREE_H

#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "config/model.h"

struct px {
	const char *file; /* for messages */
	char *err;	  /* the caller's message buffer */
	size_t errlen;
};

typedef xmlNode node_t;

/* "FILE:LINE: what" (no line for @n NULL) into @p's buffer; returns -EINVAL. */
int px_err(struct px *p, const node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *px_name(const node_t *n);
/* The children of @n into @slot[i] by name @names[i], each at most once (xs:all). */
int px_children(struct px *p, const node_t *n, const char *const *names, node_t **slot, size_t nr);
/* Fails if @n holds text besides its elements. */
int px_no_text(struct px *p, const node_t *n);
/* The children of @n, all named @name (a sequence), counted in *@nr. */
int px_list_of(struct px *p, const node_t *n, const char *name, size_t *nr);
node_t *px_next_elem(node_t *c);
#define FOR_EACH_ELEM(c, n) for (c = px_next_elem((n)->children); c; c = px_next_elem(c->next))
/* A leaf's text, strdup'd into *@out (the caller's). */
int px_text(struct px *p, const node_t *n, char **out);
/* A leaf's text without surrounding white space, into @buf. */
int px_token(struct px *p, const node_t *n, char *buf, size_t len);
int px_s64(struct px *p, const node_t *n, int64_t min, int64_t max, int64_t *v);
int px_u64(struct px *p, const node_t *n, uint64_t max, uint64_t *v);
int px_u32(struct px *p, const node_t *n, uint32_t *v);
int px_bool(struct px *p, const node_t *n, int *v);
/* The index of a leaf's word in @words (NULL-terminated). */
int px_enum(struct px *p, const node_t *n, const char *const *words, int *v);

/* parse-channel.c: a <channel> of domain @dom into @ch. */
int cfg_parse_channel(struct px *p, const node_t *n, enum trawl_ctl_domain dom,
		      struct cfg_channel *ch);

#endif /* TRAWL_CONFIG_XMLTREE_H */
