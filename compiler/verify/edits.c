/* Random edits and the structural comparison of worlds (see al-edits.h). */
#include "al-edits.h"

#include "al-epsilon.h"
#include "core/one-block.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool al_edit_input_init(al_edit_input *e, const al_input *src)
{
    memset(e, 0, sizeof *e);
    e->brush_capacity = src->brush_count + 16;
    e->face_capacity = src->face_count + 64;
    e->brushes = malloc((size_t) e->brush_capacity * sizeof *e->brushes);
    e->faces = malloc((size_t) e->face_capacity * sizeof *e->faces);
    if (!e->brushes || !e->faces) {
        al_edit_input_free(e);
        return false;
    }
    if (src->brush_count)
        memcpy(e->brushes, src->brushes, (size_t) src->brush_count * sizeof *e->brushes);
    if (src->face_count)
        memcpy(e->faces, src->faces, (size_t) src->face_count * sizeof *e->faces);
    e->input = *src;
    e->input.brushes = e->brushes;
    e->input.faces = e->faces;
    e->input.brush_keys = NULL; /* the edits change them */
    return true;
}

void al_edit_input_free(al_edit_input *e)
{
    free(e->brushes);
    free(e->faces);
    memset(e, 0, sizeof *e);
}

const char *al_edit_kind_name(al_edit_kind kind)
{
    static const char *names[] = {"move", "resize", "delete", "add"};
    return kind >= AL_EDIT_MOVE && kind <= AL_EDIT_ADD ? names[kind] : "?";
}

static bool editable(const al_input *in, int b)
{
    const al_brush_desc *d = &in->brushes[b];
    if (d->entity < 0 || d->entity >= in->entity_count) return false;
    if (d->first_face < 0 || d->face_count < 4 || d->first_face > in->face_count - d->face_count)
        return false;
    al_entity_role role = d->entity == 0 ? AL_ROLE_WORLD
                                         : al_entity_role_of(in->entities[d->entity].classname);
    return role == AL_ROLE_WORLD || role == AL_ROLE_DETAIL;
}

static int random_index(al_rng *rng, int n)
{
    int i = (int) (al_rng_uniform(rng) * n);
    return i < n ? i : n - 1;
}

/* A random editable brush, or -1 (tries a few times, then scans). */
static int pick(const al_input *in, al_rng *rng)
{
    if (in->brush_count == 0) return -1;
    for (int tries = 0; tries < 64; tries++) {
        int b = random_index(rng, in->brush_count);
        if (editable(in, b)) return b;
    }
    for (int b = 0; b < in->brush_count; b++)
        if (editable(in, b)) return b;
    return -1;
}

static double grid_offset(al_rng *rng, int steps)
{
    return 8.0 * (random_index(rng, 2 * steps + 1) - steps);
}

static void face_points_bounds(const al_edit_input *e, int b, double mins[3], double maxs[3])
{
    const al_brush_desc *d = &e->brushes[b];
    for (int k = 0; k < 3; k++) mins[k] = INFINITY, maxs[k] = -INFINITY;
    for (int f = 0; f < d->face_count; f++)
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) {
                double v = e->faces[d->first_face + f].points[i][k];
                if (v < mins[k]) mins[k] = v;
                if (v > maxs[k]) maxs[k] = v;
            }
}

static void translate(al_edit_input *e, int b, const double by[3])
{
    const al_brush_desc *d = &e->brushes[b];
    for (int f = 0; f < d->face_count; f++)
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) e->faces[d->first_face + f].points[i][k] += by[k];
}

