/* The slide move and one walking step (al-move.h).
 *
 * Workload: the test-box tool calls al_slide_move once per pointer motion; agents call
 * al_move_step once per 60 Hz physics step each, a thousand of them at a time, so a step
 * costs as few traces as it can: the ground probe and one slide in the common case of
 * walking on a floor, the stepped move only when the plain move was blocked by a wall.
 */
#include "al-move.h"

#include "al-vec3.h"

#include <math.h>
#include <string.h>

/* How far below the box the ground is looked for, units: more than AL_TRACE_SKIN (where a
 * resting box floats) so that a box at rest finds its floor every step. */
#define GROUND_PROBE 0.25

/* A clipped velocity keeps this much speed away from the surface, units/s, so that the
 * next trace, which starts AL_TRACE_SKIN in front of it, does not graze it again through
 * rounding. Far too small to be seen (1/60 s of it is 2e-5 units). */
#define CLIP_LIFT 1e-3

/* Two contact normals closer than this (the cosine of their angle) are the same surface. */
#define SAME_PLANE_COS 0.99999

void al_shape_trace(const al_world *world, const al_box_shape *shape, const double start[3],
                    const double end[3], al_trace *out)
{
    if (shape->hull >= 0)
        al_world_trace(world, shape->hull, start, end, out);
    else
        al_world_trace_box(world, shape->mins, shape->maxs, start, end, out);
}

/* V without its component into the surface of NORMAL (the thesis's slide), lifted by
 * CLIP_LIFT off it. */
static void clip_velocity(const double v[3], const double normal[3], double out[3])
{
    double into = al_dot(v, normal);
    al_madd(v, normal, -into, out);
    if (into < 0) al_madd(out, normal, CLIP_LIFT, out);
}

/* A velocity from ORIGINAL that slides along every one of the COUNT surfaces: clipped by
 * one of them, if that does not run into another; else along the crease of two; else
 * none (a corner). Returns false for none. */
static bool slide_velocity(const double original[3], const double (*planes)[3], int count,
                           double out[3])
{
    for (int i = 0; i < count; i++) {
        double v[3];
        clip_velocity(original, planes[i], v);
        bool fits = true;
        for (int j = 0; j < count && fits; j++)
            if (j != i && al_dot(v, planes[j]) < 0) fits = false;
        if (fits) {
            al_copy(v, out);
            return true;
        }
    }
    if (count != 2) return false;
    double crease[3];
    al_cross(planes[0], planes[1], crease);
    if (al_normalize(crease, crease) == 0) return false;
    al_scale(crease, al_dot(crease, original), out);
    return true;
}

/* A move without a contact may still end within the trace's epsilon (1e-6 units) beyond
 * a plane it grazes at a shallow angle, where the trees answer "solid": the next move
 * would then start inside, and one along that surface could not get out. Pull such an
 * end back along the move by the skin (or to its start). Only compiled hulls can be
 * asked; plane shifting keeps its answer. T is the trace that ended at END: when it
 * vouches for its end (al_trace.end_empty, the usual case: the end lies on no plane) the
 * point query is not needed. Returns true if END is known to be out of solid (vouched
 * for or asked), false if it fell back to FROM or could not be asked. */
static bool settle_free_end(const al_world *world, const al_box_shape *shape,
                            const double from[3], const al_trace *t, double end[3])
{
    if (shape->hull < 0) return false;
    if (t->end_empty || !al_world_point_solid(world, shape->hull, end)) return true;
    double d[3];
    al_sub(end, from, d);
    double length = al_length(d);
    if (length > AL_TRACE_SKIN) {
        double back[3];
        al_madd(end, d, -AL_TRACE_SKIN / length, back);
        if (!al_world_point_solid(world, shape->hull, back)) {
            al_copy(back, end);
            return true;
        }
    }
    al_copy(from, end);
    return false;
}

