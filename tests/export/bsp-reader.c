/* The tests' BSP reader (see bsp-reader.h). Layouts, as Quake's bspfile.h and the BSP2
 * extension define them (little-endian):
 *   header   BSP29: int32 29; BSP2: "BSP2"; then 15 lumps of (offset, length)
 *   planes   float normal[3], dist; int32 type                         20 bytes
 *   nodes    int32 plane; child[2]; mins[3]; maxs[3]; first_face, face_count
 *            BSP29: int16 children and bounds, uint16 faces (24 bytes); BSP2: int32 / float
 *            / uint32 (44 bytes)
 *   leafs    int32 contents, visofs; mins[3]; maxs[3]; first_mark, mark_count; 4 ambient
 *            bytes. BSP29: int16 bounds, uint16 marks (28); BSP2: float, uint32 (44)
 *   clipnodes int32 plane; child[2]: BSP29 int16 (8), BSP2 int32 (12)
 *   faces    plane, side (BSP29 int16, BSP2 int32); int32 first_edge; edge_count, texinfo
 *            (int16 / int32); 4 style bytes; int32 lightofs      20 / 28 bytes
 *   texinfo  float vecs[2][4]; int32 miptex, flags                      40 bytes
 *   vertexes float[3]; edges uint16[2] / uint32[2]; surfedges int32; marksurfaces uint16 /
 *            uint32; models float mins[3], maxs[3], origin[3]; int32 headnode[4], visleafs,
 *            first_face, face_count (64 bytes)
 *   textures int32 count, int32 offsets[count], then the miptex
 */
#include "bsp-reader.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    L_ENTITIES,
    L_PLANES,
    L_TEXTURES,
    L_VERTEXES,
    L_VISIBILITY,
    L_NODES,
    L_TEXINFO,
    L_FACES,
    L_LIGHTING,
    L_CLIPNODES,
    L_LEAFS,
    L_MARKSURFACES,
    L_EDGES,
    L_SURFEDGES,
    L_MODELS,
    L_COUNT
};

typedef struct cursor {
    const uint8_t *p;
} cursor;

static int32_t i32(cursor *c)
{
    int32_t v = (int32_t) ((uint32_t) c->p[0] | (uint32_t) c->p[1] << 8 | (uint32_t) c->p[2] << 16 |
                           (uint32_t) c->p[3] << 24);
    c->p += 4;
    return v;
}

static uint32_t u32(cursor *c)
{
    return (uint32_t) i32(c);
}

static int32_t i16(cursor *c)
{
    int16_t v = (int16_t) (c->p[0] | c->p[1] << 8);
    c->p += 2;
    return v;
}

static uint32_t u16(cursor *c)
{
    uint32_t v = (uint32_t) (c->p[0] | c->p[1] << 8);
    c->p += 2;
    return v;
}

