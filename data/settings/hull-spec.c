/* Hull list parsing (see hull-spec.h). */
#include "hull-spec.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool al_hull_spec_parse(const char *text, al_hull_desc *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out);
    while (isspace((unsigned char) *text)) text++;
    size_t n = 0;
    while (text[n] && text[n] != '=' && !isspace((unsigned char) text[n]) && text[n] != ',') n++;
    if (n == 0) {
        snprintf(error, error_size, "a hull needs a name before its six numbers");
        return false;
    }
    if (n >= AL_HULL_NAME_MAX) {
        snprintf(error, error_size, "hull name \"%.*s...\" is longer than %d characters", 16,
                 text, AL_HULL_NAME_MAX - 1);
        return false;
    }
    memcpy(out->name, text, n);
    const char *p = text + n;
    double v[6];
    for (int i = 0; i < 6; i++) {
        while (*p == '=' || *p == ',' || isspace((unsigned char) *p)) p++;
        char *end;
        v[i] = strtod(p, &end);
        if (end == p || !isfinite(v[i])) {
            snprintf(error, error_size,
                     "hull \"%s\": expected 6 numbers (minx miny minz maxx maxy maxz), number %d "
                     "is missing or not finite",
                     out->name, i + 1);
            return false;
        }
        p = end;
    }
    while (isspace((unsigned char) *p) || *p == ',') p++;
    if (*p) {
        snprintf(error, error_size, "hull \"%s\": unexpected text after the six numbers: \"%s\"",
                 out->name, p);
        return false;
    }
    for (int k = 0; k < 3; k++) {
        out->mins[k] = v[k];
        out->maxs[k] = v[k + 3];
        if (out->mins[k] > out->maxs[k]) {
            snprintf(error, error_size, "hull \"%s\": min %g is greater than max %g on axis %c",
                     out->name, v[k], v[k + 3], "xyz"[k]);
            return false;
        }
    }
    return true;
}

int al_hull_spec_parse_list(const char *text, al_hull_desc *hulls, int max, char *error,
                            size_t error_size)
{
    int count = 0;
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t) (end - p) : strlen(p);
        char item[256];
        if (len >= sizeof item) {
            snprintf(error, error_size, "hull %d of the list is too long", count + 1);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        bool blank = true;
        for (size_t i = 0; i < len; i++)
            if (!isspace((unsigned char) item[i])) blank = false;
        if (!blank) {
            if (count == max) {
                snprintf(error, error_size, "more than %d hulls in the list", max);
                return -1;
            }
            if (!al_hull_spec_parse(item, &hulls[count], error, error_size)) return -1;
            count++;
        }
        if (!end) break;
        p = end + 1;
    }
    if (count == 0) snprintf(error, error_size, "the hull list is empty");
    return count ? count : -1;
}
