/* Inside AlliumView: the instance shared by allium-view.c (drawing, cameras, the widget)
 * and allium-view-input.c (pointer and keyboard controllers). */
#pragma once

#include "allium-view.h"

G_BEGIN_DECLS

/* Keys held for flying (3D). */
enum {
    FLY_FORWARD = 1 << 0,
    FLY_BACK = 1 << 1,
    FLY_LEFT = 1 << 2,
    FLY_RIGHT = 1 << 3,
    FLY_UP = 1 << 4,
    FLY_DOWN = 1 << 5,
    FLY_FAST = 1 << 6,
};

/* A left press that moves less than this (pixels, either axis) is a click. */
#define CLICK_SLOP 3.0
/* A click this near the last one (pixels, either axis) in a 2D view picks the next brush
 * behind the selected one. */
#define CYCLE_REACH 4.0

/* Half the edge of a resize handle, and how near the pointer must come (pixels, either
 * axis). */
#define HANDLE_RADIUS 4.0
#define HANDLE_REACH  7.0

/* What a left drag is doing (allium-view-tools.c). */
enum {
    EDIT_NONE,
    EDIT_MOVE,    /* moving the selection */
    EDIT_BOX,     /* drawing a new brush */
    EDIT_BAND,    /* a selection rectangle (2D) */
    EDIT_ENTITY,  /* placing a point entity */
    EDIT_TESTBOX, /* dragging a collision test box */
    EDIT_RESIZE,  /* pulling sides of the selection's bounds (a handle, or a face in 3D) */
    EDIT_ROTATE,  /* turning the selection about its centre (Ctrl + drag in a 2D view) */
    EDIT_VERTEX,  /* moving corners, an edge or a face of the selected brushes */
    EDIT_PIVOT,   /* placing the rotation centre (Ctrl + Alt + drag in a 2D view) */
    EDIT_SHEAR,   /* moving one side of the selection along itself (Alt + drag of a side
                     handle in a 2D view) */
};

/* A handle of the vertex tool: a corner, an edge's middle or a face's centre, and the
 * corners it moves (vertex_corners[first] .. [first + count - 1]). */
typedef struct {
    int kind; /* 0: corner, 1: edge, 2: face */
    double point[3];
    int first, count;
} AlliumVertexHandle;

typedef void (*AlliumViewPixelsFunc)(AlliumView *view, GdkTexture *pixels, gpointer user_data);

struct _AlliumView {
    GtkWidget parent_instance;

    /* template widgets */
    GtkOverlay *overlay;
    GtkGLArea *gl_area;
    GtkBox *header;
    GtkMenuButton *kind_button;
    GtkLabel *info_label;
    GtkButton *maximize_button;
    GtkLabel *message_label;

    /* owned references */
    AlliumDocument *document;
    AlliumSelection *selection;
    AlliumSnapshot *drawn;   /* the snapshot whose scene the renderer has (it borrows it) */
    AlliumLightmap *uploaded; /* the lightmap whose texels the renderer has, or NULL */
    AlliumTextures *uploaded_textures; /* the textures the renderer has, or NULL */
    al_renderer *renderer;   /* lives between realize and unrealize of gl_area */
    char *gl_error;
    GArray *selected_brushes;  /* int32 input indices for the renderer */
    GArray *selected_entities;
    GArray *selected_faces; /* int32[2] (input brush, face) pairs */
    GArray *hidden_brushes; /* guint8 per input brush, 1: hidden; empty when none is */
    GArray *unpickable_brushes; /* guint8 per input brush, 1: hidden or locked; empty when none */
    GArray *hidden_entities;    /* guint8 per input entity, 1: hidden; empty when none is */
    GArray *unpickable_entities; /* guint8 per input entity, 1: hidden or locked; empty when none */
    al_pick_mask pick_mask; /* the two unpickable arrays, as allium_view_pick_mask gives them */
    GArray *brush_tints;    /* guint8 RGBA per input brush (alpha 0: none), 2D; empty when none */

    guint held_source;      /* a redraw held for an edit's collision (allium_view_queue_render) */
    GdkFrameClock *frame_clock; /* borrowed while realized: its "update" awaits a collision */
    gulong update_handler;
    gint64 render_asked_us; /* when a frame was asked for since the last one, or 0 */
    gint64 frame_asked_us;  /* when the last frame was (0: GTK drew it again alone) */
    gint64 frame_started_us; /* when the last frame's drawing began */

