/* The renderer's GLSL programs (OpenGL 3.3 core, GLSL 330). */
#ifndef AL_RENDER_SHADERS_H
#define AL_RENDER_SHADERS_H

#include <epoxy/gl.h>
#include <stdbool.h>
#include <stddef.h>

/* Attribute locations of al_vertex. */
enum {
    AL_ATTR_POS = 0,
    AL_ATTR_NORMAL = 1,
    AL_ATTR_COLOUR = 2,
    AL_ATTR_LIGHTMAP = 3,
    AL_ATTR_TEXTURE = 4,
    AL_ATTR_MATERIAL = 5,
};

/* The texture units: the lightmap atlas, the texture array, the material table. */
enum { AL_LIGHTMAP_UNIT = 0, AL_TEXTURES_UNIT = 1, AL_MATERIALS_UNIT = 2 };

/* Program variants (a bit set): the atlas's light, the materials' textures. */
enum { AL_PROGRAM_LIGHTMAP = 1u << 0, AL_PROGRAM_TEXTURE = 1u << 1, AL_PROGRAM_VARIANTS = 4 };

typedef struct al_program {
    GLuint id;
    GLint u_mvp;    /* mat4 */
    GLint u_lit;    /* float: 1 shades by the normal, 0 flat */
    GLint u_tint;   /* vec4 multiplied with the vertex colour */
    GLint u_over;   /* vec4: rgb replaces the colour by its alpha (highlights) */
    GLint u_use_lightmap; /* float: 1 lights faces with lightmap coordinates from the atlas;
                           * -1 (no such uniform) in the plain variant */
    GLint u_lightmap;     /* sampler2D: the atlas, on AL_LIGHTMAP_UNIT */
    GLint u_lightmap_scale; /* vec2: 1 / the atlas size (vertices carry texels) */
    GLint u_use_textures;   /* float: 1 colours textured faces from the texture array; -1
                             * (no such uniform) without AL_PROGRAM_TEXTURE */
} al_program;

/* Compiles and links the program every pass uses in VARIANT (AL_PROGRAM_*): 0 the plain
 * one, LIGHTMAP also reads the atlas, TEXTURE the texture array. False with the log in
 * ERROR. */
bool al_program_build(al_program *p, unsigned variant, char *error, size_t error_size);

void al_program_destroy(al_program *p);

#endif
