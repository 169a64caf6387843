/* fwpt — packet printers: ptdump-style text and JSON lines, through struct fwpt_sink so that the EFI
 * application and the host tool print the same bytes. One packet (or error) per line, '\n' included. */
#ifndef FWPT_RENDER_PKT_PRINT_H
#define FWPT_RENDER_PKT_PRINT_H

#include "base/status.h"
#include "base/text.h"
#include "decode/packet.h"

/* "0000000000000000  psb", "0000000000000010  tip       3: 0x00007fff12345678  ip 0x00007fff12345678" */
void fwpt_pkt_print_text(const struct fwpt_sink *o, const struct fwpt_packet *pkt);
/* {"offset":16,"type":"tip","size":7,"ipc":3,"payload":"0x7fff12345678","ip":"0x7fff12345678"} */
void fwpt_pkt_print_json(const struct fwpt_sink *o, const struct fwpt_packet *pkt);

/* The same with a time column (decode/time.h's fwpt_time_column): col_id "tsc" or "fcr", col its text.
 * Text: "000000000000001a  mtc       2                        tsc  +18"; JSON: "time":"+18" / "fcr":"+0.250". */
void fwpt_pkt_print_text_col(const struct fwpt_sink *o, const struct fwpt_packet *pkt, const char *col_id,
                             const char *col);
void fwpt_pkt_print_json_col(const struct fwpt_sink *o, const struct fwpt_packet *pkt, const char *col_id,
                             const char *col);
/* A time diagnostic, as libipt's ptdump prints it: "[14: calibration error: no timing information]";
 * {"offset":20,"time_error":"calibration error","status":"E_NO_TIME","message":"no timing information"} */
void fwpt_pkt_print_time_diag_text(const struct fwpt_sink *o, uint64_t offset, const char *what, enum fwpt_status s);
void fwpt_pkt_print_time_diag_json(const struct fwpt_sink *o, uint64_t offset, const char *what, enum fwpt_status s);

/* "0000000000000123  error: truncated (packet truncated by the end of the trace)" */
void fwpt_pkt_print_error_text(const struct fwpt_sink *o, uint64_t offset, enum fwpt_status s);
/* {"offset":291,"error":"truncated"} */
void fwpt_pkt_print_error_json(const struct fwpt_sink *o, uint64_t offset, enum fwpt_status s);

/* Lower-case error name used in both formats: "truncated", "bad_opcode", "bad_ipc", "bad_packet", ... */
const char *fwpt_pkt_print_error_name(enum fwpt_status s);

#endif