    /* borrowed references */
    gulong compiled_handler, compiling_handler, lit_handler, textures_handler, selection_handler;

    /* camera and draw settings */
    al_view_kind kind;
    al_camera camera;
    gboolean camera_placed;   /* false: place it when the next frame has a map */
    unsigned overlays;
    gboolean wireframe, no_cull, lighting, textures, maximized;
    guint64 selection_serial; /* of the selection the index arrays were made from */
    double eye[3], eye_forward[3]; /* 2D: the 3D camera to mark; 3D: the last one drawn */
    double eye_yaw, eye_pitch;   /* 3D: of the last camera drawn */
    gboolean has_eye;            /* 2D: a 3D camera is marked */
    double drawn_mark[4];        /* 2D: the mark last drawn, in pixels: ring centre, arrow tip
                                  * (drawn_mark_arrow: the arrow was drawn) */
    gboolean drawn_mark_arrow, drawn_has_mark;
    double split_point[3];       /* where the splits overlay looks: the pointer's last point */
    gboolean has_split_point;    /* FALSE: the camera's position */
    gboolean splits_stale;       /* the point moved since the splits were uploaded */
    const AlliumSnapshot *splits_snapshot; /* the snapshot they came from (not a ref) */
    int splits_block;
    const AlliumSnapshot *selection_snapshot;

    /* input */
    guint fly_keys;           /* FLY_* */
    guint fly_tick;
    gint64 fly_last_us;
    double drag_x, drag_y;    /* the drag's offset at the last update */
    gboolean orbiting;
    gboolean primary_dragged; /* the left button moved CLICK_SLOP pixels since it went down */
    gboolean secondary_moved; /* the right button moved CLICK_SLOP pixels since it went down */
    double secondary_x, secondary_y; /* where it went down (gl_area pixels) */
    GtkGesture *secondary_drag;      /* borrowed: the right button's drag (the area owns it) */
    GtkPopover *context_menu;        /* owned (a child of the view): the context menu, or NULL */
    GtkDropTarget *prefab_drop; /* borrowed: where prefabs dragged from the Prefabs page fall */
    double orbit_pivot[3];
    double pointer_x, pointer_y; /* widget pixels */
    double last_click_x, last_click_y; /* the last left click that selected (widget pixels) */
    gboolean has_last_click;
    gboolean pointer_inside;
    guint hover_source;

    /* editing (allium-view-tools.c) */
    AlliumTool tool;
    char *entity_class;       /* owned: what the entity tool places */
    int edit;                 /* EDIT_* */
    int edit_axis;            /* the axis the drag plane is perpendicular to */
    double edit_plane;        /* 3D: that plane's coordinate; 2D: a new box's floor */
    double edit_sign;         /* 3D box: +1 or -1, the way the surface faces */
    double edit_from[3];      /* the drag's start on the plane */
    double edit_delta[3];     /* move: the offset, whole grid steps */
    /* 3D moves (of the selection or of vertex handles) along Z while Alt is held: */
    gboolean edit_vertical;   /* Alt is held: the pointer moves the rise */
    double edit_rise;         /* the offset along Z so far (units, not snapped) */
    double vertical_anchor;   /* the height on the vertical plane where Alt went down, less
                                 the rise then */
    int vertical_axis;        /* that plane: perpendicular to this horizontal axis */
    double vertical_at;       /* through this coordinate on it */
    double vertical_hold[3];  /* the drag plane's point when Alt went down (it stays) */
    gboolean previewing;      /* a move or resize has the engine compile where it goes */
    AlliumSnapshot *drag_snapshot; /* owned: the snapshot a drag began on, or NULL */
    double preview_matrix[3][4]; /* the map of that preview */
    double edit_mins[3], edit_maxs[3]; /* box or rectangle */
    gboolean edit_add;        /* Shift or Ctrl held: the rectangle adds to the selection */
    int resize_side[3];       /* resize: per axis -1 (its min moves), +1 (its max), 0 */
    double resize_mins[3], resize_maxs[3]; /* resize: the selection's bounds at the start */
    double rotate_centre[3];    /* rotate: the rotation centre placed, or the selection's middle */
    double rotate_start;        /* rotate: the pointer's angle about it at the start, radians */
    int shear_along, shear_across;  /* shear: the axis moved along, the axis of the side */
    double shear_fixed, shear_size; /* shear: the side that stays; from it to the one dragged */
    double shear_delta;             /* shear: how far the dragged side moved (on the grid) */
    double rotate_degrees;      /* rotate: the turn so far (snapped unless Shift is held) */
    GdkModifierType drag_state; /* the modifiers held at the drag's last update */
    double clip_points[3][3]; /* the clip tool's points, on the grid */
    int clip_count;
    int clip_keep;            /* al_doc_clip_keep */
    GArray *vertex_handles;   /* owned: AlliumVertexHandle of the selected brushes */
    GArray *vertex_corners;   /* owned: double[3], the corners the handles move */
    guint64 vertex_generation, vertex_serial; /* what the handles were made from */
    int vertex_handle;                        /* the handle being dragged */
    GArray *vertex_selected;                  /* owned: AlliumVertexHandle (kind, point) selected */
    gboolean vertex_split;         /* the drag adds a corner at the dragged edge or face handle */
    gboolean vertex_drag_selected; /* the dragged handle is selected: all selected move */
    double vertex_delta[3];                   /* its move so far, on the grid */
    gboolean vertex_refused;                  /* that move would not leave valid brushes */
    char tool_info[1024];     /* the header's text while dragging, or "" */
    gulong guides_handler;
    AlliumCollision *collision; /* owned reference */
    gulong collision_handler;
    int test_box;             /* the box being dragged */
    gboolean showing_box;     /* the header reads out TEST_BOX after its drag */
    guint info_source;        /* idle that updates the header's statistics */

