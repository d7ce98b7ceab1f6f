/* Layers and groups in a map document (see layer-edits.h).
 *
 * Workload: an edit per designer's action (a selection of brushes); reading parses every
 * entity's properties once (lq-e3m4: about 1,200 entities).
 */
#include "layer-edits.h"

#include "store/properties.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- reading ------------------------------------------------------------------------- */

static const char *layers_value(void *context, int entity, const char *key)
{
    return al_layers_value(context, entity, key);
}

const char *al_layers_value(const al_layers *layers, int e, const char *key)
{
    if (e < 0 || e >= layers->count) return NULL;
    if (strcmp(key, "classname") == 0) return layers->rows[e].classname;
    cJSON **parsed = layers->storage;
    const cJSON *item = parsed[e] ? cJSON_GetObjectItemCaseSensitive(parsed[e], key) : NULL;
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

al_status al_layers_read(al_doc *doc, al_layers *out, al_diag_list *diags)
{
    *out = (al_layers){0};
    al_status st = al_doc_list_entities(doc, &out->rows, &out->count);
    if (st != AL_OK) return st;
    cJSON **parsed = calloc((size_t) out->count + 1, sizeof *parsed);
    if (!parsed) {
        al_layers_free(out);
        return AL_ERR_NOMEM;
    }
    out->storage = parsed;
    for (int e = 0; e < out->count; e++) parsed[e] = cJSON_Parse(out->rows[e].properties);
    al_layer_source source = {out->count, layers_value, NULL, out};
    st = al_layer_tree_build(&source, &out->nodes, diags);
    if (st != AL_OK) al_layers_free(out);
    return st;
}

void al_layers_free(al_layers *layers)
{
    if (!layers) return;
    cJSON **parsed = layers->storage;
    for (int e = 0; parsed && e < layers->count; e++) cJSON_Delete(parsed[e]);
    free(parsed);
    al_doc_entity_rows_free(layers->rows, layers->count);
    free(layers->nodes);
    *layers = (al_layers){0};
}

int al_layers_find(const al_layers *layers, int64_t entity)
{
    for (int e = 0; e < layers->count; e++)
        if (layers->rows[e].id == entity) return e;
    return -1;
}

static const al_layers *sort_context;

static int compare_layers(const void *a, const void *b)
{
    int x = *(const int *) a, y = *(const int *) b;
    int sx = sort_context->nodes[x].sort, sy = sort_context->nodes[y].sort;
    return sx != sy ? (sx > sy) - (sx < sy) : (x > y) - (x < y);
}

al_status al_layers_list(const al_layers *layers, int **out, int *count)
{
    *count = 0;
    *out = malloc(((size_t) layers->count + 1) * sizeof **out);
    if (!*out) return AL_ERR_NOMEM;
    if (layers->count > 0) (*out)[(*count)++] = 0;
    int first = *count;
    for (int e = 1; e < layers->count; e++)
        if (layers->nodes[e].kind == AL_LAYER_NODE_LAYER) (*out)[(*count)++] = e;
    /* Main-thread only (as every document call): the comparison reads LAYERS here. */
    sort_context = layers;
    qsort(*out + first, (size_t) (*count - first), sizeof **out, compare_layers);
    sort_context = NULL;
    return AL_OK;
}

int64_t al_layers_outer_group(const al_layers *layers, int64_t owner, bool is_brush,
                              int64_t entered)
{
    int at = al_layers_find(layers, owner);
    if (at < 0) return 0;
    if (is_brush && layers->nodes[at].kind != AL_LAYER_NODE_GROUP) return 0;
    /* Up through the groups; stop below the entered one. */
    int outer = layers->nodes[at].kind == AL_LAYER_NODE_GROUP ? at : -1;
    for (int steps = 0; steps <= layers->count; steps++) {
        if (layers->rows[at].id == entered) break;
        int parent = layers->nodes[at].parent;
        if (parent < 0 || layers->nodes[parent].kind != AL_LAYER_NODE_GROUP ||
            layers->rows[parent].id == entered)
            break;
        at = parent;
        outer = at;
    }
    return outer >= 0 && layers->rows[outer].id != entered ? layers->rows[outer].id : 0;
}

/* --- edits --------------------------------------------------------------------------- */

/* One more than the largest "_tb_id" of a layer or group. */
static long next_id(const al_layers *layers)
{
    long next = 1;
    for (int e = 0; e < layers->count; e++)
        if (layers->nodes[e].kind != AL_LAYER_NODE_PLAIN && layers->nodes[e].id >= next)
            next = layers->nodes[e].id + 1;
    return next;
}

/* Whether entity E of LAYERS is a layer or group (KIND), with a diagnostic if not. */
static al_status expect_kind(const al_layers *layers, int e, int64_t id, al_layer_kind kind,
                             al_diag_list *diags)
{
    if (e >= 0 && layers->nodes[e].kind == kind) return AL_OK;
    al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                "entity %lld is not a %s", (long long) id,
                kind == AL_LAYER_NODE_LAYER ? "layer" : "group");
    return e < 0 ? AL_ERR_NOT_FOUND : AL_ERR_INVALID_ARGUMENT;
}

