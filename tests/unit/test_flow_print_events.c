/* Every event kind through the flow printer (render/flow_print: one table of the fields each kind shows, a text and
 * a JSON lines renderer walking it), exact bytes in both formats: each field, and each condition that shows or hides
 * one. IP 0x1234 is in module DxeCore (0x1000..0x1fff), 0x9000 in none. */
#include "render/flow_print.h"
#include "tests/check.h"

static char buf[1024];
static uint8_t code[16];

/* ev as the printer writes it in format fmt. */
static const char *print(enum fwpt_flow_format fmt, const struct fwpt_flow_event *ev)
{
    struct fwpt_module m = {.name = "DxeCore", .base = 0x1000, .size = 0x1000, .code = code, .code_size = sizeof code};
    struct fwpt_modules mods = {&m, 1, 0};
    struct fwpt_bufsink bs;
    struct fwpt_sink out = fwpt_bufsink_init(&bs, buf, sizeof buf - 1);
    struct fwpt_flow_printer pr = {&out, fmt, &mods, NULL, NULL, 0, NULL};
    fwpt_flow_print_event(&pr, ev);
    buf[bs.len < sizeof buf ? bs.len : sizeof buf - 1] = 0;
    return buf;
}

static void expect(struct fwpt_flow_event ev, const char *text, const char *jsonl)
{
    CHECK_STR(print(FWPT_FLOW_FMT_TEXT, &ev), text);
    CHECK_STR(print(FWPT_FLOW_FMT_JSONL, &ev), jsonl);
}

#define EV(...) ((struct fwpt_flow_event){__VA_ARGS__})

TEST(enabled)
{
    expect(EV(.kind = FWPT_FLOW_ENABLED, .ip = 0x1234, .offset = 0x10),
           "-- enabled at 0x1234 (DxeCore+0x234) [trace offset 0x10]\n",
           "{\"type\":\"enabled\",\"ip\":\"0x1234\",\"module\":\"DxeCore\",\"module_offset\":\"0x234\""
           ",\"offset\":16}\n");
    expect(EV(.kind = FWPT_FLOW_ENABLED, .ip = 0x9000, .sync = 1, .detail = 1, .offset = 0x10),
           "-- enabled (PSB+) at 0x9000 [trace offset 0x10]\n",
           "{\"type\":\"enabled\",\"ip\":\"0x9000\",\"sync\":true,\"resumed\":true,\"offset\":16}\n");
}

TEST(disabled)
{
    expect(EV(.kind = FWPT_FLOW_DISABLED, .offset = 0x20),
           "-- disabled [trace offset 0x20]\n",
           "{\"type\":\"disabled\",\"async\":false,\"offset\":32}\n");
    expect(EV(.kind = FWPT_FLOW_DISABLED, .ip_valid = 1, .ip = 0x1234, .offset = 0x20),
           "-- disabled (target 0x1234 (DxeCore+0x234)) [trace offset 0x20]\n",
           "{\"type\":\"disabled\",\"ip\":\"0x1234\",\"module\":\"DxeCore\",\"module_offset\":\"0x234\""
           ",\"async\":false,\"offset\":32}\n");
    expect(EV(.kind = FWPT_FLOW_DISABLED, .ip_valid = 1, .async = 1, .detail = 1, .ip = 0x1234, .to = 0x9000,
              .offset = 0x20),
           "-- disabled at 0x1234 (DxeCore+0x234) [trace offset 0x20]\n",
           "{\"type\":\"disabled\",\"ip\":\"0x1234\",\"module\":\"DxeCore\",\"module_offset\":\"0x234\""
           ",\"target\":\"0x9000\",\"async\":true,\"offset\":32}\n");
}

TEST(interrupt)
{
    expect(EV(.kind = FWPT_FLOW_INTERRUPT, .ip = 0x1234, .to = 0x9000, .offset = 0x30),
           "-- interrupt from 0x1234 (DxeCore+0x234) to 0x9000 [trace offset 0x30]\n",
           "{\"type\":\"interrupt\",\"from\":\"0x1234\",\"from_module\":\"DxeCore\",\"from_offset\":\"0x234\""
           ",\"to\":\"0x9000\",\"offset\":48}\n");
}

TEST(overflow)
{
    expect(EV(.kind = FWPT_FLOW_OVERFLOW, .offset = 0x40),
           "-- overflow [trace offset 0x40]\n",
           "{\"type\":\"overflow\",\"offset\":64}\n");
    expect(EV(.kind = FWPT_FLOW_OVERFLOW, .ip_valid = 1, .ip = 0x1234, .offset = 0x40),
           "-- overflow, resumes at 0x1234 (DxeCore+0x234) [trace offset 0x40]\n",
           "{\"type\":\"overflow\",\"ip\":\"0x1234\",\"module\":\"DxeCore\",\"module_offset\":\"0x234\""
           ",\"offset\":64}\n");
}

