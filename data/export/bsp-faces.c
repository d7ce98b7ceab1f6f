/* The faces of a .bsp (see bsp.h): which brush faces are drawn, their texinfo from the
 * map's texture axes, their cutting to Quake's surface extents, the node and leaves each
 * lies in, and the miptex lump of the textures they use.
 *
 * Workload: every face of the map once; e1m1's few thousand faces take milliseconds.
 */
#include "bsp-internal.h"

#include "al-brush.h"
#include "al-vis.h"
#include "mapfile/texture.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Points this close to a node's plane count as on it. */
#define ON_PLANE 0.01
/* Quake's qbsp cuts faces whose texture extent passes this many texels, so that a lightmap
 * stays within the 256-texel extent engines accept. */
#define SUBDIVIDE  240.0
#define MAX_POINTS 256

/* The faces a material never draws. A brush entity's trigger faces are written (as Quake's
 * qbsp writes them): a trigger's model is its faces, and its code hides them. */
#define HIDDEN (AL_MATERIAL_CLIP | AL_MATERIAL_NODRAW | AL_MATERIAL_HINT | AL_MATERIAL_ORIGIN)

static bool special_name(const char *name)
{
    return name[0] == '*' || strncasecmp(name, "sky", 3) == 0;
}

/* The map face of input face FACE of brush BRUSH (map-input's order is the map's). */
typedef struct face_ref {
    const al_map_face **faces; /* per input face */
} face_ref;

static bool map_faces(const q_bsp *q, face_ref *out)
{
    const al_input *in = q->src->input;
    const al_map *map = q->src->map;
    out->faces = calloc((size_t) (in->face_count > 0 ? in->face_count : 1), sizeof *out->faces);
    if (!out->faces) return false;
    int fi = 0;
    for (int e = 0; e < map->entity_count; e++)
        for (int b = 0; b < map->entities[e].brush_count; b++)
            for (int f = 0; f < map->entities[e].brushes[b].face_count && fi < in->face_count; f++)
                out->faces[fi++] = &map->entities[e].brushes[b].faces[f];
    return true;
}

/* The texinfo of map face F with material MATERIAL's miptex: Quake's s = dot(p, vecs[0]) +
 * vecs[0][3] is the map's texture coordinate, which is affine in p, so three differences
 * and the value at the origin give it exactly. -1 when memory runs out. */
static int32_t add_texinfo(q_bsp *q, const al_map_face *f, int32_t miptex, bool special)
{
    q_texinfo t;
    memset(&t, 0, sizeof t);
    double o[2], e[2];
    /* In the model's coordinates: its origin (Q->offset) has the coordinates the map gives
     * that point, so the texture stays where the map put it. */
    al_texture_coords(f, q->offset, o);
    for (int a = 0; a < 3; a++) {
        double p[3] = {q->offset[0], q->offset[1], q->offset[2]};
        p[a] += 1;
        al_texture_coords(f, p, e);
        t.vecs[0][a] = (float) (e[0] - o[0]);
        t.vecs[1][a] = (float) (e[1] - o[1]);
    }
    t.vecs[0][3] = (float) o[0];
    t.vecs[1][3] = (float) o[1];
    t.miptex = miptex;
    t.flags = special ? Q_TEX_SPECIAL : 0;
    uint64_t h = q_hash_bytes(&t, sizeof t);
    int32_t found = q_index_get(&q->texinfo_index, h);
    if (found >= 0 && memcmp(Q_AT(q->texinfo, q_texinfo, found), &t, sizeof t) == 0) return found;
    q_texinfo *n = q_push(&q->texinfo);
    if (!n) return -1;
    *n = t;
    int32_t index = q->texinfo.count - 1;
    if (found < 0 && !q_index_put(&q->texinfo_index, h, index)) return -1;
    return index;
}

/* The miptex of MATERIAL (added to the list if new), or -1 (memory). */
static int32_t material_miptex(q_bsp *q, int material)
{
    if (q->material_miptex[material] >= 0) return q->material_miptex[material];
    q->miptex_material[q->miptex_count] = material;
    q->material_miptex[material] = q->miptex_count;
    return q->miptex_count++;
}

/* Cuts the polygon P (N points) by the plane into FRONT and BACK (room for MAX_POINTS
 * each): their point counts in *NF, *NB. */
