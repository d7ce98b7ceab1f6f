/* AlliumCollision: test boxes and agents (allium-collision.h).
 *
 * Workload: a drag calls one slide move per pointer motion (a few traces, microseconds);
 * the agents' timer steps a crowd of usually tens (the engine takes a thousand in about
 * two milliseconds, allium-bench agents) on the main loop, which keeps everything on one
 * thread: the world is read from the snapshot the collision object holds a reference to,
 * so an edit's new snapshot never frees a world in use.
 *
 * The timer asks for 60 calls a second, but a main loop busy drawing four views gets
 * fewer; each call therefore runs as many fixed 1/60 s steps as the time since the last
 * call holds (at most a quarter second's worth), so agents walk at their real speed
 * whatever the frame rate.
 */
#include "allium-config.h"

#include "allium-collision.h"
#include "allium-format.h"

#include "al-agents.h"
#include "al-move.h"

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#define STEP_SECONDS (1.0 / 60.0)
#define MAX_CATCH_UP 0.25  /* seconds of steps one timer call runs at most */
#define NORMAL_LENGTH 24.0 /* units: the contact normal's arrow */
#define DROP_DEPTH 8192.0  /* units: how far a box placed in the top view falls */

typedef struct test_box {
    char hull[AL_HULL_NAME_MAX]; /* "": a box of any size, SIZE */
    double size[3];
    double origin[3];
    al_slide last;     /* the last drag */
    gboolean dragged;  /* LAST is meaningful */
    gboolean solid;    /* the origin is inside solid for its hull (in the newest world) */
} test_box;

struct _AlliumCollision {
    GObject parent_instance;

    /* owned references */
    AlliumSnapshot *snapshot;
    GArray *boxes; /* test_box */
    al_agents *agents;
    char hull[AL_HULL_NAME_MAX]; /* of new boxes; "": SIZE */
    double size[3];
    char hull_label[64];
    guint timer;
    int watched;         /* the agent picked in a view, -1 none */
    gint64 last_step_us; /* when the timer last ran */
    double pending;      /* seconds not yet stepped */
};

G_DEFINE_FINAL_TYPE(AlliumCollision, allium_collision, G_TYPE_OBJECT)

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* --- static helpers ------------------------------------------------------------------ */

static const al_world *current_world(AlliumCollision *self)
{
    return self->snapshot ? self->snapshot->world : NULL;
}

static void emit_changed(AlliumCollision *self)
{
    g_signal_emit(self, signals[SIGNAL_CHANGED], 0);
}

static test_box *box_at(AlliumCollision *self, int i)
{
    if (i < 0 || (guint) i >= self->boxes->len) return NULL;
    return &g_array_index(self->boxes, test_box, i);
}

/* The box's shape in W: its compiled hull, or for a box of any size plane shifting around
 * an origin at the box's centre; FALSE if W has no hull of that name. */
static gboolean box_shape(const al_world *w, const char *hull, const double size[3],
                          al_box_shape *shape)
{
    if (hull[0]) {
        shape->hull = al_world_find_hull(w, hull);
        if (shape->hull < 0) return FALSE;
        memcpy(shape->mins, al_world_hull(w, shape->hull)->mins, sizeof shape->mins);
        memcpy(shape->maxs, al_world_hull(w, shape->hull)->maxs, sizeof shape->maxs);
        return TRUE;
    }
    shape->hull = -1;
    for (int k = 0; k < 3; k++) {
        shape->mins[k] = -size[k] / 2;
        shape->maxs[k] = size[k] / 2;
    }
    return TRUE;
}

/* Whether SHAPE at P is inside solid: the onion tree's leaf for a compiled hull, a
 * standing plane-shifted trace for any other box. */
static gboolean shape_solid(const al_world *w, const al_box_shape *shape, const double p[3])
{
    if (shape->hull >= 0) return al_world_point_solid(w, shape->hull, p);
    al_trace t;
    al_world_trace_box(w, shape->mins, shape->maxs, p, p, &t);
    return t.start_solid;
}

static void check_box(const al_world *w, test_box *b)
{
    al_box_shape shape;
    b->solid = box_shape(w, b->hull, b->size, &shape) && shape_solid(w, &shape, b->origin);
}