    /* walk mode (allium-view-walk.c) */
    AlliumWalker *walker;     /* owned; NULL when not walking */
    guint walk_tick;
    gint64 walk_last_us;
    gboolean walk_look_primed; /* pointer_x, pointer_y are where the last motion was */
    GtkLabel *walk_label;     /* template: the overlay */

    /* frames */
    guint frames_drawn;
    al_draw_stats last_stats;
    AlliumViewFrameFunc frame_func;
    gpointer frame_data;
    AlliumViewPixelsFunc pixels_func;
    gpointer pixels_data;
};

/* allium-view-input.c */
void allium_view_add_controllers(AlliumView *self);
/* allium-view-menu.c: opens the context menu at gl_area point (X, Y) (selecting what is
 * under it first when nothing is selected); unparents it when the view goes. */
void allium_view_open_context_menu(AlliumView *self, double x, double y);
void allium_view_dispose_context_menu(AlliumView *self);
void allium_view_stop_flying(AlliumView *self);
/* A left click at widget point (X, Y): picks an agent to watch, else selects what is
 * under the pointer (Shift or Ctrl in STATE: toggles it). */
void allium_view_click(AlliumView *self, double x, double y, GdkModifierType state);
/* A key went down (PRESSED) or up: walking, flying, nudging; TRUE if it was used. */
gboolean allium_view_handle_key(AlliumView *self, guint keyval, GdkModifierType state,
                                gboolean pressed);
/* The ray through widget point (X, Y) and the first thing it hits; FALSE if nothing. */
gboolean allium_view_pick_at(AlliumView *self, double x, double y, al_pick *pick);

/* allium-view-tools.c: a left drag at widget point (X, Y) with modifiers STATE; begin
 * returns FALSE when the drag does nothing here (then the view ignores it). */
gboolean allium_view_tool_begin(AlliumView *self, double x, double y, GdkModifierType state);
void allium_view_tool_update(AlliumView *self, double x, double y);
void allium_view_tool_end(AlliumView *self, double x, double y);
void allium_view_tool_cancel(AlliumView *self);
gboolean allium_view_tool_active(AlliumView *self);
/* allium-view-input.c: degrees of turn per pixel of mouse motion (the preferences'
 * sensitivity), and -1 when the preferences invert Y, else 1. Walk mode uses them too. */
double allium_view_look_step(void);
double allium_view_pitch_sign(void);
/* allium-view-clip.c: a click of the clip tool places a point; its keys (Tab, Enter,
 * Escape) are taken when the tool is on; clearing forgets the points. */
