/* AlliumSnapshot (see allium-snapshot.h): ownership of one compiled state of a map, its
 * scene, the look-ups the views need from it (document rows to input indices, entity
 * properties) and its one-line description for the status bar.
 *
 * Workload: one snapshot per stage the engine publishes; the look-ups run per click and
 * per frame (rows to indices: a binary search in the engine snapshot's table). */
#include "allium-config.h"

#include "allium-snapshot.h"

#include "allium-document.h"
#include "allium-entity-definitions.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

G_DEFINE_BOXED_TYPE(AlliumSnapshot, allium_snapshot, allium_snapshot_ref, allium_snapshot_unref)

static void clear_snapshot(gpointer data)
{
    AlliumSnapshot *s = data;
    /* The scene borrows the engine snapshot's world: it goes first. */
    al_scene_destroy(s->scene);
    al_snapshot_release(s->engine);
    al_diag_list_clear(&s->diags);
    allium_definition_set_unref(s->definitions);
}

AlliumSnapshot *allium_snapshot_new(al_snapshot *engine, const al_diag_list *doc_diags)
{
    AlliumSnapshot *s = g_atomic_rc_box_new0(AlliumSnapshot);
    s->status = AL_OK;
    s->lights = -1;
    if (doc_diags) al_diag_append(&s->diags, doc_diags);
    if (!engine) return s;
    s->engine = al_snapshot_ref(engine);
    s->generation = al_snapshot_generation(engine);
    s->stage = al_snapshot_stage(engine);
    s->input.input = *al_snapshot_input(engine);
    s->input.brush_ids = al_snapshot_brush_ids(engine);
    s->input.entity_ids = al_snapshot_entity_ids(engine);
    s->world = al_snapshot_world(engine);
    s->rad = s->world ? al_snapshot_rad(engine) : NULL;
    s->status = al_snapshot_status(engine);
    s->from_cache = al_snapshot_from_cache(engine);
    s->light_from_cache = al_snapshot_light_from_cache(engine);
    al_diag_append(&s->diags, al_snapshot_diagnostics(engine));
    if (s->rad) {
        al_rad_stats st;
        al_rad_get_stats(s->rad, &st);
        s->lights = st.lights;
    }
    if (s->world) {
        al_world_stats ws;
        al_world_get_stats(s->world, &ws);
        s->blocks = ws.blocks;
        s->blocks_built = ws.blocks_built;
    }
    return s;
}

AlliumSnapshot *allium_snapshot_ref(AlliumSnapshot *snapshot)
{
    return g_atomic_rc_box_acquire(snapshot);
}

void allium_snapshot_unref(AlliumSnapshot *snapshot)
{
    if (snapshot) g_atomic_rc_box_release_full(snapshot, clear_snapshot);
}

/* A key of what brush B's mesh is made of, lightmaps aside: its faces (their version), its
 * entity's class (which colours its outline) and the materials' colours. */
