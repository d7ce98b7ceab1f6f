/* The renderer's GLSL program, in variants built from one source: vertex colours,
 * optionally shaded by a fixed sky light and the face normal (the "lit" look of faces
 * without a lightmap: the same shading in every view, so walls of different orientation
 * stay distinguishable), a tint for translucency and a colour override for highlights.
 * The lightmap variant (LIGHTMAP defined) also lights faces that have lightmap coordinates
 * from the atlas, when a pass asks for it: material colour x level / 128, where a texel's
 * byte is level / 2 (al_lightmap_to_rgba8). The texture variant (TEXTURE defined) takes a
 * face's colour from its material's layer of the texture array instead of the material's
 * flat colour (sky and liquids full bright, as Quake draws them); both work on sRGB bytes
 * as they are, as the flat colours always have, so a texture lit by level 128 shows its
 * own texels. The plain variant is the program as it was before lightmaps existed, used
 * whenever neither is shown: unlit pictures do not change, and do not pay for the
 * interpolants and the texture fetches (on llvmpipe they doubled the frame time). Every
 * pass differs only in uniforms and blending. */
#include "gl/shaders.h"

#include <stdio.h>

static const char *vertex_source =
    "layout(location = 0) in vec3 pos;\n"
    "layout(location = 1) in vec3 normal;\n"
    "layout(location = 2) in vec4 colour;\n"
    "uniform mat4 mvp;\n"
    "uniform float lit;\n"
    "uniform vec4 tint;\n"
    "uniform vec4 over;\n"
    "out vec4 v_colour;\n"
    "#if defined(LIGHTMAP) || defined(TEXTURE)\n"
    "out vec4 v_material;\n"
    "out float v_shade;\n"
    "#endif\n"
    "#ifdef LIGHTMAP\n"
    "layout(location = 3) in vec2 lightmap_st;\n"
    "uniform vec2 lightmap_scale;\n"
    "uniform float use_lightmap;\n"
    "out vec2 v_st;\n"
    "flat out float v_lit;\n"
    "#endif\n"
    "#ifdef TEXTURE\n"
    "layout(location = 4) in vec2 texture_st;\n"
    "layout(location = 5) in int material;\n"
    /* Per material + 1: 1 / width, 1 / height, layer (-1: none), full bright. */
    "uniform sampler2D materials;\n"
    "uniform float use_textures;\n"
    "out vec3 v_tex;\n"
    "flat out float v_textured;\n"
    "flat out float v_bright;\n"
    "#endif\n"
    "void main() {\n"
    "    gl_Position = mvp * vec4(pos, 1.0);\n"
    "    /* A key light from above and a side, a weaker fill from the opposite side. */\n"
    "    vec3 key = normalize(vec3(0.35, 0.55, 0.76));\n"
    "    float shade = 0.52 + 0.38 * max(dot(normal, key), 0.0)\n"
    "                + 0.16 * max(dot(normal, -key.yxz), 0.0);\n"
    "    vec3 rgb = colour.rgb * mix(1.0, shade, lit);\n"
    "    rgb = mix(rgb, over.rgb, over.a);\n"
    "    v_colour = vec4(rgb, colour.a) * tint;\n"
    "#if defined(LIGHTMAP) || defined(TEXTURE)\n"
    "    v_material = colour;\n"
    "    v_shade = mix(1.0, shade, lit);\n"
    "#endif\n"
    "#ifdef LIGHTMAP\n"
    "    /* Texels of the atlas, scaled to its size. Unmapped vertices carry -1: a face is\n"
    "     * mapped or not as a whole. */\n"
    "    v_st = lightmap_st * lightmap_scale;\n"
    "    v_lit = use_lightmap > 0.5 && lightmap_st.x > -0.5 ? 1.0 : 0.0;\n"
    "#endif\n"
    "#ifdef TEXTURE\n"
    "    vec4 m = texelFetch(materials, ivec2(material & 1023, material >> 10), 0);\n"
    "    v_tex = vec3(texture_st * m.xy, m.z);\n"
    "    /* Untextured vertices (lines, tool faces) have layer -1: no texture. */\n"
    "    v_textured = use_textures > 0.5 && m.z > -0.5 ? 1.0 : 0.0;\n"
    "    v_bright = v_textured > 0.5 && m.w > 0.5 ? 1.0 : 0.0;\n"
    "#endif\n"
    "}\n";

/* What varies within a face is interpolated; what holds for a whole face (mapped or not,
 * textured, full bright) is decided per vertex and passed flat, and the fragment selects
 * rather than branches: on llvmpipe the branches per fragment and the uniforms tested in
 * them cost as much as the lightmap's fetch (lq-e3m4 lit without textures, 1280x720: 13.6
 * ms a frame with them, 10.4 without, 7.1 unlit; with textures no change measured). */
