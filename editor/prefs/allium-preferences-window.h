/* AlliumPreferencesWindow: the Preferences dialog. Every control is bound to a property of
 * AlliumPreferences, so a change applies at once and is saved; there is no Apply. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_PREFERENCES_WINDOW (allium_preferences_window_get_type())
G_DECLARE_FINAL_TYPE(AlliumPreferencesWindow, allium_preferences_window, ALLIUM,
                     PREFERENCES_WINDOW, GtkWindow)

GtkWidget *allium_preferences_window_new(GtkWindow *parent);

G_END_DECLS
