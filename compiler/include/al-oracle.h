/* Brute-force oracles for the compiled world.
 *
 * They answer from the original brushes with the separating axis theorem, without the
 * compiler's expansion, bevels, CSG or trees: a box [mins, maxs] at p overlaps a convex
 * brush unless some axis separates them, and the candidate axes are the brush's face
 * normals, the three world axes, and the brush's edges crossed with the axes. A swept box
 * is the same test with time intervals per axis. A uniform grid over the brushes only
 * decides which brushes to test; every brush that could touch the query is tested.
 *
 * The verifiers sample random points and segments (half uniformly in the world's bounds,
 * half near brush surfaces) and count disagreements; allium-bench verify and the test suite
 * run them on any map.
 *
 * They are the verify library (compiler/verify, verify_dep), which the compiler itself
 * does not link.
 */
#ifndef AL_ORACLE_H
#define AL_ORACLE_H

#include "al-world.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct al_oracle al_oracle;

/* Oracle over WORLD's collision brushes; NULL if memory runs out. WORLD must outlive it. */
al_oracle *al_oracle_create(const al_world *world);
void al_oracle_destroy(al_oracle *oracle);

/* Oracle over the world model's collision brushes alone (no brush models), for the world's
 * open cells. */
al_oracle *al_oracle_create_world(const al_world *world);

/* Oracle over the brushes that block sight only (those the vis trees are built from), for
 * the PVS verifier. */
al_oracle *al_oracle_create_sight(const al_world *world);

/* Oracle over the brushes that block light only (those the light trees are built from:
 * the world model's, clip left out), for radiosity's rays. */
al_oracle *al_oracle_create_light(const al_world *world);

/* Signed separation of the box [MINS, MAXS] at P from the solid: negative inside (minus the
 * depth to the nearest surface), positive outside (a lower bound of the distance to the
 * nearest brush). Not thread-safe per oracle (it keeps a query stamp). */
double al_oracle_point_margin(al_oracle *oracle, const double mins[3], const double maxs[3],
                              const double p[3]);

#define AL_ORACLE_MAX_TIES 8

typedef struct al_oracle_hit {
    bool hit;
    bool start_inside;
    double fraction;
    int tie_count; /* axes entering at the same fraction (edge and corner contacts) */
    double normals[AL_ORACLE_MAX_TIES][3];
} al_oracle_hit;

/* First contact of the box [MINS, MAXS] swept from START to END. */
void al_oracle_sweep(al_oracle *oracle, const double mins[3], const double maxs[3],
                     const double start[3], const double end[3], al_oracle_hit *out);

/* Deterministic random numbers (splitmix64). */
typedef struct al_rng {
    uint64_t state;
} al_rng;

double al_rng_uniform(al_rng *rng); /* [0, 1) */

typedef struct al_verify_counts {
    int64_t checked;
    int64_t skipped; /* too close to a surface to decide, see AL_SURFACE_EPSILON */
    int64_t mismatches;
    int64_t normal_mismatches; /* traces: same fraction, different surface */
    double worst;              /* largest disagreement seen, in units */
    double example[2][3];      /* first mismatch: point, or segment start and end */
} al_verify_counts;

/* Onion solidity for HULL against the oracle at COUNT random points. */
void al_verify_solidity(const al_world *world, al_oracle *oracle, int hull, int64_t count,
                        uint64_t seed, al_verify_counts *out);

/* Each hull's map trees against the onion tree at COUNT random points. */
void al_verify_map_trees(const al_world *world, al_oracle *oracle, int hull, int64_t count,
                         uint64_t seed, al_verify_counts *out);

/* Onion traces of HULL against the oracle's sweep: COUNT segments of LENGTH units (0: random
 * lengths up to 256) from random empty points. A mismatch is a hit/miss disagreement or
 * fractions differing by more than 1e-3 units of travel; a normal mismatch is a contact on a
 * surface the oracle does not touch at that fraction. */
void al_verify_traces(const al_world *world, al_oracle *oracle, int hull, int64_t count,
                      double length, uint64_t seed, al_verify_counts *out);

/* The world model's open cells for HULL (trace/open.c) against WORLD_ORACLE (from
 * al_oracle_create_world): the cells of COUNT random points in its grid (half of them near
 * a brush, as al_verify_random_point draws them), or every cell if COUNT is 0. A
 * mismatch is an open cell where HULL's box would overlap a brush by more than
 * AL_SURFACE_EPSILON. *CLEAR_BUT_CLOSED counts closed cells whose box stays more than a unit
 * clear of every brush (allowed: the cells are conservative near slanted planes). */
void al_verify_open_cells(const al_world *world, al_oracle *world_oracle, int hull, int64_t count,
                          uint64_t seed, al_verify_counts *out, int64_t *clear_but_closed);

/* Traces of HULL with and without the world's open cells: COUNT moves of LENGTH units (0:
 * random up to 256) from random empty points, every fourth along an axis. A mismatch is any
 * difference in the result, but for an end the open cells know empty where the full descent
 * was unsure (a point query must then find it empty). *ANSWERED_OPEN counts the moves the
 * open cells answered for the world. */
void al_verify_open_traces(const al_world *world, al_oracle *oracle, int hull, int64_t count,
                           double length, uint64_t seed, al_verify_counts *out,
                           int64_t *answered_open);

/* Plane-shifting traces with HULL's box against onion traces of HULL. */
void al_verify_plane_shift(const al_world *world, al_oracle *oracle, int hull, int64_t count,
                           double length, uint64_t seed, al_verify_counts *out);

/* Slide moves (the test-box drag) of HULL against the oracle: COUNT drags of random length
 * up to 256 units from random empty points. A mismatch is a first contact the oracle puts
 * elsewhere (as al_verify_traces), a leg of the slide that passes through solid, or an end
 * inside solid; a normal mismatch as al_verify_traces. */
void al_verify_slides(const al_world *world, al_oracle *oracle, int hull, int64_t count,
                      uint64_t seed, al_verify_counts *out);

/* The PVS against lines of sight: COUNT segments between points in vis leaves, clear of
 * every surface, that the sight oracle says are unobstructed (a random point, a random
 * direction, a random point before the first hit). A mismatch is a segment whose end
 * leaves are not in each other's PVS, or whose far end is outside a sealed map (a leak the
 * flood missed). */
void al_verify_pvs(const al_world *world, al_oracle *sight, int64_t count, uint64_t seed,
                   al_verify_counts *out);

/* A random point for HULL: half uniformly in the world's bounds, half near a brush. */
void al_verify_random_point(const al_world *world, al_rng *rng, double p[3]);

/* Where the segment A -> B (t from 0 to 1) first touches a brush that blocks light in the
 * world model alone (brush models are left out; clip lets light through, sky does not): t
 * in [0, 1], or INFINITY if it never does, by a walk of the light trees block by block.
 * The reference for the flat copy radiosity casts its rays through (trace/rays.h). */
double al_verify_light_trees_hit(const al_world *world, const double a[3], const double b[3]);

#endif
