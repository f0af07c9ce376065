/*
 * LD_PRELOAD shim for the test harness: Grid Engine's qmaster and execd have no listen-address option and bind
 * the wildcard address; this turns a bind() to 0.0.0.0 or :: into one to 127.0.0.1 or ::1, so nothing the tests
 * start listens beyond loopback. It removes itself from LD_PRELOAD at load time so that the jobs a daemon starts
 * run without it. Built by test/integration/harness/sge.ts with: cc -shared -fPIC -O2 -o X.so this.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef int (*bind_fn)(int, const struct sockaddr *, socklen_t);

static bind_fn next_bind(void)
{
    static bind_fn real;
    if (!real) real = (bind_fn)dlsym(RTLD_NEXT, "bind");
    return real;
}

__attribute__((constructor)) static void forget_preload(void)
{
    next_bind();
    unsetenv("LD_PRELOAD");
}

int bind(int fd, const struct sockaddr *address, socklen_t length)
{
    if (address && address->sa_family == AF_INET && length >= (socklen_t)sizeof(struct sockaddr_in)) {
        struct sockaddr_in v4;
        memcpy(&v4, address, sizeof v4);
        if (v4.sin_addr.s_addr == htonl(INADDR_ANY)) {
            v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            return next_bind()(fd, (const struct sockaddr *)&v4, sizeof v4);
        }
    }
    if (address && address->sa_family == AF_INET6 && length >= (socklen_t)sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 v6;
        memcpy(&v6, address, sizeof v6);
        if (IN6_IS_ADDR_UNSPECIFIED(&v6.sin6_addr)) {
            v6.sin6_addr = in6addr_loopback;
            return next_bind()(fd, (const struct sockaddr *)&v6, sizeof v6);
        }
    }
    return next_bind()(fd, address, length);
}
