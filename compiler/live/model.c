/* The live engine's map by ids (see model.h). */
#include "model.h"

#include "core/one-block.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

static size_t count_of(int32_t n)
{
    return n > 0 ? (size_t) n : 0;
}

al_live_change *live_change_copy(const al_live_change *c)
{
    size_t props = 0, texts = 0, faces = 0;
    size_t n_ent = count_of(c->entity_count), n_brush = count_of(c->brush_count);
    size_t n_mat = c->set_materials ? count_of(c->material_count) : 0;
    size_t n_hull = c->set_hulls && c->hulls ? count_of(c->hull_count) : 0;
    for (size_t e = 0; e < n_ent; e++) {
        const al_live_entity *d = &c->entities[e];
        if (d->removed) continue;
        texts += al_block_text_size(d->classname);
        props += count_of(d->property_count);
        for (int p = 0; p < d->property_count; p++)
            texts += al_block_text_size(d->properties[p].key) +
                     al_block_text_size(d->properties[p].value);
    }
    for (size_t b = 0; b < n_brush; b++)
        if (!c->brushes[b].removed) faces += count_of(c->brushes[b].face_count);
    for (size_t m = 0; m < n_mat; m++) texts += al_block_text_size(c->materials[m].name);
    size_t size =
        al_block_round(sizeof(al_live_change)) + al_block_round(n_ent * sizeof(al_live_entity)) +
        al_block_round(props * sizeof(al_property)) +
        al_block_round(n_brush * sizeof(al_live_brush)) +
        al_block_round(faces * sizeof(al_live_face)) +
        al_block_round(n_mat * sizeof(al_material_desc)) + al_block_round(n_mat * sizeof(int64_t)) +
        al_block_round(n_hull * sizeof(al_hull_desc)) + texts + 1;
    al_one_block b = {malloc(size), 0};
    if (!b.base) return NULL;
    al_live_change *out = al_block_take(&b, sizeof *out);
    *out = *c;
    al_live_entity *entities = al_block_take(&b, n_ent * sizeof *entities);
    al_property *prop = al_block_take(&b, props * sizeof *prop);
    al_live_brush *brushes = al_block_take(&b, n_brush * sizeof *brushes);
    al_live_face *face = al_block_take(&b, faces * sizeof *face);
    al_material_desc *materials = al_block_take(&b, n_mat * sizeof *materials);
    int64_t *material_ids = al_block_take(&b, n_mat * sizeof *material_ids);
    al_hull_desc *hulls = al_block_take(&b, n_hull * sizeof *hulls);
    char *text = b.base + b.used;
    for (size_t e = 0; e < n_ent; e++) {
        const al_live_entity *d = &c->entities[e];
        entities[e] = *d;
        if (d->removed) {
            entities[e].classname = NULL;
            entities[e].properties = NULL;
            entities[e].property_count = 0;
            continue;
        }
        entities[e].classname = al_block_put_text(&text, d->classname);
        entities[e].properties = prop;
        for (int p = 0; p < d->property_count; p++, prop++) {
            prop->key = al_block_put_text(&text, d->properties[p].key);
            prop->value = al_block_put_text(&text, d->properties[p].value);
        }
    }
    for (size_t i = 0; i < n_brush; i++) {
        const al_live_brush *d = &c->brushes[i];
        brushes[i] = *d;
        if (d->removed || d->face_count <= 0) {
            brushes[i].faces = NULL;
            brushes[i].face_count = 0;
            continue;
        }
        memcpy(face, d->faces, (size_t) d->face_count * sizeof *face);
        brushes[i].faces = face;
        face += d->face_count;
    }
    for (size_t m = 0; m < n_mat; m++) {
        materials[m] = c->materials[m];
        materials[m].name = al_block_put_text(&text, c->materials[m].name);
        material_ids[m] = c->material_ids ? c->material_ids[m] : (int64_t) m;
    }
    if (n_hull) memcpy(hulls, c->hulls, n_hull * sizeof *hulls);
    out->entities = n_ent ? entities : NULL;
    out->brushes = n_brush ? brushes : NULL;
    out->materials = n_mat ? materials : NULL;
    out->material_ids = n_mat ? material_ids : NULL;
    out->material_count = (int32_t) n_mat;
    out->hulls = n_hull ? hulls : NULL;
    out->hull_count = (int32_t) n_hull;
    return out;
}