bool al_edit_random(al_edit_input *e, al_rng *rng, int min_brushes, al_edit *out)
{
    al_input *in = &e->input;
    int b = pick(in, rng);
    if (b < 0) return false;
    double u = al_rng_uniform(rng);
    al_edit_kind kind = u < 0.4 ? AL_EDIT_MOVE : u < 0.7 ? AL_EDIT_RESIZE : u < 0.85 ? AL_EDIT_DELETE
                                                                                  : AL_EDIT_ADD;
    if (kind == AL_EDIT_DELETE && in->brush_count <= min_brushes) kind = AL_EDIT_MOVE;
    out->kind = kind;
    out->brush = b;
    const al_brush_desc *d = &e->brushes[b];
    switch (kind) {
    case AL_EDIT_MOVE: {
        double by[3];
        do {
            for (int k = 0; k < 3; k++) by[k] = grid_offset(rng, 8);
        } while (by[0] == 0 && by[1] == 0 && by[2] == 0);
        translate(e, b, by);
        break;
    }
    case AL_EDIT_RESIZE: {
        /* Face points are points on the planes, not vertices, but an affine map of the
         * points is the same map of the planes, so the solid scales about the centre. */
        double mins[3], maxs[3];
        face_points_bounds(e, b, mins, maxs);
        int axis = random_index(rng, 3);
        double centre = floor(0.5 * (mins[axis] + maxs[axis]) / 8.0) * 8.0;
        double scale = al_rng_uniform(rng) < 0.5 ? 0.5 : 2.0;
        for (int f = 0; f < d->face_count; f++)
            for (int i = 0; i < 3; i++) {
                double *p = &e->faces[d->first_face + f].points[i][axis];
                *p = centre + (*p - centre) * scale;
            }
        break;
    }
    case AL_EDIT_DELETE:
        memmove(&e->brushes[b], &e->brushes[b + 1],
                (size_t) (in->brush_count - b - 1) * sizeof *e->brushes);
        in->brush_count--;
        break;
    case AL_EDIT_ADD: {
        if (in->brush_count == e->brush_capacity) {
            int capacity = 2 * e->brush_capacity;
            al_brush_desc *brushes = realloc(e->brushes, (size_t) capacity * sizeof *brushes);
            if (!brushes) return false;
            e->brushes = brushes;
            e->brush_capacity = capacity;
            in->brushes = brushes;
        }
        int faces = e->brushes[b].face_count;
        if (in->face_count + faces > e->face_capacity) {
            int capacity = 2 * e->face_capacity + faces;
            al_face_desc *f = realloc(e->faces, (size_t) capacity * sizeof *f);
            if (!f) return false;
            e->faces = f;
            e->face_capacity = capacity;
            in->faces = f;
        }
        al_brush_desc copy = e->brushes[b];
        memcpy(&e->faces[in->face_count], &e->faces[copy.first_face],
               (size_t) faces * sizeof *e->faces);
        copy.first_face = in->face_count;
        copy.line = -1;
        /* The copy is its entity's last brush, and goes after the entity's brushes in the
         * input, as in a .map file and in the live engine's input (entities' brushes
         * together): a compile of this input and the engine's then see the same order. */
        int index = 0, at = in->brush_count;
        for (int i = 0; i < in->brush_count; i++)
            if (e->brushes[i].entity == copy.entity) {
                if (e->brushes[i].index >= index) index = e->brushes[i].index + 1;
                at = i + 1;
            }
        copy.index = index;
        in->face_count += faces;
        memmove(&e->brushes[at + 1], &e->brushes[at],
                (size_t) (in->brush_count - at) * sizeof *e->brushes);
        e->brushes[at] = copy;
        in->brush_count++;
        out->brush = at;
        double by[3];
        for (int k = 0; k < 3; k++) by[k] = grid_offset(rng, 16);
        translate(e, out->brush, by);
        break;
    }
    }
    return true;
}

/* Tree comparison. */

/* Planes are equal within what the plane table's merging can move them (al-epsilon.h):
 * an update adds its planes to a copy of the previous table, where a plane may merge with
 * an entry made from a slightly different one. */
#define SAME_NORMAL 1e-8
#define SAME_DIST (2 * AL_DIST_EPSILON + 2 * AL_NORMAL_EPSILON * AL_COORD_MAX)

static bool same_plane(const al_node *a, const al_node *b, bool *flipped)
{
    double d = 0, f = 0;
    for (int k = 0; k < 3; k++) {
        d = fmax(d, fabs(a->normal[k] - b->normal[k]));
        f = fmax(f, fabs(a->normal[k] + b->normal[k]));
    }
    if (d <= SAME_NORMAL && fabs(a->dist - b->dist) <= SAME_DIST) {
        *flipped = false;
        return true;
    }
    if (f <= SAME_NORMAL && fabs(a->dist + b->dist) <= SAME_DIST) {
        *flipped = true;
        return true;
    }
    return false;
}

/* Compares the subtrees at codes CA of A and CB of B; writes why into WHY on the first
 * difference. */
