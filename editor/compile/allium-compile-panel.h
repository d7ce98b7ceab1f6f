/* AlliumCompilePanel: the "Compile" page of the window's side panel.
 *
 * - Stages: collision (blocks rebuilt of all, time), portals and PVS (portals, vis
 *   leaves, times of the passes), radiosity (state, shots, residual); each says whether
 *   it is current, compiling or, for radiosity, running, paused or done.
 * - Radiosity controls: Step 1, 10 and 100 shots, Run / Pause, Reset, the target residual
 *   (in percent), and a plot of the residual (log scale) over the shots of the current
 *   compile; the 3D view's lightmaps follow every step.
 * - Problems: the snapshot's diagnostics (invalid brushes, leaks, bad values). Activating
 *   one emits "select-brush" with the brush's document row, or "frame" with the bounds of
 *   the leak path (which the leak overlay draws).
 *
 * Signals:
 *   "select-brush" (gint64 row)
 *   "frame"        (gpointer: const double[6], mins then maxs)
 */
#pragma once

#include "allium-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_COMPILE_PANEL (allium_compile_panel_get_type())
G_DECLARE_FINAL_TYPE(AlliumCompilePanel, allium_compile_panel, ALLIUM, COMPILE_PANEL, GtkWidget)

GtkWidget *allium_compile_panel_new(void);
void allium_compile_panel_set_document(AlliumCompilePanel *self, AlliumDocument *document);

/* Test hooks: the number of problems listed; activates problem I as a click does. */
int allium_compile_panel_problem_count(AlliumCompilePanel *self);
void allium_compile_panel_activate_problem(AlliumCompilePanel *self, int i);
/* The radiosity line ("142 shots · residual 3.1% · paused"). */
const char *allium_compile_panel_get_light_text(AlliumCompilePanel *self);

G_END_DECLS