static void split_polygon(const double (*p)[3], int n, const double normal[3], double dist,
                          double (*front)[3], int *nf, double (*back)[3], int *nb)
{
    *nf = *nb = 0;
    for (int i = 0; i < n; i++) {
        const double *a = p[i], *b = p[(i + 1) % n];
        double da = normal[0] * a[0] + normal[1] * a[1] + normal[2] * a[2] - dist;
        double db = normal[0] * b[0] + normal[1] * b[1] + normal[2] * b[2] - dist;
        if (da >= 0 && *nf < MAX_POINTS) memcpy(front[(*nf)++], a, sizeof(double[3]));
        if (da <= 0 && *nb < MAX_POINTS) memcpy(back[(*nb)++], a, sizeof(double[3]));
        if ((da > 0 && db < 0) || (da < 0 && db > 0)) {
            double t = da / (da - db), x[3];
            for (int k = 0; k < 3; k++) x[k] = a[k] + t * (b[k] - a[k]);
            if (*nf < MAX_POINTS) memcpy(front[(*nf)++], x, sizeof x);
            if (*nb < MAX_POINTS) memcpy(back[(*nb)++], x, sizeof x);
        }
    }
}

/* Adds the piece P (N points) of a face of model MODEL, cut until its texture extent is at
 * most SUBDIVIDE texels on both axes (unless SPECIAL). False when memory runs out. */
static bool add_piece(q_bsp *q, int model, int32_t texinfo, bool special, const al_face_poly *face,
                      const double (*p)[3], int n, int depth)
{
    if (n < 3) return true;
    const q_texinfo *t = Q_AT(q->texinfo, q_texinfo, texinfo);
    if (!special && depth < 64) {
        for (int axis = 0; axis < 2; axis++) {
            double v[3] = {t->vecs[axis][0], t->vecs[axis][1], t->vecs[axis][2]};
            double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            if (!(len > 1e-9)) continue;
            double lo = INFINITY, hi = -INFINITY;
            for (int i = 0; i < n; i++) {
                double s = v[0] * p[i][0] + v[1] * p[i][1] + v[2] * p[i][2] + t->vecs[axis][3];
                lo = fmin(lo, s);
                hi = fmax(hi, s);
            }
            double cut = floor(lo / 16) * 16 + SUBDIVIDE;
            if (hi <= cut + 1e-6) continue;
            double normal[3] = {v[0] / len, v[1] / len, v[2] / len};
            double dist = (cut - t->vecs[axis][3]) / len;
            double (*front)[3] = malloc(2 * MAX_POINTS * sizeof *front);
            if (!front) return false;
            double (*back)[3] = front + MAX_POINTS;
            int nf, nb;
            split_polygon(p, n, normal, dist, front, &nf, back, &nb);
            bool ok = add_piece(q, model, texinfo, special, face, (const double (*)[3]) back, nb,
                                depth + 1) &&
                      add_piece(q, model, texinfo, special, face, (const double (*)[3]) front, nf,
                                depth + 1);
            free(front);
            return ok;
        }
    }
    /* A sliver whose points round to fewer than three floats is no face. */
    int distinct = 0;
    for (int i = 0; i < n; i++) {
        const double *a = p[i], *b = p[(i + 1) % n];
        distinct += (float) a[0] != (float) b[0] || (float) a[1] != (float) b[1] ||
                    (float) a[2] != (float) b[2];
    }
    if (distinct < 3) return true;
    q_piece *pc = q_push(&q->pieces);
    if (!pc) return false;
    pc->model = model;
    pc->node = -1;
    pc->texinfo = texinfo;
    bool flipped;
    pc->plane = q_plane_add(q, face->normal, face->dist, &flipped);
    if (pc->plane < 0) return false;
    pc->side = flipped;
    pc->first_point = q->piece_points.count;
    pc->point_count = n;
    for (int i = 0; i < n; i++) {
        double *x = q_push(&q->piece_points);
        if (!x) return false;
        memcpy(x, p[i], sizeof(double[3]));
    }
    return true;
}

/* Sends piece PIECE down the hull-0 tree from CODE: the first node whose plane it lies on
 * becomes its node, and every leaf it reaches (but the solid leaf 0) lists it. */
