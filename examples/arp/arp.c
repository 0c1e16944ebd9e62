// SPDX-License-Identifier: MIT
/*
 * ringtrace-arp - the bug hunt of mirage's tracing tutorial, in C.  A
 * program opens a "TCP connection" to an address it must first resolve with
 * ARP: it sends an ARP probe, and once the network driver confirms that
 * the probe went out ("ring.write" resolved), it waits for the "ARP
 * response" condition, which the receive path broadcasts when the reply
 * comes in.  If the reply arrives before the transmit confirmation, the
 * broadcast finds nobody waiting, the wait that starts afterwards is never
 * woken, and the connection hangs.
 *
 *   ringtrace-arp                  the usual order: confirmation, then reply
 *   ringtrace-arp --race           the reply first: the program hangs (it
 *                                  gives up after --timeout, status 1)
 *   ringtrace-arp --race --fixed   the fix the seeds adopted: a one-shot
 *                                  wait, resolved once, whether before or
 *                                  after anyone waits for it
 *
 * The connection's task is marked rtr_should_resolve(): in the hanging
 * run's trace it never resolves and is drawn red to the end.  The program
 * prints nothing about why: the trace says (`ringtrace stats --hangs`).
 *
 * The "network device" is a thread of its own (netif) that takes transmit
 * requests from a queue and reports completions and received packets back
 * to the loop with pr_post(): the same hand-off as a real driver's event
 * channel.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ringtrace/ringtrace.h>
#include "examples/promise/promise.h"

static struct pr_loop *loop;
static struct pr_arena *arena;
static bool opt_race, opt_fixed;
static unsigned opt_timeout_ms = 1000;
static uint32_t packets_sent;

/* ---- the network device: a thread with a transmit queue ---------------------------- */

enum pkt { PKT_ARP_PROBE, PKT_TCP_SYN, PKT_TCP_DATA };

struct tx {
	enum pkt pkt;
	struct pr_promise *done;	/* "ring.write": resolved when the packet went out */
	struct tx *next;
};

static pthread_mutex_t txq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t txq_cond = PTHREAD_COND_INITIALIZER;
static struct tx *txq_head, **txq_tail = &txq_head;
static bool netif_stop;

