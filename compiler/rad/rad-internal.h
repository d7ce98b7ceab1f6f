/* Radiosity internals: the patch layout (patches.c), light sources (lights.c), form
 * factors (ff.c) and the shooting solver (solver.c). Not part of the public API
 * (al-rad.h). */
#ifndef AL_RAD_INTERNAL_H
#define AL_RAD_INTERNAL_H

#include "al-faces.h"
#include "al-rad.h"
#include "core/cell-index.h"
#include "trace/rays.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define AL_RAD_MAX_POLY 160   /* points of a polygon the kernel takes (more are dropped) */
#define AL_RAD_MAX_LUXELS 512 /* per face side; a larger face gets bigger luxels */
#define AL_RAD_BATCH 8 /* shooter panels per pass (at most 8: a byte of row bits) */
#define AL_RAD_PANEL 4 /* groups per panel side; a quad is a quarter of a panel */
#define AL_RAD_SAMPLE_OFFSET 1.0 /* sample points lie this far in front of their face */
#define AL_RAD_DOME          65  /* suns making up a sky dome ("_sunlight2", "_sunlight3") */
#define AL_RAD_PENUMBRA      16  /* suns making up a sun with a penumbra */
#define AL_RAD_SURFACE_STEP  128.0 /* surface lights: faces are cut at multiples of this */
#define AL_RAD_MAX_EXTRA     4     /* sub-grid side of the direct light's samples (4 x 4) */
#define AL_RAD_MAX_SAMPLES   (AL_RAD_MAX_EXTRA * AL_RAD_MAX_EXTRA)

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
    double level;      /* Quake light level (a _deviance copy's share; worldspawn _range in) */
    double wait;       /* distance scale: "wait" times worldspawn "_dist" */
    int delay;         /* falloff: 0 linear, 1 inverse, 2 inverse square, 3 none, 4 local
                          minlight (a floor, see rad_lights.floors), 5 inverse square from 1 */
    double falloff;    /* "_falloff": the distance where a linear light ends (wait unused);
                          0: none */
    double anglescale; /* share of the light the angle of incidence scales: a face lit at
                          cosine c gets (1 - anglescale) + anglescale c of it */
    float colour[3];   /* 0..1 for white and below (a _color above 255 is brighter) */
    double dir[3];     /* spot: where it points; sun: the direction light travels */
    double cos_outer, cos_inner; /* spot: cosines of half the cone and half its full-light
                                    core (_softangle); equal: Quake's hard edge */
    double range;     /* beyond this the light adds less than a level; INFINITY: none */
    int32_t cluster;  /* vis leaf of the origin, -1 if none */
    bool dome;        /* one of a sky dome's suns */
    int style;        /* Quake's lightmap style: 0 steady, else the "style" key, or from 32
                         up one per targetname for lights a trigger switches */
    bool dirt;        /* dimmed by dirt (rad_dirt) */
    float dirt_scale, dirt_gain; /* its own "_dirtscale", "_dirtgain"; 0: the worldspawn's */
} rad_light;

/* Dirtmapping, ericw-tools' ambient occlusion on the direct light (dirt.c), from the
 * worldspawn's keys. */
typedef struct rad_dirt {
    bool used;          /* some light, sun or minimum light takes it: occlusion is computed */
    bool random;        /* "_dirtmode" 1: random directions per point; 0: 48 fixed ones */
    double depth;       /* "_dirtdepth": how far the rays look for occluders (default 128) */
    double scale, gain; /* "_dirtscale", "_dirtgain" (default 1 and 1) */
    double angle;       /* "_dirtangle": half the cone of the rays, degrees (default 88) */
    bool minlight;      /* "_minlight_dirt": the minimum light takes it (default "_dirt") */
} rad_dirt;

/* The light sources of a map, as al_rad_parse_lights reads them. */
typedef struct rad_lights {
    rad_light *lights; /* malloc'd: lamps, spots and suns, then the sky domes' suns */
    int32_t count;
    int32_t dome_count; /* the last DOME_COUNT of LIGHTS */
    rad_light *floors;  /* malloc'd: lights of "delay" 4, which shoot nothing but raise what
                           sees them to their level (ericw-tools' local minlight) */
    int32_t floor_count;
    float (*minlight)[3]; /* malloc'd, per entity: the least light faces of its brushes show
                             (_minlight x _mincolor, worldspawn's where it sets none) */
    uint8_t *no_dirt;     /* malloc'd, per entity: its faces take no dirt ("_dirt" "-1") */
    rad_dirt dirt;
} rad_lights;

