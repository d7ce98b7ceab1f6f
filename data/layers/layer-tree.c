/* The layer and group hierarchy of a map's entities (see layer-tree.h). */
#include "layer-tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool al_layer_flag(const char *value)
{
    return value && strcmp(value, "1") == 0;
}

bool al_layer_color_parse(const char *value, float rgb[3])
{
    if (!value) return false;
    double v[4];
    int n = 0;
    const char *at = value;
    while (n < 4) {
        while (*at == ' ' || *at == '\t') at++;
        if (*at == '\0') break;
        char *end;
        errno = 0;
        v[n] = strtod(at, &end);
        if (end == at || errno != 0 || !(v[n] >= 0.0 && v[n] <= 1.0)) return false;
        n++;
        at = end;
    }
    while (*at == ' ' || *at == '\t') at++;
    if (*at != '\0' || n < 3) return false;
    for (int k = 0; k < 3; k++) rgb[k] = (float) v[k];
    return true;
}

void al_layer_color_format(const float rgb[3], char *out)
{
    double c[3];
    for (int k = 0; k < 3; k++) c[k] = rgb[k] < 0.0f ? 0.0 : rgb[k] > 1.0f ? 1.0 : rgb[k];
    snprintf(out, AL_LAYER_COLOR_SIZE, "%.4g %.4g %.4g 1", c[0], c[1], c[2]);
}

/* The whole number VALUE into *OUT; false for anything else (empty, signs, junk after). */
static bool parse_id(const char *value, long *out)
{
    if (!value || *value < '0' || *value > '9') return false;
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno != 0 || *end != '\0') return false;
    *out = v;
    return true;
}

static int line_of(const al_layer_source *s, int entity)
{
    return s->line ? s->line(s->context, entity) : -1;
}

/* The entity of the layer or group KIND with id ID, or -1 (a linear search: maps hold
 * tens of groups, and each entity asks once). */
static int find_node(const al_layer_node *nodes, int count, al_layer_kind kind, long id)
{
    for (int e = 0; e < count; e++)
        if (nodes[e].kind == kind && nodes[e].id == id) return e;
    return -1;
}

/* A warning when layer E's "_tb_layer_color" is there but cannot be read. */
static void warn_color(const al_layer_source *s, int e, al_diag_list *diags)
{
    const char *value = s->value(s->context, e, "_tb_layer_color");
    float rgb[3];
    if (value && !al_layer_color_parse(value, rgb))
        al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, e, -1, -1, line_of(s, e), -1,
                    "\"_tb_layer_color\" \"%s\" is not three or four numbers from 0 to 1; the "
                    "layer has no colour",
                    value);
}

/* The kinds and ids: which entities are layers and groups. */
static void read_kinds(const al_layer_source *s, al_layer_node *nodes, al_diag_list *diags)
{
    if (s->entity_count > 0) warn_color(s, 0, diags);
    for (int e = 0; e < s->entity_count; e++) {
        al_layer_node *n = &nodes[e];
        *n = (al_layer_node){.parent = -1, .layer = -1, .sort = e};
        const char *cls = s->value(s->context, e, "classname");
        const char *type = s->value(s->context, e, "_tb_type");
        if (e == 0 || !cls || strcmp(cls, "func_group") != 0 || !type) continue;
        al_layer_kind kind = strcmp(type, "_tb_layer") == 0   ? AL_LAYER_NODE_LAYER
                             : strcmp(type, "_tb_group") == 0 ? AL_LAYER_NODE_GROUP
                                                              : AL_LAYER_NODE_PLAIN;
        if (kind == AL_LAYER_NODE_PLAIN) continue;
        const char *what = kind == AL_LAYER_NODE_LAYER ? "layer" : "group";
        long id;
        if (!parse_id(s->value(s->context, e, "_tb_id"), &id)) {
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, line_of(s, e), -1,
                        "this %s has no whole-number \"_tb_id\"; it is read as a plain "
                        "func_group",
                        what);
            continue;
        }
        if (find_node(nodes, e, kind, id) >= 0) {
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, line_of(s, e), -1,
                        "a %s with \"_tb_id\" \"%ld\" comes earlier; this one is read as a "
                        "plain func_group",
                        what, id);
            continue;
        }
        n->kind = kind;
        n->id = id;
        if (kind == AL_LAYER_NODE_LAYER) {
            warn_color(s, e, diags);
            long sort;
            if (parse_id(s->value(s->context, e, "_tb_layer_sort_index"), &sort) && sort < 1 << 30)
                n->sort = (int) sort;
        }
    }
}

/* The parents: "_tb_group" first (a member of a group lies in the group's layer), then
 * "_tb_layer". Layers belong to no one. */
