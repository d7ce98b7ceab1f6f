/* Progressive radiosity: lightmaps a designer steps until they look right.
 *
 * Entry points:
 *   al_rad_create     world + input -> patches (luxels), lightmap atlas, light sources
 *   al_rad_step       shoot N times (the first shots are the light sources: direct light)
 *   al_rad_run        shoot until the residual is small enough or a time budget is spent
 *   al_rad_cancel     from any thread: make a running step or run return at the next shot
 *                     (a pass of light sources is dropped at once)
 *   al_rad_snapshot   from any thread: a consistent copy of the lightmaps, while it runs
 *
 * Patches. Every drawn face (a face of a world or detail brush that a vis leaf lists, or any
 * face of a solid brush model; never sky, liquid, clip, skip or hint faces) is covered by a
 * grid of luxels of LUXEL units (default 16; worldspawn key "allium_luxel_size" for the map,
 * the same key on a brush entity for its brushes, al_face_desc.luxel_size for one face;
 * without it, ericw-tools' "_lightmap_scale" on the same entities).
 * The grid is laid on the face's plane projected along its dominant axis. A luxel's sample
 * point is the centroid of the part of its cell that lies on the face, a unit in front of
 * it; luxels whose sample point lies in solid (the face is covered there) take no part.
 * Direct light is antialiased with EXTRA x EXTRA samples per luxel (al_rad_options.
 * extra_samples, worldspawn key "allium_extra_samples": 1 to 4, default 1; ericw-tools'
 * light -extra is 2, -extra4 is 4): the centres of a sub-grid of the luxel's cell, those
 * that lie on the face and whose point a unit in front of it is not in solid, averaged; a
 * luxel none of whose centres qualifies takes its sample point.
 *
 * Shooters. Luxels form groups of up to AL_RAD_GROUP x AL_RAD_GROUP on one face, groups
 * form panels of up to 4 x 4 groups in four quads. A shot takes a panel: the unshot light
 * of all its luxels leaves at once, spread evenly over each group. Receivers are luxels.
 * A receiver group far from the panel sees it as one disc behind one ray, nearer each
 * quad, nearer still each group: one ray and the disc beyond five group radii, one ray
 * and Lambert's exact formula per luxel within five, and within three rays from each
 * luxel to four points of the group wherever a few rays between the groups disagree
 * (see rad/solver.c for the thresholds).
 *
 * Units are Quake's light levels: a surface lit to 128 shows its material's colour as is,
 * 255 about twice as bright. (Quake's lightmaps hold half a level per step: its light
 * writes level x 0.5, its "-range", into a byte; al_rad_direct_at gives levels.) Light
 * entities (classname light*) read the keys of Quake's light as ericw-tools documents
 * them:
 *   light / _light   level at the source (default 300; 0 gives none; negative is refused)
 *   wait       falloff distance scale (default 1; must be > 0)
 *   delay      falloff, d the distance: 0 linear (light - wait d), 1 inverse
 *              (light 128 / (wait d)), 2 inverse square (light (128 / (wait d))^2), 3
 *              none, 4 local minlight (no falloff, and no light either: what sees it
 *              shows at least light x colour, see rad.floor), 5 inverse square with 1
 *              added to the scaled distance (light / (wait d / 128 + 1)^2)
 *   _falloff   delay 0 only: the distance at which the light ends, light (1 - d /
 *              _falloff), wait unused
 *   _color     "r g b" in 0..255, or 0..1 when no component exceeds 1 (default white)
 *   _anglescale / _anglesense   how much the angle of incidence matters: a face at angle
 *              a gets (1 - s + s cos a) of the light (default the worldspawn's, 0.5)
 *   target / mangle   a spotlight: toward the target entity's origin, or along "yaw
 *              pitch roll" (yaw, then pitch); angle is the cone's full angle (default 40;
 *              _cone, Quake II's, is half of it); _softangle the full angle of a core
 *              that gets all the light, fading to none at the cone (default none: a hard
 *              edge, as in Quake)
 *   _deviance / _samples   _samples copies (default 16) of the light, the light itself
 *              and copies at random points within _deviance units of it (the same every
 *              time the map is read), which soften its shadows; each gets its share of
 *              the level except for delay 0 and 4, where each gets it all (ericw-tools)
 *   _surface   a template, no light itself: a copy of the light over every piece of
 *              each face of that material (faces are cut at multiples of 128 units, as
 *              GLQuake cut its warped faces), _surface_offset units (default 2) off the
 *              face; _surface_spotlight 1 makes each a spot along the face's normal.
 *              Pieces whose light would be in solid (a covered face) get none.
 *   _sun 1     a sun of its level and colour instead of a lamp, along its target or mangle
 *              (default straight down), with _deviance degrees of penumbra
 *   _sunlight2 1 / _sunlight3 1   a sky dome of its level and colour, upper or lower
 *   _dirt      1 or -1: it takes dirt or not, whatever the worldspawn's _dirt says;
 *              _dirtscale, _dirtgain its own (see below)
 *   style      its lightmap style (0-254; a light with a targetname, which a trigger
 *              switches, gets one from 32 up per targetname instead). The solver keeps one
 *              lightmap with every light as it is at full strength; al_rad_direct_at can
 *              give one style's light, as Quake's light writes each style's lightmap.
 * The worldspawn's keys:
 *   _sunlight  a sun's level (default 0: none), _sunlight_color, _sun_mangle (or
 *              _sunlight_mangle) "yaw pitch" of the direction the light travels (default
 *              0 -90: straight down), _sunlight_penumbra degrees (AL_RAD_PENUMBRA suns
 *              spread within it share the level). Sunlight reaches a luxel that sees a
 *              sky face along the sun's direction.
 *   _sunlight2 / _sunlight3, _sunlight2_color (_sunlight_color2) / _sunlight3_color
 *              (_sunlight_color3): sky domes, light from the whole upper or lower sky,
 *              AL_RAD_DOME suns of an equal share of the level, arranged as ericw-tools
 *              arranges them (an upward face under open sky gets 0.78 of the level)
 *   _minlight (or light) and _mincolor (_minlight_color): the least light faces show;
 *              a brush entity's own _minlight (with its _mincolor, else the worldspawn's)
 *              replaces it for its brushes
 *   _dirt 1    dirtmapping (ericw-tools' ambient occlusion) on the direct light of every
 *              light that does not refuse it: 48 rays from a luxel look _dirtdepth units
 *              (128) into a cone of _dirtangle degrees (88) about its normal, at random
 *              with _dirtmode 1; occlusion is 1 - their mean free length / depth, and a
 *              light gives 1 - min(occlusion ^ _dirtgain (1) x _dirtscale (1), 1) of its
 *              light. _sunlight_dirt, _sunlight2_dirt and _minlight_dirt (1 or -1) say it
 *              for the sun, the domes and the minimum light; a brush entity's _dirt -1
 *              keeps it off its faces. See rad/dirt.c.
 *   _anglescale  the default of the light entities' and the suns' angle scale
 *   _dist      scales every light's falloff distance (as wait does one light's)
 *   _range     scales every level by _range / 0.5 (Quake's light writes level x 0.5)
 * Direct light on a luxel is, summed over the sources, level x falloff x angle scale x
 * colour, the falloff and angle taken at the point of the face under the sample point;
 * what the luxel shows is, channel by channel, at least its floor (the minimum light).
 * Floors are not light: they are neither shot nor reflected. An emissive material's
 * emission is the radiosity (light level) its faces give
 * off. Reflectance per colour channel is the material's colour in linear light (the
 * colour is sRGB: 0.5 reflects 21%), times al_material_desc.reflectance / its mean when
 * that is set, never above 0.95.
 *
 * Bookkeeping. Emitted power is the direct light's power on the luxels plus the power of
 * emissive faces. A shot's power that reaches no luxel (into the sky, the void, onto faces
 * without lightmaps) has escaped. Absorbed + escaped + unshot = emitted; the residual is
 * unshot / emitted and never increases. Escaped is what a shot's receivers did not get,
 * so the kernel's sampling error (a percent or two per shot, either way) can make it dip
 * below zero in a closed room. The lightmaps show the incident light plus, until
 * it converges, an ambient term for the unshot power (Cohen et al. 1988).
 *
 * Thread safety: step, run and reset on one thread at a time; cancel, snapshot and
 * stats from any thread while they run. The world and input must outlive the al_rad.
 */
