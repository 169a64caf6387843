/* fwpt — the verdict of verify (see verify.h). */
#include "sim/verify.h"

static const char *const result_names[] = {"not run", "passed", "failed"};
static const char *const scope_names[] = {"whole", "first", "newest", "unknown"};

const char *fwpt_verify_result_name(enum fwpt_verify_result r)
{
    return (unsigned)r < sizeof result_names / sizeof result_names[0] ? result_names[r] : "?";
}

const char *fwpt_verify_scope_name(enum fwpt_verify_scope s)
{
    return (unsigned)s < sizeof scope_names / sizeof scope_names[0] ? scope_names[s] : "?";
}

static int name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (!fwpt_strcmp(names[i], name))
            return i;
    return -1;
}

int fwpt_verify_result_parse(const char *name)
{
    return name_index(result_names, (int)(sizeof result_names / sizeof result_names[0]), name);
}

int fwpt_verify_scope_parse(const char *name)
{
    return name_index(scope_names, (int)(sizeof scope_names / sizeof scope_names[0]), name);
}

int fwpt_verify_upgrade(struct fwpt_verify *v)
{
    if (v->result != FWPT_VERIFY_FAILED || !v->reason || fwpt_strcmp(v->reason, FWPT_VERIFY_GT_INCOMPLETE_OLD))
        return 0;
    *v = (struct fwpt_verify){.result = FWPT_VERIFY_NOT_RUN, .reason = FWPT_VERIFY_GT_DID_NOT_FIT};
    return 1;
}

static void put_text(const struct fwpt_sink *o, const char *s, bool xml)
{
    if (xml)
        fwpt_put_xml(o, s);
    else
        fwpt_puts(o, s);
}

void fwpt_verify_text(const struct fwpt_verify *v, bool xml, const struct fwpt_sink *o)
{
    const bool part = v->part && v->part[0], reason = v->reason && v->reason[0];
    switch (v->result) {
    case FWPT_VERIFY_PASSED:
        if (v->scope == FWPT_VERIFY_FIRST || v->scope == FWPT_VERIFY_NEWEST) {
            fwpt_printf(o, "passed for the %s %lu of %lu instructions; the rest was not compared",
                        v->scope == FWPT_VERIFY_FIRST ? "first" : "newest", v->compared, v->total);
        } else if (v->scope == FWPT_VERIFY_UNKNOWN) {
            fwpt_puts(o, "passed (what was compared was not recorded)");
        } else {
            fwpt_puts(o, "passed");
            if (part) {
                fwpt_puts(o, " (");
                put_text(o, v->part, xml);
                fwpt_putc(o, ')');
            }
        }
        break;
    case FWPT_VERIFY_FAILED:
        fwpt_puts(o, "failed");
        if (reason) {
            fwpt_puts(o, ": ");
            put_text(o, v->reason, xml);
        }
        break;
    default:
        fwpt_puts(o, "not run");
        if (reason) {
            fwpt_puts(o, " (");
            put_text(o, v->reason, xml);
            fwpt_putc(o, ')');
        }
        break;
    }
}
