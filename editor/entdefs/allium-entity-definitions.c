/* The editor's entity definitions (see allium-entity-definitions.h). */
#include "allium-config.h"

#include "allium-entity-definitions.h"

#include <glib/gi18n.h>
#include <string.h>

void allium_entity_definitions_check(const AlliumDefinitionSet *set, const al_input *input,
                                     al_diag_list *diags)
{
    al_diag_append(diags, &set->problems);
    al_entdefs_check check;
    if (al_entdefs_check_input(&set->defs, input, &check, diags) == AL_OK)
        al_entdefs_check_clear(&check);
}

/* Appends "KEY": "VALUE" to JSON, escaped as JSON strings need. */
static void append_pair(GString *json, const char *key, const char *value)
{
    const char *texts[2] = {key, value};
    for (int t = 0; t < 2; t++) {
        g_string_append(json, t ? ": \"" : json->len > 1 ? ", \"" : "\"");
        for (const unsigned char *c = (const unsigned char *) texts[t]; *c; c++) {
            if (*c == '"' || *c == '\\')
                g_string_append_printf(json, "\\%c", *c);
            else if (*c < 0x20)
                g_string_append_printf(json, "\\u%04x", *c);
            else
                g_string_append_c(json, (char) *c);
        }
        g_string_append_c(json, '"');
    }
}

char *allium_entity_definitions_new_entity_json(const al_entdefs *defs, const char *classname,
                                                const double origin[3])
{
    GString *json = g_string_new("{");
    char text[96];
    g_snprintf(text, sizeof text, "%g %g %g", origin[0], origin[1], origin[2]);
    append_pair(json, "origin", text);
    const al_entdef_class *cls = al_entdefs_find(defs, classname);
    for (int i = 0; cls && i < cls->property_count; i++) {
        const al_entdef_property *p = &cls->properties[i];
        if (g_str_equal(p->key, "origin") || g_str_equal(p->key, "classname")) continue;
        if (p->type == AL_PROP_FLAGS) {
            unsigned bits = 0;
            for (int f = 0; f < p->flag_count; f++)
                if (p->flags[f].on) bits |= p->flags[f].bit;
            g_snprintf(text, sizeof text, "%u", bits);
            if (bits) append_pair(json, p->key, text);
        } else if (p->has_default && *p->default_value && !g_str_equal(p->default_value, "0")) {
            append_pair(json, p->key, p->default_value);
        }
    }
    g_string_append_c(json, '}');
    return g_string_free(json, FALSE);
}

/* NAME with each '_' doubled: a menu label shows it as written. */
static char *escape_mnemonic(const char *name)
{
    GString *s = g_string_new(NULL);
    for (const char *c = name; *c; c++) {
        if (*c == '_') g_string_append_c(s, '_');
        g_string_append_c(s, *c);
    }
    return g_string_free(s, FALSE);
}

static int compare_names(gconstpointer a, gconstpointer b)
{
    const al_entdef_class *x = *(const al_entdef_class *const *) a;
    const al_entdef_class *y = *(const al_entdef_class *const *) b;
    return strcmp(x->name, y->name);
}

static GMenuItem *class_item(const al_entdef_class *cls)
{
    g_autofree char *name = escape_mnemonic(cls->name);
    /* The first line of the description, if short: the class's own words, not translated. */
    g_autofree char *summary = g_strndup(cls->description, strcspn(cls->description, "\n"));
    g_autofree char *label = *summary && g_utf8_strlen(summary, -1) <= 48
                                 ? g_strdup_printf(_("%s (%s)"), name, summary)
                                 : g_strdup(name);
    GMenuItem *item = g_menu_item_new(label, NULL);
    g_menu_item_set_action_and_target(item, "win.place-entity", "s", cls->name);
    return item;
}

GMenuModel *allium_entity_definitions_place_menu(const al_entdefs *defs)
{
    GPtrArray *points = g_ptr_array_new();
    for (int i = 0; i < defs->class_count; i++)
        if (defs->classes[i].kind == AL_ENTDEF_POINT) g_ptr_array_add(points, &defs->classes[i]);
    g_ptr_array_sort(points, compare_names);
    GMenu *menu = g_menu_new();
    for (guint i = 0; i < points->len;) {
        const al_entdef_class *cls = points->pdata[i];
        size_t prefix = strcspn(cls->name, "_");
        guint end = i + 1;
        while (cls->name[prefix] == '_' && end < points->len &&
               strncmp(((const al_entdef_class *) points->pdata[end])->name, cls->name,
                       prefix + 1) == 0)
            end++;
        if (end - i == 1) {
            GMenuItem *item = class_item(cls);
            g_menu_append_item(menu, item);
            g_object_unref(item);
        } else {
            GMenu *sub = g_menu_new();
            for (guint k = i; k < end; k++) {
                GMenuItem *item = class_item(points->pdata[k]);
                g_menu_append_item(sub, item);
                g_object_unref(item);
            }
            g_autofree char *word = g_strndup(cls->name, prefix);
            g_autofree char *label = escape_mnemonic(word);
            g_menu_append_submenu(menu, label, G_MENU_MODEL(sub));
            g_object_unref(sub);
        }
        i = end;
    }
    g_ptr_array_free(points, TRUE);
    return G_MENU_MODEL(menu);
}

char *allium_entity_definitions_key_tooltip(const al_entdefs *defs, const char *classname,
                                            const char *key)
{
    const al_entdef_property *p = al_entdef_find_property(al_entdefs_find(defs, classname), key);
    if (!p || (!*p->display && !*p->description)) return NULL;
    GString *text = g_string_new(p->display);
    if (*p->description)
        g_string_append_printf(text, "%s%s", text->len ? "\n" : "", p->description);
    if (p->has_default && *p->default_value)
        g_string_append_printf(text, _("\nDefault: %s"), p->default_value);
    for (int i = 0; i < p->choice_count; i++)
        g_string_append_printf(text, "\n%s = %s", p->choices[i].value, p->choices[i].label);
    for (int i = 0; i < p->flag_count; i++)
        g_string_append_printf(text, "\n%u: %s", p->flags[i].bit, p->flags[i].label);
    return g_string_free(text, FALSE);
}

void allium_entity_definitions_look(const al_entdefs *defs, const char *classname,
                                    al_entity_look *out)
{
    memset(out, 0, sizeof *out);
    const al_entdef_class *cls = classname ? al_entdefs_find(defs, classname) : NULL;
    if (!cls) return;
    out->has_box = cls->has_size;
    for (int k = 0; k < 3 && cls->has_size; k++) {
        out->mins[k] = cls->mins[k];
        out->maxs[k] = cls->maxs[k];
    }
    out->has_colour = cls->has_color;
    for (int k = 0; k < 3 && cls->has_color; k++) out->colour[k] = (float) cls->color[k];
}
