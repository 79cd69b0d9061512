/*
 * DR Studio delay router: adds latency and jitter to IPv4 packets between room pairs on kernels
 * without netem. It owns a TUN device in the lab's core namespace; policy routing sends the packets
 * of a delayed (source room, destination room) pair into the TUN, this program holds each packet
 * for latency +/- jitter and writes it back, and the kernel forwards it on (it re-enters on the
 * TUN, which the policy rules do not match). See docs/network.md.
 *
 * Usage: drs-delay-router <tun-name> [max-queued-packets]
 * Prints "ready <tun-name>" once the device is up. Commands on stdin, one per line, each answered
 * with "ok" or "error <reason>" on stdout:
 *   set <src-cidr> <dst-cidr> <latency-us> <jitter-us>   add or change a pair
 *   clear <src-cidr> <dst-cidr>                          remove a pair (its queue is sent at once)
 *   clear-all
 *   stats                                                "stats queued=N dropped=N passed=N"
 * End of stdin (the owner died or closed it) ends the program, which removes the TUN device.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAIRS 1024
#define MAX_PACKET 65536

struct packet {
  struct packet *next;
  uint64_t due_ns;
  size_t len;
  unsigned char data[];
};

struct pair {
  int used;
  uint32_t src_net, src_mask, dst_net, dst_mask;
  uint64_t latency_ns, jitter_ns;
  /* FIFO, so a pair never reorders: a packet is never due before the one ahead of it. */
  struct packet *head, *tail;
  uint64_t last_due_ns;
};

static struct pair pairs[MAX_PAIRS];
static long queued = 0, max_queued = 10000, dropped = 0, passed = 0;
static int tun_fd = -1;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int parse_cidr(const char *text, uint32_t *net, uint32_t *mask) {
  char buf[64];
  strncpy(buf, text, sizeof buf - 1);
  buf[sizeof buf - 1] = 0;
  char *slash = strchr(buf, '/');
  int bits = 32;
  if (slash) {
    *slash = 0;
    char *end;
    long b = strtol(slash + 1, &end, 10);
    if (*end || b < 0 || b > 32) return -1;
    bits = (int)b;
  }
  struct in_addr addr;
  if (inet_pton(AF_INET, buf, &addr) != 1) return -1;
  *mask = bits == 0 ? 0 : htonl(0xffffffffu << (32 - bits));
  *net = addr.s_addr & *mask;
  return 0;
}

static struct pair *find_pair(uint32_t sn, uint32_t sm, uint32_t dn, uint32_t dm) {
  for (int i = 0; i < MAX_PAIRS; i++) {
    struct pair *p = &pairs[i];
    if (p->used && p->src_net == sn && p->src_mask == sm && p->dst_net == dn && p->dst_mask == dm)
      return p;
  }
  return NULL;
}

static struct pair *match_packet(uint32_t src, uint32_t dst) {
  for (int i = 0; i < MAX_PAIRS; i++) {
    struct pair *p = &pairs[i];
    if (p->used && (src & p->src_mask) == p->src_net && (dst & p->dst_mask) == p->dst_net) return p;
  }
  return NULL;
}

static void send_packet(const unsigned char *data, size_t len) {
  /* A full TUN queue or a vanished route loses the packet, as a real link would. */
  if (write(tun_fd, data, len) < 0 && errno != EAGAIN) dropped++;
  else passed++;
}

static void flush_pair(struct pair *p, int all, uint64_t now) {
  while (p->head && (all || p->head->due_ns <= now)) {
    struct packet *pk = p->head;
    p->head = pk->next;
    if (!p->head) p->tail = NULL;
    send_packet(pk->data, pk->len);
    free(pk);
    queued--;
  }
}

static uint64_t draw_delay(struct pair *p) {
  if (p->jitter_ns == 0) return p->latency_ns;
  /* Uniform in [latency - jitter, latency + jitter], clamped at zero. */
  double u = (double)random() / (double)RAND_MAX * 2.0 - 1.0;
  double d = (double)p->latency_ns + u * (double)p->jitter_ns;
  return d < 0 ? 0 : (uint64_t)d;
}

static void on_packet(const unsigned char *data, size_t len) {
  if (len < 20 || (data[0] >> 4) != 4) {
    send_packet(data, len);
    return;
  }
  uint32_t src, dst;
  memcpy(&src, data + 12, 4);
  memcpy(&dst, data + 16, 4);
  struct pair *p = match_packet(src, dst);
  if (!p) {
    send_packet(data, len);
    return;
  }
  if (queued >= max_queued) {
    dropped++;
    return;
  }
  struct packet *pk = malloc(sizeof *pk + len);
  if (!pk) {
    dropped++;
    return;
  }
  uint64_t due = now_ns() + draw_delay(p);
  if (due < p->last_due_ns) due = p->last_due_ns;
  p->last_due_ns = due;
  pk->next = NULL;
  pk->due_ns = due;
  pk->len = len;
  memcpy(pk->data, data, len);
  if (p->tail) p->tail->next = pk;
  else p->head = pk;
  p->tail = pk;
  queued++;
}

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout);
}

