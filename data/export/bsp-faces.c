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
#include <limits.h>
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

/* --- hidden parts: faces cut against the solid brushes of their model -------------------- */

/* What a face is cut against: the solid brushes of its model (per .bsp model, the input
 * indices of the world model's brushes solid to the point hull, as the compile has them)
 * that meet its brush's box. */
typedef struct cutters {
    int *solid; /* of the current model */
    int solid_count;
    int model; /* whose list SOLID is, or -1 */
    int *near; /* of SOLID, those meeting the current brush's box */
    int near_count;
} cutters;

/* What a kept part becomes: a piece of MODEL on the plane PLANE (the .bsp's, SIDE 1 when
 * the face looks the other way) with TEXINFO, made from the brush face POLY. Parts with
 * the same model, plane, side and texinfo may merge. */
typedef struct part_info {
    int32_t model, plane, side, texinfo;
    bool special;
    const al_face_poly *poly;
} part_info;

/* The kept parts of faces: polygons of points[first[i] .. first[i] + count[i]) (world
 * coordinates), each with its info. */
typedef struct fragments {
    double (*points)[3];
    int *first, *count;
    part_info *info;
    int point_count, point_room, n, room;
    part_info adding; /* the info of the parts keep_part adds */
} fragments;

/* The face being cut: what its pieces are, and the parts kept so far. */
typedef struct cut_face {
    int model, brush;
    int32_t texinfo;
    bool special;
    const al_face_poly *poly;
    fragments *kept;
} cut_face;

static bool boxes_meet(const double *amin, const double *amax, const double *bmin,
                       const double *bmax)
{
    for (int k = 0; k < 3; k++)
        if (amin[k] > bmax[k] + ON_PLANE || bmin[k] > amax[k] + ON_PLANE) return false;
    return true;
}

/* Keeps the polygon P (N points) in F. False when memory runs out. */
static bool keep_part(fragments *f, const double (*p)[3], int n)
{
    if (f->n == f->room) {
        int room = f->room ? 2 * f->room : 16;
        int *first = realloc(f->first, (size_t) room * sizeof *first);
        if (!first) return false;
        f->first = first;
        int *count = realloc(f->count, (size_t) room * sizeof *count);
        if (!count) return false;
        f->count = count;
        part_info *info = realloc(f->info, (size_t) room * sizeof *info);
        if (!info) return false;
        f->info = info;
        f->room = room;
    }
    if (f->point_count + n > f->point_room) {
        int room = 2 * (f->point_count + n) + 64;
        double (*points)[3] = realloc(f->points, (size_t) room * sizeof *points);
        if (!points) return false;
        f->points = points;
        f->point_room = room;
    }
    memcpy(f->points + f->point_count, p, (size_t) n * sizeof *p);
    f->first[f->n] = f->point_count;
    f->info[f->n] = f->adding;
    f->count[f->n++] = n;
    f->point_count += n;
    return true;
}

static bool same_point(const double *a, const double *b)
{
    return fabs(a[0] - b[0]) < 1e-9 && fabs(a[1] - b[1]) < 1e-9 && fabs(a[2] - b[2]) < 1e-9;
}

/* The union of polygons A (NA points) and B (NB) into OUT (room for MAX_POINTS), when they
 * share an edge (A's runs one way, B's the other) and the union, without the points on a
 * straight line, is convex seen along NORMAL (their front); its point count, else 0. */
