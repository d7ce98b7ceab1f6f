/* Inside the GUI self-test: the state shared by its files (allium-self-test.c, the
 * steps that open, show and light maps; allium-self-test-edit.c, the editing steps) and
 * the helpers they use. */
#pragma once

#include "mapfile/map.h"
#include "allium-application.h"
#include "allium-window-private.h"
#include "store/document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct _SelfTest SelfTest;

/* A step returns TRUE when it is done, FALSE to be polled again (until its timeout). */
typedef gboolean (*StepFunc)(SelfTest *t);

struct _SelfTest {
    AlliumApplication *app; /* owned */
    char *dir;
    char *sample_path;
    AlliumWindow *window;   /* owned: the sample's window */
    AlliumWindow *second;   /* owned: the second map's window */
    AlliumWindow *built;    /* owned: the map built from an empty file */
    GtkWindow *dialog;      /* owned: the dialog being looked at */
    int step;
    gboolean step_begun;
    gboolean settled;       /* the step waited once for layout and frames to settle */
    gboolean marked;        /* the step marked the frame count (mark_frames) */
    gint64 step_started_us;
    gint64 resume_us;       /* do nothing until then (let frames settle) */
    guint frames_mark;      /* frames of the watched view when an action was taken */
    GdkTexture *previous;   /* the last screenshot, to see that an action changed it */
    gboolean previous_lit;  /* the solver had finished when it was taken */
    GPtrArray *failures;
    int checks;
    char *original_message;
    al_doc *writer;         /* holds a map open for writing, as another program would */
    guint lightmaps;        /* "lit" emissions of the sample's document */
    gint64 relit_shots;     /* the shots the first opening of relit.allium ended with */
    int bsp_state;          /* the BSP export step: 0 running, 1 written, -1 failed */
    char *bsp_error;        /* owned: why it failed */

    /* editing steps */
    int brushes_before;     /* the sample's brushes before them */
    gint64 box_row;         /* the brush drawn with the brush tool */
    al_map_face lock_before[32]; /* its faces before the texture lock step's move */
    int lock_faces;
    double box_mins[3], box_maxs[3]; /* where it should be now */
    int edits;              /* undoable steps they made */
    int lights_before, entities_before, brushes_mark, hulls_before;
    int shape_brushes;      /* the brushes before a shape was added */
    int phase;              /* a step of several edits: which one is under way */
    double mark_lo[3], mark_hi[3]; /* bounds a step expects */
    char *material;         /* the material a step gave the box */
    double light_at[3];     /* where the placed light should be (x, y) */
    double agent_start[3];  /* where the agent was when the agents started */
    int walk_phase;         /* walk mode: what was pressed last */
    gint64 walk_phase_us;   /* when */
    double walk_from[3];    /* the walker's origin then */
    double walk_top;        /* the highest its origin was since */
    GHashTable *face_light_mark; /* owned: the faces' light a step compares with, or NULL */
    gint64 shots_mark;      /* its shots */
    GtkWidget *held_editor; /* owned: a properties row's entry kept past its row */
    GtkWidget *drag_row_editor; /* owned: a row's editor before a drag, or NULL */
    char *drag_detail;          /* owned: the properties panel's description before it */
    gint64 small_row;       /* the small brush a handle must not steal */
    gint64 vertex_row;      /* the box the vertex tool step edits */
    al_camera saved_camera; /* a view's camera a step moved, to put back */
    GdkTexture *radii_off;  /* owned: the window before the 2D light radii were turned on */
    GdkTexture *gl_pixels;  /* owned: the window with the 3D view read back, or NULL */
    guint gl_pixels_frame;  /* the 3D view's frames drawn then */

