/* Minimum light: the least light a luxel shows. Quake's light raises every sample of a
 * face to its minimum light after adding up the lights; ericw-tools adds local minlights
 * (lights of "delay" 4), which raise what sees them to their level. Here a floor is not
 * light: it is neither shot nor reflected, and what a luxel shows (snapshots, and
 * al_rad_direct_at for tools) is, channel by channel, the larger of its light and its
 * floor.
 *
 * Entry points: al_rad_compute_floors (once per solver, when its patches are laid) and
 * al_rad_floor_at (at any point, for al_rad_direct_at). Workload: a pass over the luxels;
 * a ray per luxel and local minlight whose PVS row holds the luxel's leaf.
 */
#include "rad-internal.h"

#include "al-parallel.h"
#include "al-vec3.h"
#include "vis/vis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 1024 /* luxels per parallel job */

static bool in_row(const uint64_t *row, int32_t cluster)
{
    return !row || cluster < 0 || al_bit_test(row, cluster);
}

void al_rad_floor_at(const al_rad *rad, int32_t face, const rad_point *p, int style, float out[3])
{
    out[0] = out[1] = out[2] = 0;
    const al_input *in = rad->input;
    int32_t entity = 0;
    if (face >= 0) {
        int32_t b = rad->faces[face].brush;
        entity = in->brushes[b].entity;
    }
    if (rad->entity_minlight && entity >= 0 && entity < in->entity_count && style <= 0) {
        double dim = rad->dirt.minlight && p->occlusion > 0
                         ? al_rad_dirt_factor(rad, NULL, p->occlusion)
                         : 1;
        for (int k = 0; k < 3; k++) out[k] = (float) (rad->entity_minlight[entity][k] * dim);
    }
    for (int32_t i = 0; i < rad->floor_light_count; i++) {
        const rad_light *l = &rad->floor_lights[i];
        if (style >= 0 && l->style != style) continue;
        if (!in_row(al_rad_pvs_row(rad, l->cluster), p->cluster)) continue;
        double to[3];
        al_sub(l->origin, p->x, to);
        if (al_dot(to, p->n) <= 0) continue; /* behind the face: it cannot see the light */
        double level = l->level;
        if (l->dirt && p->occlusion > 0) level *= al_rad_dirt_factor(rad, l, p->occlusion);
        bool higher = false;
        for (int k = 0; k < 3; k++) higher |= level * l->colour[k] > out[k];
        if (!higher || !al_rad_ray(rad, p->from, l->origin, NULL)) continue;
        for (int k = 0; k < 3; k++) out[k] = fmaxf(out[k], (float) (level * l->colour[k]));
    }
}

static void floor_job(void *context, int index, int worker)
{
    (void) worker;
    al_rad *rad = context;
    int32_t a = index * CHUNK, b = a + CHUNK < rad->luxel_count ? a + CHUNK : rad->luxel_count;
    for (int32_t j = a; j < b; j++) {
        rad_point p;
        al_rad_luxel_point(rad, j, &p);
        al_rad_floor_at(rad, rad->luxel_face[j], &p, AL_RAD_ALL_STYLES, rad->floor[j]);
    }
}

al_status al_rad_compute_floors(al_rad *rad)
{
    free(rad->floor);
    rad->floor = NULL;
    bool any = rad->floor_light_count > 0;
    for (int32_t e = 0; e < rad->input->entity_count && !any; e++)
        for (int k = 0; k < 3; k++) any |= rad->entity_minlight[e][k] > 0;
    if (!any || rad->luxel_count == 0) return AL_OK;
    rad->floor = malloc((size_t) rad->luxel_count * sizeof *rad->floor);
    if (!rad->floor) return AL_ERR_NOMEM;
    al_parallel_for((rad->luxel_count + CHUNK - 1) / CHUNK, al_rad_threads(rad), floor_job, rad);
    return AL_OK;
}
