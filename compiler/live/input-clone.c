/* Deep copies of compiler inputs, for the live engine, which keeps each submitted version
 * while its stages run (al-live.h). */
#include "al-live.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

static size_t text_size(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

static size_t align_up(size_t n)
{
    return (n + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
}

/* Bump allocation in the one block. */
typedef struct block {
    char *base;
    size_t used;
} block;

static void *take(block *b, size_t size)
{
    void *p = b->base + b->used;
    b->used += align_up(size);
    return p;
}

static const char *copy_text(char **texts, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = *texts;
    memcpy(p, s, n);
    *texts += n;
    return p;
}

al_input *al_input_clone(const al_input *in)
{
    size_t properties = 0, texts = 0;
    for (int m = 0; m < in->material_count; m++) texts += text_size(in->materials[m].name);
    for (int e = 0; e < in->entity_count; e++) {
        const al_entity_desc *d = &in->entities[e];
        texts += text_size(d->classname);
        properties += (size_t) (d->property_count > 0 ? d->property_count : 0);
        for (int p = 0; p < d->property_count; p++)
            texts += text_size(d->properties[p].key) + text_size(d->properties[p].value);
    }
    size_t n_mat = (size_t) (in->material_count > 0 ? in->material_count : 0);
    size_t n_ent = (size_t) (in->entity_count > 0 ? in->entity_count : 0);
    size_t n_brush = (size_t) (in->brush_count > 0 ? in->brush_count : 0);
    size_t n_face = (size_t) (in->face_count > 0 ? in->face_count : 0);
    size_t n_hull = (size_t) (in->hull_count > 0 && in->hulls ? in->hull_count : 0);
    size_t size = align_up(sizeof(al_input)) + align_up(n_mat * sizeof(al_material_desc)) +
                  align_up(n_ent * sizeof(al_entity_desc)) +
                  align_up(properties * sizeof(al_property)) +
                  align_up(n_brush * sizeof(al_brush_desc)) +
                  align_up(n_face * sizeof(al_face_desc)) +
                  align_up(n_hull * sizeof(al_hull_desc)) + texts + 1;
    block b = {malloc(size), 0};
    if (!b.base) return NULL;
    al_input *out = take(&b, sizeof *out);
    *out = *in;
    al_material_desc *materials = take(&b, n_mat * sizeof *materials);
    al_entity_desc *entities = take(&b, n_ent * sizeof *entities);
    al_property *props = take(&b, properties * sizeof *props);
    al_brush_desc *brushes = take(&b, n_brush * sizeof *brushes);
    al_face_desc *faces = take(&b, n_face * sizeof *faces);
    al_hull_desc *hulls = take(&b, n_hull * sizeof *hulls);
    char *text = b.base + b.used;
    if (n_mat) memcpy(materials, in->materials, n_mat * sizeof *materials);
    for (size_t m = 0; m < n_mat; m++) materials[m].name = copy_text(&text, in->materials[m].name);
    size_t next_prop = 0;
    for (size_t e = 0; e < n_ent; e++) {
        const al_entity_desc *d = &in->entities[e];
        entities[e] = *d;
        entities[e].classname = copy_text(&text, d->classname);
        entities[e].properties = props + next_prop;
        for (int p = 0; p < d->property_count; p++) {
            props[next_prop].key = copy_text(&text, d->properties[p].key);
            props[next_prop].value = copy_text(&text, d->properties[p].value);
            next_prop++;
        }
    }
    if (n_brush) memcpy(brushes, in->brushes, n_brush * sizeof *brushes);
    if (n_face) memcpy(faces, in->faces, n_face * sizeof *faces);
    if (n_hull) memcpy(hulls, in->hulls, n_hull * sizeof *hulls);
    out->materials = n_mat ? materials : NULL;
    out->entities = n_ent ? entities : NULL;
    out->brushes = n_brush ? brushes : NULL;
    out->faces = n_face ? faces : NULL;
    out->hulls = n_hull ? hulls : NULL;
    return out;
}
