/* fwpt — the boot timeline: per image of the image map (plus one bucket for IPs in no module), in the order each
 * image first ran, the instructions (and TSC ticks) it ran itself and with its callees, the calls that entered it
 * from another image, grouped by caller function and target. Fed every instruction and event in order, as
 * fwpt_profile_add is (the weight of an instruction: its ticks, from analyze/time_spread; 0 without timing).
 *
 * An image is on the call stack while the current instruction is in it, or any open frame was entered in it or
 * called from it (the call instruction's image): "with callees" counts every instruction executed while the image
 * is on the call stack, once however many times it is there (A -> B -> A counts A's inner instructions once).
 * Frames open and close as the profile's (fwpt_profile_frame_after, fwpt_profile_call_lands; an interrupt enters
 * its handler as a call from the interrupted instruction's image; an overflow or error leaves every frame). Each
 * image counts its time on the stack by intervals (the instruction count when it came on, added when it went off):
 * O(1) per instruction and per call, whatever the depth. Freestanding; the tables are the caller's. */
#ifndef FWPT_ANALYZE_TIMELINE_H
#define FWPT_ANALYZE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analyze/profile.h"

#define FWPT_TIMELINE_NEVER (~(uint64_t)0) /* first: the image never ran */
#define FWPT_TIMELINE_ENTRIES 4096         /* entry-call slots the tool and the app give (a power of two) */

struct fwpt_timeline_image {
    uint64_t first;             /* index of its first instruction in the flow (FWPT_TIMELINE_NEVER: none) */
    uint64_t self, incl;        /* instructions in it; executed while it was on the call stack */
    uint64_t self_ticks, incl_ticks;
    uint64_t since, since_ticks; /* the counts when it last came on the stack (refs 0 -> 1) */
    uint32_t refs;              /* open frames entered in or called from it, + 1 while the current IP is in it */
    uint32_t pad;
};

/* Calls from another image (or from no image) that landed in image: count of them from the function caller
 * (the innermost frame's entry when the call was made; FWPT_FLOW_NO_IP: code outside any traced call) in
 * caller_image to target. interrupt: asynchronous entries (the handler of an interrupt that came in caller_image). */
struct fwpt_timeline_entry {
    uint64_t target;  /* FWPT_FLOW_NO_IP: free slot */
    uint64_t caller;
    uint64_t count;
    uint32_t image, caller_image; /* module indexes; mods->n: no module */
    uint8_t interrupt;
    uint8_t pad[7];
};

struct fwpt_timeline_frame {
    uint64_t entry;               /* the function entered */
    uint32_t call_image, entry_image;
};

struct fwpt_timeline {
    struct fwpt_modules *mods;
    size_t nimages;               /* mods->n + 1: the last is "no module" */
    struct fwpt_timeline_image *img;
    struct fwpt_timeline_entry *entries;
    size_t entries_mask, nentries;
    struct fwpt_timeline_frame stack[FWPT_PROFILE_DEPTH];
    uint32_t depth;
    uint32_t cur;                 /* the image of the last instruction (holds a ref); nimages: none yet */
    uint8_t call_pending;
    uint64_t call_next;           /* the pending call's next IP (a zero-length call lands there: no call) */
    uint32_t call_image;          /* ... and its image */
    uint64_t insns, ticks, events;
    uint64_t dropped;             /* entry calls that did not fit the table (the "entered by" lines are incomplete) */
    bool ended;                   /* fwpt_timeline_end was called: incl counts are final */
};

/* img: mods->n + 1 entries (mods may be NULL: one bucket); entries: nentries slots, a power of two. */
void fwpt_timeline_init(struct fwpt_timeline *t, struct fwpt_modules *mods, struct fwpt_timeline_image *img,
                        struct fwpt_timeline_entry *entries, size_t nentries);
/* Every instruction and event in order; an instruction counts 1 instruction and w ticks. */
void fwpt_timeline_add(struct fwpt_timeline *t, const struct fwpt_flow_event *ev, uint64_t w);
/* fwpt_timeline_add as a fwpt_time_spread hook (ctx: the timeline). */
void fwpt_timeline_add_hook(void *ctx, const struct fwpt_flow_event *ev, uint64_t w);
/* At the end of the flow: the images still on the stack get their last interval (incl final). Idempotent. */
void fwpt_timeline_end(struct fwpt_timeline *t);

/* The image that ran first after prev (nimages: the first of all), by first instruction; nimages after the last
 * one that ran. */
size_t fwpt_timeline_next(const struct fwpt_timeline *t, size_t prev);
/* The images that ran. */
size_t fwpt_timeline_count(const struct fwpt_timeline *t);
/* The entry call slot of image after prev ((size_t)-1: the first): count descending, then target, caller function
 * and caller image base ascending (not the map's order: the app's and the host's maps differ); (size_t)-1 after
 * the last. *n (may be NULL): the entry call slots of image in all. */
size_t fwpt_timeline_next_entry(const struct fwpt_timeline *t, size_t image, size_t prev, size_t *n);
/* The top functions of image by p's self count (the profile's per-function table, the order of
 * fwpt_profile_next_top: count descending, then entry ascending): up to max slot indexes of p->funcs into out;
 * returns how many were written, *n (may be NULL): the functions of p whose entry is in image. */
size_t fwpt_timeline_top_funcs(const struct fwpt_timeline *t, const struct fwpt_profile *p, size_t image,
                               size_t *out, size_t max, size_t *n);

#endif