    /* engine steps */
    guint32 random;   /* the oracle step's random sequence */
    int oracle_edits; /* its edits in the history, and those undone */
    int oracle_undone;
    gint64 light_row; /* the brush the light-order step moves */
    guint turn_tick;  /* the next-frame step's camera turn (a tick callback), or 0 */
    guint64 frame_edit_generation; /* the next-frame step's edit, 0 once its frame came */
    gint64 frame_edit_us;          /* when it was made */
    int frames_old, frames_new;    /* first frames after its edits: showing them or not */
    int frames_late;               /* first frames that came after the hold ran out */
    int frame_moves;               /* its moves, undone at its end */
    int frames_unasked;            /* frames GTK drew on its own, or asked before an edit */
};

/* Counts a check and prints it; a failed one is listed at the end. */
void check(SelfTest *t, gboolean ok, const char *format, ...) G_GNUC_PRINTF(3, 4);
/* NAME in the test's folder; free with g_free. */
char *dir_file(SelfTest *t, const char *name);
AlliumView *view_3d(SelfTest *t);
/* Bounds of the brush with document row ROW in the sample's current snapshot; FALSE if it
 * has none there. */
gboolean row_bounds(SelfTest *t, gint64 row, double mins[3], double maxs[3]);
/* Collects the widgets of TYPE under WIDGET (WIDGET too), in order, into OUT. */
void collect_widgets(GtkWidget *widget, GType type, GPtrArray *out);
/* The sample window's first view of KIND, or NULL. */
AlliumView *view_of_kind(SelfTest *t, al_view_kind kind);
/* Widget coordinates of map point P in VIEW; FALSE if it is not in front of the camera. */
gboolean to_widget(AlliumView *view, const double p[3], double *x, double *y);
/* Takes screenshot NAME of WINDOW into the test's folder (a new reference, or NULL). */
GdkTexture *screenshot(SelfTest *t, GtkWidget *window, const char *name);
/* Takes screenshot NAME of the sample's window, checks the 3D view is drawn and, when
 * CHANGE names what was done, that it changed the picture. */
void shoot_and_compare(SelfTest *t, const char *name, const char *change);
/* The fraction of WIDGET's pixels (WIDGET inside WINDOW) that differ between A and B. */
double changed_fraction(GdkTexture *a, GdkTexture *b, GtkWidget *widget, GtkWidget *window);
/* FALSE the first time in a step, and the next poll comes after a pause. */
gboolean settle(SelfTest *t);
void mark_frames(SelfTest *t);
gboolean new_frames(SelfTest *t);
/* The window that is a toplevel now but was not in BEFORE (which it frees), other than an
 * AlliumWindow: the dialog an action just opened, as a new reference; NULL if none. */
GtkWindow *take_new_dialog(GList *before);
/* Whether WINDOW's document has published the snapshot of its newest edit. */
gboolean compiled_current(AlliumWindow *window);

/* How many of WIDGET's pixels (WIDGET inside WINDOW) in TEXTURE have the hue of colour RGB
 * (0xRRGGBB): brought to full brightness (not too dark), within TOLERANCE of it in each
 * channel. */
int count_colour(GdkTexture *texture, GtkWidget *widget, GtkWidget *window, guint32 rgb,
                 int tolerance);
/* A loose brush of the world other than EXCEPT whose middle the top view TOP shows, away
 * from EXCEPT's bounds; -1 if none (allium-self-test-groups.c). */
gint64 other_brush(SelfTest *t, gint64 except, AlliumView *top);

/* allium-self-test-menu.c */
gboolean step_context_menu(SelfTest *t);
gboolean step_layer_colour(SelfTest *t);
gboolean step_prefab_drag(SelfTest *t);

/* allium-self-test-textures.c */
gboolean step_align_texture(SelfTest *t);
gboolean step_texture_browser(SelfTest *t);

