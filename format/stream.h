/* SPDX-License-Identifier: MIT */
/*
 * format/stream.h - the framed stream of `ringtrace record -o -`, written
 * once: what the consumer writes (consumer/output.c) and the readers read
 * (consumer/stream_in.c, reader/live.c).  Documentation/consumer.rst.
 */
#ifndef RTR_FORMAT_STREAM_H
#define RTR_FORMAT_STREAM_H

/*
 * The framed stream: an 16-byte prologue, then frames, little-endian:
 *   prologue  "RTRSTRM\0", u32 version (1), u32 0
 *   frame     u32 type, u32 arg, u64 len, then len bytes
 * METADATA carries the whole TSDL text (it replaces the previous one), PACKET
 * one CTF packet of stream @arg (the CPU), PROGRESS a u64 watermark: every
 * event before that clock value is in a frame already, END the clean end
 * (arg 0: complete, 1: the writer stopped early).  A stream that ends with
 * no END frame was cut.
 */
#define RTR_STREAM_MAGIC "RTRSTRM"
#define RTR_STREAM_VERSION 1
#define RTR_STREAM_PROLOGUE 16
#define RTR_FRAME_HDR 16
#define RTR_FRAME_METADATA_MAX (16u << 20)
#define RTR_FRAME_PACKET_MAX (64u << 20)

enum rtr_frame_type {
	RTR_FRAME_METADATA = 1,
	RTR_FRAME_PACKET = 2,
	RTR_FRAME_PROGRESS = 3,
	RTR_FRAME_END = 4,
};

#endif /* RTR_FORMAT_STREAM_H */
