/* The kernel's part of an isolated sandbox life, with nothing of Python: the floor of a life.
 *
 * A "student root" (this process, once): its own mount and uts namespaces, a minimal root (a
 * tmpfs with the kit's allowlist bind-mounted read-only, pivot_root), the seccomp filter read once.
 * Then N lives, each exactly the steps of the kit's life (harness/isolation.py
 * enter_life_namespaces + become_sandbox_user, the grader's cgroup join): the root unshares
 * CLONE_NEWPID and forks the life as pid 1 of its own pid namespace, moves it into a cgroup per
 * v1 hierarchy (memory, pids, cpu: groups made once and reused, as cgroup.Group.release does);
 * the life unshares mount/net/ipc, mounts private tmpfs /tmp, /var/tmp, /dev/shm and its /proc,
 * writes the IPC limits, makes and chowns its work folder, sets 6 rlimits, drops to its uid
 * (setgroups, setresgid, setresuid), no_new_privs, installs the seccomp filter, chdir; then forks
 * ONE request process, which exits at once; the life waits for it and exits; the root reaps it.
 *
 * Prints per life: CPU of this process + its children (getrusage), wall, and the CPU that kernel
 * worker threads (kworkers: the net namespace's deferred teardown) used meanwhile (summed from
 * /proc/<pid>/stat of every kworker, after a settle; other tenants' kworker use is in it too).
 *
 * Usage: life N SKIP [FILTER.bpf] [ALLOWED_PATH...]   (as root)
 *   SKIP: comma list of steps to leave out, to price each: net,pid,ipc,mnt,tmpfs,proc,sysctl,
 *   cgroup,seccomp,uid,rlimit,req,none.   Build: gcc -O2 -o /tmp/floor_life bench/life.c */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

static const char *skip = "none";
static int skipping(const char *what) {
    const char *p = strstr(skip, what);
    return p != NULL && (p == skip || p[-1] == ',');
}
#define CHECK(x) do { if ((x) < 0) { perror(#x); _exit(111); } } while (0)

