/* Allium runtime: loads a compiled world written by `allium-compile --runtime OUT.alw MAP`
 * (the portable format described in FORMAT.md beside this header) and answers what a game
 * needs of it: swept-box traces for every compiled hull and for boxes of any size, point
 * contents, the vis leaf of a point and the PVS between leaves, the radiosity's light at a
 * surface point, and the map's entities.
 *
 * The library uses only the C standard library and libm. A loaded world is immutable: any
 * number of threads may query it at once. Errors are values: a damaged or foreign file
 * gives a status and a message naming the section and what is wrong, never a crash.
 *
 * Link with `pkg-config --cflags --libs allium-runtime`.
 */
#ifndef ALLIUM_RUNTIME_H
#define ALLIUM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The format version this library reads (the header's version field). */
#define ALRT_FORMAT_VERSION 1u

typedef struct alrt_world alrt_world;

typedef enum alrt_status {
    ALRT_OK = 0,
    ALRT_ERR_IO,      /* the file could not be read */
    ALRT_ERR_NOMEM,   /* out of memory */
    ALRT_ERR_FORMAT,  /* not a runtime world, or another version of the format */
    ALRT_ERR_CORRUPT, /* a checksum, offset, count or index is wrong */
} alrt_status;

/* What fills a point, as Quake's point contents. */
typedef enum alrt_contents {
    ALRT_CONTENTS_EMPTY = 0,
    ALRT_CONTENTS_SOLID = 1,
    ALRT_CONTENTS_WATER = 2,
    ALRT_CONTENTS_SLIME = 3,
    ALRT_CONTENTS_LAVA = 4,
} alrt_contents;

/* Loads a world from SIZE bytes at DATA (copied: DATA may be freed afterwards). Every
 * checksum, offset, count and index is checked first. On failure *OUT is NULL and, when
 * MESSAGE is not NULL, MESSAGE (room for MESSAGE_SIZE bytes) names the section and the
 * reason. */
alrt_status alrt_load(const void *data, size_t size, alrt_world **out, char *message,
                      size_t message_size);

/* alrt_load of the file at PATH; the message names the file too. */
alrt_status alrt_load_file(const char *path, alrt_world **out, char *message, size_t message_size);

/* Frees WORLD. NULL is a no-op. */
void alrt_destroy(alrt_world *world);

/* A short English description of STATUS (a static string). */
const char *alrt_status_message(alrt_status status);

/* The CRC-32 (ISO-HDLC, the zlib and PNG one) of SIZE bytes at DATA, continuing from CRC
 * (0 to start). */
uint32_t alrt_crc32(uint32_t crc, const void *data, size_t size);

/* --- hulls -------------------------------------------------------------------------- */

/* The compiled hulls (agent boxes); hull 0 is the point. */
int alrt_hull_count(const alrt_world *world);
/* Hull HULL's name (owned by the world) and box into MINS and MAXS; NULL if out of range. */
const char *alrt_hull(const alrt_world *world, int hull, double mins[3], double maxs[3]);
/* The index of the hull named NAME, or -1. */
int alrt_find_hull(const alrt_world *world, const char *name);

/* --- collision ---------------------------------------------------------------------- */

typedef struct alrt_hit {
    double fraction;   /* of the move to the first contact; 1 if none */
    double end[3];     /* where the box can rest, ALRT_TRACE_SKIN in front of what it hit */
    double contact[3]; /* the box's origin at contact */
    double normal[3];  /* of the surface hit, facing the mover; zero if nothing was hit */
    int hit;
    int start_solid; /* the move starts inside solid */
    int all_solid;   /* the move never leaves solid */
    int model;       /* 0 the world, k > 0 the k-th brush model; -1 none */
    int entity;      /* the entity of that model; -1 none */
} alrt_hit;

/* The gap a resting box keeps from a surface, along its normal (Quake's DIST_EPSILON). */
#define ALRT_TRACE_SKIN (1.0 / 32.0)

/* Sweeps a box of compiled hull HULL from START to END through the onion tree of every
 * solid model ("find first transition"). A bad hull or a non-finite point gives no move. */
void alrt_trace(const alrt_world *world, int hull, const double start[3], const double end[3],
                alrt_hit *out);

/* Sweeps the box [MINS, MAXS] (any size) from START to END by dynamic plane shifting
 * through the point hull's bevelled trees. */
void alrt_trace_box(const alrt_world *world, const double mins[3], const double maxs[3],
                    const double start[3], const double end[3], alrt_hit *out);

/* Whether a box of HULL with its origin at P overlaps solid. */
int alrt_point_solid(const alrt_world *world, int hull, const double p[3]);

/* ALRT_CONTENTS_SOLID where alrt_point_solid says so, else the liquid around P, else
 * ALRT_CONTENTS_EMPTY. */
alrt_contents alrt_point_contents(const alrt_world *world, int hull, const double p[3]);

/* Brush models (model 0 is the world) and the entity of each. */
int alrt_model_count(const alrt_world *world);
int alrt_model_entity(const alrt_world *world, int model);

/* --- visibility --------------------------------------------------------------------- */

/* Vis leaves: the empty leaves of the world that take part in visibility, 0..count-1. */
int alrt_leaf_count(const alrt_world *world);
/* The vis leaf holding P, or -1 (solid, outside a sealed map, no visibility). */
int alrt_leaf_at(const alrt_world *world, const double p[3]);
/* Whether vis leaf B is in the PVS of vis leaf A; 0 for leaves out of range. */
int alrt_leaf_sees(const alrt_world *world, int a, int b);
/* The PVS row of leaf A: bit B of byte B / 8 (least significant first) set when A sees B;
 * (alrt_leaf_count + 7) / 8 bytes owned by the world. NULL for A out of range. */
const uint8_t *alrt_pvs_row(const alrt_world *world, int a);

/* --- light -------------------------------------------------------------------------- */

/* Whether the world carries lightmaps (a compile without radiosity has none). */
int alrt_has_light(const alrt_world *world);
/* The light (RGB light levels) at point P of a lit face whose normal is N: the luxel P
 * falls in, on the face facing along N whose plane holds P (within a unit) and whose
 * polygon is nearest (within 16 units). 0 and black if there is no such face. */
int alrt_light_at(const alrt_world *world, const double p[3], const double n[3], float rgb[3]);

/* --- entities ----------------------------------------------------------------------- */

/* Entities in map order (0 is worldspawn) and their key/value pairs, strings owned by
 * the world. */
int alrt_entity_count(const alrt_world *world);
int alrt_entity_pair_count(const alrt_world *world, int entity);
/* Pair I of ENTITY: its key, and its value into *VALUE; NULL if out of range. */
const char *alrt_entity_pair(const alrt_world *world, int entity, int i, const char **value);
/* The value of KEY in ENTITY (the first such pair), or NULL. */
const char *alrt_entity_value(const alrt_world *world, int entity, const char *key);

#ifdef __cplusplus
}
#endif

#endif
