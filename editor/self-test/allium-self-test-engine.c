/* GUI self-test steps about the live engine under the editor: what the editor shows after
 * random edits, drags and undos equals a compile of the document from nothing, and no
 * order of the light controls leaves an edit's light uncorrected (but a pause).
 *
 * The oracle: the document read whole (al_doc_build_input, as opening reads it) and
 * compiled in full (al_world_compile with the tight PVS, and a new radiosity solver run to
 * the same residual) against the snapshot the editor shows once the engine is done: the
 * trees (al_world_tree_differences), the portals and vis leaves, every pair of vis leaves'
 * PVS answer (within a full build's coarse rows, holding every sampled line of sight, and
 * at most a few pairs off its tight rows: the tight pass's order), and the light of every luxel
 * within the solvers' sampling tolerance. */
#include "allium-config.h"

#include "al-edits.h"
#include "al-oracle.h"
#include "allium-self-test-private.h"
#include "allium-compile-panel.h"

#include <math.h>
#include <string.h>

/* Edits, drags and undos the oracle step makes. */
#define ORACLE_EDITS 24
/* Edits the next-frame step makes, and how long a view holds a frame for an edit's
 * collision (HOLD_FOR_COLLISION_MS in allium-view.c). */
#define FRAME_EDITS   12
#define FRAME_HOLD_MS 30

static guint32 next_random(SelfTest *t)
{
    t->random = t->random * 1664525u + 1013904223u;
    return t->random >> 8;
}

/* The engine is done with the document's newest change: its last stage is shown and the
 * light work the controls ask for is over. */
static gboolean engine_settled(AlliumDocument *doc)
{
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    return snap && snap->world && snap->stage == AL_STAGE_PVS &&
           snap->generation == allium_document_get_generation(doc) &&
           !allium_document_get_compiling(doc) && !allium_document_get_lighting(doc);
}

/* A random brush of the document's snapshot. */
static gint64 random_brush(SelfTest *t, AlliumSnapshot *snap)
{
    int n = snap->input.input.brush_count;
    return n > 0 ? snap->input.brush_ids[next_random(t) % (guint32) n] : -1;
}

