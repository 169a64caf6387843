/* fwpt — status codes: every function of the library that can fail returns one (enum fwpt_status), with a
 * short name and a one-line message. Stability: a code keeps its name, value and meaning; new codes are only
 * ever appended with the next free number (docs/status.md, docs/api.md). */
#ifndef FWPT_STATUS_H
#define FWPT_STATUS_H

#include "fwpt/export.h"

/* X(name, value, message): the one table of the codes (docs/status.md lists them with who returns each).
 * The values are stable: flow events and saved files carry them as numbers. The list is append-only, in the
 * order of the values: a new code goes at the end with the next free number; nothing is renumbered or
 * reused; a code retired leaves its number unused (its row deleted, a comment in its place).
 * tests/unit/test_status.c pins every value and checks docs/status.md against this table. */
#define FWPT_STATUS_LIST(X)                                                              \
    X(OK, 0, "success")                                                                  \
    /* general */                                                                        \
    X(E_INVAL, 1, "invalid argument")                                                    \
    X(E_NOMEM, 2, "buffer too small or out of memory")                                   \
    X(E_FAULT, 3, "the CPU raised #GP on the access (MSR not implemented or value refused)") \
    X(E_UNSUPPORTED, 4, "not supported by this processor")                               \
    X(E_IO, 5, "input/output error")                                                     \
    /* arch: caps, trace sequence */                                                     \
    X(E_NOPT, 6, "Intel PT is not usable on this processor")                             \
    X(E_CTL, 7, "a trace setting is refused by the capabilities")                        \
    X(E_TRACE_ACTIVE, 8, "TraceEn was already set")                                      \
    X(E_TRACE_ERROR, 9, "IA32_RTIT_STATUS.Error is set")                                 \
    /* topa: plan, table validation, readback, model */                                  \
    X(E_PLAN, 10, "no output plan satisfies the options")                                \
    X(E_TOPA, 11, "ToPA table violates an SDM rule")                                     \
    X(E_SINGLE_RANGE, 12, "single-range output violates an SDM rule")                    \
    X(E_RESTRICTED, 13, "output overlaps restricted memory")                             \
    /* decode: packets */                                                                \
    X(E_EOS, 14, "end of trace")                                                         \
    X(E_NOSYNC, 15, "no PSB found")                                                      \
    X(E_TRUNCATED, 16, "packet truncated by the end of the trace")                       \
    X(E_BAD_OPCODE, 17, "unknown or reserved packet encoding")                           \
    X(E_BAD_IPC, 18, "reserved IPBytes value")                                           \
    X(E_BAD_PACKET, 19, "malformed packet payload")                                      \
    X(E_TOO_LONG, 20, "CYC packet longer than 255 bytes")                                \
    /* decode: instructions and flow */                                                  \
    X(E_BAD_INSN, 21, "undecodable instruction")                                         \
    X(E_NOMAP, 22, "no code bytes at this address")                                      \
    X(E_NO_TNT, 23, "conditional branch but no TNT bit left")                            \
    X(E_NO_TIP, 24, "indirect transfer but no TIP packet")                               \
    X(E_BAD_QUERY, 25, "packet does not fit the instruction flow")                       \
    X(E_RETSTACK, 26, "compressed return with an empty call stack")                      \
    X(E_RUNAWAY, 27, "walk exceeded the step limit without a packet")                    \
    X(E_BAD_STATUS, 28, "PSB+ status contradicts the decoded execution mode")            \
    X(E_INTERNAL, 29, "decoder internal error: an event found the event queue full")     \
    /* decode: time */                                                                   \
    X(E_NO_TIME, 30, "no timing information")                                            \
    X(E_NO_CALIBRATION, 31, "no calibration")                                            \
    X(E_TIME_CONTEXT, 32, "unexpected packet context")                                   \
    X(E_TIME_CONFIG, 33, "CPUID 15H ratio unknown (TSC per crystal clock)")              \
    X(E_CTC_GAP, 34, "CTC moved by more than one wrap of the MTC payload")               \
    X(E_BAD_CBR, 35, "CBR with core:bus ratio 0")                                        \
    X(E_TIME_RANGE, 36, "calibration interval too long")                                 \
    X(E_BAD_CONTEXT, 37, "Event Trace packets that do not fit together (EVD and CFE)")   \
    /* efi */                                                                            \
    X(E_FIRMWARE, 38, "a firmware service failed")

enum fwpt_status {
#define FWPT_STATUS_ENUM(n, v, m) FWPT_##n = v,
    FWPT_STATUS_LIST(FWPT_STATUS_ENUM)
#undef FWPT_STATUS_ENUM
    FWPT_STATUS_COUNT /* one past the highest value (the list is in the order of the values) */
};

FWPT_BEGIN_DECLS

/* The name without the FWPT_ prefix, e.g. "E_TRUNCATED"; "E_UNKNOWN" for a value the table does not hold. */
FWPT_API const char *fwpt_status_name(enum fwpt_status s);
/* One-line human message; "unknown status" for a value the table does not hold. */
FWPT_API const char *fwpt_status_msg(enum fwpt_status s);

FWPT_END_DECLS

#endif
