/* Quake BSP export (see bsp.h): the pipeline, the models and entities, the limits of each
 * format, and the packing of the lumps into BSP29's or BSP2's layout.
 *
 * Pipeline (al_bsp_build): face polygons -> models and hulls -> hull trees (bsp-trees.c)
 * -> faces and miptex (bsp-faces.c) -> visibility (bsp-vis.c) -> lighting (bsp-light.c)
 * -> entities -> limits -> lumps. Nothing is written to
 * disk until every stage has succeeded; al_bsp_write then writes a temporary file beside
 * the target and renames it.
 */
#include "bsp-internal.h"

#include "al-brush.h"
#include "al-clock.h"
#include "files/files.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* --- small containers ---------------------------------------------------------------------- */

void *q_push(q_array *a)
{
    if (a->count == a->capacity) {
        if (a->capacity > INT32_MAX / 2) return NULL;
        int32_t cap = a->capacity ? 2 * a->capacity : 64;
        void *items = realloc(a->items, (size_t) cap * a->size);
        if (!items) return NULL;
        a->items = items;
        a->capacity = cap;
    }
    void *p = (char *) a->items + (size_t) a->count++ * a->size;
    memset(p, 0, a->size);
    return p;
}

void q_array_free(q_array *a)
{
    free(a->items);
    a->items = NULL;
    a->count = a->capacity = 0;
}

uint64_t q_hash_bytes(const void *data, size_t size)
{
    /* FNV-1a, then a final mix: keys are small records of a few ints or floats. */
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < size; i++) h = (h ^ p[i]) * 1099511628211ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h | 1; /* 0 marks a free slot */
}

int32_t q_index_get(const q_index *ix, uint64_t key)
{
    if (!ix->capacity) return -1;
    for (size_t i = key & (ix->capacity - 1);; i = (i + 1) & (ix->capacity - 1)) {
        if (ix->keys[i] == key) return ix->values[i];
        if (ix->keys[i] == 0) return -1;
    }
}

bool q_index_put(q_index *ix, uint64_t key, int32_t value)
{
    if (2 * (ix->count + 1) > ix->capacity) {
        size_t cap = ix->capacity ? 2 * ix->capacity : 1024;
        uint64_t *keys = calloc(cap, sizeof *keys);
        int32_t *values = malloc(cap * sizeof *values);
        if (!keys || !values) {
            free(keys);
            free(values);
            return false;
        }
        for (size_t i = 0; i < ix->capacity; i++) {
            if (!ix->keys[i]) continue;
            size_t j = ix->keys[i] & (cap - 1);
            while (keys[j]) j = (j + 1) & (cap - 1);
            keys[j] = ix->keys[i];
            values[j] = ix->values[i];
        }
        free(ix->keys);
        free(ix->values);
        ix->keys = keys;
        ix->values = values;
        ix->capacity = cap;
    }
    size_t i = key & (ix->capacity - 1);
    while (ix->keys[i] && ix->keys[i] != key) i = (i + 1) & (ix->capacity - 1);
    if (!ix->keys[i]) ix->count++;
    ix->keys[i] = key;
    ix->values[i] = value;
    return true;
}

void q_index_free(q_index *ix)
{
    free(ix->keys);
    free(ix->values);
    memset(ix, 0, sizeof *ix);
}

int32_t q_plane_add(q_bsp *q, const double normal[3], double dist, bool *flipped)
{
    int axis = 0;
    for (int a = 1; a < 3; a++)
        if (fabs(normal[a]) > fabs(normal[axis])) axis = a;
    *flipped = normal[axis] < 0;
    double s = *flipped ? -1 : 1;
    q_plane p;
    memset(&p, 0, sizeof p);
    for (int a = 0; a < 3; a++) p.normal[a] = (float) (s * normal[a]) + 0.0f; /* no -0 */
    dist -= normal[0] * q->offset[0] + normal[1] * q->offset[1] + normal[2] * q->offset[2];
    p.dist = (float) (s * dist) + 0.0f;
    bool axial = p.normal[(axis + 1) % 3] == 0 && p.normal[(axis + 2) % 3] == 0;
    p.type = axial ? axis : 3 + axis;
    uint64_t h = q_hash_bytes(&p, sizeof p);
    int32_t found = q_index_get(&q->plane_index, h);
    if (found >= 0 && memcmp(Q_AT(q->planes, q_plane, found), &p, sizeof p) == 0) return found;
    q_plane *n = q_push(&q->planes);
    if (!n) return -1;
    *n = p;
    int32_t index = q->planes.count - 1;
    if (found < 0 && !q_index_put(&q->plane_index, h, index)) return -1;
    return index;
}

/* --- models and hulls ---------------------------------------------------------------------- */

static al_entity_role role_of(const al_input *in, int entity)
{
    return entity == 0 ? AL_ROLE_WORLD : al_entity_role_of(in->entities[entity].classname);
}