static struct sock_fprog prog;
static char cg[3][256];
static int ncg;

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static double cpu(void) {
    struct rusage a, b;
    getrusage(RUSAGE_SELF, &a); getrusage(RUSAGE_CHILDREN, &b);
    return a.ru_utime.tv_sec + a.ru_utime.tv_usec * 1e-6 + a.ru_stime.tv_sec + a.ru_stime.tv_usec * 1e-6
         + b.ru_utime.tv_sec + b.ru_utime.tv_usec * 1e-6 + b.ru_stime.tv_sec + b.ru_stime.tv_usec * 1e-6;
}
/* CPU seconds of every kworker thread so far (read before pivot_root: /proc of the host). */
static int procfd = -1;
static double kworkers(void) {
    long tck = sysconf(_SC_CLK_TCK);
    double sum = 0;
    int fd = openat(procfd, ".", O_RDONLY | O_DIRECTORY);
    DIR *d = fdopendir(fd);
    struct dirent *e;
    char path[300], buf[512];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "%s/stat", e->d_name);
        int f = openat(procfd, path, O_RDONLY);
        if (f < 0) continue;
        ssize_t n = read(f, buf, sizeof buf - 1);
        close(f);
        if (n <= 0) continue;
        buf[n] = 0;
        char *l = strchr(buf, '('), *r = strrchr(buf, ')');
        if (!l || !r || strncmp(l + 1, "kworker", 7) != 0) continue;
        unsigned long ut, st;
        /* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
        if (sscanf(r + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
            sum += (double)(ut + st) / tck;
    }
    closedir(d);
    return sum;
}

static void wr(const char *path, const char *val) {
    int fd = open(path, O_WRONLY);
    if (fd < 0) return;
    if (write(fd, val, strlen(val)) < 0) {}
    close(fd);
}

static void life(int uid) {
    if (!skipping("mnt") || !skipping("net") || !skipping("ipc")) {
        int fl = (skipping("mnt") ? 0 : CLONE_NEWNS) | (skipping("net") ? 0 : CLONE_NEWNET) | (skipping("ipc") ? 0 : CLONE_NEWIPC);
        CHECK(unshare(fl));
    }
    if (!skipping("tmpfs") && !skipping("mnt")) {
        CHECK(mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=64m,mode=1777"));
        CHECK(mount("tmpfs", "/var/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=8m,mode=1777"));
        CHECK(mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=8m,mode=1777"));
    }
    if (!skipping("proc") && !skipping("pid") && !skipping("mnt"))
        CHECK(mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL));
    if (!skipping("sysctl") && !skipping("proc") && !skipping("pid")) {
        wr("/proc/sys/kernel/shmmax", "1048576"); wr("/proc/sys/kernel/shmall", "256");
        wr("/proc/sys/kernel/shmmni", "4"); wr("/proc/sys/kernel/msgmni", "0");
    }
    char work[64];
    snprintf(work, sizeof work, "/tmp/sb-%d", uid);
    if (skipping("tmpfs")) snprintf(work, sizeof work, "/");
    else {
        if (mkdir(work, 0700) < 0 && errno != EEXIST) { perror("mkdir"); _exit(111); }
        CHECK(chown(work, uid, uid));
    }
    if (!skipping("rlimit")) {
        struct rlimit r;
        r.rlim_cur = 10; r.rlim_max = 11; CHECK(setrlimit(RLIMIT_CPU, &r));
        r.rlim_cur = r.rlim_max = 512UL << 20; CHECK(setrlimit(RLIMIT_AS, &r));
        r.rlim_cur = r.rlim_max = 8UL << 20; CHECK(setrlimit(RLIMIT_FSIZE, &r));
        r.rlim_cur = r.rlim_max = 64; CHECK(setrlimit(RLIMIT_NOFILE, &r));
        r.rlim_cur = r.rlim_max = 0; CHECK(setrlimit(RLIMIT_CORE, &r));
        r.rlim_cur = r.rlim_max = 64; CHECK(setrlimit(RLIMIT_NPROC, &r));
    }
    if (!skipping("uid")) {
        CHECK(setgroups(0, NULL));
        CHECK(setresgid(uid, uid, uid));
        CHECK(setresuid(uid, uid, uid));
    }
    CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
    if (!skipping("seccomp") && prog.len)
        CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0));
    CHECK(chdir(work));
    if (!skipping("req")) {
        pid_t p = fork();
        CHECK(p);
        if (p == 0) _exit(0);
        int st;
        waitpid(p, &st, 0);
    }
    _exit(0);
}

static void root_setup(int nallow, char **allow) {
    CHECK(unshare(CLONE_NEWNS | CLONE_NEWUTS));
    CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
    const char *stage = "/tmp/floor-stage";
    mkdir(stage, 0755);
    CHECK(mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4000,mode=0755"));
    char t[512];
    const char *dirs[] = {"tmp", "var", "var/tmp", "dev", "dev/shm", "proc", ".old-root", NULL};
    for (int i = 0; dirs[i]; i++) { snprintf(t, sizeof t, "%s/%s", stage, dirs[i]); CHECK(mkdir(t, 0755)); }
    snprintf(t, sizeof t, "%s/dev/null", stage);
    close(open(t, O_WRONLY | O_CREAT, 0644));
    CHECK(mount("/dev/null", t, NULL, MS_BIND, NULL));
    for (int i = 0; i < nallow; i++) {
        struct stat s;
        if (stat(allow[i], &s) < 0) continue;
        snprintf(t, sizeof t, "%s%s", stage, allow[i]);
        char cmd[600];     /* mkdir -p, by hand */
        for (char *p = t + strlen(stage) + 1; *p; p++) if (*p == '/') { *p = 0; mkdir(t, 0755); *p = '/'; }
        if (S_ISDIR(s.st_mode)) mkdir(t, 0755); else close(open(t, O_WRONLY | O_CREAT, 0644));
        (void)cmd;
        CHECK(mount(allow[i], t, NULL, MS_BIND | MS_REC, NULL));
        CHECK(mount(NULL, t, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL));
    }
    CHECK(chdir(stage));
    CHECK(syscall(SYS_pivot_root, ".", ".old-root"));
    CHECK(chdir("/"));
    CHECK(umount2("/.old-root", MNT_DETACH));
    CHECK(mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL));
}

