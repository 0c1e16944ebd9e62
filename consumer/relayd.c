// SPDX-License-Identifier: MIT
/*
 * consumer/relayd.c - a live session on a stock lttng-relayd: the control
 * and data protocol of LTTng's consumer daemon, version 2.11 (one trace
 * chunk per session; LTTng 2.13's relayd adapts to it) or, with an older
 * relayd, 2.4 to 2.10, written from lttng-tools' src/common/sessiond-comm/
 * relayd.h and src/bin/lttng-relayd/.  consumer/relayd.h; Documentation/
 * network.rst.
 *
 * Everything on the wire is big-endian and packed; the messages are laid
 * out here byte by byte (put_be*()), never as C structs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <ringtrace/region.h>
#include "format/error.h"
#include "consumer/relayd.h"
#include "platform/platform.h"

/* enum lttcomm_relayd_command (src/common/sessiond-comm/sessiond-comm.h) */
enum {
	CMD_ADD_STREAM = 1,
	CMD_CREATE_SESSION = 2,
	CMD_VERSION = 5,
	CMD_SEND_METADATA = 6,
	CMD_CLOSE_STREAM = 7,
	CMD_DATA_PENDING = 8,
	CMD_SEND_INDEX = 13,
	CMD_STREAMS_SENT = 16,
	CMD_RESET_METADATA = 17,
	CMD_ROTATE_STREAMS = 18,
	CMD_CREATE_TRACE_CHUNK = 19,
	CMD_CLOSE_TRACE_CHUNK = 20,
};

#define PROTO_MAJOR 2
#define PROTO_MINOR 11		/* we speak 2.4 to 2.11; live needs 2.4 */
#define PROTO_CHUNKS 11		/* from 2.11 a session's files are in trace chunks */
#define PROTO_MINOR_MIN 4
#define LTTNG_OK 10		/* enum lttng_error_code */
#define AWAITED 16		/* answers awaited at once, at most (answers_read()) */
#define UNWRITTEN 64		/* packets kept until the relayd wrote them, at most (unwritten()) */
#define ASK_EVERY 4		/* packets kept between two questions of what was written (ask()) */
#define CMD_HDR 24		/* circuit_id u64, data_size u64, cmd u32, cmd_version u32 */
#define DATA_HDR 32		/* circuit_id, stream_id, net_seq_num u64; data_size, padding u32 */
#define NAME_MAX_2_4 255	/* create session 2.4: session_name[255], hostname[64] */
#define HOST_MAX_2_4 64
#define CHANNEL_MAX 264		/* add stream 2.2: channel_name[264], pathname[4096] */
#define PATH_MAX_2_2 4096
#define METADATA_CHANNEL "metadata"	/* the relayd knows the metadata stream by it */
#define REPLY_PATH_MAX 4096	/* the longest path a relayd may answer with */

struct rstream {
	uint64_t handle;	/* the relayd's id */
	uint64_t next_seq;	/* net_seq_num of the next packet */
	uint64_t seq_shift;	/* 1 once a header-only packet took packet_seq_num 0 */
	uint64_t last_end;	/* timestamp_end of the last packet sent */
	bool any;		/* a packet was sent (in this session) */
	/* kept from session to session (after the relayd came back): */
	bool have_raw;
	uint64_t raw_seq;	/* the ring's packet_seq_num of the last packet sent */
};

/*
 * A packet the caller keeps that the relayd has not said it wrote: its
 * index not answered yet, or answered and the packet perhaps still in the
 * relayd's socket (it answers an index before its data thread has read
 * the packet).
 */
struct unconfirmed {
	uint32_t cpu;
	bool written;		/* DATA_PENDING said so */
	uint64_t seq;		/* its net_seq_num in this session */
	size_t size;
	const void *body;
	uint8_t hdr[RTR_PACKET_HDR_SIZE];	/* as the caller gave it */
};

/*
 * An answer awaited on the control connection: to a SEND_INDEX of a
 * packet or of a beacon, or to a DATA_PENDING about stream @cpu up to
 * @seq.
 */
enum { AW_INDEX, AW_BEACON, AW_PENDING };

struct awaited {
	uint8_t kind;
	uint32_t cpu;
	uint64_t seq;
};

static const char *const aw_what[] = {
	[AW_INDEX] = "send index", [AW_BEACON] = "beacon", [AW_PENDING] = "data pending",
};

struct rtr_relayd {
	struct rtr_relayd_opts o;
	char host[256];
	uint16_t ctrl_port, data_port;
	int ctrl, data;
	int timeout_ms;
	uint32_t minor;
	uint64_t session_id;
	uint64_t chunk_id;	/* 2.11: the one chunk, created with the session */
	char hostname[HOST_MAX_2_4];
	char session[NAME_MAX_2_4];
	char base[NAME_MAX_2_4 - 16];	/* the first session's name */
	bool streams_made;
	struct rstream meta;
	uint64_t meta_version;
	char *md;		/* the metadata sent so far */
	size_t mdlen;
	struct rstream *s;	/* per CPU */
	uint32_t ns;
	uint32_t ninit;		/* entries of @s initialised (more than @ns after a reconnect) */
	uint8_t uuid[16];	/* the trace's, from its first packet */
	bool have_uuid;
	bool failed;
	/*
	 * The kept packets not known written, oldest first from @un_first
	 * (@nun of them); the answers awaited, in the order of the commands
	 * (@aw from @aw_first, @acks of them), and the DATA_PENDING questions
	 * among them (@asking).
	 */
	struct unconfirmed un[UNWRITTEN];
	uint32_t un_first, nun;
	struct awaited aw[AWAITED];
	uint32_t aw_first, acks, asking;
	uint32_t confirmed;	/* kept packets confirmed, not yet told (rtr_relayd_confirmed()) */
	uint32_t unasked;	/* kept packets sent since the relayd was last asked (ask()) */
	bool pushed;		/* the packet being sent is among @un */
	struct rtr_relayd_stats st;
	char err[400];
};

static void put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