/* Whether input brush B is an origin brush (no geometry: it places its entity's model). */
static bool origin_brush(const al_input *in, int b)
{
    return (al_brush_contents(in, b, NULL) & AL_MATERIAL_ORIGIN) != 0;
}

/* The .bsp's models: the world, each solid brush model of the world in its order, then
 * every other brush entity with a valid brush (triggers and the like: no collision). The
 * bounds of each are its brushes' but its origin brush (unexpanded, in world coordinates
 * until relative_bounds); its origin is the centre of its origin brush, as the compiled
 * world reports it (al_world_entity_origin), as ericw-tools' qbsp sets it. */
static al_status plan_models(q_bsp *q)
{
    const al_input *in = q->src->input;
    const al_world *w = q->src->world;
    size_t entities = (size_t) in->entity_count + 1;
    q->entity_model = malloc(entities * sizeof *q->entity_model);
    q->model_entity = malloc(entities * sizeof *q->model_entity);
    q->model_allium = malloc(entities * sizeof *q->model_allium);
    q->model_origin = calloc(entities, sizeof *q->model_origin);
    q->model_has_origin = calloc(entities, sizeof *q->model_has_origin);
    bool *has_brush = calloc(entities, sizeof *has_brush);
    if (!q->entity_model || !q->model_entity || !q->model_allium || !q->model_origin ||
        !q->model_has_origin || !has_brush) {
        free(has_brush);
        return AL_ERR_NOMEM;
    }
    for (int e = 0; e < in->entity_count; e++) q->entity_model[e] = -1;
    for (int b = 0; b < in->brush_count; b++)
        if (q->polys.brush_first[b] < q->polys.brush_first[b + 1] && !origin_brush(in, b))
            has_brush[in->brushes[b].entity] = true;
    for (int m = 0; m < al_world_model_count(w); m++) {
        int e = al_world_model_entity(w, m);
        q->entity_model[e] = q->model_count;
        q->model_entity[q->model_count] = e;
        q->model_allium[q->model_count++] = m;
    }
    for (int e = 1; e < in->entity_count; e++) {
        if (!has_brush[e] || q->entity_model[e] >= 0) continue;
        al_entity_role role = role_of(in, e);
        if (role == AL_ROLE_WORLD || role == AL_ROLE_DETAIL) continue; /* merged */
        q->entity_model[e] = q->model_count;
        q->model_entity[q->model_count] = e;
        q->model_allium[q->model_count++] = -1;
    }
    free(has_brush);
    for (int m = 1; m < q->model_count; m++)
        q->model_has_origin[m] = al_world_entity_origin(w, q->model_entity[m], q->model_origin[m]);
    for (int m = 0; m < q->model_count; m++)
        if (!q_push(&q->models)) return AL_ERR_NOMEM;
    double (*lo)[3] = malloc((size_t) q->model_count * 2 * sizeof *lo);
    if (!lo) return AL_ERR_NOMEM;
    double (*hi)[3] = lo + q->model_count;
    for (int m = 0; m < q->model_count; m++)
        for (int a = 0; a < 3; a++) lo[m][a] = INFINITY, hi[m][a] = -INFINITY;
    for (int b = 0; b < in->brush_count; b++) {
        if (q->polys.brush_first[b] == q->polys.brush_first[b + 1] || origin_brush(in, b)) continue;
        int e = in->brushes[b].entity;
        int m = q->entity_model[e];
        if (m < 0) {
            al_entity_role role = role_of(in, e);
            if (role != AL_ROLE_WORLD && role != AL_ROLE_DETAIL) continue;
            m = 0;
        }
        for (int a = 0; a < 3; a++) {
            lo[m][a] = fmin(lo[m][a], q->polys.brush_mins[b][a]);
            hi[m][a] = fmax(hi[m][a], q->polys.brush_maxs[b][a]);
        }
    }
    for (int m = 0; m < q->model_count; m++) {
        q_model *qm = Q_AT(q->models, q_model, m);
        for (int a = 0; a < 3; a++) {
            bool none = lo[m][a] > hi[m][a];
            qm->mins[a] = none ? 0 : (float) lo[m][a];
            qm->maxs[a] = none ? 0 : (float) hi[m][a];
        }
    }
    free(lo);
    return AL_OK;
}

/* The models' bounds moved into their own coordinates (by -origin), once every stage has
 * read them in the world's. */
static void relative_bounds(q_bsp *q)
{
    for (int m = 0; m < q->model_count; m++) {
        q_model *qm = Q_AT(q->models, q_model, m);
        for (int a = 0; a < 3; a++) {
            qm->mins[a] = (float) (qm->mins[a] - q->model_origin[m][a]);
            qm->maxs[a] = (float) (qm->maxs[a] - q->model_origin[m][a]);
        }
    }
}

