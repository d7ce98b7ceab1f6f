/* .map to compiler input (see map-input.h). */
#include "map-input.h"

#include "material-keys.h"
#include "texture.h"
#include "materials/material-defaults.h"
#include "settings/hull-spec.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void al_map_input_free(al_map_input *in)
{
    if (!in) return;
    free(in->materials);
    free(in->entities);
    free(in->properties);
    free(in->brushes);
    free(in->faces);
    memset(in, 0, sizeof *in);
}

static uint32_t hash_name(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char) *s;
        h *= 16777619u;
    }
    return h;
}

/* The worldspawn WORLD's material keys (material-keys.h) onto the materials the faces
 * named (a key for a material no face uses has nothing to change); a bad one is reported
 * and leaves its material as it was. */
static void apply_material_keys(const al_map_entity *world, al_map_input *out, int count,
                                al_diag_list *diags)
{
    for (int p = 0; p < world->property_count; p++) {
        const al_map_property *pr = &world->properties[p];
        const char *name = al_material_key_name(pr->key);
        if (!name) continue;
        al_material_light ml;
        char why[120];
        if (!al_material_key_parse(pr->value, &ml, why, sizeof why)) {
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, 0, -1, -1, world->line, -1,
                        "worldspawn key \"%s\": %s; the material keeps its defaults", pr->key, why);
            continue;
        }
        for (int m = 0; m < count; m++) {
            al_material_desc *md = &out->materials[m];
            if (strcmp(md->name, name) != 0) continue;
            for (int k = 0; k < 3; k++) {
                if (ml.has_colour) md->colour[k] = (float) ml.colour[k];
                md->emission[k] = (float) ml.emission[k];
            }
            md->reflectance = ml.reflectance >= 0 ? (float) ml.reflectance : 0;
        }
    }
}

al_status al_map_input_build(const al_map *map, al_map_input *out, al_diag_list *diags)
{
    memset(out, 0, sizeof *out);
    size_t props = 0, brushes = 0, faces = 0;
    for (int e = 0; e < map->entity_count; e++) {
        props += (size_t) map->entities[e].property_count;
        brushes += (size_t) map->entities[e].brush_count;
        for (int b = 0; b < map->entities[e].brush_count; b++)
            faces += (size_t) map->entities[e].brushes[b].face_count;
    }
    if (brushes > INT32_MAX / 2 || faces > INT32_MAX / 2 || props > INT32_MAX / 2)
        return AL_ERR_LIMIT;
    out->entities = calloc((size_t) map->entity_count + 1, sizeof *out->entities);
    out->properties = calloc(props + 1, sizeof *out->properties);
    out->brushes = calloc(brushes + 1, sizeof *out->brushes);
    out->faces = calloc(faces + 1, sizeof *out->faces);
    /* Open-addressing table of material names: at most one per face. */
    size_t table_size = 64;
    while (table_size < 2 * faces + 2) table_size *= 2;
    int32_t *table = malloc(table_size * sizeof *table);
    out->materials = calloc(faces + 1, sizeof *out->materials);
    if (!out->entities || !out->properties || !out->brushes || !out->faces || !table ||
        !out->materials) {
        free(table);
        al_map_input_free(out);
        return AL_ERR_NOMEM;
    }
    for (size_t i = 0; i < table_size; i++) table[i] = -1;

    int material_count = 0;
    size_t pi = 0, bi = 0, fi = 0;
    for (int e = 0; e < map->entity_count; e++) {
        const al_map_entity *me = &map->entities[e];
        al_entity_desc *ed = &out->entities[e];
        const char *classname = al_map_entity_value(me, "classname");
        ed->classname = classname ? classname : "";
        ed->line = me->line;
        ed->properties = out->properties + pi;
        ed->property_count = me->property_count;
        for (int p = 0; p < me->property_count; p++) {
            out->properties[pi].key = me->properties[p].key;
            out->properties[pi].value = me->properties[p].value;
            pi++;
        }
        for (int b = 0; b < me->brush_count; b++) {
            const al_map_brush *mb = &me->brushes[b];
            al_brush_desc *bd = &out->brushes[bi++];
            bd->entity = e;
            bd->index = mb->index;
            bd->first_face = (int32_t) fi;
            bd->face_count = mb->face_count;
            bd->line = mb->line;
            for (int f = 0; f < mb->face_count; f++) {
                const al_map_face *mf = &mb->faces[f];
                al_face_desc *fd = &out->faces[fi++];
                memcpy(fd->points, mf->points, sizeof fd->points);
                al_texture_axes(mf, fd->texture_axes);
                size_t slot = hash_name(mf->material) & (table_size - 1);
                while (table[slot] >= 0 && strcmp(out->materials[table[slot]].name, mf->material))
                    slot = (slot + 1) & (table_size - 1);
                if (table[slot] < 0) {
                    table[slot] = material_count;
                    out->materials[material_count].name = mf->material;
                    out->materials[material_count].flags = al_material_default_flags(mf->material);
                    al_material_default_colour(mf->material, out->materials[material_count].colour);
                    material_count++;
                }
                fd->material = table[slot];
            }
        }
    }
    free(table);

    al_input *in = &out->input;
    in->materials = out->materials;
    in->material_count = material_count;
    in->entities = out->entities;
    in->entity_count = map->entity_count;
    in->brushes = out->brushes;
    in->brush_count = (int32_t) bi;
    in->faces = out->faces;
    in->face_count = (int32_t) fi;

    if (map->entity_count > 0) {
        const al_map_entity *world = &map->entities[0];
        apply_material_keys(world, out, material_count, diags);
        const char *hulls = al_map_entity_value(world, "allium_hulls");
        if (hulls) {
            char error[200];
            int n = al_hull_spec_parse_list(hulls, out->hulls, AL_MAX_HULLS, error, sizeof error);
            if (n < 0)
                al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_ENTITY, 0, -1, -1, world->line, -1,
                            "worldspawn key \"allium_hulls\": %s; using the default hulls",
                            error);
            else if (out->hulls[0].mins[0] != 0 || out->hulls[0].mins[1] != 0 ||
                     out->hulls[0].mins[2] != 0 || out->hulls[0].maxs[0] != 0 ||
                     out->hulls[0].maxs[1] != 0 || out->hulls[0].maxs[2] != 0)
                al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_ENTITY, 0, -1, -1, world->line, -1,
                            "worldspawn key \"allium_hulls\": the first hull must be the point "
                            "hull (0 0 0 0 0 0); using the default hulls");
            else {
                in->hulls = out->hulls;
                in->hull_count = n;
            }
        }
        const char *block = al_map_entity_value(world, "allium_block_size");
        if (block) {
            char *end;
            double v = strtod(block, &end);
            if (end == block || *end != '\0' || !isfinite(v) || v < 64 || v > 65536)
                al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_ENTITY, 0, -1, -1, world->line, -1,
                            "worldspawn key \"allium_block_size\" is \"%s\"; expected a number "
                            "of units from 64 to 65536, using 1024",
                            block);
            else
                in->block_size = v;
        }
    }
    return AL_OK;
}
