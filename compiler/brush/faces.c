/* Face polygons of brushes (al-faces.h).
 *
 * Each brush is built with al_brush_build into a scratch arena that is released after the
 * brush, so memory stays proportional to one brush plus the output. Each brush's planes
 * snap and merge among its own only (the plane table is emptied between brushes), so that
 * a brush's polygons depend on the brush alone: an edit elsewhere never changes them, and
 * the editor's scene and the radiosity's patches keep what an edit left alone. */
#include "al-faces.h"

#include "brush/brush.h"

#include <stdlib.h>
#include <string.h>

struct al_face_builder {
    al_plane_table planes;
    bool planes_ok;
    al_arena *arena;
    al_diag_list diags; /* scratch: why a brush is invalid is the compile's to say */
};

/* Grows *ARRAY (of ELEM-byte items, *CAP of them) to hold at least NEED. */
static bool reserve(void **array, int32_t *cap, int32_t need, size_t elem)
{
    if (need <= *cap) return true;
    int32_t n = *cap ? *cap : 256;
    while (n < need) n *= 2;
    void *p = realloc(*array, (size_t) n * elem);
    if (!p) return false;
    *array = p;
    *cap = n;
    return true;
}

al_face_builder *al_face_builder_create(void)
{
    al_face_builder *fb = calloc(1, sizeof *fb);
    if (!fb) return NULL;
    fb->planes_ok = al_plane_table_init(&fb->planes);
    fb->arena = al_arena_create(0);
    if (!fb->planes_ok || !fb->arena) {
        al_face_builder_destroy(fb);
        return NULL;
    }
    return fb;
}

void al_face_builder_destroy(al_face_builder *fb)
{
    if (!fb) return;
    al_diag_list_clear(&fb->diags);
    al_arena_destroy(fb->arena);
    if (fb->planes_ok) al_plane_table_free(&fb->planes);
    free(fb);
}

/* Appends the polygons of brush I of INPUT to OUT as its brush SLOT (whose bounds must have
 * room), growing OUT's arrays (capacities in *FACE_CAP and *POINT_CAP). False if memory ran
 * out; an invalid brush adds nothing and counts in OUT->invalid_brushes. */
static bool append_brush(al_face_builder *fb, const al_input *input, int32_t i, int32_t slot,
                         al_face_polys *out, int32_t *face_cap, int32_t *point_cap)
{
    al_arena_mark mark = al_arena_get_mark(fb->arena);
    bool nomem = false;
    al_brush *b = al_brush_build(fb->arena, &fb->planes, input, i, &fb->diags, &nomem);
    al_diag_list_clear(&fb->diags);
    if (nomem) return false;
    if (!b) {
        out->invalid_brushes++;
        al_arena_release(fb->arena, mark);
        return true;
    }
    memcpy(out->brush_mins[slot], b->mins, sizeof b->mins);
    memcpy(out->brush_maxs[slot], b->maxs, sizeof b->maxs);
    bool ok = true;
    for (int s = 0; ok && s < b->side_count; s++) {
        const al_side *side = &b->sides[s];
        if (side->face < 0 || !side->winding || side->winding->count < 3) continue;
        if (!reserve((void **) &out->faces, face_cap, out->face_count + 1, sizeof *out->faces) ||
            !reserve((void **) &out->points, point_cap, out->point_count + side->winding->count,
                     sizeof *out->points)) {
            ok = false;
            break;
        }
        const al_plane *pl = &fb->planes.planes[side->plane];
        al_face_poly *f = &out->faces[out->face_count++];
        f->brush = i;
        f->face = side->face;
        f->material = side->material;
        f->first_point = out->point_count;
        f->point_count = side->winding->count;
        memcpy(f->normal, pl->normal, sizeof f->normal);
        f->dist = pl->dist;
        memcpy(out->points[out->point_count], side->winding->points,
               (size_t) side->winding->count * sizeof *out->points);
        out->point_count += side->winding->count;
    }
    al_arena_release(fb->arena, mark);
    return ok;
}

al_status al_face_builder_brush(al_face_builder *fb, const al_input *input, int brush,
                                al_face_polys *out)
{
    al_face_polys_free(out);
    if (brush < 0 || brush >= input->brush_count) return AL_ERR_INVALID_ARGUMENT;
    /* A brush's polygons depend on the brush alone: its planes snap among its own. */
    al_plane_table_reset(&fb->planes);
    out->brush_count = 1;
    out->brush_first = calloc(2, sizeof *out->brush_first);
    out->brush_mins = calloc(1, sizeof *out->brush_mins);
    out->brush_maxs = calloc(1, sizeof *out->brush_maxs);
    int32_t face_cap = 0, point_cap = 0;
    if (!out->brush_first || !out->brush_mins || !out->brush_maxs ||
        !append_brush(fb, input, brush, 0, out, &face_cap, &point_cap)) {
        al_face_polys_free(out);
        return AL_ERR_NOMEM;
    }
    out->brush_first[1] = out->face_count;
    return AL_OK;
}

al_status al_face_polys_build(const al_input *input, al_face_polys *out)
{
    memset(out, 0, sizeof *out);
    al_face_builder *fb = al_face_builder_create();
    int32_t face_cap = 0, point_cap = 0;
    int32_t n = input->brush_count > 0 ? input->brush_count : 0;
    out->brush_count = n;
    out->brush_first = calloc((size_t) n + 1, sizeof *out->brush_first);
    out->brush_mins = calloc((size_t) n + 1, sizeof *out->brush_mins);
    out->brush_maxs = calloc((size_t) n + 1, sizeof *out->brush_maxs);
    bool ok = fb && out->brush_first && out->brush_mins && out->brush_maxs;
    for (int32_t i = 0; ok && i < n; i++) {
        out->brush_first[i] = out->face_count;
        al_plane_table_reset(&fb->planes);
        ok = append_brush(fb, input, i, i, out, &face_cap, &point_cap);
    }
    if (ok) out->brush_first[n] = out->face_count;
    al_face_builder_destroy(fb);
    if (!ok) {
        al_face_polys_free(out);
        return AL_ERR_NOMEM;
    }
    return AL_OK;
}

void al_face_polys_free(al_face_polys *polys)
{
    if (!polys) return;
    free(polys->faces);
    free(polys->points);
    free(polys->brush_first);
    free(polys->brush_mins);
    free(polys->brush_maxs);
    memset(polys, 0, sizeof *polys);
}
