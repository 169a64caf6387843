/* fwpt — status codes: every function of the library that can fail returns one (enum fwpt_status), with a
 * short name and a one-line message. Stability: a code keeps its name, value and meaning; new codes are only
 * ever appended to their module's block (docs/api.md). */
#ifndef FWPT_STATUS_H
#define FWPT_STATUS_H

#include "fwpt/export.h"

/* X(name, message). Each module owns one block; add new values only inside your own block. */
#define FWPT_STATUS_LIST(X)                                                              \
    X(OK, "success")                                                                     \
    /* general */                                                                        \
    X(E_INVAL, "invalid argument")                                                       \
    X(E_NOMEM, "buffer too small or out of memory")                                      \
    X(E_FAULT, "the CPU raised #GP on the access (MSR not implemented or value refused)") \
    X(E_UNSUPPORTED, "not supported by this processor")                                  \
    X(E_IO, "input/output error")                                                        \
    /* arch: caps, trace sequence */                                                     \
    X(E_NOPT, "Intel PT is not usable on this processor")                                \
    X(E_CTL, "a trace setting is refused by the capabilities")                           \
    X(E_TRACE_ACTIVE, "TraceEn was already set")                                         \
    X(E_TRACE_ERROR, "IA32_RTIT_STATUS.Error is set")                                    \
    /* topa: plan, table validation, readback, model */                                  \
    X(E_PLAN, "no output plan satisfies the options")                                    \
    X(E_TOPA, "ToPA table violates an SDM rule")                                         \
    X(E_SINGLE_RANGE, "single-range output violates an SDM rule")                        \
    X(E_RESTRICTED, "output overlaps restricted memory")                                 \
    /* decode: packets */                                                                \
    X(E_EOS, "end of trace")                                                             \
    X(E_NOSYNC, "no PSB found")                                                          \
    X(E_TRUNCATED, "packet truncated by the end of the trace")                           \
    X(E_BAD_OPCODE, "unknown or reserved packet encoding")                               \
    X(E_BAD_IPC, "reserved IPBytes value")                                               \
    X(E_BAD_PACKET, "malformed packet payload")                                          \
    X(E_TOO_LONG, "CYC packet longer than 255 bytes")                                    \
    /* decode: instructions and flow */                                                  \
    X(E_BAD_INSN, "undecodable instruction")                                             \
    X(E_NOMAP, "no code bytes at this address")                                          \
    X(E_NO_TNT, "conditional branch but no TNT bit left")                                \
    X(E_NO_TIP, "indirect transfer but no TIP packet")                                   \
    X(E_BAD_QUERY, "packet does not fit the instruction flow")                           \
    X(E_RETSTACK, "compressed return with an empty call stack")                          \
    X(E_RUNAWAY, "walk exceeded the step limit without a packet")                        \
    X(E_BAD_STATUS, "PSB+ status contradicts the decoded execution mode")                \
    X(E_INTERNAL, "decoder internal error: an event found the event queue full")       \
    /* decode: time */                                                                   \
    X(E_NO_TIME, "no timing information")                                                \
    X(E_NO_CALIBRATION, "no calibration")                                                \
    X(E_TIME_CONTEXT, "unexpected packet context")                                       \
    X(E_TIME_CONFIG, "CPUID 15H ratio unknown (TSC per crystal clock)")                  \
    X(E_CTC_GAP, "CTC moved by more than one wrap of the MTC payload")                   \
    X(E_BAD_CBR, "CBR with core:bus ratio 0")                                            \
    X(E_TIME_RANGE, "calibration interval too long")                                     \
    X(E_BAD_CONTEXT, "Event Trace packets that do not fit together (EVD and CFE)")       \
    /* efi */                                                                            \
    X(E_FIRMWARE, "a firmware service failed")

enum fwpt_status {
#define FWPT_STATUS_ENUM(n, m) FWPT_##n,
    FWPT_STATUS_LIST(FWPT_STATUS_ENUM)
#undef FWPT_STATUS_ENUM
    FWPT_STATUS_COUNT
};

FWPT_BEGIN_DECLS

/* The name without the FWPT_ prefix, e.g. "E_TRUNCATED"; "E_UNKNOWN" for a value out of range. */
FWPT_API const char *fwpt_status_name(enum fwpt_status s);
/* One-line human message; "unknown status" for a value out of range. */
FWPT_API const char *fwpt_status_msg(enum fwpt_status s);

FWPT_END_DECLS

#endif