#ifndef AL_RAD_H
#define AL_RAD_H

#include "al-input.h"
#include "al-diag.h"
#include "al-status.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct al_world al_world;
typedef struct al_rad al_rad;

#define AL_RAD_DEFAULT_LUXEL 16.0
#define AL_RAD_GROUP 4 /* shooter groups are up to 4 x 4 luxels */

typedef struct al_rad_options {
    double luxel_size; /* overrides the map's luxel size; 0: the map's, or 16 */
    int extra_samples; /* direct light samples per luxel side, 1 to 4; 0: the map's
                          ("allium_extra_samples"), or 1 */
    int threads;       /* 0: one per CPU */
    bool no_ambient;   /* snapshots without the ambient term */
    const int *cancel; /* al_rad_update: when *CANCEL turns nonzero (read atomically) the
                          correction of the direct light stops and the call returns
                          AL_ERR_CANCELLED with no solver (the sky's suns make it seconds
                          on a large map); NULL: never */
} al_rad_options;

/* Builds the patches and lights of WORLD (compiled from INPUT). Problems with light
 * entities (bad numbers, a missing target, a light inside solid) become warnings in the
 * diagnostics, naming the entity and its line; they never fail the call. Returns AL_OK,
 * AL_ERR_NOMEM or AL_ERR_INVALID_ARGUMENT (a luxel size below 1 or above 1024, extra
 * samples below 0 or above 4). */
