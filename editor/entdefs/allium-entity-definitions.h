/* What the editor makes of entity definitions (data/entdefs): the Place Entity menu, the
 * keys a new entity starts with, the inspector's explanations of keys, the look of point
 * entities and the warnings of the problems list. Each works on a set it is given (a
 * document's AlliumDefinitionSet: allium_document_dup_definitions). */
#ifndef ALLIUM_ENTITY_DEFINITIONS_H
#define ALLIUM_ENTITY_DEFINITIONS_H

#include "al-render.h"
#include "allium-definition-set.h"
#include "entdefs/entdefs.h"

#include <gio/gio.h>

/* Appends to DIAGS the problems of SET's definition files and warnings for INPUT's
 * entities: classes no definition names, keys their class does not define, targets no
 * entity names (al_entdefs_check_input). Any thread. */
void allium_entity_definitions_check(const AlliumDefinitionSet *set, const al_input *input,
                                     al_diag_list *diags);

/* The keys of a new point entity of CLASSNAME at ORIGIN as a JSON object (g_free it):
 * "origin", then every key its class gives a default value other than "" and "0" (the
 * values a missing key reads as in Quake), and "spawnflags" from the flags set by default. */
char *allium_entity_definitions_new_entity_json(const al_entdefs *defs, const char *classname,
                                                const double origin[3]);

/* The Place Entity menu (g_object_unref it): the point classes of DEFS, those sharing a
 * prefix ("monster_", "item_", ...) in a submenu of that name; each item activates
 * win.place-entity with the class name. */
GMenuModel *allium_entity_definitions_place_menu(const al_entdefs *defs);

/* What KEY of an entity of CLASSNAME means, for a tooltip (g_free it): its display name
 * and description from the definitions, or NULL when they say nothing about it. */
char *allium_entity_definitions_key_tooltip(const al_entdefs *defs, const char *classname,
                                            const char *key);

/* How a point entity of CLASSNAME is drawn (al_entity_look): the size and colour its
 * class's definition gives, each marked absent when it gives none. Any thread. */
void allium_entity_definitions_look(const al_entdefs *defs, const char *classname,
                                    al_entity_look *out);

#endif