static float f32(cursor *c)
{
    uint32_t u = u32(c);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static bool fail(char *why, size_t n, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(char *why, size_t n, const char *format, ...)
{
    va_list a;
    va_start(a, format);
    vsnprintf(why, n, format, a);
    va_end(a);
    return false;
}

/* The records of lump L of RECORD bytes each: *COUNT of them at *AT. */
static bool lump(const uint8_t *data, size_t size, int l, size_t record, const uint8_t **at,
                 int *count, char *why, size_t n)
{
    cursor c = {data + 4 + 8 * l};
    uint32_t offset = u32(&c), length = u32(&c);
    if (offset > size || length > size - offset)
        return fail(why, n, "lump %d (%u bytes at %u) lies outside the file's %zu bytes", l, length,
                    offset, size);
    if (record && length % record)
        return fail(why, n, "lump %d is %u bytes, not a whole number of %zu-byte records", l,
                    length, record);
    *at = data + offset;
    *count = record ? (int) (length / record) : (int) length;
    return true;
}

#define NEED(cond, ...)                                                                            \
    do {                                                                                           \
        if (!(cond)) return fail(why, why_size, __VA_ARGS__);                                      \
    } while (0)

static bool read_lumps(const uint8_t *data, size_t size, rb_bsp *b, char *why, size_t why_size)
{
    bool w = b->bsp2;
    const uint8_t *at = NULL;
    int n = 0;
    cursor c;
    /* entities */
    if (!lump(data, size, L_ENTITIES, 0, &at, &n, why, why_size)) return false;
    b->entities = malloc((size_t) n + 1);
    NEED(b->entities, "out of memory");
    memcpy(b->entities, at, (size_t) n);
    b->entities[n] = '\0';
    /* planes */
    if (!lump(data, size, L_PLANES, 20, &at, &n, why, why_size)) return false;
    b->planes = calloc((size_t) n + 1, sizeof *b->planes);
    NEED(b->planes, "out of memory");
    b->plane_count = n;
    c.p = at;
    for (int i = 0; i < n; i++) {
        rb_plane *p = &b->planes[i];
        for (int k = 0; k < 3; k++) p->normal[k] = f32(&c);
        p->dist = f32(&c);
        p->type = i32(&c);
        NEED(p->type >= 0 && p->type <= 5, "plane %d has type %d", i, p->type);
        double len =
            sqrt((double) p->normal[0] * p->normal[0] + (double) p->normal[1] * p->normal[1] +
                 (double) p->normal[2] * p->normal[2]);
        NEED(fabs(len - 1) < 1e-3, "plane %d's normal has length %g", i, len);
        if (p->type < 3)
            NEED(p->normal[p->type] == 1, "plane %d is of axial type %d but its normal is %g %g %g",
                 i, p->type, p->normal[0], p->normal[1], p->normal[2]);
    }
    /* vertexes */
    if (!lump(data, size, L_VERTEXES, 12, &at, &n, why, why_size)) return false;
    b->vertexes = calloc((size_t) n + 1, sizeof *b->vertexes);
    NEED(b->vertexes, "out of memory");
    b->vertex_count = n;
    c.p = at;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) b->vertexes[i][k] = f32(&c);
    /* nodes */
    if (!lump(data, size, L_NODES, w ? 44 : 24, &at, &n, why, why_size)) return false;
    b->nodes = calloc((size_t) n + 1, sizeof *b->nodes);
    NEED(b->nodes, "out of memory");
    b->node_count = n;
    c.p = at;
    for (int i = 0; i < n; i++) {
        rb_node *d = &b->nodes[i];
        d->plane = i32(&c);
        for (int k = 0; k < 2; k++) d->child[k] = w ? i32(&c) : i16(&c);
        for (int k = 0; k < 6; k++) {
            float v = w ? f32(&c) : (float) i16(&c);
            if (k < 3)
                d->mins[k] = v;
            else
                d->maxs[k - 3] = v;
        }
        d->first_face = w ? u32(&c) : u16(&c);
        d->face_count = w ? u32(&c) : u16(&c);
    }
    /* texinfo */
    if (!lump(data, size, L_TEXINFO, 40, &at, &n, why, why_size)) return false;
    b->texinfo = calloc((size_t) n + 1, sizeof *b->texinfo);
    NEED(b->texinfo, "out of memory");
    b->texinfo_count = n;
    c.p = at;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 8; k++) b->texinfo[i].vecs[k / 4][k % 4] = f32(&c);
        b->texinfo[i].miptex = i32(&c);
        b->texinfo[i].flags = i32(&c);
    }
    /* faces */
    if (!lump(data, size, L_FACES, w ? 28 : 20, &at, &n, why, why_size)) return false;
    b->faces = calloc((size_t) n + 1, sizeof *b->faces);
    NEED(b->faces, "out of memory");
    b->face_count = n;
    c.p = at;
    for (int i = 0; i < n; i++) {
        rb_face *f = &b->faces[i];
        f->plane = w ? i32(&c) : (int32_t) u16(&c);
        f->side = w ? i32(&c) : i16(&c);
        f->first_edge = i32(&c);
        f->edge_count = w ? i32(&c) : i16(&c);
        f->texinfo = w ? i32(&c) : i16(&c);
        c.p += 4;
        f->lightofs = i32(&c);
    }
    /* clipnodes */
    if (!lump(data, size, L_CLIPNODES, w ? 12 : 8, &at, &n, why, why_size)) return false;
    b->clipnodes = calloc((size_t) n + 1, sizeof *b->clipnodes);
    NEED(b->clipnodes, "out of memory");
    b->clipnode_count = n;
    c.p = at;
    for (int i = 0; i < n; i++) {
        b->clipnodes[i].plane = i32(&c);
        for (int k = 0; k < 2; k++) b->clipnodes[i].child[k] = w ? i32(&c) : i16(&c);
    }
    /* leafs */
    if (!lump(data, size, L_LEAFS, w ? 44 : 28, &at, &n, why, why_size)) return false;
    b->leafs = calloc((size_t) n + 1, sizeof *b->leafs);
    NEED(b->leafs, "out of memory");
    b->leaf_count = n;
    c.p = at;
    for (int i = 0; i < n; i++) {
        rb_leaf *l = &b->leafs[i];
        l->contents = i32(&c);
        l->visofs = i32(&c);
        for (int k = 0; k < 6; k++) {
            float v = w ? f32(&c) : (float) i16(&c);
            if (k < 3)
                l->mins[k] = v;
            else
                l->maxs[k - 3] = v;
        }
        l->first_mark = w ? u32(&c) : u16(&c);
        l->mark_count = w ? u32(&c) : u16(&c);
        c.p += 4;
    }
    /* marksurfaces, edges, surfedges */
    if (!lump(data, size, L_MARKSURFACES, w ? 4 : 2, &at, &n, why, why_size)) return false;
    b->marksurfaces = calloc((size_t) n + 1, sizeof *b->marksurfaces);
    NEED(b->marksurfaces, "out of memory");
    b->marksurface_count = n;
    c.p = at;
    for (int i = 0; i < n; i++) b->marksurfaces[i] = w ? u32(&c) : u16(&c);
    if (!lump(data, size, L_EDGES, w ? 8 : 4, &at, &n, why, why_size)) return false;
    b->edges = calloc((size_t) n + 1, sizeof *b->edges);
    NEED(b->edges, "out of memory");
    b->edge_count = n;
    c.p = at;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) b->edges[i][k] = w ? u32(&c) : u16(&c);
    if (!lump(data, size, L_SURFEDGES, 4, &at, &n, why, why_size)) return false;
    b->surfedges = calloc((size_t) n + 1, sizeof *b->surfedges);
    NEED(b->surfedges, "out of memory");
    b->surfedge_count = n;
    c.p = at;
    for (int i = 0; i < n; i++) b->surfedges[i] = i32(&c);
    /* models */
    if (!lump(data, size, L_MODELS, 64, &at, &n, why, why_size)) return false;
    b->models = calloc((size_t) n + 1, sizeof *b->models);
    NEED(b->models, "out of memory");
    b->model_count = n;
    c.p = at;
    for (int i = 0; i < n; i++) {
        rb_model *m = &b->models[i];
        for (int k = 0; k < 3; k++) m->mins[k] = f32(&c);
        for (int k = 0; k < 3; k++) m->maxs[k] = f32(&c);
        for (int k = 0; k < 3; k++) m->origin[k] = f32(&c);
        for (int k = 0; k < 4; k++) m->headnode[k] = i32(&c);
        m->visleafs = i32(&c);
        m->first_face = i32(&c);
        m->face_count = i32(&c);
    }
    /* textures: the count and offsets, each miptex header within the lump */
    if (!lump(data, size, L_TEXTURES, 0, &at, &n, why, why_size)) return false;
    if (n > 0) {
        NEED(n >= 4, "the textures lump is %d bytes", n);
        c.p = at;
        int32_t count = i32(&c);
        NEED(count >= 0 && (size_t) count <= ((size_t) n - 4) / 4,
             "the textures lump says %d textures in %d bytes", count, n);
        b->miptex_count = count;
        for (int i = 0; i < count; i++) {
            int32_t o = i32(&c);
            if (o == -1) continue;
            NEED(o >= 0 && (size_t) o + 40 <= (size_t) n, "miptex %d is at %d, outside the lump", i,
                 o);
            /* Engines tell sky, liquid and animated textures by "sky", "*" and "+" in lower
             * case, as the WADs name them (DarkPlaces crashed on a capital SKY4). */
            const char *name = (const char *) at + o;
            for (int k = 0; k < 16 && name[k]; k++)
                NEED(!(name[k] >= 'A' && name[k] <= 'Z'), "miptex %d's name %.16s has capitals", i,
                     name);
            cursor m = {at + o + 16};
            uint32_t tw = u32(&m), th = u32(&m);
            size_t pixels = 0;
            for (int k = 0; k < 4; k++) pixels += (size_t) (tw >> k) * (th >> k);
            uint32_t first = u32(&m);
            NEED(tw > 0 && th > 0 && tw <= 4096 && th <= 4096, "miptex %d is %u x %u", i, tw, th);
            NEED((size_t) o + first + pixels <= (size_t) n, "miptex %d's pixels pass the lump", i);
        }
    }
    if (!lump(data, size, L_VISIBILITY, 0, &at, &n, why, why_size)) return false;
    b->visibility_bytes = (size_t) n;
    b->visibility = malloc((size_t) n + 1);
    NEED(b->visibility, "out of memory");
    memcpy(b->visibility, at, (size_t) n);
    if (!lump(data, size, L_LIGHTING, 0, &at, &n, why, why_size)) return false;
    b->lighting_bytes = (size_t) n;
    b->lighting = malloc((size_t) n + 1);
    NEED(b->lighting, "out of memory");
    memcpy(b->lighting, at, (size_t) n);
    return true;
}