static void append_line(GArray *points, GArray *colours, const double a[3], const double b[3],
                        const guint8 colour[4])
{
    g_array_append_vals(points, a, 1);
    g_array_append_vals(points, b, 1);
    g_array_append_vals(colours, colour, 1);
    g_array_append_vals(colours, colour, 1);
}

static void append_box(GArray *points, GArray *colours, const double lo[3], const double hi[3],
                       const guint8 colour[4])
{
    double edges[24][3];
    al_box_edge_points(lo, hi, edges);
    for (int i = 0; i < 24; i += 2) append_line(points, colours, edges[i], edges[i + 1], colour);
}

static void step_once(AlliumCollision *self, const al_world *w)
{
    al_move_params p;
    al_move_default_params(&p);
    al_agents_step(self->agents, w, &p, STEP_SECONDS, NULL);
}

static gboolean step_cb(gpointer data)
{
    AlliumCollision *self = ALLIUM_COLLISION(data);
    const al_world *w = current_world(self);
    gint64 now = g_get_monotonic_time();
    self->pending = MIN(self->pending + (double) (now - self->last_step_us) / 1e6, MAX_CATCH_UP);
    self->last_step_us = now;
    if (!self->agents || !w) return G_SOURCE_CONTINUE;
    for (; self->pending >= STEP_SECONDS; self->pending -= STEP_SECONDS) step_once(self, w);
    emit_changed(self);
    return G_SOURCE_CONTINUE;
}

/* --- overrides ------------------------------------------------------------------------ */

static void allium_collision_finalize(GObject *object)
{
    AlliumCollision *self = ALLIUM_COLLISION(object);
    g_clear_handle_id(&self->timer, g_source_remove);
    al_agents_destroy(self->agents);
    g_array_unref(self->boxes);
    allium_snapshot_unref(self->snapshot);
    G_OBJECT_CLASS(allium_collision_parent_class)->finalize(object);
}

