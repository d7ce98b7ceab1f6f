/* AlliumDefinitionSet: one document's entity definitions, layered as mods layer them, and
 * the slot that lets every thread read the current set while the main thread replaces it.
 *
 * A set is made once from a list of files (the bundled Quake definitions first, then the
 * Preferences' files, then the files the map's worldspawn names: TrenchBroom's "_tb_def"
 * and Allium's "allium_defs", read by al_entdefs_map_files) and never changes afterwards:
 * any thread may read it while it holds a reference. Problems with the files (a file that
 * cannot be read, a definition skipped) are kept with the set, each naming file, line and
 * column. A change of the files makes a new set, which replaces the old one in the
 * document's slot; readers that hold the old one keep it until they drop their reference.
 *
 * GLib only (no GTK), so that the tests build it alone. Workload: a set is made when a
 * document opens and when its definition files change; readers take a reference per
 * snapshot, per menu and per panel rebuild.
 */
#pragma once

#include "entdefs/entdefs.h"

#include <glib.h>
#include <pthread.h>

G_BEGIN_DECLS

typedef struct _AlliumDefinitionSet {
    al_entdefs defs;       /* the classes; read-only */
    al_diag_list problems; /* reading the files: file, line and column in each; read-only */
    char **files;          /* the files asked for after the bundled one, in order (a GStrv) */
    guint serial;          /* tells sets apart: each set made has its own, from 1 */
    /* private */
    gint refs;
} AlliumDefinitionSet;

/* The files a document's set reads after the bundled one (a GStrv; g_strfreev it): those
 * of PREFERENCE ("PATH;PATH;...", may be NULL or ""), then those WORLD names (may be NULL)
 * with relative paths taken from MAP_FOLDER (al_entdefs_map_files). */
char **allium_definition_set_list_files(const char *preference, const al_entity_desc *world,
                                        const char *map_folder);

/* Reads the bundled definitions, then FILES (may be NULL) in order, a later file's class
 * replacing an earlier one of the same name. Never NULL: a file that cannot be read or a
 * definition that cannot be read is a problem in the set's list and is skipped. Any
 * thread. */
AlliumDefinitionSet *allium_definition_set_new(const char *const *files);

AlliumDefinitionSet *allium_definition_set_ref(AlliumDefinitionSet *set);

/* Drops a reference; the last one frees the set. Any thread; NULL is a no-op. */
void allium_definition_set_unref(AlliumDefinitionSet *set);

/* Whether SET was made from exactly FILES. */
gboolean allium_definition_set_has_files(const AlliumDefinitionSet *set, const char *const *files);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(AlliumDefinitionSet, allium_definition_set_unref)

/* Where the current set is kept. Readers on any thread take a reference to it
 * (allium_definition_slot_dup); the main thread replaces it (allium_definition_slot_set).
 * The lock is held only to copy the pointer and take the reference, never while a set is
 * read or made. It is a POSIX mutex rather than a GMutex: GLib's own futex lock is invisible
 * to ThreadSanitizer, which then could not check the slot. */
typedef struct AlliumDefinitionSlot {
    pthread_mutex_t lock;
    AlliumDefinitionSet *current; /* owned; NULL only before the first set */
} AlliumDefinitionSlot;

void allium_definition_slot_init(AlliumDefinitionSlot *slot);

/* Drops the current set. */
void allium_definition_slot_clear(AlliumDefinitionSlot *slot);

/* A new reference to the current set (unref it), or NULL before the first. Any thread. */
AlliumDefinitionSet *allium_definition_slot_dup(AlliumDefinitionSlot *slot);

/* Makes SET (a reference is taken) the current set. Any thread. */
void allium_definition_slot_set(AlliumDefinitionSlot *slot, AlliumDefinitionSet *set);

G_END_DECLS
