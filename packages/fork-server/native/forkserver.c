// Fork server for ffmpeg and ffprobe (LD_PRELOAD). Most of a tiny ffmpeg run is the dynamic loader:
// the binary loads over 200 shared libraries and resolves ~43,000 symbols before main() (60 of the
// 68 ms of CPU a 64x64 PNG -> JPEG takes here). Preloaded into the tool, this library takes over
// before main(), once the libraries are loaded and bound (LD_BIND_NOW), and forks a copy for each
// run the service asks for: each child starts from the same pristine pre-main state an exec would
// give, and calls the tool's own main() with the service's argv. The idea is AFL's fork server.
//
// The service (packages/media/src/ffmpeg/fork-server.ts) starts the tool with this library and
// FORKSERVER_SOCKET=<path in a 0700 directory>, then opens one connection per run and sends:
//   "FS1\0" cwd\0 nenv\0 (K=V\0)* nlim\0 (name=value\0)* argc\0 (arg\0)*
// and reads frames back: type (1 byte), length (4 bytes, big-endian), payload:
//   'p' pid (decimal)   'o' stdout bytes   'e' stderr bytes
//   'x' "status utime_us stime_us maxrss_kb" once the child is reaped and its pipes are drained
//   'f' a message: the run could not be started
// Closing the connection kills the run. The child gets what the execa path gives ffmpeg: its own
// session, SIGKILL if its parent dies, stdin /dev/null, no other descriptors, the given cwd,
// environment and rlimits (soft = hard). The server itself dies with the service (setpriv
// --pdeathsig) and ends, killing its runs, when its stdin closes.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);

#define MAX_RUNS 256
#define MAX_REQUEST (8 << 20)

struct run {
  pid_t pid;
  int conn, out, err;
  int exited, status;
  int hung_up; // the service closed the connection: nothing more is sent, the run is killed
  struct rusage usage;
};

static main_fn tool_main;
static struct run runs[MAX_RUNS];
static int child_pipe[2];
static pid_t server_pid;

static void on_sigchld(int sig) {
  (void)sig;
  int saved = errno;
  (void)!write(child_pipe[1], "c", 1);
  errno = saved;
}

static int write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

static int frame(int conn, char type, const void *data, size_t len) {
  unsigned char head[5] = {(unsigned char)type, (unsigned char)(len >> 24), (unsigned char)(len >> 16),
                           (unsigned char)(len >> 8), (unsigned char)len};
  // A service that stopped reading gets no more; the run still ends (its pipes are drained).
  return write_all(conn, head, 5) == 0 && write_all(conn, data, len) == 0 ? 0 : -1;
}

static void fail(int conn, const char *what) {
  char msg[256];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(errno));
  frame(conn, 'f', msg, strlen(msg));
}

// --- the request --------------------------------------------------------------------------------

struct request {
  char *buf;
  size_t len, pos;
};

static const char *next_str(struct request *r) {
  if (r->pos >= r->len) return NULL;
  char *s = r->buf + r->pos;
  char *end = memchr(s, '\0', r->len - r->pos);
  if (!end) return NULL;
  r->pos = (size_t)(end - r->buf) + 1;
  return s;
}

static long next_count(struct request *r, long max) {
  const char *s = next_str(r);
  if (!s || !*s) return -1;
  char *end;
  long n = strtol(s, &end, 10);
  return (*end || n < 0 || n > max) ? -1 : n;
}

// Whether the bytes read so far hold a whole request (parsing twice is cheap: requests are small).
static int complete(char *buf, size_t len) {
  struct request r = {buf, len, 0};
  const char *magic = next_str(&r);
  if (!magic) return 0;
  if (strcmp(magic, "FS1") != 0) return -1;
  if (!next_str(&r)) return 0;
  for (int section = 0; section < 3; section++) {
    size_t at = r.pos;
    if (!next_str(&r)) return 0; // the count has not fully arrived
    r.pos = at;
    long n = next_count(&r, 1 << 20);
    if (n < 0) return -1;
    for (long i = 0; i < n; i++)
      if (!next_str(&r)) return 0;
  }
  return r.pos == len ? 1 : -1;
}

