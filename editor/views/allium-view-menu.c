/* AlliumView's context menu: a right click in a view (a press and release without moving;
 * a right drag still turns the 3D camera or pans a 2D view) opens a menu of what can be
 * done to the selection, as TrenchBroom users expect: Group, Ungroup, Enter and Leave
 * Group; Hide, Isolate, Show All, Lock, Unlock All; Move to Layer (a submenu of the map's
 * layers); Save as Prefab…; Delete. With nothing selected, the click first selects what
 * lies under the pointer, as a left click would (a group member brings its group), so the
 * menu acts on that.
 *
 * Every item is one of the window's actions (win.*), the same ones the menu bar and the
 * shortcuts run, so each is one undoable step and is greyed out when the window disables
 * it. The menu is a GtkPopoverMenu over a GMenuModel built when it opens (the layers change
 * with the map).
 */
#include "allium-config.h"

#include "allium-view-private.h"

#include "layers/layer-edits.h"

#include <glib/gi18n.h>

/* --- static helpers ------------------------------------------------------------------ */

static void add_item(GMenu *menu, const char *label, const char *action)
{
    g_menu_append(menu, label, action);
}

/* The Move to Layer submenu: the map's layers in the Layers page's order. */
static GMenu *layer_menu(AlliumView *self)
{
    GMenu *menu = g_menu_new();
    al_doc *doc = self->document ? allium_document_get_doc(self->document) : NULL;
    al_layers layers;
    if (!doc || al_layers_read(doc, &layers, NULL) != AL_OK) return menu;
    int *order = NULL, count = 0;
    if (al_layers_list(&layers, &order, &count) == AL_OK) {
        for (int i = 0; i < count; i++) {
            int e = order[i];
            const char *name =
                e == 0 ? _("Default Layer") : al_layers_value(&layers, e, "_tb_name");
            g_autoptr(GMenuItem) item =
                g_menu_item_new(name && name[0] ? name : _("(unnamed)"), NULL);
            g_menu_item_set_action_and_target_value(
                item, "win.move-to-layer", g_variant_new_int64(e == 0 ? 0 : layers.rows[e].id));
            g_menu_append_item(menu, item);
        }
        free(order);
    }
    al_layers_free(&layers);
    return menu;
}

static GMenuModel *build_model(AlliumView *self)
{
    GMenu *model = g_menu_new();
    g_autoptr(GMenu) groups = g_menu_new();
    add_item(groups, _("_Group"), "win.group");
    add_item(groups, _("_Ungroup"), "win.ungroup");
    add_item(groups, _("_Enter Group"), "win.enter-group");
    add_item(groups, _("_Leave Group"), "win.leave-group");
    g_menu_append_section(model, NULL, G_MENU_MODEL(groups));
    g_autoptr(GMenu) marks = g_menu_new();
    add_item(marks, _("_Hide"), "win.hide");
    add_item(marks, _("_Isolate"), "win.isolate");
    add_item(marks, _("Show _All"), "win.show-all");
    add_item(marks, _("_Lock"), "win.lock");
    add_item(marks, _("_Unlock All"), "win.unlock-all");
    g_menu_append_section(model, NULL, G_MENU_MODEL(marks));
    g_autoptr(GMenu) rest = g_menu_new();
    g_autoptr(GMenu) layers = layer_menu(self);
    g_menu_append_submenu(rest, _("_Move to Layer"), G_MENU_MODEL(layers));
    add_item(rest, _("Save as _Prefab…"), "win.save-prefab");
    add_item(rest, _("_Delete"), "win.delete");
    g_menu_append_section(model, NULL, G_MENU_MODEL(rest));
    return G_MENU_MODEL(model);
}

/* --- internal API (allium-view-private.h) -------------------------------------------- */

void allium_view_open_context_menu(AlliumView *self, double x, double y)
{
    if (self->walker || !self->selection) return;
    /* Nothing selected: what is under the pointer, as a left click picks it (not with
     * the clip tool, whose click places a point). */
    if (allium_selection_is_empty(self->selection) && self->tool != ALLIUM_TOOL_CLIP)
        allium_view_click(self, x, y, 0);
    g_autoptr(GMenuModel) model = build_model(self);
    if (!self->context_menu) {
        self->context_menu = GTK_POPOVER(gtk_popover_menu_new_from_model(model));
        gtk_widget_set_parent(GTK_WIDGET(self->context_menu), GTK_WIDGET(self));
        gtk_popover_set_has_arrow(self->context_menu, FALSE);
        gtk_widget_set_halign(GTK_WIDGET(self->context_menu), GTK_ALIGN_START);
    } else {
        gtk_popover_menu_set_menu_model(GTK_POPOVER_MENU(self->context_menu), model);
    }
    double vx = x, vy = y;
    gtk_widget_translate_coordinates(GTK_WIDGET(self->gl_area), GTK_WIDGET(self), x, y, &vx, &vy);
    GdkRectangle at = {(int) vx, (int) vy, 1, 1};
    gtk_popover_set_pointing_to(self->context_menu, &at);
    gtk_popover_popup(self->context_menu);
}

void allium_view_dispose_context_menu(AlliumView *self)
{
    if (!self->context_menu) return;
    gtk_widget_unparent(GTK_WIDGET(self->context_menu));
    self->context_menu = NULL;
}

/* --- public API ---------------------------------------------------------------------- */

GtkPopover *allium_view_get_context_menu(AlliumView *self)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), NULL);
    return self->context_menu;
}
