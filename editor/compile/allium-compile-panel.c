/* AlliumCompilePanel (allium-compile-panel.h).
 *
 * Everything shown is read from the document on its signals: "compiled" (a new snapshot:
 * stages and problems), "textures" (the textures' problems), "lit" (a new lightmap: the
 * radiosity line and the plot) and
 * notify::compiling / notify::lighting (the states). Nothing here waits for the compiler.
 */
#include "allium-config.h"

#include "allium-compile-panel.h"

#include "al-vis.h"
#include "allium-lightmap.h"

#include <glib/gi18n.h>
#include <math.h>

struct _AlliumCompilePanel {
    GtkWidget parent_instance;

    GtkWidget *scroller;
    GtkLabel *collision, *vis, *light;
    GtkToggleButton *run;
    GtkSpinButton *target;
    GtkDrawingArea *plot;
    GtkListBox *problems;
    GtkLabel *problems_title;

    AlliumDocument *document;
    gboolean updating; /* the run button is being set from the document */
    double last_emitted, last_residual; /* of the lightmap shown before */
    int problem_count;
};

G_DEFINE_FINAL_TYPE(AlliumCompilePanel, allium_compile_panel, GTK_TYPE_WIDGET)

enum { SIGNAL_SELECT_BRUSH, SIGNAL_FRAME, N_SIGNALS };
static guint signals[N_SIGNALS];

/* --- static helpers ------------------------------------------------------------------ */

static AlliumSnapshot *snapshot_of(AlliumCompilePanel *self)
{
    return self->document ? allium_document_get_snapshot(self->document) : NULL;
}

/* A stage's state in words. */
static const char *stage_state(const al_stage_status *st)
{
    switch (st->state) {
    case AL_STAGE_CURRENT: return _("current");
    case AL_STAGE_PENDING: return _("waiting");
    case AL_STAGE_RUNNING: return _("compiling");
    default: return _("waiting");
    }
}

static void update_stages(AlliumCompilePanel *self)
{
    AlliumSnapshot *snap = snapshot_of(self);
    al_stage_status st[AL_STAGE_COUNT];
    if (self->document) allium_document_get_stages(self->document, st);
    else memset(st, 0, sizeof st);
    if (!snap || !snap->world) {
        gtk_label_set_text(self->collision, snap && snap->status != AL_OK
                                                ? _("failed: see the problems")
                                                : _("compiling"));
        gtk_label_set_text(self->vis, "");
        return;
    }
    const al_stage_status *c = &st[AL_STAGE_COLLISION];
    g_autofree char *ct = g_strdup_printf(_("%s · %d of %d blocks rebuilt · %.0f ms"),
                                          stage_state(c), c->blocks_built, snap->blocks,
                                          c->last_work_ms);
    gtk_label_set_text(self->collision, ct);
    al_vis_stats vis;
    al_world_vis_stats(snap->world, &vis);
    const al_stage_status *p = &st[AL_STAGE_PORTALS], *t = &st[AL_STAGE_PVS];
    g_autofree char *tight =
        t->state == AL_STAGE_RUNNING
            ? g_strdup_printf(_("exact PVS %.0f%% done"), 100.0 * t->progress)
            : g_strdup_printf(_("exact PVS %s, %.0f ms"), stage_state(t), t->last_work_ms);
    g_autofree char *v = g_strdup_printf(_("%s · %d portals · %d leaves · %.0f ms · %s"),
                                         stage_state(p), vis.portals, vis.vis_leaves,
                                         p->last_work_ms, tight);
    gtk_label_set_text(self->vis, v);
}

/* What the solver is doing, in words, for the mode the controls set. */
static char *light_state(AlliumCompilePanel *self, const AlliumLightmap *lm)
{
    al_light_mode mode = allium_document_get_light_mode(self->document);
    gboolean busy = allium_document_get_lighting(self->document);
    double target = allium_document_get_light_target(self->document);
    const al_rad_stats *st = &lm->stats;
    gboolean reached = st->converged || (st->direct_done && st->residual <= target);
    if (mode == AL_LIGHT_PAUSED)
        return g_strdup(st->corrections_left > 0
                            ? _("paused: the light the last edits changed is not corrected "
                                "until Run or Step")
                            : _("paused"));
    if (st->corrections_left > 0)
        return g_strdup(busy ? _("correcting the edit") : _("edit to correct"));
    if (mode == AL_LIGHT_RUN)
        return g_strdup_printf(reached || !busy ? _("done: residual at most %.2f%%")
                                                : _("running to %.2f%%"),
                               100.0 * target);
    return g_strdup(busy ? _("stepping") : _("waiting for Step or Run"));
}