static int read_request(int conn, struct request *r) {
  size_t cap = 4096;
  r->buf = malloc(cap);
  r->len = r->pos = 0;
  for (;;) {
    if (!r->buf) return -1;
    ssize_t n = read(conn, r->buf + r->len, cap - r->len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    r->len += (size_t)n;
    int done = complete(r->buf, r->len);
    if (done != 0) return done > 0 ? 0 : -1;
    if (r->len == cap) {
      if (cap >= MAX_REQUEST) return -1;
      cap *= 2;
      char *grown = realloc(r->buf, cap);
      if (!grown) return -1;
      r->buf = grown;
    }
  }
}

static int rlimit_resource(const char *name) {
  if (!strcmp(name, "as")) return RLIMIT_AS;
  if (!strcmp(name, "fsize")) return RLIMIT_FSIZE;
  if (!strcmp(name, "nofile")) return RLIMIT_NOFILE;
  if (!strcmp(name, "cpu")) return RLIMIT_CPU;
  if (!strcmp(name, "core")) return RLIMIT_CORE;
  return -1;
}

// --- the child ----------------------------------------------------------------------------------

static void child_fail(const char *what) {
  dprintf(2, "fork server: %s: %s\n", what, strerror(errno));
  _exit(127);
}

static void become_tool(struct request *r, int out, int err) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != server_pid) _exit(127);
  int null = open("/dev/null", O_RDONLY);
  if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(127);
  // The server's own descriptors (socket, self-pipe, up to 3 per run) are all below 1024.
  for (int fd = 3; fd < 1024; fd++) close(fd);
  signal(SIGCHLD, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);

  r->pos = 0;
  next_str(r); // magic
  const char *cwd = next_str(r);
  if (chdir(cwd) < 0) child_fail("chdir");
  long nenv = next_count(r, 1 << 20);
  clearenv();
  for (long i = 0; i < nenv; i++) {
    char *kv = (char *)next_str(r);
    if (putenv(kv) != 0) child_fail("putenv");
  }
  long nlim = next_count(r, 1 << 20);
  int set = 0; // every limit is required: a request without one gets no run
  for (long i = 0; i < nlim; i++) {
    char *item = (char *)next_str(r);
    char *eq = strchr(item, '=');
    if (!eq) _exit(127);
    *eq = '\0';
    int resource = rlimit_resource(item);
    char *end;
    errno = 0;
    unsigned long long value = strtoull(eq + 1, &end, 10);
    if (resource < 0 || end == eq + 1 || *end || errno || eq[1] == '-') {
      dprintf(2, "fork server: bad limit %s=%s\n", item, eq + 1);
      _exit(127);
    }
    struct rlimit lim = {(rlim_t)value, (rlim_t)value};
    if (setrlimit(resource, &lim) < 0) child_fail("setrlimit");
    set |= 1 << resource;
  }
  int required = 1 << RLIMIT_AS | 1 << RLIMIT_FSIZE | 1 << RLIMIT_NOFILE | 1 << RLIMIT_CPU | 1 << RLIMIT_CORE;
  if ((set & required) != required) {
    dprintf(2, "fork server: a run needs all five limits\n");
    _exit(127);
  }
  long argc = next_count(r, 1 << 20);
  char **argv = calloc((size_t)argc + 1, sizeof *argv);
  if (!argv || argc < 1) _exit(127);
  for (long i = 0; i < argc; i++) argv[i] = (char *)next_str(r);
  // Last, so a run in its own session is a run fully set up (the service kills both the pid and
  // its group, so a kill before this point still lands).
  if (setsid() < 0) child_fail("setsid");
  exit(tool_main((int)argc, argv, environ));
}

// --- the server ---------------------------------------------------------------------------------

