/* The GUI self-test: allium --self-test DIR (see allium-self-test.c). */
#pragma once

#include "allium-application.h"

G_BEGIN_DECLS

/* Starts the self-test in the running application: it works in DIR, steps through the
 * editor from the main loop and quits with exit status 0 if every check passed. */
void allium_self_test_start(AlliumApplication *app, const char *dir);

G_END_DECLS
