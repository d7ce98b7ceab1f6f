/* Quake BSP export: a compiled map as a .bsp file that a Quake engine loads.
 *
 * Expected workload: a whole map per call, from the command line or the editor's export;
 * e1m1 exports in 170 to 450 ms (two cores shared with other work), two thirds of it the
 * visibility rows and a third of the rest cutting faces (allium-bench bsp).
 *
 * Entry points:
 *   al_bsp_build  map + its input + its compiled world (+ WADs) -> the bytes of a .bsp
 *   al_bsp_write  the same, into a file (a temporary file beside it, then renamed)
 *
 * What goes in (bsp-trees.c, bsp-faces.c, bsp-write.c):
 *   - hull 0 of every model: the point hull's map trees stitched under the model's top tree
 *     (a block leaf of the top tree leads to the block's root), all-solid subtrees folded
 *     into leaf 0 and all-empty ones into one leaf; the world's empty leaves are cut
 *     further by the planes of its liquid brushes, so that a point's contents are water,
 *     slime or lava where al_world_point_contents says so;
 *   - hulls 1 and 2 of every model as clipnodes, from the map trees of the hulls named
 *     "stand" and "large" (or, failing those names, of the hulls with Quake's boxes), equal
 *     subtrees shared; a hull whose box differs from Quake's is a warning;
 *   - faces: the drawn faces of every brush (for the world, those a vis leaf lists, and
 *     every liquid face) less their parts inside another solid brush of their model (as
 *     qbsp's CSG leaves them; two coinciding faces keep the later brush's), the parts
 *     merged again where convex, cut where their texture extent passes 240 texels as
 *     Quake's qbsp cuts them, with texinfo from the face's texture axes, edges and vertexes shared, each
 *     face on the node of its plane and in the marksurfaces of every leaf it touches;
 *   - miptex from the map's WADs (WAD2 textures as they are; WAD3 ones with each colour
 *     turned into the nearest of Quake's palette; a texture no WAD holds becomes a checker
 *     of its name, with a warning);
 *   - one model per brush entity (solid ones with their own hull trees, triggers and
 *     other non-solid ones with empty trees), and the entities lump, with "model" "*N" on
 *     each brush entity; func_group and func_detail entities are merged into the world;
 *     a model with an origin brush is written relative to its centre, which its entity
 *     gets as "origin";
 *   - a BSPX BRUSHLIST lump: every model's brushes with their contents and planes;
 *   - visibility: a row per world leaf from the world's PVS, conservative (bsp-vis.c);
 *   - lighting, when given the radiosity: each face's lightmap on Quake's 16-texel grid,
 *     the channels' mean in the .bsp and the colours in a .lit file (bsp-light.c); without
 *     it, none (engines draw the map fullbright).
 *
 * Formats: BSP29 (Quake's) with its 16-bit limits, checked and named when a map passes
 * them, and BSP2 (32-bit indices, float bounds), which lifts them.
 */
#ifndef AL_EXPORT_BSP_H
#define AL_EXPORT_BSP_H

#include "al-rad.h"
#include "al-world.h"
#include "mapfile/map.h"
#include "textures/sources.h"

#include <stddef.h>

typedef enum al_bsp_format {
    AL_BSP29 = 0, /* Quake's own */
    AL_BSP2 = 1,  /* "BSP2": 32-bit indices and float bounds */
} al_bsp_format;

/* What went into a .bsp: the count of each lump's records. */
typedef struct al_bsp_counts {
    al_bsp_format format;
    int planes, vertexes, nodes, texinfo, faces, clipnodes, leafs, marksurfaces, edges, surfedges,
        models, miptex;
    int miptex_missing;    /* textures written as checkers */
    size_t entities_bytes; /* of the entities lump */
    size_t visibility_bytes, lighting_bytes;
    size_t file_bytes;
    double ms_trees, ms_faces, ms_vis, ms_light, ms_total; /* wall-clock ms of the stages */
} al_bsp_counts;

/* What a .bsp is made of. MAP gives the texture axes and the entities; INPUT must be
 * al_map_input_build's input of MAP (entities, brushes and faces in MAP's order) and
 * WORLD its compile; TEXTURES (may be NULL) the WADs; RAD (a solver of WORLD and INPUT) and
 * LIGHTMAP (its snapshot) the light, or both NULL for none; PALETTE for WAD3 textures.
 * Everything is only read. */
typedef struct al_bsp_source {
    const al_map *map;
    const al_input *input;
    const al_world *world;
    const al_texture_sources *textures;
    const al_rad *rad;
    const al_rad_lightmap *lightmap;
    /* Quake's palette (768 bytes: the game's gfx/palette.lmp) that WAD3 textures are
     * converted into; NULL: al_palette_default's stand-in, with a warning (an engine then
     * draws them in the wrong colours). */
    const uint8_t *palette;
} al_bsp_source;

/* The bytes of a .bsp and of its .lit (colour lightmaps; none without lighting), owned. */
typedef struct al_bsp_files {
    void *bsp;
    size_t bsp_size;
    void *lit; /* NULL when the map has no lighting */
    size_t lit_size;
} al_bsp_files;

void al_bsp_files_free(al_bsp_files *files);

/* The .bsp of SOURCE in FORMAT (and its .lit) into OUT; COUNTS (may be NULL) says what it
 * holds. Warnings (hull sizes, missing textures) go to DIAGS. Returns AL_OK;
 * AL_ERR_LIMIT when the map passes a limit of the format (an error in DIAGS names it, and
 * for BSP29 says that BSP2 lifts it); AL_ERR_INVALID_ARGUMENT when the world lacks a hull
 * Quake needs or does not fit the map (an error names it); AL_ERR_NOMEM. OUT is empty on
 * failure. */
al_status al_bsp_build(const al_bsp_source *source, al_bsp_format format, al_bsp_files *out,
                       al_bsp_counts *counts, al_diag_list *diags);

/* al_bsp_build into the file PATH, and with lighting its .lit beside it (PATH with ".lit"
 * for its ".bsp"): each written to a temporary file beside it and renamed over its name once
 * complete, so neither is left damaged. AL_ERR_IO (an error names the file) when one cannot
 * be written. */
al_status al_bsp_write(const al_bsp_source *source, al_bsp_format format, const char *path,
                       al_bsp_counts *counts, al_diag_list *diags);

/* "bsp29" / "bsp2" as a format into *OUT; false for anything else. */
bool al_bsp_format_parse(const char *name, al_bsp_format *out);
const char *al_bsp_format_name(al_bsp_format format);

#endif