static bool place_piece(q_bsp *q, int32_t piece, int32_t code)
{
    while (code >= 0) {
        const q_node *n = Q_AT(q->nodes, q_node, code);
        const q_plane *pl = Q_AT(q->planes, q_plane, n->plane);
        q_piece *pc = Q_AT(q->pieces, q_piece, piece);
        const double (*p)[3] = Q_AT(q->piece_points, q_point, pc->first_point);
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < pc->point_count; i++) {
            double d = pl->normal[0] * p[i][0] + pl->normal[1] * p[i][1] + pl->normal[2] * p[i][2] -
                       pl->dist;
            lo = fmin(lo, d);
            hi = fmax(hi, d);
        }
        if (hi < ON_PLANE && lo > -ON_PLANE && pc->node < 0) {
            const q_plane *own = Q_AT(q->planes, q_plane, pc->plane);
            double dot = own->normal[0] * pl->normal[0] + own->normal[1] * pl->normal[1] +
                         own->normal[2] * pl->normal[2];
            if (fabs(dot) > 0.999) {
                pc->node = code;
                pc->plane = n->plane;
                pc->side = pc->side ? dot > 0 : dot < 0;
            }
        }
        bool front = hi > -ON_PLANE, back = lo < ON_PLANE;
        if (front && back) {
            if (!place_piece(q, piece, n->child[0])) return false;
            code = n->child[1];
        } else {
            code = n->child[front ? 0 : 1];
        }
    }
    int32_t leaf = -1 - code;
    if (leaf == 0) return true;
    int32_t *pair = q_push(&q->leaf_pieces);
    if (!pair) return false;
    pair[0] = leaf;
    pair[1] = piece;
    return true;
}

/* Which input faces are drawn, into DRAWN (per input face): the world's faces that a vis
 * leaf lists (every one when the world has no visibility) and every liquid face; every
 * face of a brush entity; never faces whose material is not drawn. */
static bool drawn_faces(const q_bsp *q, bool *drawn)
{
    const al_input *in = q->src->input;
    const al_world *w = q->src->world;
    int leaves = al_world_vis_leaf_count(w);
    for (int l = 0; l < leaves; l++) {
        int count;
        const al_leaf_face *lf = al_world_leaf_faces(w, l, &count);
        for (int i = 0; i < count; i++)
            drawn[in->brushes[lf[i].brush].first_face + lf[i].face] = true;
    }
    for (int b = 0; b < in->brush_count; b++) {
        const al_brush_desc *bd = &in->brushes[b];
        al_entity_role role =
            bd->entity == 0 ? AL_ROLE_WORLD : al_entity_role_of(in->entities[bd->entity].classname);
        bool world = role == AL_ROLE_WORLD || role == AL_ROLE_DETAIL;
        bool all = !world || leaves == 0 || (al_brush_contents(in, b, NULL) & AL_MATERIAL_LIQUID);
        for (int f = 0; f < bd->face_count; f++) {
            int32_t m = in->faces[bd->first_face + f].material;
            uint32_t hidden = HIDDEN | (world ? AL_MATERIAL_TRIGGER : 0);
            if (m < 0 || (in->materials[m].flags & hidden)) {
                drawn[bd->first_face + f] = false;
                continue;
            }
            if (all) drawn[bd->first_face + f] = true;
        }
    }
    return true;
}

/* The pieces of every drawn face, per model, in the model's coordinates. */
static al_status collect_pieces(q_bsp *q, const face_ref *refs, const bool *drawn)
{
    const al_input *in = q->src->input;
    const al_face_polys *p = &q->polys;
    double (*moved)[3] = malloc(MAX_POINTS * sizeof *moved);
    if (!moved) return AL_ERR_NOMEM;
    al_status st = AL_OK;
    for (int b = 0; b < in->brush_count && st == AL_OK; b++) {
        int model = q->entity_model[in->brushes[b].entity];
        if (model < 0) {
            al_entity_role role = al_entity_role_of(in->entities[in->brushes[b].entity].classname);
            if (role != AL_ROLE_WORLD && role != AL_ROLE_DETAIL) continue;
            model = 0; /* func_group, func_detail: merged into the world */
        }
        memcpy(q->offset, q->model_origin[model], sizeof q->offset);
        for (int i = p->brush_first[b]; i < p->brush_first[b + 1]; i++) {
            const al_face_poly *f = &p->faces[i];
            int32_t input_face = in->brushes[b].first_face + f->face;
            if (!drawn[input_face] || f->material < 0) continue;
            const char *name = in->materials[f->material].name;
            bool special = special_name(name ? name : "");
            int32_t miptex = material_miptex(q, f->material);
            int32_t texinfo = add_texinfo(q, refs->faces[input_face], miptex, special);
            int n = f->point_count < MAX_POINTS ? f->point_count : MAX_POINTS;
            for (int v = 0; v < n; v++)
                for (int k = 0; k < 3; k++)
                    moved[v][k] = p->points[f->first_point + v][k] - q->offset[k];
            if (texinfo < 0 ||
                !add_piece(q, model, texinfo, special, f, (const double (*)[3]) moved, n, 0)) {
                st = AL_ERR_NOMEM;
                break;
            }
        }
    }
    memset(q->offset, 0, sizeof q->offset);
    free(moved);
    return st;
}