static void update_light(AlliumCompilePanel *self)
{
    AlliumLightmap *lm = self->document ? allium_document_get_lightmap(self->document) : NULL;
    al_light_mode mode = self->document ? allium_document_get_light_mode(self->document)
                                        : AL_LIGHT_PAUSED;
    g_autofree char *text = NULL;
    AlliumSnapshot *snap = snapshot_of(self);
    if (!lm) {
        text = g_strdup(snap && snap->world && snap->lights == 0 ? _("no light sources")
                                                                  : _("waiting for the compile"));
    } else {
        g_autofree char *state = light_state(self, lm);
        /* TRANSLATORS: the radiosity stage: its state, shots so far (%lld, as xgettext
         * cannot read G_GINT64_FORMAT), the residual in percent, and the patches */
        text = g_strdup_printf(_("%s · %lld shots · residual %.2f%% · %d patches"), state,
                               (long long) lm->stats.shots, 100.0 * lm->stats.residual,
                               lm->stats.patches);
        /* Shots never raise the residual; an edit that adds light does (more is emitted,
         * and all of it is unshot at first). */
        if (lm->stats.emitted > self->last_emitted * (1 + 1e-9) && self->last_emitted > 0 &&
            lm->stats.residual > self->last_residual) {
            g_autofree char *why = g_strdup_printf(
                "%s\n%s", text, _("The residual rose: an edit added light, which is unshot until it is shot"));
            g_free(text);
            text = g_steal_pointer(&why);
        }
        self->last_emitted = lm->stats.emitted;
        self->last_residual = lm->stats.residual;
    }
    gtk_label_set_text(self->light, text);
    self->updating = TRUE;
    gtk_toggle_button_set_active(self->run, mode == AL_LIGHT_RUN);
    gtk_button_set_label(GTK_BUTTON(self->run), mode == AL_LIGHT_RUN ? _("Pause") : _("Run"));
    self->updating = FALSE;
    gtk_widget_queue_draw(GTK_WIDGET(self->plot));
}

/* A problem row: the severity's icon and the message, wrapped. */
static GtkWidget *problem_row(const al_diag *d)
{
    gboolean error = d->severity == AL_SEVERITY_ERROR;
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *icon =
        gtk_image_new_from_icon_name(error ? "dialog-error-symbolic" : "dialog-warning-symbolic");
    GtkWidget *label = gtk_label_new(d->message);
    gtk_label_set_wrap(GTK_LABEL(label), TRUE);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_set_hexpand(label, TRUE);
    gtk_box_append(GTK_BOX(row), icon);
    gtk_box_append(GTK_BOX(row), label);
    g_object_set_data(G_OBJECT(row), "error", GINT_TO_POINTER(error));
    return row;
}

/* Whether ROW (a GtkListBoxRow of the problems list) says what D says. */
static gboolean row_says(GtkListBoxRow *row, const al_diag *d)
{
    GtkWidget *box = gtk_list_box_row_get_child(row);
    GtkWidget *label = gtk_widget_get_last_child(box);
    return GPOINTER_TO_INT(g_object_get_data(G_OBJECT(box), "error")) ==
               (d->severity == AL_SEVERITY_ERROR) &&
           g_strcmp0(gtk_label_get_text(GTK_LABEL(label)), d->message) == 0;
}

/* The problem rows: the diagnostics of the snapshot, errors first, then the textures'
 * (WADs not found, textures missing). Every stage of every edit comes here: the rows that
 * say the same as before are kept (only those between the first and the last change are
 * made anew), since GTK measuring a hundred wrapped rows again (lq-e3m4's entities' unknown
 * keys) held the next frame back by a hundred milliseconds and more. */
