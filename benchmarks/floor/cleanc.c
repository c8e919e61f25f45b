/* The floor of the clean-state check in C: the same system calls as harness/clean.py's check
 * (open fds by getdents of /proc/self/fd; 8 getrlimit, 2 getitimer, the signal mask, umask read
 * back, priority, process group, session, CPU affinity; getrusage for the peak) and the same
 * compares (949 version words read from scattered heap objects, 258 small arrays compared).
 * What Python's check reads without a syscall (recursion limit, trace functions, gc settings,
 * signal handlers) is one word each here.  Usage: cleanc N   Build: gcc -O2 -o /tmp/floor_cleanc bench/cleanc.c */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
#define NDICT 949
#define NCOPY 258
static unsigned long *dicts[NDICT], base[NDICT];
static long *copies[NCOPY], *others[NCOPY];
static volatile long sink;
static int check(void) {
    char buf[4096];
    int fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY);
    long n, fds = 0;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) fds += n;
    close(fd);
    struct rlimit r; int res[] = {RLIMIT_CPU, RLIMIT_AS, RLIMIT_DATA, RLIMIT_STACK, RLIMIT_NOFILE, RLIMIT_NPROC, RLIMIT_FSIZE, RLIMIT_MEMLOCK};
    for (int i = 0; i < 8; i++) { getrlimit(res[i], &r); sink += r.rlim_cur; }
    struct itimerval it; getitimer(ITIMER_VIRTUAL, &it); getitimer(ITIMER_PROF, &it);
    sigset_t m; sigprocmask(SIG_BLOCK, NULL, &m);
    mode_t u = umask(077); umask(u);
    sink += getpriority(PRIO_PROCESS, 0) + getpgrp() + getsid(0);
    cpu_set_t cs; sched_getaffinity(0, sizeof cs, &cs);
    struct rusage ru; getrusage(RUSAGE_SELF, &ru);
    int same = 1;
    for (int i = 0; i < NDICT; i++) same &= *dicts[i] == base[i];
    for (int i = 0; i < NCOPY; i++) same &= memcmp(copies[i], others[i], 8 * sizeof(long)) == 0;
    return same && fds > 0;
}
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    for (int i = 0; i < NDICT; i++) { dicts[i] = malloc(48 + (rand() % 8) * 64); *dicts[i] = i; base[i] = i; }
    for (int i = 0; i < NCOPY; i++) { copies[i] = calloc(8, sizeof(long)); others[i] = calloc(8, sizeof(long)); }
    check();
    double c0 = cpu();
    int ok = 0;
    for (int i = 0; i < n; i++) ok += check();
    printf("C clean check (its syscalls + 949 tags + 258 compares): %.2f us CPU (n=%d, clean %d)\n", (cpu() - c0) / n * 1e6, n, ok);
    return 0;
}
