// SPDX-License-Identifier: MIT
/*
 * consumer/convert.c - a region file to a CTF trace directory, in one pass:
 * the metadata (task model classes and the registry's names), then every
 * complete packet of every CPU, and the open packets' committed prefixes
 * when the producer has stopped or died.  The simple path until the
 * consumer daemon; `ringtrace convert` runs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ringtrace/consumer.h>
#include "consumer/convert.h"
#include "events/classes.h"
#include "ringbuf/compiler.h"
#include "platform/platform.h"


static bool producer_gone(const struct rtr_consumer *c)
{
	const struct rtr_region_hdr *h = rtr_consumer_region(c);

	if (rtr_consumer_stopped(c))
		return true;
	return h->producer_pid && kill((pid_t)h->producer_pid, 0) < 0 && errno == ESRCH;
}

/* Copy the registry out of the live region, then parse the copy. */
static int read_registry(const char *region, struct rtr_registry *reg, char *err, size_t errlen)
{
	struct rtr_region_hdr h;
	char *text = NULL;
	int fd, ret = 0;

	fd = open(region, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (pread(fd, &h, sizeof(h), 0) != sizeof(h)) {
		ret = -EIO;
		goto out;
	}
	/* rtr_consumer_open() checked the layout; metadata_len may have grown. */
	if (h.metadata_len > h.metadata_cap || h.metadata_cap > RTR_METADATA_MAX) {
		snprintf(err, errlen, "registry length %u exceeds its area", h.metadata_len);
		ret = -EPROTO;
		goto out;
	}
	text = malloc(h.metadata_len + 1);
	if (!text) {
		ret = -ENOMEM;
		goto out;
	}
	if (pread(fd, text, h.metadata_len, (off_t)h.metadata_off) != (ssize_t)h.metadata_len) {
		ret = -EIO;
		goto out;
	}
	ret = rtr_registry_parse(text, h.metadata_len, reg, err, errlen);
out:
	free(text);
	close(fd);
	return ret;
}

static int write_metadata(int dirfd, const struct rtr_region_hdr *h, const struct rtr_registry *reg)
{
	int fd = openat(dirfd, "metadata", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f;
	int ret;

	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	ret = rtr_events_write_metadata(f, h, reg, NULL);
	if (fflush(f) || fsync(fd))
		ret = ret ? ret : -errno;
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

int rtr_convert(const char *region, const char *dir, struct rtr_convert_report *rep)
{
	struct rtr_registry reg;
	struct rtr_consumer *c;
	bool gone;
	int dirfd, ret;

	memset(rep, 0, sizeof(*rep));
	ret = rtr_consumer_open(&c, region, rep->err, sizeof(rep->err));
	if (ret)
		return ret;
	ret = read_registry(region, &reg, rep->registry_err, sizeof(rep->registry_err));
	if (ret == -EPROTO) {
		/* Keep the packets; only the counter names are lost. */
		memset(&reg, 0, sizeof(reg));
	} else if (ret) {
		snprintf(rep->err, sizeof(rep->err), "%s: registry: %s", region, strerror(-ret));
		goto out_consumer;
	}
	if (mkdir(dir, 0700) < 0) {
		ret = -errno;
		snprintf(rep->err, sizeof(rep->err), "%s: %s%s", dir, strerror(errno),
			 errno == EEXIST ? " (an existing trace is never overwritten)" : "");
		goto out_reg;
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0) {
		ret = -errno;
		snprintf(rep->err, sizeof(rep->err), "%s: %s", dir, strerror(errno));
		goto out_reg;
	}
	ret = write_metadata(dirfd, rtr_consumer_region(c), &reg);
	if (ret) {
		snprintf(rep->err, sizeof(rep->err), "%s/metadata: %s", dir, strerror(-ret));
		goto out_dir;
	}
	gone = producer_gone(c);
	rep->producer_gone = gone;
	rep->ncpus = rtr_consumer_region(c)->ncpus;
	for (uint32_t cpu = 0; cpu < rep->ncpus && !ret; cpu++) {
		struct rtr_consumer_packet pkt;
		struct rtr_consumer_stats st;
		char name[32];
		int fd;

		snprintf(name, sizeof(name), "stream_%u", cpu);
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			ret = -errno;
			snprintf(rep->err, sizeof(rep->err), "%s/%s: %s", dir, name, strerror(errno));
			break;
		}
		/* Bounded: a producer still writing gets at most a buffer per pass. */
		for (int pass = 0; pass < 64 && !ret; pass++) {
			int got = 0;

			while (!ret && rtr_consumer_get(c, cpu, &pkt) == 0) {
				rtr_consumer_put(c, cpu);
				rep->lost_packets += pkt.skipped;
				rep->packets++;
				rep->bytes += pkt.size;
				got = 1;
				ret = rtr_write_all(fd, pkt.data, pkt.size);
			}
			if (!got)
				break;
		}
		if (!ret && gone && rtr_consumer_salvage(c, cpu, &pkt) == 0) {
			rtr_consumer_put(c, cpu);
			rep->lost_packets += pkt.skipped;
			rep->salvaged++;
			rep->packets++;
			rep->bytes += pkt.size;
			ret = rtr_write_all(fd, pkt.data, pkt.size);
		}
		/* Losses after the last packet: one more, header only, to tell them. */
		if (!ret && gone && rtr_consumer_tail(c, cpu, &pkt) == 0) {
			rtr_consumer_put(c, cpu);
			rep->packets++;
			rep->bytes += pkt.size;
			ret = rtr_write_all(fd, pkt.data, pkt.size);
		}
		if (ret)
			snprintf(rep->err, sizeof(rep->err), "%s/%s: %s", dir, name, strerror(-ret));
		else if (fsync(fd))
			ret = -errno;
		close(fd);
		rtr_consumer_get_stats(c, cpu, &st);
		rep->damaged += st.damaged;
		rep->events_lost += rtr_consumer_lost(c, cpu);
	}
out_dir:
	close(dirfd);
out_reg:
	rtr_registry_free(&reg);
out_consumer:
	rtr_consumer_close(c);
	return ret;
}