/* The index of vertex P (added if new), or -1. */
static int32_t add_vertex(q_bsp *q, const double p[3])
{
    float v[3] = {(float) p[0], (float) p[1], (float) p[2]};
    uint64_t h = q_hash_bytes(v, sizeof v);
    int32_t found = q_index_get(&q->vertex_index, h);
    if (found >= 0 && memcmp(Q_AT(q->vertexes, q_vertex, found), v, sizeof v) == 0) return found;
    float *n = q_push(&q->vertexes);
    if (!n) return -1;
    memcpy(n, v, sizeof v);
    int32_t index = q->vertexes.count - 1;
    if (found < 0 && !q_index_put(&q->vertex_index, h, index)) return -1;
    return index;
}

/* The surfedge of the edge from vertex A to vertex B: +e when edge e runs A to B, -e when
 * it runs B to A (an edge is shared by the faces on its two sides). INT32_MIN (memory). */
static int32_t add_edge(q_bsp *q, int32_t a, int32_t b)
{
    int32_t key[2] = {a < b ? a : b, a < b ? b : a};
    uint64_t h = q_hash_bytes(key, sizeof key);
    int32_t found = q_index_get(&q->edge_index, h);
    if (found >= 0) {
        const uint32_t *e = *Q_AT(q->edges, q_edge, found);
        if (e[0] == (uint32_t) b && e[1] == (uint32_t) a) return -found;
        if (e[0] == (uint32_t) a && e[1] == (uint32_t) b) return found;
    }
    uint32_t *e = q_push(&q->edges);
    if (!e) return INT32_MIN;
    e[0] = (uint32_t) a;
    e[1] = (uint32_t) b;
    int32_t index = q->edges.count - 1;
    if (found < 0 && !q_index_put(&q->edge_index, h, index)) return INT32_MIN;
    return index;
}

/* A piece's place in the face order: by model, then node (pieces on no node last). */
typedef struct piece_key {
    int32_t model;
    uint32_t node;
    int32_t piece;
} piece_key;

static int compare_keys(const void *a, const void *b)
{
    const piece_key *x = a, *y = b;
    if (x->model != y->model) return x->model < y->model ? -1 : 1;
    if (x->node != y->node) return x->node < y->node ? -1 : 1;
    return x->piece < y->piece ? -1 : x->piece > y->piece;
}

