/* AlliumView: one view of a map, 3D or one of the three 2D projections.
 *
 * A GtkGLArea (OpenGL 3.3 core, depth buffer) drawn by an al_renderer, under a small
 * header that switches the projection and maximizes the view. Each view has its own
 * camera and renderer (and so its own copy of the lightmap texture: a 3D view uploads
 * each lightmap the document publishes); the document, the selection and the draw
 * settings are the window's, shared by its views.
 *
 * Controls: 3D: right drag looks, W A S D Q E fly while held (Shift: faster), the wheel
 * sets the fly speed, middle drag pans, Alt + left drag orbits around the selection (or
 * the point under the pointer). 2D: right or middle drag pans, the wheel zooms at the
 * pointer. Left click selects the brush or entity under the pointer, Shift + click adds or
 * removes it, a click on nothing clears the selection; in 2D a click where the last one
 * was selects the next brush behind the selected one. A right click (no drag) opens the
 * context menu (allium-view-menu.c). Brushes and point entities the selection hides are
 * neither drawn nor picked; 2D views draw a brush's outline in its layer's colour. Left
 * drag: the tools of allium-view-tools.c (move or turn the
 * selection, select in a rectangle, draw a brush).
 *
 * Signals:
 *   "pointer-info" (const char *text)  what is under the pointer, for the status bar
 *                                      ("" when the pointer leaves)
 *   "toggle-maximize"                  the view asks to be maximized or restored
 *   "activated"                        the pointer entered or clicked the view: it is the
 *                                      one F and Shift + Space act on
 *   "edit-error" (const char *message) an edit made with a tool was refused
 */
#pragma once

#include <gtk/gtk.h>

#include "al-render.h"
#include "allium-document.h"
#include "allium-collision.h"
#include "allium-selection.h"
#include "allium-walker.h"

G_BEGIN_DECLS

#define ALLIUM_TYPE_VIEW (allium_view_get_type())
G_DECLARE_FINAL_TYPE(AlliumView, allium_view, ALLIUM, VIEW, GtkWidget)

/* What a left drag does (see allium-view-tools.c). */
typedef enum {
    ALLIUM_TOOL_SELECT,  /* select, move the selection */
    ALLIUM_TOOL_BRUSH,   /* draw a box brush */
    ALLIUM_TOOL_ENTITY,  /* place a point entity (allium_view_set_entity_class) */
    ALLIUM_TOOL_TESTBOX, /* place and drag collision test boxes (AlliumCollision) */
    ALLIUM_TOOL_CLIP,    /* clicks place a clip plane's points (allium-view-clip.c) */
    ALLIUM_TOOL_VERTEX,  /* drag corners, edges and faces of the selected brushes
                          * (allium-view-vertex.c) */
} AlliumTool;

/* Called after each frame drawn, with the time it took (GPU work included: the view
 * waits for it with glFinish while a frame function is set). For benchmarks. */
typedef void (*AlliumViewFrameFunc)(AlliumView *view, double ms, const al_draw_stats *stats,
                                    gpointer user_data);

/* "3d", "top", "front", "side". */
const char *allium_view_kind_to_string(al_view_kind kind);
gboolean allium_view_kind_from_string(const char *name, al_view_kind *kind);
/* Translated, for menus and headers: "3D", "Top", ... */
const char *allium_view_kind_label(al_view_kind kind);

GtkWidget *allium_view_new(al_view_kind kind);

void allium_view_set_document(AlliumView *self, AlliumDocument *document);
void allium_view_set_selection(AlliumView *self, AlliumSelection *selection);
/* The window's collision preview: its test boxes and agents are drawn, and the test-box
 * tool drags its boxes. */
void allium_view_set_collision(AlliumView *self, AlliumCollision *collision);

al_view_kind allium_view_get_kind(AlliumView *self);
void allium_view_set_kind(AlliumView *self, al_view_kind kind);

void allium_view_set_tool(AlliumView *self, AlliumTool tool);
/* The class the entity tool places ("light", "info_player_start", ...). */
void allium_view_set_entity_class(AlliumView *self, const char *classname);

/* The bounds of the selection in this view's snapshot; FALSE when nothing selected is in
 * it. */
gboolean allium_view_get_selection_bounds(AlliumView *self, double mins[3], double maxs[3]);