static void allium_collision_class_init(AlliumCollisionClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = allium_collision_finalize;
    signals[SIGNAL_CHANGED] = g_signal_new("changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void allium_collision_init(AlliumCollision *self)
{
    self->boxes = g_array_new(FALSE, TRUE, sizeof(test_box));
    self->watched = -1;
    g_strlcpy(self->hull, "stand", sizeof self->hull);
}

/* --- public API ----------------------------------------------------------------------- */

AlliumCollision *allium_collision_new(void)
{
    return g_object_new(ALLIUM_TYPE_COLLISION, NULL);
}

void allium_collision_set_snapshot(AlliumCollision *self, AlliumSnapshot *snapshot)
{
    g_return_if_fail(ALLIUM_IS_COLLISION(self));
    if (snapshot == self->snapshot) return;
    if (snapshot) allium_snapshot_ref(snapshot);
    allium_snapshot_unref(self->snapshot);
    self->snapshot = snapshot;
    const al_world *w = current_world(self);
    if (w)
        for (guint i = 0; i < self->boxes->len; i++)
            check_box(w, &g_array_index(self->boxes, test_box, i));
    emit_changed(self);
}

/* "stand", or "40×40×64" for a box of any size. */
static void format_hull(char *out, gsize size, const char *hull, const double box[3])
{
    if (hull[0]) g_strlcpy(out, hull, size);
    else g_snprintf(out, size, "%g×%g×%g", box[0], box[1], box[2]);
}

const char *allium_collision_get_hull(AlliumCollision *self)
{
    format_hull(self->hull_label, sizeof self->hull_label, self->hull, self->size);
    return self->hull_label;
}

void allium_collision_next_hull(AlliumCollision *self)
{
    const al_world *w = current_world(self);
    if (!w) return;
    int n = al_world_hull_count(w);
    int h = self->hull[0] ? al_world_find_hull(w, self->hull) : 0;
    for (int k = 1; k <= n; k++) {
        int next = (h + k + n) % n;
        if (next == 0) continue; /* the point hull is not a box */
        g_strlcpy(self->hull, al_world_hull(w, next)->name, sizeof self->hull);
        break;
    }
    emit_changed(self);
}

gboolean allium_collision_set_box_size(AlliumCollision *self, const double size[3])
{
    for (int k = 0; k < 3; k++)
        if (!(size[k] >= ALLIUM_COLLISION_MIN_SIZE && size[k] <= ALLIUM_COLLISION_MAX_SIZE))
            return FALSE;
    self->hull[0] = '\0';
    memcpy(self->size, size, sizeof self->size);
    emit_changed(self);
    return TRUE;
}

gboolean allium_collision_get_hull_box(AlliumCollision *self, double mins[3], double maxs[3])
{
    const al_world *w = current_world(self);
    al_box_shape shape;
    if (!w || !box_shape(w, self->hull, self->size, &shape)) return FALSE;
    memcpy(mins, shape.mins, sizeof shape.mins);
    memcpy(maxs, shape.maxs, sizeof shape.maxs);
    return TRUE;
}

int allium_collision_add_box(AlliumCollision *self, const double at[3], gboolean drop)
{
    const al_world *w = current_world(self);
    al_box_shape shape;
    if (!w || !box_shape(w, self->hull, self->size, &shape)) return -1;
    test_box b = {0};
    g_strlcpy(b.hull, self->hull, sizeof b.hull);
    memcpy(b.size, self->size, sizeof b.size);
    memcpy(b.origin, at, sizeof b.origin);
    if (drop) {
        /* Down onto the floor below AT (if AT is free: a box placed inside solid stays,
         * and says so). */
        double below[3] = {at[0], at[1], at[2] - DROP_DEPTH};
        al_trace t;
        al_shape_trace(w, &shape, at, below, &t);
        if (t.hit && !t.start_solid) memcpy(b.origin, t.end, sizeof b.origin);
    } else if (shape.hull >= 0) {
        /* On a floor within a unit, rest on it (al_mover_init's rule). */
        al_mover m;
        al_mover_init(&m, w, shape.hull, shape.hull, at);
        memcpy(b.origin, m.origin, sizeof b.origin);
    } else {
        /* A box of any size placed against a floor (its centre is half its height above
         * the surface) is lifted by the skin, so that it starts out of the floor. */
        double up[3] = {at[0], at[1], at[2] + 1};
        al_trace t;
        al_shape_trace(w, &shape, up, at, &t);
        if (!t.start_solid) memcpy(b.origin, t.end, sizeof b.origin);
    }
    check_box(w, &b);
    g_array_append_val(self->boxes, b);
    emit_changed(self);
    return (int) self->boxes->len - 1;
}

void allium_collision_drag_box(AlliumCollision *self, int box, const double target[3])
{
    test_box *b = box_at(self, box);
    const al_world *w = current_world(self);
    al_box_shape shape;
    if (!b || !w || !box_shape(w, b->hull, b->size, &shape)) return;
    double delta[3];
    for (int k = 0; k < 3; k++) delta[k] = target[k] - b->origin[k];
    al_slide_move(w, &shape, b->origin, delta, 1.0, &b->last);
    b->dragged = TRUE;
    memcpy(b->origin, b->last.end, sizeof b->origin);
    check_box(w, b);
    emit_changed(self);
}

int allium_collision_box_count(AlliumCollision *self)
{
    return (int) self->boxes->len;
}

gboolean allium_collision_get_box(AlliumCollision *self, int box, double origin[3],
                                  gboolean *start_solid)
{
    test_box *b = box_at(self, box);
    if (!b) return FALSE;
    if (origin) memcpy(origin, b->origin, sizeof b->origin);
    if (start_solid) *start_solid = b->dragged && b->last.start_solid;
    return TRUE;
}

gboolean allium_collision_get_box_bounds(AlliumCollision *self, int box, double mins[3],
                                         double maxs[3])
{
    test_box *b = box_at(self, box);
    const al_world *w = current_world(self);
    al_box_shape shape;
    if (!b || !w || !box_shape(w, b->hull, b->size, &shape)) return FALSE;
    for (int k = 0; k < 3; k++) {
        mins[k] = b->origin[k] + shape.mins[k];
        maxs[k] = b->origin[k] + shape.maxs[k];
    }
    return TRUE;
}

void allium_collision_clear_boxes(AlliumCollision *self)
{
    g_array_set_size(self->boxes, 0);
    emit_changed(self);
}

char *allium_collision_save_boxes(AlliumCollision *self)
{
    g_return_val_if_fail(ALLIUM_IS_COLLISION(self), NULL);
    GString *text = g_string_new(NULL);
    for (guint i = 0; i < self->boxes->len; i++) {
        const test_box *b = &g_array_index(self->boxes, test_box, i);
        char v[6][G_ASCII_DTOSTR_BUF_SIZE];
        const double *numbers[6] = {&b->size[0],   &b->size[1],   &b->size[2],
                                    &b->origin[0], &b->origin[1], &b->origin[2]};
        for (int k = 0; k < 6; k++) g_ascii_dtostr(v[k], sizeof v[k], *numbers[k]);
        if (b->hull[0])
            g_string_append_printf(text, "%s %s %s %s\n", b->hull, v[3], v[4], v[5]);
        else
            g_string_append_printf(text, "=%s %s %s %s %s %s\n", v[0], v[1], v[2], v[3], v[4],
                                   v[5]);
    }
    return g_string_free(text, FALSE);
}

/* Reads COUNT numbers from WORDS into V; FALSE unless each is a finite number. */
static gboolean read_words(char **words, int count, double *v)
{
    for (int k = 0; k < count; k++) {
        char *end = NULL;
        v[k] = g_ascii_strtod(words[k], &end);
        if (!end || end == words[k] || *end != '\0' || !isfinite(v[k])) return FALSE;
    }
    return TRUE;
}

void allium_collision_restore_boxes(AlliumCollision *self, const char *text)
{
    g_return_if_fail(ALLIUM_IS_COLLISION(self));
    g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);
    const al_world *w = current_world(self);
    for (int i = 0; lines[i]; i++) {
        g_auto(GStrv) words = g_strsplit(g_strstrip(lines[i]), " ", -1);
        guint n = g_strv_length(words);
        test_box b = {0};
        if (n == 6 && words[0][0] == '=') {
            /* "=SX SY SZ X Y Z": a box of any size */
            double v[6];
            char *numbers[6] = {words[0] + 1, words[1], words[2], words[3], words[4], words[5]};
            gboolean ok = read_words(numbers, 6, v);
            for (int k = 0; k < 3 && ok; k++)
                ok = v[k] >= ALLIUM_COLLISION_MIN_SIZE && v[k] <= ALLIUM_COLLISION_MAX_SIZE;
            if (!ok) continue;
            memcpy(b.size, v, sizeof b.size);
            memcpy(b.origin, v + 3, sizeof b.origin);
        } else if (n == 4 && words[0][0] && strlen(words[0]) < sizeof b.hull) {
            /* "HULL X Y Z" */
            if (!read_words(words + 1, 3, b.origin)) continue;
            g_strlcpy(b.hull, words[0], sizeof b.hull);
        } else {
            continue;
        }
        if (w) check_box(w, &b);
        g_array_append_val(self->boxes, b);
    }
    emit_changed(self);
}

/* A liquid's name, for the descriptions. */
static const char *liquid_name(al_contents c)
{
    switch (c) {
    case AL_CONTENTS_WATER:
        return _("water");
    case AL_CONTENTS_SLIME:
        return _("slime");
    case AL_CONTENTS_LAVA:
        return _("lava");
    default:
        return NULL;
    }
}

char *allium_collision_describe_water(const al_mover *m)
{
    const char *liquid = liquid_name(m->water_type);
    /* TRANSLATORS: how deep an agent is in a liquid: Quake's water levels */
    static const char *const depth[] = {N_("feet"), N_("waist"), N_("eyes")};
    if (!liquid || m->water_level < 1 || m->water_level > 3) return NULL;
    /* TRANSLATORS: an agent in a liquid: "swimming in water (to the eyes)" */
    return g_strdup_printf(m->water_level >= 2 ? _("swimming in %s (to the %s)")
                                               : _("wading in %s (to the %s)"),
                           liquid, _(depth[m->water_level - 1]));
}

char *allium_collision_describe_box(AlliumCollision *self, int box)
{
    test_box *b = box_at(self, box);
    const al_world *w = current_world(self);
    if (!b || !w) return g_strdup("");
    GString *s = g_string_new(NULL);
    char name[64];
    format_hull(name, sizeof name, b->hull, b->size);
    char x[ALLIUM_NUMBER_SIZE], y[ALLIUM_NUMBER_SIZE], z[ALLIUM_NUMBER_SIZE];
    g_string_append_printf(
        s, _("%s box at %s %s %s"), name, allium_format_fixed(x, b->origin[0], 1),
        allium_format_fixed(y, b->origin[1], 1), allium_format_fixed(z, b->origin[2], 1));
    if (!b->hull[0])
        g_string_append_printf(s, " · %s", b->solid ? _("inside solid") : _("free"));
    /* The liquid at the box's origin (liquids are solid to no box). */
    const char *liquid = liquid_name(al_world_point_liquid(w, b->origin));
    if (liquid) g_string_append_printf(s, _(" · in %s"), liquid);
    if (b->dragged) {
        const al_slide *l = &b->last;
        if (l->start_solid)
            g_string_append(s, _(" · started in solid!"));
        if (l->contact_count > 0) {
            const al_slide_contact *c = &l->contacts[0];
            g_string_append_printf(s, _(" · hit at %.2f, normal %s %s %s"), l->first_fraction,
                                   allium_format_fixed(x, c->normal[0], 2),
                                   allium_format_fixed(y, c->normal[1], 2),
                                   allium_format_fixed(z, c->normal[2], 2));
            if (l->contact_count > 1)
                g_string_append_printf(s,
                                       g_dngettext(GETTEXT_PACKAGE, ", slid along %d surface",
                                                   ", slid along %d surfaces",
                                                   (gulong) l->contact_count),
                                       l->contact_count);
        } else if (!l->start_solid) {
            g_string_append(s, _(" · no contact"));
        }
    }
    /* Every hull standing where this box stands: the same feet (the bottom of the box),
     * so that "stand: solid, crouch: empty" reads as "only a crouching agent fits here". */
    al_box_shape shape;
    double feet = b->origin[2];
    if (box_shape(w, b->hull, b->size, &shape)) feet += shape.mins[2];
    g_string_append(s, " ·");
    for (int h = 1; h < al_world_hull_count(w); h++) {
        const al_hull_desc *d = al_world_hull(w, h);
        double p[3] = {b->origin[0], b->origin[1], feet - d->mins[2]};
        g_string_append_printf(s, "%s %s: %s", h > 1 ? "," : "", d->name,
                               al_world_point_solid(w, h, p) ? _("solid") : _("empty"));
    }
    return g_string_free(s, FALSE);
}

static gboolean spawn_agents(AlliumCollision *self, GError **error)
{
    const al_world *w = current_world(self);
    if (!w) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                            _("The map has not compiled yet"));
        return FALSE;
    }
    al_agents_destroy(self->agents);
    self->watched = -1;
    self->agents = al_agents_create(g_get_monotonic_time());
    if (!self->agents) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NO_SPACE, _("Out of memory"));
        return FALSE;
    }
    al_diag_list diags = {0};
    al_status st = al_agents_spawn_map(self->agents, &self->snapshot->input.input, w, &diags);
    if (st != AL_OK || al_agents_count(self->agents) == 0) {
        char line[300] = "";
        if (diags.count > 0) al_diag_format(&diags.items[0], line, sizeof line);
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s%s%s",
                    _("No agents: place an agent_start entity (Edit → Place Entity), and "
                      "waypoints for it to walk to"),
                    *line ? " — " : "", line);
        al_diag_list_clear(&diags);
        al_agents_destroy(self->agents);
        self->agents = NULL;
        return FALSE;
    }
    al_diag_list_clear(&diags);
    return TRUE;
}