TEST(mode)
{
    expect(EV(.kind = FWPT_FLOW_MODE, .mode = 32, .offset = 0x50),
           "-- mode 32-bit [trace offset 0x50]\n",
           "{\"type\":\"mode\",\"mode\":32,\"offset\":80}\n");
    expect(EV(.kind = FWPT_FLOW_MODE, .mode = 64, .ip_valid = 1, .ip = 0x9000, .offset = 0x50),
           "-- mode 64-bit at 0x9000 [trace offset 0x50]\n",
           "{\"type\":\"mode\",\"mode\":64,\"ip\":\"0x9000\",\"offset\":80}\n");
}

TEST(error)
{
    expect(EV(.kind = FWPT_FLOW_ERROR, .status = FWPT_E_NOMAP, .ip_valid = 1, .ip = 0x1234, .offset = 0x60),
           "-- error: no code bytes at this address (E_NOMAP) at 0x1234 (DxeCore+0x234) [trace offset 0x60]\n",
           "{\"type\":\"error\",\"status\":\"E_NOMAP\",\"message\":\"no code bytes at this address\""
           ",\"ip\":\"0x1234\",\"module\":\"DxeCore\",\"module_offset\":\"0x234\",\"offset\":96}\n");
}

TEST(tsx)
{
    expect(EV(.kind = FWPT_FLOW_TSX, .detail = FWPT_TSX_BEGIN, .ip_valid = 1, .ip = 0x1234, .offset = 0x70),
           "-- TSX transaction begins at 0x1234 (DxeCore+0x234) [trace offset 0x70]\n",
           "{\"type\":\"tsx\",\"tsx\":\"begin\",\"ip\":\"0x1234\",\"module\":\"DxeCore\""
           ",\"module_offset\":\"0x234\",\"offset\":112}\n");
    expect(EV(.kind = FWPT_FLOW_TSX, .detail = FWPT_TSX_COMMIT, .offset = 0x70),
           "-- TSX transaction commits [trace offset 0x70]\n",
           "{\"type\":\"tsx\",\"tsx\":\"commit\",\"offset\":112}\n");
    expect(EV(.kind = FWPT_FLOW_TSX, .detail = FWPT_TSX_ABORT, .ip_valid = 1, .ip = 0x9000, .offset = 0x70),
           "-- TSX transaction aborts at 0x9000 [trace offset 0x70]\n",
           "{\"type\":\"tsx\",\"tsx\":\"abort\",\"ip\":\"0x9000\",\"offset\":112}\n");
    expect(EV(.kind = FWPT_FLOW_TSX, .sync = 1, .detail = FWPT_TSX_BEGIN, .offset = 0x70),
           "-- in a TSX transaction (PSB+ status) [trace offset 0x70]\n",
           "{\"type\":\"tsx\",\"tsx\":\"begin\",\"status\":true,\"offset\":112}\n");
    expect(EV(.kind = FWPT_FLOW_TSX, .sync = 1, .detail = FWPT_TSX_NONE, .offset = 0x70),
           "-- in a TSX transaction (PSB+ status): no [trace offset 0x70]\n",
           "{\"type\":\"tsx\",\"tsx\":\"abort\",\"status\":true,\"offset\":112}\n");
}

TEST(stopped)
{
    expect(EV(.kind = FWPT_FLOW_STOPPED, .offset = 0x80),
           "-- tracing stopped (TraceStop) [trace offset 0x80]\n",
           "{\"type\":\"stopped\",\"offset\":128}\n");
}

TEST(paging)
{
    expect(EV(.kind = FWPT_FLOW_PAGING, .to = 0x7ff000, .offset = 0x90),
           "-- paging: CR3 0x7ff000 [trace offset 0x90]\n",
           "{\"type\":\"paging\",\"cr3\":\"0x7ff000\",\"nr\":false,\"offset\":144}\n");
    expect(EV(.kind = FWPT_FLOW_PAGING, .to = 0x7ff000, .detail = 1, .offset = 0x90),
           "-- paging: CR3 0x7ff000 (non-root) [trace offset 0x90]\n",
           "{\"type\":\"paging\",\"cr3\":\"0x7ff000\",\"nr\":true,\"offset\":144}\n");
}

TEST(vmcs)
{
    expect(EV(.kind = FWPT_FLOW_VMCS, .to = 0x12345000, .offset = 0xa0),
           "-- VMCS 0x12345000 [trace offset 0xa0]\n",
           "{\"type\":\"vmcs\",\"base\":\"0x12345000\",\"offset\":160}\n");
}