static int compare_pairs(const void *a, const void *b)
{
    const int32_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Faces from the pieces, ordered by model and node, with their edges; the nodes', leaves'
 * and models' face ranges; the marksurfaces. */
static al_status emit_faces(q_bsp *q)
{
    int32_t n = q->pieces.count;
    piece_key *keys = malloc((size_t) (n > 0 ? n : 1) * sizeof *keys);
    int32_t *order = malloc((size_t) (n > 0 ? n : 1) * sizeof *order);
    int32_t *face_of = malloc((size_t) (n > 0 ? n : 1) * sizeof *face_of);
    if (!keys || !order || !face_of) {
        free(keys);
        free(order);
        free(face_of);
        return AL_ERR_NOMEM;
    }
    for (int32_t i = 0; i < n; i++) {
        const q_piece *pc = Q_AT(q->pieces, q_piece, i);
        keys[i] = (piece_key){pc->model, (uint32_t) pc->node, i};
    }
    qsort(keys, (size_t) n, sizeof *keys, compare_keys);
    for (int32_t i = 0; i < n; i++) order[i] = keys[i].piece;
    free(keys);
    al_status st = AL_OK;
    for (int m = 0; m < q->model_count; m++) Q_AT(q->models, q_model, m)->first_face = -1;
    for (int32_t k = 0; k < n && st == AL_OK; k++) {
        const q_piece *pc = Q_AT(q->pieces, q_piece, order[k]);
        face_of[order[k]] = k;
        q_model *qm = Q_AT(q->models, q_model, pc->model);
        if (qm->first_face < 0) qm->first_face = k;
        qm->face_count++;
        if (pc->node >= 0) {
            q_node *node = Q_AT(q->nodes, q_node, pc->node);
            if (node->face_count == 0) node->first_face = (uint32_t) k;
            node->face_count++;
        }
        q_face *f = q_push(&q->faces);
        if (!f) {
            st = AL_ERR_NOMEM;
            break;
        }
        f->plane = pc->plane;
        f->side = pc->side;
        f->texinfo = pc->texinfo;
        f->first_edge = q->surfedges.count;
        f->styles[0] = 0;
        f->styles[1] = f->styles[2] = f->styles[3] = 255;
        f->lightofs = -1;
        /* Its vertexes, without points that round to the one before (floats). */
        const double (*p)[3] = Q_AT(q->piece_points, q_point, pc->first_point);
        int32_t v[MAX_POINTS];
        int count = 0;
        for (int i = 0; i < pc->point_count && count < MAX_POINTS; i++) {
            int32_t x = add_vertex(q, p[i]);
            if (x < 0) {
                st = AL_ERR_NOMEM;
                break;
            }
            if (count == 0 || v[count - 1] != x) v[count++] = x;
        }
        while (count > 1 && v[count - 1] == v[0]) count--;
        for (int i = 0; i < count && st == AL_OK; i++) {
            int32_t e = add_edge(q, v[i], v[(i + 1) % count]);
            int32_t *se = e == INT32_MIN ? NULL : q_push(&q->surfedges);
            if (!se)
                st = AL_ERR_NOMEM;
            else
                *se = e;
        }
        f->edge_count = count;
    }
    for (int m = 0; m < q->model_count; m++)
        if (Q_AT(q->models, q_model, m)->first_face < 0)
            Q_AT(q->models, q_model, m)->first_face = 0;
    /* Marksurfaces: per leaf, its faces in order, each once. */
    q_pair *pairs = q->leaf_pieces.items;
    for (int32_t i = 0; i < q->leaf_pieces.count; i++) pairs[i][1] = face_of[pairs[i][1]];
    qsort(pairs, (size_t) q->leaf_pieces.count, sizeof *pairs, compare_pairs);
    for (int32_t i = 0; i < q->leaf_pieces.count && st == AL_OK; i++) {
        if (i > 0 && pairs[i][0] == pairs[i - 1][0] && pairs[i][1] == pairs[i - 1][1]) continue;
        q_leaf *l = Q_AT(q->leafs, q_leaf, pairs[i][0]);
        if (l->mark_count == 0) l->first_mark = (uint32_t) q->marksurfaces.count;
        l->mark_count++;
        uint32_t *ms = q_push(&q->marksurfaces);
        if (!ms)
            st = AL_ERR_NOMEM;
        else
            *ms = (uint32_t) pairs[i][1];
    }
    free(order);
    free(face_of);
    return st;
}

/* --- miptex -------------------------------------------------------------------------------- */

/* A checker of two greys in 16-texel squares, for a texture no WAD gives in Quake's palette
 * (WIDTH x HEIGHT, all four levels into OUT). */
static void checker(uint8_t *out, int width, int height)
{
    for (int m = 0; m < 4; m++) {
        int w = width >> m, h = height >> m, cell = 16 >> m;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) *out++ = ((x / cell + y / cell) & 1) ? 8 : 12;
    }
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t) v;
    p[1] = (uint8_t) (v >> 8);
    p[2] = (uint8_t) (v >> 16);
    p[3] = (uint8_t) (v >> 24);
}