/* Parses the light sources of INPUT (light* entities, surface lights over the faces of
 * POLYS, the worldspawn sun and last the suns of the sky domes) and the minimum light of
 * its entities into OUT, warning about bad keys in DIAGS (naming the entity and its
 * line). Returns false if memory runs out (OUT is then empty). */
bool al_rad_parse_lights(const al_world *world, const al_input *input, const al_face_polys *polys,
                         rad_lights *out, al_diag_list *diags);

/* Frees what OUT holds and empties it. */
void al_rad_lights_free(rad_lights *lights);

/* Direct light level (before colour) of L at a point at distance D from a face lit at
 * cosine COS_ANGLE (from its normal), and in the spot cone for direction TO_POINT (unit,
 * from the light): the falloff of its delay, the angle scale and the cone. Zero for a
 * face the light is behind. */
double al_rad_light_value(const rad_light *l, double d, double cos_angle, const double to_point[3]);

/* Sky brushes, where sunlight comes from: a sun ray must tell them apart when it hits one.
 * (Clip brushes need no such care: the light trees leave them out.) */
typedef struct rad_sky {
    int32_t brush;
} rad_sky;

typedef struct al_ray_log al_ray_log; /* a sample of the rays cast (patches.c) */

struct al_rad {
    const al_world *world;
    al_ray_tree ray_tree; /* the world's light trees, flat, for the rays (trace/rays.h) */
    al_ray_log *ray_log;  /* owned; NULL unless al_rad_log_rays */
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
    int32_t *luxel_slot; /* its slot in its face's grid, from the face's first_slot */
    /* Antialiased direct light: each luxel takes it at the centres of an EXTRA x EXTRA
     * sub-grid of its cell, those on the face and out of solid (bit a + EXTRA b of
     * SUB_MASK for sub-cell (a, b)); a luxel none of whose centres qualifies, or any
     * luxel when EXTRA is 1, takes it at its sample point. */
    int extra;
    uint16_t *sub_mask;
    float (*incident)[3]; /* light arrived (direct + shot), no ambient */
    float (*unshot)[3];   /* exitance not yet shot; below zero where an edit took light
                             away that was reflected on (al_rad_update) */
    float (*direct)[3];   /* the part of incident that came straight from light sources */

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
    double (*group_unshot)[3]; /* per channel: its luxels' unshot exitance x area, summed */
    double *group_power;       /* what picking and the residual go by: the mean over the
                                  channels of |group_unshot| */
    float (*sent)[3];          /* exitance each group has shot so far, as its receivers
                                  got it (scaled down with the shot when it overshot): the
                                  light a group gave is the kernel times this, which is what
                                  lets an edit correct it (al_rad_update) */
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
    int32_t dome_count;      /* the last lights: the sky domes' */
    rad_light *floor_lights; /* delay 4 (rad_lights.floors) */
    int32_t floor_light_count;
    float (*entity_minlight)[3]; /* per input entity (rad_lights.minlight) */
    uint8_t *entity_no_dirt;     /* per input entity (rad_lights.no_dirt) */
    rad_dirt dirt;
    float *occlusion; /* per luxel, 0..1 (dirt.c); NULL unless dirt.used */
    /* Per luxel: the least light it shows, its face's minimum light or a local minlight it
     * sees (minlight.c); NULL when every floor is zero. */
    float (*floor)[3];
    int32_t lights_shot;
    uint8_t *light_shot; /* per light: its direct light is in (lights are shot in order, but
                            after an update only the new ones are left) */

    /* special brushes for rays */
    rad_sky *skies;
    int32_t sky_count;
    al_cell_index sky_index;
    /* Per vis leaf, a bit: its PVS row holds a vis leaf with a face of a sky brush, so a
     * sun ray from it may end on sky (al_rad_find_sky_leaves). NULL: every leaf may (no
     * PVS). */
    uint64_t *sees_sky;