/* Makes entity ID a member of container CONTAINER (entity index in LAYERS, 0: the default
 * layer): its "_tb_layer" and "_tb_group" keys say so. */
static al_status set_membership(al_doc *doc, const al_layers *layers, int64_t id, int container,
                                al_diag_list *diags)
{
    char value[32] = "";
    const al_layer_node *c = &layers->nodes[container];
    if (container > 0) snprintf(value, sizeof value, "%ld", c->id);
    bool layer = container > 0 && c->kind == AL_LAYER_NODE_LAYER;
    bool group = container > 0 && c->kind == AL_LAYER_NODE_GROUP;
    al_status st = al_doc_set_property(doc, id, "_tb_layer", layer ? value : NULL, NULL, diags);
    if (st == AL_OK)
        st = al_doc_set_property(doc, id, "_tb_group", group ? value : NULL, NULL, diags);
    return st;
}

/* Puts the loose brushes BRUSHES and the entities ENTITIES into container CONTAINER (entity
 * index in LAYERS; 0: the world, the default layer). */
static al_status put_into(al_doc *doc, const al_layers *layers, const int64_t *brushes,
                          int brush_count, const int64_t *entities, int entity_count, int container,
                          al_diag_list *diags)
{
    al_status st = AL_OK;
    for (int i = 0; i < entity_count && st == AL_OK; i++) {
        if (entities[i] == 0 || entities[i] == layers->rows[container].id) continue;
        st = set_membership(doc, layers, entities[i], container, diags);
    }
    if (st == AL_OK && brush_count > 0)
        st = al_doc_move_brushes_to_entity(doc, brushes, brush_count,
                                           container > 0 ? layers->rows[container].id : 0, NULL);
    return st;
}

/* Runs one edit of a layer or group as one step named LABEL: reads the layers, calls EDIT,
 * and ends (or cancels) the step. */
typedef struct edit_job {
    const int64_t *brushes, *entities;
    int brush_count, entity_count;
    int64_t target;
    const char *name;
    al_layer_flag_kind flag;
    bool on;
    int64_t made; /* the entity the edit made, if any */
} edit_job;

static al_status run_edit(al_doc *doc, const char *label, edit_job *job,
                          al_status (*edit)(al_doc *doc, const al_layers *layers, edit_job *job,
                                            al_diag_list *diags),
                          al_doc_change *change, al_diag_list *diags)
{
    al_layers layers;
    al_status st = al_layers_read(doc, &layers, NULL);
    if (st != AL_OK) return st;
    st = al_doc_begin_group(doc, label);
    if (st == AL_OK) {
        st = edit(doc, &layers, job, diags);
        if (st == AL_OK)
            st = al_doc_end_group(doc, change);
        else
            al_doc_cancel_group(doc);
    }
    al_layers_free(&layers);
    return st;
}

