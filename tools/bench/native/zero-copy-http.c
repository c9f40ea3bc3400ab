// The transfer bench's reference HTTP peer: the fastest way this machine can move a file over
// loopback HTTP, so the bench can tell the service's cost from the machine's and the client's.
// Bytes never enter user space: GET bodies go out with sendfile(2), PUT bodies go into the file
// with splice(2) through a pipe. The server keeps the service's promise for uploads (on disk
// before the 200: writeback started every 8 MB, fsync at the end).
//
//   zero-copy-http serve GET_FILE PUT_FILE     listen on 127.0.0.1:0, print the port, serve
//                                              one connection at a time (GET sends GET_FILE,
//                                              PUT writes PUT_FILE); Connection: close
//   zero-copy-http get PORT TARGET OUT_FILE    GET http://127.0.0.1:PORT/TARGET into OUT_FILE
//   zero-copy-http put PORT TARGET IN_FILE [HEADER: VALUE]...
//                                              PUT IN_FILE to http://127.0.0.1:PORT/TARGET
//
// Loopback only, by construction. Exits non-zero with a message on any failure, including a
// non-2xx answer or a short body.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEAD_MAX 16384
#define SYNC_EVERY (8L << 20)

static void die(const char *what) {
  fprintf(stderr, "zero-copy-http: %s: %s\n", what, errno ? strerror(errno) : "failed");
  exit(1);
}

static void write_all(int fd, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) die("write");
    buf += n;
    len -= (size_t)n;
  }
}

// Reads up to the end of the head; returns its length. Bytes after it (the start of a body) stay
// in buf, *got says how many were read in all. Callers parse the head with the byte after it set
// to 0 (head_only), so no header is ever found in body bytes.
static size_t read_head(int fd, char *buf, size_t *got) {
  *got = 0;
  for (;;) {
    if (*got == HEAD_MAX - 1) { errno = 0; die("head too long"); }
    ssize_t n = read(fd, buf + *got, HEAD_MAX - 1 - *got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { errno = 0; die("connection closed before the end of the head"); }
    *got += (size_t)n;
    buf[*got] = 0;
    char *end = strstr(buf, "\r\n\r\n");
    if (end) return (size_t)(end + 4 - buf);
  }
}

// Ends the string at the head; returns the byte it replaced, to put back before the body is used.
static char head_only(char *buf, size_t head) {
  char first = buf[head];
  buf[head] = 0;
  return first;
}

static long content_length(const char *head) {
  const char *h = strcasestr(head, "\r\ncontent-length:");
  if (!h) { errno = 0; die("no Content-Length"); }
  return atol(h + 17);
}

static void send_file(int sock, int file, long len) {
  off_t off = 0;
  while (off < len) {
    ssize_t n = sendfile(sock, file, &off, (size_t)(len - off));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) die("sendfile");
  }
}

// Moves len bytes from the socket into the file through a pipe; with durable, starts writeback
// every 8 MB and fsyncs at the end.
static void splice_to_file(int sock, int file, long len, int durable) {
  int p[2];
  if (pipe(p)) die("pipe");
  fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
  long done = 0, synced = 0; // counted from the file's current end: writeback ranges start there
  off_t base = lseek(file, 0, SEEK_CUR);
  while (done < len) {
    ssize_t n = splice(sock, NULL, p[1], NULL, (size_t)(len - done), SPLICE_F_MOVE | SPLICE_F_MORE);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) die("splice from the socket");
    for (ssize_t moved = 0; moved < n;) {
      ssize_t m = splice(p[0], NULL, file, NULL, (size_t)(n - moved), SPLICE_F_MOVE);
      if (m < 0 && errno == EINTR) continue;
      if (m <= 0) die("splice into the file");
      moved += m;
    }
    done += n;
    if (durable && done - synced >= SYNC_EVERY) {
      sync_file_range(file, base + synced, done - synced, SYNC_FILE_RANGE_WRITE);
      synced = done;
    }
  }
  if (durable && fsync(file)) die("fsync");
  close(p[0]);
  close(p[1]);
}

static int connect_loopback(int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a)) die("connect");
  return s;
}

static void expect_2xx(const char *head) {
  if (strncmp(head, "HTTP/1.1 2", 10) != 0) {
    errno = 0;
    fprintf(stderr, "zero-copy-http: answer: %.*s\n", (int)strcspn(head, "\r"), head);
    exit(1);
  }
}