/* Every index against its lump. */
static bool check_indices(const rb_bsp *b, char *why, size_t why_size)
{
    for (int i = 0; i < b->node_count; i++) {
        const rb_node *d = &b->nodes[i];
        NEED(d->plane >= 0 && d->plane < b->plane_count, "node %d has plane %d", i, d->plane);
        for (int k = 0; k < 2; k++) {
            int32_t ch = d->child[k];
            NEED(ch >= 0 ? ch < b->node_count : -1 - ch < b->leaf_count, "node %d's child %d is %d",
                 i, k, ch);
        }
        NEED((uint64_t) d->first_face + d->face_count <= (uint64_t) b->face_count,
             "node %d's faces %u+%u pass the %d faces", i, d->first_face, d->face_count,
             b->face_count);
        for (int k = 0; k < 3; k++) NEED(d->mins[k] <= d->maxs[k], "node %d's bounds", i);
    }
    for (int i = 0; i < b->leaf_count; i++) {
        const rb_leaf *l = &b->leafs[i];
        NEED(l->contents <= -1 && l->contents >= -6, "leaf %d has contents %d", i, l->contents);
        NEED((uint64_t) l->first_mark + l->mark_count <= (uint64_t) b->marksurface_count,
             "leaf %d's marksurfaces pass the lump", i);
        NEED(l->visofs == -1 || (l->visofs >= 0 && (size_t) l->visofs < b->visibility_bytes),
             "leaf %d's visofs %d", i, l->visofs);
    }
    NEED(b->leaf_count > 0 && b->leafs[0].contents == -2, "leaf 0 is not the solid leaf");
    for (int i = 0; i < b->clipnode_count; i++) {
        const rb_clipnode *cn = &b->clipnodes[i];
        NEED(cn->plane >= 0 && cn->plane < b->plane_count, "clipnode %d has plane %d", i,
             cn->plane);
        for (int k = 0; k < 2; k++)
            NEED(cn->child[k] >= 0 ? cn->child[k] < b->clipnode_count
                                   : cn->child[k] >= -2 && cn->child[k] <= -1,
                 "clipnode %d's child %d is %d", i, k, cn->child[k]);
    }
    for (int i = 0; i < b->marksurface_count; i++)
        NEED(b->marksurfaces[i] < (uint32_t) b->face_count, "marksurface %d is face %u", i,
             b->marksurfaces[i]);
    for (int i = 0; i < b->edge_count; i++)
        for (int k = 0; k < 2; k++)
            NEED(b->edges[i][k] < (uint32_t) b->vertex_count, "edge %d has vertex %u", i,
                 b->edges[i][k]);
    for (int i = 0; i < b->surfedge_count; i++) {
        int32_t e = b->surfedges[i];
        NEED(e != INT32_MIN && e != 0 && (e < 0 ? -e : e) < b->edge_count,
             "surfedge %d is %d (edges: %d)", i, e, b->edge_count);
    }
    for (int i = 0; i < b->texinfo_count; i++)
        NEED(b->texinfo[i].miptex >= 0 && b->texinfo[i].miptex < b->miptex_count,
             "texinfo %d has miptex %d", i, b->texinfo[i].miptex);
    for (int i = 0; i < b->face_count; i++) {
        const rb_face *f = &b->faces[i];
        NEED(f->plane >= 0 && f->plane < b->plane_count, "face %d has plane %d", i, f->plane);
        NEED(f->side == 0 || f->side == 1, "face %d has side %d", i, f->side);
        NEED(f->texinfo >= 0 && f->texinfo < b->texinfo_count, "face %d has texinfo %d", i,
             f->texinfo);
        NEED(f->lightofs == -1 || (f->lightofs >= 0 && (size_t) f->lightofs < b->lighting_bytes),
             "face %d's lightofs %d (lighting: %zu bytes)", i, f->lightofs, b->lighting_bytes);
        NEED(f->edge_count >= 3 && f->first_edge >= 0 &&
                 (int64_t) f->first_edge + f->edge_count <= b->surfedge_count,
             "face %d has edges %d+%d (surfedges: %d)", i, f->first_edge, f->edge_count,
             b->surfedge_count);
    }
    NEED(b->model_count > 0, "no models");
    for (int i = 0; i < b->model_count; i++) {
        const rb_model *m = &b->models[i];
        NEED(m->headnode[0] >= 0 && m->headnode[0] < b->node_count, "model %d's headnode 0 is %d",
             i, m->headnode[0]);
        for (int h = 1; h < 3; h++)
            NEED(m->headnode[h] >= 0 && m->headnode[h] < b->clipnode_count,
                 "model %d's headnode %d is %d", i, h, m->headnode[h]);
        NEED(m->first_face >= 0 && m->face_count >= 0 &&
                 (int64_t) m->first_face + m->face_count <= b->face_count,
             "model %d's faces %d+%d", i, m->first_face, m->face_count);
    }
    NEED(b->models[0].visleafs >= 0 && b->models[0].visleafs < b->leaf_count,
         "the world's visleafs %d (leafs: %d)", b->models[0].visleafs, b->leaf_count);
    /* Every row decompresses to whole bytes within the lump. */
    size_t row = ((size_t) b->models[0].visleafs + 7) / 8;
    for (int l = 1; l <= b->models[0].visleafs; l++) {
        if (b->leafs[l].visofs < 0) continue;
        size_t at = (size_t) b->leafs[l].visofs, got = 0;
        while (got < row) {
            NEED(at < b->visibility_bytes, "leaf %d's row passes the visibility lump", l);
            if (b->visibility[at++]) {
                got++;
                continue;
            }
            NEED(at < b->visibility_bytes, "leaf %d's row ends in a zero without a count", l);
            NEED(b->visibility[at] > 0, "leaf %d's row has a run of 0 zeros", l);
            got += b->visibility[at++];
        }
        NEED(got == row, "leaf %d's row is %zu bytes, not %zu", l, got, row);
    }
    return true;
}

