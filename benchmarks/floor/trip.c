/* The floor of a request's round trip, in C: grader -> zygote -> request process -> zygote ->
 * grader, with the zygote's checks between requests as the kit's zygote makes them
 * (harness/zygote.py send_request/settled/run_shared, answers.py Worker.alone/_spoke_since):
 *   zygote, per request: read the grader's line, a new 8-byte nonce (getrandom), the line with
 *   the nonce added written to the request process; poll its answer pipe + pidfd until the
 *   answer ends with the nonce; its schedstat read (waited/CPU base); one thread (fstat of its
 *   task folder: nlink) and no child (pread of its children file); nothing written after the
 *   answer (poll 0 on the pipe and the pidfd); its own children read (kill_descendants: only the
 *   worker); the answer sent to the grader (held and sent in one write per B answers, as the
 *   kit's zygote holds a batch's lines).
 *   request process: read a line, answer a ~300-byte line ending with the nonce.
 *   grader: writes B request lines of ~250 bytes in one write, reads B answers.
 * One thread each, no children besides the one request process, nothing written ahead.
 * Prints CPU per request summed over the three processes (each its own getrusage, after a
 * warm-up) and wall.   Usage: trip N B   Build: gcc -O2 -o /tmp/floor_trip bench/trip.c */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu(void) {
    struct rusage a; getrusage(RUSAGE_SELF, &a);
    return a.ru_utime.tv_sec + a.ru_utime.tv_usec * 1e-6 + a.ru_stime.tv_sec + a.ru_stime.tv_usec * 1e-6;
}
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static int N, B, WARM;
static char REQ[] = "{\"seq\":%d,\"kind\":\"call\",\"func\":\"score\",\"args\":[\"Chance\",[1,2,3,4,5]],\"kwargs\":{},"
                    "\"stdin\":null,\"seed\":null,\"dice\":null,\"fresh\":false,\"timeout\":5.0,\"substitute\":"
                    "{\"names\":[\"score_upper\",\"score_of_a_kind\"],\"keep\":[]},\"typed\":false}\n";

/* read one line into buf (with a carry-over buffer per fd) */
typedef struct { int fd; char buf[1 << 16]; int len; } Lines;
static int readline(Lines *l, char *out, int cap) {
    for (;;) {
        char *nl = memchr(l->buf, '\n', l->len);
        if (nl) {
            int n = nl - l->buf + 1;
            if (n > cap) n = cap;
            memcpy(out, l->buf, n);
            memmove(l->buf, nl + 1, l->len - (nl - l->buf + 1));
            l->len -= nl - l->buf + 1;
            return n;
        }
        ssize_t r = read(l->fd, l->buf + l->len, sizeof l->buf - l->len);
        if (r <= 0) return -1;
        l->len += r;
    }
}

static void worker(int in, int out) {
    Lines l = {.fd = in};
    char line[4096], ans[1024];
    double c0 = 0;
    for (int i = 0;; i++) {
        if (i == WARM) c0 = cpu();
        int n = readline(&l, line, sizeof line);
        if (n < 0) break;
        if (strncmp(line, "END", 3) == 0) {
            int k = snprintf(ans, sizeof ans, "%f\n", cpu() - c0);
            if (write(out, ans, k) < 0) {}
            break;
        }
        char *nonce = strstr(line, "\"nonce\":\"");
        int seq = atoi(line + 7);
        int k = snprintf(ans, sizeof ans, "{\"seq\":%d,\"status\":\"ok\",\"value\":10,\"error\":null,\"stdout\":\"\","
                         "\"events\":[],\"args_after\":[[\"Chance\",[1,2,3,4,5]]],\"cpu\":0.0001,\"wall\":0.0001,"
                         "\"peak_kb\":0,\"dice_used\":0,\"pad\":\"%.*s\",\"end\":\"%.16s\"}\n",
                         seq, 120, "................................................................................................................................................", nonce ? nonce + 9 : "");
        if (write(out, ans, k) < 0) {}
    }
    _exit(0);
}

