/* A small test harness with TAP output (meson test protocol: 'tap').
 *
 *   CHECK_TEST(low_tunnel_crouch_only, "/bsp/onion/low-tunnel-crouch-only") { ... }
 *
 * defines and registers a test named after the behaviour it checks. CHECK(...) records a
 * failure with file and line and lets the test go on; REQUIRE(...) ends the test.
 * check_skip("why") marks the running test skipped. A whole program can skip with
 * check_skip_all("why") before check_main. Run one test with "-p /path/prefix".
 */
#ifndef ALLIUM_CHECK_H
#define ALLIUM_CHECK_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*check_fn)(void);

void check_register(const char *path, check_fn fn);
void check_fail(const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void check_skip(const char *reason);
void check_skip_all(const char *reason);
void check_note(const char *format, ...) __attribute__((format(printf, 1, 2)));
bool check_failed(void);
int check_main(int argc, char **argv);

#define CHECK_TEST(fn, path)                                                               \
    static void fn(void);                                                                  \
    __attribute__((constructor)) static void check_register_##fn(void)                    \
    {                                                                                      \
        check_register(path, fn);                                                          \
    }                                                                                      \
    static void fn(void)

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) check_fail(__FILE__, __LINE__, "%s", #cond);                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                               \
    do {                                                                                   \
        if (!(cond)) check_fail(__FILE__, __LINE__, __VA_ARGS__);                          \
    } while (0)

#define REQUIRE(cond)                                                                      \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            check_fail(__FILE__, __LINE__, "%s", #cond);                                   \
            return;                                                                        \
        }                                                                                  \
    } while (0)

#define REQUIRE_MSG(cond, ...)                                                             \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            check_fail(__FILE__, __LINE__, __VA_ARGS__);                                   \
            return;                                                                        \
        }                                                                                  \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                              \
    do {                                                                                   \
        double a_ = (a), b_ = (b);                                                         \
        if (!(a_ - b_ <= (tol) && b_ - a_ <= (tol)))                                       \
            check_fail(__FILE__, __LINE__, "%s = %.9g, expected %s = %.9g (+-%g)", #a, a_,  \
                       #b, b_, (double) (tol));                                            \
    } while (0)

#endif
