/* Reading entity keys (al-entity-keys.h). */
#include "al-entity-keys.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *al_entity_value(const al_entity_desc *e, const char *key)
{
    for (int i = 0; i < e->property_count; i++)
        if (e->properties[i].key && strcmp(e->properties[i].key, key) == 0)
            return e->properties[i].value ? e->properties[i].value : "";
    return NULL;
}

int al_read_numbers(const char *s, double *out, int max)
{
    int n = 0;
    for (;;) {
        while (isspace((unsigned char) *s)) s++;
        if (!*s) return n;
        if (n == max) return -1;
        char *end;
        double v = strtod(s, &end);
        if (end == s || !isfinite(v)) return -1;
        out[n++] = v;
        s = end;
    }
}