static bool same_subtree(const al_tree *a, int32_t ca, const al_tree *b, int32_t cb, int depth,
                         char *why, size_t why_size)
{
    if ((ca < 0) != (cb < 0)) {
        if (why) snprintf(why, why_size, "a leaf against a node at depth %d", depth);
        return false;
    }
    if (ca < 0) {
        uint32_t la = a->leaves ? a->leaves[-1 - ca] : 0, lb = b->leaves ? b->leaves[-1 - cb] : 0;
        if (la != lb && why) snprintf(why, why_size, "leaf bits %#x against %#x at depth %d",
                                      la, lb, depth);
        return la == lb;
    }
    const al_node *na = &a->nodes[ca], *nb = &b->nodes[cb];
    bool flipped;
    if (!same_plane(na, nb, &flipped)) {
        if (why)
            snprintf(why, why_size, "plane (%.12g %.12g %.12g) %.12g against (%.12g %.12g %.12g) %.12g at depth %d",
                     na->normal[0], na->normal[1], na->normal[2], na->dist, nb->normal[0],
                     nb->normal[1], nb->normal[2], nb->dist, depth);
        return false;
    }
    int f = flipped ? 1 : 0;
    return same_subtree(a, na->child[0], b, nb->child[f], depth + 1, why, why_size) &&
           same_subtree(a, na->child[1], b, nb->child[1 - f], depth + 1, why, why_size);
}

static int compare_tree(const al_tree *a, const al_tree *b, const char *what, int model,
                        int block, char *why, size_t why_size, int *found)
{
    char detail[200] = "";
    bool has_a = a->nodes || a->leaves, has_b = b->nodes || b->leaves;
    if (!has_a && !has_b) return 0;
    if (has_a != has_b ||
        !same_subtree(a, a->root, b, b->root, 0, detail, sizeof detail)) {
        if (why && (*found)++ == 0)
            snprintf(why, why_size, "model %d block %d, %s tree: %s", model, block, what,
                     detail[0] ? detail : "present in one world only");
        return 1;
    }
    return 0;
}

/* The open cells of blocks A and B (trace/open.c), and where traces start in them (the
 * nodes of their onion trees: equal subtrees, wherever they lie). */
static int compare_open(const al_model *ma, const al_model *mb, int hull_count, int model,
                        int block, char *why, size_t why_size, int *found)
{
    const al_block *a = &ma->blocks[block], *b = &mb->blocks[block];
    const char *what = NULL;
    char detail[200] = "";
    size_t rows = (size_t) hull_count * AL_OPEN_CELLS * AL_OPEN_CELLS;
    if (!a->open != !b->open)
        what = "present in one world only";
    else if (a->open && memcmp(a->open, b->open, rows * sizeof *a->open) != 0)
        what = "cells differ";
    else if (!ma->open_starts != !mb->open_starts)
        what = "start nodes in one world only";
    else if (ma->open_starts) {
        const int32_t *sa = ma->open_starts + (size_t) block * AL_OPEN_STARTS;
        const int32_t *sb = mb->open_starts + (size_t) block * AL_OPEN_STARTS;
        for (int i = 0; i < AL_OPEN_STARTS && !what; i++) {
            if (sa[i] == sb[i]) continue;
            if (sa[i] == AL_NO_START || sb[i] == AL_NO_START ||
                !same_subtree(&a->onion, sa[i], &b->onion, sb[i], 0, detail, sizeof detail))
                what = "start nodes differ";
        }
    }
    if (!what) return 0;
    if (why && (*found)++ == 0)
        snprintf(why, why_size, "model %d block %d, open cells: %s", model, block, what);
    return 1;
}

int al_world_tree_differences(const al_world *a, const al_world *b, char *why, size_t why_size)
{
    int found = 0, differ = 0;
    if (why && why_size) why[0] = '\0';
    if (a->model_count != b->model_count || a->hull_count != b->hull_count) {
        if (why)
            snprintf(why, why_size, "%d models and %d hulls against %d and %d", a->model_count,
                     a->hull_count, b->model_count, b->hull_count);
        return 1;
    }
    for (int m = 0; m < a->model_count; m++) {
        const al_model *ma = &a->models[m], *mb = &b->models[m];
        if (ma->entity != mb->entity || ma->brush_count != mb->brush_count ||
            memcmp(ma->grid_origin, mb->grid_origin, sizeof ma->grid_origin) != 0 ||
            memcmp(ma->grid_dims, mb->grid_dims, sizeof ma->grid_dims) != 0) {
            if (why && found++ == 0)
                snprintf(why, why_size,
                         "model %d: entity %d, %d brushes, grid %dx%dx%d against entity %d, %d "
                         "brushes, grid %dx%dx%d",
                         m, ma->entity, ma->brush_count, ma->grid_dims[0], ma->grid_dims[1],
                         ma->grid_dims[2], mb->entity, mb->brush_count, mb->grid_dims[0],
                         mb->grid_dims[1], mb->grid_dims[2]);
            differ++;
            continue;
        }
        for (int k = 0; k < ma->block_count; k++) {
            const al_block *ba = &ma->blocks[k], *bb = &mb->blocks[k];
            differ += compare_tree(&ba->onion, &bb->onion, "onion", m, k, why, why_size, &found);
            for (int h = 0; h < a->hull_count; h++)
                differ += compare_tree(&ba->map[h], &bb->map[h], a->hulls[h].name, m, k, why,
                                       why_size, &found);
            differ += compare_tree(al_block_shift(ba), al_block_shift(bb), "shift", m, k, why,
                                   why_size, &found);
            differ += compare_tree(&ba->vis, &bb->vis, "vis", m, k, why, why_size, &found);
            differ += compare_tree(al_block_light(ba), al_block_light(bb), "light", m, k, why,
                                   why_size, &found);
            differ += compare_open(ma, mb, a->hull_count, m, k, why, why_size, &found);
        }
    }
    return differ;
}

