/* SPDX-License-Identifier: MIT */
/*
 * format/classes.h - the task model's event classes (enum rtr_event_id) as
 * CTF describes them: the built-in schema the writer emits and the reader
 * recognises classes by (by name and layout, never by id).
 */
#ifndef RTR_FORMAT_CLASSES_H
#define RTR_FORMAT_CLASSES_H

#include <stdint.h>
#include "format/ctf.h"

/*
 * rtr_event_builtin() - the class of built-in event @id (enum
 * rtr_event_id): its name, id and fields, as written into every trace; the
 * counter event's enum without its labels (the registry's counter names).
 * NULL if @id is not a built-in event.
 */
const struct rtr_ctf_event *rtr_event_builtin(uint32_t id);

#endif /* RTR_FORMAT_CLASSES_H */