static int rfail(struct rtr_relayd *r, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The first failure is the one reported; the connections are unusable after it. */
static int rfail(struct rtr_relayd *r, int ret, const char *fmt, ...)
{
	char who[300];
	va_list ap;

	if (r->failed)
		return ret;
	r->failed = true;
	snprintf(who, sizeof(who), "lttng-relayd at %s:%u", r->host, r->ctrl_port);
	va_start(ap, fmt);
	rtr_verrf_at(r->err, sizeof(r->err), -ret, who, RTR_AT_NONE, 0, fmt, ap);
	va_end(ap);
	return ret;
}

static const char *why(int ret)
{
	if (ret == -EAGAIN || ret == -ETIMEDOUT)
		return "no answer within the timeout (the relayd is stalled or gone)";
	if (ret == -EPIPE || ret == -ECONNRESET)
		return "the connection was closed (the relayd stopped or refused the last command)";
	if (ret == -ENODATA)
		return "the connection was closed before the whole answer came";
	return strerror(-ret);
}

int rtr_relayd_parse(const char *url, char *host, size_t hostlen, uint16_t *ctrl,
		     uint16_t *data, char *err, size_t errlen)
{
	const char *h = url + strlen(RTR_RELAYD_SCHEME), *end, *p;
	unsigned long port[2] = { RTR_RELAYD_CTRL_PORT, RTR_RELAYD_DATA_PORT };

	if (strncmp(url, RTR_RELAYD_SCHEME, strlen(RTR_RELAYD_SCHEME)))
		goto bad;
	if (*h == '[') {
		end = strchr(h, ']');
		if (!end)
			goto bad;
		h++;
		p = end + 1;
	} else {
		end = h + strcspn(h, ":/");
		p = end;
	}
	if (end == h || (size_t)(end - h) >= hostlen)
		goto bad;
	memcpy(host, h, (size_t)(end - h));
	host[end - h] = 0;
	for (int i = 0; i < 2 && *p == ':'; i++) {
		char *e;

		port[i] = strtoul(p + 1, &e, 10);
		if (e == p + 1 || port[i] == 0 || port[i] > 65535)
			goto bad;
		p = e;
	}
	if (*p && strcmp(p, "/"))
		goto bad;
	*ctrl = (uint16_t)port[0];
	*data = (uint16_t)port[1];
	return 0;
bad:
	return rtr_errf(err, errlen, EINVAL,
			"%s: not net://HOST[:CONTROL_PORT[:DATA_PORT]] (the ports default "
			"to lttng-relayd's %u and %u)",
			url, RTR_RELAYD_CTRL_PORT, RTR_RELAYD_DATA_PORT);
}

/* A TCP connection to @port of the relayd, within the timeout. */
static int dial(struct rtr_relayd *r, uint16_t port, const char *what)
{
	char why_not[200];
	int fd = rtr_tcp_connect(r->host, port, r->timeout_ms, why_not, sizeof(why_not));

	if (fd >= 0)
		return fd;
	snprintf(r->err, sizeof(r->err), "lttng-relayd at %s: cannot connect to its %s port %u: "
		 "%s%s", r->host, what, port, why_not, fd == -ECONNREFUSED ? " (is lttng-relayd "
		 "running, and listening there? `lttng-relayd -C tcp://HOST:PORT -D "
		 "tcp://HOST:PORT`)" : "");
	r->failed = true;
	return fd;
}

/* A command with its payload (@a, then @b), on the control connection; its answer not read. */
static int command_only(struct rtr_relayd *r, uint32_t cmd, const void *a, size_t alen,
			const void *b, size_t blen)
{
	uint8_t hdr[CMD_HDR] = { 0 };
	struct iovec iov[3] = {
		{ hdr, sizeof(hdr) }, { (void *)a, alen }, { (void *)b, blen },
	};

	if (r->failed)
		return -EIO;
	put_be64(hdr + 8, alen + blen);
	put_be32(hdr + 16, cmd);
	return rtr_send_all(r->ctrl, iov, 3);
}

static int answers_read(struct rtr_relayd *r, bool all);

/* A command whose answer, if any, is the next thing read: the indexes' answers first. */
static int command(struct rtr_relayd *r, uint32_t cmd, const void *a, size_t alen,
		   const void *b, size_t blen)
{
	int ret = r->acks ? answers_read(r, true) : 0;

	return ret ? ret : command_only(r, cmd, a, alen, b, blen);
}

/* The answer of fixed size @n to the last command. */
static int reply(struct rtr_relayd *r, uint8_t *buf, size_t n)
{
	if (r->failed)
		return -EIO;
	return rtr_recv_all(r->ctrl, buf, n);
}

/* A command answered by a bare return code, which must be LTTNG_OK. */
static int command_ok(struct rtr_relayd *r, uint32_t cmd, const char *name, const void *a,
		      size_t alen)
{
	uint8_t rc[4];
	int ret = command(r, cmd, a, alen, NULL, 0);

	if (!ret)
		ret = reply(r, rc, sizeof(rc));
	if (ret)
		return rfail(r, ret, "%s: %s", name, why(ret));
	if (get_be32(rc) != LTTNG_OK)
		return rfail(r, -EPROTO, "%s: refused (code %" PRIu32 ")", name, get_be32(rc));
	return 0;
}

static int version(struct rtr_relayd *r)
{
	/* RINGTRACE_RELAYD_MINOR: offer an older minor (the tests speak 2.10 to a 2.13 relayd). */
	const char *env = getenv("RINGTRACE_RELAYD_MINOR");
	uint32_t offer = PROTO_MINOR;
	uint8_t v[8], ans[8];
	uint32_t major, minor;
	int ret;

	if (env && strtoul(env, NULL, 10) >= PROTO_MINOR_MIN && strtoul(env, NULL, 10) < PROTO_MINOR)
		offer = (uint32_t)strtoul(env, NULL, 10);
	put_be32(v, PROTO_MAJOR);
	put_be32(v + 4, offer);
	ret = command(r, CMD_VERSION, v, sizeof(v), NULL, 0);
	if (!ret)
		ret = reply(r, ans, sizeof(ans));
	if (ret)
		return rfail(r, ret == -ENODATA ? -EPROTO : ret, "version handshake: %s%s", why(ret),
			     ret == -ENODATA || ret == -ECONNRESET ? " (is this port lttng-relayd's "
			     "control port?)" : "");
	major = get_be32(ans);
	minor = get_be32(ans + 4);
	if (major != PROTO_MAJOR || minor < PROTO_MINOR_MIN)
		return rfail(r, -EPROTO, "speaks protocol %" PRIu32 ".%" PRIu32 "; ringtrace "
			     "needs %u.%u to %u.%u (LTTng 2.4 or later, live)", major, minor,
			     PROTO_MAJOR, PROTO_MINOR_MIN, PROTO_MAJOR, PROTO_MINOR);
	r->minor = minor < offer ? minor : offer;
	r->st.minor = r->minor;
	return 0;
}

/* A name the relayd takes as a directory: no '/', not starting with '.', not empty. */
static void path_safe(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; *src && i + 1 < len; src++, i++)
		dst[i] = *src == '/' || (unsigned char)*src < 0x20 || (*src == '.' && !i) ? '_' :
			 *src;
	if (!i)
		dst[i++] = '_';
	dst[i] = 0;
}