static void cgroups_make(void) {
    const char *ctl[] = {"memory", "pids", "cpu"};
    const char *key[] = {"memory.limit_in_bytes", "pids.max", "cpu.shares"};
    const char *val[] = {"805306368", "80", "1024"};
    for (int i = 0; i < 3; i++) {
        snprintf(cg[ncg], sizeof cg[ncg], "/sys/fs/cgroup/%s/floor-%d", ctl[i], getpid());
        if (mkdir(cg[ncg], 0755) < 0) continue;
        char p[300];
        snprintf(p, sizeof p, "%s/%s", cg[ncg], key[i]);
        wr(p, val[i]);
        ncg++;
    }
}
static int cgfd[3];

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200;
    skip = argc > 2 ? argv[2] : "none";
    if (argc > 3 && strcmp(argv[3], "-") != 0) {
        static char buf[65536];
        int fd = open(argv[3], O_RDONLY);
        ssize_t len = fd >= 0 ? read(fd, buf, sizeof buf) : 0;
        prog.len = len / 8; prog.filter = (struct sock_filter *)buf;
    }
    procfd = open("/proc", O_RDONLY | O_DIRECTORY);
    if (!skipping("cgroup")) cgroups_make();
    for (int i = 0; i < ncg; i++) {
        char p[300];
        snprintf(p, sizeof p, "%s/cgroup.procs", cg[i]);
        cgfd[i] = open(p, O_WRONLY);
    }
    double rc0 = cpu(), rw0 = now();
    root_setup(argc - 4 > 0 ? argc - 4 : 0, argv + 4);
    printf("root setup (unshare mnt+uts, tmpfs, %d bind mounts, pivot_root): %.3f ms CPU, %.3f ms wall\n",
           argc - 4 > 0 ? argc - 4 : 0, (cpu() - rc0) * 1e3, (now() - rw0) * 1e3);
    int self_pidns = open("/proc/self/ns/pid", O_RDONLY);   /* host /proc is gone after pivot: */
    (void)self_pidns;
    int own = -1;
    {   /* the root's own pid namespace, to setns back to after each fork (as PidForker.leave) */
        char p[64]; snprintf(p, sizeof p, "%d/ns/pid", getpid());
        own = openat(procfd, p, O_RDONLY);
    }
    for (int round = 0; round < 2; round++) {          /* round 0 warms up */
        int m = round ? n : 10;
        double k0 = kworkers(), c0 = cpu(), w0 = now();
        for (int i = 0; i < m; i++) {
            if (!skipping("pid")) CHECK(unshare(CLONE_NEWPID));
            pid_t p = fork();
            CHECK(p);
            if (p == 0) life(40000 + (i % 8));
            if (!skipping("pid")) CHECK(setns(own, CLONE_NEWPID));
            char pid[32]; int len = snprintf(pid, sizeof pid, "%d", p);
            for (int g = 0; g < ncg; g++) if (write(cgfd[g], pid, len) < 0) perror("cgroup.procs");
            int st;
            waitpid(p, &st, 0);
            if (!WIFEXITED(st) || WEXITSTATUS(st)) { fprintf(stderr, "life failed: %x\n", st); return 1; }
        }
        double c1 = cpu(), w1 = now();
        usleep(1500000);                  /* the net namespaces' teardown is deferred to kworkers */
        double k1 = kworkers();
        if (round)
            printf("life (skip %s): %.3f ms CPU (root + life + request process), %.3f ms wall, kworkers %.3f ms a life (n=%d)\n",
                   skip, (c1 - c0) / m * 1e3, (w1 - w0) / m * 1e3, (k1 - k0) / m * 1e3, m);
    }
    return 0;
}
