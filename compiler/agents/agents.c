/* A crowd of walking agents (al-agents.h).
 *
 * Workload: up to thousands of agents stepped at 60 Hz on the editor's agent thread (or in
 * a benchmark), each step one al_move_step per agent and one pass over the sphere tree's
 * pairs. The per-step cost is the movers' traces; steering and contacts are kept to a few
 * arithmetic operations per agent. In a crowd most agents touch two or three others each
 * step: their pushes are summed and made by one slide move per agent, not one per pair.
 *
 * Steering is deliberately simple, as the issue asks: head straight for the goal; on
 * arrival take the waypoint's target, or a random waypoint; an agent that makes no progress
 * for a while jumps and, where the crouch box fits ahead but the stand box does not,
 * crouches; if that does not help it picks another goal.
 */
#include "al-agents.h"

#include "al-spheretree.h"
#include "al-entity-keys.h"
#include "al-vec3.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COUNT_PER_START 256
#define ARRIVE_RADIUS 32.0       /* units, horizontally */
#define STALL_SECONDS 1.5        /* without getting 16 units nearer: try something else */
#define STALL_PROGRESS 16.0      /* units */
#define CROUCH_SECONDS 1.0       /* how long a stalled agent holds crouch */
#define WANDER_RANGE 768.0       /* units from the start, without waypoints */
#define SPHERE_MARGIN 16.0       /* fat margin of the sphere tree's leaves, units: about four
                                    steps at full speed (allium-bench spheretree: fastest) */

typedef struct waypoint {
    double p[3];
    int next; /* -1: wander on */
    char name[64];
    char target[64];
} waypoint;

/* Steering state of one agent, beside its public al_agent. */
typedef struct steer {
    int handle;        /* in the sphere tree */
    double best;       /* nearest the agent has come to its goal since it was set */
    double stalled;    /* seconds without progress */
    double crouching;  /* seconds left holding crouch */
    bool jump;
    double push[3];    /* this step's pushes so far, not yet made (see push_apart) */
} steer;