/* Quake's hull boxes: 1 the player, 2 the large monsters. */
static const double QUAKE_HULL[3][2][3] = {
    {{0, 0, 0}, {0, 0, 0}},
    {{-16, -16, -24}, {16, 16, 32}},
    {{-32, -32, -24}, {32, 32, 64}},
};
static const char *const QUAKE_HULL_NAME[3] = {"point", "stand", "large"};

static bool same_box(const al_hull_desc *h, int quake)
{
    for (int a = 0; a < 3; a++)
        if (h->mins[a] != QUAKE_HULL[quake][0][a] || h->maxs[a] != QUAKE_HULL[quake][1][a])
            return false;
    return true;
}

/* Quake's hull I from the world's hull of its name, or else of its box; a box that differs
 * from Quake's is a warning (the engine moves its boxes through the map's). */
static al_status pick_hulls(q_bsp *q)
{
    const al_world *w = q->src->world;
    for (int i = 0; i < 3; i++) {
        int h = i == 0 ? 0 : al_world_find_hull(w, QUAKE_HULL_NAME[i]);
        for (int k = 0; h < 0 && k < al_world_hull_count(w); k++)
            if (same_box(al_world_hull(w, k), i)) h = k;
        if (h < 0) {
            al_diag_add(q->diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "the map has no hull \"%s\" (nor one of %g %g %g, %g %g %g) for Quake's "
                        "hull %d",
                        QUAKE_HULL_NAME[i], QUAKE_HULL[i][0][0], QUAKE_HULL[i][0][1],
                        QUAKE_HULL[i][0][2], QUAKE_HULL[i][1][0], QUAKE_HULL[i][1][1],
                        QUAKE_HULL[i][1][2], i);
            return AL_ERR_INVALID_ARGUMENT;
        }
        const al_hull_desc *d = al_world_hull(w, h);
        if (!same_box(d, i))
            al_diag_add(q->diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "hull \"%s\" (%g %g %g, %g %g %g) is not Quake's hull %d (%g %g %g, %g "
                        "%g %g): the engine's boxes will not fit the exported clip hull",
                        d->name, d->mins[0], d->mins[1], d->mins[2], d->maxs[0], d->maxs[1],
                        d->maxs[2], i, QUAKE_HULL[i][0][0], QUAKE_HULL[i][0][1],
                        QUAKE_HULL[i][0][2], QUAKE_HULL[i][1][0], QUAKE_HULL[i][1][1],
                        QUAKE_HULL[i][1][2]);
        q->quake_hull[i] = h;
    }
    return AL_OK;
}

/* --- entities ------------------------------------------------------------------------------ */

typedef struct text {
    char *data;
    size_t length, capacity;
    bool failed;
} text;

static void append(text *t, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void append(text *t, const char *format, ...)
{
    if (t->failed) return;
    va_list args;
    va_start(args, format);
    va_list copy;
    va_copy(copy, args);
    int n = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    if (n < 0 || t->length + (size_t) n + 1 > t->capacity) {
        size_t cap = (t->capacity ? 2 * t->capacity : 4096) + (size_t) (n > 0 ? n : 0);
        char *d = n < 0 ? NULL : realloc(t->data, cap);
        if (!d) {
            t->failed = true;
            va_end(args);
            return;
        }
        t->data = d;
        t->capacity = cap;
    }
    vsnprintf(t->data + t->length, t->capacity - t->length, format, args);
    t->length += (size_t) n;
    va_end(args);
}

/* V as the shortest decimal that reads back as the same double, into BUF. */
static void shortest(char *buf, size_t size, double v)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v + 0.0);
        if (strtod(buf, NULL) == v) return;
    }
}

/* The entities lump: the map's entities in order, but for the func_group and func_detail
 * ones (their brushes are the world's), each brush entity with "model" "*N", and one with
 * an origin brush with "origin" "X Y Z" (its origin brush's centre, in place of any origin
 * the map gave it). */
static al_status build_entities(q_bsp *q)
{
    const al_map *map = q->src->map;
    const al_input *in = q->src->input;
    text t = {0};
    for (int e = 0; e < map->entity_count && e < in->entity_count; e++) {
        const al_map_entity *me = &map->entities[e];
        int model = q->entity_model[e];
        al_entity_role role = role_of(in, e);
        if (e > 0 && model < 0 && me->brush_count > 0 &&
            (role == AL_ROLE_WORLD || role == AL_ROLE_DETAIL))
            continue;
        append(&t, "{\n");
        bool origin = model > 0 && q->model_has_origin[model];
        for (int p = 0; p < me->property_count; p++) {
            if (model > 0 && strcmp(me->properties[p].key, "model") == 0) continue;
            if (origin && strcmp(me->properties[p].key, "origin") == 0) continue;
            append(&t, "\"%s\" \"%s\"\n", me->properties[p].key, me->properties[p].value);
        }
        if (model > 0) append(&t, "\"model\" \"*%d\"\n", model);
        if (origin) {
            char xyz[3][32];
            for (int a = 0; a < 3; a++) shortest(xyz[a], sizeof xyz[a], q->model_origin[model][a]);
            append(&t, "\"origin\" \"%s %s %s\"\n", xyz[0], xyz[1], xyz[2]);
        }
        append(&t, "}\n");
    }
    if (t.failed) {
        free(t.data);
        return AL_ERR_NOMEM;
    }
    q->entities = t.data;
    q->entities_bytes = t.length + 1; /* Quake reads the lump as a string: its NUL too */
    return AL_OK;
}