    /* atlas */
    int atlas_w, atlas_h;
    int32_t *texel_luxel; /* per texel: the luxel it shows, -1 for none */
    struct rad_shelf *shelves; /* rows of the atlas faces are packed into (patches.c) */
    int32_t shelf_count;

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
    double (*commit_kept)[3]; /* per receiver group of a pass: power it keeps to shoot */
    uint8_t *group_rows;  /* per group: bit s set if row s of the pass's deltas reached it */
    int32_t stamp;

    /* Per brush with polygons, sorted: its content's key and its index, as pairs
     * (update.c: what an edit changed is found by comparing two solvers' lists). Made once,
     * when an update first compares the solver; NULL until then. */
    uint64_t *brush_keys;

    /* Corrections an update left to do (update.c); NULL when there are none. */
    struct rad_fix *fix;
    struct rad_reuse *reuse; /* borrowed, only while an update lays out the patches */
};

/* The first half of al_rad_create: checks, the solver and the face polygons (rad.polys).
 * The second lays out the patches and the lights; on failure the caller destroys RAD. */
al_status al_rad_begin(const al_world *world, const al_input *input, const al_rad_options *opts,
                       al_rad **out, al_diag_list *diags);
al_status al_rad_finish(al_rad *rad, al_diag_list *diags);

/* A panel being shot: its groups with the exitance each gives off. */
typedef struct rad_shooter {
    int32_t panel;
    int group_count;
    int32_t groups[AL_RAD_PANEL * AL_RAD_PANEL]; /* as the panel lists them */
    float power[AL_RAD_PANEL * AL_RAD_PANEL][3]; /* per group, per channel */
    float mean[3];         /* over the panel: its power / its area */
    float quad_mean[4][3]; /* the same per quad */
    uint64_t *mask;        /* union of its clusters' PVS rows, or NULL: sees everything */
} rad_shooter;

/* What a shooter gave a receiver group. */
typedef struct rad_gain {
    double power; /* the light received times area, summed */
    bool wrote;   /* anything was added to the receiver's luxels */
} rad_gain;

/* The light shooter SH gives receiver group R, into LOCAL[k] for the k-th luxel of R's
 * list (added; LOCAL has room for R's luxels), and its power times area to GAIN (whose
 * WROTE is set if anything was added). Nothing if R is on the shooter's face or its PVS
 * says R cannot see it. Returns the rays cast. The kernel is linear in the shooter's
 * powers: what a group's shots gave in all is this for its summed exitance (rad.sent). */
int64_t al_rad_panel_onto(const al_rad *rad, const rad_group *r, const rad_shooter *sh,
                          float (*local)[3], rad_gain *gain);

/* The PVS gate of the kernel: whether a vis leaf of R is in SH's mask, without which
 * al_rad_panel_onto gives R nothing. */
bool al_rad_group_sees(const al_rad *rad, const rad_group *r, const rad_shooter *sh);

/* Adds LOCAL (per luxel of R's list, as al_rad_panel_onto gives it) to ROW (per luxel of
 * the solver); true if anything was not zero. */
bool al_rad_add_local(const al_rad *rad, const rad_group *r, const float (*local)[3],
                      float (*row)[3]);

/* The group and panel powers anew from the luxels' unshot light. */
void al_rad_recompute_powers(al_rad *rad);

/* Adds ADD (unshot light x area, per channel) to group G's unshot power, and its power to
 * its panel's. The caller holds the lock. */
void al_rad_add_unshot(al_rad *rad, int32_t g, const double add[3]);

/* Fills SH with panel PANEL giving off the exitance EXITANCE[g] per group (rad.sent, or
 * a copy), and MASK (room for the PVS row words, or NULL) as its PVS mask. False if the
 * panel gives off nothing. */
bool al_rad_shooter_of(const al_rad *rad, int32_t panel, const float (*exitance)[3],
                       uint64_t *mask, rad_shooter *sh);

/* The direct light light L (PVS row ROW, NULL: none) gives luxel J, into OUT: the mean over
 * its samples (al_rad_luxel_samples), or with ONCE its sample point's alone (what a solver
 * sampling once gives it, to the last bit). EXTENT is a length beyond the world (the reach
 * of a sun ray). Returns the rays cast (up to one per sample). */
int al_rad_light_at(const al_rad *rad, const rad_light *l, const uint64_t *row, int32_t j,
                    double extent, bool once, float out[3]);

