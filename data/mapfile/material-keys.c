/* Material light as worldspawn keys (see material-keys.h). */
#include "material-keys.h"
#include "map-write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *al_material_key_name(const char *key)
{
    size_t n = strlen(AL_MATERIAL_KEY_PREFIX);
    if (!key || strncmp(key, AL_MATERIAL_KEY_PREFIX, n) != 0 || key[n] == '\0') return NULL;
    return key + n;
}

/* Reads COUNT numbers from *S into OUT, each within LO..HI; advances *S. */
static bool read_numbers(const char **s, int count, double lo, double hi, double *out)
{
    for (int i = 0; i < count; i++) {
        char *end;
        double v = strtod(*s, &end);
        if (end == *s || !isfinite(v) || v < lo || v > hi) return false;
        *s = end;
        out[i] = v;
    }
    return true;
}

bool al_material_key_parse(const char *value, al_material_light *out, char *why, size_t size)
{
    static const char *const parts[] = {"colour", "reflectance", "emission"};
    memset(out, 0, sizeof *out);
    out->reflectance = -1;
    const char *s = value;
    int next = 0; /* parts come in order, each at most once */
    for (;;) {
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\0') return true;
        size_t len = strcspn(s, " \t");
        int part = -1;
        for (int p = next; p < 3 && part < 0; p++)
            if (strlen(parts[p]) == len && strncmp(s, parts[p], len) == 0) part = p;
        if (part < 0) {
            snprintf(why, size, "expected %s, found \"%.*s\"",
                     next == 0   ? "colour, reflectance or emission"
                     : next == 1 ? "reflectance or emission"
                     : next == 2 ? "emission"
                                 : "nothing more",
                     (int) (len < 40 ? len : 40), s);
            return false;
        }
        s += len;
        bool ok;
        if (part == 0)
            ok = out->has_colour = read_numbers(&s, 3, 0, 1, out->colour);
        else if (part == 1)
            ok = read_numbers(&s, 1, 0, 1, &out->reflectance);
        else
            ok = read_numbers(&s, 3, 0, INFINITY, out->emission);
        if (!ok) {
            snprintf(why, size, "%s needs %s", parts[part],
                     part == 0   ? "three numbers from 0 to 1"
                     : part == 1 ? "a number from 0 to 1"
                                 : "three numbers of at least 0");
            return false;
        }
        next = part + 1;
    }
}

static void put_number(char *buf, size_t size, size_t *at, double v)
{
    char n[32];
    al_format_number(v, n);
    if (*at < size) *at += (size_t) snprintf(buf + *at, size - *at, " %s", n);
}

void al_material_key_format(const al_material_light *m, char *buf, size_t size)
{
    size_t at = (size_t) snprintf(buf, size, "colour");
    for (int k = 0; k < 3; k++) put_number(buf, size, &at, m->colour[k]);
    if (m->reflectance >= 0) {
        if (at < size) at += (size_t) snprintf(buf + at, size - at, " reflectance");
        put_number(buf, size, &at, m->reflectance);
    }
    if (m->emission[0] > 0 || m->emission[1] > 0 || m->emission[2] > 0) {
        if (at < size) at += (size_t) snprintf(buf + at, size - at, " emission");
        for (int k = 0; k < 3; k++) put_number(buf, size, &at, m->emission[k]);
    }
}
