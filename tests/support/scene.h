/* Test scenes: .map text (from the generator or a file) read, converted and compiled by the
 * same code the tools use. */
#ifndef ALLIUM_SCENE_H
#define ALLIUM_SCENE_H

#include "al-world.h"
#include "mapfile/map-input.h"

typedef struct scene {
    al_map *map;
    al_map_input input;
    al_world *world;
    al_diag_list diags; /* reader, settings and compile-failure diagnostics */
} scene;

typedef struct scene_options {
    const al_hull_desc *hulls; /* NULL: the map's or the defaults */
    int hull_count;
    double block_size; /* 0: the map's or the default */
    int threads;       /* 0: all CPUs */
    bool pvs;          /* build the PVS (at pvs_level); without it, portals and leak only */
    al_pvs_level pvs_level;
} scene_options;

/* Reads and compiles TEXT. Returns false (and fills S->diags) if reading or compiling
 * failed. OPTIONS may be NULL. */
bool scene_load_text(scene *s, const char *text, size_t length, const scene_options *options);

bool scene_load_file(scene *s, const char *path, const scene_options *options);

/* Reads and compiles the text G wrote, and destroys G. */
typedef struct mapgen mapgen;
bool scene_load_mapgen(scene *s, mapgen *g, const scene_options *options);

void scene_free(scene *s);

/* Index of hull NAME; aborts the test program if missing (a programming error). */
int scene_hull(const scene *s, const char *name);

/* The folder of the real maps (meson option shared_maps), or NULL when it is absent. */
const char *scene_shared_maps(void);

/* Path of a real map in a static buffer, or NULL when absent. */
const char *scene_shared_map(const char *name);

/* Checks face polygons against their brushes independently of how they were made: every
 * vertex lies on its face's plane and behind (within 0.01 of) every other face plane of its
 * brush, each polygon winds clockwise seen from the front, and each valid brush's polygons
 * close (the area-weighted normals sum to zero). Returns the number of brushes that fail,
 * describing the first in WHY (may be NULL). */
#include "al-faces.h"
int scene_face_polys_errors(const al_input *input, const al_face_polys *polys, char *why,
                            size_t why_size);

/* Checks the split polygons of the block holding P against its onion tree: each lies on
 * the plane of a node at its depth whose cell holds the polygon's centre (found by
 * walking the tree from the root), and inside the block's box. Returns the polygons that
 * fail (the first described in WHY), or -1 if none could be made; *COUNT gets the
 * number of polygons. */
int scene_split_errors(const al_world *world, const double p[3], int *count, char *why,
                       size_t why_size);

#endif

/* Incremental against full compiles: starting from a full compile of IN (without
 * visibility), applies EDITS random edits (al-edits.h) in batches of BATCH; after each
 * batch the world updated from the previous one (al_world_update) must equal a full
 * compile of the edited input tree by tree, its portals (the unchanged blocks' taken from
 * the previous world) must equal the full compile's one by one, its faces in vis leaves
 * (the unchanged brushes' places taken from the previous world) those found anew, and its
 * onion tree must
 * agree with the brute-force oracle at POINTS random points per hull. THREADS 0: all
 * CPUs. */
typedef struct scene_edit_report {
    int batches, edits;
    int failed_updates;
    int tree_differences;     /* trees that differ, summed over batches */
    int portal_differences;   /* batches whose portals (built with the previous world's,
                                 al_vis_options.previous) differ from a full compile's */
    double portal_blocks_copied_mean; /* per update */
    int leaf_face_differences;        /* batches whose faces in vis leaves (their places taken from
                                         the previous world's) differ from those found anew */
    double face_brushes_placed_mean;  /* per update: brushes whose faces were placed anew, */
    double face_brushes_mean;         /* of the world model's brushes */
    int64_t solidity_checked, solidity_mismatches;
    double blocks_built_mean, blocks_mean; /* per update */
    double brushes_copied_mean;
    char why[400]; /* the first difference */
} scene_edit_report;

void scene_edit_check(const al_input *in, int edits, int batch, int points, int threads,
                      uint64_t seed, scene_edit_report *out);