/* The answer to CREATE_SESSION: session_id u64, ret_code u32. */
static int session_created(struct rtr_relayd *r, int ret, const uint8_t *ans)
{
	if (ret)
		return rfail(r, ret, "create session %s: %s", r->st.session, why(ret));
	if (get_be32(ans + 8) != LTTNG_OK)
		return rfail(r, -EPROTO, "create session %s: refused (code %" PRIu32 "; see the "
			     "relayd's log)", r->st.session, get_be32(ans + 8));
	r->session_id = get_be64(ans);
	return 0;
}

/*
 * 2.11: the session, then its one trace chunk, which the relayd creates
 * as HOSTNAME/SESSION itself (the name has the time in it already).  The
 * header is 59 bytes: three name lengths and the live timer (u32 each),
 * snapshot and "name holds the time" (u8), the session daemon's UUID (16),
 * its session id and the creation time (u64), an optional current chunk
 * (u8 set, u64); then the names, each with its NUL.
 */
static int create_session_2_11(struct rtr_relayd *r)
{
	size_t ln = strlen(r->session) + 1, lh = strlen(r->hostname) + 1;
	uint8_t msg[59 + NAME_MAX_2_4 + HOST_MAX_2_4] = { 0 }, ans[16], path[REPLY_PATH_MAX];
	uint8_t chunk[20] = { 0 };
	uint64_t now = (uint64_t)time(NULL), id;
	uint32_t plen;
	int ret;

	put_be32(msg, (uint32_t)ln);
	put_be32(msg + 4, (uint32_t)lh);
	put_be32(msg + 12, r->o.live_timer_us ? r->o.live_timer_us : 1000000);
	msg[17] = 1;	/* the session name holds its creation time */
	/* Our "session daemon": a random UUID (never nil, which means pre-2.11), our pid. */
	if (getrandom(msg + 18, 16, 0) != 16)
		put_be64(msg + 18, rtr_monotonic_ns() ^ (uint64_t)getpid() << 32);
	msg[18] |= 1;
	id = (uint64_t)getpid();
	put_be64(msg + 34, id);
	put_be64(msg + 42, now);
	memcpy(msg + 59, r->session, ln);
	memcpy(msg + 59 + ln, r->hostname, lh);
	ret = command(r, CMD_CREATE_SESSION, msg, 59 + ln + lh, NULL, 0);
	if (!ret)
		ret = reply(r, ans, sizeof(ans));
	if (!ret) {
		/* Then the output path it chose; read and dropped, within bounds. */
		plen = get_be32(ans + 12);
		if (plen > sizeof(path))
			return rfail(r, -EPROTO, "create session %s: answered a path of %" PRIu32
				     " bytes", r->st.session, plen);
		ret = reply(r, path, plen);
	}
	ret = session_created(r, ret, ans);
	if (ret)
		return ret;
	/* The chunk: id, creation time, no name of its own (u64, u64, u32). */
	r->chunk_id = 0;
	put_be64(chunk, r->chunk_id);
	put_be64(chunk + 8, now);
	return command_ok(r, CMD_CREATE_TRACE_CHUNK, "create trace chunk", chunk, sizeof(chunk));
}

static int create_session(struct rtr_relayd *r)
{
	uint8_t msg[NAME_MAX_2_4 + HOST_MAX_2_4 + 8] = { 0 }, ans[12];
	char host[256] = "", prog[128], stamp[32];
	const char *base = r->o.program ? strrchr(r->o.program, '/') : NULL;
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	if (r->o.hostname)
		snprintf(host, sizeof(host), "%s", r->o.hostname);
	else if (gethostname(host, sizeof(host) - 1) < 0)
		snprintf(host, sizeof(host), "localhost");
	path_safe(r->hostname, sizeof(r->hostname), host);
	path_safe(prog, sizeof(prog), base ? base + 1 : r->o.program ? r->o.program : "ringtrace");
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	/* With our pid: two recordings of one program started in the same second differ. */
	if (!r->base[0])
		snprintf(r->base, sizeof(r->base), "%.200s-%s-%d", prog, stamp, (int)getpid());
	/* After the relayd came back: a session of its own, beside the first. */
	if (r->st.reconnects)
		snprintf(r->session, sizeof(r->session), "%s-r%u", r->base, r->st.reconnects);
	else
		snprintf(r->session, sizeof(r->session), "%s", r->base);
	snprintf(r->st.session, sizeof(r->st.session), "%s/%s", r->hostname, r->session);
	if (r->minor >= PROTO_CHUNKS)
		return create_session_2_11(r);
	memcpy(msg, r->session, strlen(r->session));
	memcpy(msg + NAME_MAX_2_4, r->hostname, strlen(r->hostname));
	put_be32(msg + NAME_MAX_2_4 + HOST_MAX_2_4, r->o.live_timer_us ? r->o.live_timer_us :
		 1000000);
	put_be32(msg + NAME_MAX_2_4 + HOST_MAX_2_4 + 4, 0);	/* not a snapshot session */
	ret = command(r, CMD_CREATE_SESSION, msg, sizeof(msg), NULL, 0);
	if (!ret)
		ret = reply(r, ans, sizeof(ans));
	return session_created(r, ret, ans);
}