/* --- limits and packing -------------------------------------------------------------------- */

static bool over(q_bsp *q, const char *what, int64_t count, int64_t limit, const char *why)
{
    if (count <= limit) return false;
    al_diag_add(q->diags, AL_SEVERITY_ERROR, AL_DIAG_LIMIT, -1, -1, -1, -1, -1,
                "the map needs %lld %s; BSP29 holds at most %lld (%s): export as BSP2 "
                "(--bsp-format bsp2)",
                (long long) count, what, (long long) limit, why);
    return true;
}

static bool bounds_over(q_bsp *q, const char *what, const float *mins, const float *maxs)
{
    for (int a = 0; a < 3; a++)
        if (mins[a] < -32768 || maxs[a] > 32767) {
            al_diag_add(q->diags, AL_SEVERITY_ERROR, AL_DIAG_LIMIT, -1, -1, -1, -1, -1,
                        "the map reaches %g on axis %c; BSP29's %s bounds are 16-bit (-32768 "
                        "to 32767): export as BSP2 (--bsp-format bsp2)",
                        mins[a] < -32768 ? mins[a] : maxs[a], "xyz"[a], what);
            return true;
        }
    return false;
}

/* Whether the .bsp fits BSP29; errors name each limit passed. */
static bool fits_bsp29(q_bsp *q)
{
    bool bad = false;
    bad |= over(q, "nodes", q->nodes.count, 32767, "16-bit child indices");
    bad |= over(q, "leafs", q->leafs.count, 32767, "16-bit child indices");
    bad |= over(q, "clipnodes", q->clipnodes.count, 32767, "16-bit child indices");
    bad |= over(q, "planes", q->planes.count, 32767, "16-bit plane numbers of faces");
    bad |= over(q, "faces", q->faces.count, 65535, "16-bit face numbers of marksurfaces");
    bad |= over(q, "texinfo", q->texinfo.count, 32767, "16-bit texinfo numbers of faces");
    bad |= over(q, "vertexes", q->vertexes.count, 65535, "16-bit vertex numbers of edges");
    bad |=
        over(q, "marksurfaces", q->marksurfaces.count, 65535, "16-bit first marksurface of leafs");
    int64_t most = 0;
    for (int32_t i = 0; i < q->faces.count; i++)
        if (Q_AT(q->faces, q_face, i)->edge_count > most)
            most = Q_AT(q->faces, q_face, i)->edge_count;
    bad |= over(q, "edges in one face", most, 32767, "16-bit edge counts of faces");
    for (int32_t i = 0; i < q->nodes.count && !bad; i++)
        bad |= bounds_over(q, "node", Q_AT(q->nodes, q_node, i)->mins,
                           Q_AT(q->nodes, q_node, i)->maxs);
    for (int32_t i = 0; i < q->leafs.count && !bad; i++)
        bad |= bounds_over(q, "leaf", Q_AT(q->leafs, q_leaf, i)->mins,
                           Q_AT(q->leafs, q_leaf, i)->maxs);
    return !bad;
}

typedef struct out_buffer {
    uint8_t *data;
    size_t length, capacity;
    bool failed;
} out_buffer;

static void put(out_buffer *o, const void *bytes, size_t n)
{
    if (o->failed || n == 0) return; /* an empty lump may have no bytes at all */
    if (o->length + n > o->capacity) {
        size_t cap = o->capacity ? o->capacity : 65536;
        while (cap < o->length + n) cap *= 2;
        uint8_t *d = realloc(o->data, cap);
        if (!d) {
            o->failed = true;
            return;
        }
        o->data = d;
        o->capacity = cap;
    }
    memcpy(o->data + o->length, bytes, n);
    o->length += n;
}

static void put_i32(out_buffer *o, int32_t v)
{
    uint8_t b[4] = {(uint8_t) v, (uint8_t) (v >> 8), (uint8_t) (v >> 16), (uint8_t) (v >> 24)};
    put(o, b, 4);
}

static void put_i16(out_buffer *o, int32_t v)
{
    uint8_t b[2] = {(uint8_t) v, (uint8_t) (v >> 8)};
    put(o, b, 2);
}

static void put_f32(out_buffer *o, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_i32(o, (int32_t) u);
}

static void put_bounds(out_buffer *o, const float mins[3], const float maxs[3], bool wide)
{
    for (int a = 0; a < 6; a++) {
        float v = a < 3 ? mins[a] : maxs[a - 3];
        if (wide)
            put_f32(o, v);
        else
            put_i16(o, (int32_t) v);
    }
}

