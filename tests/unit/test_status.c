/* fwpt — the status codes (include/fwpt/status.h) are stable: every value pinned as of today, names and messages unique
 * and non-empty, unknown values named as such, and docs/status.md agrees with the table row by row. */
#include "include/fwpt/status.h"
#include "tests/check.h"

/* name -> number as recorded: a code is never renumbered nor its number reused (append at the end only). */
static const struct {
    enum fwpt_status s;
    unsigned value;
    const char *name;
} pinned[] = {
    {FWPT_OK, 0, "OK"},
    {FWPT_E_INVAL, 1, "E_INVAL"},
    {FWPT_E_NOMEM, 2, "E_NOMEM"},
    {FWPT_E_FAULT, 3, "E_FAULT"},
    {FWPT_E_UNSUPPORTED, 4, "E_UNSUPPORTED"},
    {FWPT_E_IO, 5, "E_IO"},
    {FWPT_E_NOPT, 6, "E_NOPT"},
    {FWPT_E_CTL, 7, "E_CTL"},
    {FWPT_E_TRACE_ACTIVE, 8, "E_TRACE_ACTIVE"},
    {FWPT_E_TRACE_ERROR, 9, "E_TRACE_ERROR"},
    {FWPT_E_PLAN, 10, "E_PLAN"},
    {FWPT_E_TOPA, 11, "E_TOPA"},
    {FWPT_E_SINGLE_RANGE, 12, "E_SINGLE_RANGE"},
    {FWPT_E_RESTRICTED, 13, "E_RESTRICTED"},
    {FWPT_E_EOS, 14, "E_EOS"},
    {FWPT_E_NOSYNC, 15, "E_NOSYNC"},
    {FWPT_E_TRUNCATED, 16, "E_TRUNCATED"},
    {FWPT_E_BAD_OPCODE, 17, "E_BAD_OPCODE"},
    {FWPT_E_BAD_IPC, 18, "E_BAD_IPC"},
    {FWPT_E_BAD_PACKET, 19, "E_BAD_PACKET"},
    {FWPT_E_TOO_LONG, 20, "E_TOO_LONG"},
    {FWPT_E_BAD_INSN, 21, "E_BAD_INSN"},
    {FWPT_E_NOMAP, 22, "E_NOMAP"},
    {FWPT_E_NO_TNT, 23, "E_NO_TNT"},
    {FWPT_E_NO_TIP, 24, "E_NO_TIP"},
    {FWPT_E_BAD_QUERY, 25, "E_BAD_QUERY"},
    {FWPT_E_RETSTACK, 26, "E_RETSTACK"},
    {FWPT_E_RUNAWAY, 27, "E_RUNAWAY"},
    {FWPT_E_BAD_STATUS, 28, "E_BAD_STATUS"},
    {FWPT_E_INTERNAL, 29, "E_INTERNAL"},
    {FWPT_E_NO_TIME, 30, "E_NO_TIME"},
    {FWPT_E_NO_CALIBRATION, 31, "E_NO_CALIBRATION"},
    {FWPT_E_TIME_CONTEXT, 32, "E_TIME_CONTEXT"},
    {FWPT_E_TIME_CONFIG, 33, "E_TIME_CONFIG"},
    {FWPT_E_CTC_GAP, 34, "E_CTC_GAP"},
    {FWPT_E_BAD_CBR, 35, "E_BAD_CBR"},
    {FWPT_E_TIME_RANGE, 36, "E_TIME_RANGE"},
    {FWPT_E_BAD_CONTEXT, 37, "E_BAD_CONTEXT"},
    {FWPT_E_FIRMWARE, 38, "E_FIRMWARE"},
};
#define NPINNED (sizeof pinned / sizeof pinned[0])

/* The table as include/fwpt/status.h holds it, in its order. */
static const struct {
    const char *name;
    unsigned value;
    const char *msg;
} table[] = {
#define ROW(n, v, m) {#n, v, m},
    FWPT_STATUS_LIST(ROW)
#undef ROW
};
#define NTABLE (sizeof table / sizeof table[0])