void al_slide_move(const al_world *world, const al_box_shape *shape, const double start[3],
                   const double velocity[3], double time, al_slide *out)
{
    memset(out, 0, sizeof *out);
    out->first_fraction = 1;
    double pos[3], v[3], planes[AL_SLIDE_MAX_CONTACTS][3];
    int plane_count = 0;
    al_copy(start, pos);
    al_copy(velocity, v);
    al_copy(start, out->path[out->path_count++]);
    double left = time;
    for (int bump = 0; bump <= AL_SLIDE_MAX_CONTACTS; bump++) {
        if (left <= 0 || (v[0] == 0 && v[1] == 0 && v[2] == 0)) break;
        double end[3];
        al_madd(pos, v, left, end);
        al_trace t;
        al_shape_trace(world, shape, pos, end, &t);
        if (bump == 0) {
            out->first_fraction = t.fraction;
            out->start_solid = t.start_solid;
        }
        if (t.all_solid || (t.start_solid && t.fraction == 0)) {
            /* Inside solid all the way (or, after the first leg, put there by rounding):
             * stay where we were. */
            al_set(0, 0, 0, v);
            out->blocked = bump > 0 || !out->start_solid;
            break;
        }
        if (!t.hit) {
            out->end_empty = settle_free_end(world, shape, pos, &t, t.end);
            al_copy(t.end, pos);
            left = 0;
            break;
        }
        al_copy(t.end, pos);
        left -= left * t.fraction;
        if (plane_count == AL_SLIDE_MAX_CONTACTS) {
            al_set(0, 0, 0, v);
            out->blocked = true;
            break;
        }
        al_slide_contact *c = &out->contacts[out->contact_count++];
        al_copy(t.contact, c->point);
        al_copy(t.normal, c->normal);
        c->fraction = t.fraction;
        al_copy(pos, out->path[out->path_count++]);
        /* The same surface again (a grazing rounding hit): step off it rather than count
         * it twice, which would make a corner of one plane. */
        bool again = false;
        for (int i = 0; i < plane_count; i++)
            if (al_dot(planes[i], t.normal) > SAME_PLANE_COS) again = true;
        if (again) {
            al_madd(v, t.normal, CLIP_LIFT, v);
            continue;
        }
        al_copy(t.normal, planes[plane_count++]);
        double slid[3];
        /* Never turn back against the original move: that would jitter in corners. */
        if (!slide_velocity(velocity, (const double(*)[3])planes, plane_count, slid) ||
            al_dot(slid, velocity) <= 0) {
            al_set(0, 0, 0, v);
            out->blocked = true;
            break;
        }
        al_copy(slid, v);
    }
    if (left > 0 && !out->start_solid && v[0] == 0 && v[1] == 0 && v[2] == 0 &&
        (velocity[0] != 0 || velocity[1] != 0 || velocity[2] != 0))
        out->blocked = true;
    al_copy(pos, out->end);
    al_copy(pos, out->path[out->path_count++]);
    al_copy(v, out->velocity);
}

void al_move_default_params(al_move_params *p)
{
    p->gravity = 800;
    p->max_speed = 320;
    p->crouch_scale = 0.5;
    p->accelerate = 3200;
    p->air_accelerate = 640;
    p->friction = 1600;
    p->jump_speed = 270;
    p->step_height = 18;
    p->ground_normal_z = 0.7;
    p->water_friction = 4;
    p->swim_scale = 0.7;
    p->sink_speed = 60;
    p->swim_up_speed[0] = 100;
    p->swim_up_speed[1] = 80;
    p->swim_up_speed[2] = 50;
}

static bool liquid(al_contents c)
{
    return c == AL_CONTENTS_WATER || c == AL_CONTENTS_SLIME || c == AL_CONTENTS_LAVA;
}