enum {
    LUMP_ENTITIES,
    LUMP_PLANES,
    LUMP_TEXTURES,
    LUMP_VERTEXES,
    LUMP_VISIBILITY,
    LUMP_NODES,
    LUMP_TEXINFO,
    LUMP_FACES,
    LUMP_LIGHTING,
    LUMP_CLIPNODES,
    LUMP_LEAFS,
    LUMP_MARKSURFACES,
    LUMP_EDGES,
    LUMP_SURFEDGES,
    LUMP_MODELS,
    LUMP_COUNT
};

/* The lumps in BSP29's or BSP2's layout (WIDE: BSP2's 32-bit indices and float bounds). */
static bool pack(q_bsp *q, out_buffer *o)
{
    bool wide = q->format == AL_BSP2;
    size_t at[LUMP_COUNT], length[LUMP_COUNT];
    if (wide)
        put(o, "BSP2", 4);
    else
        put_i32(o, 29);
    for (int i = 0; i < 2 * LUMP_COUNT; i++) put_i32(o, 0); /* filled in below */
    for (int lump = 0; lump < LUMP_COUNT; lump++) {
        at[lump] = o->length;
        switch (lump) {
        case LUMP_ENTITIES:
            put(o, q->entities, q->entities_bytes);
            break;
        case LUMP_PLANES:
            for (int32_t i = 0; i < q->planes.count; i++) {
                const q_plane *p = Q_AT(q->planes, q_plane, i);
                for (int a = 0; a < 3; a++) put_f32(o, p->normal[a]);
                put_f32(o, p->dist);
                put_i32(o, p->type);
            }
            break;
        case LUMP_TEXTURES:
            put(o, q->miptex_lump, q->miptex_bytes);
            break;
        case LUMP_VERTEXES:
            for (int32_t i = 0; i < q->vertexes.count; i++)
                for (int a = 0; a < 3; a++) put_f32(o, (*Q_AT(q->vertexes, q_vertex, i))[a]);
            break;
        case LUMP_NODES:
            for (int32_t i = 0; i < q->nodes.count; i++) {
                const q_node *n = Q_AT(q->nodes, q_node, i);
                put_i32(o, n->plane);
                for (int c = 0; c < 2; c++)
                    if (wide)
                        put_i32(o, n->child[c]);
                    else
                        put_i16(o, n->child[c]);
                put_bounds(o, n->mins, n->maxs, wide);
                if (wide)
                    put_i32(o, (int32_t) n->first_face), put_i32(o, (int32_t) n->face_count);
                else
                    put_i16(o, (int32_t) n->first_face), put_i16(o, (int32_t) n->face_count);
            }
            break;
        case LUMP_TEXINFO:
            for (int32_t i = 0; i < q->texinfo.count; i++) {
                const q_texinfo *t = Q_AT(q->texinfo, q_texinfo, i);
                for (int k = 0; k < 8; k++) put_f32(o, t->vecs[k / 4][k % 4]);
                put_i32(o, t->miptex);
                put_i32(o, t->flags);
            }
            break;
        case LUMP_FACES:
            for (int32_t i = 0; i < q->faces.count; i++) {
                const q_face *f = Q_AT(q->faces, q_face, i);
                if (wide)
                    put_i32(o, f->plane), put_i32(o, f->side);
                else
                    put_i16(o, f->plane), put_i16(o, f->side);
                put_i32(o, f->first_edge);
                if (wide)
                    put_i32(o, f->edge_count), put_i32(o, f->texinfo);
                else
                    put_i16(o, f->edge_count), put_i16(o, f->texinfo);
                put(o, f->styles, 4);
                put_i32(o, f->lightofs);
            }
            break;
        case LUMP_CLIPNODES:
            for (int32_t i = 0; i < q->clipnodes.count; i++) {
                const q_clipnode *c = Q_AT(q->clipnodes, q_clipnode, i);
                put_i32(o, c->plane);
                for (int k = 0; k < 2; k++)
                    if (wide)
                        put_i32(o, c->child[k]);
                    else
                        put_i16(o, c->child[k]);
            }
            break;
        case LUMP_LEAFS:
            for (int32_t i = 0; i < q->leafs.count; i++) {
                const q_leaf *l = Q_AT(q->leafs, q_leaf, i);
                put_i32(o, l->contents);
                put_i32(o, l->visofs);
                put_bounds(o, l->mins, l->maxs, wide);
                if (wide)
                    put_i32(o, (int32_t) l->first_mark), put_i32(o, (int32_t) l->mark_count);
                else
                    put_i16(o, (int32_t) l->first_mark), put_i16(o, (int32_t) l->mark_count);
                put(o, (const uint8_t[4]){0, 0, 0, 0}, 4); /* ambient sound levels */
            }
            break;
        case LUMP_MARKSURFACES:
            for (int32_t i = 0; i < q->marksurfaces.count; i++) {
                uint32_t m = *Q_AT(q->marksurfaces, uint32_t, i);
                if (wide)
                    put_i32(o, (int32_t) m);
                else
                    put_i16(o, (int32_t) m);
            }
            break;
        case LUMP_EDGES:
            for (int32_t i = 0; i < q->edges.count; i++)
                for (int k = 0; k < 2; k++) {
                    uint32_t v = (*Q_AT(q->edges, q_edge, i))[k];
                    if (wide)
                        put_i32(o, (int32_t) v);
                    else
                        put_i16(o, (int32_t) v);
                }
            break;
        case LUMP_SURFEDGES:
            for (int32_t i = 0; i < q->surfedges.count; i++)
                put_i32(o, *Q_AT(q->surfedges, int32_t, i));
            break;
        case LUMP_MODELS:
            for (int32_t i = 0; i < q->models.count; i++) {
                const q_model *m = Q_AT(q->models, q_model, i);
                for (int a = 0; a < 3; a++) put_f32(o, m->mins[a]);
                for (int a = 0; a < 3; a++) put_f32(o, m->maxs[a]);
                for (int a = 0; a < 3; a++) put_f32(o, m->origin[a]);
                for (int h = 0; h < Q_MAX_MAP_HULLS; h++) put_i32(o, m->headnode[h]);
                put_i32(o, m->visleafs);
                put_i32(o, m->first_face);
                put_i32(o, m->face_count);
            }
            break;
        case LUMP_VISIBILITY:
            put(o, q->visibility, q->visibility_bytes);
            break;
        case LUMP_LIGHTING:
            put(o, q->lighting, q->lighting_bytes);
            break;
        default:
            break;
        }
        length[lump] = o->length - at[lump]; /* the padding to 4 bytes is not the lump's */
        while (o->length % 4) put(o, "", 1);
    }
    if (o->failed) return false;
    for (int lump = 0; lump < LUMP_COUNT; lump++) {
        uint8_t *h = o->data + 4 + 8 * lump;
        uint32_t v[2] = {(uint32_t) at[lump], (uint32_t) length[lump]};
        for (int k = 0; k < 2; k++)
            for (int b = 0; b < 4; b++) h[4 * k + b] = (uint8_t) (v[k] >> (8 * b));
    }
    return true;
}

