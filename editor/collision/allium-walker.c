/* AlliumWalker: walk mode's agent (allium-walker.h).
 *
 * One physics step is a handful of traces (al_move_step: microseconds), so the walker runs
 * on the main loop from the 3D view's frame clock: each frame hands the time that passed to
 * allium_walker_advance, which runs the whole 60 Hz steps that fit and keeps the remainder
 * for the next frame. The physics is therefore the same at any frame rate.
 *
 * The eye sits EYE_BELOW_TOP under the top of the current hull (22 units above the origin
 * for Quake's player box, Quake's view height). Two things would make the view jump where
 * the agent does not: crouching (the hull's top drops 16 units at once) and stepping up a
 * stair (the origin rises up to 18 units in one step). The eye follows both smoothly at
 * EYE_SPEED, as games do; the agent itself moves at once.
 */
#include "allium-config.h"

#include "allium-walker.h"
#include "allium-collision.h"

#include "al-move.h"

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <math.h>

#define EYE_BELOW_TOP 10.0   /* units under the hull's top */
#define EYE_SPEED 160.0      /* units/s: how fast the eye catches up with a step or crouch */
#define MAX_EYE_LAG 16.0     /* units */
#define MAX_CATCH_UP 0.25    /* seconds of steps one advance may run at most */

struct _AlliumWalker {
    AlliumSnapshot *snapshot; /* owned: the world the steps use */
    char stand[AL_HULL_NAME_MAX], crouch[AL_HULL_NAME_MAX]; /* "" crouch: none */
    al_move_params params;
    al_mover mover;
    AlliumWalkKeys keys;
    double yaw, pitch;
    double pending;   /* seconds not yet stepped */
    double eye_lag;   /* units the eye is below (negative: above) where it belongs */
};

/* --- static helpers ------------------------------------------------------------------ */

static gboolean is_point(const al_hull_desc *h)
{
    for (int k = 0; k < 3; k++)
        if (h->mins[k] != 0 || h->maxs[k] != 0) return FALSE;
    return TRUE;
}

/* The stand hull: "stand", else the map's first hull that is not a point. The crouch hull:
 * "crouch" when it only lowers the stand box's top (anything else could put a crouching
 * agent into a wall), else none. */
static gboolean find_hulls(const al_world *w, char stand[AL_HULL_NAME_MAX],
                           char crouch[AL_HULL_NAME_MAX])
{
    int s = al_world_find_hull(w, "stand");
    for (int i = 0; s < 0 && i < al_world_hull_count(w); i++)
        if (!is_point(al_world_hull(w, i))) s = i;
    if (s < 0) return FALSE;
    const al_hull_desc *sh = al_world_hull(w, s);
    g_strlcpy(stand, sh->name, AL_HULL_NAME_MAX);
    crouch[0] = '\0';
    int c = al_world_find_hull(w, "crouch");
    if (c >= 0 && c != s) {
        const al_hull_desc *ch = al_world_hull(w, c);
        gboolean inside = ch->maxs[2] < sh->maxs[2] && ch->mins[2] == sh->mins[2];
        for (int k = 0; k < 2; k++)
            inside = inside && ch->mins[k] == sh->mins[k] && ch->maxs[k] == sh->maxs[k];
        if (inside) g_strlcpy(crouch, ch->name, AL_HULL_NAME_MAX);
    }
    return TRUE;
}

/* The mover's hull indices in W by the walker's hull names; FALSE if W lacks them. */
static gboolean bind_hulls(AlliumWalker *self, const al_world *w)
{
    int s = al_world_find_hull(w, self->stand);
    int c = self->crouch[0] ? al_world_find_hull(w, self->crouch) : s;
    if (s < 0 || c < 0) return FALSE;
    self->mover.stand_hull = s;
    self->mover.crouch_hull = c;
    return TRUE;
}

static const al_world *world_of(AlliumWalker *self)
{
    return self->snapshot->world;
}

