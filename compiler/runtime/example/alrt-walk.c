/* alrt-walk: the runtime library's example. Loads a runtime world (allium-compile
 * --runtime OUT.alw MAP) and walks an agent of a compiled hull through it from the player
 * start: gravity pulls it down, it walks ahead at a steady speed, slides along the walls it
 * meets (clipping its velocity against each surface hit, up to four per step), steps up
 * ledges up to 18 units, and turns when it is stuck. Prints one line per step it takes
 * every N steps: time, position, what fills the point, vis leaf, and whether it stands.
 *
 *   alrt-walk [--hull NAME] [--steps N] [--every N] WORLD.alw
 *
 * It links only liballium-runtime (pkg-config allium-runtime), as a game would.
 * Exit status: 0 after the walk, 1 when the world cannot be loaded, 2 for a usage error.
 */
#include "allium-runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_SECONDS 0.05
#define GRAVITY      800.0 /* units/s² (Quake's sv_gravity) */
#define WALK_SPEED   320.0 /* units/s */
#define STEP_HEIGHT  18.0  /* ledges the agent climbs */
#define MAX_BUMPS    4

typedef struct agent {
    double origin[3];
    double velocity[3];
    double yaw; /* radians: the way it walks */
    int on_ground;
    int hull;
} agent;

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Moves A by its velocity for DT seconds, sliding along what it hits: the velocity loses
 * its part into each surface, and the rest of the move goes on from where the box
 * stopped. Returns the fraction of the move made. */
static double slide_move(const alrt_world *w, agent *a, double dt)
{
    double left = 1.0, made = 0.0;
    for (int bump = 0; bump < MAX_BUMPS && left > 0; bump++) {
        double end[3];
        for (int k = 0; k < 3; k++) end[k] = a->origin[k] + a->velocity[k] * dt * left;
        alrt_hit h;
        alrt_trace(w, a->hull, a->origin, end, &h);
        if (h.all_solid) {
            a->velocity[0] = a->velocity[1] = a->velocity[2] = 0;
            return made;
        }
        memcpy(a->origin, h.end, sizeof a->origin);
        made += (1 - made) * h.fraction;
        if (!h.hit) break;
        left *= 1 - h.fraction;
        double into = dot(a->velocity, h.normal);
        for (int k = 0; k < 3; k++) a->velocity[k] -= h.normal[k] * into * 1.001;
        if (h.normal[2] > 0.7) a->on_ground = 1;
    }
    return made;
}

/* One step: gravity, the walking velocity, the move (tried again lifted by STEP_HEIGHT
 * when that gets further), and the ground check. */
static void step(const alrt_world *w, agent *a)
{
    a->velocity[0] = cos(a->yaw) * WALK_SPEED;
    a->velocity[1] = sin(a->yaw) * WALK_SPEED;
    if (!a->on_ground) a->velocity[2] -= GRAVITY * STEP_SECONDS;
    agent flat = *a;
    flat.on_ground = 0;
    slide_move(w, &flat, STEP_SECONDS);
    /* The step-up: lift, move, drop back down. */
    agent up = *a;
    up.on_ground = 0;
    double lift[3] = {up.origin[0], up.origin[1], up.origin[2] + STEP_HEIGHT};
    alrt_hit h;
    alrt_trace(w, a->hull, up.origin, lift, &h);
    memcpy(up.origin, h.end, sizeof up.origin);
    up.velocity[2] = 0;
    slide_move(w, &up, STEP_SECONDS);
    double down[3] = {up.origin[0], up.origin[1], up.origin[2] - STEP_HEIGHT - 1};
    alrt_trace(w, a->hull, up.origin, down, &h);
    memcpy(up.origin, h.end, sizeof up.origin);
    up.on_ground = h.hit && h.normal[2] > 0.7;
    double flat_d = hypot(flat.origin[0] - a->origin[0], flat.origin[1] - a->origin[1]);
    double up_d = hypot(up.origin[0] - a->origin[0], up.origin[1] - a->origin[1]);
    agent *best = a->on_ground && up.on_ground && up_d > flat_d + 0.5 ? &up : &flat;
    double before[3];
    memcpy(before, a->origin, sizeof before);
    *a = *best;
    /* Standing: something solid just below. */
    double below[3] = {a->origin[0], a->origin[1], a->origin[2] - 1};
    alrt_trace(w, a->hull, a->origin, below, &h);
    a->on_ground = h.hit && h.normal[2] > 0.7;
    if (a->on_ground) a->velocity[2] = 0;
    /* Stuck against a wall: turn. */
    if (hypot(a->origin[0] - before[0], a->origin[1] - before[1]) <
        WALK_SPEED * STEP_SECONDS * 0.25)
        a->yaw += 1.9;
}

static const char *contents_name(alrt_contents c)
{
    static const char *names[] = {"empty", "solid", "water", "slime", "lava"};
    return (unsigned) c < 5 ? names[c] : "?";
}

int main(int argc, char **argv)
{
    const char *hull_name = "stand", *path = NULL;
    int steps = 200, every = 10;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--hull") == 0 && i + 1 < argc)
            hull_name = argv[++i];
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--every") == 0 && i + 1 < argc)
            every = atoi(argv[++i]);
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr, "usage: alrt-walk [--hull NAME] [--steps N] [--every N] WORLD.alw\n");
            return 2;
        }
    }
    if (!path || steps < 0 || every < 1) {
        fprintf(stderr, "usage: alrt-walk [--hull NAME] [--steps N] [--every N] WORLD.alw\n");
        return 2;
    }
    alrt_world *w = NULL;
    char why[512];
    if (alrt_load_file(path, &w, why, sizeof why) != ALRT_OK) {
        fprintf(stderr, "alrt-walk: %s\n", why);
        return 1;
    }
    agent a = {.hull = alrt_find_hull(w, hull_name)};
    if (a.hull < 0) {
        fprintf(stderr, "alrt-walk: %s: no hull named %s\n", path, hull_name);
        alrt_destroy(w);
        return 1;
    }
    /* The player start, and the way it faces. */
    int start = -1;
    for (int e = 0; e < alrt_entity_count(w) && start < 0; e++) {
        const char *cls = alrt_entity_value(w, e, "classname");
        if (cls && strcmp(cls, "info_player_start") == 0) start = e;
    }
    const char *origin = start >= 0 ? alrt_entity_value(w, start, "origin") : NULL;
    if (!origin || sscanf(origin, "%lf %lf %lf", &a.origin[0], &a.origin[1], &a.origin[2]) != 3) {
        fprintf(stderr, "alrt-walk: %s: no info_player_start with an origin\n", path);
        alrt_destroy(w);
        return 1;
    }
    const char *angle = alrt_entity_value(w, start, "angle");
    a.yaw = angle ? atof(angle) * M_PI / 180 : 0;
    printf("# %s: hull %s, %d models, %d vis leaves, %d entities\n", path, hull_name,
           alrt_model_count(w), alrt_leaf_count(w), alrt_entity_count(w));
    printf("# step  time       x         y         z  contents  leaf  ground\n");
    for (int i = 0; i <= steps; i++) {
        if (i % every == 0 || i == steps)
            printf("%6d %5.2f %9.2f %9.2f %9.2f  %-8s %5d  %d\n", i, i * STEP_SECONDS, a.origin[0],
                   a.origin[1], a.origin[2], contents_name(alrt_point_contents(w, 0, a.origin)),
                   alrt_leaf_at(w, a.origin), a.on_ground);
        if (i < steps) step(w, &a);
    }
    alrt_destroy(w);
    return 0;
}
