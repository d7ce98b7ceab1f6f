/* Content keys of compiler inputs (see al-world.h). */
#include "world-internal.h"

#include <stdio.h>
#include <string.h>

typedef struct hash128 {
    uint64_t a, b;
} hash128;

static void mix(hash128 *h, const void *data, size_t n)
{
    /* Two FNV-1a lanes, the second fed from the first, and a final avalanche: a content
     * key that changes with any change of the input, not a security measure. */
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h->a = (h->a ^ p[i]) * 0x100000001b3ull;
        h->b = (h->b ^ p[i] ^ (h->a >> 29)) * 0x100000001b3ull;
    }
}

static void mix_i32(hash128 *h, int32_t v)
{
    mix(h, &v, sizeof v);
}

static void mix_string(hash128 *h, const char *s)
{
    mix(h, s ? s : "", strlen(s ? s : "") + 1);
}

static uint64_t avalanche(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void al_input_key(const al_input *in, const char *salt, char key[33])
{
    hash128 h = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
    mix_string(&h, AL_WORLD_FORMAT);
    mix_string(&h, salt);
    /* Counts first, so that moving an item from one array to the next changes the key. */
    mix_i32(&h, in->material_count);
    mix_i32(&h, in->entity_count);
    mix_i32(&h, in->brush_count);
    mix_i32(&h, in->face_count);
    mix_i32(&h, in->hull_count);
    for (int m = 0; m < in->material_count; m++) {
        mix_string(&h, in->materials[m].name);
        mix(&h, &in->materials[m].flags, sizeof in->materials[m].flags);
    }
    for (int e = 0; e < in->entity_count; e++) {
        const al_entity_desc *d = &in->entities[e];
        mix_string(&h, d->classname);
        mix_i32(&h, d->line);
        mix_i32(&h, d->property_count);
        for (int p = 0; p < d->property_count; p++) {
            mix_string(&h, d->properties[p].key);
            mix_string(&h, d->properties[p].value);
        }
    }
    for (int b = 0; b < in->brush_count; b++) {
        const al_brush_desc *d = &in->brushes[b];
        const int32_t fields[] = {d->entity, d->index, d->first_face, d->face_count, d->line};
        mix(&h, fields, sizeof fields);
    }
    for (int f = 0; f < in->face_count; f++) {
        mix(&h, in->faces[f].points, sizeof in->faces[f].points);
        mix_i32(&h, in->faces[f].material);
    }
    for (int k = 0; k < in->hull_count; k++) {
        mix_string(&h, in->hulls[k].name);
        mix(&h, in->hulls[k].mins, sizeof in->hulls[k].mins);
        mix(&h, in->hulls[k].maxs, sizeof in->hulls[k].maxs);
    }
    mix(&h, &in->block_size, sizeof in->block_size);
    snprintf(key, 33, "%016llx%016llx", (unsigned long long) avalanche(h.a),
             (unsigned long long) avalanche(h.b ^ h.a));
}

/* Word-wise mixing for the per-brush keys, which the live compile computes for every brush
 * after every edit: a multiply-rotate lane per 64-bit word, eight times fewer steps than
 * the byte-wise lanes above. */
static uint64_t mix_word(uint64_t h, uint64_t v)
{
    h ^= v * 0x9E3779B97F4A7C15ull;
    h = (h << 31) | (h >> 33);
    return h * 0xC2B2AE3D27D4EB4Full;
}

uint64_t al_brush_desc_key(const al_input *in, int index)
{
    const al_brush_desc *d = &in->brushes[index];
    const char *classname = d->entity >= 0 && d->entity < in->entity_count
                                ? in->entities[d->entity].classname
                                : NULL;
    al_entity_role role = d->entity == 0 ? AL_ROLE_WORLD : al_entity_role_of(classname);
    uint64_t h = mix_word(0x243F6A8885A308D3ull, (uint64_t) role);
    h = mix_word(h, (uint64_t) (uint32_t) d->face_count);
    if (d->first_face < 0 || d->face_count < 0 || d->first_face > in->face_count - d->face_count)
        return mix_word(h, (uint64_t) (uint32_t) d->first_face);
    for (int f = 0; f < d->face_count; f++) {
        const al_face_desc *face = &in->faces[d->first_face + f];
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 3; c++) {
                uint64_t bits;
                memcpy(&bits, &face->points[k][c], sizeof bits);
                h = mix_word(h, bits);
            }
        uint32_t flags = face->material >= 0 && face->material < in->material_count
                             ? in->materials[face->material].flags
                             : 0;
        h = mix_word(h, ((uint64_t) flags << 32) | (uint32_t) face->material);
    }
    return avalanche(h);
}
