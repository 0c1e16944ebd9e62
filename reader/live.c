// SPDX-License-Identifier: MIT
/*
 * reader/live.c - a live client of lttng-relayd (reader/live.h): the viewer
 * protocol of lttng-tools 2.13's src/bin/lttng-relayd/lttng-viewer-abi.h
 * and live.c, turned into a framed stream.  Every integer on the wire is
 * big-endian, every message packed; they are laid out here byte by byte.
 * Documentation/network.rst, "Reading a session live".
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "format/error.h"
#include "format/stream.h"
#include "platform/platform.h"
#include "reader/live.h"

/* enum lttng_viewer_command, and the answers' codes */
enum {
	V_CONNECT = 1, V_LIST_SESSIONS = 2, V_ATTACH = 3, V_NEXT_INDEX = 4, V_GET_PACKET = 5,
	V_GET_METADATA = 6, V_NEW_STREAMS = 7, V_CREATE_SESSION = 8,
};
enum { INDEX_OK = 1, INDEX_RETRY = 2, INDEX_HUP = 3, INDEX_ERR = 4, INDEX_INACTIVE = 5,
       INDEX_EOF = 6 };
enum { FLAG_NEW_METADATA = 1, FLAG_NEW_STREAM = 2 };

#define V_MAJOR 2
#define V_MINOR 4
#define V_CLIENT_COMMAND 1
#define V_SEEK_BEGINNING 1
#define V_HOST_MAX 64			/* struct lttng_viewer_session: id u64, live_timer, */
#define V_NAME_MAX 255			/* clients, streams u32, hostname[64], name[255] */
#define V_SESSION_SIZE (8 + 12 + V_HOST_MAX + V_NAME_MAX)
#define V_PATH_MAX 4096			/* struct lttng_viewer_stream: id, ctf_trace_id u64, */
#define V_STREAM_SIZE (16 + 4 + V_PATH_MAX + V_NAME_MAX)	/* metadata_flag u32, path, channel */
#define MAX_SESSIONS 100000
#define MAX_STREAMS 65537
#define TIMEOUT_MS 10000

struct vstream {
	uint64_t id;
	uint32_t cpu;
	uint64_t until;		/* every event before is given (0: nothing known) */
	bool hup;
};

struct live {
	int sock, out;
	const volatile bool *stop;
	uint64_t session;
	uint64_t meta_id;
	bool have_meta;
	char *md;
	size_t mdlen;
	struct vstream *s;
	uint32_t ns;
	uint64_t watermark;
	uint8_t *pkt;
	size_t pktcap;
	char *err;
	size_t errlen;
};

