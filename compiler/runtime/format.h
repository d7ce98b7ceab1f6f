/* The layout of the runtime world format (FORMAT.md), shared by its one writer
 * (compiler/runtime/write.c) and its one reader (compiler/runtime/load.c): magic, section
 * tags and record sizes. Everything is little-endian whatever the host. */
#ifndef ALRT_FORMAT_H
#define ALRT_FORMAT_H

#define ALRT_MAGIC          "ALLIUMRT"
#define ALRT_MAGIC_SIZE     8
#define ALRT_HEADER_SIZE    32 /* magic, version, section count, file CRC, reserved, size */
#define ALRT_DIR_ENTRY_SIZE 24 /* tag, CRC, offset (u64), size (u64) */

/* Sections, in the order the writer puts them. */
enum {
    ALRT_SEC_HULL, /* hulls */
    ALRT_SEC_NODE, /* tree nodes of every tree */
    ALRT_SEC_LEAF, /* tree leaves of every tree */
    ALRT_SEC_MODL, /* models: their trees, bounds and reach */
    ALRT_SEC_LIQD, /* liquid brushes */
    ALRT_SEC_VISL, /* vis leaves and PVS rows */
    ALRT_SEC_LMAP, /* lightmaps */
    ALRT_SEC_ENTS, /* entities */
    ALRT_SEC_COUNT
};

static const char alrt_section_tags[ALRT_SEC_COUNT][5] = {"HULL", "NODE", "LEAF", "MODL",
                                                          "LIQD", "VISL", "LMAP", "ENTS"};

#define ALRT_NODE_SIZE        48 /* normal[3] f64, dist f64, child[2] i32, solid u32, empty u32 */
#define ALRT_TREE_REF_SIZE    20 /* root i32, first node, nodes, first leaf, leaves (u32) */
#define ALRT_HULL_NAME_SIZE   32
#define ALRT_MAX_HULLS        32
#define ALRT_LEAF_BEVEL_FRONT 0x80000000u /* a point-tree leaf only bevels: not solid */
#define ALRT_EDGE_TOLERANCE   16.0
#define ALRT_PLANE_TOLERANCE  1.0

#endif