gboolean allium_collision_start_agents(AlliumCollision *self, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_COLLISION(self), FALSE);
    if (!self->agents && !spawn_agents(self, error)) return FALSE;
    if (!self->timer) {
        self->last_step_us = g_get_monotonic_time();
        self->pending = 0;
        self->timer = g_timeout_add_full(G_PRIORITY_DEFAULT, (guint) (STEP_SECONDS * 1000), step_cb,
                                         self, NULL);
    }
    emit_changed(self);
    return TRUE;
}

void allium_collision_stop_agents(AlliumCollision *self)
{
    g_clear_handle_id(&self->timer, g_source_remove);
    emit_changed(self);
}

void allium_collision_reset_agents(AlliumCollision *self)
{
    gboolean running = self->timer != 0;
    allium_collision_stop_agents(self);
    al_agents_destroy(self->agents);
    self->agents = NULL;
    self->watched = -1;
    if (running) allium_collision_start_agents(self, NULL);
    emit_changed(self);
}

gboolean allium_collision_agents_running(AlliumCollision *self)
{
    return self->timer != 0;
}

int allium_collision_agent_count(AlliumCollision *self)
{
    return self->agents ? al_agents_count(self->agents) : 0;
}

void allium_collision_step_agents(AlliumCollision *self)
{
    const al_world *w = current_world(self);
    if (!self->agents || !w) return;
    step_once(self, w);
    emit_changed(self);
}

