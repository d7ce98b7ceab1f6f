/* AlliumSnapshot (see allium-snapshot.h): ownership of one compiled state of a map, the
 * look-ups the views need from it (document rows to input indices, entity properties)
 * and its one-line description for the status bar.
 *
 * Workload: one snapshot per compile; the look-ups run per click and per frame, so rows
 * are indexed by hash tables built once on the compile thread. */
#include "allium-config.h"

#include "allium-snapshot.h"

#include "allium-document.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

G_DEFINE_BOXED_TYPE(AlliumSnapshot, allium_snapshot, allium_snapshot_ref, allium_snapshot_unref)

static void clear_snapshot(gpointer data)
{
    AlliumSnapshot *s = data;
    /* The scene and the solver point into the world (the solver into the input too):
     * they go first. */
    al_scene_destroy(s->scene);
    al_rad_destroy(s->rad);
    /* Only the solver read the base's. */
    allium_snapshot_unref(s->light_base);
    al_world_destroy(s->world);
    al_face_polys_free(&s->polys);
    g_clear_pointer(&s->brush_rows, g_hash_table_unref);
    g_clear_pointer(&s->entity_rows, g_hash_table_unref);
    al_doc_input_free(&s->input);
    al_diag_list_clear(&s->diags);
}

static GHashTable *index_rows(const int64_t *rows, int count)
{
    GHashTable *table = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (int i = 0; rows && i < count; i++)
        g_hash_table_insert(table, (gpointer) &rows[i], GINT_TO_POINTER(i + 1));
    return table;
}

static int lookup_row(GHashTable *table, gint64 row)
{
    if (!table) return -1;
    return GPOINTER_TO_INT(g_hash_table_lookup(table, &row)) - 1;
}

AlliumSnapshot *allium_snapshot_new(al_doc_input *input, guint64 generation)
{
    AlliumSnapshot *s = g_atomic_rc_box_new0(AlliumSnapshot);
    s->generation = generation;
    s->status = AL_OK;
    s->lights = -1;
    if (input) {
        s->input = *input;
        memset(input, 0, sizeof *input);
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

void allium_snapshot_index_rows(AlliumSnapshot *snapshot)
{
    g_clear_pointer(&snapshot->brush_rows, g_hash_table_unref);
    g_clear_pointer(&snapshot->entity_rows, g_hash_table_unref);
    snapshot->brush_rows = index_rows(snapshot->input.brush_ids, snapshot->input.input.brush_count);
    snapshot->entity_rows =
        index_rows(snapshot->input.entity_ids, snapshot->input.input.entity_count);
}

int allium_snapshot_brush_index(const AlliumSnapshot *snapshot, gint64 row)
{
    return lookup_row(snapshot->brush_rows, row);
}

int allium_snapshot_entity_index(const AlliumSnapshot *snapshot, gint64 row)
{
    return lookup_row(snapshot->entity_rows, row);
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
        g_string_append_printf(text, _("Loaded from cache in %.0f ms"), snapshot->ms_total);
    else if (snapshot->blocks_built < snapshot->blocks)
        /* TRANSLATORS: after an edit: only the blocks it touched were compiled again */
        g_string_append_printf(text, _("Updated in %.0f ms (%d of %d blocks)"),
                               snapshot->ms_total, snapshot->blocks_built, snapshot->blocks);
    else
        g_string_append_printf(text, _("Compiled in %.0f ms"), snapshot->ms_total);

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
