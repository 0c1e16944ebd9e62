/* SPDX-License-Identifier: MIT */
/*
 * tools/export_perfetto.h - the task model as a Perfetto protobuf trace
 * (`ringtrace export --format perfetto`); the mapping is in
 * Documentation/analysis.rst, the messages in tools/perfetto_trace.proto.
 */
#ifndef RTR_TOOLS_EXPORT_PERFETTO_H
#define RTR_TOOLS_EXPORT_PERFETTO_H

#include <stdbool.h>
#include <stdio.h>

struct rtr_model;

/*
 * rtr_export_perfetto() - write @m to @f as a Perfetto trace: a stream of
 * TracePackets, compressed as a gzip file (which Perfetto opens as it is)
 * if @gzip.  Return: 0; -ENOMEM; -EIO (a write failed).
 */
int rtr_export_perfetto(const struct rtr_model *m, FILE *f, bool gzip);

#endif /* RTR_TOOLS_EXPORT_PERFETTO_H */