static int add_stream(struct rtr_relayd *r, struct rstream *s, const char *channel)
{
	uint8_t *msg = calloc(1, CHANNEL_MAX + PATH_MAX_2_2 + 16), ans[12];
	int ret;

	if (!msg)
		return rfail(r, -ENOMEM, "out of memory");
	if (r->minor >= PROTO_CHUNKS) {
		/*
		 * 2.11: the lengths of the channel name and of the path (u32),
		 * tracefile size and count (0, 0: one file), the chunk (u64);
		 * the names with their NULs.  The path: a directory in the
		 * chunk (2.13 refuses any path that is a substring of "../",
		 * "" and "." included).
		 */
		size_t lc = strlen(channel) + 1, lp = sizeof(RTR_RELAYD_SUBDIR);

		put_be32(msg, (uint32_t)lc);
		put_be32(msg + 4, (uint32_t)lp);
		put_be64(msg + 24, r->chunk_id);
		memcpy(msg + 32, channel, lc);
		memcpy(msg + 32 + lc, RTR_RELAYD_SUBDIR, lp);
		ret = command(r, CMD_ADD_STREAM, msg, 32 + lc + lp, NULL, 0);
	} else {
		memcpy(msg, channel, strlen(channel));
		/* Relative to the relayd's output directory: HOSTNAME/SESSION. */
		snprintf((char *)msg + CHANNEL_MAX, PATH_MAX_2_2, "%s/%s", r->hostname,
			 r->session);
		/* tracefile_size, tracefile_count: 0, 0 (one file, never rotated) */
		ret = command(r, CMD_ADD_STREAM, msg, CHANNEL_MAX + PATH_MAX_2_2 + 16, NULL, 0);
	}
	free(msg);
	if (!ret)
		ret = reply(r, ans, sizeof(ans));
	if (ret)
		return rfail(r, ret, "add stream %s: %s", channel, why(ret));
	if (get_be32(ans + 8) != LTTNG_OK)
		return rfail(r, -EPROTO, "add stream %s: refused (code %" PRIu32 ")", channel,
			     get_be32(ans + 8));
	s->handle = get_be64(ans);	/* the stream anew in this session; @raw_seq kept */
	s->next_seq = 0;
	s->seq_shift = 0;
	s->last_end = 0;
	s->any = false;
	r->st.streams++;
	return 0;
}

/* Streams for CPUs up to @n - 1, published together. */
static int grow_streams(struct rtr_relayd *r, uint32_t n)
{
	struct rstream *s;
	int ret;

	if (n <= r->ns)
		return 0;
	if (n > 65536)
		return rfail(r, -EINVAL, "stream of CPU %u: not a CPU", n - 1);
	s = realloc(r->s, n * sizeof(*s));
	if (!s)
		return rfail(r, -ENOMEM, "out of memory");
	r->s = s;
	while (r->ns < n) {
		char name[32];

		if (r->ns >= r->ninit) {
			memset(&r->s[r->ns], 0, sizeof(r->s[0]));
			r->ninit = r->ns + 1;
		}
		snprintf(name, sizeof(name), "stream_%u", r->ns);
		ret = add_stream(r, &r->s[r->ns], name);
		if (ret)
			return ret;
		r->ns++;
	}
	/* A live reader sees streams only once they are said to be all there. */
	return command_ok(r, CMD_STREAMS_SENT, "streams sent", NULL, 0);
}

/* Both connections, the version agreed, the session created. */
static int connect_session(struct rtr_relayd *r)
{
	int ret;

	r->ctrl = dial(r, r->ctrl_port, "control");
	if (r->ctrl < 0)
		return r->ctrl;
	ret = version(r);
	if (!ret)
		ret = create_session(r);
	if (ret)
		return ret;
	r->data = dial(r, r->data_port, "data");
	return r->data < 0 ? r->data : 0;
}

int rtr_relayd_open(struct rtr_relayd **out, const struct rtr_relayd_opts *opts, char *err,
		    size_t errlen)
{
	struct rtr_relayd *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return rtr_errf(err, errlen, ENOMEM, "out of memory");
	r->o = *opts;
	r->ctrl = r->data = -1;
	r->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : RTR_RELAYD_TIMEOUT_MS;
	ret = rtr_relayd_parse(opts->url, r->host, sizeof(r->host), &r->ctrl_port, &r->data_port,
			       err, errlen);
	if (ret)
		goto out;
	ret = connect_session(r);
	if (ret)
		goto fail;
	*out = r;
	return 0;
fail:
	rtr_errf(err, errlen, -ret, "%s", r->err);
out:
	rtr_relayd_free(r);
	return ret;
}