void al_mover_check_water(al_mover *m, const al_world *world)
{
    const al_hull_desc *h = al_world_hull(world, al_mover_hull(m));
    m->water_level = 0;
    m->water_type = AL_CONTENTS_EMPTY;
    if (!h) return;
    /* Only the liquids matter: the point hull's solidity is no agent's. */
    if (al_world_liquid_count(world) == 0) return;
    const double heights[3] = {h->mins[2] + 1, 0.5 * (h->mins[2] + h->maxs[2]), h->maxs[2] - 10};
    for (int level = 0; level < 3; level++) {
        double p[3] = {m->origin[0], m->origin[1], m->origin[2] + heights[level]};
        al_contents c = al_world_point_liquid(world, p);
        if (!liquid(c)) break;
        if (level == 0) m->water_type = c;
        m->water_level = level + 1;
    }
}

int al_mover_hull(const al_mover *m)
{
    return m->crouched ? m->crouch_hull : m->stand_hull;
}

/* Looks for ground just under the mover and records it. */
static void find_ground(const al_world *world, const al_move_params *p, al_mover *m)
{
    m->on_ground = false;
    /* Moving up fast (a jump) leaves the ground even when it is still within reach: then
     * there is nothing to look for. */
    if (m->velocity[2] <= 1.0) {
        double below[3] = {m->origin[0], m->origin[1], m->origin[2] - GROUND_PROBE};
        al_trace t;
        al_world_trace(world, al_mover_hull(m), m->origin, below, &t);
        m->on_ground = t.hit && !t.all_solid && t.normal[2] >= p->ground_normal_z;
        if (m->on_ground) al_copy(t.normal, m->ground_normal);
    }
    if (m->on_ground) {
        if (m->velocity[2] < 0) m->velocity[2] = 0;
    } else {
        al_set(0, 0, 0, m->ground_normal);
    }
}

void al_mover_init(al_mover *m, const al_world *world, int stand_hull, int crouch_hull,
                   const double origin[3])
{
    memset(m, 0, sizeof *m);
    al_copy(origin, m->origin);
    m->stand_hull = stand_hull;
    m->crouch_hull = crouch_hull;
    /* Quake places entities touching the floor, exactly on the boundary of the solid: come
     * down from a unit above instead, to rest the skin above it. */
    double up[3] = {origin[0], origin[1], origin[2] + 1};
    if (!al_world_point_solid(world, stand_hull, up)) {
        double below[3] = {origin[0], origin[1], origin[2] - 1};
        al_trace t;
        al_world_trace(world, stand_hull, up, below, &t);
        if (t.hit && !t.start_solid && t.end[2] >= origin[2]) al_copy(t.end, m->origin);
    }
    al_move_params p;
    al_move_default_params(&p);
    find_ground(world, &p, m);
    al_mover_check_water(m, world);
}

static double horizontal_length(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1]);
}

/* The thesis's "future position" part: friction, acceleration, the speed cap, gravity.
 * Returns true if the mover jumped. */
static bool accelerate(const al_move_params *p, const al_move_input *in, double dt,
                       al_mover *m)
{
    double *v = m->velocity;
    double speed = horizontal_length(v);
    if (m->on_ground && speed > 0) {
        double kept = speed - p->friction * dt;
        double scale = kept > 0 ? kept / speed : 0;
        v[0] *= scale;
        v[1] *= scale;
        speed *= scale;
    }
    double wish[2] = {in->wish[0], in->wish[1]};
    double wish_length = sqrt(wish[0] * wish[0] + wish[1] * wish[1]);
    if (!isfinite(wish_length)) wish_length = 0, wish[0] = wish[1] = 0;
    if (wish_length > 1) wish[0] /= wish_length, wish[1] /= wish_length;
    double rate = (m->on_ground ? p->accelerate : p->air_accelerate) * dt;
    v[0] += wish[0] * rate;
    v[1] += wish[1] * rate;
    /* The cap limits what the agent's own push reaches; a faster agent (pushed, or landing)
     * is only slowed by friction. */
    double cap = p->max_speed * (m->crouched ? p->crouch_scale : 1.0);
    if (speed < cap) speed = cap;
    double now = horizontal_length(v);
    if (now > speed) {
        v[0] *= speed / now;
        v[1] *= speed / now;
    }
    bool jumped = false;
    if (m->on_ground && in->jump && !m->crouched) {
        v[2] = p->jump_speed;
        m->on_ground = false;
        jumped = true;
    } else if (m->on_ground) {
        /* Walk along the ground's slope rather than into or off it. */
        double along[3];
        clip_velocity(v, m->ground_normal, along);
        al_copy(along, v);
    } else {
        v[2] -= p->gravity * dt;
    }
    return jumped;
}