/* A point of a face where light is taken. */
typedef struct rad_point {
    double x[3];     /* on the face: falloff and angle are taken from here */
    double from[3];  /* a unit off it (a luxel's sample point): rays start here */
    double n[3];     /* the face's unit normal */
    int32_t cluster; /* vis leaf of FROM, -1 if none */
    float occlusion; /* dirt.c; 0 without dirt */
} rad_point;

/* Luxel J as a rad_point. */
void al_rad_luxel_point(const al_rad *rad, int32_t j, rad_point *out);

/* The points luxel J takes direct light at (rad.sub_mask), into OUT (room for
 * AL_RAD_MAX_SAMPLES); returns how many (at least 1). Its direct light is their mean. */
int al_rad_luxel_samples(const al_rad *rad, int32_t j, rad_point *out);

/* The centre of sub-cell (A, B) of the EXTRA x EXTRA sub-grid of slot SLOT (from the first
 * slot) of face F, on the face's plane, into OUT. */
void al_rad_sub_point(const rad_face *f, int extra, int32_t slot, int a, int b, double out[3]);

/* Adds the direct light of L (PVS row ROW, NULL: none) to SUM at point P: its falloff,
 * angle, cone and dirt, if a ray from P->from reaches the light (for a sun: a sky face
 * along its direction, EXTENT away at most). Returns the rays cast (0 or 1). */
int al_rad_light_add(const al_rad *rad, const rad_light *l, const uint64_t *row, const rad_point *p,
                     double extent, float sum[3]);

/* The floor (minimum light) at point P of face FACE (an index into rad.faces, or -1 for
 * none: the worldspawn's minimum) into OUT: the face's entity's minimum light, raised to
 * every local minlight that sees it (minlight.c), each dimmed by dirt if it takes it. With
 * STYLE >= 0, only what Quake's lightmap of that style holds: the minimum light in style
 * 0's, local minlights in their own style's. */
void al_rad_floor_at(const al_rad *rad, int32_t face, const rad_point *p, int style, float out[3]);

/* How much of the dirt rays from FROM off a face of unit normal N meet something near
 * (dirt.c): 0 in the open, towards 1 deep in a corner. SEED picks the random rays of
 * "_dirtmode" 1. */
float al_rad_occlusion_at(const al_rad *rad, const double from[3], const double n[3],
                          uint64_t seed);

/* The seed of al_rad_occlusion_at for a point at P: the same for the same point. */
uint64_t al_rad_point_seed(const double p[3]);

/* Whether face FACE (of rad.faces) belongs to an entity whose faces take no dirt. */
bool al_rad_face_no_dirt(const al_rad *rad, int32_t face);

/* What dirt leaves of light L (NULL: the minimum light) at OCCLUSION: 1 - (occlusion ^
 * gain) x scale, within 0..1 (ericw-tools' rule). */
double al_rad_dirt_factor(const al_rad *rad, const rad_light *l, double occlusion);

/* rad.occlusion for every luxel (taken from the solver before an edit where the edit is
 * too far to change it, rad.reuse). AL_OK or AL_ERR_NOMEM. */
al_status al_rad_compute_occlusion(al_rad *rad);

/* rad.floor from the lights and the entities' minimum light. AL_OK or AL_ERR_NOMEM. */
al_status al_rad_compute_floors(al_rad *rad);

/* The PVS row of vis leaf CLUSTER of RAD's world, or NULL (no PVS, or no leaf). */
const uint64_t *al_rad_pvs_row(const al_rad *rad, int32_t cluster);

/* A length longer than any ray inside RAD's world: where sun rays end. */
double al_rad_sun_reach(const al_rad *rad);

/* Commits the per-worker delta rows 0 .. ROWS-1 (as group_rows marks them) to the
 * luxels: incident and unshot light, group powers and the books (absorbed). The caller
 * holds the lock. Returns the power received. */
double al_rad_commit_rows(al_rad *rad, int rows);
/* Clears the uncommitted deltas of every group (rows 0 .. ROWS-1): a dropped pass or step.
 * Under the lock. */
void al_rad_drop_rows(al_rad *rad, int rows);

/* Worker threads the solver uses. */
int al_rad_threads(const al_rad *rad);

/* --- corrections after an edit (update.c) ---------------------------------------- */

/* Does up to a few milliseconds of the corrections an update left (the lock is not held).
 * Returns the corrections made, 0 if there were none left or a cancel stopped the step
 * (the first step builds the receivers' tree: a cancel stops that too). */