TEST(ptwrite)
{
    expect(EV(.kind = FWPT_FLOW_PTWRITE, .to = 0xdeadbeef, .size = 4, .offset = 0xb0),
           "-- ptwrite 0xdeadbeef [trace offset 0xb0]\n",
           "{\"type\":\"ptwrite\",\"payload\":\"0xdeadbeef\",\"bytes\":4,\"offset\":176}\n");
    expect(EV(.kind = FWPT_FLOW_PTWRITE, .to = 0x1122334455667788, .size = 8, .ip_valid = 1, .ip = 0x1234,
              .offset = 0xb0),
           "-- ptwrite 0x1122334455667788 at 0x1234 (DxeCore+0x234) [trace offset 0xb0]\n",
           "{\"type\":\"ptwrite\",\"payload\":\"0x1122334455667788\",\"bytes\":8,\"ip\":\"0x1234\""
           ",\"module\":\"DxeCore\",\"module_offset\":\"0x234\",\"offset\":176}\n");
}

TEST(exstop)
{
    expect(EV(.kind = FWPT_FLOW_EXSTOP, .offset = 0xc0),
           "-- execution stopped (EXSTOP) [trace offset 0xc0]\n",
           "{\"type\":\"exstop\",\"offset\":192}\n");
    expect(EV(.kind = FWPT_FLOW_EXSTOP, .ip_valid = 1, .ip = 0x1234, .offset = 0xc0),
           "-- execution stopped (EXSTOP) at 0x1234 (DxeCore+0x234) [trace offset 0xc0]\n",
           "{\"type\":\"exstop\",\"ip\":\"0x1234\",\"module\":\"DxeCore\",\"module_offset\":\"0x234\""
           ",\"offset\":192}\n");
}

TEST(cbr)
{
    expect(EV(.kind = FWPT_FLOW_CBR, .detail = 36, .offset = 0xd0),
           "-- core:bus ratio 36 [trace offset 0xd0]\n",
           "{\"type\":\"cbr\",\"ratio\":36,\"offset\":208}\n");
}

TEST(mnt)
{
    expect(EV(.kind = FWPT_FLOW_MNT, .to = 0xabcdef, .offset = 0xe0),
           "-- maintenance packet 0xabcdef [trace offset 0xe0]\n",
           "{\"type\":\"mnt\",\"payload\":\"0xabcdef\",\"offset\":224}\n");
}

TEST(mwait)
{
    expect(EV(.kind = FWPT_FLOW_MWAIT, .to = 0x0000000100000020ull, .offset = 0xf0),
           "-- MWAIT hints 0x20, extensions 0x1 [trace offset 0xf0]\n",
           "{\"type\":\"mwait\",\"hints\":\"0x20\",\"ext\":\"0x1\",\"offset\":240}\n");
    expect(EV(.kind = FWPT_FLOW_MWAIT, .to = 0x21, .ip_valid = 1, .ip = 0x9000, .offset = 0xf0),
           "-- MWAIT hints 0x21, extensions 0x0 at 0x9000 [trace offset 0xf0]\n",
           "{\"type\":\"mwait\",\"hints\":\"0x21\",\"ext\":\"0x0\",\"ip\":\"0x9000\",\"offset\":240}\n");
}

TEST(pwre)
{
    expect(EV(.kind = FWPT_FLOW_PWRE, .detail = 0, .size = 15, .offset = 0x100),
           "-- power entry: C1.0 [trace offset 0x100]\n",
           "{\"type\":\"pwre\",\"state\":\"C1.0\",\"hw\":false,\"offset\":256}\n");
    expect(EV(.kind = FWPT_FLOW_PWRE, .detail = 5, .size = 1, .async = 1, .offset = 0x100),
           "-- power entry: C6.2 (hardware) [trace offset 0x100]\n",
           "{\"type\":\"pwre\",\"state\":\"C6.2\",\"hw\":true,\"offset\":256}\n");
}

TEST(pwrx)
{
    expect(EV(.kind = FWPT_FLOW_PWRX, .detail = 0, .size = 15, .status = 1, .offset = 0x110),
           "-- power exit: last C1, deepest C0, wake: interrupt [trace offset 0x110]\n",
           "{\"type\":\"pwrx\",\"last\":\"C1\",\"deepest\":\"C0\",\"wake\":\"interrupt\",\"offset\":272}\n");
    expect(EV(.kind = FWPT_FLOW_PWRX, .detail = 2, .size = 2, .status = 4, .offset = 0x110),
           "-- power exit: last C3, deepest C3, wake: store [trace offset 0x110]\n",
           "{\"type\":\"pwrx\",\"last\":\"C3\",\"deepest\":\"C3\",\"wake\":\"store\",\"offset\":272}\n");
    expect(EV(.kind = FWPT_FLOW_PWRX, .detail = 1, .size = 1, .status = 0, .offset = 0x110),
           "-- power exit: last C2, deepest C2, wake: none [trace offset 0x110]\n",
           "{\"type\":\"pwrx\",\"last\":\"C2\",\"deepest\":\"C2\",\"wake\":\"none\",\"offset\":272}\n");
}