/* --- deep copies ------------------------------------------------------------------------ */

al_input *al_input_clone(const al_input *in)
{
    size_t properties = 0, texts = 0;
    for (int m = 0; m < in->material_count; m++) texts += al_block_text_size(in->materials[m].name);
    for (int e = 0; e < in->entity_count; e++) {
        const al_entity_desc *d = &in->entities[e];
        texts += al_block_text_size(d->classname);
        properties += (size_t) (d->property_count > 0 ? d->property_count : 0);
        for (int p = 0; p < d->property_count; p++)
            texts += al_block_text_size(d->properties[p].key) +
                     al_block_text_size(d->properties[p].value);
    }
    size_t n_mat = (size_t) (in->material_count > 0 ? in->material_count : 0);
    size_t n_ent = (size_t) (in->entity_count > 0 ? in->entity_count : 0);
    size_t n_brush = (size_t) (in->brush_count > 0 ? in->brush_count : 0);
    size_t n_face = (size_t) (in->face_count > 0 ? in->face_count : 0);
    size_t n_hull = (size_t) (in->hull_count > 0 && in->hulls ? in->hull_count : 0);
    size_t size = al_block_round(sizeof(al_input)) +
                  al_block_round(n_mat * sizeof(al_material_desc)) +
                  al_block_round(n_ent * sizeof(al_entity_desc)) +
                  al_block_round(properties * sizeof(al_property)) +
                  al_block_round(n_brush * sizeof(al_brush_desc)) +
                  al_block_round(n_face * sizeof(al_face_desc)) +
                  al_block_round(n_hull * sizeof(al_hull_desc)) + texts + 1;
    al_one_block b = {malloc(size), 0};
    if (!b.base) return NULL;
    al_input *out = al_block_take(&b, sizeof *out);
    *out = *in;
    out->brush_keys = NULL; /* (IN's, not copied) */
    al_material_desc *materials = al_block_take(&b, n_mat * sizeof *materials);
    al_entity_desc *entities = al_block_take(&b, n_ent * sizeof *entities);
    al_property *props = al_block_take(&b, properties * sizeof *props);
    al_brush_desc *brushes = al_block_take(&b, n_brush * sizeof *brushes);
    al_face_desc *faces = al_block_take(&b, n_face * sizeof *faces);
    al_hull_desc *hulls = al_block_take(&b, n_hull * sizeof *hulls);
    char *text = b.base + b.used;
    if (n_mat) memcpy(materials, in->materials, n_mat * sizeof *materials);
    for (size_t m = 0; m < n_mat; m++)
        materials[m].name = al_block_put_text(&text, in->materials[m].name);
    size_t next_prop = 0;
    for (size_t e = 0; e < n_ent; e++) {
        const al_entity_desc *d = &in->entities[e];
        entities[e] = *d;
        entities[e].classname = al_block_put_text(&text, d->classname);
        entities[e].properties = props + next_prop;
        for (int p = 0; p < d->property_count; p++) {
            props[next_prop].key = al_block_put_text(&text, d->properties[p].key);
            props[next_prop].value = al_block_put_text(&text, d->properties[p].value);
            next_prop++;
        }
    }
    if (n_brush) memcpy(brushes, in->brushes, n_brush * sizeof *brushes);
    if (n_face) memcpy(faces, in->faces, n_face * sizeof *faces);
    if (n_hull) memcpy(hulls, in->hulls, n_hull * sizeof *hulls);
    out->materials = n_mat ? materials : NULL;
    out->entities = n_ent ? entities : NULL;
    out->brushes = n_brush ? brushes : NULL;
    out->faces = n_face ? faces : NULL;
    out->hulls = n_hull ? hulls : NULL;
    return out;
}
