/* SPDX-License-Identifier: MIT */
/*
 * tools/serve.h - `ringtrace view --serve` (tools/serve.c): the scene behind
 * a local HTTP server.
 */
#ifndef RTR_TOOLS_SERVE_H
#define RTR_TOOLS_SERVE_H

#include <stdint.h>
#include "view/live.h"
#include "view/scene.h"

/*
 * rtr_view_serve() - serve @scene until SIGINT or SIGTERM.
 * @scene: a built scene (its model alive), or NULL with @live.
 * @live: a recording to follow (--follow; view/live.h), or NULL: its scene,
 *	made again as it grows, is served once it has one.
 * @title: the page's title.
 * @bind: the address to listen on (NULL: 127.0.0.1), IPv4 or IPv6.
 * @port: the port (0: one the system picks).
 *
 * Prints the URL, with its token, as the first line of standard output once
 * the server answers.
 * Return: the command's exit status: 0 stopped by a signal, 1 the server
 * could not start, 2 @bind is not an address.
 */
int rtr_view_serve(struct rtr_scene *scene, struct rtr_live *live, const char *title,
		   const char *bind, unsigned port);

/*
 * rtr_view_serve_big() - serve the trace @dir, too large for a model here
 * (more than @cap events): the page draws its overview, and the slice
 * around a window of few enough events (view/slices.h).  Return: as
 * rtr_view_serve().
 */
int rtr_view_serve_big(const char *dir, uint64_t cap, const char *bind, unsigned port);

#endif /* RTR_TOOLS_SERVE_H */