al_status al_rad_create(const al_world *world, const al_input *input, const al_rad_options *opts,
                        al_rad **out, al_diag_list *diags);

void al_rad_destroy(al_rad *rad);

/* The solver of WORLD (compiled from INPUT, the map after an edit) with the light of PREV
 * (the solver of the map before it) carried over and corrected for the edit, instead of
 * dark: faces the edit left as they were keep their luxels' light, and only light whose
 * path crosses a brush the edit added, removed or changed, or whose pair of vis leaves the
 * PVS of one world lets see each other and the other's not, is shot again, as the
 * difference (negative where the edit now blocks light; rad/update.c says how).
 *   - At once, in this call: light sources' direct light (added for new faces and lights
 *     that stayed, taken back for lights that are gone; new lights are left unshot).
 *     With extra samples (more than 1 a side) the luxels whose direct light changes are
 *     lit anew at their sample point alone, as a solver sampling once lights them (the
 *     first corrected frame comes sooner); the stats count them as coarse_left.
 *   - In steps, before any further shot (al_rad_step and al_rad_run do them first; the
 *     stats count them as corrections_left): first the coarse luxels are lit with every
 *     sample (their direct light replaced, the difference added to what they reflect);
 *     then the light panels have bounced, corrected for the receivers whose view of them
 *     changed, gathered by new faces, and taken back from panels that are gone.
 * After the corrections the solver holds the light a solver of WORLD would have made had
 * it shot what PREV shot, and shooting goes on from there (what an edit takes away goes
 * on as negative light). PREV may still be running (its state is copied under its lock)
 * and is not changed. PREV NULL: as al_rad_create. Until al_rad_base(*OUT) returns NULL,
 * the solver it names, with its world and input, must stay alive: PREV, or PREV's own
 * base when PREV still had corrections to do (they are then made again, together with
 * this edit's). Errors as al_rad_create, and AL_ERR_CANCELLED (OPTS->cancel). */
al_status al_rad_update(al_rad *prev, const al_world *world, const al_input *input,
                        const al_rad_options *opts, al_rad **out, al_diag_list *diags);

/* The solver whose light RAD is still correcting (see al_rad_update), or NULL once the
 * corrections are done, were never needed, or were dropped by a reset or restore. Any
 * thread. */
const al_rad *al_rad_base(al_rad *rad);

typedef struct al_rad_stats {
    int patches;       /* luxels taking part */
    int shooters;      /* shooter panels (up to 4 x 4 groups of 4 x 4 luxels) */
    int lights;        /* light sources (sun included) */
    int dome_lights;   /* of those, the suns of the sky dome, which are shot last */
    int64_t shots;     /* light sources and panels shot */
    int64_t rays;      /* occlusion rays cast */
    double residual;   /* unshot / emitted; 1 before any light is shot */
    double emitted, absorbed, escaped, unshot; /* power, light level x area */
    double ms;         /* time spent shooting */
    int lights_shot;   /* light sources shot (direct light in) */
    int dome_lights_shot;
    int64_t corrections_left; /* panels whose light an update has still to correct, and
                                 coarse luxels still to light with every sample */
    int64_t coarse_left;      /* luxels whose direct light an update took at their sample
                                 point alone, with extra samples (see al_rad_update) */
    bool direct_done;  /* every light source has been shot */
    bool converged;    /* nothing left to shoot or correct */
} al_rad_stats;

void al_rad_get_stats(al_rad *rad, al_rad_stats *out);

