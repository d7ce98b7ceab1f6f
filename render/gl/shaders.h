/* The renderer's GLSL programs (OpenGL 3.3 core, GLSL 330). */
#ifndef AL_RENDER_SHADERS_H
#define AL_RENDER_SHADERS_H

#include <epoxy/gl.h>
#include <stdbool.h>
#include <stddef.h>

/* Attribute locations of al_vertex. */
enum { AL_ATTR_POS = 0, AL_ATTR_NORMAL = 1, AL_ATTR_COLOUR = 2, AL_ATTR_LIGHTMAP = 3 };

/* The texture unit of the lightmap atlas. */
enum { AL_LIGHTMAP_UNIT = 0 };

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
} al_program;

/* Compiles and links the program every pass uses: the plain variant, or with LIGHTMAP the
 * one that also reads the atlas. False with the log in ERROR. */
bool al_program_build(al_program *p, bool lightmap, char *error, size_t error_size);

void al_program_destroy(al_program *p);

#endif
