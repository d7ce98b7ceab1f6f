/* Numbers as the designer reads them (see allium-format.h). */
#include "allium-format.h"

#include <locale.h>
#include <math.h>
#include <string.h>

const char *allium_format_fixed(char buf[ALLIUM_NUMBER_SIZE], double v, int decimals)
{
    g_snprintf(buf, ALLIUM_NUMBER_SIZE, "%.*f", decimals, v);
    if (buf[0] != '-' || !isfinite(v)) return buf;
    /* "-0.00": every digit a zero. */
    for (const char *c = buf + 1; *c; c++)
        if (g_ascii_isdigit(*c) && *c != '0') return buf;
    memmove(buf, buf + 1, strlen(buf));
    return buf;
}

const char *allium_format_short(char buf[ALLIUM_NUMBER_SIZE], double v, int decimals)
{
    allium_format_fixed(buf, v, decimals);
    if (!isfinite(v) || decimals <= 0) return buf;
    /* The decimals' trailing zeros, then the separator the locale writes ("." or ","). */
    const char *point = localeconv()->decimal_point;
    char *sep = point && *point ? strstr(buf, point) : NULL;
    if (!sep) return buf;
    size_t n = strlen(buf);
    while (n > (size_t) (sep - buf) + strlen(point) && buf[n - 1] == '0') n--;
    if (n == (size_t) (sep - buf) + strlen(point)) n = (size_t) (sep - buf);
    buf[n] = '\0';
    return buf;
}
