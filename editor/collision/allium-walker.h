/* AlliumWalker: walk mode, the designer playing as an agent inside the editor.
 *
 * The walker is an al_mover (al-move.h) with the map's stand and crouch hulls, stepped at
 * a fixed 60 Hz by allium_walker_advance with the keys the 3D view passes in. Each step
 * reads the newest snapshot the walker was given, so walking goes on while the map
 * recompiles: an edit that lands mid-walk is under the walker's feet at the next step.
 * The view turns the walker's eye into its camera and shows allium_walker_describe in an
 * overlay.
 *
 * Main thread only (it holds snapshot references).
 */
#pragma once

#include "allium-snapshot.h"

#include <glib.h>

G_BEGIN_DECLS

/* The physics step (seconds). */
#define ALLIUM_WALKER_STEP (1.0 / 60.0)

typedef struct _AlliumWalker AlliumWalker;

/* Keys held, as the view reads them. */
typedef enum {
    ALLIUM_WALK_FORWARD = 1 << 0,
    ALLIUM_WALK_BACK = 1 << 1,
    ALLIUM_WALK_LEFT = 1 << 2,
    ALLIUM_WALK_RIGHT = 1 << 3,
    ALLIUM_WALK_JUMP = 1 << 4,
    ALLIUM_WALK_CROUCH = 1 << 5,
} AlliumWalkKeys;

/* A walker in SNAPSHOT's world. FROM_CAMERA false: at the map's first info_player_start,
 * facing its "angle"; without one (or FROM_CAMERA true) where the camera's eye EYE is, facing
 * YAW. Fails with a message naming the reason when the map has no compiled world or no
 * hull to walk with, or when the start is inside solid for the stand hull. */
AlliumWalker *allium_walker_new(AlliumSnapshot *snapshot, gboolean from_camera,
                                const double eye[3], double yaw, double pitch, GError **error);
void allium_walker_free(AlliumWalker *walker);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AlliumWalker, allium_walker_free)

/* The snapshot the next steps use (a newer compile). One without the walker's hulls is
 * ignored: the walker keeps the last world it could walk in. */
void allium_walker_set_snapshot(AlliumWalker *walker, AlliumSnapshot *snapshot);

void allium_walker_set_keys(AlliumWalker *walker, AlliumWalkKeys keys);
AlliumWalkKeys allium_walker_get_keys(AlliumWalker *walker);

/* Turns the view by DYAW and DPITCH degrees (pitch kept within ±89). */
void allium_walker_look(AlliumWalker *walker, double dyaw, double dpitch);

/* Lets SECONDS of time pass: runs as many whole physics steps as fit with the time left
 * over from before (at most a quarter second's worth, so a stalled frame does not fling the
 * walker). Returns the steps run. */
int allium_walker_advance(AlliumWalker *walker, double seconds);
/* Runs one physics step (tests). */
void allium_walker_step(AlliumWalker *walker);

/* Where the eye is and where it looks. */
void allium_walker_get_eye(AlliumWalker *walker, double eye[3], double *yaw, double *pitch);
/* The agent's origin and velocity. */
void allium_walker_get_state(AlliumWalker *walker, double origin[3], double velocity[3],
                             gboolean *on_ground, gboolean *crouched);
/* The box the walker occupies now (its current hull around its origin). */
void allium_walker_get_box(AlliumWalker *walker, double mins[3], double maxs[3]);

/* The overlay's text: hull, speed and ground ("stand · 245 units/s · on ground"), and
 * "inside solid" when the last step started stuck. Free with g_free. */
char *allium_walker_describe(AlliumWalker *walker);

G_END_DECLS