static void sleep_us(unsigned us)
{
	struct timespec ts = { 0, (long)us * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* In the loop: the driver's completion for @arg (a struct tx). */
static void tx_complete(void *arg)
{
	struct tx *t = arg;
	uint64_t ev = rtr_task_id(), prev;

	rtr_create(pr_loop_task(loop), ev, RTR_KIND_TASK);
	rtr_label(ev, "netif: tx done");
	prev = pr_enter(loop, ev);
	pr_resolve(t->done, ev, 0);
	rtr_resolve(ev, ev);
	pr_leave(loop, prev);
	free(t);
}

static void arp_reply_received(void *arg);

static void *netif(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "netif");
	for (;;) {
		struct tx *t;

		pthread_mutex_lock(&txq_lock);
		while (!txq_head && !netif_stop)
			pthread_cond_wait(&txq_cond, &txq_lock);
		if (!txq_head) {
			pthread_mutex_unlock(&txq_lock);
			return NULL;
		}
		t = txq_head;
		txq_head = t->next;
		if (!txq_head)
			txq_tail = &txq_head;
		pthread_mutex_unlock(&txq_lock);

		sleep_us(200);	/* on the wire */
		if (t->pkt == PKT_ARP_PROBE && opt_race) {
			/* The reply overtakes the transmit confirmation. */
			pr_post(loop, arp_reply_received, NULL);
			sleep_us(300);
			pr_post(loop, tx_complete, t);
		} else if (t->pkt == PKT_ARP_PROBE) {
			pr_post(loop, tx_complete, t);
			sleep_us(300);
			pr_post(loop, arp_reply_received, NULL);
		} else {
			pr_post(loop, tx_complete, t);
		}
	}
}

/* In the loop: queue @pkt; the promise ("ring.write") resolves when it went out. */
static struct pr_promise *transmit(enum pkt pkt)
{
	struct tx *t = calloc(1, sizeof(*t));

	if (!t) {
		perror("calloc");
		exit(1);
	}
	t->pkt = pkt;
	t->done = pr_wait(arena, loop, RTR_KIND_WAIT, "ring.write");
	rtr_counter_add(packets_sent, 1);
	pthread_mutex_lock(&txq_lock);
	*txq_tail = t;
	txq_tail = &t->next;
	pthread_cond_signal(&txq_cond);
	pthread_mutex_unlock(&txq_lock);
	return t->done;
}

/* ---- ARP ----------------------------------------------------------------------------- */

/*
 * The cache's one entry: incomplete while the query runs, with either the
 * condition (the bug) or the one-shot wait (the fix) that the reply
 * completes.
 */
static enum { ARP_NONE, ARP_INCOMPLETE, ARP_RESOLVED } arp_state;
static struct pr_cond arp_cond;
static struct pr_promise *arp_wait;

static struct pr_promise *wait_for_reply(void *arg, struct pr_promise *probe)
{
	(void)arg;
	(void)probe;
	if (opt_fixed)
		return arp_wait;		/* resolved already, or when the reply comes */
	return pr_cond_wait(arena, &arp_cond);	/* misses a reply that came first */
}

static struct pr_promise *arp_query(void)
{
	if (opt_fixed)
		arp_wait = pr_wait(arena, loop, RTR_KIND_WAIT, "ARP response");
	else
		pr_cond_init(&arp_cond, loop, "ARP response");
	arp_state = ARP_INCOMPLETE;
	return pr_then(arena, transmit(PKT_ARP_PROBE), wait_for_reply, NULL, "ARP query");
}

/* In the loop: the reply came in (an event from the device). */
static void arp_reply_received(void *arg)
{
	uint64_t ev = rtr_task_id(), prev;

	(void)arg;
	rtr_create(pr_loop_task(loop), ev, RTR_KIND_TASK);
	rtr_label(ev, "netif: rx ARP reply");
	prev = pr_enter(loop, ev);
	if (arp_state == ARP_INCOMPLETE) {
		if (opt_fixed)
			pr_resolve(arp_wait, ev, 0x0200feffffff);
		else
			pr_cond_broadcast(&arp_cond, 0x0200feffffff);
		arp_state = ARP_RESOLVED;
	}
	rtr_resolve(ev, ev);
	pr_leave(loop, prev);
}

/* ---- TCP ----------------------------------------------------------------------------- */

static struct pr_promise *send_syn(void *arg, struct pr_promise *mac)
{
	(void)arg;
	(void)mac;
	return transmit(PKT_TCP_SYN);
}

static struct pr_promise *send_data(void *arg, struct pr_promise *conn)
{
	(void)arg;
	(void)conn;
	return transmit(PKT_TCP_DATA);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ringtrace-arp [--race] [--fixed] [--timeout MS]\n"
		   "  --race      the ARP reply arrives before the probe's transmit completes\n"
		   "  --fixed     wait for the reply with a one-shot wait, not a condition\n"
		   "  --timeout   give up on the connection after MS milliseconds (1000)\n");
}

int main(int argc, char **argv)
{
	struct pr_promise *conn, *sent;
	pthread_t dev;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--race")) {
			opt_race = true;
		} else if (!strcmp(argv[i], "--fixed")) {
			opt_fixed = true;
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			opt_timeout_ms = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	rtr_counter_register("packets sent", &packets_sent);
	arena = pr_arena_new();
	loop = pr_loop_new("main loop");
	ret = pthread_create(&dev, NULL, netif, NULL);
	if (ret) {
		fprintf(stderr, "ringtrace-arp: pthread_create: %s\n", strerror(ret));
		return 1;
	}
	/* TCP connect: resolve the address, send the SYN; then one byte of data. */
	conn = pr_then(arena, arp_query(), send_syn, NULL, "TCP connect");
	rtr_should_resolve(pr_task(conn));
	sent = pr_then(arena, conn, send_data, NULL, "TCP write");
	ret = pr_loop_run(loop, sent, (uint64_t)opt_timeout_ms * 1000000u);

	pthread_mutex_lock(&txq_lock);
	netif_stop = true;
	pthread_cond_signal(&txq_cond);
	pthread_mutex_unlock(&txq_lock);
	pthread_join(dev, NULL);
	pr_loop_free(loop);
	pr_arena_free(arena);
	if (ret == -ETIMEDOUT) {
		printf("ringtrace-arp: no connection after %u ms: it hangs\n", opt_timeout_ms);
		return 1;
	}
	printf("ringtrace-arp: connected, 1 byte sent\n");
	return 0;
}