static void update_problems(AlliumCompilePanel *self)
{
    AlliumSnapshot *snap = snapshot_of(self);
    AlliumTextures *textures = self->document ? allium_document_get_textures(self->document) : NULL;
    /* What the rows are to say: the diagnostic and its index (+ 1 in the snapshot's list, 0
     * for the textures', so that a click knows where it is). */
    g_autoptr(GPtrArray) want = g_ptr_array_new();
    g_autoptr(GArray) index = g_array_new(FALSE, FALSE, sizeof(gsize));
    if (snap)
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < snap->diags.count; i++) {
                const al_diag *d = &snap->diags.items[i];
                gboolean error = d->severity == AL_SEVERITY_ERROR;
                if (error != (pass == 0) || d->severity == AL_SEVERITY_NOTE) continue;
                gsize at = i + 1;
                g_ptr_array_add(want, (gpointer) d);
                g_array_append_val(index, at);
            }
    for (size_t i = 0; textures && i < textures->diags.count; i++)
        if (textures->diags.items[i].severity != AL_SEVERITY_NOTE) {
            gsize at = 0;
            g_ptr_array_add(want, &textures->diags.items[i]);
            g_array_append_val(index, at);
        }
    int have = self->problem_count, n = (int) want->len, head = 0, tail = 0;
    while (head < have && head < n &&
           row_says(gtk_list_box_get_row_at_index(self->problems, head), want->pdata[head]))
        head++;
    while (tail < have - head && tail < n - head &&
           row_says(gtk_list_box_get_row_at_index(self->problems, have - 1 - tail),
                    want->pdata[n - 1 - tail]))
        tail++;
    for (int k = have - tail - 1; k >= head; k--)
        gtk_list_box_remove(self->problems,
                            GTK_WIDGET(gtk_list_box_get_row_at_index(self->problems, k)));
    for (int k = head; k < n - tail; k++)
        gtk_list_box_insert(self->problems, problem_row(want->pdata[k]), k);
    self->problem_count = n;
    for (int k = 0; k < n; k++)
        g_object_set_data(
            G_OBJECT(gtk_list_box_row_get_child(gtk_list_box_get_row_at_index(self->problems, k))),
            "diag", GSIZE_TO_POINTER(g_array_index(index, gsize, k)));
    g_autofree char *title =
        self->problem_count ? g_strdup_printf(g_dngettext(GETTEXT_PACKAGE, "%d problem",
                                                          "%d problems", self->problem_count),
                                              self->problem_count)
                            : g_strdup(_("No problems"));
    gtk_label_set_text(self->problems_title, title);
}

/* The input brush a diagnostic names (its entity and the brush's index in it), or -1. */
static int diag_brush(const AlliumSnapshot *snap, const al_diag *d)
{
    const al_input *in = &snap->input.input;
    if (d->entity < 0 || d->brush < 0) return -1;
    for (int b = 0; b < in->brush_count; b++)
        if (in->brushes[b].entity == d->entity && in->brushes[b].index == d->brush) return b;
    return -1;
}

static void problem_activated_cb(GtkListBox *box, GtkListBoxRow *row, AlliumCompilePanel *self)
{
    (void) box;
    AlliumSnapshot *snap = snapshot_of(self);
    gsize i = GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(gtk_list_box_row_get_child(row)), "diag"));
    if (!snap || i == 0 || i > snap->diags.count) return;
    const al_diag *d = &snap->diags.items[i - 1];
    al_leak_info leak;
    if (d->kind == AL_DIAG_LEAK && snap->world && al_world_leak(snap->world, &leak) &&
        leak.point_count > 0) {
        double box6[6] = {G_MAXDOUBLE, G_MAXDOUBLE, G_MAXDOUBLE, -G_MAXDOUBLE, -G_MAXDOUBLE,
                          -G_MAXDOUBLE};
        for (int p = 0; p < leak.point_count; p++)
            for (int k = 0; k < 3; k++) {
                box6[k] = MIN(box6[k], leak.points[p][k]);
                box6[3 + k] = MAX(box6[3 + k], leak.points[p][k]);
            }
        g_signal_emit(self, signals[SIGNAL_FRAME], 0, box6);
        return;
    }
    int b = diag_brush(snap, d);
    if (b >= 0 && snap->input.brush_ids)
        g_signal_emit(self, signals[SIGNAL_SELECT_BRUSH], 0, (gint64) snap->input.brush_ids[b]);
}