/* The material a new brush or shape takes: the texture browser's current texture
 * (allium_document_get_current_material), else the selected brush's first face's (the one
 * selected last), or the map's first material. Borrowed from the document or the current
 * snapshot. */
const char *allium_view_get_new_material(AlliumView *self);

/* Where a new shape goes when nothing is selected: a box eight grid steps on a side, on
 * the grid, at the middle of a 2D view (at the 3D camera's depth) or ahead of the 3D
 * camera. */
void allium_view_get_placement(AlliumView *self, double mins[3], double maxs[3]);

/* The move one nudge in DIRECTION ("left", "right", "up", "down" on the screen, "raise",
 * "lower": up and down the view's depth axis in 2D, Z in 3D) makes in this view: one
 * grid step along the map axis nearest that direction. FALSE for an unknown direction. */
gboolean allium_view_nudge_vector(AlliumView *self, const char *direction, double out[3]);

/* Places a point entity of CLASSNAME where the entity tool would for widget point (X, Y)
 * (what a class dropped from the entity browser does), as one undoable step, and selects
 * it; CLASSNAME becomes the entity tool's class. FALSE when nothing was placed (the
 * reason, if any, goes out as "edit-error"). */
gboolean allium_view_place_entity(AlliumView *self, const char *classname, double x, double y);

/* Gives MATERIAL to what lies under widget point (X, Y) (what a texture dropped from the
 * texture browser does): the face in the 3D view, the whole brush in a 2D view, as one
 * undoable step; MATERIAL becomes the current texture. FALSE when nothing took it (no
 * brush there, or the edit failed: its reason goes out as "edit-error"). */
gboolean allium_view_apply_material(AlliumView *self, const char *material, double x, double y);

/* Test hook: a left click at widget point (X, Y), through the code the click gesture runs. */
void allium_view_simulate_click(AlliumView *self, double x, double y, GdkModifierType state);

/* Test hook: a right click (press and release without moving) at widget point (X, Y): the
 * right button's drag gesture emits its "drag-begin" and "drag-end" as GTK does for a
 * click, so the code a real click runs opens the context menu. */
void allium_view_simulate_right_click(AlliumView *self, double x, double y);
/* Test hook: VALUE (what a drag from the Prefabs page carries) dropped at widget point
 * (X, Y): the view's drop target emits its "drop" as GTK does when the drag ends there.
 * TRUE when the view took it. */
gboolean allium_view_simulate_drop(AlliumView *self, const GValue *value, double x, double y);
/* The context menu, once a right click opened it (NULL before); for tests. */
GtkPopover *allium_view_get_context_menu(AlliumView *self);

/* Test hook: a left drag from (X0, Y0) to (X1, Y1), widget points, through the same code
 * the pointer gestures run; STEPS intermediate updates. */
void allium_view_simulate_drag(AlliumView *self, double x0, double y0, double x1, double y1,
                               int steps, GdkModifierType state);
/* Test hook: the same drag with the modifiers HELD pressed after it began (as Alt during
 * a 3D move, for a vertical drag), held until the release. */
void allium_view_simulate_drag_holding(AlliumView *self, double x0, double y0, double x1, double y1,
                                       int steps, GdkModifierType state, GdkModifierType held);

/* Walk mode (3D views only): the camera becomes the eye of an agent the designer steers
 * with W, A, S, D, Space (jump), Ctrl or C (crouch), the mouse and the arrow keys, until
 * Escape; the overlay shows its hull, speed and ground. It starts at the map's player
 * start, or at the camera when FROM_CAMERA or the map has none. FALSE with ERROR saying why
 * it cannot start (a 2D view, no compiled world, no hull, a start inside solid). The
 * "walking" property follows it. */
gboolean allium_view_start_walking(AlliumView *self, gboolean from_camera, GError **error);
void allium_view_stop_walking(AlliumView *self);
gboolean allium_view_is_walking(AlliumView *self);
/* The walker while walking (tests), else NULL. */
AlliumWalker *allium_view_get_walker(AlliumView *self);
/* Test hook: key KEYVAL going down or up, through the same code the key controller runs. */
void allium_view_simulate_key(AlliumView *self, guint keyval, gboolean pressed);

