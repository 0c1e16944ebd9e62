/* SPDX-License-Identifier: MIT */
/*
 * reader/profile.h - the CPU samples of a model (record --sample; model.h:
 * rtr_model.cpu_samples and their call tree, rtr_model.frames) summed up:
 * per function, how many samples were in it (self) and under it (total),
 * for `stats --samples`; and as folded stacks ("thread;outer;...;inner
 * COUNT" lines, the input of flame graph tools and speedscope) for
 * `export --format folded`.  Documentation/pthread.rst, "CPU samples".
 */
#ifndef RTR_READER_PROFILE_H
#define RTR_READER_PROFILE_H

#include <stdint.h>
#include <stdio.h>
#include "reader/model.h"

/* The deepest stack walked (the kernel's perf_event_max_stack is 127). */
#define RTR_PROFILE_DEPTH	512

/**
 * struct rtr_profile_fn - one function's samples.
 * @name: string (rtr_model_str()): its name, as the frames have it.
 * @self: samples whose innermost frame it is.
 * @total: samples with it anywhere on the stack (once each, recursion or not).
 */
struct rtr_profile_fn {
	uint32_t name;
	uint64_t self;
	uint64_t total;
};

/*
 * rtr_profile_functions() - every function of the samples from @t0 to
 * @t1 (model time, inclusive), most self samples first (then most total,
 * then by name): *@out (malloc'd, free() it; NULL when there are none),
 * *@n of them; *@samples: the samples in the range.
 * Return: 0, or -ENOMEM.
 */
int rtr_profile_functions(const struct rtr_model *m, int64_t t0, int64_t t1,
			  struct rtr_profile_fn **out, uint32_t *n, uint64_t *samples);

/*
 * rtr_profile_folded() - the samples as folded stacks into @f: a line per
 * distinct (thread name, stack), "THREAD;OUTER;...;INNER COUNT", the
 * thread's name as its task has it ("thread TID" without one); ';' and
 * line ends in names replaced by '_'.  Sorted by the text.
 * Return: 0, -ENOMEM, or -EIO when @f failed.
 */
int rtr_profile_folded(const struct rtr_model *m, FILE *f);

#endif /* RTR_READER_PROFILE_H */
