/* The compiler's input: a plain in-memory description of a map.
 *
 * data/ fills this from a .map file or from the map document; the compiler never sees SQL,
 * JSON or file formats. Everything is borrowed: the caller keeps the arrays alive for the
 * duration of the compile call, and the compiler copies what it keeps. A zeroed al_input is
 * an empty map with default hulls and block size (sokol style: zero means default).
 *
 * Conventions (Quake's): Z is up; a face is a plane through three points p0 p1 p2 whose
 * normal normalize((p0 - p1) x (p2 - p1)) points out of the brush; a brush is the
 * intersection of the back half-spaces of its faces.
 */
#ifndef AL_INPUT_H
#define AL_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#define AL_MAX_HULLS     32 /* hull solidity is one bit of a uint32_t per leaf */
#define AL_HULL_NAME_MAX 32

/* Material flags. Some say what a face is (sky lets sunlight in, nodraw is not drawn);
 * the contents flags (AL_MATERIAL_CONTENTS) say what a brush is, and a brush takes them
 * from its first face only, as Quake's compilers do (see al_brush_contents). */
enum {
    AL_MATERIAL_SKY = 1u << 0,      /* sky: solid, lets sunlight in */
    AL_MATERIAL_LIQUID = 1u << 1,   /* water, lava, slime: not solid for agents (in a brush
                                       entity solid: Quake's entities have no liquids) */
    AL_MATERIAL_NONSOLID = 1u << 2, /* not solid for agents */
    AL_MATERIAL_CLIP = 1u << 3,     /* solid for agents, never drawn */
    AL_MATERIAL_NODRAW = 1u << 4,   /* solid, face not drawn (skip) */
    AL_MATERIAL_HINT = 1u << 5,     /* visibility hint: not solid, not drawn */
    AL_MATERIAL_TRIGGER = 1u << 6,  /* a trigger volume's face: not drawn, no contents of its
                                       own (only a trigger entity makes a brush non-solid) */
    AL_MATERIAL_SLIME = 1u << 7,    /* with AL_MATERIAL_LIQUID: the liquid is slime */
    AL_MATERIAL_LAVA = 1u << 8,     /* with AL_MATERIAL_LIQUID: the liquid is lava (neither:
                                       water) */
    AL_MATERIAL_ORIGIN = 1u << 9,   /* an origin brush: no geometry; its centre is its brush
                                       entity's origin (what Quake's rotating entities turn
                                       about) */
};

/* The flags that give a brush its contents. */
#define AL_MATERIAL_CONTENTS                                                                       \
    (AL_MATERIAL_SKY | AL_MATERIAL_LIQUID | AL_MATERIAL_NONSOLID | AL_MATERIAL_CLIP |              \
     AL_MATERIAL_HINT | AL_MATERIAL_SLIME | AL_MATERIAL_LAVA | AL_MATERIAL_ORIGIN)

typedef struct al_material_desc {
    const char *name;
    uint32_t flags;    /* AL_MATERIAL_* */
    float colour[3];   /* sRGB 0..1; radiosity reflects this colour (al-rad.h) */
    float reflectance; /* 0: the mean of the colour in linear light; otherwise in (0, 1] */
    float emission[3]; /* light level its faces give off; zero for most materials */
} al_material_desc;

typedef struct al_face_desc {
    double points[3][3];
    int32_t material;  /* index into al_input.materials, or -1 */
    float luxel_size;  /* lightmap texel edge in units for this face; 0: the map's */
    /* The texture projection in texels: s = dot(p, texture_axes[0]) + texture_axes[0][3],
     * t likewise with [1] (the .map reader's al_texture_axes). The compiler only carries it
     * to the snapshots; the renderer draws textures with it. All zero: no projection. */
    double texture_axes[2][4];
} al_face_desc;

typedef struct al_brush_desc {
    int32_t entity;     /* index into al_input.entities */
    int32_t index;      /* index of the brush within its entity, for diagnostics */
    int32_t first_face; /* into al_input.faces */
    int32_t face_count;
    int32_t line; /* source line of the brush's opening brace, -1 if unknown */
} al_brush_desc;

typedef struct al_property {
    const char *key;
    const char *value;
} al_property;

typedef struct al_entity_desc {
    const char *classname; /* NULL is treated as "" */
    int32_t line;          /* source line, -1 if unknown */
    const al_property *properties;
    int32_t property_count;
} al_entity_desc;

/* An agent box: the agent's origin plus [mins, maxs] is the space it occupies. */
typedef struct al_hull_desc {
    char name[AL_HULL_NAME_MAX];
    double mins[3];
    double maxs[3];
} al_hull_desc;

typedef struct al_input {
    const al_material_desc *materials;
    int32_t material_count;
    const al_entity_desc *entities; /* entity 0 is worldspawn */
    int32_t entity_count;
    const al_brush_desc *brushes;
    int32_t brush_count;
    const al_face_desc *faces;
    int32_t face_count;
    const al_hull_desc *hulls; /* hull 0 must be the point hull; 0 hulls: the defaults */
    int32_t hull_count;
    double block_size; /* edge of a block of the top-level grid in units; 0: 1024 */
    /* Optional: each brush's content key as the compiler would compute it from this input
     * (the live engine keeps those of unchanged brushes); NULL: computed in the compile. */
    const uint64_t *brush_keys;
} al_input;

/* The default hull list: point (0 0 0, 0 0 0), stand (-16 -16 -24, 16 16 32: Quake's player
 * box), crouch (-16 -16 -24, 16 16 16), large (-32 -32 -24, 32 32 64: Quake's large box).
 * Returns the number of hulls (4) and points *HULLS at static storage. */
int al_default_hulls(const al_hull_desc **hulls);

#define AL_DEFAULT_BLOCK_SIZE 1024.0

/* What the compiler does with the brushes of an entity, by classname. */
typedef enum al_entity_role {
    AL_ROLE_WORLD,    /* worldspawn, func_group: structural world geometry */
    AL_ROLE_DETAIL,   /* func_detail, func_detail_wall, ...: world for collision, not for
                         visibility */
    AL_ROLE_MODEL,    /* other brush entities (doors, platforms, walls): own solid model */
    AL_ROLE_NONSOLID, /* trigger_*, func_illusionary, func_detail_illusionary: no collision */
} al_entity_role;

al_entity_role al_entity_role_of(const char *classname);

/* True for the brush entities whose brushes Quake's compilers merge into the world
 * (func_group, func_detail, func_detail_wall, func_detail_fence, func_detail_illusionary):
 * their hint brushes split the world's vis tree. */
bool al_entity_in_world(const char *classname);

#endif
