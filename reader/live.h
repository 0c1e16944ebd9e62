/* SPDX-License-Identifier: MIT */
/*
 * reader/live.h - a live client of lttng-relayd: follow a session through
 * the relayd's viewer protocol (LTTng live, its port 5344) and turn it into
 * the framed stream of `ringtrace record -o -`, which reader/input.c spools
 * as it does standard input.  So every reading command takes
 * net://HOST[:PORT]/host/HOSTNAME/SESSION.  Documentation/network.rst,
 * "Reading a session live".
 *
 * Every answer of the relayd is input from the network: sizes are checked
 * against the command's and against bounds, names must end within their
 * fields, and a packet's bytes are checked again by the spool
 * (format/frames.c) like any framed stream's.
 */
#ifndef RTR_READER_LIVE_H
#define RTR_READER_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#define TR_LIVE_SCHEME "net://"
#define TR_LIVE_PORT 5344		/* lttng-relayd's live port */

/*
 * tr_live_copy() - attach to the session @url names (from its first
 * packet) and write it to @fd as a framed stream: the metadata as it
 * grows, each packet of each stream, a progress frame once every stream
 * is known up to a time (a packet's end, or the relayd's beacon), and the
 * end frame when the session ends.  Returns when it ends, on an error, or
 * within 100 ms of *@stop becoming true (then with no end frame: a cut
 * stream).  Return: 0, or -errno with @err set (-EINVAL a bad @url,
 * -ENOENT no such session, -EPROTO an answer that is not the protocol's,
 * -ETIMEDOUT no answer within 10 s, -EPIPE @fd's reader is gone).
 */
int tr_live_copy(const char *url, int fd, const volatile bool *stop, char *err, size_t errlen);

#endif /* RTR_READER_LIVE_H */