/* The BSPX block, if any: 4-byte aligned after the end of the last lump, "BSPX", a lump
 * count, and 32-byte entries (a 24-byte name, offset, length). Its BRUSHLIST lump (per
 * model: version 1, model, brush count, plane count; per brush: float bounds, 16-bit
 * contents, 16-bit plane count, the non-axial planes as four floats) into B. */
static bool read_bspx(const uint8_t *data, size_t size, rb_bsp *b, char *why, size_t why_size)
{
    size_t end = 0;
    for (int l = 0; l < L_COUNT; l++) {
        cursor c = {data + 4 + 8 * l};
        size_t offset = u32(&c), length = u32(&c);
        if (offset + length > end) end = offset + length;
    }
    end = (end + 3) & ~(size_t) 3;
    if (end + 8 > size || memcmp(data + end, "BSPX", 4) != 0) return true; /* none */
    cursor c = {data + end + 4};
    uint32_t lumps = u32(&c);
    NEED(lumps <= (size - end - 8) / 32, "BSPX: %u lumps do not fit the file", lumps);
    for (uint32_t i = 0; i < lumps; i++) {
        char name[25];
        memcpy(name, c.p, 24);
        name[24] = '\0';
        c.p += 24;
        uint32_t offset = u32(&c), length = u32(&c);
        NEED(offset <= size && length <= size - offset, "BSPX lump %s lies outside the file", name);
        if (strcmp(name, "BRUSHLIST") != 0) continue;
        const uint8_t *at = data + offset, *stop = at + length;
        int room = 0, plane_room = 0;
        while (at < stop) {
            NEED(stop - at >= 16, "BRUSHLIST: a model header is cut short");
            cursor m = {at};
            int version = i32(&m), model = i32(&m), brushes = i32(&m), planes = i32(&m);
            NEED(version == 1, "BRUSHLIST: version %d, not 1", version);
            NEED(model >= 0 && model < b->model_count, "BRUSHLIST: model %d does not exist", model);
            NEED(brushes >= 0 && planes >= 0, "BRUSHLIST: negative counts");
            int seen = 0;
            for (int k = 0; k < brushes; k++) {
                NEED(stop - m.p >= 28, "BRUSHLIST: brush %d of model %d is cut short", k, model);
                if (b->brush_count == room) {
                    room = room ? 2 * room : 64;
                    rb_brush *r = realloc(b->brushes, (size_t) room * sizeof *r);
                    NEED(r, "out of memory");
                    b->brushes = r;
                }
                rb_brush *br = &b->brushes[b->brush_count++];
                br->model = model;
                for (int a = 0; a < 3; a++) br->mins[a] = f32(&m);
                for (int a = 0; a < 3; a++) br->maxs[a] = f32(&m);
                br->contents = i16(&m);
                br->plane_count = (int) u16(&m);
                br->first_plane = b->brush_plane_count;
                NEED(stop - m.p >= 16 * (ptrdiff_t) br->plane_count,
                     "BRUSHLIST: the planes of brush %d of model %d are cut short", k, model);
                for (int f = 0; f < br->plane_count; f++) {
                    if (b->brush_plane_count == plane_room) {
                        plane_room = plane_room ? 2 * plane_room : 256;
                        float (*r)[4] = realloc(b->brush_planes, (size_t) plane_room * sizeof *r);
                        NEED(r, "out of memory");
                        b->brush_planes = r;
                    }
                    for (int a = 0; a < 4; a++) b->brush_planes[b->brush_plane_count][a] = f32(&m);
                    b->brush_plane_count++;
                }
                seen += br->plane_count;
            }
            NEED(seen == planes, "BRUSHLIST: model %d says %d planes and has %d", model, planes,
                 seen);
            at = m.p;
        }
    }
    return true;
}