gboolean allium_collision_get_agent(AlliumCollision *self, int i, double origin[3])
{
    const al_agent *g = self->agents ? al_agents_get(self->agents, i) : NULL;
    if (!g) return FALSE;
    memcpy(origin, g->mover.origin, sizeof g->mover.origin);
    return TRUE;
}

int allium_collision_pick_agent(AlliumCollision *self, const double origin[3],
                                 const double dir[3], double max_t, double *t)
{
    const al_world *w = current_world(self);
    if (!self->agents || !w) return -1;
    return al_agents_pick(self->agents, w, origin, dir, max_t, t);
}

void allium_collision_watch_agent(AlliumCollision *self, int agent)
{
    if (!self->agents || agent < 0 || agent >= al_agents_count(self->agents)) agent = -1;
    if (agent == self->watched) return;
    self->watched = agent;
    emit_changed(self);
}

int allium_collision_get_watched_agent(AlliumCollision *self)
{
    return self->watched;
}

char *allium_collision_describe_agent(AlliumCollision *self, int agent)
{
    const al_world *w = current_world(self);
    const al_agent *g = self->agents && w ? al_agents_get(self->agents, agent) : NULL;
    if (!g) return g_strdup("");
    const al_mover *m = &g->mover;
    const char *hull = al_world_hull(w, al_mover_hull(m))->name;
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, _("Agent %d of %d: %s · %.0f units/s · %s"), agent + 1,
                           al_agents_count(self->agents), hull,
                           hypot(m->velocity[0], m->velocity[1]),
                           m->on_ground ? _("on ground") : _("in the air"));
    char x[ALLIUM_NUMBER_SIZE], y[ALLIUM_NUMBER_SIZE], z[ALLIUM_NUMBER_SIZE];
    allium_format_fixed(x, g->goal[0], 0);
    allium_format_fixed(y, g->goal[1], 0);
    allium_format_fixed(z, g->goal[2], 0);
    if (g->waypoint >= 0)
        g_string_append_printf(s, _(" · to waypoint at %s %s %s"), x, y, z);
    else
        g_string_append_printf(s, _(" · wandering to %s %s %s"), x, y, z);
    g_autofree char *water = allium_collision_describe_water(m);
    if (water) g_string_append_printf(s, " · %s", water);
    if (g->stuck) g_string_append(s, _(" · inside solid!"));
    return g_string_free(s, FALSE);
}