TEST(trig)
{
    expect(EV(.kind = FWPT_FLOW_TRIG, .detail = 3, .offset = 0x120),
           "-- trigger 0x3 [trace offset 0x120]\n",
           "{\"type\":\"trig\",\"trbv\":\"0x3\",\"mult\":false,\"offset\":288}\n");
    expect(EV(.kind = FWPT_FLOW_TRIG, .detail = 0x81, .async = 1, .ip_valid = 1, .ip = 0x1234, .offset = 0x120),
           "-- trigger 0x81 (fired more than once) at 0x1234 (DxeCore+0x234) [trace offset 0x120]\n",
           "{\"type\":\"trig\",\"trbv\":\"0x81\",\"mult\":true,\"ip\":\"0x1234\",\"module\":\"DxeCore\""
           ",\"module_offset\":\"0x234\",\"offset\":288}\n");
}

TEST(end)
{
    expect(EV(.kind = FWPT_FLOW_END, .offset = 0x130),
           "-- end of the trace data, tracing on: what follows comes from the code alone [trace offset 0x130]\n",
           "{\"type\":\"end\",\"offset\":304}\n");
}

TEST(cfe)
{
    expect(EV(.kind = FWPT_FLOW_CFE, .detail = FWPT_CFE_INTR, .size = 14, .status = FWPT_EVD_CR2, .to = 0x7000,
              .ip_valid = 1, .ip = 0x1234, .offset = 0x140),
           "-- event intr vector 14, cr2 0x7000 at 0x1234 (DxeCore+0x234) [trace offset 0x140]\n",
           "{\"type\":\"cfe\",\"cfe\":\"intr\",\"cfe_type\":1,\"vector\":14,\"cr2\":\"0x7000\",\"ip\":\"0x1234\""
           ",\"module\":\"DxeCore\",\"module_offset\":\"0x234\",\"offset\":320}\n");
    expect(EV(.kind = FWPT_FLOW_CFE, .detail = FWPT_CFE_VMEXIT, .status = FWPT_EVD_VMXQ | FWPT_EVD_VMXR,
              .to = 0x55, .data = 0x30, .offset = 0x140),
           "-- event vmexit, exit reason 0x30, exit qualification 0x55 [trace offset 0x140]\n",
           "{\"type\":\"cfe\",\"cfe\":\"vmexit\",\"cfe_type\":8,\"vmxq\":\"0x55\",\"vmxr\":\"0x30\""
           ",\"offset\":320}\n");
    expect(EV(.kind = FWPT_FLOW_CFE, .detail = 11, .ip_valid = 1, .ip = 0x9000, .offset = 0x140),
           "-- event type 11 at 0x9000 [trace offset 0x140]\n",
           "{\"type\":\"cfe\",\"cfe\":\"reserved\",\"cfe_type\":11,\"ip\":\"0x9000\",\"offset\":320}\n");
    expect(EV(.kind = FWPT_FLOW_CFE, .detail = FWPT_CFE_SYSCALL, .offset = 0x140),
           "-- event syscall [trace offset 0x140]\n",
           "{\"type\":\"cfe\",\"cfe\":\"syscall\",\"cfe_type\":15,\"offset\":320}\n");
}

TEST(iflags)
{
    expect(EV(.kind = FWPT_FLOW_IFLAGS, .detail = 1, .ip_valid = 1, .ip = 0x1234, .offset = 0x150),
           "-- interrupts enabled (IF=1) at 0x1234 (DxeCore+0x234) [trace offset 0x150]\n",
           "{\"type\":\"iflags\",\"if\":true,\"ip\":\"0x1234\",\"module\":\"DxeCore\",\"module_offset\":\"0x234\""
           ",\"offset\":336}\n");
    expect(EV(.kind = FWPT_FLOW_IFLAGS, .detail = 0, .offset = 0x150),
           "-- interrupts disabled (IF=0) [trace offset 0x150]\n",
           "{\"type\":\"iflags\",\"if\":false,\"offset\":336}\n");
}

TEST(unknown_kind)
{
    expect(EV(.kind = FWPT_FLOW_KIND_COUNT, .ip_valid = 1, .ip = 0x1234, .offset = 0x160),
           "-- ? [trace offset 0x160]\n",
           "{\"type\":\"?\"}\n");
}

TEST_MAIN("flow_print_events")