/* A key that the widget with the focus left alone, offered by the window (going down or
 * up), so that the view under the pointer need not be clicked first: a walking view takes
 * every key; a 3D view takes W, A, S, D, E, Q and Shift while the pointer is over it (and
 * the release of any of them it flies by). Returns whether the view took it. */
gboolean allium_view_offer_key(AlliumView *self, guint keyval, GdkModifierType state,
                               gboolean pressed);
/* Forgets the keys held (the window lost the keyboard: their releases go elsewhere). */
void allium_view_release_keys(AlliumView *self);
/* The map point under the pointer in a 2D view (its depth coordinate the camera's) and, in
 * AXES, the two axes the view shows; FALSE for a 3D view or when the pointer is elsewhere. */
gboolean allium_view_get_pointer_point(AlliumView *self, double point[3], gboolean axes[3]);
/* Test hook: the pointer entering (moving to widget point X, Y) or leaving the view,
 * through the code the motion controller runs. */
void allium_view_simulate_pointer(AlliumView *self, gboolean inside, double x, double y);

/* Shown by the header's button; the window does the layout. */
void allium_view_set_maximized(AlliumView *self, gboolean maximized);

/* The draw settings of the window (AL_OVERLAY_* bits, wireframe, no PVS culling, whether
 * lit faces show their lightmaps, and whether textures show: in the 3D view drawn on the
 * faces, in a 2D view faintly under the outlines). */
void allium_view_set_draw_settings(AlliumView *self, unsigned overlays, gboolean wireframe,
                                   gboolean no_cull, gboolean lighting, gboolean textures);

/* The camera, to move it; call allium_view_queue_render afterwards. */
al_camera *allium_view_get_camera(AlliumView *self);
void allium_view_queue_render(AlliumView *self);

/* Where the BSP-splits overlay looks (the block holding POINT); until it is set, the
 * view's camera position. */
void allium_view_set_split_point(AlliumView *self, const double point[3]);

/* The 3D camera a 2D view marks (an orange ring and an arrow the way it looks); a 3D
 * view ignores it. */
void allium_view_set_eye(AlliumView *self, const al_camera *eye);

/* Places the camera for the current map again on the next frame: 3D at the player start
 * (or showing the whole map), 2D showing the whole map. */
void allium_view_reset_camera(AlliumView *self);

/* Shows the selection whole (or the whole map when nothing is selected). */
void allium_view_frame_selection(AlliumView *self);

/* Frames drawn with a compiled map; the statistics of the last one. */
guint allium_view_get_frames_drawn(AlliumView *self);
/* When the last frame drawn was asked for (allium_view_queue_render: an edit, the camera,
 * the selection..., g_get_monotonic_time), or 0 when GTK drew the area again on its own
 * (its size changed, the window was laid out again). */
gint64 allium_view_get_frame_asked_us(AlliumView *self);

/* When the last frame's drawing began (monotonic microseconds; 0: none yet). */
gint64 allium_view_get_frame_started_us(AlliumView *self);

/* What the last frame drew: its snapshot and lightmap (borrowed; NULL for none). */
AlliumSnapshot *allium_view_get_drawn_snapshot(AlliumView *self);
AlliumLightmap *allium_view_get_drawn_lightmap(AlliumView *self);
void allium_view_get_last_stats(AlliumView *self, al_draw_stats *stats);

/* Whether the renderer could not be created (then a message says why in the view). */
const char *allium_view_get_gl_error(AlliumView *self);

void allium_view_set_frame_func(AlliumView *self, AlliumViewFrameFunc func, gpointer user_data);

/* Reads the last frame back on the next render (for screenshots: some GSK renderers do
 * not show a GL area's texture). CALLBACK receives the pixels as a texture. */
void allium_view_read_pixels(AlliumView *self, void (*callback)(AlliumView *view,
                                                                GdkTexture *pixels,
                                                                gpointer user_data),
                             gpointer user_data);

/* The clip tool (allium-view-clip.c): clips the selected brushes by this view's clip
 * plane, keeping what allium_view_set_clip_keep chose (al_doc_clip_keep), and selects the
 * result; FALSE with a reason when the plane or the selection is missing or the document
 * refuses. */
gboolean allium_view_clip_apply(AlliumView *self, GError **error);
void allium_view_set_clip_keep(AlliumView *self, int keep);
guint allium_view_get_clip_point_count(AlliumView *self);

G_END_DECLS