static void start_run(int conn) {
  struct ucred peer;
  socklen_t peer_len = sizeof peer;
  // Only the service (our parent) may ask for runs: a run has our uid too, and must not be able
  // to start another one without limits.
  if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) < 0 || peer.pid != getppid()) {
    close(conn);
    return;
  }
  // The service writes the request at once and reads replies as they come; bound both anyway, so
  // one stuck connection cannot hold up every run (a reply that cannot be sent ends that run).
  struct timeval limit = {5, 0};
  setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  struct request r;
  int slot = -1;
  for (int i = 0; i < MAX_RUNS; i++)
    if (runs[i].conn < 0) {
      slot = i;
      break;
    }
  if (read_request(conn, &r) < 0 || slot < 0) {
    errno = slot < 0 ? EAGAIN : EINVAL;
    fail(conn, "bad request or too many runs");
    free(r.buf);
    close(conn);
    return;
  }
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) < 0) {
    fail(conn, "pipe");
    free(r.buf);
    close(conn);
    return;
  }
  if (pipe2(err, O_CLOEXEC) < 0) {
    fail(conn, "pipe");
    close(out[0]);
    close(out[1]);
    free(r.buf);
    close(conn);
    return;
  }
  pid_t pid = fork();
  if (pid == 0) become_tool(&r, out[1], err[1]);
  free(r.buf);
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    fail(conn, "fork");
    close(out[0]);
    close(err[0]);
    close(conn);
    return;
  }
  runs[slot] = (struct run){.pid = pid, .conn = conn, .out = out[0], .err = err[0]};
  char text[24];
  int n = snprintf(text, sizeof text, "%d", (int)pid);
  frame(conn, 'p', text, (size_t)n);
}

static void finish_if_done(struct run *run) {
  if (!run->exited || run->out >= 0 || run->err >= 0) return;
  char text[96];
  long long utime = (long long)run->usage.ru_utime.tv_sec * 1000000 + run->usage.ru_utime.tv_usec;
  long long stime = (long long)run->usage.ru_stime.tv_sec * 1000000 + run->usage.ru_stime.tv_usec;
  int n = snprintf(text, sizeof text, "%d %lld %lld %ld", run->status, utime, stime, run->usage.ru_maxrss);
  if (!run->hung_up) frame(run->conn, 'x', text, (size_t)n);
  close(run->conn);
  run->conn = -1;
}

static void relay(struct run *run, int *fd, char type) {
  char buf[65536];
  ssize_t n = read(*fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    close(*fd);
    *fd = -1;
    finish_if_done(run);
    return;
  }
  // Connections block: the service reads every one as data comes, and ffmpeg's output is small.
  if (!run->hung_up && frame(run->conn, type, buf, (size_t)n) < 0) {
    run->hung_up = 1; // the service stopped reading: nothing more is sent, and the run ends
    if (!run->exited) kill(-run->pid, SIGKILL), kill(run->pid, SIGKILL);
  }
}

static void reap(void) {
  char drain[64];
  while (read(child_pipe[0], drain, sizeof drain) > 0) {
  }
  for (;;) {
    int status;
    struct rusage usage;
    pid_t pid = wait4(-1, &status, WNOHANG, &usage);
    if (pid <= 0) return;
    for (int i = 0; i < MAX_RUNS; i++)
      if (runs[i].conn >= 0 && runs[i].pid == pid && !runs[i].exited) {
        runs[i].exited = 1;
        runs[i].status = status;
        runs[i].usage = usage;
        finish_if_done(&runs[i]);
      }
  }
}

static void kill_all(void) {
  for (int i = 0; i < MAX_RUNS; i++)
    if (runs[i].conn >= 0 && !runs[i].exited) kill(-runs[i].pid, SIGKILL), kill(runs[i].pid, SIGKILL);
}

static int threads(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  int n = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1) break;
  if (f) fclose(f);
  return n;
}

