/* The renderer's mesh store (see mesh-store.h). */
#include "gl/mesh-store.h"

#include <stdlib.h>
#include <string.h>

void gl_vertex_layout(GLuint vao, GLuint vbo)
{
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glEnableVertexAttribArray(AL_ATTR_POS);
    glVertexAttribPointer(AL_ATTR_POS, 3, GL_FLOAT, GL_FALSE, sizeof(al_vertex),
                          (void *) offsetof(al_vertex, pos));
    glEnableVertexAttribArray(AL_ATTR_NORMAL);
    glVertexAttribPointer(AL_ATTR_NORMAL, 3, GL_FLOAT, GL_FALSE, sizeof(al_vertex),
                          (void *) offsetof(al_vertex, normal));
    glEnableVertexAttribArray(AL_ATTR_COLOUR);
    glVertexAttribPointer(AL_ATTR_COLOUR, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(al_vertex),
                          (void *) offsetof(al_vertex, colour));
    glEnableVertexAttribArray(AL_ATTR_LIGHTMAP);
    glVertexAttribPointer(AL_ATTR_LIGHTMAP, 2, GL_FLOAT, GL_FALSE, sizeof(al_vertex),
                          (void *) offsetof(al_vertex, lightmap));
    glEnableVertexAttribArray(AL_ATTR_TEXTURE);
    glVertexAttribPointer(AL_ATTR_TEXTURE, 2, GL_FLOAT, GL_FALSE, sizeof(al_vertex),
                          (void *) offsetof(al_vertex, texture));
    glEnableVertexAttribArray(AL_ATTR_MATERIAL);
    glVertexAttribIPointer(AL_ATTR_MATERIAL, 1, GL_INT, sizeof(al_vertex),
                           (void *) offsetof(al_vertex, material));
    glBindVertexArray(0);
}

void gl_line_layout(GLuint vao, GLuint vbo)
{
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glEnableVertexAttribArray(AL_ATTR_POS);
    glVertexAttribPointer(AL_ATTR_POS, 3, GL_FLOAT, GL_FALSE, sizeof(al_line_vertex),
                          (void *) offsetof(al_line_vertex, pos));
    glEnableVertexAttribArray(AL_ATTR_COLOUR);
    glVertexAttribPointer(AL_ATTR_COLOUR, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(al_line_vertex),
                          (void *) offsetof(al_line_vertex, colour));
    GLuint unused[] = {AL_ATTR_NORMAL, AL_ATTR_LIGHTMAP, AL_ATTR_TEXTURE, AL_ATTR_MATERIAL};
    for (size_t i = 0; i < sizeof unused / sizeof unused[0]; i++)
        glDisableVertexAttribArray(unused[i]);
    glBindVertexArray(0);
}

void gl_line_defaults(void)
{
    glVertexAttrib3f(AL_ATTR_NORMAL, 0, 0, 0);
    glVertexAttrib2f(AL_ATTR_LIGHTMAP, AL_NO_LIGHTMAP, AL_NO_LIGHTMAP);
    glVertexAttrib2f(AL_ATTR_TEXTURE, 0, 0);
    glVertexAttribI4i(AL_ATTR_MATERIAL, 0, 0, 0, 0);
}

/* --- ranges of a buffer ------------------------------------------------------------------ */

static void arena_free(gl_arena *a)
{
    if (a->vbo) glDeleteBuffers(1, &a->vbo);
    free(a->free);
}

/* A buffer of CAP vertices in place of the arena's, with what the old one held copied over
 * on the GPU (the ranges keep their places). */
static bool arena_resize(gl_arena *a, int32_t cap)
{
    GLuint vbo;
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_COPY_WRITE_BUFFER, vbo);
    glBufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr) cap * (GLsizeiptr) a->vertex_size, NULL,
                 GL_DYNAMIC_DRAW);
    if (a->end > 0) {
        glBindBuffer(GL_COPY_READ_BUFFER, a->vbo);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0,
                            (GLsizeiptr) a->end * (GLsizeiptr) a->vertex_size);
    }
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    /* (A renderer's vertex array still reading the old one keeps it until it follows.) */
    if (a->vbo) glDeleteBuffers(1, &a->vbo);
    a->vbo = vbo;
    a->made++;
    a->capacity = cap;
    return true;
}

/* A range of COUNT vertices (first fit among the free ones, else at the end); -1 if
 * memory ran out. */
