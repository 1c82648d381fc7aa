/* Helpers shared by the libFuzzer targets: a NUL-terminated copy of the input
 * (the parsers that take C strings must see exactly the fuzzer's bytes) and a
 * selector byte for targets that drive several related parsers. */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Caller frees. Embedded NULs stay: parsers that take a length see them. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* A finding the sanitizers cannot see: a property the parser promises broke. */
#define FUZZ_CHECK(cond)                                                                      \
    do {                                                                                      \
        if (!(cond))                                                                          \
            __builtin_trap();                                                                 \
    } while (0)

/* 1 when buf (size bytes) holds a NUL within its size. */
static inline int fuzz_terminated(const char *buf, size_t size)
{
    return memchr(buf, '\0', size) != NULL;
}

#endif
