/* Agents that walk the compiled world: a crowd of al_mover walkers steering between
 * waypoints, with agent–agent contacts found through a sphere tree (al-spheretree.h).
 *
 * Entry points:
 *   al_agents_create / _destroy   an empty crowd
 *   al_agents_spawn_map           agents from the map's agent_start entities, walking
 *                                 between its waypoint entities
 *   al_agents_add                 one agent anywhere (tests, benchmarks, the editor)
 *   al_agents_step                one fixed physics step of every agent
 *   al_agents_reset               everyone back to where they started
 *   al_agents_pick                the agent a ray hits first (through the sphere tree)
 *
 * Map keys, as level designers write them:
 *   agent_start  origin; hull (name of a hull of the map, default "stand"); count (agents
 *                spawned around it, default 1, at most 256); speed (units/s, default 320);
 *                target (the first waypoint's targetname; none: the nearest waypoint)
 *   waypoint     origin; targetname; target (the next waypoint's targetname; none: the
 *                agent wanders to a random waypoint)
 *
 * The crowd only reads the world: each step may use a newer world than the last (the
 * editor's live snapshots); hulls are found by name in each new world. One thread steps a
 * crowd; different crowds may step in parallel.
 */
#ifndef AL_AGENTS_H
#define AL_AGENTS_H

#include "al-move.h"
#include "al-world.h"
#include "al-diag.h"
#include "al-status.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct al_agents al_agents;

/* What an agent is doing, for the editor's drawing and the tests. */
typedef struct al_agent {
    al_mover mover;
    double start[3];       /* spawn point (al_agents_reset returns here) */
    double max_speed;      /* units/s */
    double goal[3];        /* where it walks now */
    int waypoint;          /* index of the waypoint it walks to, -1 none (wanders) */
    int entity;            /* the agent_start entity, -1 if added directly */
    char hull[32];         /* stand hull name; the crouch hull is "crouch" if the map has one */
    int contacts;          /* agent–agent contacts pushed apart in the last step */
    bool stuck;            /* the last step started inside solid */
} al_agent;

/* An empty crowd. SEED makes the wandering repeatable. NULL if memory runs out. */
al_agents *al_agents_create(uint64_t seed);
void al_agents_destroy(al_agents *agents);

/* Adds the agent_start entities of INPUT as agents (and their waypoints), standing on the
 * floor under each start in WORLD. Entities that cannot be used (an unknown hull, a start
 * inside solid, a bad count or speed) are skipped with a diagnostic naming the entity.
 * Returns AL_OK or AL_ERR_NOMEM. */
al_status al_agents_spawn_map(al_agents *agents, const al_input *input, const al_world *world,
                              al_diag_list *diags);

/* Adds a waypoint at P (index returned, -1 no memory) linked to waypoint NEXT (-1: the
 * agent wanders on from there). */
int al_agents_add_waypoint(al_agents *agents, const double p[3], int next);

/* Adds one agent of hull HULL_NAME at ORIGIN (the crouch hull is the world's "crouch" if
 * any). Returns its index, or -1 (unknown hull, or no memory). */
int al_agents_add(al_agents *agents, const al_world *world, const char *hull_name,
                  const double origin[3], double max_speed);

/* Sends agent INDEX to waypoint WAYPOINT (-1: a random one). */
void al_agents_set_waypoint(al_agents *agents, int index, int waypoint);

/* Builds the sphere tree anew (al_agents_spawn_map does, after adding its agents): for
 * many agents added one by one. AL_OK or AL_ERR_NOMEM. */
al_status al_agents_rebuild(al_agents *agents);

int al_agents_count(const al_agents *agents);
const al_agent *al_agents_get(const al_agents *agents, int index);

/* Which box each agent is, in WORLD's hulls: its current hull's mins and maxs. */
void al_agents_box(const al_agents *agents, const al_world *world, int index, double mins[3],
                   double maxs[3]);

typedef struct al_agents_step_stats {
    int pairs;    /* pairs of agents whose spheres overlap (sphere tree) */
    int contacts; /* of which boxes overlapped and were pushed apart */
    int stuck;    /* agents that started the step inside solid */
} al_agents_step_stats;

/* One physics step of DT seconds for every agent in WORLD: steering, the move
 * (al_move_step), then agent–agent contacts: pairs from the sphere tree, boxes that
 * overlap pushed apart along the line between their centres (the thesis's
 * "EndPosition += Direction * (R1 + R2 - Distance)", half to each). The pairs are taken in
 * turn, each seeing where the earlier ones pushed its agents; then each pushed agent makes
 * the sum of its pushes by one slide move, so a push never enters a wall. STATS may be
 * NULL. */
void al_agents_step(al_agents *agents, const al_world *world, const al_move_params *params,
                    double dt, al_agents_step_stats *stats);

/* Every agent back to its start, at rest. */
void al_agents_reset(al_agents *agents, const al_world *world);

/* The first agent (its box in WORLD) the ray ORIGIN + t * DIR hits for 0 <= t <= MAX_T,
 * or -1; *T its distance. The sphere tree finds the candidates. */
int al_agents_pick(const al_agents *agents, const al_world *world, const double origin[3],
                   const double dir[3], double max_t, double *t);

#endif