static void zygote(int gin, int gout) {
    int req[2], res[2];
    if (pipe(req) || pipe2(res, O_CLOEXEC)) _exit(1);
    pid_t w = fork();
    if (w == 0) { close(req[1]); close(res[0]); worker(req[0], res[1]); }
    close(req[0]); close(res[1]);
    int pidfd = syscall(SYS_pidfd_open, w, 0);
    char p[128];
    snprintf(p, sizeof p, "/proc/%d/task", w);            int tasks = open(p, O_RDONLY | O_DIRECTORY);
    snprintf(p, sizeof p, "/proc/%d/task/%d/children", w, w); int kids = open(p, O_RDONLY);
    snprintf(p, sizeof p, "/proc/%d/schedstat", w);       int sched = open(p, O_RDONLY);
    snprintf(p, sizeof p, "/proc/%d/task/%d/children", getpid(), getpid()); int own = open(p, O_RDONLY);
    Lines g = {.fd = gin};
    Lines r = {.fd = res[0]};
    static char held[1 << 20];
    int nheld = 0, pending = 0;
    char line[4096], ans[4096], buf[256];
    double c0 = 0;
    for (int i = 0;; i++) {
        if (i == WARM) c0 = cpu();
        int n = readline(&g, line, sizeof line - 64);
        if (n < 0) break;
        if (strncmp(line, "END", 3) == 0) {
            if (write(req[1], "END\n", 4) < 0) {}
            int k = readline(&r, ans, sizeof ans);
            double wc = atof(ans);
            kill(w, SIGKILL); waitpid(w, NULL, 0);
            k = snprintf(ans, sizeof ans, "%f %f\n", cpu() - c0, wc);
            if (write(gout, ans, k) < 0) {}
            break;
        }
        unsigned char nb[8]; char nonce[17];
        if (getrandom(nb, 8, 0) != 8) _exit(1);
        for (int j = 0; j < 8; j++) sprintf(nonce + 2 * j, "%02x", nb[j]);
        /* the line with ,"nonce":"..."} instead of its closing } */
        n -= 2;
        n += sprintf(line + n, ",\"nonce\":\"%s\"}\n", nonce);
        if (write(req[1], line, n) < 0) _exit(1);
        struct pollfd pf[2] = {{res[0], POLLIN, 0}, {pidfd, POLLIN, 0}};
        int k;
        for (;;) {                                /* its answer (the kit polls, then reads) */
            if (r.len == 0 && poll(pf, 2, 5000) <= 0) _exit(2);
            k = readline(&r, ans, sizeof ans);
            if (k > 0) break;
        }
        if (k < 20 || memcmp(ans + k - 19, nonce, 16) != 0) _exit(3);   /* ends as the harness ends it */
        if (pread(sched, buf, sizeof buf, 0) <= 0) _exit(4);             /* its CPU and wait (schedstat) */
        struct stat st;
        if (fstat(tasks, &st) || st.st_nlink - 2 != 1) _exit(5);        /* one thread */
        if (pread(kids, buf, sizeof buf, 0) != 0) _exit(6);               /* no child */
        pf[0].revents = pf[1].revents = 0;
        if (poll(pf, 2, 0) != 0) _exit(7);                                 /* nothing after its answer */
        int m = pread(own, buf, sizeof buf, 0);                            /* our children: the worker only */
        if (m <= 0) _exit(8);
        memcpy(held + nheld, ans, k); nheld += k; pending++;
        if (pending == B) { if (write(gout, held, nheld) < 0) {} nheld = pending = 0; }
    }
    _exit(0);
}

int main(int argc, char **argv) {
    N = argc > 1 ? atoi(argv[1]) : 20000;
    B = argc > 2 ? atoi(argv[2]) : 1;
    WARM = 1000;
    int down[2], up[2];
    if (pipe(down) || pipe(up)) return 1;
    pid_t z = fork();
    if (z == 0) { close(down[1]); close(up[0]); zygote(down[0], up[1]); }
    close(down[0]); close(up[1]);
    Lines l = {.fd = up[0]};
    static char batch[1 << 20];
    char ans[4096];
    double c0 = 0, w0 = 0;
    for (int i = 0; i < N + WARM; i += B) {
        if (i == WARM) { c0 = cpu(); w0 = now(); }
        int len = 0;
        for (int j = 0; j < B; j++) len += sprintf(batch + len, REQ, i + j);
        if (write(down[1], batch, len) < 0) return 1;
        for (int j = 0; j < B; j++) if (readline(&l, ans, sizeof ans) < 0) return 1;
    }
    double gc = cpu() - c0, wall = now() - w0;
    if (write(down[1], "END\n", 4) < 0) return 1;
    readline(&l, ans, sizeof ans);
    double zc, wc;
    sscanf(ans, "%lf %lf", &zc, &wc);
    waitpid(z, NULL, 0);
    printf("C round trip (batch %d): %.2f us CPU a request (grader %.2f, zygote %.2f, request process %.2f), %.2f us wall (n=%d)\n",
           B, (gc + zc + wc) / N * 1e6, gc / N * 1e6, zc / N * 1e6, wc / N * 1e6, wall / N * 1e6, N);
    return 0;
}
