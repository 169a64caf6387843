#include "tests/common/tool_run.h"

#include "tests/common/progen.h"

#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

static void tool_path(char *path, size_t cap)
{
    const char *b = getenv("FWPT_BUILD");
    snprintf(path, cap, "%s/fwpt", b && *b ? b : "build");
}

int tool_find(char *path, size_t cap)
{
    tool_path(path, cap);
    if (access(path, X_OK) == 0)
        return 1;
    fprintf(stderr, "%s: not built\n", path);
    return 0;
}

int tool_run(const char *cmd, const char *args, char *out, size_t cap)
{
    char tool[1024], line[4096];
    tool_path(tool, sizeof tool);
    snprintf(line, sizeof line, "\"%s\" %s %s 2>&1", tool, cmd, args);
    FILE *f = popen(line, "r");
    if (!f)
        return -1;
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = 0;
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    *n = 0;
    if (!f)
        return NULL;
    size_t cap = 4096;
    char *b = malloc(cap);
    for (size_t r; (r = fread(b + *n, 1, cap - *n, f)) > 0;) {
        *n += r;
        if (*n == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    return b;
}

/* dir/name opened for writing (exits with status 1 if it cannot be) */
static FILE *create_in(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    return f;
}

FILE *save_program_open(const char *dir, const struct progen *p)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/trace.pt", dir);
    write_file(path, p->trace, p->trace_size);
    snprintf(path, sizeof path, "%s/img-%llx.bin", dir, (unsigned long long)p->base);
    write_file(path, p->code, p->code_size);
    return create_in(dir, "sideband.json");
}

void save_program(const char *dir, const struct progen *p)
{
    FILE *f = save_program_open(dir, p);
    fprintf(f, "{\"images\":[{\"name\":\"Prog\",\"base\":\"0x%llx\",\"size\":\"0x%zx\",\"file\":\"img-%llx.bin\"}]}\n",
            (unsigned long long)p->base, p->code_size, (unsigned long long)p->base);
    fclose(f);
}

size_t run_on_pty(const char *tool, const char *args, int stdout_null, const char *delay_ms, char *out, size_t cap,
                  int *status)
{
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    if (pid < 0)
        return 0;
    if (pid == 0) {
        if (stdout_null) {
            int fd = open("/dev/null", O_WRONLY);
            dup2(fd, STDOUT_FILENO);
        }
        if (delay_ms)
            setenv("FWPT_PROGRESS_DELAY_MS", delay_ms, 1);
        else
            unsetenv("FWPT_PROGRESS_DELAY_MS");
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "exec %s %s", tool, args);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    size_t n = 0;
    for (;;) {
        ssize_t r = read(master, out + n, cap - 1 - n);
        if (r <= 0) /* EIO once the child is gone */
            break;
        n += (size_t)r;
        if (n == cap - 1)
            break;
    }
    out[n] = 0;
    close(master);
    waitpid(pid, status, 0);
    return n;
}