bool rb_read(const void *bytes, size_t size, rb_bsp *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    const uint8_t *data = bytes;
    if (size < 4 + 8 * L_COUNT)
        return fail(why, why_size, "%zu bytes: shorter than a BSP header", size);
    cursor c = {data};
    if (memcmp(data, "BSP2", 4) == 0)
        out->bsp2 = true;
    else if (i32(&c) != 29)
        return fail(why, why_size, "neither BSP29 nor BSP2");
    if (!read_lumps(data, size, out, why, why_size) || !check_indices(out, why, why_size) ||
        !read_bspx(data, size, out, why, why_size)) {
        rb_free(out);
        return false;
    }
    return true;
}

void rb_free(rb_bsp *b)
{
    free(b->brushes);
    free(b->brush_planes);
    free(b->planes);
    free(b->nodes);
    free(b->leafs);
    free(b->clipnodes);
    free(b->faces);
    free(b->texinfo);
    free(b->vertexes);
    free(b->edges);
    free(b->surfedges);
    free(b->marksurfaces);
    free(b->models);
    free(b->entities);
    free(b->visibility);
    free(b->lighting);
    memset(b, 0, sizeof *b);
}

int rb_point_contents(const rb_bsp *b, int model, int hull, const double p[3], double *nearest)
{
    double best = INFINITY;
    int32_t num = b->models[model].headnode[hull];
    /* The tree may share subtrees but has no cycles when it is right; a walk longer than
     * every node says otherwise. */
    int limit = b->node_count + b->clipnode_count + 1;
    while (num >= 0 && limit-- > 0) {
        int32_t plane, child[2];
        if (hull == 0) {
            plane = b->nodes[num].plane;
            child[0] = b->nodes[num].child[0];
            child[1] = b->nodes[num].child[1];
        } else {
            plane = b->clipnodes[num].plane;
            child[0] = b->clipnodes[num].child[0];
            child[1] = b->clipnodes[num].child[1];
        }
        const rb_plane *pl = &b->planes[plane];
        double d = pl->type < 3 ? p[pl->type] - pl->dist
                                : pl->normal[0] * p[0] + pl->normal[1] * p[1] +
                                      pl->normal[2] * p[2] - pl->dist;
        if (fabs(d) < best) best = fabs(d);
        num = child[d < 0];
    }
    if (nearest) *nearest = best;
    if (num >= 0) return 0; /* a cycle */
    return hull == 0 ? b->leafs[-1 - num].contents : num;
}

