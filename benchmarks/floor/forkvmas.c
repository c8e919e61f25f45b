// What a fork costs its parent by the pages and the mappings it holds (docs/floor.md, pass 21):
//   gcc -O2 -o /tmp/forkvmas benchmarks/floor/forkvmas.c && /tmp/forkvmas PAGES VMAS
// PAGES written anonymous pages spread over VMAS mappings (each followed by a guard page, so none
// merge); prints the parent's CPU a fork (the child exits at once), over 200 forks.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double tcpu(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
int main(int argc,char**argv){
  int pages=atoi(argv[1]), vmas=atoi(argv[2]), kids=200;
  int per=pages/vmas;
  for(int v=0;v<vmas;v++){
    char*p=mmap(0,(size_t)(per+1)*4096,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
    memset(p,1,(size_t)per*4096); mprotect(p+(size_t)per*4096,4096,PROT_NONE); // guard: no merge
  }
  double sum=0;
  for(int k=0;k<kids;k++){double t=tcpu(); pid_t c=fork(); if(!c)_exit(0); sum+=tcpu()-t; waitpid(c,0,0);}
  printf("pages %d vmas %d: fork in parent %.0f us\n",pages,vmas,sum/kids);
}
