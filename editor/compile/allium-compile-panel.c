/* AlliumCompilePanel (allium-compile-panel.h).
 *
 * Everything shown is read from the document on its signals: "compiled" (a new snapshot:
 * stages and problems), "lit" (a new lightmap: the radiosity line and the plot) and
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

static void update_stages(AlliumCompilePanel *self)
{
    AlliumSnapshot *snap = snapshot_of(self);
    gboolean compiling = self->document && allium_document_get_compiling(self->document);
    const char *state = compiling ? _("compiling") : _("current");
    if (!snap || !snap->world) {
        gtk_label_set_text(self->collision, snap ? _("failed: see the problems") : _("waiting"));
        gtk_label_set_text(self->vis, "");
        return;
    }
    g_autofree char *c = g_strdup_printf(_("%s · %d of %d blocks rebuilt · %.0f ms"), state,
                                         snap->blocks_built, snap->blocks, snap->ms_compile);
    gtk_label_set_text(self->collision, c);
    al_vis_stats vis;
    al_world_vis_stats(snap->world, &vis);
    g_autofree char *v = g_strdup_printf(
        _("%s · %d portals · %d leaves · portals %.0f ms, PVS %.0f + %.0f ms"), state,
        vis.portals, vis.vis_leaves, vis.ms_portals, vis.ms_coarse, vis.ms_tight);
    gtk_label_set_text(self->vis, v);
}

static void update_light(AlliumCompilePanel *self)
{
    AlliumLightmap *lm = self->document ? allium_document_get_lightmap(self->document) : NULL;
    gboolean running = self->document && allium_document_get_lighting(self->document);
    gboolean paused = self->document && allium_document_get_light_paused(self->document);
    g_autofree char *text = NULL;
    if (!lm) {
        text = g_strdup(_("no light sources"));
    } else {
        const char *state = lm->stats.corrections_left > 0 ? (running ? _("correcting the edit")
                                                                      : _("edit to correct"))
                            : running ? _("running")
                            : lm->stats.converged || lm->stats.residual <=
                                                         allium_document_get_light_target(self->document)
                                ? _("done")
                                : paused ? _("paused") : _("waiting");
        /* TRANSLATORS: the radiosity stage: its state, shots so far (%lld, as xgettext
         * cannot read G_GINT64_FORMAT), the residual in percent, and the patches */
        text = g_strdup_printf(_("%s · %lld shots · residual %.2f%% · %d patches"), state,
                               (long long) lm->stats.shots, 100.0 * lm->stats.residual,
                               lm->stats.patches);
    }
    gtk_label_set_text(self->light, text);
    self->updating = TRUE;
    gtk_toggle_button_set_active(self->run, running && !paused);
    gtk_button_set_label(GTK_BUTTON(self->run), running && !paused ? _("Pause") : _("Run"));
    self->updating = FALSE;
    gtk_widget_queue_draw(GTK_WIDGET(self->plot));
}

/* The problem rows: the diagnostics of the snapshot, errors first. */
static void update_problems(AlliumCompilePanel *self)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->problems))))
        gtk_list_box_remove(self->problems, child);
    self->problem_count = 0;
    AlliumSnapshot *snap = snapshot_of(self);
    if (snap)
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < snap->diags.count; i++) {
                const al_diag *d = &snap->diags.items[i];
                gboolean error = d->severity == AL_SEVERITY_ERROR;
                if (error != (pass == 0) || d->severity == AL_SEVERITY_NOTE) continue;
                GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
                GtkWidget *icon = gtk_image_new_from_icon_name(error ? "dialog-error-symbolic"
                                                                     : "dialog-warning-symbolic");
                GtkWidget *label = gtk_label_new(d->message);
                gtk_label_set_wrap(GTK_LABEL(label), TRUE);
                gtk_label_set_xalign(GTK_LABEL(label), 0);
                gtk_widget_set_hexpand(label, TRUE);
                gtk_box_append(GTK_BOX(row), icon);
                gtk_box_append(GTK_BOX(row), label);
                g_object_set_data(G_OBJECT(row), "diag", GSIZE_TO_POINTER(i + 1));
                gtk_list_box_append(self->problems, row);
                self->problem_count++;
            }
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

/* The residual over the shots, log scale from 100% down to 0.01%, the target dashed. */
static void draw_plot(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
    (void) area;
    AlliumCompilePanel *self = data;
    cairo_set_source_rgba(cr, 0, 0, 0, 0.25);
    cairo_paint(cr);
    if (!self->document) return;
    guint n;
    const AlliumResidualPoint *pts = allium_document_get_residuals(self->document, &n);
    double top = 0, bottom = -4; /* log10 of the residual */
    double y_of = height / (top - bottom);
    cairo_set_line_width(cr, 1);
    cairo_set_source_rgba(cr, 1, 1, 1, 0.15);
    for (int decade = -1; decade >= -3; decade--) {
        double y = (top - decade) * y_of;
        cairo_move_to(cr, 0, y);
        cairo_line_to(cr, width, y);
    }
    cairo_stroke(cr);
    double target = log10(allium_document_get_light_target(self->document));
    double ty = (top - target) * y_of;
    double dash[] = {4, 3};
    cairo_set_dash(cr, dash, 2, 0);
    cairo_set_source_rgba(cr, 0.5, 0.9, 0.5, 0.8);
    cairo_move_to(cr, 0, ty);
    cairo_line_to(cr, width, ty);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    if (n == 0) return;
    double last = MAX((double) pts[n - 1].shots, 1.0);
    cairo_set_source_rgb(cr, 1.0, 0.8, 0.3);
    cairo_set_line_width(cr, 1.5);
    for (guint i = 0; i < n; i++) {
        double x = (double) pts[i].shots / last * (width - 2) + 1;
        double r = CLAMP(log10(MAX(pts[i].residual, 1e-6)), bottom, top);
        double y = (top - r) * y_of;
        if (i == 0) cairo_move_to(cr, x, y);
        else cairo_line_to(cr, x, y);
    }
    cairo_stroke(cr);
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
    self->light = stage_label(box, _("Radiosity"));

    /* Radiosity controls. */
    GtkWidget *steps = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_add_css_class(steps, "linked");
    static const int shots[] = {1, 10, 100};
    for (guint i = 0; i < G_N_ELEMENTS(shots); i++) {
        g_autofree char *label = g_strdup_printf(_("Step %d"), shots[i]);
        GtkWidget *button = gtk_button_new_with_label(label);
        g_object_set_data(G_OBJECT(button), "shots", GINT_TO_POINTER(shots[i]));
        gtk_widget_set_tooltip_text(button, _("Shoot that many more times, then pause"));
        g_signal_connect(button, "clicked", G_CALLBACK(step_clicked_cb), self);
        gtk_box_append(GTK_BOX(steps), button);
    }
    gtk_box_append(GTK_BOX(box), steps);
    GtkWidget *controls = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    self->run = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_label(_("Run")));
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->run), _("Shoot until the target residual"));
    g_signal_connect(self->run, "toggled", G_CALLBACK(run_toggled_cb), self);
    GtkWidget *reset = gtk_button_new_with_label(_("Reset"));
    gtk_widget_set_tooltip_text(reset, _("Back to before the first shot"));
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
    self->plot = GTK_DRAWING_AREA(gtk_drawing_area_new());
    gtk_drawing_area_set_content_height(self->plot, 90);
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