void allium_collision_append_lines(AlliumCollision *self, GArray *points, GArray *colours)
{
    const al_world *w = current_world(self);
    if (!w) return;
    static const guint8 cyan[4] = {60, 220, 255, 255}, red[4] = {255, 60, 60, 255},
                        path[4] = {160, 160, 255, 255}, normal[4] = {120, 255, 120, 255},
                        agent[4] = {255, 120, 220, 255}, watched[4] = {255, 230, 60, 255};
    for (guint i = 0; i < self->boxes->len; i++) {
        const test_box *b = &g_array_index(self->boxes, test_box, i);
        double lo[3], hi[3];
        if (!allium_collision_get_box_bounds(self, (int) i, lo, hi)) continue;
        append_box(points, colours, lo, hi, b->solid ? red : cyan);
        if (!b->dragged) continue;
        const al_slide *l = &b->last;
        for (int k = 0; k + 1 < l->path_count; k++)
            append_line(points, colours, l->path[k], l->path[k + 1], path);
        for (int c = 0; c < l->contact_count; c++) {
            double tip[3];
            for (int k = 0; k < 3; k++)
                tip[k] = l->contacts[c].point[k] + l->contacts[c].normal[k] * NORMAL_LENGTH;
            append_line(points, colours, l->contacts[c].point, tip, normal);
        }
    }
    if (self->agents)
        for (int i = 0; i < al_agents_count(self->agents); i++) {
            double lo[3], hi[3];
            al_agents_box(self->agents, w, i, lo, hi);
            append_box(points, colours, lo, hi, i == self->watched ? watched : agent);
            if (i == self->watched) {
                /* The watched agent's way to its goal. */
                const al_agent *g = al_agents_get(self->agents, i);
                append_line(points, colours, g->mover.origin, g->goal, watched);
            }
        }
}
