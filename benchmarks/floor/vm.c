/* The machine's own costs, below the kit (pass 18, `vmcost`): what a syscall, a hand-over between
 * two processes on one CPU and across CPUs, a timer armed and a wake on an idle CPU cost here.
 *   gcc -O2 -Wall -o /tmp/floor_vm benchmarks/floor/vm.c && /tmp/floor_vm
 * Measures only; nothing of the kit uses it. */
#define _GNU_SOURCE
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static double cpu(int who) {
    struct rusage r; getrusage(who, &r);
    return r.ru_utime.tv_sec + r.ru_utime.tv_usec * 1e-6 + r.ru_stime.tv_sec + r.ru_stime.tv_usec * 1e-6;
}
static void pin(int c) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(c, &s); sched_setaffinity(0, sizeof s, &s); }

/* Two processes pass a byte back and forth (this one on CPU A, its child on B): wall and CPU (both
 * processes) a round trip.  With TOUCH, after each answer this process reads PAGES pages it read
 * before (one byte each) and the child writes 1 MB in between: cycles of that read. */
static void trip(int a, int b, int n, int touch) {
    enum { PAGES = 256 };
    int x[2], y[2]; char ch = 'x';
    char *mem = aligned_alloc(4096, PAGES * 4096L * 4);
    for (long i = 0; i < PAGES * 4L; i++) mem[i * 4096] = 1;
    if (pipe(x) || pipe(y)) return;
    double c0 = cpu(RUSAGE_SELF), c1 = cpu(RUSAGE_CHILDREN);
    pid_t p = fork();
    if (!p) {
        pin(b);
        char *other = malloc(1 << 20);
        for (int i = 0; i < n; i++) {
            if (read(x[0], &ch, 1) != 1) _exit(1);
            if (touch) for (int k = 0; k < (1 << 20); k += 4096) other[k]++;
            if (write(y[1], &ch, 1) != 1) _exit(1);
        }
        _exit(0);
    }
    pin(a);
    unsigned long long cyc = 0; volatile long sum = 0;
    double t = now();
    for (int i = 0; i < n; i++) {
        if (write(x[1], &ch, 1) != 1 || read(y[0], &ch, 1) != 1) break;
        if (touch) { unsigned long long t0 = __rdtsc(); for (int k = 0; k < PAGES; k++) sum += mem[k * 4096L * 4]; cyc += __rdtsc() - t0; }
    }
    double w = now() - t;
    waitpid(p, NULL, 0);
    double c = cpu(RUSAGE_SELF) - c0 + cpu(RUSAGE_CHILDREN) - c1;
    if (touch)
        printf("  %d pages read after the other process ran on CPU %d (this one on %d): %.0f cycles\n", PAGES, b, a, (double)cyc / n);
    else
        printf("  round trip, CPUs %d and %d: %.2f us wall, %.2f us CPU (both processes)\n", a, b, w / n * 1e6, c / n * 1e6);
    free(mem);
}

int main(void) {
    int n = 200000;
    double t = now();
    for (int i = 0; i < n; i++) syscall(SYS_getppid);
    printf("a syscall (getppid): %.3f us\n", (now() - t) / n * 1e6);
    signal(SIGALRM, SIG_IGN);           /* (preempted past 10 ms between the two calls: not our exit) */
    struct itimerval on = {{0, 50000}, {0, 10000}}, off = {{0, 0}, {0, 0}};
    t = now(); double c = cpu(RUSAGE_SELF);
    for (int i = 0; i < n / 2; i++) { setitimer(ITIMER_REAL, &on, 0); setitimer(ITIMER_REAL, &off, 0); }
    printf("a real timer armed and disarmed (2 setitimer): %.3f us wall, %.3f us CPU\n", (now() - t) / (n / 2) * 1e6,
           (cpu(RUSAGE_SELF) - c) / (n / 2) * 1e6);
    int p[2]; char b[1];
    if (pipe(p)) return 1;
    struct pollfd pf = {p[0], POLLIN, 0};
    t = now();
    for (int i = 0; i < n; i++) poll(&pf, 1, 0);
    printf("poll(0) of an empty pipe: %.3f us\n", (now() - t) / n * 1e6);
    t = now();
    for (int i = 0; i < n; i++) { if (write(p[1], "x", 1) != 1 || read(p[0], b, 1) != 1) return 1; }
    printf("a pipe's write + read in one process: %.3f us\n", (now() - t) / n * 1e6);
    printf("two processes passing a byte:\n");
    trip(0, 0, 50000, 0); trip(0, 1, 50000, 0); trip(1, 1, 50000, 0);
    printf("caches after a hand-over (the same CPU: the other process ran; across: this CPU was idle):\n");
    trip(0, 0, 20000, 1); trip(0, 1, 20000, 1);
    return 0;
}