/* Shoots up to SHOTS times (light sources first, then the panel with the most unshot
 * power). Returns the number of shots made: fewer if it converged or was
 * cancelled. */
int64_t al_rad_step(al_rad *rad, int64_t shots);

typedef enum al_rad_stop {
    AL_RAD_STOP_RESIDUAL, /* residual <= target, or nothing left to shoot */
    AL_RAD_STOP_TIME,     /* the time budget ran out */
    AL_RAD_STOP_CANCELLED,
} al_rad_stop;

/* Called after shots during al_rad_run (at most every few milliseconds); return false to
 * stop the run (it then returns AL_RAD_STOP_CANCELLED). */
typedef bool (*al_rad_progress_fn)(void *context, const al_rad_stats *stats);

/* Shoots until the residual is <= RESIDUAL, SECONDS have passed (<= 0: no limit), or it is
 * cancelled. PROGRESS may be NULL. */
al_rad_stop al_rad_run(al_rad *rad, double residual, double seconds, al_rad_progress_fn progress,
                       void *context);

/* Makes a running al_rad_step / al_rad_run return after the current shot (a pause: the
 * next call goes on from there). A pass of light sources (the direct light: the sky's
 * suns take seconds on a large map) is dropped at once rather than finished, and shot
 * again by the next call. Safe from any thread. */
void al_rad_cancel(al_rad *rad);

/* Clears a cancel, so that the next al_rad_step shoots again (a step leaves a cancel set:
 * it returns at once until this or al_rad_run, which clears it as it starts, or
 * al_rad_reset). Safe from any thread. */
void al_rad_resume(al_rad *rad);

/* Back to the state before the first shot. */
void al_rad_reset(al_rad *rad);

/* The solver's state as bytes, for the map's cache of compiled results: the light every
 * luxel has received and has still to shoot, and the energy books, with a fingerprint of
 * the patches they belong to and a checksum. A consistent copy between two shots, taken
 * without stopping a running solver. *BYTES is malloc'd. AL_ERR_NOMEM on failure. */
al_status al_rad_save(al_rad *rad, void **bytes, size_t *size);

/* Puts back a state al_rad_save made of a solver with the same patches (the same world,
 * input and options), so that it goes on from there. Bytes of other patches, of another
 * format, damaged or cut short, or with light levels no solver makes (negative, infinite,
 * NaN) give AL_ERR_CORRUPT and leave the solver as it was. Not
 * while a step or run is in progress. */
al_status al_rad_restore(al_rad *rad, const void *bytes, size_t size);

/* The lightmap atlas: RGB light levels per texel, with a border of a texel around each
 * face's luxels (filled from the nearest luxel) so bilinear filtering does not bleed. */
typedef struct al_rad_lightmap {
    int width, height;
    float (*texels)[3]; /* owned; width * height, row by row */
    int64_t shots;      /* what the copy shows */
    double residual;
    double ambient[3];  /* the ambient term included in the texels (zero without) */
} al_rad_lightmap;

/* A consistent copy of the lightmaps as they are between two shots, without stopping a
 * running solver (it waits at most one shot's commit). AL_ERR_NOMEM on failure. */
al_status al_rad_snapshot(al_rad *rad, al_rad_lightmap *out);
void al_rad_lightmap_free(al_rad_lightmap *map);

/* Where face FACE (input order) of input brush BRUSH lies in the atlas: a point P on the
 * face has atlas coordinates (s, t) = (dot(P, s_axis) + s_offset, dot(P, t_axis) +
 * t_offset), normalised to [0, 1] over the atlas (texel centres at (i + 0.5) / width).
 * False if the face has no lightmap (tool faces, hidden faces, invalid brushes). */
typedef struct al_rad_face_map {
    double s_axis[3], s_offset;
    double t_axis[3], t_offset;
    /* The same in texels (s * width, t * height): these stay the same while the face keeps
     * its place, even when the atlas grows around it (see al_rad_update). */
    double s_texel_axis[3], s_texel_offset;
    double t_texel_axis[3], t_texel_offset;
    int x, y, width, height; /* its rectangle of texels in the atlas, border included */
} al_rad_face_map;

bool al_rad_face(const al_rad *rad, int brush, int face, al_rad_face_map *out);

/* Atlas size (fixed for the al_rad's life). */
void al_rad_atlas_size(const al_rad *rad, int *width, int *height);

