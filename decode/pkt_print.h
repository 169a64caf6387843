/* fwpt — packet printers: ptdump-style text and JSON lines, through struct fwpt_sink so that the EFI
 * application and the host tool print the same bytes. One packet (or error) per line, '\n' included. */
#ifndef FWPT_DECODE_PKT_PRINT_H
#define FWPT_DECODE_PKT_PRINT_H

#include "arch/status.h"
#include "arch/text.h"
#include "decode/packet.h"

/* "0000000000000000  psb", "0000000000000010  tip       3: 0x00007fff12345678  ip 0x00007fff12345678" */
void fwpt_pkt_print_text(const struct fwpt_sink *o, const struct fwpt_packet *pkt);
/* {"offset":16,"type":"tip","size":7,"ipc":3,"payload":"0x7fff12345678","ip":"0x7fff12345678"} */
void fwpt_pkt_print_json(const struct fwpt_sink *o, const struct fwpt_packet *pkt);

/* "0000000000000123  error: truncated (packet truncated by the end of the trace)" */
void fwpt_pkt_print_error_text(const struct fwpt_sink *o, uint64_t offset, enum fwpt_status s);
/* {"offset":291,"error":"truncated"} */
void fwpt_pkt_print_error_json(const struct fwpt_sink *o, uint64_t offset, enum fwpt_status s);

/* Lower-case error name used in both formats: "truncated", "bad_opcode", "bad_ipc", "bad_packet", ... */
const char *fwpt_pkt_error_name(enum fwpt_status s);

#endif