static int metadata_once(struct rtr_relayd *r, const char *text, size_t len)
{
	uint8_t hdr[12];
	size_t from = 0;
	char *md;
	int ret;

	if (r->failed)
		return -EIO;
	if (!r->streams_made) {
		/* The metadata stream first, as LTTng's consumer does: no packet before it. */
		ret = add_stream(r, &r->meta, METADATA_CHANNEL);
		if (ret)
			return ret;
		r->streams_made = true;
	} else if (len == r->mdlen && !memcmp(text, r->md, len)) {
		return 0;
	} else if (len > r->mdlen && !memcmp(text, r->md, r->mdlen)) {
		from = r->mdlen;	/* the registry grew: its new classes */
	} else {
		/* Changed otherwise: the relayd starts the metadata file again. */
		uint8_t msg[16];

		put_be64(msg, r->meta.handle);
		put_be64(msg + 8, ++r->meta_version);
		ret = command_ok(r, CMD_RESET_METADATA, "reset metadata", msg, sizeof(msg));
		if (ret)
			return ret;
	}
	put_be64(hdr, r->meta.handle);
	put_be32(hdr + 8, 0);	/* padding */
	ret = command(r, CMD_SEND_METADATA, hdr, sizeof(hdr), text + from, len - from);
	if (ret)
		return rfail(r, ret, "send metadata: %s", why(ret));
	md = malloc(len ? len : 1);
	if (!md)
		return rfail(r, -ENOMEM, "out of memory");
	memcpy(md, text, len);
	free(r->md);
	r->md = md;
	r->mdlen = len;
	if (!r->ns)
		return grow_streams(r, r->o.ncpus ? r->o.ncpus : rtr_cpu_possible());
	return 0;
}

/* The kept packets at the front that the relayd wrote are confirmed. */
static void confirm_front(struct rtr_relayd *r)
{
	while (r->nun && r->un[r->un_first].written) {
		r->un_first = (r->un_first + 1) % UNWRITTEN;
		r->nun--;
		r->confirmed++;
	}
}

/*
 * The answers awaited: those already here (@all false), or all of them;
 * at most AWAITED - 1 are left awaited.  An index's must be LTTNG_OK; a
 * DATA_PENDING's 0 (written: the kept packets of its stream up to its
 * number are) or 1.
 */
static int answers_read(struct rtr_relayd *r, bool all)
{
	int here = 0;

	if (r->failed)
		return -EIO;
	if (!all && ioctl(r->ctrl, FIONREAD, &here))
		here = 0;
	while (r->acks && (all || here >= 4 || r->acks >= AWAITED)) {
		const struct awaited *a = &r->aw[r->aw_first];
		bool pending = a->kind == AW_PENDING;
		uint8_t rc[4];
		int ret = rtr_recv_all(r->ctrl, rc, sizeof(rc));

		if (ret)
			return rfail(r, ret, "%s: %s", aw_what[a->kind], why(ret));
		if (pending ? get_be32(rc) > 1 : get_be32(rc) != LTTNG_OK)
			return rfail(r, -EPROTO, "%s: %s %" PRIu32, aw_what[a->kind],
				     pending ? "answered" : "refused, code", get_be32(rc));
		for (uint32_t i = 0; pending && !get_be32(rc) && i < r->nun; i++) {
			struct unconfirmed *u = &r->un[(r->un_first + i) % UNWRITTEN];

			if (u->cpu == a->cpu && u->seq <= a->seq)
				u->written = true;
		}
		r->asking -= pending;
		r->aw_first = (r->aw_first + 1) % AWAITED;
		r->acks--;
		here -= 4;
	}
	confirm_front(r);
	return 0;
}

/*
 * A command whose answer is read later (answers_read()): a SEND_INDEX
 * (@kind AW_INDEX, AW_BEACON) or a DATA_PENDING about stream @cpu up to
 * @seq.
 */
static int command_awaited(struct rtr_relayd *r, uint8_t kind, const void *msg, size_t len,
			   uint32_t cpu, uint64_t seq)
{
	int ret;

	if (r->acks == AWAITED && (ret = answers_read(r, false)))
		return ret;	/* (it reads until one is left to await) */
	ret = command_only(r, kind == AW_PENDING ? CMD_DATA_PENDING : CMD_SEND_INDEX, msg, len,
			   NULL, 0);
	if (ret)
		return rfail(r, ret, "%s: %s", aw_what[kind], why(ret));
	r->aw[(r->aw_first + r->acks++) % AWAITED] = (struct awaited){ kind, cpu, seq };
	r->asking += kind == AW_PENDING;
	return 0;
}

/*
 * Ask the relayd what it wrote of the kept packets: a DATA_PENDING for
 * each stream among them, up to its newest in the older half (the relayd
 * writes in order: the newest are the least likely written), or in all of
 * them (@all); the answers are read with the others (answers_read()).
 */