static const char *fragment_source =
    "in vec4 v_colour;\n"
    "out vec4 frag;\n"
    "#if defined(LIGHTMAP) || defined(TEXTURE)\n"
    "in vec4 v_material;\n"
    "in float v_shade;\n"
    "uniform vec4 tint;\n"
    "uniform vec4 over;\n"
    "#ifdef LIGHTMAP\n"
    "in vec2 v_st;\n"
    "flat in float v_lit;\n"
    "uniform sampler2D lightmap;\n"
    "#endif\n"
    "#ifdef TEXTURE\n"
    "in vec3 v_tex;\n"
    "flat in float v_textured;\n"
    "flat in float v_bright;\n"
    "uniform sampler2DArray textures;\n"
    "#endif\n"
    "void main() {\n"
    "    vec3 base = v_material.rgb;\n"
    "    vec3 light = vec3(v_shade);\n"
    "#ifdef TEXTURE\n"
    "    vec3 texel = texture(textures, v_tex).rgb;\n"
    "    base = v_textured > 0.5 ? texel : base;\n"
    "#endif\n"
    "#ifdef LIGHTMAP\n"
    /* Texels hold level / 510; level 256 shows the material's own colour, as Quake shows
     * a light level (its lightmap byte, half the level, 128). */
    "    vec3 level = texture(lightmap, v_st).rgb * (510.0 / 256.0);\n"
    "    light = v_lit > 0.5 ? level : light;\n"
    "#endif\n"
    "#ifdef TEXTURE\n"
    "    /* Sky and liquids: full bright, as Quake draws them. */\n"
    "    light = v_bright > 0.5 ? vec3(1.0) : light;\n"
    "#endif\n"
    /* (Unlit, the shade is below 1: the bound changes only lit texels.) */
    "    vec3 rgb = min(base * light, vec3(1.0));\n"
    "    rgb = mix(rgb, over.rgb, over.a);\n"
    "    frag = vec4(rgb, v_material.a) * tint;\n"
    "}\n"
    "#else\n"
    "void main() { frag = v_colour; }\n"
    "#endif\n";

static GLuint compile(GLenum kind, unsigned variant, const char *source, char *error,
                      size_t error_size)
{
    GLuint s = glCreateShader(kind);
    const char *parts[] = {"#version 330 core\n",
                           variant & AL_PROGRAM_LIGHTMAP ? "#define LIGHTMAP 1\n" : "",
                           variant & AL_PROGRAM_TEXTURE ? "#define TEXTURE 1\n" : "", source};
    glShaderSource(s, 4, parts, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        snprintf(error, error_size, "%s shader: %s",
                 kind == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

bool al_program_build(al_program *p, unsigned variant, char *error, size_t error_size)
{
    p->id = 0;
    GLuint vs = compile(GL_VERTEX_SHADER, variant, vertex_source, error, error_size);
    GLuint fs = vs ? compile(GL_FRAGMENT_SHADER, variant, fragment_source, error, error_size) : 0;
    if (!vs || !fs) {
        if (vs) glDeleteShader(vs);
        return false;
    }
    GLuint id = glCreateProgram();
    glAttachShader(id, vs);
    glAttachShader(id, fs);
    glBindAttribLocation(id, AL_ATTR_POS, "pos");
    glBindAttribLocation(id, AL_ATTR_NORMAL, "normal");
    glBindAttribLocation(id, AL_ATTR_COLOUR, "colour");
    if (variant & AL_PROGRAM_LIGHTMAP) glBindAttribLocation(id, AL_ATTR_LIGHTMAP, "lightmap_st");
    if (variant & AL_PROGRAM_TEXTURE) {
        glBindAttribLocation(id, AL_ATTR_TEXTURE, "texture_st");
        glBindAttribLocation(id, AL_ATTR_MATERIAL, "material");
    }
    glLinkProgram(id);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(id, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetProgramInfoLog(id, sizeof log, NULL, log);
        snprintf(error, error_size, "linking: %s", log);
        glDeleteProgram(id);
        return false;
    }
    p->id = id;
    p->u_mvp = glGetUniformLocation(id, "mvp");
    p->u_lit = glGetUniformLocation(id, "lit");
    p->u_tint = glGetUniformLocation(id, "tint");
    p->u_over = glGetUniformLocation(id, "over");
    p->u_use_lightmap = glGetUniformLocation(id, "use_lightmap");
    p->u_lightmap = glGetUniformLocation(id, "lightmap");
    p->u_lightmap_scale = glGetUniformLocation(id, "lightmap_scale");
    p->u_use_textures = glGetUniformLocation(id, "use_textures");
    glUseProgram(id);
    if (variant & AL_PROGRAM_LIGHTMAP) {
        glUniform1i(p->u_lightmap, AL_LIGHTMAP_UNIT);
        glUniform1f(p->u_use_lightmap, 0.0f);
    }
    if (variant & AL_PROGRAM_TEXTURE) {
        glUniform1i(glGetUniformLocation(id, "textures"), AL_TEXTURES_UNIT);
        glUniform1i(glGetUniformLocation(id, "materials"), AL_MATERIALS_UNIT);
        glUniform1f(p->u_use_textures, 0.0f);
    }
    glUseProgram(0);
    return true;
}

void al_program_destroy(al_program *p)
{
    if (p->id) glDeleteProgram(p->id);
    p->id = 0;
}
