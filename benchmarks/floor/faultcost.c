// CPU of a child's page faults after a fork, by kind (docs/floor.md, pass 21):
//   gcc -O2 -o /tmp/faultcost benchmarks/floor/faultcost.c && /tmp/faultcost KIDS PAGES MODE FILE
// MODE 0 none, 1 copy on write (pages the parent wrote), 2 first write to anonymous pages the
// parent never touched, 3 first read of FILE's pages (>= 16 MB, in the page cache; fault-around
// on), 4 first read of anonymous pages never touched (the zero page).  Prints the CPU a child (its
// fork and exit included: subtract MODE 0), over KIDS children each touching PAGES pages.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
  int kids = atoi(argv[1]), pages = atoi(argv[2]), mode = atoi(argv[3]);
  size_t sz = 16 << 20;
  char *p = mmap(0, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *q = mmap(0, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  memset(p, 1, sz);
  int fd = open(argv[4], O_RDONLY);
  char *f = mmap(0, sz, PROT_READ, MAP_PRIVATE, fd, 0);
  volatile char sink = 0;
  for (long i = 0; i < (long)sz; i += 4096) sink += f[i];   // page cache hot
  munmap(f, sz);
  f = mmap(0, sz, PROT_READ, MAP_PRIVATE, fd, 0);            // fresh mapping: no ptes in it
  for (int k = 0; k < kids; k++) {
    pid_t c = fork();
    if (!c) {
      for (long i = 0; i < pages; i++) {
        if (mode == 1) p[i * 4096] = 2;
        if (mode == 2) q[i * 4096] = 2;
        if (mode == 3) sink += f[i * 4096];
        if (mode == 4) sink += q[i * 4096];
      }
      _exit(0);
    }
    int st; waitpid(c, &st, 0);
  }
  struct rusage r; getrusage(RUSAGE_CHILDREN, &r);
  printf("%.1f\n", ((r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 + r.ru_utime.tv_usec + r.ru_stime.tv_usec) / kids);
  return sink == 123;
}
