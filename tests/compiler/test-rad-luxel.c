/* The map's luxel size (worldspawn "allium_luxel_size", or ericw-tools' "_lightmap_scale")
 * against closed forms on a sealed box room whose sides are multiples of every size: the
 * live luxels are exactly the room's inner area over the luxel's area, and the direct
 * light's power on them (the solver's emitted power once the lamp is shot: light times
 * area, summed) is the same integral at every size, within the quadrature's error. */
#include "al-rad.h"
#include "check.h"
#include "mapgen.h"
#include "scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 256.0
#define D 192.0
#define H 128.0

/* The room, its worldspawn with KEY set to VALUE (KEY NULL: none) and, with KEY2, KEY2 set
 * to VALUE2 too; a lamp of linear falloff off its centre. */
static mapgen *box_room(const char *key, const char *value, const char *key2, const char *value2)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    if (key) mapgen_key(g, key, value);
    if (key2) mapgen_key(g, key2, value2);
    mapgen_box(g, -16, -16, -16, W + 16, D + 16, 0, "stone");
    mapgen_box(g, -16, -16, H, W + 16, D + 16, H + 16, "stone");
    mapgen_box(g, -16, -16, 0, 0, D + 16, H, "stone");
    mapgen_box(g, W, -16, 0, W + 16, D + 16, H, "stone");
    mapgen_box(g, 0, -16, 0, W, 0, H, "stone");
    mapgen_box(g, 0, D, 0, W, D + 16, H, "stone");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "light");
    mapgen_keyf(g, "origin", "%g %g %g", W * 0.4, D * 0.55, H * 0.6);
    mapgen_key(g, "light", "300");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", W / 2, D / 2, 32);
    return g;
}

typedef struct sized {
    int patches;
    double power; /* of the direct light */
    int warnings;
} sized;

static void light_room(mapgen *g, double option, sized *result)
{
    sized out = {0};
    *result = out;
    scene s;
    REQUIRE(scene_load_mapgen(&s, g, &(scene_options){.pvs = true, .pvs_level = AL_PVS_TIGHT}));
    al_rad *rad = NULL;
    al_diag_list d = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input,
                          &(al_rad_options){.luxel_size = option, .no_ambient = true}, &rad,
                          &d) == AL_OK);
    for (size_t k = 0; k < d.count; k++)
        out.warnings += d.items[k].severity == AL_SEVERITY_WARNING && d.items[k].line > 0 &&
                        strstr(d.items[k].message, "_lightmap_scale") != NULL;
    REQUIRE(al_rad_step(rad, 1) == 1);
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    out.patches = st.patches;
    out.power = st.emitted;
    al_rad_destroy(rad);
    al_diag_list_clear(&d);
    scene_free(&s);
    *result = out;
}

CHECK_TEST(counts, "/rad/luxel-size/luxel-counts-scale-and-light-is-conserved")
{
    const char *sizes[] = {"32", "16", "8", "4"};
    const char *keys[] = {"allium_luxel_size", "_lightmap_scale"};
    double power16 = 0;
    sized r[2][4];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 4; i++) {
            double s = atof(sizes[i]);
            light_room(box_room(keys[k], sizes[i], NULL, NULL), 0, &r[k][i]);
            int want = (int) lround(2 * (W * D + W * H + D * H) / (s * s));
            CHECK_MSG(r[k][i].patches == want, "%s %s: %d luxels, want %d", keys[k], sizes[i],
                      r[k][i].patches, want);
            if (i == 1 && k == 0) power16 = r[k][i].power;
        }
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 4; i++) {
            CHECK_MSG(fabs(r[k][i].power - power16) <= 0.01 * power16,
                      "%s %s: direct power %.6g, at 16 units %.6g", keys[k], sizes[i],
                      r[k][i].power, power16);
            check_note("%s %s: %d luxels, direct power %.6g (%+.3f%% of 16's)", keys[k], sizes[i],
                       r[k][i].patches, r[k][i].power, 100 * (r[k][i].power / power16 - 1));
        }
    /* The Allium key wins over ericw-tools'; the option over both; a bad value warns. */
    sized both, opt, bad;
    light_room(box_room("allium_luxel_size", "32", "_lightmap_scale", "8"), 0, &both);
    CHECK_MSG(both.patches == r[0][0].patches, "both keys: %d luxels", both.patches);
    light_room(box_room("_lightmap_scale", "8", NULL, NULL), 16, &opt);
    CHECK_MSG(opt.patches == r[0][1].patches, "the option: %d luxels", opt.patches);
    light_room(box_room("_lightmap_scale", "0", NULL, NULL), 0, &bad);
    CHECK_MSG(bad.warnings == 1 && bad.patches == r[0][1].patches,
              "a bad _lightmap_scale: %d "
              "warnings, %d luxels",
              bad.warnings, bad.patches);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