static int32_t arena_alloc(gl_arena *a, int32_t count)
{
    if (count <= 0) return 0;
    for (int i = 0; i < a->free_count; i++) {
        gl_range *r = &a->free[i];
        if (r->count < count) continue;
        int32_t first = r->first;
        r->first += count;
        r->count -= count;
        if (r->count == 0) {
            memmove(r, r + 1, (size_t) (a->free_count - i - 1) * sizeof *r);
            a->free_count--;
        }
        return first;
    }
    if (a->end + count > a->capacity) {
        /* Doubled: a scene's meshes coming one by one copy the buffer a few times only. */
        int64_t cap = a->capacity ? a->capacity : 16384;
        while (cap < (int64_t) a->end + count) cap *= 2;
        if (cap > INT32_MAX || !arena_resize(a, (int32_t) cap)) return -1;
    }
    int32_t first = a->end;
    a->end += count;
    return first;
}

/* Gives [FIRST, FIRST + COUNT) back, merged with the free ranges it touches. */
static void arena_release(gl_arena *a, int32_t first, int32_t count)
{
    if (count <= 0) return;
    int i = 0;
    while (i < a->free_count && a->free[i].first < first) i++;
    bool before = i > 0 && a->free[i - 1].first + a->free[i - 1].count == first;
    bool after = i < a->free_count && first + count == a->free[i].first;
    if (before && after) {
        a->free[i - 1].count += count + a->free[i].count;
        memmove(&a->free[i], &a->free[i + 1], (size_t) (a->free_count - i - 1) * sizeof *a->free);
        a->free_count--;
        i--;
    } else if (before) {
        a->free[--i].count += count;
    } else if (after) {
        a->free[i].first = first;
        a->free[i].count += count;
    } else {
        if (a->free_count == a->free_cap) {
            int cap = a->free_cap ? a->free_cap * 2 : 64;
            gl_range *f = realloc(a->free, (size_t) cap * sizeof *f);
            if (!f) return; /* the range is lost until the buffer is rebuilt */
            a->free = f;
            a->free_cap = cap;
        }
        memmove(&a->free[i + 1], &a->free[i], (size_t) (a->free_count - i) * sizeof *a->free);
        a->free[i] = (gl_range){first, count};
        a->free_count++;
    }
    /* A free range that reaches the end moves the end back. */
    if (i == a->free_count - 1 && a->free[i].first + a->free[i].count == a->end) {
        a->end = a->free[i].first;
        a->free_count--;
    }
}

/* Room for NEED more vertices at the end, and an eighth more for the edits that follow
 * (their old ranges are reused once let go of), in one buffer: growing by doubling while a
 * big scene arrives would allocate twice what it holds and copy it over again at every
 * step. */
static void arena_reserve(gl_arena *a, int64_t need)
{
    int64_t want = (int64_t) a->end + need;
    if (need <= 0 || want <= a->capacity) return;
    want += want / 8;
    if (want <= INT32_MAX) arena_resize(a, (int32_t) want);
}

static void arena_upload(gl_arena *a, int32_t first, const void *v, int32_t count)
{
    if (count <= 0) return;
    glBindBuffer(GL_ARRAY_BUFFER, a->vbo);
    glBufferSubData(GL_ARRAY_BUFFER, (GLintptr) first * (GLintptr) a->vertex_size,
                    (GLsizeiptr) count * (GLsizeiptr) a->vertex_size, v);
}

/* --- the slots ------------------------------------------------------------------------------ */

gl_mesh_store *gl_mesh_store_new(void)
{
    gl_mesh_store *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    st->refs = 1;
    st->tris.vertex_size = sizeof(al_vertex);
    st->lines.vertex_size = st->radius.vertex_size = sizeof(al_line_vertex);
    return st;
}

gl_mesh_store *gl_mesh_store_ref(gl_mesh_store *st)
{
    st->refs++;
    return st;
}

void gl_mesh_store_unref(gl_mesh_store *st)
{
    if (!st || --st->refs > 0) return;
    /* (Every texture set went with the renderer that held it last.) */
    arena_free(&st->tris);
    arena_free(&st->lines);
    arena_free(&st->radius);
    free(st->slots);
    free(st);
}

static size_t slot_hash(uint64_t serial, size_t mask)
{
    uint64_t z = serial * 0x9E3779B97F4A7C15ull;
    return (size_t) (z ^ (z >> 29)) & mask;
}

