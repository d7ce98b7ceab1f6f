/* Face polygons of every brush of an input (al-faces.h).
 *
 * Each brush is built with al_brush_build into a scratch arena that is released after the
 * brush, so memory stays proportional to one brush plus the output; the plane table is
 * shared so that the planes snap and deduplicate exactly as in a compile. */
#include "al-faces.h"

#include "brush/brush.h"

#include <stdlib.h>
#include <string.h>

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

al_status al_face_polys_build(const al_input *input, al_face_polys *out)
{
    memset(out, 0, sizeof *out);
    al_status status = AL_ERR_NOMEM;
    al_plane_table planes;
    bool planes_ok = al_plane_table_init(&planes);
    al_arena *arena = al_arena_create(0);
    al_diag_list diags = {0};
    int32_t face_cap = 0, point_cap = 0;
    int32_t n = input->brush_count > 0 ? input->brush_count : 0;
    out->brush_count = n;
    out->brush_first = calloc((size_t) n + 1, sizeof *out->brush_first);
    out->brush_mins = calloc((size_t) n + 1, sizeof *out->brush_mins);
    out->brush_maxs = calloc((size_t) n + 1, sizeof *out->brush_maxs);
    if (!planes_ok || !arena || !out->brush_first || !out->brush_mins || !out->brush_maxs)
        goto done;

    for (int32_t i = 0; i < n; i++) {
        out->brush_first[i] = out->face_count;
        al_arena_mark mark = al_arena_get_mark(arena);
        bool nomem = false;
        al_brush *b = al_brush_build(arena, &planes, input, i, &diags, &nomem);
        al_diag_list_clear(&diags);
        if (nomem) goto done;
        if (!b) {
            out->invalid_brushes++;
            al_arena_release(arena, mark);
            continue;
        }
        memcpy(out->brush_mins[i], b->mins, sizeof b->mins);
        memcpy(out->brush_maxs[i], b->maxs, sizeof b->maxs);
        for (int s = 0; s < b->side_count; s++) {
            const al_side *side = &b->sides[s];
            if (side->face < 0 || !side->winding || side->winding->count < 3) continue;
            if (!reserve((void **) &out->faces, &face_cap, out->face_count + 1,
                         sizeof *out->faces) ||
                !reserve((void **) &out->points, &point_cap,
                         out->point_count + side->winding->count, sizeof *out->points))
                goto done;
            const al_plane *pl = &planes.planes[side->plane];
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
        al_arena_release(arena, mark);
    }
    out->brush_first[n] = out->face_count;
    status = AL_OK;
done:
    al_diag_list_clear(&diags);
    al_arena_destroy(arena);
    if (planes_ok) al_plane_table_free(&planes);
    if (status != AL_OK) al_face_polys_free(out);
    return status;
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