/* Quake's water move: friction in proportion to the speed, then acceleration towards the
 * wish (three-dimensional: up with a jump held, down with crouch, else a slow sink) up to
 * swim_scale of the speed cap. A jump sets the liquid's upward speed, as Quake's players'
 * jumps in water do. */
static void swim(const al_move_params *p, const al_move_input *in, double dt, al_mover *m)
{
    double *v = m->velocity;
    double wish[3] = {in->wish[0], in->wish[1], in->crouch ? -1.0 : 0.0};
    if (!isfinite(wish[0]) || !isfinite(wish[1])) wish[0] = wish[1] = 0;
    double length = al_length(wish);
    if (length > 1) al_scale(wish, 1 / length, wish);
    al_scale(wish, p->max_speed, wish);
    if (wish[0] == 0 && wish[1] == 0 && wish[2] == 0 && !in->jump) wish[2] = -p->sink_speed;
    double wish_speed = al_length(wish);
    if (wish_speed > p->max_speed) {
        al_scale(wish, p->max_speed / wish_speed, wish);
        wish_speed = p->max_speed;
    }
    wish_speed *= p->swim_scale;
    double speed = al_length(v), kept = 0;
    if (speed > 0) {
        kept = speed - dt * speed * p->water_friction;
        if (kept < 0) kept = 0;
        al_scale(v, kept / speed, v);
    }
    double add = wish_speed - kept;
    if (wish_speed > 0 && add > 0) {
        double rate = p->accelerate / p->max_speed * wish_speed * dt;
        al_madd(v, wish, (rate < add ? rate : add) / al_length(wish), v);
    }
    if (in->jump) {
        int kind = m->water_type == AL_CONTENTS_LAVA ? 2 : m->water_type == AL_CONTENTS_SLIME;
        v[2] = p->swim_up_speed[kind];
    }
}

static double horizontal_distance(const double a[3], const double b[3])
{
    double dx = b[0] - a[0], dy = b[1] - a[1];
    return dx * dx + dy * dy;
}

/* True if a contact of SLIDE was with something the mover cannot walk on (a wall, a step's
 * riser): only then can stepping up help. */
static bool met_wall(const al_slide *s, const al_move_params *p)
{
    for (int i = 0; i < s->contact_count; i++)
        if (s->contacts[i].normal[2] < p->ground_normal_z) return true;
    return s->blocked;
}

/* The stepped move: up by the step height, the slide, down again onto ground. False if it
 * lands on no ground (a ledge), starts blocked, or gets no farther from the mover's origin
 * horizontally than BEAT (a squared distance: the plain move's, plus its margin), when it
 * would not be taken anyway. The last is known before the way down, which keeps x and y:
 * against a wall (most stepped moves, never taken) the down trace is saved. */
static bool stepped_move(const al_world *world, const al_move_params *p, const al_mover *m,
                         const al_box_shape *shape, double dt, double beat, al_slide *out)
{
    double up[3] = {m->origin[0], m->origin[1], m->origin[2] + p->step_height};
    al_trace t;
    al_shape_trace(world, shape, m->origin, up, &t);
    if (t.all_solid || (t.start_solid && t.fraction == 0)) return false;
    double flat[3] = {m->velocity[0], m->velocity[1], 0};
    al_slide_move(world, shape, t.end, flat, dt, out);
    if (out->start_solid || !(horizontal_distance(m->origin, out->end) > beat)) return false;
    double risen = t.end[2] - m->origin[2];
    double down[3] = {out->end[0], out->end[1], out->end[2] - risen - GROUND_PROBE};
    al_shape_trace(world, shape, out->end, down, &t);
    if (!t.hit || t.all_solid || t.normal[2] < p->ground_normal_z) return false;
    al_copy(t.end, out->end);
    out->velocity[2] = 0;
    return true;
}