/* The residual over the shots, log scale from 100% down to 0.01%, with its axes: the
 * decades on the left, the shots along the bottom; the target dashed. One point (a map
 * opened lit from its cache) is a dot. */
static void draw_plot(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
    AlliumCompilePanel *self = data;
    GtkWidget *widget = GTK_WIDGET(area);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.25);
    cairo_paint(cr);
    if (!self->document) return;
    guint n;
    const AlliumResidualPoint *pts = allium_document_get_residuals(self->document, &n);
    const double left = 44, right = 8, top_margin = 8, bottom_margin = 20;
    double w = MAX(width - left - right, 1), h = MAX(height - top_margin - bottom_margin, 1);
    double top = 0, bottom = -4; /* log10 of the residual */
    double y_of = h / (top - bottom);
#define PLOT_Y(r) (top_margin + (top - (r)) * y_of)
    /* The decades and their labels. */
    PangoLayout *layout = gtk_widget_create_pango_layout(widget, NULL);
    cairo_set_line_width(cr, 1);
    static const char *labels[] = {"100%", "10%", "1%", "0.1%", "0.01%"};
    for (int decade = 0; decade >= -4; decade--) {
        double y = PLOT_Y(decade);
        cairo_set_source_rgba(cr, 1, 1, 1, decade == 0 || decade == -4 ? 0.3 : 0.12);
        cairo_move_to(cr, left, y);
        cairo_line_to(cr, left + w, y);
        cairo_stroke(cr);
        pango_layout_set_text(layout, labels[-decade], -1);
        int tw, th;
        pango_layout_get_pixel_size(layout, &tw, &th);
        cairo_set_source_rgba(cr, 1, 1, 1, 0.6);
        cairo_move_to(cr, left - 4 - tw, y - th / 2.0);
        pango_cairo_show_layout(cr, layout);
    }
    double last = n > 0 ? MAX((double) pts[n - 1].shots, 1.0) : 1.0;
    g_autofree char *shots = g_strdup_printf(_("%lld shots"), (long long) last);
    pango_layout_set_text(layout, shots, -1);
    int tw, th;
    pango_layout_get_pixel_size(layout, &tw, &th);
    cairo_move_to(cr, left + w - tw, top_margin + h + 3);
    pango_cairo_show_layout(cr, layout);
    pango_layout_set_text(layout, "0", -1);
    cairo_move_to(cr, left, top_margin + h + 3);
    pango_cairo_show_layout(cr, layout);
    g_object_unref(layout);
    double target = log10(allium_document_get_light_target(self->document));
    double dash[] = {4, 3};
    cairo_set_dash(cr, dash, 2, 0);
    cairo_set_source_rgba(cr, 0.5, 0.9, 0.5, 0.8);
    cairo_move_to(cr, left, PLOT_Y(target));
    cairo_line_to(cr, left + w, PLOT_Y(target));
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_source_rgb(cr, 1.0, 0.8, 0.3);
    cairo_set_line_width(cr, 1.5);
    for (guint i = 0; i < n; i++) {
        double x = left + (double) pts[i].shots / last * w;
        double y = PLOT_Y(CLAMP(log10(MAX(pts[i].residual, 1e-6)), bottom, top));
        if (n == 1) {
            cairo_arc(cr, x, y, 3, 0, 2 * G_PI);
            cairo_fill(cr);
        } else if (i == 0) {
            cairo_move_to(cr, x, y);
        } else {
            cairo_line_to(cr, x, y);
        }
    }
    cairo_stroke(cr);
#undef PLOT_Y
}

static void step_clicked_cb(GtkButton *button, AlliumCompilePanel *self)
{
    int shots = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(button), "shots"));
    if (self->document) allium_document_light_step(self->document, shots);
    update_light(self);
}

static void run_toggled_cb(GtkToggleButton *button, AlliumCompilePanel *self)
{
    if (self->updating || !self->document) return;
    if (gtk_toggle_button_get_active(button)) allium_document_light_run(self->document);
    else allium_document_light_pause(self->document);
    update_light(self);
}

static void reset_clicked_cb(GtkButton *button, AlliumCompilePanel *self)
{
    (void) button;
    if (self->document) allium_document_light_reset(self->document);
    update_light(self);
}

static void target_changed_cb(GtkSpinButton *spin, AlliumCompilePanel *self)
{
    if (!self->document) return;
    allium_document_set_light_target(self->document, gtk_spin_button_get_value(spin) / 100.0);
    update_light(self);
}