/* A new func_group entity of TYPE named NAME with the next id, inside CONTAINER. */
static al_status add_node(al_doc *doc, const al_layers *layers, const char *type, const char *name,
                          int container, int64_t *entity, al_diag_list *diags)
{
    cJSON *props = cJSON_CreateObject();
    char text[32];
    cJSON_AddStringToObject(props, "_tb_type", type);
    cJSON_AddStringToObject(props, "_tb_name", name);
    snprintf(text, sizeof text, "%ld", next_id(layers));
    cJSON_AddStringToObject(props, "_tb_id", text);
    if (strcmp(type, "_tb_layer") == 0) {
        int max = 0;
        for (int e = 1; e < layers->count; e++)
            if (layers->nodes[e].kind == AL_LAYER_NODE_LAYER && layers->nodes[e].sort >= max)
                max = layers->nodes[e].sort + 1;
        snprintf(text, sizeof text, "%d", max);
        cJSON_AddStringToObject(props, "_tb_layer_sort_index", text);
    } else if (container > 0) {
        snprintf(text, sizeof text, "%ld", layers->nodes[container].id);
        cJSON_AddStringToObject(
            props, layers->nodes[container].kind == AL_LAYER_NODE_LAYER ? "_tb_layer" : "_tb_group",
            text);
    }
    char *json = cJSON_PrintUnformatted(props);
    cJSON_Delete(props);
    if (!json) return AL_ERR_NOMEM;
    al_status st = al_doc_add_entity(doc, "func_group", json, entity, NULL, diags);
    free(json);
    return st;
}

static al_status check_name(const char *name, al_diag_list *diags)
{
    if (name && name[0]) return al_property_check("_tb_name", name, diags);
    al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                "a layer or group needs a name");
    return AL_ERR_INVALID_ARGUMENT;
}

static al_status add_layer_edit(al_doc *doc, const al_layers *layers, edit_job *job,
                                al_diag_list *diags)
{
    return add_node(doc, layers, "_tb_layer", job->name, 0, &job->made, diags);
}

al_status al_layers_add_layer(al_doc *doc, const char *name, int64_t *layer, al_doc_change *change,
                              al_diag_list *diags)
{
    al_status st = check_name(name, diags);
    if (st != AL_OK) return st;
    edit_job job = {.name = name};
    st = run_edit(doc, "New layer", &job, add_layer_edit, change, diags);
    if (st == AL_OK && layer) *layer = job.made;
    return st;
}

al_status al_layers_rename(al_doc *doc, int64_t entity, const char *name, al_doc_change *change,
                           al_diag_list *diags)
{
    al_layers layers;
    al_status st = check_name(name, diags);
    if (st == AL_OK) st = al_layers_read(doc, &layers, NULL);
    if (st != AL_OK) return st;
    int e = al_layers_find(&layers, entity);
    if (e <= 0 || layers.nodes[e].kind == AL_LAYER_NODE_PLAIN) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "entity %lld is not a layer or group", (long long) entity);
        st = e < 0 ? AL_ERR_NOT_FOUND : AL_ERR_INVALID_ARGUMENT;
    }
    al_layers_free(&layers);
    return st == AL_OK ? al_doc_set_property(doc, entity, "_tb_name", name, change, diags) : st;
}

al_status al_layers_set_flag(al_doc *doc, int64_t layer, al_layer_flag_kind flag, bool on,
                             al_doc_change *change, al_diag_list *diags)
{
    static const char *const keys[] = {"_tb_layer_hidden", "_tb_layer_locked",
                                       "_tb_layer_omit_from_export"};
    al_layers layers;
    al_status st = al_layers_read(doc, &layers, NULL);
    if (st != AL_OK) return st;
    int e = al_layers_find(&layers, layer);
    if (layer != 0) st = expect_kind(&layers, e, layer, AL_LAYER_NODE_LAYER, diags);
    al_layers_free(&layers);
    if (st == AL_OK && layer == 0 && flag == AL_LAYER_OMIT) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "the default layer (the world) cannot be omitted from export");
        st = AL_ERR_INVALID_ARGUMENT;
    }
    if (st != AL_OK) return st;
    return al_doc_set_property(doc, layer, keys[flag], on ? "1" : NULL, change, diags);
}

al_status al_layers_set_color(al_doc *doc, int64_t layer, const float rgb[3], al_doc_change *change,
                              al_diag_list *diags)
{
    al_layers layers;
    al_status st = al_layers_read(doc, &layers, NULL);
    if (st != AL_OK) return st;
    if (layer != 0)
        st =
            expect_kind(&layers, al_layers_find(&layers, layer), layer, AL_LAYER_NODE_LAYER, diags);
    al_layers_free(&layers);
    if (st != AL_OK) return st;
    char value[AL_LAYER_COLOR_SIZE];
    if (rgb) al_layer_color_format(rgb, value);
    return al_doc_set_property(doc, layer, "_tb_layer_color", rgb ? value : NULL, change, diags);
}

