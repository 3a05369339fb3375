/* Gives BlueZ's emulated controllers an RSSI: btvirt reports every advert with RSSI 127 ("not
 * available"). Loaded into btvirt with LD_PRELOAD, this rewrites the RSSI byte of each LE
 * advertising report (legacy 0x02, extended 0x0D) that btvirt writes to /dev/vhci (writev) or to
 * a serial client's socket (sendmsg), to the value of BT_RSSI (dBm, default -60). Everything else passes unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static int8_t rssi(void) {
    const char *text = getenv("BT_RSSI");
    return (int8_t)(text ? atoi(text) : -60);
}

/* An H4 LE Meta event carrying advertising reports: set the RSSI of each report it holds. */
static void patch(uint8_t *p, size_t n) {
    if (n < 6 || p[0] != 0x04 || p[1] != 0x3E || (size_t)p[2] + 3 != n) return;
    uint8_t sub = p[3], count = p[4];
    size_t at = 5;
    for (uint8_t i = 0; i < count; i++) {
        if (sub == 0x02) {  /* type, address type, address, data length, data, RSSI */
            if (at + 9 > n) return;
            size_t length = p[at + 8];
            if (at + 9 + length + 1 > n) return;
            p[at + 9 + length] = (uint8_t)rssi();
            at += 10 + length;
        } else if (sub == 0x0D) {  /* type(2) addr-type addr(6) phys(2) sid tx RSSI interval(2) dtype daddr(6) length data */
            if (at + 24 > n) return;
            p[at + 13] = (uint8_t)rssi();
            at += 24 + p[at + 23];
        } else {
            return;
        }
    }
}

/* Gathers a packet written in pieces into `buffer` and patches it; 0 when it is not one to patch. */
static size_t gather(const struct iovec *iov, size_t count, uint8_t buffer[1024]) {
    size_t total = 0;
    for (size_t i = 0; i < count; i++) total += iov[i].iov_len;
    if (total < 6 || total > 1024) return 0;
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        memcpy(buffer + at, iov[i].iov_base, iov[i].iov_len);
        at += iov[i].iov_len;
    }
    patch(buffer, total);
    return total;
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
    static ssize_t (*real)(int, const struct iovec *, int);
    if (!real) real = (ssize_t (*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
    uint8_t buffer[1024];
    size_t total = count > 0 ? gather(iov, (size_t)count, buffer) : 0;
    if (total == 0) return real(fd, iov, count);
    struct iovec one = { buffer, total };
    return real(fd, &one, 1);
}

ssize_t write(int fd, const void *data, size_t n) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (n < 6 || n > 1024) return real(fd, data, n);
    uint8_t buffer[1024];
    memcpy(buffer, data, n);
    patch(buffer, n);
    return real(fd, buffer, n);
}

ssize_t sendmsg(int fd, const struct msghdr *message, int flags) {
    static ssize_t (*real)(int, const struct msghdr *, int);
    if (!real) real = (ssize_t (*)(int, const struct msghdr *, int))dlsym(RTLD_NEXT, "sendmsg");
    uint8_t buffer[1024];
    size_t total = gather(message->msg_iov, message->msg_iovlen, buffer);
    if (total == 0) return real(fd, message, flags);
    struct iovec one = { buffer, total };
    struct msghdr copy = *message;
    copy.msg_iov = &one;
    copy.msg_iovlen = 1;
    return real(fd, &copy, flags);
}