static void compiled_cb(AlliumDocument *document, AlliumCompilePanel *self)
{
    (void) document;
    update_stages(self);
    update_problems(self);
    update_light(self);
}

static void lit_cb(AlliumDocument *document, AlliumCompilePanel *self)
{
    (void) document;
    update_light(self);
}

static void notify_cb(GObject *document, GParamSpec *pspec, AlliumCompilePanel *self)
{
    (void) document;
    (void) pspec;
    update_stages(self);
    update_light(self);
}

static GtkWidget *heading(const char *text)
{
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_add_css_class(label, "heading");
    return label;
}

static GtkLabel *stage_label(GtkWidget *box, const char *name)
{
    GtkWidget *title = gtk_label_new(name);
    gtk_label_set_xalign(GTK_LABEL(title), 0);
    gtk_box_append(GTK_BOX(box), title);
    GtkWidget *label = gtk_label_new("");
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_label_set_wrap(GTK_LABEL(label), TRUE);
    gtk_widget_add_css_class(label, "dim-label");
    gtk_widget_set_margin_start(label, 8);
    gtk_box_append(GTK_BOX(box), label);
    return GTK_LABEL(label);
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_compile_panel_dispose(GObject *object)
{
    AlliumCompilePanel *self = ALLIUM_COMPILE_PANEL(object);
    allium_compile_panel_set_document(self, NULL);
    g_clear_pointer(&self->scroller, gtk_widget_unparent);
    G_OBJECT_CLASS(allium_compile_panel_parent_class)->dispose(object);
}

static void allium_compile_panel_class_init(AlliumCompilePanelClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = allium_compile_panel_dispose;
    gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "allium-compile-panel");
    signals[SIGNAL_SELECT_BRUSH] =
        g_signal_new("select-brush", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 1, G_TYPE_INT64);
    signals[SIGNAL_FRAME] = g_signal_new("frame", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void allium_compile_panel_init(AlliumCompilePanel *self)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_start(box, 10);
    gtk_widget_set_margin_end(box, 10);
    gtk_widget_set_margin_top(box, 10);
    gtk_widget_set_margin_bottom(box, 10);

    gtk_box_append(GTK_BOX(box), heading(_("Stages")));
    self->collision = stage_label(box, _("Collision"));
    self->vis = stage_label(box, _("Portals and PVS"));

    /* Radiosity: the controls first, so that a status text of more lines moves nothing
     * the pointer is on. */
    GtkWidget *radiosity = gtk_label_new(_("Radiosity"));
    gtk_label_set_xalign(GTK_LABEL(radiosity), 0);
    gtk_box_append(GTK_BOX(box), radiosity);
    GtkWidget *steps = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_add_css_class(steps, "linked");
    static const int shots[] = {1, 10, 100};
    for (guint i = 0; i < G_N_ELEMENTS(shots); i++) {
        g_autofree char *label = g_strdup_printf(_("Step %d"), shots[i]);
        GtkWidget *button = gtk_button_new_with_label(label);
        g_object_set_data(G_OBJECT(button), "shots", GINT_TO_POINTER(shots[i]));
        gtk_widget_set_tooltip_text(button, _("Shoot that many more times, then wait; later "
                                              "edits are still corrected"));
        g_signal_connect(button, "clicked", G_CALLBACK(step_clicked_cb), self);
        gtk_box_append(GTK_BOX(steps), button);
    }
    gtk_box_append(GTK_BOX(box), steps);
    GtkWidget *controls = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    self->run = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_label(_("Run")));
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->run),
                                _("Shoot until the target residual, and after every edit; "
                                  "Pause stops all work on the light"));
    g_signal_connect(self->run, "toggled", G_CALLBACK(run_toggled_cb), self);
    GtkWidget *reset = gtk_button_new_with_label(_("Reset"));
    gtk_widget_set_tooltip_text(reset, _("Back to before the first shot, then wait"));
    g_signal_connect(reset, "clicked", G_CALLBACK(reset_clicked_cb), self);
    GtkWidget *target_label = gtk_label_new(_("Target"));
    self->target = GTK_SPIN_BUTTON(gtk_spin_button_new_with_range(0.01, 50, 0.1));
    gtk_spin_button_set_digits(self->target, 2);
    gtk_spin_button_set_value(self->target, 1.0);
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->target),
                                _("Residual where a run stops: the unshot share of the emitted "
                                  "light, in percent"));
    g_signal_connect(self->target, "value-changed", G_CALLBACK(target_changed_cb), self);
    gtk_box_append(GTK_BOX(controls), GTK_WIDGET(self->run));
    gtk_box_append(GTK_BOX(controls), reset);
    gtk_box_append(GTK_BOX(controls), target_label);
    gtk_box_append(GTK_BOX(controls), GTK_WIDGET(self->target));
    gtk_box_append(GTK_BOX(controls), gtk_label_new("%"));
    gtk_box_append(GTK_BOX(box), controls);
    GtkWidget *light = gtk_label_new("");
    gtk_label_set_xalign(GTK_LABEL(light), 0);
    gtk_label_set_wrap(GTK_LABEL(light), TRUE);
    gtk_widget_add_css_class(light, "dim-label");
    gtk_widget_set_margin_start(light, 8);
    gtk_box_append(GTK_BOX(box), light);
    self->light = GTK_LABEL(light);
    self->plot = GTK_DRAWING_AREA(gtk_drawing_area_new());
    gtk_drawing_area_set_content_height(self->plot, 160);
    gtk_drawing_area_set_draw_func(self->plot, draw_plot, self, NULL);
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->plot),
                                _("Residual over the shots (log scale, 100% to 0.01%); dashed: "
                                  "the target"));
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(self->plot));

    self->problems_title = GTK_LABEL(heading(_("No problems")));
    gtk_widget_set_margin_top(GTK_WIDGET(self->problems_title), 8);
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(self->problems_title));
    self->problems = GTK_LIST_BOX(gtk_list_box_new());
    gtk_list_box_set_activate_on_single_click(self->problems, TRUE);
    gtk_widget_add_css_class(GTK_WIDGET(self->problems), "boxed-list");
    g_signal_connect(self->problems, "row-activated", G_CALLBACK(problem_activated_cb), self);
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(self->problems));

    self->scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(self->scroller), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(self->scroller), box);
    gtk_widget_set_parent(self->scroller, GTK_WIDGET(self));
}