/* One random edit, drag or history step through the document, as the tools make them. */
static void random_step(SelfTest *t, AlliumDocument *doc)
{
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    gint64 row = random_brush(t, snap);
    if (row < 0) return;
    double d = 16.0 * (1 + next_random(t) % 3) * ((next_random(t) & 1) ? 1 : -1);
    int axis = (int) (next_random(t) % 3);
    double m[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
    m[axis][3] = d;
    gboolean ok = TRUE;
    switch (next_random(t) % 7) {
    case 0: /* a move */
        ok = allium_document_transform(doc, &row, 1, NULL, 0, (const double (*)[4]) m, "Move", NULL);
        t->oracle_edits += ok;
        break;
    case 1: /* a resize about the brush's corner */
        m[axis][axis] = 0.5 + (next_random(t) % 3) * 0.5;
        m[axis][3] = 0;
        ok = allium_document_transform(doc, &row, 1, NULL, 0, (const double (*)[4]) m, "Resize",
                                       NULL);
        t->oracle_edits += ok;
        break;
    case 2: { /* a copy */
        gint64 copy;
        double delta[3] = {0, 0, 0};
        delta[axis] = d;
        ok = allium_document_duplicate(doc, &row, 1, delta, &copy, NULL);
        t->oracle_edits += ok;
        break;
    }
    case 3: /* a drag previewed on the way and dropped with Escape */
        for (int i = 1; i <= 4; i++) {
            m[axis][3] = d * i / 4;
            allium_document_preview_transform(doc, &row, 1, NULL, 0, (const double (*)[4]) m);
        }
        allium_document_preview_end(doc);
        break;
    case 4: /* a drag previewed on the way and released */
        for (int i = 1; i <= 4; i++) {
            m[axis][3] = d * i / 4;
            allium_document_preview_transform(doc, &row, 1, NULL, 0, (const double (*)[4]) m);
        }
        ok = allium_document_transform(doc, &row, 1, NULL, 0, (const double (*)[4]) m, "Move", NULL);
        t->oracle_edits += ok;
        break;
    case 5: /* undo */
        if (t->oracle_edits > 0 && allium_document_undo(doc, NULL)) {
            t->oracle_edits--;
            t->oracle_undone++;
        }
        break;
    default: /* redo */
        if (t->oracle_undone > 0 && allium_document_redo(doc, NULL)) {
            t->oracle_edits++;
            t->oracle_undone--;
        }
        break;
    }
}

/* The snapshot's world, visibility and light against a compile of the document from
 * nothing. EXPECT_SEALED: the map must not leak (so that the PVS compared is one). */
void compare_with_full(SelfTest *t, AlliumDocument *doc, gboolean expect_sealed)
{
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    al_doc_input whole;
    al_diag_list diags = {0};
    if (al_doc_build_input(allium_document_get_doc(doc), &whole, &diags) != AL_OK) {
        check(t, FALSE, "the document reads whole for the oracle");
        al_diag_list_clear(&diags);
        return;
    }
    al_diag_list_clear(&diags);
    /* The engine compiled what the document holds, in its order. */
    const al_input *a = &snap->input.input, *b = &whole.input;
    gboolean same_input = a->brush_count == b->brush_count && a->face_count == b->face_count &&
                          a->entity_count == b->entity_count;
    for (int i = 0; same_input && i < b->brush_count; i++)
        same_input =
            snap->input.brush_ids[i] == whole.brush_ids[i] &&
            a->brushes[i].face_count == b->brushes[i].face_count &&
            memcmp(&a->faces[a->brushes[i].first_face], &b->faces[b->brushes[i].first_face],
                   (size_t) b->brushes[i].face_count * sizeof *b->faces) == 0;
    check(t, same_input, "the engine's map is the document's (%d brushes, %d faces; %d, %d)",
          a->brush_count, a->face_count, b->brush_count, b->face_count);
    al_world *full = NULL;
    /* Visibility as the engine builds it: the coarse rows (kept), then the tight PVS, none
     * for a leaking map. */
    al_compile_options co = {.no_vis = true};
    const al_vis_options coarse = {.level = AL_PVS_COARSE, .no_pvs_if_leaking = true};
    const al_vis_options vo = {.level = AL_PVS_TIGHT, .no_pvs_if_leaking = true};
    gboolean built = al_world_compile(b, &co, &full, NULL) == AL_OK &&
                     al_world_build_vis_with(full, b, &coarse) == AL_OK;
    int leaves = built ? al_world_vis_leaf_count(full) : 0;
    guint8 *might = g_malloc0((gsize) leaves * (gsize) leaves + 1);
    for (int i = 0; i < leaves; i++)
        for (int j = 0; j < leaves; j++) might[i * leaves + j] = al_world_leaf_sees(full, i, j);
    if (!built || al_world_build_vis_with(full, b, &vo) != AL_OK) {
        g_free(might);
        al_world_destroy(full);
        check(t, FALSE, "the document compiles in full");
        al_doc_input_free(&whole);
        return;
    }
    char why[400] = "";
    int trees = al_world_tree_differences(snap->world, full, why, sizeof why);
    check(t, trees == 0, "its trees are a full compile's (%d differ%s%s)", trees, trees ? ": " : "",
          why);
    gboolean leaks = al_world_leak(full, NULL);
    check(t, al_world_leak(snap->world, NULL) == leaks, "%s",
          leaks ? "it leaks as a full compile does" : "it is sealed as a full compile is");
    if (expect_sealed) check(t, !leaks, "the map is sealed again");
    al_vis_stats va, vb;
    al_world_vis_stats(snap->world, &va);
    al_world_vis_stats(full, &vb);
    check(t, va.portals == vb.portals && va.vis_leaves == vb.vis_leaves,
          "its portals and vis leaves are a full compile's (%d and %d; %d and %d)", va.portals,
          va.vis_leaves, vb.portals, vb.vis_leaves);
    /* The PVS as the engine's design promises it (pvs.c): a tight row taken from the walks
     * of an earlier edit is what that walk found, which a full build, walking its portals
     * in another order, may narrow by a few leaves more or fewer. So each row must lie
     * within a full build's coarse row, hold every line of sight (sampled), and differ
     * from a full build's tight row by a few pairs at most. */
    int differ = 0, beyond = 0;
    gboolean same_leaves = leaves == al_world_vis_leaf_count(snap->world);
    if (same_leaves)
        for (int i = 0; i < leaves; i++)
            for (int j = 0; j < leaves; j++) {
                gboolean sees = al_world_leaf_sees(snap->world, i, j);
                differ += sees != al_world_leaf_sees(full, i, j);
                beyond += sees && !might[i * leaves + j];
            }
    g_free(might);
    al_verify_counts sight = {0};
    al_oracle *oracle = al_oracle_create_sight(snap->world);
    gboolean sighted = oracle != NULL;
    if (oracle) al_verify_pvs(snap->world, oracle, 4000, 7, &sight);
    al_oracle_destroy(oracle);
    check(t,
          same_leaves && va.level == vb.level && beyond == 0 && sighted && sight.mismatches == 0 &&
              differ <= leaves * leaves / 200,
          "its PVS rows are a full compile's within the tight pass's order (%d of %d pairs "
          "differ, %d beyond the coarse rows; %lld of %lld lines of sight missing; levels %d "
          "and %d)",
          differ, leaves * leaves, beyond, (long long) sight.mismatches, (long long) sight.checked,
          (int) va.level, (int) vb.level);
    /* The light carried through the edits against a new solve, both at the target. */
    if (snap->rad) {
        al_rad *fresh = NULL;
        if (al_rad_create(full, b, NULL, &fresh, NULL) == AL_OK) {
            al_rad_run(fresh, allium_document_get_light_target(doc), 0, NULL, NULL);
            double d = al_rad_light_difference(snap->rad, fresh);
            check(t, d >= 0 && d < 0.02,
                  "its light is a new solve's within the solvers' tolerance (%.4f of the mean)", d);
        }
        al_rad_destroy(fresh);
    }
    al_world_destroy(full);
    al_doc_input_free(&whole);
}

gboolean step_engine_oracle(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    if (!t->step_begun) {
        t->random = 2026;
        t->oracle_edits = t->oracle_undone = 0;
        t->phase = 0;
        return FALSE;
    }
    if (t->phase < ORACLE_EDITS) {
        /* A step every few frames: some changes overtake the engine, some do not. */
        if (!allium_document_get_snapshot(doc)) return FALSE;
        random_step(t, doc);
        t->phase++;
        if (t->phase % 3) t->resume_us = g_get_monotonic_time() + 30000;
        return FALSE;
    }
    if (!engine_settled(doc)) return FALSE;
    if (t->phase == ORACLE_EDITS) {
        check(t, t->oracle_edits > 0, "the random steps left %d edits", t->oracle_edits);
        compare_with_full(t, doc, FALSE);
        /* The map as it was, for the steps after, and again compared: the engine comes
         * back to the sealed map's exact PVS from the edited worlds. */
        while (t->oracle_edits > 0 && allium_document_undo(doc, NULL)) t->oracle_edits--;
        t->phase++;
        return FALSE;
    }
    if (t->phase == ORACLE_EDITS + 1) {
        compare_with_full(t, doc, TRUE);
        t->phase++;
    }
    return TRUE;
}

/* The orders of the field report: Reset, Step, Run, Pause in turn, each followed by an
 * edit: the edit's light is corrected every time but after Pause, and then the panel says
 * so; Run then corrects it and goes on to the target. */
gboolean step_light_orders(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumCompilePanel *panel = t->window->compile_panel;
    if (!t->step_begun) {
        gtk_stack_set_visible_child_name(t->window->sidebar_stack, "compile");
        t->phase = 0;
        return FALSE;
    }
    AlliumLightmap *lm = allium_document_get_lightmap(doc);
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    gboolean current = snap && snap->generation == allium_document_get_generation(doc) &&
                       !allium_document_get_compiling(doc);
    if (t->phase == 0 && snap) t->light_row = random_brush(t, snap);
    gint64 row = t->light_row;
    const double up[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 16}};
    const double down[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, -16}};
    switch (t->phase) {
    case 0: /* Reset, Step, Run, then an edit */
        allium_document_light_reset(doc);
        allium_document_light_step(doc, 10);
        allium_document_light_run(doc);
        if (row < 0) return FALSE;
        check(t, allium_document_transform(doc, &row, 1, NULL, 0, up, "Move", NULL),
              "an edit after Reset, Step and Run");
        t->edits += 3; /* with the two below, for the step that undoes the editing */
        t->phase = 1;
        return FALSE;
    case 1:
        if (!current || !lm || allium_document_get_lighting(doc)) return FALSE;
        check(t,
              lm->stats.corrections_left == 0 &&
                  (lm->stats.converged ||
                   lm->stats.residual <= allium_document_get_light_target(doc)),
              "the edit's light is corrected and run to the target (%" G_GINT64_FORMAT
              " corrections left, residual %.4f): \"%s\"",
              (gint64) lm->stats.corrections_left, lm->stats.residual,
              allium_compile_panel_get_light_text(panel));
        /* Step: later edits are corrected, nothing more is shot. */
        allium_document_light_step(doc, 5);
        t->phase = 2;
        return FALSE;
    case 2:
        if (allium_document_get_lighting(doc)) return FALSE;
        check(t, allium_document_transform(doc, &row, 1, NULL, 0, down, "Move", NULL),
              "an edit after a Step");
        t->phase = 3;
        return FALSE;
    case 3:
        if (!current || !lm || allium_document_get_lighting(doc)) return FALSE;
        check(t, lm->stats.corrections_left == 0,
              "after a Step the edit's light is corrected (%" G_GINT64_FORMAT " left): \"%s\"",
              (gint64) lm->stats.corrections_left, allium_compile_panel_get_light_text(panel));
        check(t, g_str_has_prefix(allium_compile_panel_get_light_text(panel), "waiting"),
              "and the panel waits for Step or Run: \"%s\"",
              allium_compile_panel_get_light_text(panel));
        allium_document_light_pause(doc);
        check(t, allium_document_transform(doc, &row, 1, NULL, 0, up, "Move", NULL),
              "an edit after Pause");
        t->phase = 4;
        return FALSE;
    case 4:
        if (!current || !lm || allium_document_get_lighting(doc) || !settle(t)) return FALSE;
        check(t,
              lm->stats.corrections_left > 0 &&
                  strstr(allium_compile_panel_get_light_text(panel), "paused") != NULL,
              "paused, the edit's light waits and the panel says so (%" G_GINT64_FORMAT
              " corrections): \"%s\"",
              (gint64) lm->stats.corrections_left, allium_compile_panel_get_light_text(panel));
        shoot_and_compare(t, "light-paused.png", NULL);
        allium_document_light_run(doc);
        t->phase = 5;
        return FALSE;
    default:
        if (!current || !lm || allium_document_get_lighting(doc) || !settle(t)) return FALSE;
        check(t,
              lm->stats.corrections_left == 0 &&
                  g_str_has_prefix(allium_compile_panel_get_light_text(panel), "done"),
              "Run corrects it and goes on to the target: \"%s\"",
              allium_compile_panel_get_light_text(panel));
        gtk_stack_set_visible_child_name(t->window->sidebar_stack, "properties");
        return TRUE;
    }
}