/* --- BSPX: BRUSHLIST ---------------------------------------------------------------------- */

static void put_u16(out_buffer *o, uint32_t v)
{
    put_i16(o, (int32_t) v);
}

/* Whether the face plane NORMAL is axial (the brush's bounds stand for it). */
static bool axial(const double normal[3])
{
    int zero = 0;
    for (int a = 0; a < 3; a++) zero += normal[a] == 0;
    return zero == 2;
}

/* One BRUSHLIST brush: input brush B with CONTENTS, in model coordinates (less ORIGIN). */
static void put_brush(q_bsp *q, out_buffer *o, int b, int32_t contents, const double origin[3])
{
    const al_face_polys *p = &q->polys;
    for (int a = 0; a < 3; a++) put_f32(o, (float) (p->brush_mins[b][a] - origin[a]));
    for (int a = 0; a < 3; a++) put_f32(o, (float) (p->brush_maxs[b][a] - origin[a]));
    put_i16(o, contents);
    int planes = 0;
    for (int f = p->brush_first[b]; f < p->brush_first[b + 1]; f++)
        planes += !axial(p->faces[f].normal);
    put_u16(o, (uint32_t) planes);
    for (int f = p->brush_first[b]; f < p->brush_first[b + 1]; f++) {
        const al_face_poly *face = &p->faces[f];
        if (axial(face->normal)) continue;
        double dist = face->dist;
        for (int a = 0; a < 3; a++) dist -= face->normal[a] * origin[a];
        for (int a = 0; a < 3; a++) put_f32(o, (float) face->normal[a]);
        put_f32(o, (float) dist);
    }
}

/* The BRUSHLIST lump (the BSPX extension that ericw-tools' qbsp writes and engines such
 * as FTE read to trace boxes of any size): per model, version 1, the model's number, its
 * brush and plane counts, then each brush's bounds, contents and non-axial planes (the
 * bounds stand for the axial ones), in the model's coordinates. The brushes are those
 * solid to the point hull (al_world_model_brushes) as solid, and the world's liquid brushes
 * as their liquid; clip brushes are left out (BSP29 has no contents for them). */
