/* Material defaults from names (see material-defaults.h). */
#include "material-defaults.h"

#include "al-input.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

static bool equals_ci(const char *a, const char *b)
{
    while (*a && *b) {
        if (tolower((unsigned char) *a) != tolower((unsigned char) *b)) return false;
        a++, b++;
    }
    return *a == *b;
}

static bool starts_ci(const char *s, const char *prefix)
{
    while (*prefix) {
        if (tolower((unsigned char) *s) != *prefix) return false;
        s++, prefix++;
    }
    return true;
}

uint32_t al_material_default_flags(const char *name)
{
    if (!name) return 0;
    if (starts_ci(name, "sky")) return AL_MATERIAL_SKY;
    /* Quake's liquids: lava and slime by name, every other '*' texture water. */
    if (name[0] == '*' && starts_ci(name + 1, "lava")) return AL_MATERIAL_LIQUID | AL_MATERIAL_LAVA;
    if (name[0] == '*' && starts_ci(name + 1, "slime"))
        return AL_MATERIAL_LIQUID | AL_MATERIAL_SLIME;
    if (name[0] == '*') return AL_MATERIAL_LIQUID;
    if (equals_ci(name, "trigger")) return AL_MATERIAL_TRIGGER;
    if (equals_ci(name, "clip")) return AL_MATERIAL_CLIP;
    if (equals_ci(name, "skip") || equals_ci(name, "nodraw") || equals_ci(name, "caulk"))
        return AL_MATERIAL_NODRAW;
    if (equals_ci(name, "hint")) return AL_MATERIAL_HINT;
    /* A hint brush's faces that split nothing (ericw-tools' hintskip): hint contents, when
     * it comes first, and a skip face. */
    if (equals_ci(name, "hintskip")) return AL_MATERIAL_HINT | AL_MATERIAL_NODRAW;
    if (equals_ci(name, "origin")) return AL_MATERIAL_ORIGIN;
    return 0;
}

void al_material_default_colour(const char *name, float rgb[3])
{
    /* FNV-1a of the lower-cased name picks a hue; saturation and value stay in a band that
     * reads well under lighting. */
    uint32_t h = 2166136261u;
    for (const char *p = name ? name : ""; *p; p++) {
        h ^= (uint32_t) tolower((unsigned char) *p);
        h *= 16777619u;
    }
    float hue = (float) (h % 360u);
    float sat = 0.35f + (float) ((h >> 9) % 30u) / 100.0f;
    float val = 0.55f + (float) ((h >> 17) % 30u) / 100.0f;
    float c = val * sat;
    float x = c * (1.0f - fabsf(fmodf(hue / 60.0f, 2.0f) - 1.0f));
    float m = val - c;
    float r = 0, g = 0, b = 0;
    switch ((int) (hue / 60.0f)) {
    case 0: r = c, g = x; break;
    case 1: r = x, g = c; break;
    case 2: g = c, b = x; break;
    case 3: g = x, b = c; break;
    case 4: r = x, b = c; break;
    default: r = c, b = x; break;
    }
    rgb[0] = r + m;
    rgb[1] = g + m;
    rgb[2] = b + m;
}

bool al_material_colour_is_default(const char *name, const float rgb[3])
{
    float d[3];
    al_material_default_colour(name, d);
    for (int k = 0; k < 3; k++)
        if (!(fabsf(d[k] - rgb[k]) <= 1e-6f)) return false;
    return true;
}

void al_material_reflected_colour(const char *name, const float colour[3],
                                  const float *texture_average, float out[3])
{
    const float *from =
        texture_average && al_material_colour_is_default(name, colour) ? texture_average : colour;
    float c[3] = {from[0], from[1], from[2]};
    for (int k = 0; k < 3; k++) out[k] = c[k];
}
