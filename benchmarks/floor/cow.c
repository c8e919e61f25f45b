/* What one page fault that copies a page on write (COW after fork) costs on this machine: a
 * parent with a 64 MB touched region forks N children; each writes one byte in P pages and exits.
 * CPU (parent + children) per child with P pages written, minus P = 0, divided by P.
 * Usage: cow N P   Build: gcc -O2 -o /tmp/floor_cow bench/cow.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
static double cpu(void) {
    struct rusage a, b; getrusage(RUSAGE_SELF, &a); getrusage(RUSAGE_CHILDREN, &b);
    return a.ru_utime.tv_sec + a.ru_utime.tv_usec * 1e-6 + a.ru_stime.tv_sec + a.ru_stime.tv_usec * 1e-6
         + b.ru_utime.tv_sec + b.ru_utime.tv_usec * 1e-6 + b.ru_stime.tv_sec + b.ru_stime.tv_usec * 1e-6;
}
static double run(char *mem, int n, int pages) {
    double c0 = cpu();
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) { for (int k = 0; k < pages; k++) mem[(long)k * 4096 * 3 % (64L << 20)]++; _exit(0); }
        waitpid(p, NULL, 0);
    }
    return (cpu() - c0) / n;
}
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 300, pages = argc > 2 ? atoi(argv[2]) : 1000;
    char *mem = malloc(64L << 20);
    memset(mem, 1, 64L << 20);
    run(mem, 20, pages);
    double base = run(mem, n, 0), with = run(mem, n, pages);
    printf("fork+exit of a 64 MB process: %.3f ms; + %d pages written: %.3f ms -> %.2f us a copied page (n=%d)\n",
           base * 1e3, pages, with * 1e3, (with - base) / pages * 1e6, n);
    return 0;
}
