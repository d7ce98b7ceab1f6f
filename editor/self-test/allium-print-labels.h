/* allium --print-labels: the window's labels as text, for the translation test (see
 * allium-print-labels.c). */
#pragma once

#include "allium-application.h"

G_BEGIN_DECLS

/* Opens an empty map window in the running application, prints the text of every label
 * in it once it is shown, one a line, and quits with exit status 0 (1 if the window was
 * not shown in time). */
void allium_print_labels_start(AlliumApplication *app);

G_END_DECLS