void allium_view_clip_click(AlliumView *self, double x, double y);
gboolean allium_view_clip_key(AlliumView *self, guint keyval);
void allium_view_clip_clear(AlliumView *self);
/* Whether the reach of the eight handles of a 2D view covers more than half of a
 * selection WIDTH by HEIGHT pixels on the screen (then a press inside it moves it). */
gboolean allium_view_handles_cover_most(double width, double height);
/* Appends the selection's resize handles (2D views, Select tool) to the guide lines. */
void allium_view_tool_append_handles(AlliumView *self, GArray *points, GArray *colours);
/* 2D: whether a side handle (the middle of a side, not a corner) of the selection is under
 * widget point (X, Y): Alt + drag there shears rather than pans. */
gboolean allium_view_side_handle_at(AlliumView *self, double x, double y);
/* The collision preview changed: the test box's readout follows (or goes with the box). */
void allium_view_tool_collision_changed(AlliumView *self);
/* Whether the drag under way completes on a plain click too (placing an entity). */
gboolean allium_view_tool_places_on_click(AlliumView *self);

/* allium-view-vertex.c: the vertex tool's handles drawn in the guides, and its drag (begin
 * FALSE when no handle is under the pointer; Ctrl in STATE: a split); commit writes one
 * step or reports the refusal (the handle snaps back). A click selects the handle under
 * the pointer (Shift or Ctrl: toggles it), FALSE when there is none (the selected handles
 * are then dropped unless Shift or Ctrl is held); select_box selects those within MINS,
 * MAXS on a 2D view's two axes (ADD: in addition to those selected). */
void allium_view_vertex_append_handles(AlliumView *self, GArray *points, GArray *colours);
gboolean allium_view_vertex_begin(AlliumView *self, double x, double y, GdkModifierType state);
gboolean allium_view_vertex_click(AlliumView *self, double x, double y, GdkModifierType state);
void allium_view_vertex_select_box(AlliumView *self, const double mins[3], const double maxs[3],
                                   gboolean add);
void allium_view_vertex_update(AlliumView *self, const double point[3]);
void allium_view_vertex_commit(AlliumView *self);
void allium_view_vertex_finalize(AlliumView *self);
/* allium-view-tools.c: a square of RADIUS pixels about P facing the camera, in COLOUR. */
void allium_view_append_handle_square(AlliumView *self, const double p[3], double radius,
                                      const guint8 colour[4], GArray *points, GArray *colours);

/* allium-view-walk.c: a key for walk mode (TRUE: walking took it), and turning the eye
 * by a pointer motion of DX, DY framebuffer pixels. */
gboolean allium_view_walk_key(AlliumView *self, guint keyval, gboolean pressed);
void allium_view_walk_look(AlliumView *self, double dx, double dy);

/* allium-view.c */
void allium_view_emit_edit_error(AlliumView *self, const char *message);
void allium_view_emit_pointer_info(AlliumView *self, const char *text);
void allium_view_emit_toggle_maximize(AlliumView *self);
void allium_view_emit_activated(AlliumView *self);
void allium_view_emit_pointer_point(AlliumView *self, const double point[3], int unknown_axis);
void allium_view_show_info(AlliumView *self, const char *text);
/* Calls FUNC with the bounds of each selected brush and entity in the view's snapshot,
 * until it returns TRUE; returns whether one did. */
typedef gboolean (*AlliumBoundsFunc)(const double lo[3], const double hi[3], gpointer data);
gboolean allium_view_foreach_selected_bounds(AlliumView *self, AlliumBoundsFunc func,
                                             gpointer data);
/* The bounds of the selection, or of the map when nothing is selected. */
gboolean allium_view_selection_bounds(AlliumView *self, gboolean whole_map_if_empty,
                                      double mins[3], double maxs[3]);
AlliumSnapshot *allium_view_get_snapshot(AlliumView *self);
/* The brushes a view may not pick (hidden or locked) as a mask over SNAP's input brushes
 * (one byte each, *COUNT of them), or NULL when every brush may be picked. Valid until the
 * selection or the snapshot changes. */
const al_pick_mask *allium_view_pick_mask(AlliumView *self, const AlliumSnapshot *snap);
double allium_view_scale(AlliumView *self);

G_END_DECLS
