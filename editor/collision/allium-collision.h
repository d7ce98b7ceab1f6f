/* AlliumCollision: the collision preview of one window — test boxes and agents.
 *
 * Test boxes are agent-sized boxes the designer drags through the map (the test-box tool
 * of the views): each drag is a slide move (al_slide_move) from where the box is towards
 * the pointer, stopping at the first contact and sliding along what it hits. The boxes stay
 * in the map and are checked again against every new snapshot, so a box that an edit put
 * inside solid turns red at once.
 *
 * Agents come from the map's agent_start entities and walk between its waypoint
 * entities (al-agents.h); a 60 Hz timer on the main loop steps them while they run, each
 * step on the newest snapshot's world.
 *
 * Signals:
 *   "changed"  the boxes, their readouts or the agents moved: redraw
 *
 * Main thread only.
 */
#pragma once

#include "al-move.h"
#include "allium-snapshot.h"

#include <glib-object.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_COLLISION (allium_collision_get_type())
G_DECLARE_FINAL_TYPE(AlliumCollision, allium_collision, ALLIUM, COLLISION, GObject)

AlliumCollision *allium_collision_new(void);

/* The newest snapshot (borrowed until the next call; NULL: none). Re-checks every box. */
void allium_collision_set_snapshot(AlliumCollision *self, AlliumSnapshot *snapshot);

/* The hull new test boxes take ("stand" by default; "40×40×64" for a box of any size), and
 * the next hull of the map's list
 * (the point hull left out) for the test-box tool's H key. */
const char *allium_collision_get_hull(AlliumCollision *self);
void allium_collision_next_hull(AlliumCollision *self);

/* New test boxes become boxes of any SIZE (x, y, z extents, units, each within
 * [ALLIUM_COLLISION_MIN_SIZE, ALLIUM_COLLISION_MAX_SIZE]; FALSE otherwise) around an origin at
 * their centre, moved by dynamic plane shifting instead of a compiled hull; their name is
 * "40×40×64". allium_collision_next_hull goes back to the map's hulls. */
#define ALLIUM_COLLISION_MIN_SIZE 1.0
#define ALLIUM_COLLISION_MAX_SIZE 4096.0
gboolean allium_collision_set_box_size(AlliumCollision *self, const double size[3]);

/* The current hull's box around the origin; FALSE without a world (or that hull). */
gboolean allium_collision_get_hull_box(AlliumCollision *self, double mins[3], double maxs[3]);

/* A new test box of the current hull at AT: DROP lets it fall onto the floor below (the
 * top view's placement), else it rests on a floor it touches. Returns its index, or -1
 * without a world (or a hull of that name). */
int allium_collision_add_box(AlliumCollision *self, const double at[3], gboolean drop);

/* Drags box BOX towards TARGET (its origin's goal): a slide move from where it is. */
void allium_collision_drag_box(AlliumCollision *self, int box, const double target[3]);

int allium_collision_box_count(AlliumCollision *self);
/* The origin of box BOX; FALSE if there is no such box. */
gboolean allium_collision_get_box(AlliumCollision *self, int box, double origin[3],
                                  gboolean *start_solid);
/* The box's extent in the newest world; FALSE if there is no such box (or hull). */
gboolean allium_collision_get_box_bounds(AlliumCollision *self, int box, double mins[3],
                                         double maxs[3]);
void allium_collision_clear_boxes(AlliumCollision *self);

/* The test boxes as text, one per line ("stand 96 96 24" for a box of a hull, "=40 40 20
 * 96 96 24" for a box of any size: its size, then its origin), to keep them between runs
 * (allium-session.h). Free with g_free; "" when there are none. */
char *allium_collision_save_boxes(AlliumCollision *self);
/* Adds the boxes TEXT (as allium_collision_save_boxes writes them) where they were; lines
 * that do not read are skipped. A box whose hull the map lacks is kept, undrawn, until the
 * map has it again. */
void allium_collision_restore_boxes(AlliumCollision *self, const char *text);

/* An agent's liquid and depth in words ("swimming in water (to the waist)"), or NULL when
 * it is dry. Free with g_free. */
char *allium_collision_describe_water(const al_mover *mover);

/* What the header shows about box BOX: the hull, the last drag (fraction, contact point
 * and normal, start in solid), the liquid at its origin, and whether a box of every hull standing
 * on the same feet (the box's bottom) is inside solid ("stand: solid, crouch: empty, large:
 * solid"). Free with g_free. */
char *allium_collision_describe_box(AlliumCollision *self, int box);

/* Agents: spawns them from the snapshot's agent_start entities the first time (problems
 * go to ERROR when none can be spawned) and starts the 60 Hz steps. */
gboolean allium_collision_start_agents(AlliumCollision *self, GError **error);
void allium_collision_stop_agents(AlliumCollision *self);
/* Back to their starts (and spawned again from the map's current entities). */
void allium_collision_reset_agents(AlliumCollision *self);
gboolean allium_collision_agents_running(AlliumCollision *self);
int allium_collision_agent_count(AlliumCollision *self);
/* Steps the agents once, as the timer does (for tests). */
void allium_collision_step_agents(AlliumCollision *self);
/* The origin of agent I; FALSE if there is none. */
gboolean allium_collision_get_agent(AlliumCollision *self, int i, double origin[3]);

/* The first agent the ray ORIGIN + t * DIR (0 <= t <= MAX_T) hits, through the agents'
 * sphere tree, and its distance in *T; -1 if none. */
int allium_collision_pick_agent(AlliumCollision *self, const double origin[3],
                                const double dir[3], double max_t, double *t);
/* The agent the designer picked: drawn in yellow with a line to its goal and described
 * by allium_collision_describe_agent after every step ("changed"). -1: none. Spawning the
 * agents again forgets it. */
void allium_collision_watch_agent(AlliumCollision *self, int agent);
int allium_collision_get_watched_agent(AlliumCollision *self);
/* "Agent 3 of 20: stand · 245 units/s · on ground · to waypoint at 512 0 24". Free with
 * g_free. */
char *allium_collision_describe_agent(AlliumCollision *self, int agent);

/* Appends the preview's lines (pairs of points, one RGBA colour per point) for drawing. */
void allium_collision_append_lines(AlliumCollision *self, GArray *points, GArray *colours);

G_END_DECLS