/* --- ids to slots ------------------------------------------------------------------------ */

/* Open addressing with linear probing and backward-shift deletion: id -> slot. */
typedef struct id_table {
    int64_t *keys;
    int32_t *slots; /* -1: empty */
    size_t mask;    /* capacity - 1 (a power of two), 0 before the first insert */
    size_t count;
} id_table;

static size_t id_hash(int64_t id, size_t mask)
{
    uint64_t z = (uint64_t) id * 0x9E3779B97F4A7C15ull;
    return (size_t) (z ^ (z >> 29)) & mask;
}

static int32_t id_find(const id_table *t, int64_t id)
{
    if (!t->mask) return -1;
    for (size_t i = id_hash(id, t->mask);; i = (i + 1) & t->mask) {
        if (t->slots[i] < 0) return -1;
        if (t->keys[i] == id) return t->slots[i];
    }
}

static bool id_grow(id_table *t)
{
    size_t cap = t->mask ? (t->mask + 1) * 2 : 64;
    int64_t *keys = malloc(cap * sizeof *keys);
    int32_t *slots = malloc(cap * sizeof *slots);
    if (!keys || !slots) {
        free(keys);
        free(slots);
        return false;
    }
    for (size_t i = 0; i < cap; i++) slots[i] = -1;
    for (size_t i = 0; t->mask && i <= t->mask; i++) {
        if (t->slots[i] < 0) continue;
        size_t j = id_hash(t->keys[i], cap - 1);
        while (slots[j] >= 0) j = (j + 1) & (cap - 1);
        keys[j] = t->keys[i];
        slots[j] = t->slots[i];
    }
    free(t->keys);
    free(t->slots);
    t->keys = keys;
    t->slots = slots;
    t->mask = cap - 1;
    return true;
}

/* Sets ID's slot (adding it); false if memory ran out. */
static bool id_set(id_table *t, int64_t id, int32_t slot)
{
    size_t i = t->mask ? id_hash(id, t->mask) : 0;
    while (t->mask && t->slots[i] >= 0 && t->keys[i] != id) i = (i + 1) & t->mask;
    if (t->mask && t->slots[i] >= 0) { /* an update never allocates */
        t->slots[i] = slot;
        return true;
    }
    if ((t->count + 1) * 2 > (t->mask ? t->mask + 1 : 0)) {
        if (!id_grow(t)) return false;
        i = id_hash(id, t->mask);
        while (t->slots[i] >= 0) i = (i + 1) & t->mask;
    }
    t->count++;
    t->keys[i] = id;
    t->slots[i] = slot;
    return true;
}

static void id_remove(id_table *t, int64_t id)
{
    if (!t->mask) return;
    size_t i = id_hash(id, t->mask);
    while (t->slots[i] >= 0 && t->keys[i] != id) i = (i + 1) & t->mask;
    if (t->slots[i] < 0) return;
    t->count--;
    /* Shift the rest of the run back over the hole, so that probes still find them. */
    for (size_t j = (i + 1) & t->mask; t->slots[j] >= 0; j = (j + 1) & t->mask) {
        size_t home = id_hash(t->keys[j], t->mask);
        /* J may move into I when its home is not in (I, J] cyclically. */
        bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (between) continue;
        t->keys[i] = t->keys[j];
        t->slots[i] = t->slots[j];
        i = j;
    }
    t->slots[i] = -1;
}