int rb_point_leaf(const rb_bsp *b, int model, const double p[3])
{
    int32_t num = b->models[model].headnode[0];
    int limit = b->node_count + 1;
    while (num >= 0 && limit-- > 0) {
        const rb_plane *pl = &b->planes[b->nodes[num].plane];
        double d = pl->type < 3 ? p[pl->type] - pl->dist
                                : pl->normal[0] * p[0] + pl->normal[1] * p[1] +
                                      pl->normal[2] * p[2] - pl->dist;
        num = b->nodes[num].child[d < 0];
    }
    return num >= 0 ? 0 : -1 - num;
}

bool rb_leaf_sees(const rb_bsp *b, int from, int to)
{
    if (b->leafs[from].visofs < 0) return true;
    size_t at = (size_t) b->leafs[from].visofs, byte = (size_t) (to - 1) / 8, got = 0;
    for (;;) {
        uint8_t c = b->visibility[at++];
        if (c) {
            if (got == byte) return c >> ((to - 1) % 8) & 1;
            got++;
        } else {
            got += b->visibility[at++];
            if (got > byte) return false;
        }
    }
}

void rb_face_extents(const rb_bsp *b, int face, double first[2], int size[2])
{
    const rb_face *f = &b->faces[face];
    const rb_texinfo *t = &b->texinfo[f->texinfo];
    double lo[2] = {1e30, 1e30}, hi[2] = {-1e30, -1e30};
    for (int e = 0; e < f->edge_count; e++) {
        int32_t se = b->surfedges[f->first_edge + e];
        const float *v = b->vertexes[se >= 0 ? b->edges[se][0] : b->edges[-se][1]];
        for (int a = 0; a < 2; a++) {
            double x = (double) v[0] * t->vecs[a][0] + (double) v[1] * t->vecs[a][1] +
                       (double) v[2] * t->vecs[a][2] + t->vecs[a][3];
            if (x < lo[a]) lo[a] = x;
            if (x > hi[a]) hi[a] = x;
        }
    }
    for (int a = 0; a < 2; a++) {
        double bmin = floor(lo[a] / 16), bmax = ceil(hi[a] / 16);
        first[a] = bmin * 16;
        size[a] = (int) (bmax - bmin) + 1;
    }
}