static void on_command(char *line) {
  char verb[16] = {0}, a[64] = {0}, b[64] = {0};
  unsigned long long lat = 0, jit = 0;
  int n = sscanf(line, "%15s %63s %63s %llu %llu", verb, a, b, &lat, &jit);
  if (n <= 0) return;
  uint32_t sn, sm, dn, dm;
  if (strcmp(verb, "set") == 0 && n == 5) {
    if (parse_cidr(a, &sn, &sm) || parse_cidr(b, &dn, &dm)) return reply("error bad cidr");
    struct pair *p = find_pair(sn, sm, dn, dm);
    for (int i = 0; !p && i < MAX_PAIRS; i++) {
      if (pairs[i].used) continue;
      p = &pairs[i];
      memset(p, 0, sizeof *p);
      p->used = 1;
      p->src_net = sn, p->src_mask = sm, p->dst_net = dn, p->dst_mask = dm;
    }
    if (!p) return reply("error too many pairs (max %d)", MAX_PAIRS);
    p->latency_ns = lat * 1000ull;
    p->jitter_ns = jit * 1000ull;
    return reply("ok");
  }
  if (strcmp(verb, "clear") == 0 && n == 3) {
    if (parse_cidr(a, &sn, &sm) || parse_cidr(b, &dn, &dm)) return reply("error bad cidr");
    struct pair *p = find_pair(sn, sm, dn, dm);
    if (p) {
      flush_pair(p, 1, 0);
      p->used = 0;
    }
    return reply("ok");
  }
  if (strcmp(verb, "clear-all") == 0) {
    for (int i = 0; i < MAX_PAIRS; i++) {
      if (!pairs[i].used) continue;
      flush_pair(&pairs[i], 1, 0);
      pairs[i].used = 0;
    }
    return reply("ok");
  }
  if (strcmp(verb, "stats") == 0) {
    return reply("stats queued=%ld dropped=%ld passed=%ld", queued, dropped, passed);
  }
  reply("error unknown command (use set, clear, clear-all, stats)");
}

static int open_tun(const char *name) {
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) return -1;
  int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (sock < 0) return -1;
  if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0) return -1;
  ifr.ifr_flags |= IFF_UP;
  if (ioctl(sock, SIOCSIFFLAGS, &ifr) < 0) return -1;
  close(sock);
  return fd;
}

int main(int argc, char **argv) {
  if (argc < 2 || strlen(argv[1]) >= IFNAMSIZ) {
    fprintf(stderr, "usage: %s <tun-name (max 15 chars)> [max-queued-packets]\n", argv[0]);
    return 2;
  }
  if (argc > 2) max_queued = atol(argv[2]) > 0 ? atol(argv[2]) : max_queued;
  signal(SIGPIPE, SIG_IGN);
  srandom((unsigned)now_ns());
  tun_fd = open_tun(argv[1]);
  if (tun_fd < 0) {
    fprintf(stderr, "cannot create TUN device %s: %s (needs CAP_NET_ADMIN and /dev/net/tun)\n",
            argv[1], strerror(errno));
    return 1;
  }
  reply("ready %s", argv[1]);

  static unsigned char buf[MAX_PACKET];
  static char line[512];
  size_t line_len = 0;
  for (;;) {
    uint64_t now = now_ns(), next = UINT64_MAX;
    for (int i = 0; i < MAX_PAIRS; i++) {
      if (!pairs[i].used) continue;
      flush_pair(&pairs[i], 0, now);
      if (pairs[i].head && pairs[i].head->due_ns < next) next = pairs[i].head->due_ns;
    }
    struct timespec timeout, *tp = NULL;
    if (next != UINT64_MAX) {
      uint64_t wait = next > now ? next - now : 0;
      timeout.tv_sec = (time_t)(wait / 1000000000ull);
      timeout.tv_nsec = (long)(wait % 1000000000ull);
      tp = &timeout;
    }
    struct pollfd fds[2] = {{.fd = tun_fd, .events = POLLIN}, {.fd = 0, .events = POLLIN}};
    if (ppoll(fds, 2, tp, NULL) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (fds[0].revents & POLLIN) {
      for (int burst = 0; burst < 256; burst++) {
        ssize_t n = read(tun_fd, buf, sizeof buf);
        if (n <= 0) break;
        on_packet(buf, (size_t)n);
      }
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(0, line + line_len, sizeof line - 1 - line_len);
      if (n <= 0) return 0;
      line_len += (size_t)n;
      line[line_len] = 0;
      char *start = line, *nl;
      while ((nl = strchr(start, '\n'))) {
        *nl = 0;
        on_command(start);
        start = nl + 1;
      }
      line_len = strlen(start);
      memmove(line, start, line_len + 1);
      if (line_len == sizeof line - 1) line_len = 0; /* an overlong line is dropped */
    }
  }
}