static void id_free(id_table *t)
{
    free(t->keys);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* --- the model ---------------------------------------------------------------------------- */

typedef struct model_entity {
    int64_t id;
    double order;
    char *classname; /* owned */
    al_property *properties; /* owned, with their strings */
    int32_t property_count;
    uint64_t version;
    bool seen; /* by the replace being applied */
} model_entity;

typedef struct model_brush {
    int64_t id, entity;
    double order;
    al_live_face *faces; /* owned */
    int32_t face_count;
    uint64_t version;
    bool seen;
    /* Its content key (al_brush_desc_key), as last flattened, and what it was made of: the
     * versions of the brush, its entity and the materials, and whether its entity was the
     * world. Stale when any of them differs. */
    uint64_t key, key_versions[3];
    bool key_made, key_world;
} model_brush;

typedef struct sort_key {
    double order;
    int64_t id;
    int32_t group; /* brushes: their entity's input index */
    int32_t slot;
} sort_key;

struct live_model {
    model_entity *entities;
    int32_t entity_count, entity_cap;
    model_brush *brushes;
    int32_t brush_count, brush_cap;
    id_table entity_slots, brush_slots;
    al_material_desc *materials; /* sorted by id, names owned */
    int64_t *material_ids;
    int32_t material_count;
    uint64_t materials_version;
    al_hull_desc *hulls;
    int32_t hull_count;
    double block_size;
    /* The flattened order of the entities and brushes and the id tables, as the last
     * flattening made them: kept while no entity or brush comes, goes, moves in the order
     * or to another entity (an edit of a brush's faces keeps them; sorting a 20,000-brush
     * map's brushes again took longer than the rest of the flattening). */
    bool order_stale;
    sort_key *sorted_ents, *sorted_brushes;
    int64_t (*sorted_ent_index)[2], (*sorted_brush_index)[2];
    int32_t sorted_ent_count, sorted_brush_count, sorted_dropped;
};

live_model *live_model_create(void)
{
    return calloc(1, sizeof(live_model));
}

static void forget_order(live_model *m)
{
    free(m->sorted_ents), free(m->sorted_brushes);
    free(m->sorted_ent_index), free(m->sorted_brush_index);
    m->sorted_ents = m->sorted_brushes = NULL;
    m->sorted_ent_index = m->sorted_brush_index = NULL;
    m->order_stale = true;
}

static void entity_clear(model_entity *e)
{
    for (int i = 0; i < e->property_count; i++) {
        free((char *) e->properties[i].key);
        free((char *) e->properties[i].value);
    }
    free(e->properties);
    free(e->classname);
    e->properties = NULL;
    e->property_count = 0;
    e->classname = NULL;
}

static void free_materials(live_model *m)
{
    for (int i = 0; i < m->material_count; i++) free((char *) m->materials[i].name);
    free(m->materials);
    free(m->material_ids);
    m->materials = NULL;
    m->material_ids = NULL;
    m->material_count = 0;
}

void live_model_destroy(live_model *m)
{
    if (!m) return;
    for (int i = 0; i < m->entity_count; i++) entity_clear(&m->entities[i]);
    for (int i = 0; i < m->brush_count; i++) free(m->brushes[i].faces);
    free(m->entities);
    free(m->brushes);
    id_free(&m->entity_slots);
    id_free(&m->brush_slots);
    free_materials(m);
    free(m->hulls);
    forget_order(m);
    free(m);
}

static char *dup_text(const char *s)
{
    if (!s) s = "";
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

static bool same_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool same_entity(const model_entity *e, const al_live_entity *d)
{
    if (!same_text(e->classname, d->classname) || e->property_count != d->property_count)
        return false;
    for (int i = 0; i < d->property_count; i++)
        if (!same_text(e->properties[i].key, d->properties[i].key) ||
            !same_text(e->properties[i].value, d->properties[i].value))
            return false;
    return true;
}

static bool same_faces(const al_live_face *a, const al_live_face *b, int count)
{
    for (int i = 0; i < count; i++) {
        if (a[i].material != b[i].material || a[i].luxel_size != b[i].luxel_size ||
            memcmp(a[i].points, b[i].points, sizeof a[i].points) != 0 ||
            memcmp(a[i].texture_axes, b[i].texture_axes, sizeof a[i].texture_axes) != 0)
            return false;
    }
    return true;
}

static bool grow(void **items, int32_t *cap, int32_t need, size_t size)
{
    if (need <= *cap) return true;
    int32_t n = *cap ? *cap * 2 : 64;
    while (n < need) n *= 2;
    void *p = realloc(*items, (size_t) n * size);
    if (!p) return false;
    *items = p;
    *cap = n;
    return true;
}

static bool set_entity(live_model *m, const al_live_entity *d, uint64_t generation)
{
    int32_t slot = id_find(&m->entity_slots, d->id);
    if (slot >= 0) {
        model_entity *e = &m->entities[slot];
        if (e->order != d->order) m->order_stale = true;
        e->order = d->order;
        e->seen = true;
        if (same_entity(e, d)) return true;
        entity_clear(e);
    } else {
        if (!grow((void **) &m->entities, &m->entity_cap, m->entity_count + 1,
                  sizeof *m->entities) ||
            !id_set(&m->entity_slots, d->id, m->entity_count))
            return false;
        slot = m->entity_count++;
        m->entities[slot] = (model_entity){.id = d->id, .order = d->order, .seen = true};
        m->order_stale = true;
    }
    model_entity *e = &m->entities[slot];
    e->version = generation;
    e->classname = dup_text(d->classname);
    e->properties = d->property_count > 0 ? calloc((size_t) d->property_count, sizeof *e->properties)
                                          : NULL;
    if (!e->classname || (d->property_count > 0 && !e->properties)) return false;
    for (int i = 0; i < d->property_count; i++) {
        e->properties[i].key = dup_text(d->properties[i].key);
        e->properties[i].value = dup_text(d->properties[i].value);
        e->property_count = i + 1;
        if (!e->properties[i].key || !e->properties[i].value) return false;
    }
    return true;
}

static void remove_brush_slot(live_model *m, int32_t slot)
{
    model_brush *b = &m->brushes[slot];
    m->order_stale = true;
    id_remove(&m->brush_slots, b->id);
    free(b->faces);
    int32_t last = --m->brush_count;
    if (slot != last) {
        m->brushes[slot] = m->brushes[last];
        id_set(&m->brush_slots, m->brushes[slot].id, slot); /* an update */
    }
}

static void remove_entity(live_model *m, int64_t id)
{
    int32_t slot = id_find(&m->entity_slots, id);
    if (slot < 0) return;
    m->order_stale = true;
    for (int32_t b = m->brush_count - 1; b >= 0; b--)
        if (m->brushes[b].entity == id) remove_brush_slot(m, b);
    entity_clear(&m->entities[slot]);
    id_remove(&m->entity_slots, id);
    int32_t last = --m->entity_count;
    if (slot != last) {
        m->entities[slot] = m->entities[last];
        id_set(&m->entity_slots, m->entities[slot].id, slot);
    }
}

static bool set_brush(live_model *m, const al_live_brush *d, uint64_t generation)
{
    int32_t slot = id_find(&m->brush_slots, d->id);
    if (slot >= 0) {
        model_brush *b = &m->brushes[slot];
        if (b->order != d->order || b->entity != d->entity) m->order_stale = true;
        b->order = d->order;
        b->seen = true;
        if (b->entity == d->entity && b->face_count == d->face_count &&
            same_faces(b->faces, d->faces, d->face_count))
            return true;
        free(b->faces);
        b->faces = NULL;
        b->face_count = 0;
    } else {
        if (!grow((void **) &m->brushes, &m->brush_cap, m->brush_count + 1, sizeof *m->brushes) ||
            !id_set(&m->brush_slots, d->id, m->brush_count))
            return false;
        slot = m->brush_count++;
        m->brushes[slot] = (model_brush){.id = d->id, .order = d->order, .seen = true};
        m->order_stale = true;
    }
    model_brush *b = &m->brushes[slot];
    b->entity = d->entity;
    b->version = generation;
    int32_t n = d->face_count > 0 ? d->face_count : 0;
    if (n) {
        b->faces = malloc((size_t) n * sizeof *b->faces);
        if (!b->faces) return false;
        memcpy(b->faces, d->faces, (size_t) n * sizeof *b->faces);
    }
    b->face_count = n;
    return true;
}

static bool same_material(const al_material_desc *a, const al_material_desc *b)
{
    return same_text(a->name, b->name) && a->flags == b->flags && a->reflectance == b->reflectance &&
           memcmp(a->colour, b->colour, sizeof a->colour) == 0 &&
           memcmp(a->emission, b->emission, sizeof a->emission) == 0;
}

static int compare_id_index(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

static bool set_materials(live_model *m, const al_live_change *c, uint64_t generation)
{
    int32_t n = c->material_count > 0 ? c->material_count : 0;
    /* Sorted by id, as faces look them up. */
    int64_t (*order)[2] = malloc(((size_t) n + 1) * sizeof *order);
    al_material_desc *mats = calloc((size_t) n + 1, sizeof *mats);
    int64_t *ids = malloc(((size_t) n + 1) * sizeof *ids);
    if (!order || !mats || !ids) {
        free(order);
        free(mats);
        free(ids);
        return false;
    }
    for (int32_t i = 0; i < n; i++) {
        order[i][0] = c->material_ids[i];
        order[i][1] = i;
    }
    qsort(order, (size_t) n, sizeof *order, compare_id_index);
    bool same = n == m->material_count;
    bool ok = true;
    for (int32_t i = 0; i < n; i++) {
        const al_material_desc *src = &c->materials[order[i][1]];
        mats[i] = *src;
        ids[i] = order[i][0];
        mats[i].name = dup_text(src->name);
        ok = ok && mats[i].name;
        same = same && ids[i] == m->material_ids[i] && same_material(&mats[i], &m->materials[i]);
    }
    free(order);
    if (!ok) {
        for (int32_t i = 0; i < n; i++) free((char *) mats[i].name);
        free(mats);
        free(ids);
        return false;
    }
    free_materials(m);
    m->materials = mats;
    m->material_ids = ids;
    m->material_count = n;
    if (!same) m->materials_version = generation;
    return true;
}

bool live_model_apply(live_model *m, const al_live_change *c, uint64_t generation)
{
    if (c->replace) {
        for (int32_t i = 0; i < m->entity_count; i++) m->entities[i].seen = false;
        for (int32_t i = 0; i < m->brush_count; i++) m->brushes[i].seen = false;
    }
    /* Entities first, so that a change moving brushes into a new entity finds it; removed
     * entities take their brushes with them before the brushes of the change come in. */
    for (int32_t i = 0; i < c->entity_count; i++) {
        const al_live_entity *d = &c->entities[i];
        if (d->removed) remove_entity(m, d->id);
        else if (!set_entity(m, d, generation)) return false;
    }
    for (int32_t i = 0; i < c->brush_count; i++) {
        const al_live_brush *d = &c->brushes[i];
        if (d->removed) {
            int32_t slot = id_find(&m->brush_slots, d->id);
            if (slot >= 0) remove_brush_slot(m, slot);
        } else if (!set_brush(m, d, generation)) {
            return false;
        }
    }
    if (c->replace) {
        for (int32_t i = m->brush_count - 1; i >= 0; i--)
            if (!m->brushes[i].seen) remove_brush_slot(m, i);
        for (int32_t i = m->entity_count - 1; i >= 0; i--)
            if (!m->entities[i].seen) remove_entity(m, m->entities[i].id);
    }
    if (c->set_materials && !set_materials(m, c, generation)) return false;
    if (c->set_hulls) {
        int32_t n = c->hull_count > 0 && c->hulls ? c->hull_count : 0;
        al_hull_desc *h = n ? malloc((size_t) n * sizeof *h) : NULL;
        if (n && !h) return false;
        if (n) memcpy(h, c->hulls, (size_t) n * sizeof *h);
        free(m->hulls);
        m->hulls = h;
        m->hull_count = n;
    }
    if (c->set_block_size) m->block_size = c->block_size;
    return true;
}

/* --- flattening ---------------------------------------------------------------------------- */

static int compare_keys(const void *a, const void *b)
{
    const sort_key *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The input index of material ID (binary search), or -1. */
static int32_t material_index(const live_model *m, int64_t id)
{
    int32_t lo = 0, hi = m->material_count - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (m->material_ids[mid] == id) return mid;
        if (m->material_ids[mid] < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* The content key of brush SLOT, input brush I of VIEW (whose entities, materials and
 * faces up to I's are written), in entity E: kept from the last flattening while what it
 * was made of stands (an edit changes a few brushes; hashing every brush's faces again
 * cost a 20,000-brush map about 5 ms an edit). */
static uint64_t brush_key(live_model *m, int32_t slot, const model_entity *e, bool world,
                          const al_input *view, int32_t i)
{
    model_brush *b = &m->brushes[slot];
    const uint64_t v[3] = {b->version, e->version, m->materials_version};
    if (!b->key_made || b->key_world != world || memcmp(b->key_versions, v, sizeof v) != 0) {
        b->key = al_brush_desc_key(view, i);
        memcpy(b->key_versions, v, sizeof v);
        b->key_world = world;
        b->key_made = true;
    }
    return b->key;
}

/* Sorts the model's entities and brushes into their input order (M's sorted arrays and
 * count of dropped brushes; the id tables are made by live_model_flatten). False if
 * memory runs out. */
static bool sort_order(live_model *m)
{
    forget_order(m);
    size_t n_ent = (size_t) m->entity_count;
    sort_key *ents = malloc((n_ent + 1) * sizeof *ents);
    sort_key *brushes = malloc(((size_t) m->brush_count + 1) * sizeof *brushes);
    /* The entities' input indices, by model slot, for grouping the brushes. */
    int32_t *entity_index = malloc((n_ent + 1) * sizeof *entity_index);
    if (!ents || !brushes || !entity_index) {
        free(ents), free(brushes), free(entity_index);
        return false;
    }
    for (size_t e = 0; e < n_ent; e++) {
        const model_entity *d = &m->entities[e];
        ents[e] = (sort_key){d->order, d->id, 0, (int32_t) e};
    }
    qsort(ents, n_ent, sizeof *ents, compare_keys);
    for (size_t i = 0; i < n_ent; i++) entity_index[ents[i].slot] = (int32_t) i;
    int32_t n_brush = 0, dropped = 0;
    for (int32_t b = 0; b < m->brush_count; b++) {
        const model_brush *d = &m->brushes[b];
        int32_t e = id_find(&m->entity_slots, d->entity);
        if (e < 0) {
            dropped++;
            continue;
        }
        brushes[n_brush++] = (sort_key){d->order, d->id, entity_index[e], b};
    }
    qsort(brushes, (size_t) n_brush, sizeof *brushes, compare_keys);
    free(entity_index);
    m->sorted_ents = ents, m->sorted_brushes = brushes;
    m->sorted_ent_count = (int32_t) n_ent, m->sorted_brush_count = n_brush;
    m->sorted_dropped = dropped;
    return true;
}

live_map *live_model_flatten(live_model *m)
{
    size_t n_ent = (size_t) m->entity_count, n_mat = (size_t) m->material_count;
    size_t n_hull = (size_t) m->hull_count;
    bool sorted = !m->order_stale && m->sorted_ent_index && m->sorted_brush_index;
    if (!sorted && !sort_order(m)) return NULL;
    const sort_key *ents = m->sorted_ents, *brushes = m->sorted_brushes;
    size_t n_brush = (size_t) m->sorted_brush_count, n_face = 0;
    int dropped = m->sorted_dropped;
    size_t props = 0, texts = 0;
    for (size_t e = 0; e < n_ent; e++) {
        const model_entity *d = &m->entities[e];
        texts += al_block_text_size(d->classname);
        props += count_of(d->property_count);
        for (int p = 0; p < d->property_count; p++)
            texts += al_block_text_size(d->properties[p].key) +
                     al_block_text_size(d->properties[p].value);
    }
    for (size_t i = 0; i < n_brush; i++) n_face += (size_t) m->brushes[brushes[i].slot].face_count;
    for (size_t m_ = 0; m_ < n_mat; m_++) texts += al_block_text_size(m->materials[m_].name);

    size_t size =
        al_block_round(sizeof(live_map)) + al_block_round(n_mat * sizeof(al_material_desc)) +
        al_block_round(n_ent * sizeof(al_entity_desc)) +
        al_block_round(props * sizeof(al_property)) +
        al_block_round(n_brush * sizeof(al_brush_desc)) +
        al_block_round(n_face * sizeof(al_face_desc)) +
        al_block_round(n_hull * sizeof(al_hull_desc)) +
        2 * al_block_round(n_brush * sizeof(int64_t)) +
        2 * al_block_round(n_ent * sizeof(int64_t)) + al_block_round(n_brush * sizeof(int64_t[2])) +
        al_block_round(n_ent * sizeof(int64_t[2])) + al_block_round(n_brush * sizeof(uint64_t)) +
        texts + 1;
    /* (Not zeroed: every field is written below. A block of the size of the last one then
     * comes from memory already mapped and touched, not zeroed again: on a 20,000-brush map,
     * 20 MB, about a millisecond of an edit's collision.) */
    al_one_block blk = {malloc(size), 0};
    if (!blk.base) return NULL;
    live_map *map = al_block_take(&blk, sizeof *map);
    al_material_desc *mats = al_block_take(&blk, n_mat * sizeof *mats);
    al_entity_desc *edesc = al_block_take(&blk, n_ent * sizeof *edesc);
    al_property *prop = al_block_take(&blk, props * sizeof *prop);
    al_brush_desc *bdesc = al_block_take(&blk, n_brush * sizeof *bdesc);
    al_face_desc *fdesc = al_block_take(&blk, n_face * sizeof *fdesc);
    al_hull_desc *hulls = al_block_take(&blk, n_hull * sizeof *hulls);
    int64_t *brush_ids = al_block_take(&blk, n_brush * sizeof *brush_ids);
    uint64_t *brush_versions = al_block_take(&blk, n_brush * sizeof *brush_versions);
    int64_t *entity_ids = al_block_take(&blk, n_ent * sizeof *entity_ids);
    uint64_t *entity_versions = al_block_take(&blk, n_ent * sizeof *entity_versions);
    int64_t(*brush_index)[2] = al_block_take(&blk, n_brush * sizeof *brush_index);
    int64_t(*ent_index)[2] = al_block_take(&blk, n_ent * sizeof *ent_index);
    uint64_t *brush_keys = al_block_take(&blk, n_brush * sizeof *brush_keys);
    char *text = blk.base + blk.used;

    for (size_t i = 0; i < n_mat; i++) {
        mats[i] = m->materials[i];
        mats[i].name = al_block_put_text(&text, m->materials[i].name);
    }
    for (size_t i = 0; i < n_ent; i++) {
        const model_entity *d = &m->entities[ents[i].slot];
        edesc[i] = (al_entity_desc){.classname = al_block_put_text(&text, d->classname),
                                    .line = -1,
                                    .properties = prop,
                                    .property_count = d->property_count};
        for (int p = 0; p < d->property_count; p++, prop++) {
            prop->key = al_block_put_text(&text, d->properties[p].key);
            prop->value = al_block_put_text(&text, d->properties[p].value);
        }
        entity_ids[i] = d->id;
        entity_versions[i] = d->version;
        ent_index[i][0] = d->id;
        ent_index[i][1] = (int64_t) i;
    }
    /* The input as far as it is written, for the brushes' keys. */
    const al_input view = {.materials = mats,
                           .material_count = (int32_t) n_mat,
                           .entities = edesc,
                           .entity_count = (int32_t) n_ent,
                           .brushes = bdesc,
                           .brush_count = (int32_t) n_brush,
                           .faces = fdesc,
                           .face_count = (int32_t) n_face};
    size_t f = 0;
    int32_t last_entity = -1, in_entity = 0;
    for (size_t i = 0; i < n_brush; i++) {
        const model_brush *d = &m->brushes[brushes[i].slot];
        if (brushes[i].group != last_entity) {
            last_entity = brushes[i].group;
            in_entity = 0;
        }
        bdesc[i] = (al_brush_desc){.entity = brushes[i].group, .index = in_entity++,
                                   .first_face = (int32_t) f, .face_count = d->face_count,
                                   .line = -1};
        for (int k = 0; k < d->face_count; k++, f++) {
            memcpy(fdesc[f].points, d->faces[k].points, sizeof fdesc[f].points);
            fdesc[f].material = material_index(m, d->faces[k].material);
            fdesc[f].luxel_size = d->faces[k].luxel_size;
            memcpy(fdesc[f].texture_axes, d->faces[k].texture_axes, sizeof fdesc[f].texture_axes);
        }
        brush_ids[i] = d->id;
        brush_versions[i] = d->version;
        brush_keys[i] = brush_key(m, brushes[i].slot, &m->entities[ents[brushes[i].group].slot],
                                  brushes[i].group == 0, &view, (int32_t) i);
        brush_index[i][0] = d->id;
        brush_index[i][1] = (int64_t) i;
    }
    if (n_hull) memcpy(hulls, m->hulls, n_hull * sizeof *hulls);
    if (sorted) {
        memcpy(brush_index, m->sorted_brush_index, n_brush * sizeof *brush_index);
        memcpy(ent_index, m->sorted_ent_index, n_ent * sizeof *ent_index);
    } else {
        qsort(brush_index, n_brush, sizeof *brush_index, compare_id_index);
        qsort(ent_index, n_ent, sizeof *ent_index, compare_id_index);
        /* Kept for the flattenings to come while the order stands. */
        m->sorted_brush_index = malloc((n_brush + 1) * sizeof *brush_index);
        m->sorted_ent_index = malloc((n_ent + 1) * sizeof *ent_index);
        if (m->sorted_brush_index && m->sorted_ent_index) {
            memcpy(m->sorted_brush_index, brush_index, n_brush * sizeof *brush_index);
            memcpy(m->sorted_ent_index, ent_index, n_ent * sizeof *ent_index);
            m->order_stale = false;
        }
    }

    map->refs = 1;
    map->input = (al_input){.materials = n_mat ? mats : NULL,
                            .material_count = (int32_t) n_mat,
                            .entities = n_ent ? edesc : NULL,
                            .entity_count = (int32_t) n_ent,
                            .brushes = n_brush ? bdesc : NULL,
                            .brush_count = (int32_t) n_brush,
                            .faces = n_face ? fdesc : NULL,
                            .face_count = (int32_t) n_face,
                            .hulls = n_hull ? hulls : NULL,
                            .hull_count = (int32_t) n_hull,
                            .block_size = m->block_size,
                            .brush_keys = n_brush ? brush_keys : NULL};
    map->brush_ids = brush_ids;
    map->entity_ids = entity_ids;
    map->brush_versions = brush_versions;
    map->entity_versions = entity_versions;
    map->materials_version = m->materials_version;
    map->brush_index = (const int64_t (*)[2]) brush_index;
    map->entity_index = (const int64_t (*)[2]) ent_index;
    map->dropped_brushes = dropped;
    return map;
}

live_map *live_map_ref(live_map *map)
{
    if (map) __atomic_add_fetch(&map->refs, 1, __ATOMIC_RELAXED);
    return map;
}

void live_map_release(live_map *map)
{
    if (map && __atomic_sub_fetch(&map->refs, 1, __ATOMIC_ACQ_REL) == 0) free(map);
}

int live_map_find(const int64_t (*table)[2], int count, int64_t id)
{
    int lo = 0, hi = count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (table[mid][0] == id) return (int) table[mid][1];
        if (table[mid][0] < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}