/* How far apart the light of two solvers of the same patches is: the mean over their
 * luxels of the difference of incident light (ambient left out, area weighted, all
 * channels), relative to B's mean; -1 if their patches differ in number. For comparing a
 * solver carried across edits with a new one. Takes each solver's lock in turn. */
double al_rad_light_difference(al_rad *a, al_rad *b);

/* Per-luxel values for tests and tools: luxel I's sample point, normal, area, incident
 * light (without ambient) and exitance (emission + reflectance x incident). I in
 * [0, patches). */
typedef struct al_rad_luxel {
    double point[3];
    double normal[3];
    double area;
    int32_t brush, face; /* input brush and face */
    float incident[3];
    float exitance[3];
    float reflectance[3];
    float floor[3]; /* the least it shows: its minimum light (al_rad_direct_at) */
} al_rad_luxel;

bool al_rad_luxel_get(al_rad *rad, int i, al_rad_luxel *out);

/* --- light at any point, for tools --------------------------------------------------- */

#define AL_RAD_ALL_STYLES (-1)

/* The direct light at point P of a face with normal N, as Quake's light computes it at
 * its samples: each light source's falloff, angle scale and cone taken at P, if a ray from
 * P lifted a unit off the face reaches it (a sun: a sky face along its direction), summed
 * and then raised, channel by channel, to P's floor (the minimum light of the entity of
 * the lit face P lies on, or the worldspawn's, and the local minlights that see P). Light
 * levels, into OUT. With STYLE >= 0, only what Quake's light writes into the lightmap of
 * that style: the lights of that style (0: steady; a "style" key; 32 up: switched by a
 * trigger, numbered by targetname as Quake's light numbers them), and the minimum light
 * in style 0's. AL_RAD_ALL_STYLES: every light, as the solver lights the map (it keeps
 * one lightmap). It does not depend on what the solver has shot. Any thread. */
void al_rad_direct_at(const al_rad *rad, const double p[3], const double n[3], int style,
                      float out[3]);

/* What lightmap MAP (a snapshot of RAD) shows at point P of a face with normal N, into
 * OUT: the texel of the luxel cell P falls in, on the lit face facing along N whose plane
 * holds P (within a unit) and whose polygon is nearest (within 16 units). False if there
 * is no such face. */
bool al_rad_shown_at(const al_rad *rad, const al_rad_lightmap *map, const double p[3],
                     const double n[3], float out[3]);

/* --- the solver's rays, timed for allium-bench rad ---------------------------------- */

/* Makes RAD keep up to CAPACITY of the rays it casts from now on (sun rays left out), for
 * al_rad_time_logged_rays: runs of rays one worker cast in a row, the first of every so
 * many, so that EXPECTED rays (0: unknown; a previous solve's count) give about CAPACITY
 * spread over the whole solve. False if memory runs out. */
bool al_rad_log_rays(al_rad *rad, int64_t capacity, int64_t expected);

/* Casts the logged rays again on the calling thread, in the order logged; returns
 * nanoseconds per ray, and the rays and how many were blocked in *COUNT and *BLOCKED. */
double al_rad_time_logged_rays(al_rad *rad, int64_t *count, int64_t *blocked);

/* Times COUNT occlusion rays on the calling thread between random pairs of luxels whose
 * clusters see each other: long rays, each unlike the last, which makes them slower than
 * the runs of alike rays the solver casts. Returns nanoseconds per ray and the number
 * blocked in *BLOCKED. For allium-bench. */
double al_rad_time_rays(al_rad *rad, int64_t count, uint64_t seed, int64_t *blocked);

/* --- the kernel, exposed for its closed-form tests ---------------------------------- */

/* Form factor from a differential area at P with unit normal N to the convex polygon
 * POLY (COUNT points): the fraction of the light leaving dA that reaches the polygon,
 * unoccluded (Lambert's contour integral; the part of the polygon behind dA's plane is cut
 * away). */
double al_rad_point_polygon_ff(const double p[3], const double n[3], const double (*poly)[3],
                               int count);

/* Area-to-area form factor F(A -> B) from the parallelogram A (p0, p1, p2 and p3 = p0 +
 * p2 - p1; its front is the side from which they wind clockwise, as faces do in
 * al-input.h) to the convex polygon B, unoccluded: the point form factor averaged over the
 * midpoints of a SAMPLES x SAMPLES grid on A. */
double al_rad_polygon_polygon_ff(const double (*a)[3], const double (*b)[3], int b_count,
                                 int samples);

#endif
