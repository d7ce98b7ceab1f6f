/* Moving boxes through the compiled world: the slide move, and walking agents.
 *
 * Entry points:
 *   al_slide_move     sweep a box and slide it along what it hits (the test-box tool, and
 *                     the core of every agent move)
 *   al_move_step      one physics step of a walking agent: friction, acceleration, gravity,
 *                     a speed cap, jumping, crouching, step-up and ground detection; in a
 *                     liquid up to the waist, swimming (Quake's water move)
 *
 * Everything here only reads the world, so any number of threads may move boxes through
 * one world at once, and each call may use a newer world than the last (the editor's live
 * snapshots). Units are the map's (Quake units) and seconds.
 *
 * The physics follows the "Physics in BSP-trees" chapter of the BSP thesis
 * (../shared/seeds/bsp-trees-in-game-engines.txt): mass 1; friction is a deceleration
 * subtracted from the horizontal velocity; the wished direction adds acceleration in the
 * horizontal plane; gravity pulls down; the horizontal speed is capped; the new position is
 * position + velocity * dt, and a blocked move slides: the part of the move into a surface
 * is removed (the thesis's "EndPosition += Normal * (Radius - EndSide)"), so the part along
 * the surface is kept. The collision itself is the onion BSP's swept-box trace (or dynamic
 * plane shifting for a box of any size), not the thesis's per-polygon tests.
 */
#ifndef AL_MOVE_H
#define AL_MOVE_H

#include "al-world.h"

#include <stdbool.h>

/* The box that moves: a compiled hull (HULL >= 0, the onion tree's exact answer), or any
 * box [MINS, MAXS] around the origin (HULL < 0: dynamic plane shifting). */
typedef struct al_box_shape {
    int hull;
    double mins[3], maxs[3];
} al_box_shape;

/* Sweeps SHAPE from START to END (al_world_trace or al_world_trace_box). */
void al_shape_trace(const al_world *world, const al_box_shape *shape, const double start[3],
                    const double end[3], al_trace *out);

/* At most this many surfaces are met by one slide move (a game's "bumps"). */
#define AL_SLIDE_MAX_CONTACTS 4

typedef struct al_slide_contact {
    double point[3];  /* the box's origin when it touched */
    double normal[3]; /* of the surface, facing the box */
    double fraction;  /* of that leg of the move */
} al_slide_contact;

typedef struct al_slide {
    double end[3];      /* where the box rests after sliding */
    double velocity[3]; /* the input velocity with the parts into the surfaces met removed */
    int contact_count;
    al_slide_contact contacts[AL_SLIDE_MAX_CONTACTS];
    /* The path: start, the point of each contact, end (contact_count + 2 points). */
    double path[AL_SLIDE_MAX_CONTACTS + 2][3];
    int path_count;
    bool start_solid; /* the box started inside solid: it moved only if the move took it
                         out (then END is where it came out and went on), else not at all */
    bool blocked;     /* stopped in a corner (or by running out of contacts) before the whole
                         move was used */
    double first_fraction; /* fraction of the straight move before the first contact (1: none) */
    bool end_empty;   /* END is known to be out of solid for the shape's compiled hull (the
                         last leg met nothing and its end was vouched for by the trace or
                         checked); false says nothing */
} al_slide;

/* Moves SHAPE from START with VELOCITY for TIME seconds (for a drag: the displacement and
 * 1), sliding along each surface it meets: after a contact the rest of the move loses its
 * component into that surface, and into every surface met before (along the crease of two;
 * stopping in the corner of three). A box that starts inside solid moves only where the
 * move takes it out of the solid (al_world_trace's rule), and says so in start_solid. */
void al_slide_move(const al_world *world, const al_box_shape *shape, const double start[3],
                   const double velocity[3], double time, al_slide *out);

/* Walking constants; al_move_default_params fills Quake-like values. */
typedef struct al_move_params {
    double gravity;        /* units/s², downward (800) */
    double max_speed;      /* horizontal speed cap, units/s (320) */
    double crouch_scale;   /* the speed cap while crouched, a factor (0.5) */
    double accelerate;     /* along the wished direction on the ground, units/s² (3200) */
    double air_accelerate; /* the same in the air (640) */
    double friction;       /* deceleration on the ground, units/s² (1600) */
    double jump_speed;     /* upward velocity of a jump, units/s (270) */
    double step_height;    /* highest step walked up without jumping, units (18) */
    double ground_normal_z; /* a surface is ground if its normal's z is at least this (0.7) */
    /* Swimming, as Quake's players swim (its engine and game code): */
    double water_friction;   /* the speed lost per second, a fraction of it (4) */
    double swim_scale;       /* the wished speed in a liquid, a factor of max_speed's (0.7) */
    double sink_speed;       /* how fast an agent that wishes nothing sinks, units/s (60), times
                                swim_scale */
    double swim_up_speed[3]; /* the upward speed a jump sets in water, slime and lava (100, 80,
                                50) */
} al_move_params;

void al_move_default_params(al_move_params *params);

/* A walking agent's state between steps. */
typedef struct al_mover {
    double origin[3];
    double velocity[3];
    int stand_hull, crouch_hull; /* indices into the world's hulls; crouch_hull may equal
                                    stand_hull (no crouching) */
    bool crouched;
    bool on_ground;
    double ground_normal[3];
    bool stuck; /* the last step started inside solid for its hull (it moved only if the
                   step took it out) */
    int water_level;        /* 0 dry; 1 feet, 2 waist, 3 eyes in a liquid (Quake's waterlevel) */
    al_contents water_type; /* the liquid at the feet, or AL_CONTENTS_EMPTY */
} al_mover;

typedef struct al_move_input {
    double wish[2]; /* desired horizontal direction, length 0 to 1 (scales the acceleration) */
    bool jump;      /* swimming: swim up */
    bool crouch;    /* hold to crouch; the agent stands up when the stand hull fits again;
                       swimming: swim down */
} al_move_input;

/* Sets MOVER's water level and liquid from the point contents (al_world_point_contents) at
 * its feet (a unit above the bottom of its box), its waist (the box's middle) and its eyes
 * (10 units under the top of its box: Quake's view height). */
void al_mover_check_water(al_mover *mover, const al_world *world);

/* The hull MOVER currently uses. */
int al_mover_hull(const al_mover *mover);

/* Places MOVER at ORIGIN at rest, standing, and finds its ground. An ORIGIN on or just
 * below a floor (within a unit: map entities touch the floor exactly) rests on it. */
void al_mover_init(al_mover *mover, const al_world *world, int stand_hull, int crouch_hull,
                   const double origin[3]);

/* One physics step of DT seconds (the editor uses a fixed 1/60 s): crouch or stand up,
 * friction, acceleration towards INPUT's wish, the speed cap, gravity or a jump, then the
 * move: a slide move, and on the ground also a stepped move (up by step_height, slide,
 * down) kept when it gets farther; a walker on the ground follows it down steps and slopes;
 * last the ground under the new position and the water level. In a liquid up to the waist
 * (water_level 2 or more) the agent swims instead: no gravity; the speed decays by
 * water_friction; the wish (up with jump, down with crouch, else a slow sink) accelerates
 * it up to swim_scale of max_speed; a jump sets the liquid's swim_up_speed. */
void al_move_step(const al_world *world, const al_move_params *params,
                  const al_move_input *input, double dt, al_mover *mover);

#endif