/* --- an edit's next frame ----------------------------------------------------------------- */

/* The camera turns a little every frame, as a designer's does while looking around, so
 * that a frame is wanted at every tick while the edits compile. */
static gboolean turn_tick_cb(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    (void) clock;
    (void) data;
    AlliumView *view = ALLIUM_VIEW(widget);
    allium_view_get_camera(view)->yaw += 0.25;
    allium_view_queue_render(view);
    return G_SOURCE_CONTINUE;
}

/* The first frame the 3D view draws after an edit. */
static void next_frame_cb(AlliumView *view, double ms, const al_draw_stats *stats, gpointer data)
{
    (void) ms;
    (void) stats;
    SelfTest *t = data;
    if (!t->frame_edit_generation) return;
    /* A frame GTK draws again on its own (the window laid out anew by a label that changed
     * size), or one asked for before the edit, is not the view's to hold. */
    if (allium_view_get_frame_asked_us(view) < t->frame_edit_us) {
        t->frames_unasked++;
        return;
    }
    AlliumSnapshot *drawn = allium_view_get_drawn_snapshot(view);
    double since_ms = (double) (g_get_monotonic_time() - t->frame_edit_us) / 1000.0;
    if (drawn && drawn->generation >= t->frame_edit_generation)
        t->frames_new++;
    else if (since_ms >= FRAME_HOLD_MS)
        t->frames_late++; /* the collision took longer */
    else
        t->frames_old++;
    t->frame_edit_generation = 0;
}