/* The miptex lump: a count, an offset per texture, and each texture's header and levels. */
static al_status build_miptex(q_bsp *q)
{
    const al_input *in = q->src->input;
    size_t total = 4 + 4 * (size_t) q->miptex_count;
    const al_texture **found = calloc((size_t) q->miptex_count + 1, sizeof *found);
    int *size = calloc(2 * (size_t) q->miptex_count + 2, sizeof *size);
    if (!found || !size) {
        free(found);
        free(size);
        return AL_ERR_NOMEM;
    }
    for (int i = 0; i < q->miptex_count; i++) {
        const char *name = in->materials[q->miptex_material[i]].name;
        if (!name) name = "";
        const al_texture *t =
            q->src->textures ? al_texture_sources_find(q->src->textures, name, NULL) : NULL;
        if (t && !t->indices) t = NULL; /* WAD3: colours of its own, not Quake's palette */
        found[i] = t;
        /* A sky is two layers side by side, 256 x 128 in Quake's data (engines split a sky
         * texture twice as wide as high); other checkers are 64 x 64. */
        bool sky = strncasecmp(name, "sky", 3) == 0;
        size[2 * i] = t ? t->width : sky ? 256 : 64;
        size[2 * i + 1] = t ? t->height : sky ? 128 : 64;
        if (!t) {
            q->miptex_missing++;
            al_diag_add(q->diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "texture \"%s\" is in no WAD of the map in Quake's palette; the .bsp "
                        "has a checker in its place",
                        name);
        } else if (strlen(name) > 15) {
            al_diag_add(q->diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "texture name \"%s\" is longer than a .bsp's 15 characters; cut short",
                        name);
        }
        total += 40 + al_texture_mip_bytes(size[2 * i], size[2 * i + 1]);
    }
    uint8_t *lump = calloc(total, 1);
    if (!lump) {
        free(found);
        free(size);
        return AL_ERR_NOMEM;
    }
    put32(lump, (uint32_t) q->miptex_count);
    size_t at = 4 + 4 * (size_t) q->miptex_count;
    for (int i = 0; i < q->miptex_count; i++) {
        const char *name = in->materials[q->miptex_material[i]].name;
        int w = size[2 * i], h = size[2 * i + 1];
        put32(lump + 4 + 4 * i, (uint32_t) at);
        uint8_t *mt = lump + at;
        /* In lower case, as the WADs hold them: engines tell sky, liquid and animated
         * textures by "sky", "*" and "+" in lower case (DarkPlaces of 2018 counts its sky
         * textures before it lowers the names, and crashed on id's start.map's SKY4). */
        for (int c = 0; c < 15 && name && name[c]; c++)
            mt[c] = (uint8_t) tolower((unsigned char) name[c]);
        put32(mt + 16, (uint32_t) w);
        put32(mt + 20, (uint32_t) h);
        uint32_t offset = 40;
        for (int m = 0; m < 4; m++) {
            put32(mt + 24 + 4 * m, offset);
            offset += (uint32_t) ((w >> m) * (h >> m));
        }
        size_t bytes = al_texture_mip_bytes(w, h);
        if (found[i])
            memcpy(mt + 40, found[i]->indices, bytes);
        else
            checker(mt + 40, w, h);
        at += 40 + bytes;
    }
    q->miptex_lump = lump;
    q->miptex_bytes = total;
    free(found);
    free(size);
    return AL_OK;
}

al_status q_build_faces(q_bsp *q)
{
    const al_input *in = q->src->input;
    face_ref refs = {0};
    bool *drawn = calloc((size_t) in->face_count + 1, sizeof *drawn);
    q->material_miptex = malloc(((size_t) in->material_count + 1) * sizeof *q->material_miptex);
    q->miptex_material = malloc(((size_t) in->material_count + 1) * sizeof *q->miptex_material);
    al_status st = AL_ERR_NOMEM;
    if (!drawn || !q->material_miptex || !q->miptex_material || !map_faces(q, &refs)) goto done;
    for (int m = 0; m < in->material_count; m++) q->material_miptex[m] = -1;
    drawn_faces(q, drawn);
    st = collect_pieces(q, &refs, drawn);
    for (int32_t i = 0; i < q->pieces.count && st == AL_OK; i++) {
        int model = Q_AT(q->pieces, q_piece, i)->model;
        if (!place_piece(q, i, Q_AT(q->models, q_model, model)->headnode[0])) st = AL_ERR_NOMEM;
    }
    if (st == AL_OK) st = emit_faces(q);
    if (st == AL_OK) st = build_miptex(q);
done:
    free(drawn);
    free(refs.faces);
    return st;
}