int64_t al_rad_fix_step(al_rad *rad);

/* Whether corrections are left and the receivers' tree for them is built (the stepping
 * thread's view). */
bool al_rad_fix_has_tree(const al_rad *rad);

/* Corrections left (0 without any); the lock is held. */
int64_t al_rad_fix_left(const al_rad *rad);

/* Luxels an update lit at their sample point alone (rad.extra > 1) still to light with
 * every sample; the lock is held. */
int32_t al_rad_coarse_left(const al_rad *rad);

/* Those luxels (into *LUXELS, valid until the next step; NULL when none); how many. For
 * tests. */
int32_t al_rad_coarse_luxels(const al_rad *rad, const int32_t **luxels);

/* Frees the corrections (the base is no longer needed). */
void al_rad_fix_free(struct rad_fix *fix);

/* A box of space an edit changed (a brush's bounds, grown). */
typedef struct rad_box {
    double lo[3], hi[3];
} rad_box;

/* Joins BOXES[0, COUNT) until at most MAX are left, each the union of some of them (every
 * point of an input box stays in a box): the pair whose union grows the least over the
 * two first. Returns the count left (update.c). */
int al_rad_merge_boxes(rad_box *boxes, int count, int max);

/* Does the segment from P to Q touch box X? (Slabs; update.c.) */
bool al_rad_segment_meets(const double p[3], const double q[3], const rad_box *x);

/* What a solver built by al_rad_update may take from the one before it when laying out its
 * patches (update.c): faces whose grid and polygon are the base's and that no changed
 * brush comes near keep the base's luxels. */
typedef struct rad_reuse {
    const al_rad *base;
    const rad_box *boxes;
    int box_count;
    int32_t *face;  /* per face of the new solver: the base's face to copy, -1 (update.c) */
    int32_t *place; /* per face: a base face with the same grid, whose place in the atlas it
                       takes over (near an edit too: its luxels may change, not its size);
                       -1 (update.c) */
    int32_t *cluster; /* per vis leaf (cluster) of the base: the same leaf in the new world
                         when its block's vis tree is shared, else -2; NULL: none (update.c) */
    int32_t cluster_count;
} rad_reuse;

/* A row of the atlas: faces of at most HEIGHT texels are packed side by side along it,
 * up to X_END. */
typedef struct rad_shelf {
    int y, height, x_end;
} rad_shelf;

/* Fills rad.reuse->face once the faces' grids are laid (before their slots are sampled).
 * False if memory runs out. */
bool al_rad_reuse_faces(al_rad *rad);

/* Layout: faces, luxels, groups and the atlas (patches.c). Returns AL_OK or
 * AL_ERR_NOMEM. */
al_status al_rad_layout(al_rad *rad, al_diag_list *diags);

/* Sky brushes, indexed for sun rays (patches.c). */
bool al_rad_index_skies(al_rad *rad);

/* Fills RAD's sees_sky from its world's PVS and faces in vis leaves (patches.c). False if
 * memory runs out. */
bool al_rad_find_sky_leaves(al_rad *rad);

/* Whether a sun ray from a point in vis leaf CLUSTER may end on sky: false only where
 * the PVS rules it out (no vis leaf it may see has a face of a sky brush). */
static inline bool al_rad_may_see_sky(const al_rad *rad, int32_t cluster)
{
    return !rad->sees_sky || cluster < 0 ||
           (rad->sees_sky[cluster >> 6] >> (cluster & 63) & 1u) != 0;
}

/* Casts a ray from A to B through the world's light trees: true if nothing blocks it.
 * Clip brushes do not block light. When SKY_HIT is not NULL the ray is a sun ray: it returns true only if
 * the first thing it meets is a sky brush (then *SKY_HIT is set). */
bool al_rad_ray(const al_rad *rad, const double a[3], const double b[3], bool *sky_hit);

/* Whether the ray from A to B, blocked first at T along it (al_ray_hit), meets a sky brush
 * there: what al_rad_ray tells a sun ray, without casting it again. */
bool al_rad_ends_on_sky(const al_rad *rad, const double a[3], const double b[3], double t);

/* Frees a log of al_rad_log_rays (al-rad.h). */
void al_ray_log_free(al_ray_log *log);

#endif
