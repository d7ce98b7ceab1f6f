/* A framebuffer of its own to draw in (al-render.h): RGBA8 colour and 24-bit depth
 * renderbuffers, for the offscreen context and the editor's views under GTK's software
 * renderer. */
#include "al-render.h"

#include <epoxy/gl.h>
#include <string.h>

bool al_framebuffer_create(al_framebuffer *fb, int width, int height)
{
    memset(fb, 0, sizeof *fb);
    GLuint fbo = 0, colour = 0, depth = 0;
    glGenFramebuffers(1, &fbo);
    glGenRenderbuffers(1, &colour);
    glGenRenderbuffers(1, &depth);
    glBindRenderbuffer(GL_RENDERBUFFER, colour);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
    fb->fbo = fbo;
    fb->colour = colour;
    fb->depth = depth;
    fb->width = width;
    fb->height = height;
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        al_framebuffer_destroy(fb);
        return false;
    }
    glViewport(0, 0, width, height);
    return true;
}

void al_framebuffer_destroy(al_framebuffer *fb)
{
    GLuint fbo = fb->fbo, colour = fb->colour, depth = fb->depth;
    if (fbo) glDeleteFramebuffers(1, &fbo);
    if (colour) glDeleteRenderbuffers(1, &colour);
    if (depth) glDeleteRenderbuffers(1, &depth);
    memset(fb, 0, sizeof *fb);
}