/* The next quoted string of the entities text from *AT: its bounds into *START and *LEN,
 * *AT past it; false at a brace or the end. */
static bool next_string(const char **at, const char **start, size_t *len)
{
    const char *p = *at;
    while (*p && *p != '"' && *p != '{' && *p != '}') p++;
    if (*p != '"') {
        *at = p;
        return false;
    }
    const char *end = strchr(p + 1, '"');
    if (!end) return false;
    *start = p + 1;
    *len = (size_t) (end - p - 1);
    *at = end + 1;
    return true;
}

bool rb_model_origin(const rb_bsp *b, int model, double origin[3])
{
    char name[24];
    snprintf(name, sizeof name, "*%d", model);
    origin[0] = origin[1] = origin[2] = 0;
    for (const char *at = b->entities; (at = strchr(at, '{'));) {
        at++;
        bool ours = false, found = false;
        double o[3] = {0, 0, 0};
        const char *key, *value;
        size_t key_len, value_len;
        while (next_string(&at, &key, &key_len) && next_string(&at, &value, &value_len)) {
            if (key_len == 5 && memcmp(key, "model", 5) == 0)
                ours = value_len == strlen(name) && memcmp(value, name, value_len) == 0;
            if (key_len == 6 && memcmp(key, "origin", 6) == 0)
                found = sscanf(value, "%lf %lf %lf", &o[0], &o[1], &o[2]) == 3;
        }
        if (ours) {
            if (found) memcpy(origin, o, sizeof o);
            return found;
        }
    }
    return false;
}