static bool build_brushlist(q_bsp *q, out_buffer *o)
{
    const al_input *in = q->src->input;
    int *brushes = malloc(((size_t) in->brush_count + 1) * sizeof *brushes);
    if (!brushes) return false;
    for (int m = 0; m < q->model_count; m++) {
        int am = q->model_allium[m];
        int count = am < 0 ? 0 : al_world_model_brushes(q->src->world, am, 0, brushes);
        int solid = count;
        if (m == 0)
            for (int b = 0; b < in->brush_count; b++) {
                const al_entity_desc *e = &in->entities[in->brushes[b].entity];
                al_entity_role role =
                    in->brushes[b].entity == 0 ? AL_ROLE_WORLD : al_entity_role_of(e->classname);
                if ((role == AL_ROLE_WORLD || role == AL_ROLE_DETAIL) &&
                    q->polys.brush_first[b] < q->polys.brush_first[b + 1] &&
                    (al_brush_contents(in, b, NULL) & AL_MATERIAL_LIQUID))
                    brushes[count++] = b;
            }
        int planes = 0;
        for (int i = 0; i < count; i++)
            for (int f = q->polys.brush_first[brushes[i]]; f < q->polys.brush_first[brushes[i] + 1];
                 f++)
                planes += !axial(q->polys.faces[f].normal);
        put_i32(o, 1);
        put_i32(o, m);
        put_i32(o, count);
        put_i32(o, planes);
        for (int i = 0; i < count; i++) {
            int32_t contents = Q_CONTENTS_SOLID;
            if (i >= solid) {
                uint32_t c = al_brush_contents(in, brushes[i], NULL);
                contents = c & AL_MATERIAL_LAVA    ? Q_CONTENTS_LAVA
                           : c & AL_MATERIAL_SLIME ? Q_CONTENTS_SLIME
                                                   : Q_CONTENTS_WATER;
            }
            put_brush(q, o, brushes[i], contents, q->model_origin[m]);
        }
    }
    free(brushes);
    return !o->failed;
}

/* The BSPX block after the lumps (4-byte aligned, where the engines that read it look):
 * "BSPX", the lump count, a 24-byte name, offset and length per lump, then the lumps.
 * Holds BRUSHLIST. */
static bool put_bspx(q_bsp *q, out_buffer *o)
{
    out_buffer list = {0};
    if (!build_brushlist(q, &list)) {
        free(list.data);
        return false;
    }
    size_t at = o->length + 8 + 32; /* the header and one directory entry */
    put(o, "BSPX", 4);
    put_i32(o, 1);
    char name[24] = "BRUSHLIST";
    put(o, name, sizeof name);
    put_i32(o, (int32_t) at);
    put_i32(o, (int32_t) list.length);
    put(o, list.data, list.length);
    while (o->length % 4) put(o, "", 1);
    free(list.data);
    return !o->failed;
}

static void counts_of(const q_bsp *q, size_t file_bytes, al_bsp_counts *c)
{
    memset(c, 0, sizeof *c);
    c->format = q->format;
    c->planes = q->planes.count;
    c->vertexes = q->vertexes.count;
    c->nodes = q->nodes.count;
    c->texinfo = q->texinfo.count;
    c->faces = q->faces.count;
    c->clipnodes = q->clipnodes.count;
    c->leafs = q->leafs.count;
    c->marksurfaces = q->marksurfaces.count;
    c->edges = q->edges.count;
    c->surfedges = q->surfedges.count;
    c->models = q->models.count;
    c->miptex = q->miptex_count;
    c->miptex_missing = q->miptex_missing;
    c->entities_bytes = q->entities_bytes;
    c->visibility_bytes = q->visibility_bytes;
    c->lighting_bytes = q->lighting_bytes;
    c->file_bytes = file_bytes;
}

static void q_bsp_free(q_bsp *q)
{
    q_array *arrays[] = {&q->planes,       &q->nodes,        &q->leafs,     &q->clipnodes,
                         &q->texinfo,      &q->models,       &q->vertexes,  &q->edges,
                         &q->surfedges,    &q->marksurfaces, &q->faces,     &q->pieces,
                         &q->piece_points, &q->leaf_pieces,  &q->leaf_boxes};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) q_array_free(arrays[i]);
    q_index_free(&q->plane_index);
    q_index_free(&q->vertex_index);
    q_index_free(&q->edge_index);
    q_index_free(&q->texinfo_index);
    q_index_free(&q->clip_index);
    al_face_polys_free(&q->polys);
    free(q->entity_model);
    free(q->model_entity);
    free(q->model_allium);
    free(q->model_origin);
    free(q->model_has_origin);
    free(q->material_miptex);
    free(q->miptex_material);
    free(q->miptex_lump);
    free(q->entities);
    free(q->visibility);
    free(q->lighting);
    free(q->lit);
}

void al_bsp_files_free(al_bsp_files *files)
{
    if (!files) return;
    free(files->bsp);
    free(files->lit);
    memset(files, 0, sizeof *files);
}

/* The .lit file of Q's lighting: "QLIT", version 1, three bytes per luxel. */
static bool make_lit(const q_bsp *q, al_bsp_files *out)
{
    if (!q->lit) return true;
    out->lit_size = 8 + q->lit_bytes;
    uint8_t *lit = malloc(out->lit_size);
    if (!lit) return false;
    memcpy(lit, "QLIT\1\0\0\0", 8);
    memcpy(lit + 8, q->lit, q->lit_bytes);
    out->lit = lit;
    return true;
}