/* The loose brushes of entity row ID, malloc'd. */
static al_status brushes_of(al_doc *doc, int64_t id, int64_t **brushes, int *count)
{
    return al_doc_list_brushes(doc, id, brushes, count);
}

/* The entities whose parent is entity E, malloc'd into *OUT. */
static int64_t *children_of(const al_layers *layers, int e, int *count)
{
    int64_t *out = malloc(((size_t) layers->count + 1) * sizeof *out);
    *count = 0;
    for (int c = 0; out && c < layers->count; c++)
        if (layers->nodes[c].parent == e) out[(*count)++] = layers->rows[c].id;
    return out;
}

/* Empties the layer or group E into container INTO and deletes it. */
static al_status dissolve(al_doc *doc, const al_layers *layers, int e, int into,
                          al_diag_list *diags)
{
    int64_t *brushes = NULL;
    int brush_count = 0, child_count = 0;
    int64_t *children = children_of(layers, e, &child_count);
    al_status st =
        children ? brushes_of(doc, layers->rows[e].id, &brushes, &brush_count) : AL_ERR_NOMEM;
    if (st == AL_OK)
        st = put_into(doc, layers, brushes, brush_count, children, child_count, into, diags);
    /* Moving the last brush out deleted a group already; a layer, or a group of
     * entities only, is deleted here. */
    if (st == AL_OK && al_doc_entity_exists(doc, layers->rows[e].id))
        st = al_doc_delete_entities(doc, &layers->rows[e].id, 1, NULL);
    free(brushes);
    free(children);
    return st;
}

static al_status delete_layer_edit(al_doc *doc, const al_layers *layers, edit_job *job,
                                   al_diag_list *diags)
{
    int e = al_layers_find(layers, job->target);
    al_status st = expect_kind(layers, e, job->target, AL_LAYER_NODE_LAYER, diags);
    return st == AL_OK ? dissolve(doc, layers, e, 0, diags) : st;
}

al_status al_layers_delete_layer(al_doc *doc, int64_t layer, al_doc_change *change,
                                 al_diag_list *diags)
{
    edit_job job = {.target = layer};
    return run_edit(doc, "Delete layer", &job, delete_layer_edit, change, diags);
}

static al_status ungroup_edit(al_doc *doc, const al_layers *layers, edit_job *job,
                              al_diag_list *diags)
{
    int e = al_layers_find(layers, job->target);
    al_status st = expect_kind(layers, e, job->target, AL_LAYER_NODE_GROUP, diags);
    if (st != AL_OK) return st;
    int parent = layers->nodes[e].parent;
    return dissolve(doc, layers, e, parent > 0 ? parent : 0, diags);
}

al_status al_layers_ungroup(al_doc *doc, int64_t group, al_doc_change *change, al_diag_list *diags)
{
    edit_job job = {.target = group};
    return run_edit(doc, "Ungroup", &job, ungroup_edit, change, diags);
}

/* Splits JOB's brushes into loose ones (of the world, a layer or a group), into LOOSE, and
 * the brush entities the others stand for, added to ENTITIES after JOB's entities. */
static al_status split_members(al_doc *doc, const al_layers *layers, const edit_job *job,
                               int64_t *loose, int *loose_count, int64_t *entities,
                               int *entity_count)
{
    *loose_count = 0;
    *entity_count = 0;
    for (int i = 0; i < job->entity_count; i++) entities[(*entity_count)++] = job->entities[i];
    for (int i = 0; i < job->brush_count; i++) {
        int64_t owner = al_doc_brush_owner(doc, job->brushes[i]);
        int e = owner >= 0 ? al_layers_find(layers, owner) : -1;
        if (e < 0) return AL_ERR_NOT_FOUND;
        if (e == 0 || layers->nodes[e].kind != AL_LAYER_NODE_PLAIN) {
            loose[(*loose_count)++] = job->brushes[i];
            continue;
        }
        bool known = false;
        for (int k = 0; k < *entity_count; k++) known |= entities[k] == owner;
        if (!known) entities[(*entity_count)++] = owner;
    }
    return AL_OK;
}