TEST(values_pinned)
{
    for (size_t i = 0; i < NPINNED; i++) {
        CHECK_EQ(pinned[i].s, pinned[i].value);
        CHECK_STR(fwpt_status_name(pinned[i].s), pinned[i].name);
    }
}

TEST(table_appends_in_order)
{
    /* nothing pinned is dropped from the table, and the table has no row the pins do not know yet */
    CHECK_EQ(NTABLE, NPINNED);
    for (size_t i = 0; i < NTABLE; i++) {
        if (i)
            CHECK(table[i].value > table[i - 1].value); /* FWPT_STATUS_COUNT is one past the last */
        CHECK(table[i].value < FWPT_STATUS_COUNT);
    }
    CHECK_EQ(FWPT_STATUS_COUNT, table[NTABLE - 1].value + 1);
}

TEST(names_messages_unique)
{
    for (size_t i = 0; i < NTABLE; i++) {
        const char *n = fwpt_status_name((enum fwpt_status)table[i].value);
        const char *m = fwpt_status_msg((enum fwpt_status)table[i].value);
        CHECK_STR(n, table[i].name);
        CHECK_STR(m, table[i].msg);
        CHECK(n[0] != '\0' && m[0] != '\0');
        for (size_t j = 0; j < i; j++) {
            CHECK(strcmp(table[j].name, table[i].name) != 0);
            CHECK(strcmp(table[j].msg, table[i].msg) != 0);
        }
    }
}

TEST(unknown_value)
{
    const unsigned unknown[] = {FWPT_STATUS_COUNT, FWPT_STATUS_COUNT + 1, 1000, 0x7fffffffu, 0xffffffffu};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        CHECK_STR(fwpt_status_name((enum fwpt_status)unknown[i]), "E_UNKNOWN");
        CHECK_STR(fwpt_status_msg((enum fwpt_status)unknown[i]), "unknown status");
    }
    CHECK_STR(fwpt_status_name(FWPT_E_NOSYNC), "E_NOSYNC");
    CHECK_STR(fwpt_status_msg(FWPT_E_NOSYNC), "no PSB found");
}

/* docs/status.md: one row "| `FWPT_NAME` | number | message | returned by |" per code, in the table's order. */
TEST(docs_page_agrees)
{
    FILE *f = fopen("docs/status.md", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[1024];
    size_t row = 0;
    unsigned lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (strncmp(line, "| `FWPT_", 8) != 0)
            continue;
        char name[64], msg[256];
        unsigned value;
        int end = 0;
        if (sscanf(line, "| `FWPT_%63[A-Z_0-9]` | %u | %255[^|]|%n", name, &value, msg, &end) != 3 || !end) {
            fprintf(stderr, "docs/status.md:%u: not a row of the table: %s", lineno, line);
            CHECK(!"a row of docs/status.md parses");
            continue;
        }
        size_t ml = strlen(msg);
        while (ml && msg[ml - 1] == ' ')
            msg[--ml] = '\0';
        if (row >= NTABLE) {
            fprintf(stderr, "docs/status.md:%u: FWPT_%s: not in include/fwpt/status.h\n", lineno, name);
            CHECK(!"docs/status.md has no row include/fwpt/status.h lacks");
            continue;
        }
        if (strcmp(name, table[row].name) || value != table[row].value || strcmp(msg, table[row].msg))
            fprintf(stderr, "docs/status.md:%u: FWPT_%s %u \"%s\"; include/fwpt/status.h: FWPT_%s %u \"%s\"\n", lineno,
                    name, value, msg, table[row].name, table[row].value, table[row].msg);
        CHECK_STR(name, table[row].name);
        CHECK_EQ(value, table[row].value);
        CHECK_STR(msg, table[row].msg);
        row++;
    }
    fclose(f);
    if (row != NTABLE)
        fprintf(stderr, "docs/status.md: %zu rows; include/fwpt/status.h: %zu codes\n", row, (size_t)NTABLE);
    CHECK_EQ(row, NTABLE);
}

TEST_MAIN("status")