static int serve(const char *path) {
  server_pid = getpid();
  // fork() copies only the calling thread: a library that started one before main() would leave
  // its children with locks no one can release. Refuse; the service then runs the tool directly.
  int t = threads();
  if (t != 1) {
    dprintf(2, "fork server: %d threads before main(), not forking\n", t);
    return 3;
  }
  for (int i = 0; i < MAX_RUNS; i++) runs[i].conn = runs[i].out = runs[i].err = -1;
  if (pipe2(child_pipe, O_CLOEXEC | O_NONBLOCK) < 0) return 4;
  struct sigaction sa = {0};
  sa.sa_handler = on_sigchld;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigaction(SIGCHLD, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (listener < 0 || strlen(path) >= sizeof addr.sun_path) return 4;
  strcpy(addr.sun_path, path);
  unlink(path);
  mode_t old = umask(077);
  int bound = bind(listener, (struct sockaddr *)&addr, sizeof addr);
  umask(old);
  if (bound < 0 || listen(listener, 128) < 0) {
    dprintf(2, "fork server: cannot listen on %s: %s\n", path, strerror(errno));
    return 4;
  }
  (void)!write(1, "ready\n", 6);

  struct pollfd fds[3 + 3 * MAX_RUNS];
  struct {
    struct run *run;
    int which;
  } owner[3 + 3 * MAX_RUNS];
  for (;;) {
    int n = 0;
    fds[n++] = (struct pollfd){.fd = 0, .events = POLLIN};
    fds[n++] = (struct pollfd){.fd = listener, .events = POLLIN};
    fds[n++] = (struct pollfd){.fd = child_pipe[0], .events = POLLIN};
    for (int i = 0; i < MAX_RUNS; i++) {
      struct run *run = &runs[i];
      if (run->conn < 0) continue;
      if (run->out >= 0) owner[n].run = run, owner[n].which = 1, fds[n++] = (struct pollfd){.fd = run->out, .events = POLLIN};
      if (run->err >= 0) owner[n].run = run, owner[n].which = 2, fds[n++] = (struct pollfd){.fd = run->err, .events = POLLIN};
      if (!run->hung_up) owner[n].run = run, owner[n].which = 3, fds[n++] = (struct pollfd){.fd = run->conn, .events = POLLIN};
    }
    if (poll(fds, (nfds_t)n, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents) {
      char byte;
      ssize_t got = read(0, &byte, 1);
      if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) break; // the service is gone
    }
    if (fds[2].revents) reap();
    for (int i = 3; i < n; i++) {
      if (!fds[i].revents) continue;
      struct run *run = owner[i].run;
      if (run->conn < 0) continue; // finished earlier in this pass
      if (owner[i].which == 1 && run->out == fds[i].fd) relay(run, &run->out, 'o');
      else if (owner[i].which == 2 && run->err == fds[i].fd) relay(run, &run->err, 'e');
      else if (owner[i].which == 3) {
        char byte;
        ssize_t got = recv(run->conn, &byte, 1, MSG_DONTWAIT);
        // The service closed the connection: it gave up on the run (cancel, time limit, exit).
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
          run->hung_up = 1;
          if (!run->exited) kill(-run->pid, SIGKILL), kill(run->pid, SIGKILL);
        }
      }
    }
    if (fds[1].revents & POLLIN) {
      int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
      if (conn >= 0) start_run(conn);
    }
  }
  kill_all();
  unlink(path);
  return 0;
}

// --- taking over before main() ------------------------------------------------------------------

static int wrapped_main(int argc, char **argv, char **envp) {
  (void)argc, (void)argv, (void)envp;
  char *path = getenv("FORKSERVER_SOCKET");
  char *tool = getenv("FORKSERVER_TOOL");
  // The library is also loaded into the wrappers that exec the tool (setpriv): they run as usual.
  char self[4096], want[4096];
  if (!path || !tool || !realpath("/proc/self/exe", self) || !realpath(tool, want) || strcmp(self, want) != 0)
    return tool_main(argc, argv, envp);
  path = strdup(path);
  // Nothing of the server's own setup reaches the runs' environment (each run sets its own).
  unsetenv("LD_PRELOAD");
  unsetenv("LD_BIND_NOW");
  unsetenv("FORKSERVER_SOCKET");
  unsetenv("FORKSERVER_TOOL");
  return serve(path);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end) {
  start_fn next = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
  tool_main = main;
  return next(wrapped_main, argc, argv, init, fini, rtld_fini, stack_end);
}
