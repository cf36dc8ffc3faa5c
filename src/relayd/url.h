/* SPDX-License-Identifier: MIT */
/*
 * url.h - the URLs of streaming, as LTTng spells them:
 *
 *   net://HOST[:CTRLPORT[:DATAPORT]][/PATH]   a relay daemon (trawl create --set-url)
 *   net6://HOST[:CTRLPORT[:DATAPORT]][/PATH]  the same over IPv6; HOST may be [ADDR]
 *   tcp://ADDR[:PORT][/PATH], tcp6://[ADDR][:PORT][/PATH]   one port
 *                                       (trawl-relayd -C/-D/-L, trawl create -C/-D)
 *
 * HOST is a name or a numeric address; ports default to 5342 (control) and
 * 5343 (data), 5344 for live. PATH is LTTng's "base path": relayd lays the
 * session's trace out in OUTPUT/HOSTNAME/PATH instead of
 * OUTPUT/HOSTNAME/SESSION-YYYYMMDD-HHMMSS (relayd/proto.h's HELLO). It holds
 * relayd's path characters, [A-Za-z0-9._+-] and '/', no '.' or '..'
 * component; leading, trailing and doubled '/' are dropped.
 */
#ifndef TRAWL_RELAY_URL_H
#define TRAWL_RELAY_URL_H

#include <stddef.h>
#include <stdint.h>

struct trawl_relay_url {
	int ipv6;            /* net6:// or tcp6:// */
	int tcp;             /* tcp:// or tcp6:// (one port) */
	char host[256];
	uint16_t ctrl_port;  /* tcp://: the one port */
	uint16_t data_port;
	char path[1024];     /* PATH, or "": no leading or trailing '/' */
};

/*
 * trawl_relay_url_parse - parses @url into @u; @default_port is the port of a
 * tcp:// URL without one. Returns 0, or -EINVAL with a one-line reason in
 * @why (of @why_len bytes), e.g. "port '99999' is not 1-65535".
 */
int trawl_relay_url_parse(const char *url, uint16_t default_port, struct trawl_relay_url *u,
			  char *why, size_t why_len);

/*
 * Formats @u as net[6]://HOST:CTRL:DATA[/PATH] (or tcp[6]://HOST:PORT[/PATH])
 * into @buf: 0, or -ENAMETOOLONG when it does not fit in @len bytes.
 */
int trawl_relay_url_format(const struct trawl_relay_url *u, char *buf, size_t len);

/*
 * trawl_relay_connect - a TCP connection to @host:@port (blocking socket,
 * TCP_NODELAY off), trying each address the name resolves to; connecting
 * gives up after @timeout_ms. Returns the fd (caller closes) or a negative
 * errno (-ENOENT: the name does not resolve).
 */
int trawl_relay_connect(const char *host, uint16_t port, int ipv6, int timeout_ms);

#endif /* TRAWL_RELAY_URL_H */
