/* fwpt — tables over a struct's bool fields (option words, IA32_RTIT_CTL flags): a field named by its offset,
 * and the bool found there. Freestanding. */
#ifndef FWPT_BASE_FIELDS_H
#define FWPT_BASE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

/* The offset of TYPE's member FIELD, which must be a bool: any other type does not compile (_Generic has no
 * other association), since fwpt_bool_at reads and writes the member as a bool. A constant expression. */
#define FWPT_BOOL_FIELD(TYPE, FIELD) (offsetof(TYPE, FIELD) + 0 * sizeof(_Generic(((TYPE *)0)->FIELD, bool: 0)))

/* The bool at offset off (from FWPT_BOOL_FIELD) of the struct at s. */
static inline bool *fwpt_bool_at(void *s, size_t off) { return (bool *)((char *)s + off); }

#endif
