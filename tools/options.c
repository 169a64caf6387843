/* fwpt host tool — the table-driven option parser of tools/options.h. */
#include <stdlib.h>
#include <string.h>
#include "tools/commands.h"
#include "tools/options.h"

const struct fwpt_opt *fwpt_opt_find(const struct fwpt_opt_cmd *c, const char *a)
{
    for (size_t k = 0; k < c->n; k++)
        if (!strcmp(a, c->opts[k].name) || (c->opts[k].alias && !strcmp(a, c->opts[k].alias)))
            return &c->opts[k];
    return NULL;
}

/* The option a is with its value after '=' (--format=jsonl): *v set; NULL when there is none. */
static const struct fwpt_opt *find_eq(const struct fwpt_opt_cmd *c, const char *a, const char **v)
{
    for (size_t k = 0; k < c->n; k++) {
        size_t n = strlen(c->opts[k].name);
        if (c->opts[k].eq && !strncmp(a, c->opts[k].name, n) && a[n] == '=') {
            *v = a + n + 1;
            return &c->opts[k];
        }
    }
    return NULL;
}

int fwpt_opt_parse(const struct fwpt_opt_cmd *c, int argc, char **argv, void *dst, const char **operand)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            c->usage(stdout);
            return 0;
        }
        const struct fwpt_opt *o = fwpt_opt_find(c, a);
        if (!o && (o = find_eq(c, a, &v)) != NULL)
            a = o->name; /* the messages name the option, not the argument with its value */
        else if (o && o->value && i + 1 < argc)
            v = argv[++i];
        else if (o && o->value && c->missing_said) {
            fprintf(stderr, "%s: %s: expected %s, got nothing (it is the last argument)\n", c->cmd, a, o->value);
            return 2;
        }
        if (o && !o->set) {
            *(bool *)((char *)dst + o->off) = true;
        } else if (o) {
            int rc = o->set(dst, o, a, v);
            if (rc)
                return rc;
        } else if (a[0] == '-' && a[1]) {
            return fwpt_arg_unknown(c->cmd, "unknown option", a, c->usage);
        } else if (*operand && c->more) {
            if (fwpt_opt_add_str(dst, &(struct fwpt_opt){.off = c->more_off}, a, a))
                return 1;
        } else if (fwpt_arg_operand(c->cmd, c->operand, operand, a)) {
            return 2;
        }
    }
    return FWPT_OPT_RUN;
}

int fwpt_opt_set_str(void *dst, const struct fwpt_opt *o, const char *as_given, const char *v)
{
    (void)as_given;
    *(const char **)((char *)dst + o->off) = v;
    return 0;
}

int fwpt_opt_add_str(void *dst, const struct fwpt_opt *o, const char *as_given, const char *v)
{
    struct fwpt_opt_list *l = (struct fwpt_opt_list *)((char *)dst + o->off);
    const char **p = realloc(l->v, (l->n + 1) * sizeof *p);
    if (!p) {
        fprintf(stderr, "fwpt: %s: out of memory\n", as_given);
        return 1;
    }
    l->v = p;
    p[l->n++] = v;
    return 0;
}

void fwpt_opt_help(const struct fwpt_opt_cmd *c, FILE *f)
{
    for (size_t k = 0; k < c->n; k++)
        if (c->opts[k].help)
            fputs(c->opts[k].help, f);
}