static guint64 mesh_key(guint64 own, guint64 entity, guint64 materials)
{
    guint64 k = own * 0x9E3779B97F4A7C15ull;
    k ^= (entity + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    k ^= (materials + 0x165667B19E3779F9ull) * 0x27D4EB2F165667C5ull;
    return k;
}

gboolean allium_snapshot_build_scene(AlliumSnapshot *s, const AlliumSnapshot *previous)
{
    g_return_val_if_fail(s->scene == NULL, FALSE);
    if (!s->engine) return TRUE;
    const al_input *in = &s->input.input;
    guint64 materials = al_snapshot_materials_version(s->engine);
    g_autofree guint64 *brush_keys = g_new(guint64, in->brush_count + 1);
    g_autofree guint64 *entity_keys = g_new(guint64, in->entity_count + 1);
    /* A point entity's look is its class's in the definitions: another set, another mesh. */
    guint64 serial = s->definitions ? s->definitions->serial : 0;
    for (int e = 0; e < in->entity_count; e++)
        entity_keys[e] = mesh_key(al_snapshot_entity_version(s->engine, e), serial, 0);
    for (int b = 0; b < in->brush_count; b++)
        brush_keys[b] =
            mesh_key(al_snapshot_brush_version(s->engine, b),
                     al_snapshot_entity_version(s->engine, in->brushes[b].entity), materials);
    g_autofree al_entity_look *looks = g_new(al_entity_look, in->entity_count + 1);
    const al_entdefs none = {0};
    const al_entdefs *defs = s->definitions ? &s->definitions->defs : &none;
    for (int e = 0; e < in->entity_count; e++)
        allium_entity_definitions_look(defs, in->entities[e].classname, &looks[e]);
    const al_scene *before = previous ? previous->scene : NULL;
    /* A later stage of the same light keeps the places its scene has. */
    const al_rad *rad = before && previous->rad == s->rad ? NULL : s->rad;
    al_scene_desc desc = {
        .input = in,
        .world = s->world,
        .rad = rad,
        .previous = before,
        .brush_ids = s->input.brush_ids,
        .brush_keys = brush_keys,
        .entity_ids = s->input.entity_ids,
        .entity_keys = entity_keys,
        .entity_looks = looks,
    };
    if (al_scene_build(&desc, &s->scene) != AL_OK) {
        s->scene = NULL;
        return FALSE;
    }
    /* The lightmap places: this solver's, or kept from the scene before. */
    if (rad) s->light_generation = s->generation;
    else if (before) s->light_generation = previous->light_generation;
    return TRUE;
}

int allium_snapshot_brush_index(const AlliumSnapshot *snapshot, gint64 row)
{
    return snapshot->engine ? al_snapshot_find_brush(snapshot->engine, row) : -1;
}

int allium_snapshot_entity_index(const AlliumSnapshot *snapshot, gint64 row)
{
    return snapshot->engine ? al_snapshot_find_entity(snapshot->engine, row) : -1;
}

const char *allium_snapshot_entity_value(const AlliumSnapshot *snapshot, int entity,
                                         const char *key)
{
    const al_input *in = &snapshot->input.input;
    if (entity < 0 || entity >= in->entity_count) return NULL;
    const al_entity_desc *e = &in->entities[entity];
    if (strcmp(key, "classname") == 0) return e->classname;
    const char *found = NULL;
    /* The last of repeated keys wins, as in the .map reader. */
    for (int i = 0; i < e->property_count; i++)
        if (e->properties[i].key && strcmp(e->properties[i].key, key) == 0)
            found = e->properties[i].value;
    return found;
}

int allium_snapshot_find_entity(const AlliumSnapshot *snapshot, const char *classname)
{
    const al_input *in = &snapshot->input.input;
    for (int i = 0; i < in->entity_count; i++)
        if (g_strcmp0(in->entities[i].classname, classname) == 0) return i;
    return -1;
}

gboolean allium_snapshot_player_start(const AlliumSnapshot *snapshot, double origin[3],
                                      double *yaw, double *pitch)
{
    int start = allium_snapshot_find_entity(snapshot, "info_player_start");
    if (start < 0) start = allium_snapshot_find_entity(snapshot, "info_player_deathmatch");
    if (start < 0) return FALSE;
    const char *text = allium_snapshot_entity_value(snapshot, start, "origin");
    if (!text || sscanf(text, "%lf %lf %lf", &origin[0], &origin[1], &origin[2]) != 3 ||
        !isfinite(origin[0]) || !isfinite(origin[1]) || !isfinite(origin[2]))
        return FALSE;
    const char *angle = allium_snapshot_entity_value(snapshot, start, "angle");
    double a = angle ? g_ascii_strtod(angle, NULL) : 0;
    *yaw = 0;
    *pitch = 0;
    if (a == -1) *pitch = 89;
    else if (a == -2) *pitch = -89;
    else *yaw = isfinite(a) ? a : 0;
    return TRUE;
}

void allium_snapshot_count_diags(const AlliumSnapshot *snapshot, int *errors, int *warnings)
{
    size_t e = al_diag_count(&snapshot->diags, AL_SEVERITY_ERROR);
    size_t w = al_diag_count(&snapshot->diags, AL_SEVERITY_WARNING) - e;
    *errors = (int) e;
    *warnings = (int) w;
}

char *allium_snapshot_describe(const AlliumSnapshot *snapshot)
{
    GString *text = g_string_new(NULL);
    if (!snapshot->world && snapshot->status == AL_OK) {
        /* The map as it is, shown while its first compile runs. */
        int brushes = snapshot->input.input.brush_count;
        g_string_append(text, _("Compiling…"));
        g_string_append(text, " · ");
        g_string_append_printf(text, g_dngettext(GETTEXT_PACKAGE, "%d brush", "%d brushes",
                                                 (gulong) brushes),
                               brushes);
        return g_string_free(text, FALSE);
    }
    if (!snapshot->world) {
        g_string_append_printf(text, _("Compile failed: %s"),
                               allium_status_message(snapshot->status));
        /* The first error says more than the status code. */
        for (size_t i = 0; i < snapshot->diags.count; i++) {
            if (snapshot->diags.items[i].severity == AL_SEVERITY_ERROR) {
                g_string_append_printf(text, " · %s", snapshot->diags.items[i].message);
                break;
            }
        }
        return g_string_free(text, FALSE);
    }

    if (snapshot->from_cache)
        g_string_append_printf(text, _("Loaded from cache in %.0f ms"), snapshot->collision_ms);
    else if (snapshot->blocks_built < snapshot->blocks)
        /* TRANSLATORS: after an edit: only the blocks it touched were compiled again */
        g_string_append_printf(text, _("Updated in %.0f ms (%d of %d blocks)"),
                               snapshot->collision_ms, snapshot->blocks_built, snapshot->blocks);
    else
        g_string_append_printf(text, _("Compiled in %.0f ms"), snapshot->collision_ms);

    al_world_stats stats;
    al_world_get_stats(snapshot->world, &stats);
    g_string_append(text, " · ");
    g_string_append_printf(text, g_dngettext(GETTEXT_PACKAGE, "%d brush", "%d brushes",
                                             (gulong) stats.input_brushes),
                           stats.input_brushes);
    if (stats.invalid_brushes > 0) {
        g_string_append(text, " · ");
        g_string_append_printf(text,
                               g_dngettext(GETTEXT_PACKAGE, "%d invalid brush",
                                           "%d invalid brushes", (gulong) stats.invalid_brushes),
                               stats.invalid_brushes);
    }

    int errors, warnings;
    allium_snapshot_count_diags(snapshot, &errors, &warnings);
    /* Invalid brushes are errors already counted above; the rest are other problems. */
    int other_errors = MAX(0, errors - stats.invalid_brushes);
    if (other_errors > 0) {
        g_string_append(text, " · ");
        g_string_append_printf(text, g_dngettext(GETTEXT_PACKAGE, "%d error", "%d errors",
                                                 (gulong) other_errors),
                               other_errors);
    }
    if (warnings > 0) {
        g_string_append(text, " · ");
        g_string_append_printf(text, g_dngettext(GETTEXT_PACKAGE, "%d warning", "%d warnings",
                                                 (gulong) warnings),
                               warnings);
    }

    al_vis_stats vis;
    al_world_vis_stats(snapshot->world, &vis);
    al_leak_info leak;
    if (al_world_leak(snapshot->world, &leak)) {
        g_string_append(text, " · ");
        g_string_append_printf(text, _("leak from %s"),
                               leak.classname && *leak.classname ? leak.classname : _("an entity"));
    } else if (vis.vis_leaves > 0) {
        g_string_append(text, " · ");
        g_string_append_printf(text, g_dngettext(GETTEXT_PACKAGE, "sealed, %d vis leaf",
                                                 "sealed, %d vis leaves", (gulong) vis.vis_leaves),
                               vis.vis_leaves);
    }
    return g_string_free(text, FALSE);
}
