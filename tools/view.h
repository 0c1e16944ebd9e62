/* SPDX-License-Identifier: MIT */
/*
 * tools/view.h - the page `ringtrace view` (tools/view.c) writes: its sources
 * under tools/viewer/, which the build embeds (scripts/embed.sh).
 */
#ifndef RTR_TOOLS_VIEW_H
#define RTR_TOOLS_VIEW_H

#include <stddef.h>

/* tools/viewer/viewer.{html,css,js}, generated into viewer_assets.c: NUL-terminated. */
extern const char rtr_viewer_html[];
extern const size_t rtr_viewer_html_len;
extern const char rtr_viewer_css[];
extern const size_t rtr_viewer_css_len;
extern const char rtr_viewer_js[];
extern const size_t rtr_viewer_js_len;

/* tools/viewer/serve.{html,js}: the page of `ringtrace view --serve` (tools/serve.c). */
extern const char rtr_serve_html[];
extern const size_t rtr_serve_html_len;
extern const char rtr_serve_js[];
extern const size_t rtr_serve_js_len;

#endif /* RTR_TOOLS_VIEW_H */