/* --- public API ---------------------------------------------------------------------- */

GtkWidget *allium_compile_panel_new(void)
{
    return g_object_new(ALLIUM_TYPE_COMPILE_PANEL, NULL);
}

void allium_compile_panel_set_document(AlliumCompilePanel *self, AlliumDocument *document)
{
    g_return_if_fail(ALLIUM_IS_COMPILE_PANEL(self));
    if (self->document == document) return;
    if (self->document) {
        g_signal_handlers_disconnect_by_data(self->document, self);
        g_clear_object(&self->document);
    }
    if (document) {
        self->document = g_object_ref(document);
        g_signal_connect(document, "compiled", G_CALLBACK(compiled_cb), self);
        g_signal_connect(document, "lit", G_CALLBACK(lit_cb), self);
        g_signal_connect_swapped(document, "textures", G_CALLBACK(update_problems), self);
        g_signal_connect(document, "notify::compiling", G_CALLBACK(notify_cb), self);
        g_signal_connect(document, "notify::lighting", G_CALLBACK(notify_cb), self);
        gtk_spin_button_set_value(self->target,
                                  100.0 * allium_document_get_light_target(document));
    }
    update_stages(self);
    update_problems(self);
    update_light(self);
}

int allium_compile_panel_problem_count(AlliumCompilePanel *self)
{
    g_return_val_if_fail(ALLIUM_IS_COMPILE_PANEL(self), 0);
    return self->problem_count;
}

void allium_compile_panel_activate_problem(AlliumCompilePanel *self, int i)
{
    g_return_if_fail(ALLIUM_IS_COMPILE_PANEL(self));
    GtkListBoxRow *row = gtk_list_box_get_row_at_index(self->problems, i);
    if (row) problem_activated_cb(self->problems, row, self);
}

const char *allium_compile_panel_get_light_text(AlliumCompilePanel *self)
{
    g_return_val_if_fail(ALLIUM_IS_COMPILE_PANEL(self), "");
    return gtk_label_get_text(self->light);
}