/* While the camera turns, every edit's first frame the view asks for shows the edit: a
 * view holds its frame for the edit's collision (up to FRAME_HOLD_MS) rather than draw the
 * map as it was. Brushes move one grid step each, and are moved back after. */
gboolean step_next_frame(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumView *view = view_3d(t);
    if (!t->step_begun) {
        t->random = 1127;
        t->phase = 0;
        t->frames_old = t->frames_new = t->frames_late = t->frame_moves = t->frames_unasked = 0;
        t->frame_edit_generation = 0;
        allium_view_set_frame_func(view, next_frame_cb, t);
        t->turn_tick = gtk_widget_add_tick_callback(GTK_WIDGET(view), turn_tick_cb, NULL, NULL);
        return FALSE;
    }
    if (t->frame_edit_generation) return FALSE; /* its frame has not come yet */
    if (t->phase < FRAME_EDITS) {
        AlliumSnapshot *snap = allium_document_get_snapshot(doc);
        if (!snap || !snap->world || snap->generation < allium_document_get_generation(doc))
            return FALSE;
        gint64 row = random_brush(t, snap);
        double delta[3] = {0, 0, 0};
        delta[next_random(t) % 3] = (next_random(t) & 1) ? 16 : -16;
        t->frame_edit_us = g_get_monotonic_time();
        GError *error = NULL;
        gboolean ok = allium_document_move(doc, &row, 1, NULL, 0, delta, &error);
        check(t, ok, "next frame: move %d%s%s", t->phase, error ? ": " : "",
              error ? error->message : "");
        g_clear_error(&error);
        if (ok) {
            t->frame_edit_generation = allium_document_get_generation(doc);
            t->frame_moves++;
        }
        t->phase++;
        return FALSE;
    }
    gtk_widget_remove_tick_callback(GTK_WIDGET(view), t->turn_tick);
    t->turn_tick = 0;
    allium_view_set_frame_func(view, NULL, NULL);
    g_print("self-test: next frame: %d of %d edits' first frames showed them, %d came after "
            "the %d ms hold, %d showed the map as it was (%d frames drawn meanwhile were "
            "asked for before the edit or by GTK alone)\n",
            t->frames_new, FRAME_EDITS, t->frames_late, FRAME_HOLD_MS, t->frames_old,
            t->frames_unasked);
    check(t, t->frames_old == 0,
          "no frame drawn within %d ms of an edit shows the map without it (%d did)", FRAME_HOLD_MS,
          t->frames_old);
    check(t, t->frames_new + t->frames_late == t->frame_moves, "every edit's frame came (%d of %d)",
          t->frames_new + t->frames_late, t->frame_moves);
    for (int i = 0; i < t->frame_moves; i++) allium_document_undo(doc, NULL);
    return TRUE;
}