static double eye_height(AlliumWalker *self)
{
    return al_world_hull(world_of(self), al_mover_hull(&self->mover))->maxs[2] - EYE_BELOW_TOP;
}

/* --- public API ---------------------------------------------------------------------- */

AlliumWalker *allium_walker_new(AlliumSnapshot *snapshot, gboolean from_camera,
                                const double eye[3], double yaw, double pitch, GError **error)
{
    if (!snapshot || !snapshot->world) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                            _("The map has no compiled world to walk in yet"));
        return NULL;
    }
    g_autoptr(AlliumWalker) self = g_new0(AlliumWalker, 1);
    self->snapshot = allium_snapshot_ref(snapshot);
    const al_world *w = snapshot->world;
    if (!find_hulls(w, self->stand, self->crouch) || !bind_hulls(self, w)) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                            _("The map has no agent box to walk with: add one to its hulls"));
        return NULL;
    }
    al_move_default_params(&self->params);

    double origin[3];
    gboolean at_start = !from_camera && allium_snapshot_player_start(snapshot, origin, &yaw, &pitch);
    if (!at_start) {
        const al_hull_desc *h = al_world_hull(w, self->mover.stand_hull);
        origin[0] = eye[0];
        origin[1] = eye[1];
        origin[2] = eye[2] - (h->maxs[2] - EYE_BELOW_TOP);
    }
    al_mover_init(&self->mover, w, self->mover.stand_hull, self->mover.crouch_hull, origin);
    if (al_world_point_solid(w, self->mover.stand_hull, self->mover.origin)) {
        if (at_start)
            g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
                        _("The player start (%.0f %.0f %.0f) is inside solid for the %s box: "
                          "move it into the open"),
                        origin[0], origin[1], origin[2], self->stand);
        else
            g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
                        _("The %s box does not fit at the camera: fly the camera into the "
                          "open first"),
                        self->stand);
        return NULL;
    }
    self->yaw = yaw;
    self->pitch = CLAMP(pitch, -89.0, 89.0);
    return g_steal_pointer(&self);
}

void allium_walker_free(AlliumWalker *walker)
{
    if (!walker) return;
    allium_snapshot_unref(walker->snapshot);
    g_free(walker);
}

void allium_walker_set_snapshot(AlliumWalker *walker, AlliumSnapshot *snapshot)
{
    if (!snapshot || snapshot == walker->snapshot || !snapshot->world) return;
    AlliumSnapshot *old = walker->snapshot;
    walker->snapshot = snapshot;
    if (!bind_hulls(walker, snapshot->world)) {
        /* This compile lost the hull: stay in the last world that had it. */
        walker->snapshot = old;
        bind_hulls(walker, old->world);
        return;
    }
    allium_snapshot_ref(snapshot);
    allium_snapshot_unref(old);
}

void allium_walker_set_keys(AlliumWalker *walker, AlliumWalkKeys keys)
{
    walker->keys = keys;
}

AlliumWalkKeys allium_walker_get_keys(AlliumWalker *walker)
{
    return walker->keys;
}

void allium_walker_look(AlliumWalker *walker, double dyaw, double dpitch)
{
    walker->yaw = fmod(walker->yaw + dyaw, 360.0);
    walker->pitch = CLAMP(walker->pitch + dpitch, -89.0, 89.0);
}

