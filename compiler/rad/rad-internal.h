/* Radiosity internals: the patch layout (patches.c), light sources (lights.c), form
 * factors (ff.c) and the shooting solver (solver.c). Not part of the public API
 * (al-rad.h). */
#ifndef AL_RAD_INTERNAL_H
#define AL_RAD_INTERNAL_H

#include "al-faces.h"
#include "al-rad.h"
#include "core/cell-index.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define AL_RAD_MAX_POLY 160   /* points of a polygon the kernel takes (more are dropped) */
#define AL_RAD_MAX_LUXELS 512 /* per face side; a larger face gets bigger luxels */
#define AL_RAD_BATCH 8 /* shooter panels per pass (at most 8: a byte of row bits) */
#define AL_RAD_PANEL 4 /* groups per panel side; a quad is a quarter of a panel */
#define AL_RAD_SAMPLE_OFFSET 1.0 /* sample points lie this far in front of their face */
#define AL_RAD_DOME 64 /* suns making up the sky dome of "_sunlight2" */

/* Keeps the part of POLY in front of the plane through P with normal N, into OUT (at most
 * MAX points). Returns the point count (0 if nothing is in front). */
int al_rad_clip_front(const double p[3], const double n[3], const double (*poly)[3], int count,
                      double (*out)[3], int max);

/* Lambert's formula for a polygon wholly in front of dA (no clipping). */
double al_rad_lambert(const double p[3], const double n[3], const double (*poly)[3], int count);

typedef struct rad_face {
    int32_t brush, face, material;
    double normal[3], dist;
    int axis, axis_u, axis_v; /* dominant axis; the grid runs along the other two */
    double luxel;             /* edge of a luxel in units along axis_u / axis_v */
    double u0, v0;            /* corner of luxel (0, 0) */
    int w, h;                 /* luxels */
    int32_t first_slot;       /* slots of the grid: luxel index or -1, row by row */
    int atlas_x, atlas_y;     /* its rectangle, (w + 2) x (h + 2) with the border */
    int32_t live;             /* luxels taking part */
    float reflectance[3];
    float emission[3];
} rad_face;

typedef struct rad_group {
    int32_t face;
    int32_t first_luxel, luxel_count; /* into rad.group_luxels */
    int32_t first_point, point_count; /* its polygon, into rad.group_points */
    double centre[3];                 /* centroid of the polygon */
    double radius;                    /* of its bounding sphere about centre */
    double area;                      /* of its live luxels */
    double polygon_area;              /* of its polygon (dead luxels included) */
    int32_t target;                   /* a luxel near the centre: where far rays aim */
    int32_t aims[4];                  /* luxels spread over it: where near rays aim */
    int aim_count;
    int32_t first_cluster, cluster_count; /* distinct clusters of its luxels */
} rad_group;

/* A panel: up to AL_RAD_PANEL x AL_RAD_PANEL neighbouring groups of one face, shot
 * together, in four quads of a quarter of that. Far away a panel or a quad is one disc
 * (solver.c). Quads use the same struct, without quads of their own. */
typedef struct rad_panel {
    int32_t face;
    int32_t first_group, group_count; /* into rad.panel_groups */
    int32_t first_quad, quad_count;   /* into rad.quads */
    double centre[3];                 /* area-weighted centre of its groups */
    double radius;                    /* of a sphere about centre holding its groups */
    double area;
    int32_t target; /* a luxel near the centre: where far rays aim */
} rad_panel;

typedef enum rad_light_kind { RAD_POINT, RAD_SPOT, RAD_SUN } rad_light_kind;

typedef struct rad_light {
    rad_light_kind kind;
    int32_t entity;
    double origin[3];
    double level;     /* Quake light level */
    double wait;      /* distance scale */
    int delay;        /* falloff kind */
    float colour[3];  /* 0..1 */
    double dir[3];    /* spot: where it points; sun: the direction light travels */
    double cos_outer, cos_inner;
    double range;     /* beyond this the light adds less than a level; INFINITY: none */
    int32_t cluster;  /* vis leaf of the origin, -1 if none */
    bool dome;        /* one of the sky dome's suns */
} rad_light;

/* Parses the light sources of INPUT (light* entities, the worldspawn sun, and last the
 * AL_RAD_DOME suns of the sky dome if it has one), warning about bad keys in DIAGS. Returns the count and a malloc'd array in *OUT, or -1 if memory
 * runs out. */