/* The slot of SERIAL, or where it would go. */
static gl_mesh_slot *slot_find(gl_mesh_store *st, uint64_t serial)
{
    size_t i = slot_hash(serial, st->mask);
    while (st->slots[i].serial && st->slots[i].serial != serial) i = (i + 1) & st->mask;
    return &st->slots[i];
}

/* Copies the slots still in use into a table of CAP slots (the ones no scene holds are
 * left behind: their ranges were given back when the last user let them go). */
static bool slots_rehash(gl_mesh_store *st, size_t cap)
{
    gl_mesh_slot *old = st->slots;
    size_t old_cap = old ? st->mask + 1 : 0;
    gl_mesh_slot *slots = calloc(cap, sizeof *slots);
    if (!slots) return false;
    st->slots = slots;
    st->mask = cap - 1;
    st->count = st->unused = 0;
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].serial || old[i].users == 0) continue;
        *slot_find(st, old[i].serial) = old[i];
        st->count++;
    }
    free(old);
    return true;
}

/* Whether the store holds a mesh of SERIAL for a scene. */
static bool holds(gl_mesh_store *st, uint64_t serial)
{
    return st->slots && slot_find(st, serial)->users > 0;
}

void gl_mesh_store_reserve(gl_mesh_store *st, const al_mesh *const *meshes, int count)
{
    int64_t tris = 0, lines = 0, radius = 0;
    for (int i = 0; i < count; i++) {
        const al_mesh *m = meshes[i];
        if (!m || holds(st, m->serial)) continue;
        tris += m->tri_count;
        lines += m->line_count;
        radius += m->radius_count;
    }
    arena_reserve(&st->tris, tris);
    arena_reserve(&st->lines, lines);
    arena_reserve(&st->radius, radius);
}

const gl_mesh_slot *gl_mesh_store_take(gl_mesh_store *st, const al_mesh *m)
{
    if (!st->slots && !slots_rehash(st, 1024)) return NULL;
    gl_mesh_slot *s = slot_find(st, m->serial);
    if (s->serial && s->users > 0) {
        s->users++;
        return s;
    }
    bool reused = s->serial != 0; /* let go of by every scene, and wanted again */
    if (!reused && (st->count + 1) * 2 > st->mask + 1) {
        /* Made anew without the unused slots, twice as big if the rest still fill half. */
        size_t cap = st->mask + 1;
        if ((st->count - st->unused + 1) * 2 > cap) cap *= 2;
        if (!slots_rehash(st, cap)) return NULL;
        s = slot_find(st, m->serial);
    }
    gl_mesh_slot n = {.serial = m->serial,
                      .tri_count = m->tri_count,
                      .line_count = m->line_count,
                      .radius_count = m->radius_count,
                      .users = 1};
    n.tri = arena_alloc(&st->tris, m->tri_count);
    n.line = arena_alloc(&st->lines, m->line_count);
    n.radius = arena_alloc(&st->radius, m->radius_count);
    if (n.tri < 0 || n.line < 0 || n.radius < 0) {
        if (n.tri >= 0) arena_release(&st->tris, n.tri, m->tri_count);
        if (n.line >= 0) arena_release(&st->lines, n.line, m->line_count);
        if (n.radius >= 0) arena_release(&st->radius, n.radius, m->radius_count);
        st->failed = true;
        return NULL;
    }
    arena_upload(&st->tris, n.tri, m->tris, m->tri_count);
    arena_upload(&st->lines, n.line, m->lines, m->line_count);
    arena_upload(&st->radius, n.radius, m->radius, m->radius_count);
    st->uploaded += m->tri_count + m->line_count + m->radius_count;
    *s = n;
    if (reused)
        st->unused--;
    else
        st->count++;
    return s;
}

void gl_mesh_store_release(gl_mesh_store *st, uint64_t serial)
{
    if (!st->slots) return;
    gl_mesh_slot *s = slot_find(st, serial);
    if (!s->serial || s->users == 0 || --s->users > 0) return;
    arena_release(&st->tris, s->tri, s->tri_count);
    arena_release(&st->lines, s->line, s->line_count);
    arena_release(&st->radius, s->radius, s->radius_count);
    /* The slot stays, unused, so that the probe sequences through it still hold. */
    st->unused++;
}

void gl_mesh_store_tidy(gl_mesh_store *st)
{
    if (!st->slots || st->unused * 2 < st->count) return;
    /* Keep the table at most four times what it holds. */
    size_t cap = 1024;
    while (cap < (st->count - st->unused) * 2) cap *= 2;
    slots_rehash(st, cap); /* memory ran out: the unused slots stay a while longer */
}