/* Looks for a start a few skins away along an axis from which the move of M is not
 * stuck; takes it (and its move in *PLAIN) if there is one. */
static void nudge_off(const al_world *world, const al_box_shape *shape, al_mover *m, double dt,
                      al_slide *plain)
{
    static const double axes[6][3] = {{0, 0, 1}, {0, 0, -1}, {1, 0, 0},
                                      {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    for (double scale = 1; scale <= 16; scale *= 4)
        for (int a = 0; a < 6; a++) {
            double from[3];
            al_madd(m->origin, axes[a], AL_TRACE_SKIN * scale, from);
            if (al_world_point_solid(world, shape->hull, from)) continue;
            al_slide s;
            al_slide_move(world, shape, from, m->velocity, dt, &s);
            if (s.start_solid) continue;
            *plain = s;
            return;
        }
}

void al_move_step(const al_world *world, const al_move_params *p, const al_move_input *in,
                  double dt, al_mover *m)
{
    if (!(dt > 0) || !al_is_finite3(m->origin) || !al_is_finite3(m->velocity)) return;
    al_mover_check_water(m, world);
    bool swimming = m->water_level >= 2;
    /* Crouching always fits (the crouch box lies inside the stand box); standing up only
     * where the stand box is empty. A swimmer's crouch is a stroke down, not a crouch. */
    if (in->crouch && !swimming)
        m->crouched = m->crouch_hull != m->stand_hull;
    else if (m->crouched && !al_world_point_solid(world, m->stand_hull, m->origin))
        m->crouched = false;

    bool was_on_ground = m->on_ground && !swimming;
    bool jumped = false;
    if (swimming)
        swim(p, in, dt, m);
    else
        jumped = accelerate(p, in, dt, m);
    al_box_shape shape = {.hull = al_mover_hull(m)};
    al_slide plain;
    al_slide_move(world, &shape, m->origin, m->velocity, dt, &plain);
    /* Touching a surface exactly (a sloped ceiling over a crouched mover, say), a move
     * along it never leaves the surface and the trace calls it solid all the way: nudge
     * off first. A mover really inside solid (a brush was put over it) moves only if the
     * move takes it out. */
    if (plain.start_solid && plain.end[0] == m->origin[0] && plain.end[1] == m->origin[1] &&
        plain.end[2] == m->origin[2])
        nudge_off(world, &shape, m, dt, &plain);
    m->stuck = plain.start_solid;
    if (m->stuck) {
        al_copy(plain.end, m->origin);
        al_copy(plain.velocity, m->velocity);
        find_ground(world, p, m);
        al_mover_check_water(m, world);
        return;
    }
    const al_slide *taken = &plain;
    al_slide stepped;
    if (was_on_ground && !jumped && met_wall(&plain, p) &&
        stepped_move(world, p, m, &shape, dt, horizontal_distance(m->origin, plain.end) + 1e-6,
                     &stepped))
        taken = &stepped;
    al_copy(taken->end, m->origin);
    al_copy(taken->velocity, m->velocity);

    find_ground(world, p, m);
    /* Follow the ground down steps and slopes instead of flying off each edge. */
    if (!m->on_ground && was_on_ground && !jumped && m->velocity[2] <= 0) {
        double down[3] = {m->origin[0], m->origin[1], m->origin[2] - p->step_height};
        al_trace t;
        al_world_trace(world, shape.hull, m->origin, down, &t);
        if (t.hit && !t.start_solid && t.normal[2] >= p->ground_normal_z) {
            al_copy(t.end, m->origin);
            find_ground(world, p, m);
        }
    }
    al_mover_check_water(m, world);
}