static void read_parents(const al_layer_source *s, al_layer_node *nodes, al_diag_list *diags)
{
    for (int e = 1; e < s->entity_count; e++) {
        if (nodes[e].kind == AL_LAYER_NODE_LAYER) continue;
        const char *group = s->value(s->context, e, "_tb_group");
        const char *layer = group ? NULL : s->value(s->context, e, "_tb_layer");
        const char *key = group ? "_tb_group" : "_tb_layer";
        const char *value = group ? group : layer;
        if (!value) continue;
        long id;
        int parent = -1;
        if (parse_id(value, &id))
            parent = find_node(nodes, s->entity_count,
                               group ? AL_LAYER_NODE_GROUP : AL_LAYER_NODE_LAYER, id);
        if (parent < 0) {
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, line_of(s, e), -1,
                        "\"%s\" \"%s\" names no %s of the map; the entity is put in the "
                        "default layer",
                        key, value, group ? "group" : "layer");
            continue;
        }
        nodes[e].parent = parent;
    }
}

/* Cuts every cycle of parents (only groups can form one): walking up from each entity,
 * more steps than there are entities means a loop, which is cut at the entity that
 * started the walk. */
static void cut_cycles(const al_layer_source *s, al_layer_node *nodes, al_diag_list *diags)
{
    for (int e = 1; e < s->entity_count; e++) {
        int steps = 0, at = nodes[e].parent;
        while (at >= 0 && at != e && steps <= s->entity_count) {
            at = nodes[at].parent;
            steps++;
        }
        if (at == e) {
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, line_of(s, e), -1,
                        "group \"_tb_id\" \"%ld\" holds itself through its parent groups; it is "
                        "put in the default layer",
                        nodes[e].id);
            nodes[e].parent = -1;
        }
    }
}

/* Each entity's layer, depth and the layer's flags (no cycles are left). */
static void resolve_layers(const al_layer_source *s, al_layer_node *nodes)
{
    bool world = s->entity_count > 0;
    bool world_hidden = world && al_layer_flag(s->value(s->context, 0, "_tb_layer_hidden"));
    bool world_locked = world && al_layer_flag(s->value(s->context, 0, "_tb_layer_locked"));
    float world_color[3];
    bool world_colored =
        world && al_layer_color_parse(s->value(s->context, 0, "_tb_layer_color"), world_color);
    for (int e = 0; e < s->entity_count; e++) {
        al_layer_node *n = &nodes[e];
        int at = e, depth = 0;
        while (nodes[at].parent >= 0) { /* layers have no parent: a walk ends on one */
            at = nodes[at].parent;
            depth++;
        }
        n->depth = depth;
        n->layer = nodes[at].kind == AL_LAYER_NODE_LAYER ? at : -1;
        if (n->layer >= 0) {
            n->hidden = al_layer_flag(s->value(s->context, n->layer, "_tb_layer_hidden"));
            n->locked = al_layer_flag(s->value(s->context, n->layer, "_tb_layer_locked"));
            n->omit = al_layer_flag(s->value(s->context, n->layer, "_tb_layer_omit_from_export"));
            n->has_color =
                al_layer_color_parse(s->value(s->context, n->layer, "_tb_layer_color"), n->color);
        } else {
            n->hidden = world_hidden;
            n->locked = world_locked;
            n->has_color = world_colored;
            if (world_colored) memcpy(n->color, world_color, sizeof n->color);
        }
    }
}

al_status al_layer_tree_build(const al_layer_source *source, al_layer_node **out,
                              al_diag_list *diags)
{
    *out = NULL;
    int count = source->entity_count > 0 ? source->entity_count : 0;
    al_layer_node *nodes = calloc((size_t) count + 1, sizeof *nodes);
    if (!nodes) return AL_ERR_NOMEM;
    read_kinds(source, nodes, diags);
    read_parents(source, nodes, diags);
    cut_cycles(source, nodes, diags);
    resolve_layers(source, nodes);
    *out = nodes;
    return AL_OK;
}

/* --- parsed maps --------------------------------------------------------------------- */

static const char *map_value(void *context, int entity, const char *key)
{
    const al_map *map = context;
    return al_map_entity_value(&map->entities[entity], key);
}

static int map_line(void *context, int entity)
{
    const al_map *map = context;
    return map->entities[entity].line;
}

al_layer_source al_layer_source_of_map(const al_map *map)
{
    return (al_layer_source){map->entity_count, map_value, map_line, (void *) map};
}

al_status al_map_omit_layers(al_map *map, int *omitted, al_diag_list *diags)
{
    if (omitted) *omitted = 0;
    al_layer_source source = al_layer_source_of_map(map);
    al_layer_node *nodes;
    al_status st = al_layer_tree_build(&source, &nodes, diags);
    if (st != AL_OK) return st;
    bool *keep = malloc((size_t) map->entity_count + 1);
    if (!keep) {
        free(nodes);
        return AL_ERR_NOMEM;
    }
    int dropped = 0;
    for (int e = 0; e < map->entity_count; e++) {
        keep[e] = e == 0 || !nodes[e].omit;
        dropped += !keep[e];
    }
    al_map_keep_entities(map, keep);
    free(keep);
    free(nodes);
    if (omitted) *omitted = dropped;
    return AL_OK;
}
