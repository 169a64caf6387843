/* fwpt host tool — CPUID register arguments, shared by `fwpt caps` and `fwpt plan`. */
#include <stdbool.h>
#include <string.h>
#include "tools/commands.h"

bool fwpt_arg_is_marker(const char *s)
{
    return !strcmp(s, "n/a") || !strcmp(s, "absent") || !strcmp(s, "not_in_dump_format");
}

int fwpt_arg_hex32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (fwpt_parse_u64(s, 1, &v) || v > 0xffffffffull)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int fwpt_arg_regs(const char *s, struct fwpt_cpuid_regs *r)
{
    char buf[128], *p[4], *c;
    int n = 0;
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    if (fwpt_arg_is_marker(buf))
        return 1;
    p[n++] = buf;
    for (c = buf; *c; c++)
        if (*c == ',') {
            if (n == 4)
                return -1;
            *c = '\0';
            p[n++] = c + 1;
        }
    if (n != 4)
        return -1;
    if (fwpt_arg_is_marker(p[0]) && fwpt_arg_is_marker(p[1]) && fwpt_arg_is_marker(p[2]) &&
        fwpt_arg_is_marker(p[3]))
        return 1;
    if (fwpt_arg_hex32(p[0], &r->eax) || fwpt_arg_hex32(p[1], &r->ebx) || fwpt_arg_hex32(p[2], &r->ecx) ||
        fwpt_arg_hex32(p[3], &r->edx))
        return -1;
    return 0;
}

bool fwpt_arg_in(const char *opt, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(opt, *names))
            return true;
    return false;
}