struct al_agents {
    al_agent *agents;
    steer *steer;
    int count, capacity;
    waypoint *waypoints;
    int waypoint_count, waypoint_capacity;
    al_sphere_tree *tree;
    uint64_t rng;
    const al_world *world; /* the world the hull indices were found in */
    int (*pairs)[2];       /* scratch for one step's pairs */
    int pair_count, pair_capacity;
    bool pairs_failed;
};

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double random_unit(uint64_t *state)
{
    return (double) (next_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

al_agents *al_agents_create(uint64_t seed)
{
    al_agents *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->tree = al_sphere_tree_create(SPHERE_MARGIN);
    if (!a->tree) {
        free(a);
        return NULL;
    }
    a->rng = seed;
    return a;
}

void al_agents_destroy(al_agents *a)
{
    if (!a) return;
    al_sphere_tree_destroy(a->tree);
    free(a->agents);
    free(a->steer);
    free(a->waypoints);
    free(a->pairs);
    free(a);
}

al_status al_agents_rebuild(al_agents *a)
{
    return al_sphere_tree_rebuild(a->tree);
}

int al_agents_count(const al_agents *a)
{
    return a->count;
}

const al_agent *al_agents_get(const al_agents *a, int i)
{
    return i >= 0 && i < a->count ? &a->agents[i] : NULL;
}

static bool grow(void **items, int *capacity, int need, size_t size)
{
    if (need <= *capacity) return true;
    int cap = *capacity ? *capacity * 2 : 16;
    while (cap < need) cap *= 2;
    void *p = realloc(*items, (size_t) cap * size);
    if (!p) return false;
    *items = p;
    *capacity = cap;
    return true;
}

int al_agents_add_waypoint(al_agents *a, const double p[3], int next)
{
    if (!grow((void **) &a->waypoints, &a->waypoint_capacity, a->waypoint_count + 1,
              sizeof *a->waypoints))
        return -1;
    waypoint *w = &a->waypoints[a->waypoint_count];
    memset(w, 0, sizeof *w);
    al_copy(p, w->p);
    w->next = next;
    return a->waypoint_count++;
}

/* The sphere around an agent's stand box (the largest box it takes). */
static void agent_sphere(const al_world *world, const al_agent *g, al_sphere *s)
{
    const al_hull_desc *h = al_world_hull(world, g->mover.stand_hull);
    for (int k = 0; k < 3; k++) s->center[k] = g->mover.origin[k] + (h->mins[k] + h->maxs[k]) / 2;
    double d[3];
    al_sub(h->maxs, h->mins, d);
    s->radius = al_length(d) / 2;
}

/* Finds the hulls of agent G in WORLD by name; false if its stand hull is missing. */
static bool find_hulls(const al_world *world, al_agent *g)
{
    int stand = al_world_find_hull(world, g->hull);
    if (stand < 0) return false;
    int crouch = al_world_find_hull(world, "crouch");
    const al_hull_desc *s = al_world_hull(world, stand);
    /* Crouching must shrink the box from the top only, or it could reach into a wall. */
    if (crouch >= 0) {
        const al_hull_desc *c = al_world_hull(world, crouch);
        for (int k = 0; k < 3; k++)
            if (c->mins[k] < s->mins[k] || c->maxs[k] > s->maxs[k]) crouch = -1;
    }
    g->mover.stand_hull = stand;
    g->mover.crouch_hull = crouch >= 0 ? crouch : stand;
    if (g->mover.crouch_hull == stand) g->mover.crouched = false;
    return true;
}

static void set_goal(al_agents *a, int i, int target)
{
    al_agent *g = &a->agents[i];
    steer *s = &a->steer[i];
    if (target < 0 && a->waypoint_count > 0) {
        target = (int) (random_unit(&a->rng) * a->waypoint_count);
        if (target == g->waypoint && a->waypoint_count > 1)
            target = (target + 1) % a->waypoint_count;
    }
    g->waypoint = target;
    if (target >= 0) {
        al_copy(a->waypoints[target].p, g->goal);
    } else {
        double angle = random_unit(&a->rng) * 2 * M_PI;
        double r = WANDER_RANGE * sqrt(random_unit(&a->rng));
        al_set(g->start[0] + r * cos(angle), g->start[1] + r * sin(angle), g->start[2], g->goal);
    }
    s->best = INFINITY;
    s->stalled = 0;
}

int al_agents_add(al_agents *a, const al_world *world, const char *hull_name,
                  const double origin[3], double max_speed)
{
    if (!hull_name || strlen(hull_name) >= sizeof a->agents[0].hull || !al_is_finite3(origin))
        return -1;
    if (!grow((void **) &a->agents, &a->capacity, a->count + 1, sizeof *a->agents)) return -1;
    int cap = a->capacity;
    steer *st = realloc(a->steer, (size_t) cap * sizeof *st);
    if (!st) return -1;
    a->steer = st;
    al_agent *g = &a->agents[a->count];
    memset(g, 0, sizeof *g);
    snprintf(g->hull, sizeof g->hull, "%s", hull_name);
    if (!find_hulls(world, g)) return -1;
    al_mover_init(&g->mover, world, g->mover.stand_hull, g->mover.crouch_hull, origin);
    al_copy(origin, g->start);
    g->max_speed = max_speed > 0 ? max_speed : 320;
    g->entity = -1;
    g->waypoint = -1;
    steer *s = &a->steer[a->count];
    memset(s, 0, sizeof *s);
    al_sphere sphere;
    agent_sphere(world, g, &sphere);
    s->handle = al_sphere_tree_insert(a->tree, &sphere, a->count);
    if (s->handle < 0) return -1;
    a->world = world;
    int index = a->count++;
    set_goal(a, index, -1);
    return index;
}

void al_agents_set_waypoint(al_agents *a, int i, int target)
{
    if (i < 0 || i >= a->count) return;
    set_goal(a, i, target >= 0 && target < a->waypoint_count ? target : -1);
}

/* Drops P onto the floor below it (within 1024 units) for HULL; false if P is in solid. */
static bool drop_to_floor(const al_world *world, int hull, double p[3])
{
    if (al_world_point_solid(world, hull, p)) return false;
    double down[3] = {p[0], p[1], p[2] - 1024};
    al_trace t;
    al_world_trace(world, hull, p, down, &t);
    if (t.start_solid) return false;
    if (t.hit) al_copy(t.end, p);
    return true;
}

/* The K-th place around a start, on a square spiral of cells SPACING apart. */
static void spiral_offset(int k, double spacing, double out[2])
{
    int x = 0, y = 0, dx = 0, dy = -1;
    for (int i = 0; i < k; i++) {
        if (x == y || (x < 0 && x == -y) || (x > 0 && x == 1 - y)) {
            int t = dx;
            dx = -dy;
            dy = t;
        }
        x += dx;
        y += dy;
    }
    out[0] = x * spacing;
    out[1] = y * spacing;
}

static int find_waypoint(const al_agents *a, const char *name)
{
    for (int w = 0; w < a->waypoint_count; w++)
        if (name && *name && strcmp(a->waypoints[w].name, name) == 0) return w;
    return -1;
}

static int nearest_waypoint(const al_agents *a, const double p[3])
{
    int best = -1;
    double best_d = INFINITY;
    for (int w = 0; w < a->waypoint_count; w++) {
        double d[3];
        al_sub(a->waypoints[w].p, p, d);
        double l = al_dot(d, d);
        if (l < best_d) best_d = l, best = w;
    }
    return best;
}

static void entity_problem(al_diag_list *diags, const al_entity_desc *e, int index,
                           const char *format, const char *what)
{
    al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, index, -1, -1, e->line, -1, format,
                what);
}

al_status al_agents_spawn_map(al_agents *a, const al_input *in, const al_world *world,
                              al_diag_list *diags)
{
    int first_waypoint = a->waypoint_count;
    for (int i = 0; i < in->entity_count; i++) {
        const al_entity_desc *e = &in->entities[i];
        if (!e->classname || strcmp(e->classname, "waypoint") != 0) continue;
        const char *o = al_entity_value(e, "origin");
        double p[3];
        if (!o || al_read_numbers(o, p, 3) != 3) {
            entity_problem(diags, e, i, "waypoint has no origin of three numbers%s", "");
            continue;
        }
        int w = al_agents_add_waypoint(a, p, -1);
        if (w < 0) return AL_ERR_NOMEM;
        const char *name = al_entity_value(e, "targetname");
        const char *target = al_entity_value(e, "target");
        snprintf(a->waypoints[w].name, sizeof a->waypoints[w].name, "%s", name ? name : "");
        snprintf(a->waypoints[w].target, sizeof a->waypoints[w].target, "%s",
                 target ? target : "");
    }
    for (int w = first_waypoint; w < a->waypoint_count; w++)
        a->waypoints[w].next = find_waypoint(a, a->waypoints[w].target);

    for (int i = 0; i < in->entity_count; i++) {
        const al_entity_desc *e = &in->entities[i];
        if (!e->classname || strcmp(e->classname, "agent_start") != 0) continue;
        const char *o = al_entity_value(e, "origin");
        double origin[3], v;
        if (!o || al_read_numbers(o, origin, 3) != 3) {
            entity_problem(diags, e, i, "agent_start has no origin of three numbers%s", "");
            continue;
        }
        const char *hull = al_entity_value(e, "hull");
        if (!hull || !*hull) hull = "stand";
        int h = al_world_find_hull(world, hull);
        if (h < 0) {
            entity_problem(diags, e, i, "agent_start: the map has no hull \"%.60s\"", hull);
            continue;
        }
        int count = 1;
        const char *s = al_entity_value(e, "count");
        if (s) {
            if (al_read_numbers(s, &v, 1) != 1 || v < 1 || v > MAX_COUNT_PER_START ||
                v != floor(v)) {
                entity_problem(diags, e, i,
                               "agent_start: count \"%.40s\" is not a whole number from 1 to 256",
                               s);
                continue;
            }
            count = (int) v;
        }
        double speed = 320;
        s = al_entity_value(e, "speed");
        if (s) {
            if (al_read_numbers(s, &v, 1) != 1 || !(v > 0) || v > 10000) {
                entity_problem(diags, e, i,
                               "agent_start: speed \"%.40s\" is not a number above 0 and at most "
                               "10000",
                               s);
                continue;
            }
            speed = v;
        }
        const char *target = al_entity_value(e, "target");
        int first = find_waypoint(a, target);
        if (target && *target && first < 0)
            entity_problem(diags, e, i, "agent_start: no waypoint is named \"%.60s\"", target);
        const al_hull_desc *d = al_world_hull(world, h);
        double spacing = fmax(d->maxs[0] - d->mins[0], d->maxs[1] - d->mins[1]) + 8;
        int placed = 0;
        for (int k = 0; placed < count && k < count * 4; k++) {
            double off[2], p[3];
            spiral_offset(k, spacing, off);
            al_set(origin[0] + off[0], origin[1] + off[1], origin[2], p);
            if (!drop_to_floor(world, h, p)) continue;
            int g = al_agents_add(a, world, hull, p, speed);
            if (g < 0) return AL_ERR_NOMEM;
            a->agents[g].entity = i;
            set_goal(a, g, first >= 0 ? first : nearest_waypoint(a, p));
            placed++;
        }
        if (placed < count) {
            char what[80];
            snprintf(what, sizeof what, "%d of %d", placed, count);
            entity_problem(diags, e, i,
                           "agent_start: only %s agents fit around it (the others would start "
                           "inside solid)",
                           what);
        }
    }
    /* One-by-one insertion leaves the top of the tree loose: build it anew. */
    return al_sphere_tree_rebuild(a->tree) == AL_OK ? AL_OK : AL_ERR_NOMEM;
}

void al_agents_box(const al_agents *a, const al_world *world, int i, double mins[3],
                   double maxs[3])
{
    const al_agent *g = &a->agents[i];
    const al_hull_desc *h = al_world_hull(world, al_mover_hull(&g->mover));
    al_add(g->mover.origin, h->mins, mins);
    al_add(g->mover.origin, h->maxs, maxs);
}

static double horizontal_gap(const double a[3], const double b[3])
{
    return hypot(b[0] - a[0], b[1] - a[1]);
}

/* Steering: the input that heads agent I for its goal, with the stall remedies. */
static void steer_agent(al_agents *a, const al_world *world, int i, double dt,
                        al_move_input *in)
{
    al_agent *g = &a->agents[i];
    steer *s = &a->steer[i];
    memset(in, 0, sizeof *in);
    double gap = horizontal_gap(g->mover.origin, g->goal);
    if (gap < ARRIVE_RADIUS) {
        set_goal(a, i, g->waypoint >= 0 ? a->waypoints[g->waypoint].next : -1);
        gap = horizontal_gap(g->mover.origin, g->goal);
    }
    if (gap > 1e-9) {
        in->wish[0] = (g->goal[0] - g->mover.origin[0]) / gap;
        in->wish[1] = (g->goal[1] - g->mover.origin[1]) / gap;
    }
    if (gap < s->best - STALL_PROGRESS) {
        s->best = gap;
        s->stalled = 0;
    } else {
        s->stalled += dt;
    }
    if (s->stalled > STALL_SECONDS) {
        /* First try crouching where only the crouch box fits ahead, and a jump; after
         * twice as long give up on this goal. */
        if (s->stalled > 2 * STALL_SECONDS) {
            set_goal(a, i, -1);
        } else if (s->crouching <= 0 && g->mover.crouch_hull != g->mover.stand_hull) {
            double ahead[3] = {g->mover.origin[0] + in->wish[0] * 48,
                               g->mover.origin[1] + in->wish[1] * 48, g->mover.origin[2]};
            al_trace stand, crouch;
            al_world_trace(world, g->mover.stand_hull, g->mover.origin, ahead, &stand);
            /* A fraction is at most 1: when the stand box gets within a quarter of the way,
             * the crouch box cannot beat it by more, and its trace is not needed. */
            bool crouch_helps = false;
            if (stand.fraction + 0.25 < 1.0) {
                al_world_trace(world, g->mover.crouch_hull, g->mover.origin, ahead, &crouch);
                crouch_helps = crouch.fraction > stand.fraction + 0.25;
            }
            if (crouch_helps) s->crouching = CROUCH_SECONDS;
            else s->jump = true;
        }
    }
    if (s->crouching > 0) {
        in->crouch = true;
        s->crouching -= dt;
    }
    in->jump = s->jump;
    s->jump = false;
}

static void collect_pair(void *ctx, int x, int y)
{
    al_agents *a = ctx;
    if (!grow((void **) &a->pairs, &a->pair_capacity, a->pair_count + 1, sizeof *a->pairs)) {
        a->pairs_failed = true;
        return;
    }
    a->pairs[a->pair_count][0] = x;
    a->pairs[a->pair_count][1] = y;
    a->pair_count++;
}

/* The half-extent of box [MINS, MAXS] towards unit direction D (the thesis's "collision
 * radius" of an object in a direction, for a box). */
static double box_radius(const double mins[3], const double maxs[3], const double d[3])
{
    double r = 0;
    for (int k = 0; k < 3; k++) r += fabs(d[k]) * (maxs[k] - mins[k]) / 2;
    return r;
}

/* Moves agent G by PUSH, sliding along walls. Pushes are small, often a fraction of the
 * trace's skin, and mostly along walls an agent is pressed against: a move that ends on
 * a surface (where the trees may answer either way) is not made, so that pushes cannot
 * creep an agent into a wall. The slide move already knows most ends to be empty (a free
 * last leg); only the others are asked. */
static void push_agent(const al_world *world, al_agent *g, const double push[3])
{
    al_slide slide;
    al_box_shape shape = {.hull = al_mover_hull(&g->mover)};
    al_slide_move(world, &shape, g->mover.origin, push, 1, &slide);
    if (!slide.start_solid &&
        (slide.end_empty || !al_world_point_solid(world, shape.hull, slide.end)))
        al_copy(slide.end, g->mover.origin);
}

/* Pushes apart agents X and Y if their boxes overlap; returns true if they did. The boxes
 * are where earlier pushes of this step put the agents; this push is added to theirs, to
 * be made by one slide move each once all pairs are done (push_agent). */
static bool push_apart(al_agents *a, const al_world *world, int x, int y)
{
    double amin[3], amax[3], bmin[3], bmax[3];
    al_agents_box(a, world, x, amin, amax);
    al_agents_box(a, world, y, bmin, bmax);
    steer *sa = &a->steer[x], *sb = &a->steer[y];
    al_add(amin, sa->push, amin);
    al_add(amax, sa->push, amax);
    al_add(bmin, sb->push, bmin);
    al_add(bmax, sb->push, bmax);
    for (int k = 0; k < 3; k++)
        if (amin[k] >= bmax[k] || bmin[k] >= amax[k]) return false;
    al_agent *ga = &a->agents[x], *gb = &a->agents[y];
    /* Apart horizontally (agents stand on floors; pushing one into the floor helps no one);
     * agents at the same spot part along a direction chosen by their indices. */
    double d[3] = {gb->mover.origin[0] + sb->push[0] - ga->mover.origin[0] - sa->push[0],
                   gb->mover.origin[1] + sb->push[1] - ga->mover.origin[1] - sa->push[1], 0};
    double distance = al_length(d);
    if (distance < 1e-6) {
        double angle = (double) ((x * 7919 + y * 104729) % 360) * M_PI / 180;
        al_set(cos(angle), sin(angle), 0, d);
        distance = 0;
    } else {
        al_scale(d, 1 / distance, d);
    }
    /* Thesis: EndPosition += Direction * (R1 + R2 - Distance), split between the two. */
    double overlap = box_radius(amin, amax, d) + box_radius(bmin, bmax, d) - distance;
    if (overlap <= 0) return false;
    double push[3];
    al_scale(d, overlap / 2 + AL_TRACE_SKIN, push);
    al_add(sb->push, push, sb->push);
    al_sub(sa->push, push, sa->push);
    ga->contacts++;
    gb->contacts++;
    return true;
}

static void update_sphere(al_agents *a, const al_world *world, int i)
{
    al_sphere s;
    agent_sphere(world, &a->agents[i], &s);
    al_sphere_tree_move(a->tree, a->steer[i].handle, &s);
}

void al_agents_step(al_agents *a, const al_world *world, const al_move_params *params,
                    double dt, al_agents_step_stats *stats)
{
    al_agents_step_stats st = {0};
    bool new_world = world != a->world;
    a->world = world;
    for (int i = 0; i < a->count; i++) {
        al_agent *g = &a->agents[i];
        g->contacts = 0;
        if (new_world && !find_hulls(world, g)) {
            g->stuck = true;
            st.stuck++;
            continue;
        }
        al_move_input in;
        steer_agent(a, world, i, dt, &in);
        al_move_params p = *params;
        p.max_speed = g->max_speed;
        al_move_step(world, &p, &in, dt, &g->mover);
        g->stuck = g->mover.stuck;
        if (g->stuck) st.stuck++;
        update_sphere(a, world, i);
    }
    a->pair_count = 0;
    a->pairs_failed = false;
    if (al_sphere_tree_pairs(a->tree, collect_pair, a) != AL_OK) a->pairs_failed = true;
    st.pairs = a->pair_count;
    for (int k = 0; k < a->pair_count; k++) {
        int x = a->pairs[k][0], y = a->pairs[k][1];
        if (a->agents[x].stuck || a->agents[y].stuck) continue;
        if (push_apart(a, world, x, y)) st.contacts++;
    }
    /* Each pushed agent makes its pushes in one slide move; and the step's pairs are
     * known, so the tree needs its sphere only for the queries after the step. */
    for (int i = 0; i < a->count; i++) {
        if (a->agents[i].contacts == 0) continue;
        push_agent(world, &a->agents[i], a->steer[i].push);
        al_set(0, 0, 0, a->steer[i].push);
        update_sphere(a, world, i);
    }
    if (stats) *stats = st;
}

void al_agents_reset(al_agents *a, const al_world *world)
{
    a->world = world;
    for (int i = 0; i < a->count; i++) {
        al_agent *g = &a->agents[i];
        if (!find_hulls(world, g)) continue;
        al_mover_init(&g->mover, world, g->mover.stand_hull, g->mover.crouch_hull, g->start);
        g->stuck = false;
        g->contacts = 0;
        a->steer[i].crouching = 0;
        int first = g->entity >= 0 ? g->waypoint : -1;
        set_goal(a, i, first);
        update_sphere(a, world, i);
    }
}

typedef struct pick_ctx {
    const al_agents *agents;
    const al_world *world;
    const double *origin, *dir;
} pick_ctx;

/* Ray against agent I's box (slabs). */
static bool pick_box(void *ctx, int i, double *t)
{
    const pick_ctx *c = ctx;
    double mins[3], maxs[3];
    al_agents_box(c->agents, c->world, i, mins, maxs);
    double t0 = 0, t1 = INFINITY;
    for (int k = 0; k < 3; k++) {
        if (fabs(c->dir[k]) < 1e-300) {
            if (c->origin[k] < mins[k] || c->origin[k] > maxs[k]) return false;
            continue;
        }
        double a = (mins[k] - c->origin[k]) / c->dir[k], b = (maxs[k] - c->origin[k]) / c->dir[k];
        if (a > b) {
            double s = a;
            a = b;
            b = s;
        }
        if (a > t0) t0 = a;
        if (b < t1) t1 = b;
        if (t0 > t1) return false;
    }
    *t = t0;
    return true;
}

int al_agents_pick(const al_agents *a, const al_world *world, const double origin[3],
                   const double dir[3], double max_t, double *t)
{
    pick_ctx c = {a, world, origin, dir};
    al_sphere_hit hit;
    al_sphere_tree_ray(a->tree, origin, dir, max_t, pick_box, &c, &hit);
    if (t) *t = hit.hit ? hit.t : INFINITY;
    return hit.hit ? hit.user : -1;
}