static al_status move_to_layer_edit(al_doc *doc, const al_layers *layers, edit_job *job,
                                    al_diag_list *diags)
{
    int e = job->target == 0 ? 0 : al_layers_find(layers, job->target);
    al_status st =
        job->target == 0 ? AL_OK : expect_kind(layers, e, job->target, AL_LAYER_NODE_LAYER, diags);
    size_t n = (size_t) (job->brush_count + job->entity_count) + 1;
    int64_t *loose = malloc(n * sizeof *loose), *entities = malloc(n * sizeof *entities);
    int loose_count = 0, entity_count = 0;
    if (st == AL_OK && (!loose || !entities)) st = AL_ERR_NOMEM;
    if (st == AL_OK)
        st = split_members(doc, layers, job, loose, &loose_count, entities, &entity_count);
    /* An entity inside a group moves with its outermost group. */
    for (int i = 0; st == AL_OK && i < entity_count; i++) {
        int64_t outer = al_layers_outer_group(layers, entities[i], false, 0);
        if (outer) entities[i] = outer;
    }
    /* A loose brush of a group moves with its group, too. */
    int kept = 0;
    for (int i = 0; st == AL_OK && i < loose_count; i++) {
        int64_t outer = al_layers_outer_group(layers, al_doc_brush_owner(doc, loose[i]), true, 0);
        if (outer)
            entities[entity_count++] = outer;
        else
            loose[kept++] = loose[i];
    }
    if (st == AL_OK) st = put_into(doc, layers, loose, kept, entities, entity_count, e, diags);
    free(loose);
    free(entities);
    return st;
}

al_status al_layers_move_to_layer(al_doc *doc, const int64_t *brushes, int brush_count,
                                  const int64_t *entities, int entity_count, int64_t layer,
                                  al_doc_change *change, al_diag_list *diags)
{
    edit_job job = {brushes, entities, brush_count, entity_count, .target = layer};
    return run_edit(doc, "Move to layer", &job, move_to_layer_edit, change, diags);
}

static al_status group_edit(al_doc *doc, const al_layers *layers, edit_job *job,
                            al_diag_list *diags)
{
    size_t n = (size_t) (job->brush_count + job->entity_count) + 1;
    int64_t *loose = malloc(n * sizeof *loose), *entities = malloc(n * sizeof *entities);
    int loose_count = 0, entity_count = 0;
    al_status st = loose && entities ? AL_OK : AL_ERR_NOMEM;
    if (st == AL_OK)
        st = split_members(doc, layers, job, loose, &loose_count, entities, &entity_count);
    /* The new group goes where the first member is: a loose brush's container, or an
     * entity's parent. */
    int container = 0;
    if (st == AL_OK && loose_count > 0) {
        int e = al_layers_find(layers, al_doc_brush_owner(doc, loose[0]));
        container = e > 0 ? e : 0;
    } else if (st == AL_OK && entity_count > 0) {
        int e = al_layers_find(layers, entities[0]);
        container = e > 0 && layers->nodes[e].parent > 0 ? layers->nodes[e].parent : 0;
    } else if (st == AL_OK) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "a group needs at least one brush or entity");
        st = AL_ERR_INVALID_ARGUMENT;
    }
    if (st == AL_OK)
        st = add_node(doc, layers, "_tb_group", job->name, container, &job->made, diags);
    if (st == AL_OK) {
        /* The new group is not in LAYERS: read them again to make it a container. */
        al_layers again;
        st = al_layers_read(doc, &again, NULL);
        if (st == AL_OK) {
            int g = al_layers_find(&again, job->made);
            st = put_into(doc, &again, loose, loose_count, entities, entity_count, g, diags);
            al_layers_free(&again);
        }
    }
    free(loose);
    free(entities);
    return st;
}

al_status al_layers_group(al_doc *doc, const int64_t *brushes, int brush_count,
                          const int64_t *entities, int entity_count, const char *name,
                          int64_t *group, al_doc_change *change, al_diag_list *diags)
{
    al_status st = check_name(name, diags);
    if (st != AL_OK) return st;
    edit_job job = {brushes, entities, brush_count, entity_count, .name = name};
    st = run_edit(doc, "Group", &job, group_edit, change, diags);
    if (st == AL_OK && group) *group = job.made;
    return st;
}
