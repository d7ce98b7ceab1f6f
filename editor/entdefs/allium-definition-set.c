/* AlliumDefinitionSet and AlliumDefinitionSlot (see allium-definition-set.h). */
#include "allium-definition-set.h"

#include <stdlib.h>

/* How many files a worldspawn may name (al_entdefs_map_files writes at most this many). */
#define MAP_FILES_MAX 32

char **allium_definition_set_list_files(const char *preference, const al_entity_desc *world,
                                        const char *map_folder)
{
    g_autoptr(GStrvBuilder) files = g_strv_builder_new();
    g_auto(GStrv) chosen = g_strsplit(preference ? preference : "", ";", -1);
    for (int i = 0; chosen[i]; i++) {
        char *path = g_strstrip(chosen[i]);
        if (*path) g_strv_builder_add(files, path);
    }
    char *named[MAP_FILES_MAX];
    int n = world ? al_entdefs_map_files(world, map_folder, named, MAP_FILES_MAX) : 0;
    for (int i = 0; i < n; i++) {
        g_strv_builder_add(files, named[i]);
        free(named[i]);
    }
    return g_strv_builder_end(files);
}

AlliumDefinitionSet *allium_definition_set_new(const char *const *files)
{
    static gint serials;
    AlliumDefinitionSet *set = g_new0(AlliumDefinitionSet, 1);
    set->refs = 1;
    set->serial = (guint) g_atomic_int_add(&serials, 1) + 1;
    set->files = g_strdupv((char **) files);
    if (!set->files) set->files = g_new0(char *, 1);
    /* A file that cannot be read, or a definition skipped, is in PROBLEMS with its file,
     * line and column; only memory running out stops the reading. */
    al_entdefs_load_bundled(&set->defs, &set->problems);
    for (int i = 0; set->files[i]; i++) al_entdefs_load(&set->defs, set->files[i], &set->problems);
    return set;
}

AlliumDefinitionSet *allium_definition_set_ref(AlliumDefinitionSet *set)
{
    g_return_val_if_fail(set != NULL, NULL);
    g_atomic_int_inc(&set->refs);
    return set;
}

void allium_definition_set_unref(AlliumDefinitionSet *set)
{
    if (!set || !g_atomic_int_dec_and_test(&set->refs)) return;
    al_entdefs_clear(&set->defs);
    al_diag_list_clear(&set->problems);
    g_strfreev(set->files);
    g_free(set);
}

gboolean allium_definition_set_has_files(const AlliumDefinitionSet *set, const char *const *files)
{
    g_return_val_if_fail(set != NULL, FALSE);
    static const char *const none[] = {NULL};
    return g_strv_equal((const char *const *) set->files, files ? files : none);
}

void allium_definition_slot_init(AlliumDefinitionSlot *slot)
{
    pthread_mutex_init(&slot->lock, NULL);
    slot->current = NULL;
}

void allium_definition_slot_clear(AlliumDefinitionSlot *slot)
{
    g_clear_pointer(&slot->current, allium_definition_set_unref);
    pthread_mutex_destroy(&slot->lock);
}

AlliumDefinitionSet *allium_definition_slot_dup(AlliumDefinitionSlot *slot)
{
    pthread_mutex_lock(&slot->lock);
    AlliumDefinitionSet *set = slot->current ? allium_definition_set_ref(slot->current) : NULL;
    pthread_mutex_unlock(&slot->lock);
    return set;
}

void allium_definition_slot_set(AlliumDefinitionSlot *slot, AlliumDefinitionSet *set)
{
    AlliumDefinitionSet *ref = set ? allium_definition_set_ref(set) : NULL;
    pthread_mutex_lock(&slot->lock);
    AlliumDefinitionSet *old = slot->current;
    slot->current = ref;
    pthread_mutex_unlock(&slot->lock);
    /* Freed outside the lock: readers never wait for a set to be torn down. */
    allium_definition_set_unref(old);
}