/* allium-self-test-edit.c */
gboolean step_brush_tool(SelfTest *t);
gboolean step_move_drag(SelfTest *t);
gboolean step_light_carried(SelfTest *t);
gboolean step_nudge_duplicate_delete(SelfTest *t);
gboolean step_band_select(SelfTest *t);
gboolean step_hollow(SelfTest *t);
gboolean step_brush_on_surface(SelfTest *t);
gboolean step_rotate(SelfTest *t);
gboolean step_texture_lock(SelfTest *t);
gboolean step_place_light(SelfTest *t);
gboolean step_inspector(SelfTest *t);
gboolean step_compile_panel(SelfTest *t);
gboolean step_unknown_class(SelfTest *t);
gboolean step_undo_editing(SelfTest *t);
/* allium-self-test-entities.c */
gboolean step_typed_properties(SelfTest *t);
gboolean step_angle_dial(SelfTest *t);
gboolean step_texture_drop(SelfTest *t);
gboolean step_entity_browser(SelfTest *t);
/* allium-self-test-clipboard.c */
gboolean step_clipboard(SelfTest *t);
/* allium-self-test-prefabs.c */
gboolean step_prefabs(SelfTest *t);
/* allium-self-test-tools.c */
gboolean step_tool_icons(SelfTest *t);
gboolean step_grid_header(SelfTest *t);
gboolean step_select_all_invert(SelfTest *t);
gboolean step_select_face(SelfTest *t);
gboolean step_resize_handle(SelfTest *t);
gboolean step_resize_3d(SelfTest *t);
gboolean step_resize_3d_handle(SelfTest *t);
gboolean step_hulls_dialog(SelfTest *t);
gboolean step_clip(SelfTest *t);
gboolean step_clip_3d(SelfTest *t);
/* allium-self-test-shapes.c */
gboolean step_rotate_dialog(SelfTest *t);
gboolean step_scale_dialog(SelfTest *t);
gboolean step_rotate_drag(SelfTest *t);
gboolean step_rotate_about_point(SelfTest *t);
gboolean step_shear(SelfTest *t);
gboolean step_add_shapes(SelfTest *t);
/* allium-self-test-pick.c */
gboolean step_cycle_pick(SelfTest *t);
gboolean step_hide_isolate(SelfTest *t);
gboolean step_groups_layers(SelfTest *t);
gboolean step_small_brush_moves(SelfTest *t);
/* allium-self-test-views.c */
gboolean step_view_toggles(SelfTest *t);
gboolean step_faint_textures(SelfTest *t);
/* allium-self-test-build.c */
gboolean step_build_from_empty(SelfTest *t);
gboolean step_subtract_merge(SelfTest *t);
gboolean step_entity_material(SelfTest *t);

/* allium-self-test-definitions.c */
gboolean step_map_definitions(SelfTest *t);

/* allium-self-test-files.c */
gboolean step_open_dialog(SelfTest *t);
gboolean step_new_dialog(SelfTest *t);

/* allium-self-test-collision.c */
gboolean step_test_box(SelfTest *t);
gboolean step_numbers(SelfTest *t);
gboolean step_test_box_size(SelfTest *t);
gboolean step_test_box_feedback(SelfTest *t);
gboolean step_liquid(SelfTest *t);
gboolean step_agents(SelfTest *t);
gboolean step_inspector_rebuild(SelfTest *t);
gboolean step_walk(SelfTest *t);
gboolean step_keys_under_pointer(SelfTest *t);

/* allium-self-test-engine.c */
gboolean step_light_orders(SelfTest *t);
gboolean step_engine_oracle(SelfTest *t);
gboolean step_next_frame(SelfTest *t);
/* The current snapshot's world, visibility and light against a full compile of the
 * document. EXPECT_SEALED: the map must not leak. */
void compare_with_full(SelfTest *t, AlliumDocument *doc, gboolean expect_sealed);

/* allium-self-test-vertex.c */
gboolean step_vertex_tool(SelfTest *t);
/* Splits, several handles, vertical drags in 3D (allium-self-test-vertex.c). */
gboolean step_vertex_more(SelfTest *t);

G_END_DECLS