static int lfail(struct live *l, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int lfail(struct live *l, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rtr_verrf_at(l->err, l->errlen, -ret, NULL, RTR_AT_NONE, 0, fmt, ap);
	va_end(ap);
	return ret;
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

static const char *why(int ret)
{
	if (ret == -EAGAIN)
		return "no answer within 10 s";
	if (ret == -ENODATA)
		return "the relayd closed the connection";
	return strerror(-ret);
}

/* A command (@len bytes of payload), then its fixed-size answer. */
static int ask(struct live *l, uint32_t cmd, const void *msg, size_t len, void *ans,
	       size_t anslen, const char *what)
{
	uint8_t h[16];
	struct iovec iov[2] = { { h, sizeof(h) }, { (void *)msg, len } };
	int ret;

	put64(h, len);
	put32(h + 8, cmd);
	put32(h + 12, 0);
	ret = rtr_send_all(l->sock, iov, 2);
	if (!ret)
		ret = rtr_recv_all(l->sock, ans, anslen);
	if (ret)
		return lfail(l, ret == -EAGAIN ? -ETIMEDOUT : ret == -ENODATA ? -EPROTO : ret,
			     "lttng-relayd: %s: %s", what, why(ret));
	return 0;
}

/* More of an answer: @n bytes, or @n dropped when @buf is NULL. */
static int more(struct live *l, void *buf, size_t n, const char *what)
{
	uint8_t sink[4096];
	int ret = 0;

	while (!buf && n && !ret) {
		size_t k = n < sizeof(sink) ? n : sizeof(sink);

		ret = rtr_recv_all(l->sock, sink, k);
		n -= k;
	}
	if (buf)
		ret = rtr_recv_all(l->sock, buf, n);
	if (ret)
		return lfail(l, ret == -EAGAIN ? -ETIMEDOUT : -EPROTO, "lttng-relayd: %s: %s",
			     what, why(ret));
	return 0;
}

/* One frame of the framed stream (format/stream.h), little-endian. */
static int frame(struct live *l, uint32_t type, uint32_t arg, const void *data, uint64_t len)
{
	uint8_t h[RTR_FRAME_HDR];
	uint32_t t = htole32(type), a = htole32(arg);
	uint64_t n = htole64(len);
	struct iovec iov[2] = { { h, sizeof(h) }, { (void *)data, len } };
	int ret;

	memcpy(h, &t, 4);
	memcpy(h + 4, &a, 4);
	memcpy(h + 8, &n, 8);
	ret = rtr_writev_all(l->out, iov, 2);
	return ret ? lfail(l, -EPIPE, "the reader of the live stream is gone: %s",
			   strerror(-ret)) : 0;
}

/* A NUL-terminated name within @n bytes, copied; false if it is not. */
static bool name(char *dst, const uint8_t *src, size_t n)
{
	const uint8_t *z = memchr(src, 0, n);

	if (!z)
		return false;
	memcpy(dst, src, (size_t)(z - src) + 1);
	return true;
}

/* @count stream descriptions follow an answer: the metadata's and the CPUs'. */
static int add_streams(struct live *l, uint32_t count)
{
	uint8_t d[V_STREAM_SIZE];
	char channel[V_NAME_MAX];

	if (count > MAX_STREAMS || l->ns + count > MAX_STREAMS)
		return lfail(l, -EPROTO, "lttng-relayd: %u streams: not a session of ours", count);
	for (uint32_t i = 0; i < count; i++) {
		struct vstream *s;
		unsigned cpu;
		int ret = more(l, d, sizeof(d), "stream list");

		if (ret)
			return ret;
		if (!name(channel, d + 20 + V_PATH_MAX, V_NAME_MAX))
			return lfail(l, -EPROTO, "lttng-relayd: a stream's name is not terminated");
		if (get32(d + 16)) {
			l->meta_id = get64(d);
			l->have_meta = true;
			continue;
		}
		/* Ours are stream_N, N the CPU; another's streams are numbered as they come. */
		if (sscanf(channel, "stream_%u", &cpu) != 1 || cpu > 65535)
			cpu = l->ns;
		s = realloc(l->s, (l->ns + 1) * sizeof(*s));
		if (!s)
			return lfail(l, -ENOMEM, "out of memory");
		l->s = s;
		l->s[l->ns++] = (struct vstream){ .id = get64(d), .cpu = cpu };
	}
	return 0;
}

static int connect_and_attach(struct live *l, const char *host, uint16_t port,
			      const char *hostname, const char *session)
{
	uint8_t msg[20] = { 0 }, ans[20], st[8];
	uint64_t found = 0;
	bool any = false;
	char why_not[200];
	int ret;

	l->sock = rtr_tcp_connect(host, port, TIMEOUT_MS, why_not, sizeof(why_not));
	if (l->sock < 0)
		return lfail(l, l->sock, "lttng-relayd at %s: cannot connect to its live port %u: %s",
			     host, port, why_not);
	put32(msg + 8, V_MAJOR);
	put32(msg + 12, V_MINOR);
	put32(msg + 16, V_CLIENT_COMMAND);
	ret = ask(l, V_CONNECT, msg, sizeof(msg), ans, sizeof(ans), "connect");
	if (ret)
		return ret;
	if (get32(ans + 8) != V_MAJOR)
		return lfail(l, -EPROTO, "lttng-relayd at %s:%u: speaks viewer protocol %u, not %u",
			     host, port, get32(ans + 8), V_MAJOR);
	ret = ask(l, V_CREATE_SESSION, NULL, 0, st, 4, "create viewer session");
	if (!ret && get32(st) != 1)
		ret = lfail(l, -EPROTO, "lttng-relayd: create viewer session: refused");
	if (!ret)
		ret = ask(l, V_LIST_SESSIONS, NULL, 0, st, 4, "list sessions");
	if (ret)
		return ret;
	if (get32(st) > MAX_SESSIONS)
		return lfail(l, -EPROTO, "lttng-relayd: %u sessions", get32(st));
	for (uint32_t i = 0, n = get32(st); i < n; i++) {
		uint8_t d[V_SESSION_SIZE];
		char h[V_HOST_MAX], s[V_NAME_MAX];

		ret = more(l, d, sizeof(d), "list sessions");
		if (ret)
			return ret;
		if (!name(h, d + 20, V_HOST_MAX) || !name(s, d + 20 + V_HOST_MAX, V_NAME_MAX))
			return lfail(l, -EPROTO, "lttng-relayd: a session's name is not terminated");
		/* The newest of that name (the relayd keeps an ended one while it is read). */
		if (!strcmp(h, hostname) && !strcmp(s, session) && (!any || get64(d) > found)) {
			found = get64(d);
			any = true;
		}
	}
	if (!any)
		return lfail(l, -ENOENT, "lttng-relayd at %s:%u: no live session %s/%s (`babeltrace2 "
			     "query src.ctf.lttng-live sessions -p 'url=\"net://%s:%u\"'` lists them)",
			     host, port, hostname, session, host, port);
	l->session = found;
	memset(msg, 0, sizeof(msg));
	put64(msg, found);
	put32(msg + 16, V_SEEK_BEGINNING);
	ret = ask(l, V_ATTACH, msg, sizeof(msg), st, 8, "attach");
	if (ret)
		return ret;
	if (get32(st) == 3)
		return lfail(l, -ENOENT, "lttng-relayd: session %s/%s: ended as we attached",
			     hostname, session);
	if (get32(st) != 1)
		return lfail(l, -EPROTO, "lttng-relayd: attach to %s/%s: refused (code %u%s)",
			     hostname, session, get32(st), get32(st) == 4 ? ": not a live session" :
			     get32(st) == 2 ? ": another viewer is attached" : "");
	return add_streams(l, get32(st + 4));
}

/* New streams (none, some, or the session's end). */
static int new_streams(struct live *l, bool *ended)
{
	uint8_t msg[8], st[8];
	int ret;

	put64(msg, l->session);
	ret = ask(l, V_NEW_STREAMS, msg, sizeof(msg), st, sizeof(st), "new streams");
	if (ret)
		return ret;
	*ended = get32(st) == 4;
	if (get32(st) == 3)
		return lfail(l, -EPROTO, "lttng-relayd: new streams: error");
	return add_streams(l, get32(st + 4));
}

/* All the metadata there is now; a frame with the whole text when it grew. */
static int metadata(struct live *l)
{
	bool grew = false;

	if (!l->have_meta)
		return 0;
	for (;;) {
		uint8_t msg[8], ans[12];
		uint64_t len;
		char *md;
		int ret;

		put64(msg, l->meta_id);
		ret = ask(l, V_GET_METADATA, msg, sizeof(msg), ans, sizeof(ans), "get metadata");
		if (ret)
			return ret;
		len = get64(ans);
		if (get32(ans + 8) == 2 || !len)
			break;
		if (get32(ans + 8) != 1)
			return lfail(l, -EPROTO, "lttng-relayd: get metadata: error");
		if (len > RTR_FRAME_METADATA_MAX - l->mdlen)
			return lfail(l, -EPROTO, "lttng-relayd: metadata of more than %u bytes",
				     RTR_FRAME_METADATA_MAX);
		md = realloc(l->md, l->mdlen + len);
		if (!md)
			return lfail(l, -ENOMEM, "out of memory");
		l->md = md;
		ret = more(l, l->md + l->mdlen, len, "get metadata");
		if (ret)
			return ret;
		l->mdlen += len;
		grew = true;
	}
	return grew ? frame(l, RTR_FRAME_METADATA, 0, l->md, l->mdlen) : 0;
}

/* The packet an index names, as a frame. */
static int packet(struct live *l, struct vstream *s, uint64_t offset, uint64_t bits)
{
	uint8_t msg[20], ans[12];
	uint64_t len = bits / 8;
	int ret;

	if (bits % 8 || !len || len > RTR_FRAME_PACKET_MAX)
		return lfail(l, -EPROTO, "lttng-relayd: an index of %" PRIu64 " bits", bits);
	for (int tries = 0;; tries++) {
		put64(msg, s->id);
		put64(msg + 8, offset);
		put32(msg + 16, (uint32_t)len);
		ret = ask(l, V_GET_PACKET, msg, sizeof(msg), ans, sizeof(ans), "get packet");
		if (ret)
			return ret;
		if (get32(ans) == 1)
			break;
		/* The packet needs metadata not read yet: read it, ask again (once). */
		if (get32(ans) == 3 && (get32(ans + 8) & FLAG_NEW_METADATA) && !tries) {
			ret = metadata(l);
			if (ret)
				return ret;
			continue;
		}
		return lfail(l, -EPROTO, "lttng-relayd: get packet: status %u", get32(ans));
	}
	if (get32(ans + 4) != len)
		return lfail(l, -EPROTO, "lttng-relayd: a packet of %u bytes for an index of %"
			     PRIu64, get32(ans + 4), len);
	if (len > l->pktcap) {
		uint8_t *p = realloc(l->pkt, len);

		if (!p)
			return lfail(l, -ENOMEM, "out of memory");
		l->pkt = p;
		l->pktcap = len;
	}
	ret = more(l, l->pkt, len, "get packet");
	return ret ? ret : frame(l, RTR_FRAME_PACKET, s->cpu, l->pkt, len);
}

/*
 * One round over the streams: each gives its next packet, or says it has
 * none yet (retry), none before a time (inactive) or no more (hang-up).
 * *@moved: a packet came.
 */
static int round_(struct live *l, bool *moved)
{
	for (uint32_t i = 0; i < l->ns; i++) {
		struct vstream *s = &l->s[i];
		uint8_t msg[8], ix[64];
		uint32_t status, flags;
		int ret;

		if (s->hup)
			continue;
		put64(msg, s->id);
		ret = ask(l, V_NEXT_INDEX, msg, sizeof(msg), ix, sizeof(ix), "get next index");
		if (ret)
			return ret;
		status = get32(ix + 56);
		flags = get32(ix + 60);
		if (flags & FLAG_NEW_METADATA && (ret = metadata(l)))
			return ret;
		if (flags & FLAG_NEW_STREAM) {
			bool ended;

			ret = new_streams(l, &ended);
			if (ret)
				return ret;
			s = &l->s[i];	/* moved by realloc */
		}
		if (status == INDEX_OK) {
			ret = packet(l, s, get64(ix), get64(ix + 8));
			if (ret)
				return ret;
			if (get64(ix + 32) > s->until)
				s->until = get64(ix + 32);
			*moved = true;
		} else if (status == INDEX_INACTIVE) {
			if (get64(ix + 32) > s->until)
				s->until = get64(ix + 32);
		} else if (status == INDEX_HUP || status == INDEX_EOF) {
			s->hup = true;
		} else if (status != INDEX_RETRY) {
			return lfail(l, -EPROTO, "lttng-relayd: get next index: status %u", status);
		}
	}
	return 0;
}

/* Every stream known up to a time: the least of them is the watermark. */
static int progress(struct live *l)
{
	uint64_t w = UINT64_MAX, le;
	bool any = false;

	for (uint32_t i = 0; i < l->ns; i++) {
		if (l->s[i].hup)
			continue;
		if (!l->s[i].until)
			return 0;
		any = true;
		if (l->s[i].until < w)
			w = l->s[i].until;
	}
	if (!any || w <= l->watermark)
		return 0;
	l->watermark = w;
	le = htole64(w);
	return frame(l, RTR_FRAME_PROGRESS, 0, &le, sizeof(le));
}

/* net://HOST[:PORT]/host/HOSTNAME/SESSION */
static int parse(const char *url, char *host, size_t hostlen, uint16_t *port, char *hostname,
		 char *session, char *err, size_t errlen)
{
	const char *h = url + strlen(TR_LIVE_SCHEME), *end, *p;
	unsigned long pn = TR_LIVE_PORT;
	int n = -1;

	if (strncmp(url, TR_LIVE_SCHEME, strlen(TR_LIVE_SCHEME)))
		goto bad;
	if (*h == '[') {
		end = strchr(h++, ']');
		p = end ? end + 1 : NULL;
	} else {
		end = h + strcspn(h, ":/");
		p = end;
	}
	if (!end || end == h || (size_t)(end - h) >= hostlen)
		goto bad;
	memcpy(host, h, (size_t)(end - h));
	host[end - h] = 0;
	if (*p == ':') {
		char *e;

		pn = strtoul(p + 1, &e, 10);
		if (e == p + 1 || !pn || pn > 65535)
			goto bad;
		p = e;
	}
	if (sscanf(p, "/host/%63[^/]/%254[^/]%n", hostname, session, &n) != 2 || p[n])
		goto bad;
	*port = (uint16_t)pn;
	return 0;
bad:
	return rtr_errf(err, errlen, EINVAL,
			"%s: not net://HOST[:PORT]/host/HOSTNAME/SESSION (the live port "
			"defaults to lttng-relayd's %u)",
			url, TR_LIVE_PORT);
}

int tr_live_copy(const char *url, int fd, const volatile bool *stop, char *err, size_t errlen)
{
	struct live l = { .sock = -1, .out = fd, .stop = stop, .err = err, .errlen = errlen };
	char host[256], hostname[V_HOST_MAX], session[V_NAME_MAX];
	uint8_t pro[RTR_STREAM_PROLOGUE] = RTR_STREAM_MAGIC;
	uint32_t v = htole32(RTR_STREAM_VERSION);
	uint16_t port = 0;
	int ret;

	ret = parse(url, host, sizeof(host), &port, hostname, session, err, errlen);
	if (!ret)
		ret = connect_and_attach(&l, host, port, hostname, session);
	memcpy(pro + 8, &v, 4);
	if (!ret && rtr_write_all(fd, pro, sizeof(pro)))
		ret = lfail(&l, -EPIPE, "the reader of the live stream is gone");
	if (!ret)
		ret = metadata(&l);
	while (!ret && !(stop && *stop)) {
		bool moved = false, ended = false, open = false;
		uint32_t before;

		ret = round_(&l, &moved);
		if (!ret)
			ret = progress(&l);
		for (uint32_t i = 0; i < l.ns; i++)
			open |= !l.s[i].hup;
		if (ret || open || moved)
			goto next;
		/*
		 * Every stream hung up: the session's end, unless new ones came.
		 * Or none yet: an LTTng session's streams come with its first
		 * program, and its metadata with them.
		 */
		before = l.ns;
		ret = new_streams(&l, &ended);
		if (!ret && l.ns > before)
			ret = metadata(&l);
		if (!ret && (ended || (before && l.ns == before)))
			break;
next:
		if (!ret && !moved)
			usleep(l.ns ? 20000 : 100000);	/* the relayd answers "retry" cheaply */
	}
	if (!ret && !(stop && *stop))
		ret = frame(&l, RTR_FRAME_END, 0, NULL, 0);
	if (l.sock >= 0)
		close(l.sock);
	free(l.s);
	free(l.md);
	free(l.pkt);
	return ret;
}