void allium_walker_step(AlliumWalker *walker)
{
    AlliumWalkKeys k = walker->keys;
    double forward = ((k & ALLIUM_WALK_FORWARD) ? 1 : 0) - ((k & ALLIUM_WALK_BACK) ? 1 : 0);
    double right = ((k & ALLIUM_WALK_RIGHT) ? 1 : 0) - ((k & ALLIUM_WALK_LEFT) ? 1 : 0);
    /* Walking follows the yaw only: looking down does not slow the walk. */
    double a = walker->yaw * G_PI / 180.0;
    double fx = cos(a), fy = sin(a), rx = sin(a), ry = -cos(a);
    al_move_input in = {
        .wish = {forward * fx + right * rx, forward * fy + right * ry},
        .jump = (k & ALLIUM_WALK_JUMP) != 0,
        .crouch = (k & ALLIUM_WALK_CROUCH) != 0,
    };
    double len = hypot(in.wish[0], in.wish[1]);
    if (len > 1) {
        in.wish[0] /= len;
        in.wish[1] /= len;
    }

    double z_before = walker->mover.origin[2], h_before = eye_height(walker);
    gboolean was_on_ground = walker->mover.on_ground;
    al_move_step(world_of(walker), &walker->params, &in, ALLIUM_WALKER_STEP, &walker->mover);
    /* Crouching or standing up, and rising on the ground (a stair, a slope), make the eye
     * lag behind and catch up (at most MAX_EYE_LAG behind, as Quake's view does for steps);
     * falling and jumping move the eye with the agent. */
    double lag = walker->eye_lag + eye_height(walker) - h_before;
    double rise = walker->mover.origin[2] - z_before;
    if (was_on_ground && walker->mover.on_ground && rise > 0) lag += rise;
    double catch_up = EYE_SPEED * ALLIUM_WALKER_STEP;
    lag = fabs(lag) <= catch_up ? 0 : lag - copysign(catch_up, lag);
    walker->eye_lag = CLAMP(lag, -MAX_EYE_LAG, MAX_EYE_LAG);
}

int allium_walker_advance(AlliumWalker *walker, double seconds)
{
    if (!(seconds > 0)) return 0;
    walker->pending = MIN(walker->pending + seconds, MAX_CATCH_UP);
    int steps = 0;
    while (walker->pending >= ALLIUM_WALKER_STEP) {
        allium_walker_step(walker);
        walker->pending -= ALLIUM_WALKER_STEP;
        steps++;
    }
    return steps;
}

void allium_walker_get_eye(AlliumWalker *walker, double eye[3], double *yaw, double *pitch)
{
    eye[0] = walker->mover.origin[0];
    eye[1] = walker->mover.origin[1];
    eye[2] = walker->mover.origin[2] + eye_height(walker) - walker->eye_lag;
    *yaw = walker->yaw;
    *pitch = walker->pitch;
}

void allium_walker_get_state(AlliumWalker *walker, double origin[3], double velocity[3],
                             gboolean *on_ground, gboolean *crouched)
{
    for (int k = 0; k < 3; k++) {
        if (origin) origin[k] = walker->mover.origin[k];
        if (velocity) velocity[k] = walker->mover.velocity[k];
    }
    if (on_ground) *on_ground = walker->mover.on_ground;
    if (crouched) *crouched = walker->mover.crouched;
}

void allium_walker_get_box(AlliumWalker *walker, double mins[3], double maxs[3])
{
    const al_hull_desc *h = al_world_hull(world_of(walker), al_mover_hull(&walker->mover));
    for (int k = 0; k < 3; k++) {
        mins[k] = walker->mover.origin[k] + h->mins[k];
        maxs[k] = walker->mover.origin[k] + h->maxs[k];
    }
}

char *allium_walker_describe(AlliumWalker *walker)
{
    const al_mover *m = &walker->mover;
    const char *hull = al_world_hull(world_of(walker), al_mover_hull(m))->name;
    double speed = hypot(m->velocity[0], m->velocity[1]);
    /* TRANSLATORS: walk mode's overlay: the agent box's name, horizontal speed, and
     * "on ground" or "in the air" */
    char *text = g_strdup_printf(_("%s · %.0f units/s · %s"), hull, speed,
                                 m->on_ground ? _("on ground") : _("in the air"));
    g_autofree char *water = allium_collision_describe_water(m);
    if (water) {
        char *wet = g_strdup_printf("%s · %s", text, water);
        g_free(text);
        text = wet;
    }
    if (m->stuck) {
        char *stuck = g_strdup_printf("%s · %s", text, _("inside solid"));
        g_free(text);
        text = stuck;
    }
    return text;
}