static void serve_one(int c, const char *get_file, const char *put_file) {
  char buf[HEAD_MAX];
  size_t got, head = read_head(c, buf, &got);
  char first = head_only(buf, head);
  if (strncmp(buf, "GET ", 4) == 0) {
    int f = open(get_file, O_RDONLY);
    struct stat st;
    if (f < 0 || fstat(f, &st)) die(get_file);
    char h[256];
    int n = snprintf(h, sizeof h, "HTTP/1.1 200 OK\r\nContent-Length: %ld\r\nConnection: close\r\n\r\n", (long)st.st_size);
    write_all(c, h, (size_t)n);
    send_file(c, f, st.st_size);
    close(f);
  } else if (strncmp(buf, "PUT ", 4) == 0) {
    long len = content_length(buf);
    // curl asks before sending a large body and otherwise waits 1 s for this (Node answers it
    // by itself): without it, every curl upload to this server would count a second idle.
    const char *go = "HTTP/1.1 100 Continue\r\n\r\n";
    if (strcasestr(buf, "\r\nexpect: 100-continue")) write_all(c, go, strlen(go));
    int f = open(put_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (f < 0) die(put_file);
    buf[head] = first;
    write_all(f, buf + head, got - head);
    splice_to_file(c, f, len - (long)(got - head), 1);
    close(f);
    const char *ok = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    write_all(c, ok, strlen(ok));
  } else {
    const char *no = "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    write_all(c, no, strlen(no));
  }
  close(c);
}

static _Noreturn void serve(const char *get_file, const char *put_file) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 16) || getsockname(s, (struct sockaddr *)&a, &len)) die("listen");
  printf("%d\n", ntohs(a.sin_port));
  fflush(stdout);
  for (;;) {
    int c = accept(s, NULL, NULL);
    if (c >= 0) serve_one(c, get_file, put_file);
  }
}

static int get(int port, const char *target, const char *out) {
  int s = connect_loopback(port);
  char buf[HEAD_MAX];
  int n = snprintf(buf, sizeof buf, "GET /%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n", target, port);
  if (n >= (int)sizeof buf) { errno = 0; die("target too long"); }
  write_all(s, buf, (size_t)n);
  size_t got, head = read_head(s, buf, &got);
  char first = head_only(buf, head);
  expect_2xx(buf);
  long len = content_length(buf);
  buf[head] = first;
  int f = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (f < 0) die(out);
  write_all(f, buf + head, got - head);
  splice_to_file(s, f, len - (long)(got - head), 0);
  if (close(f)) die(out);
  return 0;
}

static int put(int port, const char *target, const char *in, char **headers, int nheaders) {
  int f = open(in, O_RDONLY);
  struct stat st;
  if (f < 0 || fstat(f, &st)) die(in);
  int s = connect_loopback(port);
  char buf[HEAD_MAX];
  int n = snprintf(buf, sizeof buf, "PUT /%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: %ld\r\n", target, port, (long)st.st_size);
  for (int i = 0; i < nheaders && n < (int)sizeof buf; i++) n += snprintf(buf + n, sizeof buf - (size_t)n, "%s\r\n", headers[i]);
  if (n + 3 >= (int)sizeof buf) { errno = 0; die("head too long"); }
  n += snprintf(buf + n, sizeof buf - (size_t)n, "\r\n");
  write_all(s, buf, (size_t)n);
  send_file(s, f, st.st_size);
  size_t got;
  read_head(s, buf, &got);
  expect_2xx(buf);
  return 0;
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN); // a peer that goes away is an error with a message, not a silent death
  if (argc == 4 && strcmp(argv[1], "serve") == 0) serve(argv[2], argv[3]);
  if (argc == 5 && strcmp(argv[1], "get") == 0) return get(atoi(argv[2]), argv[3], argv[4]);
  if (argc >= 5 && strcmp(argv[1], "put") == 0) return put(atoi(argv[2]), argv[3], argv[4], argv + 5, argc - 5);
  fprintf(stderr, "usage: zero-copy-http serve GET_FILE PUT_FILE | get PORT TARGET OUT | put PORT TARGET IN [HEADER: VALUE]...\n");
  return 2;
}
