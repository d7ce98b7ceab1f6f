/* The map document's schema: tables, the undo journal's triggers, and migrations.
 *
 * One list of table descriptors (name and columns) generates the CREATE statements of the
 * journaled tables, their image tables, the triggers that fill the journal, and the
 * statements that undo and redo, so the four cannot drift apart.
 *
 * Version history (PRAGMA user_version):
 *   1  settings, hulls, materials, entities, brushes, faces, steps, journal, cache
 *   2  materials' flags follow Quake's rules as the compiler now reads them (the trigger
 *      texture has no contents of its own; lava and slime are kinds of liquid; origin
 *      brushes)
 *   3  materials' texture colours (texture_red, texture_green, texture_blue; NULL: none)
 *   4  brushes and entities have a state: hidden and locked by the designer (AL_DOC_STATE_*)
 */
#ifndef AL_SCHEMA_H
#define AL_SCHEMA_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#define AL_DOC_APPLICATION_ID 0x416C6C69 /* "Alli" */
#define AL_DOC_SCHEMA_VERSION 4

typedef struct al_table {
    const char *name;
    const char *columns[32]; /* every column but id, NULL-terminated */
} al_table;

/* The journaled tables, in dependency order (parents first). */
extern const al_table al_doc_tables[];
extern const int al_doc_table_count;

/* Index of the table named NAME, or -1. */
int al_doc_table_index(const char *name);

/* Creates every table, index and trigger of the current version in DB (inside the caller's
 * transaction). Returns an SQLite result code. */
int al_schema_create(sqlite3 *db);

/* Brings a database of schema version FROM up to AL_DOC_SCHEMA_VERSION (inside the caller's
 * transaction). */
int al_schema_migrate(sqlite3 *db, int from);

/* Whether DB (of the current version) has every table, index and trigger the current
 * schema makes, and every table every column. If not, PROBLEM (SIZE bytes) says what is
 * missing, translated ("its table \"journal\" is missing"). Reads only. */
bool al_schema_check(sqlite3 *db, char *problem, size_t size);

#endif