static int ask(struct rtr_relayd *r, bool all)
{
	uint32_t lim = all || r->nun < 2 ? r->nun : r->nun / 2;

	r->unasked = 0;
	for (uint32_t i = 0; i < lim; i++) {
		const struct unconfirmed *u = &r->un[(r->un_first + i) % UNWRITTEN];
		uint64_t top = u->seq;
		uint8_t msg[16];
		bool first = true;
		int ret;

		for (uint32_t j = 0; j < lim && first; j++) {
			const struct unconfirmed *v = &r->un[(r->un_first + j) % UNWRITTEN];

			if (j < i && v->cpu == u->cpu && !v->written)
				first = false;	/* asked already, at its first */
			if (j > i && v->cpu == u->cpu && v->seq > top)
				top = v->seq;
		}
		if (u->written || !first)
			continue;
		put_be64(msg, r->s[u->cpu].handle);
		put_be64(msg + 8, top);
		ret = command_awaited(r, AW_PENDING, msg, sizeof(msg), u->cpu, top);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Until at most @most kept packets are not known written: ask, read the
 * answers, and if the relayd has not written them yet ask again 1 ms, then
 * up to 20 ms later, within the timeout.  Return: 0 or -errno.
 */
static int unwritten(struct rtr_relayd *r, uint32_t most)
{
	uint64_t until = rtr_monotonic_ns() + (uint64_t)r->timeout_ms * 1000000ull;
	useconds_t nap = 1000;

	for (;;) {
		int ret = answers_read(r, false);

		if (ret)
			return ret;
		if (r->nun <= most)
			return 0;
		if (!r->asking && (ret = ask(r, !most)))
			return ret;
		if ((ret = answers_read(r, true)))
			return ret;
		if (r->nun <= most)
			return 0;
		if (rtr_monotonic_ns() > until)
			return rfail(r, -ETIMEDOUT, "%u packets sent and still not written after %d "
				     "ms (the relayd is stalled)", r->nun, r->timeout_ms);
		usleep(nap);
		nap = nap < 20000 ? nap * 2 : 20000;
	}
}

/*
 * The packet's index, on the control connection, as live readers need it.
 * Its answer is read later (answers_read()), while the next packets go:
 * waiting for each, as LTTng's consumer does, leaves the relayd idle a
 * round trip a packet (Documentation/network.rst, Figures).  A kept packet
 * is remembered (@un) until the relayd says it wrote it (unwritten()), to
 * be sent again in the session that follows if the relayd fails first
 * (reconnect()).
 */
static int send_index(struct rtr_relayd *r, struct rstream *s, uint64_t seq,
		      const struct rtr_packet_hdr *h, uint32_t cpu, const void *hdr,
		      const void *body, size_t size, bool keep)
{
	uint8_t msg[80];
	size_t len = r->minor >= 8 ? 80 : 64;	/* index 1.1 from 2.8, else 1.0 */
	struct unconfirmed *u;
	int ret;

	put_be64(msg, s->handle);
	put_be64(msg + 8, seq);
	put_be64(msg + 16, h->packet_size);
	put_be64(msg + 24, h->content_size);
	put_be64(msg + 32, h->timestamp_begin);
	put_be64(msg + 40, h->timestamp_end);
	put_be64(msg + 48, h->events_discarded);
	put_be64(msg + 56, h->stream_id);
	put_be64(msg + 64, cpu);
	put_be64(msg + 72, h->packet_seq_num);
	if (keep && r->nun == UNWRITTEN && (ret = unwritten(r, UNWRITTEN - 1)))
		return ret;	/* no room: until the relayd wrote the oldest */
	ret = command_awaited(r, AW_INDEX, msg, len, cpu, seq);
	if (ret)
		return ret;
	if (!keep)	/* the caller's memory goes back as soon as we return */
		return answers_read(r, true);
	u = &r->un[(r->un_first + r->nun++) % UNWRITTEN];
	u->cpu = cpu;
	u->written = false;
	u->seq = seq;
	u->size = size;
	u->body = body;
	memcpy(u->hdr, hdr, sizeof(u->hdr));
	r->pushed = true;
	/* Every few packets, unless a question is out: asking costs no wait. */
	if (++r->unasked >= ASK_EVERY && !r->asking && (ret = ask(r, false)))
		return ret;
	return answers_read(r, false);
}

/*
 * Packet @h (its header, copied from @hdr, the caller's) and body, as the
 * next one of stream @cpu; @keep: send_index().
 */
static int send_packet(struct rtr_relayd *r, uint32_t cpu, struct rtr_packet_hdr *h,
		       const void *hdr, const void *body, size_t size, bool keep)
{
	struct rstream *s = &r->s[cpu];
	uint8_t dh[DATA_HDR] = { 0 };
	struct iovec iov[3] = {
		{ dh, sizeof(dh) }, { h, RTR_PACKET_HDR_SIZE },
		{ (void *)body, size - RTR_PACKET_HDR_SIZE },
	};
	int ret;

	put_be64(dh + 8, s->handle);
	put_be64(dh + 16, s->next_seq);
	put_be32(dh + 24, (uint32_t)size);
	ret = rtr_send_all(r->data, iov, 3);
	if (ret)
		return rfail(r, ret, "data connection (port %u), packet of CPU %u: %s",
			     r->data_port, cpu, why(ret));
	s->next_seq++;	/* sent: whatever the answer, the next is the next */
	ret = send_index(r, s, s->next_seq - 1, h, cpu, hdr, body, size, keep);
	if (ret)
		return ret;
	s->last_end = h->timestamp_end;
	s->any = true;
	return 0;
}

static int packet_once(struct rtr_relayd *r, uint32_t cpu, const void *hdr, const void *body,
		       size_t size, bool keep)
{
	struct rtr_packet_hdr h;
	int ret;

	if (r->failed)
		return -EIO;
	if (!r->streams_made)
		return rfail(r, -EINVAL, "a packet came before the metadata");
	if (size < RTR_PACKET_HDR_SIZE || size > UINT32_MAX)
		return rfail(r, -EINVAL, "packet of CPU %u, %zu bytes: not a packet", cpu, size);
	if (cpu >= r->ns && (ret = grow_streams(r, cpu + 1)))
		return ret;
	memcpy(&h, hdr, sizeof(h));
	if (!r->have_uuid) {
		memcpy(r->uuid, h.uuid, sizeof(r->uuid));
		r->have_uuid = true;
	}
	/* After a header-only opening packet: sequence numbers one up, times not before it. */
	h.packet_seq_num += r->s[cpu].seq_shift;
	if (h.content_size == (uint64_t)RTR_PACKET_HDR_SIZE * 8 && r->s[cpu].any &&
	    h.timestamp_begin < r->s[cpu].last_end) {
		h.timestamp_begin = r->s[cpu].last_end;	/* no record: only losses told */
		if (h.timestamp_end < h.timestamp_begin)
			h.timestamp_end = h.timestamp_begin;
	}
	ret = send_packet(r, cpu, &h, hdr, body, size, keep);
	if (ret)
		return ret;	/* its errno: a lost connection is worth a reconnect */
	r->s[cpu].raw_seq = h.packet_seq_num - r->s[cpu].seq_shift;
	r->s[cpu].have_raw = true;
	r->st.packets++;
	r->st.bytes += size;
	return 0;
}

/*
 * A beacon (an index of size 0) says a stream has nothing before @ts; the
 * relayd takes it only for a stream that has had a packet.  A stream with
 * none gets a header-only packet at @ts first: every event before @ts has
 * been given, so none of its packets to come begins before (Documentation/
 * network.rst, "Beacons").
 */
static int progress_once(struct rtr_relayd *r, uint64_t ts)
{
	if (r->failed)
		return -EIO;
	for (uint32_t cpu = 0; cpu < r->ns; cpu++) {
		struct rstream *s = &r->s[cpu];
		uint8_t msg[80] = { 0 };
		size_t len = r->minor >= 8 ? 80 : 64;
		int ret;

		if (!s->any && r->have_uuid) {
			struct rtr_packet_hdr h = {
				.magic = RTR_CTF_MAGIC,
				.stream_instance_id = cpu,
				.timestamp_begin = ts,
				.packet_seq_num = 0,
				.cpu_id = cpu,
				.timestamp_end = ts,
				.content_size = (uint64_t)RTR_PACKET_HDR_SIZE * 8,
				.packet_size = (uint64_t)RTR_PACKET_HDR_SIZE * 8,
			};

			memcpy(h.uuid, r->uuid, sizeof(h.uuid));
			/*
			 * Sequence number 0, and the stream's one up; or, in a
			 * session after the relayd came back, the last one sent
			 * before: no gap that would read as packets lost.
			 */
			h.packet_seq_num = s->have_raw ? s->raw_seq : 0;
			s->seq_shift = s->have_raw ? 0 : 1;
			ret = send_packet(r, cpu, &h, &h, NULL, RTR_PACKET_HDR_SIZE, false);
			if (ret)
				return ret;
			r->st.empty++;
			continue;
		}
		if (!s->any || ts < s->last_end)
			continue;
		put_be64(msg, s->handle);
		put_be64(msg + 8, s->next_seq - 1);
		/* packet_size and content_size 0: a beacon */
		put_be64(msg + 40, ts);	/* timestamp_end */
		put_be64(msg + 72, s->next_seq - 1);
		/* its answer awaited as an index's: a stalled relayd stalls nothing here */
		ret = command_awaited(r, AW_BEACON, msg, len, cpu, 0);
		if (ret)
			return ret;
		r->st.beacons++;
	}
	return 0;
}

/*
 * The session again on a relayd that came back (restarted, or reachable
 * again), within @o.retry_ms of the failure: a new session (its name the
 * first one's and "-rN"), its streams, the metadata so far, and the packets
 * sent that it never confirmed (kept by the caller until then).  The packets
 * the writers made meanwhile waited in the queue, then were dropped by the
 * ring and counted, as with a slow disk.  Return: 0, or -EIO (the first
 * failure's message kept, and that the relayd did not come back).
 */
static int reconnect(struct rtr_relayd *r, int why_ret)
{
	uint64_t until = rtr_monotonic_ns() + r->o.retry_ms * 1000000ull;
	char first[sizeof(r->err)], last[sizeof(r->err)];
	struct unconfirmed un[UNWRITTEN];
	uint32_t n = r->ns, nun = 0, confirmed = r->confirmed;
	char *md;
	size_t mdlen;

	/* Only a connection lost or stalled: a relayd that refused a command would again. */
	if (!r->o.retry_ms || !r->failed || (why_ret != -EPIPE && why_ret != -ECONNRESET &&
					    why_ret != -ENODATA && why_ret != -EAGAIN &&
					    why_ret != -ETIMEDOUT && why_ret != -ECONNREFUSED))
		return -EIO;
	snprintf(first, sizeof(first), "%s", r->err);
	/* The packets the relayd never said it wrote, in order, to send again. */
	for (uint32_t i = 0; i < r->nun; i++)
		un[nun++] = r->un[(r->un_first + i) % UNWRITTEN];
	r->acks = r->asking = r->nun = 0;
	for (;;) {
		int ret;

		if (r->data >= 0)
			close(r->data);
		if (r->ctrl >= 0)
			close(r->ctrl);
		r->ctrl = r->data = -1;
		r->failed = false;
		r->st.reconnects++;	/* names the session; taken back if it fails */
		ret = connect_session(r);
		if (!ret && r->streams_made && r->md) {
			/* The streams again, from the metadata sent so far. */
			md = r->md;
			mdlen = r->mdlen;
			r->md = NULL;
			r->mdlen = 0;
			r->ns = 0;
			r->streams_made = false;
			r->meta_version = 0;
			ret = metadata_once(r, md, mdlen);
			if (!ret)
				ret = grow_streams(r, n);
			if (ret && !r->md) {
				r->md = md;	/* kept for the next try */
				r->mdlen = mdlen;
				r->streams_made = true;
			} else {
				free(md);
			}
		} else if (!ret) {
			r->ns = 0;
			r->streams_made = false;
		}
		for (uint32_t i = 0; i < nun && !ret; i++) {
			ret = packet_once(r, un[i].cpu, un[i].hdr, un[i].body, un[i].size, true);
			if (!ret) {
				r->st.packets--;	/* counted when first sent */
				r->st.bytes -= un[i].size;
				r->st.resent++;
			}
		}
		if (!ret) {
			snprintf(r->st.outage, sizeof(r->st.outage), "%s", first);
			return 0;
		}
		r->acks = r->asking = r->nun = 0;	/* those of this try, resent by the next */
		r->confirmed = confirmed;
		r->st.reconnects--;
		if (rtr_monotonic_ns() >= until)
			break;
		usleep(200000);
	}
	snprintf(last, sizeof(last), "%s", r->err);
	snprintf(r->err, sizeof(r->err), "%.180s; not back within %" PRIu64 " s (%.180s)", first,
		 r->o.retry_ms / 1000, last + strcspn(last, ":") + (last[0] ? 2 : 0));
	r->failed = true;
	return -EIO;
}

int rtr_relayd_metadata(struct rtr_relayd *r, const char *text, size_t len)
{
	int ret = metadata_once(r, text, len);

	if (ret && !reconnect(r, ret))
		ret = metadata_once(r, text, len);
	return ret;
}

int rtr_relayd_packet(struct rtr_relayd *r, uint32_t cpu, const void *hdr, const void *body,
		      size_t size, bool keep)
{
	bool pushed;
	int ret;

	r->pushed = false;
	ret = packet_once(r, cpu, hdr, body, size, keep);
	pushed = r->pushed;
	/* Reconnected: sent again with the unconfirmed, if it was one of them. */
	if (ret && !reconnect(r, ret) && !(keep && pushed))
		ret = packet_once(r, cpu, hdr, body, size, keep);
	return ret;
}

int rtr_relayd_confirmed(struct rtr_relayd *r, bool wait)
{
	int n;

	while (r->nun || r->acks) {
		int ret = wait ? unwritten(r, 0) : answers_read(r, false);

		if (!ret)
			break;
		if (reconnect(r, ret))
			return ret;
		/* the unconfirmed sent again in the new session: asked about now */
		if (!wait)
			break;
	}
	n = (int)r->confirmed;
	r->confirmed = 0;
	return n;
}

int rtr_relayd_progress(struct rtr_relayd *r, uint64_t ts)
{
	int ret = progress_once(r, ts);

	if (ret && !reconnect(r, ret))
		ret = progress_once(r, ts);
	return ret;
}

/*
 * Whether the relayd has still to write packets of @s up to net_seq_num
 * @seq (DATA_PENDING answers 0 or 1; 1 also while their indexes are).
 */
static int pending(struct rtr_relayd *r, struct rstream *s, uint64_t seq)
{
	uint8_t msg[16], rc[4];
	int ret;

	put_be64(msg, s->handle);
	put_be64(msg + 8, seq);
	ret = command(r, CMD_DATA_PENDING, msg, sizeof(msg), NULL, 0);
	if (!ret)
		ret = reply(r, rc, sizeof(rc));
	if (ret)
		return rfail(r, ret, "data pending: %s", why(ret));
	if (get_be32(rc) > 1)
		return rfail(r, -EPROTO, "data pending: answered %" PRIu32, get_be32(rc));
	return (int)get_be32(rc);
}

static int close_stream(struct rtr_relayd *r, struct rstream *s)
{
	uint8_t msg[16];

	put_be64(msg, s->handle);
	put_be64(msg + 8, s->any ? s->next_seq - 1 : UINT64_MAX);
	return command_ok(r, CMD_CLOSE_STREAM, "close stream", msg, sizeof(msg));
}

/*
 * 2.11: every stream leaves the chunk after its last packet (a rotation to
 * no chunk), then the chunk is closed, as `lttng destroy` does: a live
 * reader still reads the packets it had not read when the streams close
 * (the relayd keeps a stream's last chunk readable only after such a
 * rotation).  ROTATE_STREAMS: a count (u32), the new chunk (u8 set 0, u64),
 * then per stream its id and the first sequence number not in the chunk.
 * CLOSE_TRACE_CHUNK: id, time (u64), a command (u8 set 0, u32); its answer
 * a code, a path length (u32) and the path.
 */
static int end_chunk(struct rtr_relayd *r)
{
	size_t len = 13 + 16 * ((size_t)r->ns + 1);
	uint8_t *msg = calloc(1, len), cl[21] = { 0 }, ans[8], path[REPLY_PATH_MAX];
	uint32_t plen;
	int ret;

	if (!msg)
		return rfail(r, -ENOMEM, "out of memory");
	put_be32(msg, r->ns + 1);
	for (uint32_t i = 0; i <= r->ns; i++) {
		struct rstream *s = i < r->ns ? &r->s[i] : &r->meta;

		put_be64(msg + 13 + 16 * i, s->handle);
		put_be64(msg + 13 + 16 * i + 8, s->next_seq);
	}
	ret = command_ok(r, CMD_ROTATE_STREAMS, "rotate streams", msg, len);
	free(msg);
	if (ret)
		return ret;
	put_be64(cl, r->chunk_id);
	put_be64(cl + 8, (uint64_t)time(NULL));
	ret = command(r, CMD_CLOSE_TRACE_CHUNK, cl, sizeof(cl), NULL, 0);
	if (!ret)
		ret = reply(r, ans, sizeof(ans));
	if (!ret) {
		plen = get_be32(ans + 4);
		if (plen > sizeof(path))
			return rfail(r, -EPROTO, "close trace chunk: answered a path of %" PRIu32
				     " bytes", plen);
		ret = reply(r, path, plen);
	}
	if (ret)
		return rfail(r, ret, "close trace chunk: %s", why(ret));
	if (get_be32(ans) != LTTNG_OK)
		return rfail(r, -EPROTO, "close trace chunk: refused (code %" PRIu32 ")",
			     get_be32(ans));
	return 0;
}

int rtr_relayd_close(struct rtr_relayd *r)
{
	uint64_t until = rtr_monotonic_ns() + (uint64_t)r->timeout_ms * 1000000ull;

	if (r->failed)
		return -EIO;
	/* Every packet written by the relayd before we go: a reader finds the trace whole. */
	for (uint32_t cpu = 0; cpu < r->ns; cpu++) {
		int p = 0;

		while (r->s[cpu].any && (p = pending(r, &r->s[cpu], r->s[cpu].next_seq - 1)) == 1) {
			if (rtr_monotonic_ns() > until)
				return rfail(r, -ETIMEDOUT, "stream of CPU %u: packets still not "
					     "written after %d ms", cpu, r->timeout_ms);
			usleep(2000);
		}
		if (p < 0 && r->s[cpu].any)
			return p;
	}
	if (r->minor >= PROTO_CHUNKS && r->streams_made && end_chunk(r))
		return -EIO;
	for (uint32_t cpu = 0; cpu < r->ns; cpu++)
		if (close_stream(r, &r->s[cpu]))
			return -EIO;
	if (r->streams_made && close_stream(r, &r->meta))
		return -EIO;
	return 0;
}

const char *rtr_relayd_error(const struct rtr_relayd *r)
{
	return r->err;
}

const struct rtr_relayd_stats *rtr_relayd_stats(const struct rtr_relayd *r)
{
	return &r->st;
}

void rtr_relayd_free(struct rtr_relayd *r)
{
	if (!r)
		return;
	if (r->data >= 0)
		close(r->data);
	if (r->ctrl >= 0)
		close(r->ctrl);
	free(r->s);
	free(r->md);
	free(r);
}
