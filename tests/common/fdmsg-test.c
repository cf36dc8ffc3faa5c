/* SPDX-License-Identifier: MIT */
/*
 * common/fdmsg.c: a message and its one fd arrive together; a message with
 * two fds or longer than the buffer is refused (-EPROTO) with every fd it
 * carried closed; a silent peer times out; a closed one reads 0.
 * The stream framing (trawl_fdmsg_send_fds/recv_fds, the app ABI's and the
 * consumer's): a message longer than one send arrives whole with its fds;
 * more fds than asked for fail it with all of them closed, the message
 * still read whole (the next one reads in step); a message cut short
 * times out; a closed peer reads 0.
 */
#define _GNU_SOURCE
#include "common/fdmsg.h"
#include "../lib/check.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Sends @len bytes with @n fds in one SCM_RIGHTS message, as a hostile peer could. */
static void send_raw(int sock, const void *buf, size_t len, const int *fds, int n)
{
	char c[CMSG_SPACE(4 * sizeof(int))] = {0};
	struct iovec v = {(void *)buf, len};
	struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = c,
			   .msg_controllen = CMSG_SPACE((size_t)n * sizeof(int))};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);

	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
	memcpy(CMSG_DATA(h), fds, (size_t)n * sizeof(int));
	CHECK(sendmsg(sock, &m, 0) == (ssize_t)len);
}

static int open_fds(void)
{
	int n = 0, fd;

	for (fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static void stream_checks(void)
{
	static char msg[256 * 1024], got[256 * 1024];
	int sv[2], fds[3], in[8], before, i;
	uint32_t nr = 99;
	char small[4];

	for (i = 0; i < (int)sizeof(msg); i++)
		msg[i] = (char)(i * 7);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	/* a receiver that waits (the stream's buffer is smaller than msg) */
	if (fork() == 0) {
		int f[3] = {0, 1, 2};

		_exit(trawl_fdmsg_send_fds(sv[0], msg, sizeof(msg), f, 3) == (ssize_t)sizeof(msg) ? 0 : 1);
	}
	CHECK(trawl_fdmsg_recv_fds(sv[1], got, sizeof(got), fds, 3, &nr, 5000) == (ssize_t)sizeof(got));
	CHECK(nr == 3 && !memcmp(msg, got, sizeof(msg)));
	for (i = 0; i < (int)nr; i++)
		close(fds[i]);
	/* three fds to a receiver that takes two: all closed, the bytes read, in step */
	before = open_fds();
	CHECK(trawl_fdmsg_send_fds(sv[0], "abcd", 4, (int[]){0, 1, 2}, 3) == 4);
	CHECK(trawl_fdmsg_send_fds(sv[0], "efgh", 4, NULL, 0) == 4);
	CHECK(trawl_fdmsg_recv_fds(sv[1], small, 4, in, 2, &nr, 1000) == -EPROTO && nr == 0);
	CHECK(open_fds() == before);
	CHECK(trawl_fdmsg_recv_fds(sv[1], small, 4, in, 2, &nr, 1000) == 4 && nr == 0 &&
	      !memcmp(small, "efgh", 4));
	/* a message cut short: its fd is closed, the wait times out */
	before = open_fds();
	send_raw(sv[0], "ab", 2, (int[]){0}, 1);
	CHECK(trawl_fdmsg_recv_fds(sv[1], small, 4, in, 2, &nr, 100) == -ETIMEDOUT && nr == 0);
	CHECK(open_fds() == before);
	CHECK(trawl_fdmsg_send_fds(sv[0], "x", 1, in, TRAWL_FDMSG_MAX_FDS + 1) == -EINVAL);
	/* the peer closes within a message, then the stream ends */
	CHECK(trawl_fdmsg_send_fds(sv[0], "ab", 2, NULL, 0) == 2);
	close(sv[0]);
	CHECK(trawl_fdmsg_recv_fds(sv[1], small, 4, in, 2, &nr, 1000) == -ECONNRESET);
	CHECK(trawl_fdmsg_recv_fds(sv[1], small, 4, in, 2, &nr, 1000) == 0);
	close(sv[1]);
	while (wait(NULL) > 0)
		;
}

int main(void)
{
	struct stat a, b;
	char out[8], big[16] = "0123456789abcde";
	struct iovec v = {out, sizeof(out)};
	int sv[2], fd, two[2], before;

	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);

	/* a message with its fd: the same file comes out */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(trawl_fdmsg_send(sv[0], &(struct iovec){"payload", 8}, 1, fd) == 0);
	CHECK(trawl_fdmsg_recv(sv[1], &v, 1, 1000, &fd) == 8 && !memcmp(out, "payload", 8));
	CHECK(fd >= 0 && !fstat(fd, &a) && !stat("/dev/null", &b) && a.st_rdev == b.st_rdev);
	CHECK(fd < 0 || (fcntl(fd, F_GETFD) & FD_CLOEXEC));
	if (fd >= 0)
		close(fd);

	/* a message without one */
	CHECK(trawl_fdmsg_send(sv[0], &(struct iovec){"nofd", 4}, 1, -1) == 0);
	CHECK(trawl_fdmsg_recv(sv[1], &v, 1, 1000, &fd) == 4 && fd == -1);

	/* two fds: refused, both closed on our side */
	two[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	two[1] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	before = open_fds();
	send_raw(sv[0], "x", 1, two, 2);
	CHECK(trawl_fdmsg_recv(sv[1], &v, 1, 1000, &fd) == -EPROTO && fd == -1);
	CHECK(open_fds() == before);
	close(two[0]);
	close(two[1]);

	/* longer than the buffer: refused, its fd closed */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	before = open_fds();
	send_raw(sv[0], big, sizeof(big), &fd, 1);
	close(fd);
	before--;
	CHECK(trawl_fdmsg_recv(sv[1], &v, 1, 1000, &fd) == -EPROTO && fd == -1);
	CHECK(open_fds() == before);

	/* nothing sent: times out; peer gone: 0 */
	CHECK(trawl_fdmsg_recv(sv[1], &v, 1, 0, &fd) == -ETIMEDOUT);
	close(sv[0]);
	CHECK(trawl_fdmsg_recv(sv[1], &v, 1, 1000, &fd) == 0 && fd == -1);
	close(sv[1]);
	stream_checks();
	return CHECK_EXIT();
}