al_status al_bsp_build(const al_bsp_source *source, al_bsp_format format, al_bsp_files *out,
                       al_bsp_counts *counts, al_diag_list *diags)
{
    uint64_t start = al_clock_ns();
    memset(out, 0, sizeof *out);
    q_bsp q;
    memset(&q, 0, sizeof q);
    q.src = source;
    q.format = format;
    q.diags = diags;
    q.planes.size = sizeof(q_plane);
    q.nodes.size = sizeof(q_node);
    q.leafs.size = sizeof(q_leaf);
    q.clipnodes.size = sizeof(q_clipnode);
    q.texinfo.size = sizeof(q_texinfo);
    q.models.size = sizeof(q_model);
    q.vertexes.size = sizeof(float[3]);
    q.edges.size = sizeof(uint32_t[2]);
    q.surfedges.size = sizeof(int32_t);
    q.marksurfaces.size = sizeof(uint32_t);
    q.faces.size = sizeof(q_face);
    q.pieces.size = sizeof(q_piece);
    q.piece_points.size = sizeof(double[3]);
    q.leaf_pieces.size = sizeof(q_pair);
    q.leaf_boxes.size = sizeof(q_box);
    al_status st = AL_OK;
    if (source->input->entity_count != source->map->entity_count) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_ENTITY, -1, -1, -1, -1, -1,
                    "the compiled input has %d entities and the map %d: not the map's input",
                    source->input->entity_count, source->map->entity_count);
        return AL_ERR_INVALID_ARGUMENT;
    }
    /* Edge 0 cannot be told apart when reversed: Quake leaves it unused. */
    if (!q_push(&q.edges)) st = AL_ERR_NOMEM;
    if (st == AL_OK) st = al_face_polys_build(source->input, &q.polys);
    if (st == AL_OK) st = pick_hulls(&q);
    if (st == AL_OK) st = plan_models(&q);
    uint64_t t0 = al_clock_ns();
    if (st == AL_OK) st = q_build_trees(&q);
    uint64_t t1 = al_clock_ns();
    if (st == AL_OK) st = q_build_faces(&q);
    uint64_t t2 = al_clock_ns();
    if (st == AL_OK) st = q_build_vis(&q);
    uint64_t t3 = al_clock_ns();
    if (st == AL_OK) st = q_build_light(&q);
    uint64_t t4 = al_clock_ns();
    if (st == AL_OK) relative_bounds(&q);
    if (st == AL_OK) st = build_entities(&q);
    if (st == AL_OK && format == AL_BSP29 && !fits_bsp29(&q)) st = AL_ERR_LIMIT;
    out_buffer o = {0};
    if (st == AL_OK && (!pack(&q, &o) || !put_bspx(&q, &o) || !make_lit(&q, out)))
        st = AL_ERR_NOMEM;
    if (st == AL_OK) {
        out->bsp = o.data;
        out->bsp_size = o.length;
        if (counts) {
            counts_of(&q, o.length, counts);
            counts->ms_trees = (double) (t1 - t0) / 1e6;
            counts->ms_faces = (double) (t2 - t1) / 1e6;
            counts->ms_vis = (double) (t3 - t2) / 1e6;
            counts->ms_light = (double) (t4 - t3) / 1e6;
            counts->ms_total = al_clock_ms_since(start);
        }
    } else {
        free(o.data);
        al_bsp_files_free(out);
    }
    q_bsp_free(&q);
    return st;
}

al_status al_bsp_write(const al_bsp_source *source, al_bsp_format format, const char *path,
                       al_bsp_counts *counts, al_diag_list *diags)
{
    al_bsp_files files;
    al_status st = al_bsp_build(source, format, &files, counts, diags);
    if (st != AL_OK) return st;
    char *lit_path = NULL;
    if (files.lit) {
        size_t n = strlen(path);
        lit_path = malloc(n + 5);
        if (!lit_path) {
            al_bsp_files_free(&files);
            return AL_ERR_NOMEM;
        }
        memcpy(lit_path, path, n + 1);
        if (n >= 4 && strcasecmp(path + n - 4, ".bsp") == 0) lit_path[n - 4] = '\0';
        strcat(lit_path, ".lit");
    }
    if (!al_file_write_atomic(path, files.bsp, files.bsp_size, diags) ||
        (lit_path && !al_file_write_atomic(lit_path, files.lit, files.lit_size, diags)))
        st = AL_ERR_IO;
    free(lit_path);
    al_bsp_files_free(&files);
    return st;
}

bool al_bsp_format_parse(const char *name, al_bsp_format *out)
{
    if (strcmp(name, "bsp29") == 0)
        *out = AL_BSP29;
    else if (strcmp(name, "bsp2") == 0)
        *out = AL_BSP2;
    else
        return false;
    return true;
}

const char *al_bsp_format_name(al_bsp_format format)
{
    return format == AL_BSP2 ? "bsp2" : "bsp29";
}