int al_rad_parse_lights(const al_world *world, const al_input *input, rad_light **out,
                        al_diag_list *diags);

/* Direct light level (before colour) of L at a point at distance D, lit at cosine COS from
 * the face normal (Quake's 0.5 + 0.5 cos), and the spot cone for direction TO_POINT (unit,
 * from the light). */
double al_rad_light_value(const rad_light *l, double d, double cos_angle, const double to_point[3]);

/* Sky brushes, where sunlight comes from: a sun ray must tell them apart when it hits one.
 * (Clip brushes need no such care: the light trees leave them out.) */
typedef struct rad_sky {
    int32_t brush;
} rad_sky;

struct al_rad {
    const al_world *world;
    const al_input *input;
    al_rad_options options;
    al_face_polys polys;

    /* faces with lightmaps */
    rad_face *faces;
    int32_t face_count;
    int32_t *face_of_poly; /* per al_face_polys face: index into faces, or -1 */
    int32_t *slots;        /* grid slots of all faces */

    /* luxels */
    int32_t luxel_count;
    double (*point)[3];  /* sample points */
    float (*normal)[3];
    float *area;
    int32_t *luxel_face;
    int32_t *luxel_cluster; /* vis leaf of the sample point, -1 if none */
    int32_t *luxel_group;
    float (*incident)[3]; /* light arrived (direct + shot), no ambient */
    float (*unshot)[3];   /* exitance not yet shot */

    /* receivers by cluster (CSR); cluster_count + 1 lists, the last for luxels in no
     * cluster, which every shot considers */
    int32_t cluster_count;
    int32_t *cluster_first;
    int32_t *cluster_luxels;

    /* shooters */
    rad_group *groups;
    int32_t group_count;
    int32_t *group_luxels;
    double (*group_points)[3];
    int32_t *group_clusters;
    double *group_power; /* unshot power (mean of the channels x area) */
    rad_panel *panels;
    int32_t panel_count;
    rad_panel *quads;
    int32_t quad_count;
    int32_t *panel_groups;
    int32_t *group_panel;
    double *panel_power; /* the sum of its groups' */

    /* lights */
    rad_light *lights;
    int32_t light_count;
    int32_t dome_count; /* the last lights: the sky dome's */
    int32_t lights_shot;

    /* special brushes for rays */
    rad_sky *skies;
    int32_t sky_count;
    al_cell_index sky_index;

    /* atlas */
    int atlas_w, atlas_h;
    int32_t *texel_luxel; /* per texel: the luxel it shows, -1 for none */

    /* totals */
    double emitted, absorbed, escaped;
    double total_area;
    double mean_reflectance[3]; /* area weighted */
    int64_t shots, rays;
    double ms;

    pthread_mutex_t lock; /* guards incident/unshot commits against snapshots and stats */
    atomic_bool cancel;

    /* per-pass scratch */
    float (*delta)[3]; /* light received in the current pass: AL_RAD_BATCH rows of a value
                          per luxel, one row per shooter of the pass */
    uint64_t *mask;    /* cluster bitset of the pass */
    int32_t *receivers;   /* receiver groups of the pass */
    int32_t *group_stamp; /* per group: the pass that listed it */
    double *commit_kept;  /* per receiver group of a pass: power it keeps to shoot */
    uint8_t *group_rows;  /* per group: bit s set if row s of the pass's deltas reached it */
    int32_t stamp;
};

/* Layout: faces, luxels, groups and the atlas (patches.c). Returns AL_OK or
 * AL_ERR_NOMEM. */
al_status al_rad_layout(al_rad *rad, al_diag_list *diags);

/* Sky brushes, indexed for sun rays (patches.c). */
bool al_rad_index_skies(al_rad *rad);

/* Casts a ray from A to B through the world's light trees: true if nothing blocks it.
 * Clip brushes do not block light. When SKY_HIT is not NULL the ray is a sun ray: it returns true only if
 * the first thing it meets is a sky brush (then *SKY_HIT is set). */
bool al_rad_ray(const al_rad *rad, const double a[3], const double b[3], bool *sky_hit);

/* Times COUNT occlusion rays on the calling thread between random pairs of luxels whose
 * clusters see each other (the rays radiosity casts); returns nanoseconds per ray and the
 * number blocked in *BLOCKED. For allium-bench. */
double al_rad_time_rays(al_rad *rad, int64_t count, uint64_t seed, int64_t *blocked);

#endif
