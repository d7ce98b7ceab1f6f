/* Offscreen OpenGL for tests and tools (al-offscreen.h): an EGL display on Mesa's
 * surfaceless platform (no X, no Wayland, no GPU needed: llvmpipe renders), a GL 3.3 core
 * context made current without a surface, and a framebuffer object to draw into. */
#include "al-offscreen.h"

#include "al-png.h"
#include "al-render.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

struct al_offscreen {
    EGLDisplay display;
    EGLContext context;
    al_framebuffer target;
    int width, height;
};

al_offscreen *al_offscreen_create(int width, int height, char *error, size_t error_size)
{
    char scratch[8];
    if (!error) error = scratch, error_size = sizeof scratch;
    error[0] = 0;
    if (width <= 0 || height <= 0 || width > 16384 || height > 16384) {
        snprintf(error, error_size, "bad size %dx%d", width, height);
        return NULL;
    }
    if (!epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless")) {
        snprintf(error, error_size, "EGL has no surfaceless platform (EGL_MESA_platform_surfaceless)");
        return NULL;
    }
    al_offscreen *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->width = width;
    o->height = height;
    o->display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    EGLint major, minor;
    if (o->display == EGL_NO_DISPLAY || !eglInitialize(o->display, &major, &minor)) {
        snprintf(error, error_size, "no EGL display (error 0x%x)", eglGetError());
        free(o);
        return NULL;
    }
    /* The surfaceless platform's configs are pbuffer configs (the default asks for window
     * surfaces, which it has none of). */
    static const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
                                            EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    static const EGLint context_attribs[] = {
        EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
        EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLConfig config;
    EGLint configs = 0;
    if (!eglBindAPI(EGL_OPENGL_API) ||
        !eglChooseConfig(o->display, config_attribs, &config, 1, &configs) || configs < 1) {
        snprintf(error, error_size, "no EGL config for desktop OpenGL");
        goto fail;
    }
    o->context = eglCreateContext(o->display, config, EGL_NO_CONTEXT, context_attribs);
    if (o->context == EGL_NO_CONTEXT ||
        !eglMakeCurrent(o->display, EGL_NO_SURFACE, EGL_NO_SURFACE, o->context)) {
        snprintf(error, error_size, "no OpenGL 3.3 core context (error 0x%x)", eglGetError());
        goto fail;
    }
    if (!al_framebuffer_create(&o->target, width, height)) {
        snprintf(error, error_size, "framebuffer incomplete");
        goto fail;
    }
    return o;
fail:
    al_offscreen_destroy(o);
    return NULL;
}

void al_offscreen_destroy(al_offscreen *o)
{
    if (!o) return;
    if (o->context != EGL_NO_CONTEXT && o->context) {
        eglMakeCurrent(o->display, EGL_NO_SURFACE, EGL_NO_SURFACE, o->context);
        al_framebuffer_destroy(&o->target);
        eglMakeCurrent(o->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(o->display, o->context);
    }
    if (o->display != EGL_NO_DISPLAY) eglTerminate(o->display);
    free(o);
}

bool al_offscreen_read(al_offscreen *o, uint8_t *rgba)
{
    glBindFramebuffer(GL_FRAMEBUFFER, o->target.fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glFinish();
    size_t row = (size_t) o->width * 4;
    glReadPixels(0, 0, o->width, o->height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    if (glGetError() != GL_NO_ERROR) return false;
    /* GL's rows start at the bottom. */
    uint8_t *tmp = malloc(row);
    if (!tmp) return false;
    for (int y = 0; y < o->height / 2; y++) {
        uint8_t *a = rgba + (size_t) y * row, *b = rgba + (size_t) (o->height - 1 - y) * row;
        memcpy(tmp, a, row);
        memcpy(a, b, row);
        memcpy(b, tmp, row);
    }
    free(tmp);
    return true;
}

bool al_offscreen_save_png(al_offscreen *o, const char *path)
{
    size_t n = (size_t) o->width * o->height;
    uint8_t *rgba = malloc(n * 4), *rgb = malloc(n * 3);
    bool ok = rgba && rgb && al_offscreen_read(o, rgba);
    if (ok) {
        for (size_t i = 0; i < n; i++) memcpy(rgb + 3 * i, rgba + 4 * i, 3);
        ok = al_png_write(path, o->width, o->height, rgb);
    }
    free(rgba);
    free(rgb);
    return ok;
}