static int merge_pair(const double (*a)[3], int na, const double (*b)[3], int nb,
                      const double normal[3], double (*out)[3])
{
    if (na + nb - 2 > MAX_POINTS) return 0;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            if (!same_point(a[i], b[(j + 1) % nb]) || !same_point(a[(i + 1) % na], b[j])) continue;
            double (*u)[3] = malloc(MAX_POINTS * sizeof *u);
            if (!u) return 0;
            int n = 0;
            for (int k = 1; k <= na; k++) memcpy(u[n++], a[(i + k) % na], sizeof *u);
            for (int k = 2; k < nb; k++) memcpy(u[n++], b[(j + k) % nb], sizeof *u);
            /* Drop points on a line with their neighbours; any turn against the others
             * makes the union concave. */
            int m = 0, sign = 0;
            bool convex = true;
            for (int k = 0; k < n && convex; k++) {
                const double *p = u[(k + n - 1) % n], *c = u[k], *x = u[(k + 1) % n];
                double e1[3] = {c[0] - p[0], c[1] - p[1], c[2] - p[2]};
                double e2[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
                double t = normal[0] * (e1[1] * e2[2] - e1[2] * e2[1]) +
                           normal[1] * (e1[2] * e2[0] - e1[0] * e2[2]) +
                           normal[2] * (e1[0] * e2[1] - e1[1] * e2[0]);
                double l1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
                double l2 = sqrt(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
                if (fabs(t) <= 1e-6 * l1 * l2) continue; /* straight on */
                int st = t > 0 ? 1 : -1;
                if (sign && st != sign) convex = false;
                sign = st;
                memcpy(out[m++], c, sizeof *out);
            }
            free(u);
            return convex && m >= 3 ? m : 0;
        }
    return 0;
}

/* A kept part's place in the merge order: by model, plane, side and texinfo. */
typedef struct part_key {
    int32_t model, plane, side, texinfo, part;
} part_key;

static int compare_part_keys(const void *a, const void *b)
{
    const int32_t *x = a, *y = b; /* part_key's fields in order */
    for (int i = 0; i < 5; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

static bool same_group(const part_key *a, const part_key *b)
{
    return a->model == b->model && a->plane == b->plane && a->side == b->side &&
           a->texinfo == b->texinfo;
}

/* Merges the parts in K of one model, plane, side and texinfo that share an edge while
 * their union stays convex (as qbsp merges the faces its CSG leaves), then adds each,
 * moved into its model's coordinates, as pieces. False when memory runs out. */
static bool emit_kept(q_bsp *q, fragments *k)
{
    int parts = k->n;
    part_key *keys = malloc((size_t) (parts > 0 ? parts : 1) * sizeof *keys);
    int *order = malloc((size_t) (parts > 0 ? parts : 1) * sizeof *order);
    double (*merged)[3] = malloc(2 * MAX_POINTS * sizeof *merged);
    bool ok = keys && order && merged;
    for (int i = 0; ok && i < parts; i++) {
        const part_info *in = &k->info[i];
        keys[i] = (part_key){in->model, in->plane, in->side, in->texinfo, i};
    }
    if (ok) qsort(keys, (size_t) parts, sizeof *keys, compare_part_keys);
    for (int i = 0; ok && i < parts; i++) order[i] = keys[i].part;
    for (int g = 0; ok && g < parts;) {
        int end = g + 1;
        while (end < parts && same_group(&keys[g], &keys[end])) end++;
        /* The group order[g .. end): merge pairs until a pass merges none. A merged part
         * takes I's slot (its points appended), J's count becomes 0. */
        for (bool again = end - g > 1; again && ok;) {
            again = false;
            for (int i = g; i < end && ok; i++) {
                int a = order[i];
                for (int j = i + 1; j < end && ok && k->count[a] > 0; j++) {
                    int b = order[j];
                    if (k->count[b] == 0) continue;
                    int n = merge_pair((const double (*)[3]) k->points + k->first[a], k->count[a],
                                       (const double (*)[3]) k->points + k->first[b], k->count[b],
                                       k->info[a].poly->normal, merged);
                    if (!n) continue;
                    k->adding = k->info[a];
                    ok = keep_part(k, (const double (*)[3]) merged, n);
                    k->n--; /* only its points are kept, in A's slot */
                    k->first[a] = k->first[k->n];
                    k->count[a] = n;
                    k->count[b] = 0;
                    again = true;
                }
            }
        }
        g = end;
    }
    for (int i = 0; i < parts && ok; i++) {
        if (k->count[i] == 0) continue;
        const part_info *info = &k->info[i];
        const double (*p)[3] = (const double (*)[3]) k->points + k->first[i];
        double (*moved)[3] = merged + MAX_POINTS;
        memcpy(q->offset, q->model_origin[info->model], sizeof q->offset);
        for (int v = 0; v < k->count[i]; v++)
            for (int a = 0; a < 3; a++) moved[v][a] = p[v][a] - q->offset[a];
        ok = add_piece(q, info->model, info->texinfo, info->special, info->poly,
                       (const double (*)[3]) moved, k->count[i], 0);
    }
    memset(q->offset, 0, sizeof q->offset);
    free(keys);
    free(order);
    free(merged);
    return ok;
}

/* Adds the parts of polygon P (N points) of face F that lie outside the cutters from K on,
 * as qbsp's CSG keeps them: a part inside a solid brush of the model is hidden and left
 * out. On a cutter's face plane, a part facing the other way is between two solids
 * (hidden); one facing the same way is kept on the later brush of the two, so exactly one
 * of two coinciding faces is drawn. False when memory runs out. */
static bool cut_part(q_bsp *q, const cutters *c, const cut_face *f, int k, const double (*p)[3],
                     int n)
{
    if (n < 3) return true;
    const al_face_polys *polys = &q->polys;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) lo[a] = fmin(lo[a], p[i][a]), hi[a] = fmax(hi[a], p[i][a]);
    for (; k < c->near_count; k++) {
        int b = c->near[k];
        if (b != f->brush && boxes_meet(lo, hi, polys->brush_mins[b], polys->brush_maxs[b])) break;
    }
    if (k == c->near_count) return keep_part(f->kept, p, n);
    int b = c->near[k];
    double (*work)[3] = malloc(3 * MAX_POINTS * sizeof *work);
    if (!work) return false;
    /* Pass 0 only looks whether some of P is inside the cutter (a face that merely meets
     * its box is not cut); pass 1 cuts. */
    bool ok = true, inside = true;
    for (int pass = 0; pass < 2 && ok && inside; pass++) {
        double (*cur)[3] = work, (*front)[3] = work + MAX_POINTS, (*back)[3] = work + 2 * MAX_POINTS;
        memcpy(cur, p, (size_t) n * sizeof *cur);
        int count = n;
        for (int i = polys->brush_first[b]; i < polys->brush_first[b + 1] && ok && inside; i++) {
            const al_face_poly *side = &polys->faces[i];
            double dlo = INFINITY, dhi = -INFINITY;
            for (int v = 0; v < count; v++) {
                double d = side->normal[0] * cur[v][0] + side->normal[1] * cur[v][1] +
                           side->normal[2] * cur[v][2] - side->dist;
                dlo = fmin(dlo, d);
                dhi = fmax(dhi, d);
            }
            if (dlo > -ON_PLANE && dhi < ON_PLANE) {
                /* On the cutter's face plane: kept when it faces the same way and the
                 * cutter comes first. */
                const double *own = f->poly->normal;
                double dot =
                    own[0] * side->normal[0] + own[1] * side->normal[1] + own[2] * side->normal[2];
                inside = !(dot > 0 && b < f->brush);
            } else if (dlo > -ON_PLANE) {
                inside = false; /* wholly in front: outside the cutter */
            } else if (dhi >= ON_PLANE) {
                int nf, nb;
                split_polygon((const double (*)[3]) cur, count, side->normal, side->dist, front, &nf,
                              back, &nb);
                if (pass == 1) ok = cut_part(q, c, f, k + 1, (const double (*)[3]) front, nf);
                double (*t)[3] = cur;
                cur = back;
                back = t;
                count = nb;
                inside = count >= 3;
            }
        }
        /* In pass 1, what is left outside after the cuts goes on; pass 0's whole P. */
        if (ok && !inside)
            ok = cut_part(q, c, f, k + 1, pass == 0 ? p : (const double (*)[3]) cur,
                          pass == 0 ? n : count);
    }
    free(work);
    return ok;
}

/* Sets C's cutters for brush B of .bsp model MODEL: the solid brushes of its model (kept
 * from the last brush while the model is the same) that meet B's box. */
static void near_cutters(const q_bsp *q, cutters *c, int model, int b)
{
    const al_face_polys *polys = &q->polys;
    if (c->model != model) {
        c->model = model;
        int am = q->model_allium[model];
        c->solid_count = am < 0 ? 0 : al_world_model_brushes(q->src->world, am, 0, c->solid);
    }
    c->near_count = 0;
    for (int i = 0; i < c->solid_count; i++) {
        int s = c->solid[i];
        if (polys->brush_first[s] < polys->brush_first[s + 1] &&
            boxes_meet(polys->brush_mins[b], polys->brush_maxs[b], polys->brush_mins[s],
                       polys->brush_maxs[s]))
            c->near[c->near_count++] = s;
    }
}

/* The pieces of every drawn face, per model, in the model's coordinates, without the parts
 * that lie inside the solid brushes of their model. */
static al_status collect_pieces(q_bsp *q, const face_ref *refs, const bool *drawn)
{
    const al_input *in = q->src->input;
    const al_face_polys *p = &q->polys;
    size_t room = (size_t) in->brush_count + 1;
    cutters c = {malloc(room * sizeof(int)), 0, -1, malloc(room * sizeof(int)), 0};
    fragments kept = {0};
    al_status st = c.solid && c.near ? AL_OK : AL_ERR_NOMEM;
    for (int b = 0; b < in->brush_count && st == AL_OK; b++) {
        int model = q->entity_model[in->brushes[b].entity];
        if (model < 0) {
            al_entity_role role = al_entity_role_of(in->entities[in->brushes[b].entity].classname);
            if (role != AL_ROLE_WORLD && role != AL_ROLE_DETAIL) continue;
            model = 0; /* func_group, func_detail: merged into the world */
        }
        if (p->brush_first[b] == p->brush_first[b + 1]) continue;
        memcpy(q->offset, q->model_origin[model], sizeof q->offset);
        near_cutters(q, &c, model, b);
        for (int i = p->brush_first[b]; i < p->brush_first[b + 1]; i++) {
            const al_face_poly *f = &p->faces[i];
            int32_t input_face = in->brushes[b].first_face + f->face;
            if (!drawn[input_face] || f->material < 0) continue;
            const char *name = in->materials[f->material].name;
            cut_face cf = {model, b, -1, special_name(name ? name : ""), f, &kept};
            bool flipped;
            int32_t plane = q_plane_add(q, f->normal, f->dist, &flipped);
            int32_t miptex = material_miptex(q, f->material);
            cf.texinfo = add_texinfo(q, refs->faces[input_face], miptex, cf.special);
            int n = f->point_count < MAX_POINTS ? f->point_count : MAX_POINTS;
            kept.adding = (part_info){model, plane, flipped, cf.texinfo, cf.special, f};
            if (plane < 0 || cf.texinfo < 0 ||
                !cut_part(q, &c, &cf, 0, p->points + f->first_point, n)) {
                st = AL_ERR_NOMEM;
                break;
            }
        }
    }
    if (st == AL_OK && !emit_kept(q, &kept)) st = AL_ERR_NOMEM;
    memset(q->offset, 0, sizeof q->offset);
    free(c.solid);
    free(c.near);
    free(kept.info);
    free(kept.points);
    free(kept.first);
    free(kept.count);
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

/* A checker of two greys in 16-texel squares, for a texture no WAD gives
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

/* Quake's palette keeps its last 32 colours (224-255) fullbright: engines draw them unlit,
 * so a colour of a lit texture is never turned into one; 255 is a '{' texture's see-through
 * texel. */
#define Q_LIT_COLOURS 224
#define Q_SEE_THROUGH 255

/* WAD3 texture T in PALETTE: each opaque texel of level 0 as the nearest lit colour (the
 * least squared RGB distance, the lowest index on a tie), a see-through one as 255, and
 * the smaller levels every 2nd, 4th and 8th texel of it, as WAD2's levels are laid out
 * (al_texture.indices). Malloc'd, al_texture_mip_bytes of them; NULL (memory). */
static uint8_t *quake_indices(const al_texture *t, const uint8_t *palette)
{
    size_t bytes = al_texture_mip_bytes(t->width, t->height);
    uint8_t *out = malloc(bytes);
    if (!out) return NULL;
    /* A WAD3 texture has at most 256 colours: the last one looked up is remembered. */
    uint32_t last = UINT32_MAX;
    uint8_t last_index = 0;
    for (int i = 0; i < t->width * t->height; i++) {
        const uint8_t *c = t->rgba + 4 * (size_t) i;
        if (c[3] == 0) {
            out[i] = Q_SEE_THROUGH;
            continue;
        }
        uint32_t key = (uint32_t) c[0] << 16 | (uint32_t) c[1] << 8 | c[2];
        if (key != last) {
            long best = LONG_MAX;
            for (int k = 0; k < Q_LIT_COLOURS; k++) {
                long dr = c[0] - palette[3 * k], dg = c[1] - palette[3 * k + 1],
                     db = c[2] - palette[3 * k + 2];
                long d = dr * dr + dg * dg + db * db;
                if (d < best) best = d, last_index = (uint8_t) k;
            }
            last = key;
        }
        out[i] = last_index;
    }
    size_t at = (size_t) t->width * (size_t) t->height;
    for (int m = 1; m < 4; m++) {
        int w = t->width >> m, h = t->height >> m;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) out[at++] = out[(size_t) (y << m) * t->width + (x << m)];
    }
    return out;
}

/* The miptex lump: a count, an offset per texture, and each texture's header and levels. */
static al_status build_miptex(q_bsp *q)
{
    const al_input *in = q->src->input;
    size_t total = 4 + 4 * (size_t) q->miptex_count;
    const al_texture **found = calloc((size_t) q->miptex_count + 1, sizeof *found);
    uint8_t **converted = calloc((size_t) q->miptex_count + 1, sizeof *converted);
    int *size = calloc(2 * (size_t) q->miptex_count + 2, sizeof *size);
    uint8_t stand_in[768];
    const uint8_t *palette = q->src->palette;
    if (!palette) al_palette_default(stand_in);
    al_status st = found && converted && size ? AL_OK : AL_ERR_NOMEM;
    int wad3 = 0;
    for (int i = 0; i < q->miptex_count && st == AL_OK; i++) {
        const char *name = in->materials[q->miptex_material[i]].name;
        if (!name) name = "";
        const al_texture *t =
            q->src->textures ? al_texture_sources_find(q->src->textures, name, NULL) : NULL;
        if (t && !t->indices) {
            /* WAD3: colours of its own, turned into Quake's palette. */
            converted[i] = quake_indices(t, palette ? palette : stand_in);
            if (!converted[i]) st = AL_ERR_NOMEM;
            wad3++;
        }
        found[i] = t;
        /* A sky is two layers side by side, 256 x 128 in Quake's data (engines split a sky
         * texture twice as wide as high); other checkers are 64 x 64. */
        bool sky = strncasecmp(name, "sky", 3) == 0;
        size[2 * i] = t ? t->width : sky ? 256 : 64;
        size[2 * i + 1] = t ? t->height : sky ? 128 : 64;
        if (!t) {
            q->miptex_missing++;
            al_diag_add(q->diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "texture \"%s\" is in no WAD of the map; the .bsp "
                        "has a checker in its place",
                        name);
        } else if (strlen(name) > 15) {
            al_diag_add(q->diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "texture name \"%s\" is longer than a .bsp's 15 characters; cut short",
                        name);
        }
        total += 40 + al_texture_mip_bytes(size[2 * i], size[2 * i + 1]);
    }
    if (wad3 > 0 && !palette)
        al_diag_add(q->diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "WAD3 textures turned into a stand-in palette, not Quake's: %d (an engine "
                    "draws them in the wrong colours; give Quake's gfx/palette.lmp with --palette)",
                    wad3);
    uint8_t *lump = st == AL_OK ? calloc(total, 1) : NULL;
    if (!lump) {
        for (int i = 0; converted && i < q->miptex_count; i++) free(converted[i]);
        free(converted);
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
            memcpy(mt + 40, converted[i] ? converted[i] : found[i]->indices, bytes);
        else
            checker(mt + 40, w, h);
        at += 40 + bytes;
    }
    q->miptex_lump = lump;
    q->miptex_bytes = total;
    for (int i = 0; i < q->miptex_count; i++) free(converted[i]);
    free(converted);
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
