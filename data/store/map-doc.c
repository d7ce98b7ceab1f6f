/* .map <-> document (see map-doc.h).
 *
 * Workload: lq-e3m4 (22,180 faces) imports in about 0.4 s, most of it checking each brush
 * with the compiler's brush builder to store its bounds.
 */
#define _GNU_SOURCE /* renameat2 */
#include "map-doc.h"

#include "doc-internal.h"
#include "layers/layer-tree.h"
#include "mapfile/map-write.h"
#include "mapfile/material-keys.h"
#include "materials/material-defaults.h"
#include "settings/hull-spec.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool is_default_hulls(const al_hull_desc *h, int n)
{
    const al_hull_desc *d;
    int dn = al_default_hulls(&d);
    if (n != dn) return false;
    for (int i = 0; i < n; i++)
        if (strcmp(h[i].name, d[i].name) || memcmp(h[i].mins, d[i].mins, sizeof h[i].mins) ||
            memcmp(h[i].maxs, d[i].maxs, sizeof h[i].maxs))
            return false;
    return true;
}

/* Whether KEY = VALUE of the world is a material's light the import takes into the
 * materials (a bad one stays a property, so nothing is lost). */
static bool is_material_key(const char *key, const char *value)
{
    al_material_light ml;
    char why[120];
    return al_material_key_name(key) && al_material_key_parse(value, &ml, why, sizeof why);
}

/* Properties of E but the classname (and, for the world, the keys that are settings or
 * materials' light) as a JSON object in their order. */
static char *properties_json(const al_map_entity *e, bool world)
{
    cJSON *o = cJSON_CreateObject();
    for (int p = 0; o && p < e->property_count; p++) {
        const char *k = e->properties[p].key;
        if (strcmp(k, "classname") == 0) continue;
        if (world && (strcmp(k, "allium_hulls") == 0 || strcmp(k, "allium_block_size") == 0 ||
                      strcmp(k, "mapversion") == 0 || is_material_key(k, e->properties[p].value)))
            continue;
        cJSON_AddItemToObject(o, k, cJSON_CreateString(e->properties[p].value));
    }
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return s;
}

/* MF as a document face; its Quake 2 flags, if any, are written into FLAGS, which the face
 * then points to (as it points to MF's strings). */
static void face_from_map(const al_map_face *mf, al_doc_face *face, char flags[64])
{
    *face = (al_doc_face){
        .points_text = mf->points_text,
        .material = mf->material,
        .valve = mf->valve,
        .u_offset = mf->u_offset,
        .v_offset = mf->v_offset,
        .offset = {mf->offset[0], mf->offset[1]},
        .rotation = mf->rotation,
        .scale = {mf->scale[0], mf->scale[1]},
    };
    memcpy(face->points, mf->points, sizeof face->points);
    memcpy(face->u_axis, mf->u_axis, sizeof face->u_axis);
    memcpy(face->v_axis, mf->v_axis, sizeof face->v_axis);
    if (mf->has_flags) {
        snprintf(flags, 64, "%d %d %d", mf->flags[0], mf->flags[1], mf->flags[2]);
        face->surface = flags;
    }
}

/* Material ids by name during an import, so each name is looked up once. */
typedef struct name_cache {
    char **names;
    int64_t *ids;
    size_t size, count;
} name_cache;

static uint32_t hash_name(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char) *s) * 16777619u;
    return h;
}

static int64_t cached_material(al_doc *doc, name_cache *c, const char *name)
{
    if (c->count * 2 >= c->size) {
        size_t size = c->size ? c->size * 2 : 256;
        char **names = calloc(size, sizeof *names);
        int64_t *ids = calloc(size, sizeof *ids);
        if (!names || !ids) {
            free(names);
            free(ids);
            return al_doc_material_id(doc, name);
        }
        for (size_t i = 0; i < c->size; i++)
            if (c->names[i]) {
                size_t j = hash_name(c->names[i]) & (size - 1);
                while (names[j]) j = (j + 1) & (size - 1);
                names[j] = c->names[i];
                ids[j] = c->ids[i];
            }
        free(c->names);
        free(c->ids);
        c->names = names;
        c->ids = ids;
        c->size = size;
    }
    size_t j = hash_name(name) & (c->size - 1);
    while (c->names[j] && strcmp(c->names[j], name)) j = (j + 1) & (c->size - 1);
    if (c->names[j]) return c->ids[j];
    int64_t id = al_doc_material_id(doc, name);
    if (id >= 0) {
        c->names[j] = strdup(name);
        c->ids[j] = id;
        c->count++;
    }
    return id;
}

static void free_cache(name_cache *c)
{
    for (size_t i = 0; i < c->size; i++) free(c->names[i]);
    free(c->names);
    free(c->ids);
}

/* The world's material keys (material-keys.h) into the materials table, within the
 * import's transaction: a material no face names is added. A bad key is reported (and
 * kept as a property). */
static al_status import_material_keys(al_doc *doc, const al_map_entity *world, al_diag_list *diags)
{
    static const char *sql =
        "INSERT INTO materials(name, red, green, blue, reflectance, emit_red, emit_green, "
        "emit_blue, flags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
        "red = excluded.red, green = excluded.green, blue = excluded.blue, "
        "reflectance = excluded.reflectance, emit_red = excluded.emit_red, "
        "emit_green = excluded.emit_green, emit_blue = excluded.emit_blue";
    for (int p = 0; p < world->property_count; p++) {
        const al_map_property *pr = &world->properties[p];
        const char *name = al_material_key_name(pr->key);
        if (!name) continue;
        al_material_light ml;
        char why[120];
        if (!al_material_key_parse(pr->value, &ml, why, sizeof why) || strlen(name) > 255) {
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, 0, -1, -1, world->line, -1,
                        "worldspawn key \"%s\": %s; kept as a key, the material keeps its "
                        "defaults",
                        pr->key, strlen(name) > 255 ? "the name is longer than 255 bytes" : why);
            continue;
        }
        if (!ml.has_colour) {
            float rgb[3];
            al_material_default_colour(name, rgb);
            for (int k = 0; k < 3; k++) ml.colour[k] = rgb[k];
        }
        sqlite3_stmt *st = al_doc_prepare(doc, sql);
        if (!st) return AL_ERR_IO;
        sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
        for (int k = 0; k < 3; k++) {
            sqlite3_bind_double(st, 2 + k, ml.colour[k]);
            sqlite3_bind_double(st, 6 + k, ml.emission[k]);
        }
        if (ml.reflectance < 0)
            sqlite3_bind_null(st, 5);
        else
            sqlite3_bind_double(st, 5, ml.reflectance);
        sqlite3_bind_int64(st, 9, al_material_default_flags(name));
        if (sqlite3_step(st) != SQLITE_DONE)
            return al_doc_sqlite_status(doc, sqlite3_errcode(doc->db), "importing a material",
                                        diags);
    }
    return AL_OK;
}

al_status al_doc_import_map(al_doc *doc, const al_map *map, al_diag_list *diags)
{
    static const char *world_sql = "UPDATE entities SET properties = ? WHERE id = 0";
    static const char *entity_sql =
        "INSERT INTO entities(position, classname, properties) VALUES (?, ?, ?)";
    static const char *brush_sql = "INSERT INTO brushes(entity, position, detail) VALUES (?, ?, ?)";
    static const char *hull_clear = "DELETE FROM hulls";
    static const char *hull_sql = "INSERT INTO hulls(position, name, minx, miny, minz, maxx, "
                                  "maxy, maxz) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
    static const char *setting_sql = "UPDATE settings SET value = ? WHERE key = ?";
    if (doc->read_only) return AL_ERR_READ_ONLY;
    if (al_doc_count(doc, "brushes") != 0 || al_doc_count(doc, "entities") != 1) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "a .map is imported into a new, empty map document");
        return AL_ERR_INVALID_ARGUMENT;
    }
    if (al_doc_exec(doc, "BEGIN IMMEDIATE") != SQLITE_OK) return AL_ERR_LOCKED;
    al_status status = AL_OK;
    name_cache materials = {0};
    sqlite3_stmt *st;
    for (int e = 0; e < map->entity_count && status == AL_OK; e++) {
        const al_map_entity *me = &map->entities[e];
        const char *cls = al_map_entity_value(me, "classname");
        bool world = e == 0 && cls && strcmp(cls, "worldspawn") == 0;
        char *props = properties_json(me, world);
        if (!props) {
            status = AL_ERR_NOMEM;
            break;
        }
        int64_t entity = 0;
        if (world) {
            st = al_doc_prepare(doc, world_sql);
            if (st) sqlite3_bind_text(st, 1, props, -1, SQLITE_TRANSIENT);
            const char *hulls = al_map_entity_value(me, "allium_hulls");
            if (hulls) {
                al_hull_desc list[AL_MAX_HULLS];
                char error[200];
                int n = al_hull_spec_parse_list(hulls, list, AL_MAX_HULLS, error, sizeof error);
                if (n > 0 && list[0].maxs[0] == 0 && list[0].mins[0] == 0) {
                    sqlite3_stmt *c = al_doc_prepare(doc, hull_clear);
                    if (c) sqlite3_step(c);
                    for (int h = 0; h < n; h++) {
                        sqlite3_stmt *hs = al_doc_prepare(doc, hull_sql);
                        if (!hs) break;
                        sqlite3_bind_int(hs, 1, h);
                        sqlite3_bind_text(hs, 2, list[h].name, -1, SQLITE_TRANSIENT);
                        for (int k = 0; k < 3; k++) {
                            sqlite3_bind_double(hs, 3 + k, list[h].mins[k]);
                            sqlite3_bind_double(hs, 6 + k, list[h].maxs[k]);
                        }
                        if (sqlite3_step(hs) != SQLITE_DONE) status = AL_ERR_INVALID_ARGUMENT;
                    }
                } else {
                    al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, 0, -1, -1, me->line,
                                -1, "worldspawn key \"allium_hulls\" ignored: %s",
                                n > 0 ? "the first hull must be the point hull" : error);
                }
            }
            const char *block = al_map_entity_value(me, "allium_block_size");
            if (block) {
                char *end;
                double v = strtod(block, &end);
                if (*end == '\0' && v >= 64 && v <= 65536) {
                    sqlite3_stmt *ss = al_doc_prepare(doc, setting_sql);
                    if (ss) {
                        char text[64];
                        snprintf(text, sizeof text, "%.17g", v);
                        sqlite3_bind_text(ss, 1, text, -1, SQLITE_TRANSIENT);
                        sqlite3_bind_text(ss, 2, "block_size", -1, SQLITE_STATIC);
                        sqlite3_step(ss);
                    }
                } else {
                    al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, 0, -1, -1, me->line,
                                -1, "worldspawn key \"allium_block_size\" ignored: \"%s\"", block);
                }
            }
        } else {
            st = al_doc_prepare(doc, entity_sql);
            if (st) {
                sqlite3_bind_int(st, 1, e);
                sqlite3_bind_text(st, 2, cls ? cls : "", -1, SQLITE_TRANSIENT);
                sqlite3_bind_text(st, 3, props, -1, SQLITE_TRANSIENT);
            }
        }
        free(props);
        if (!st || sqlite3_step(st) != SQLITE_DONE) {
            status = al_doc_sqlite_status(doc, sqlite3_errcode(doc->db), "importing an entity",
                                          diags);
            break;
        }
        if (!world) entity = sqlite3_last_insert_rowid(doc->db);
        bool detail = cls && strncmp(cls, "func_detail", 11) == 0;
        for (int b = 0; b < me->brush_count && status == AL_OK; b++) {
            const al_map_brush *mb = &me->brushes[b];
            st = al_doc_prepare(doc, brush_sql);
            if (!st) {
                status = AL_ERR_IO;
                break;
            }
            sqlite3_bind_int64(st, 1, entity);
            sqlite3_bind_int(st, 2, mb->index);
            sqlite3_bind_int(st, 3, detail);
            if (sqlite3_step(st) != SQLITE_DONE) {
                status = AL_ERR_IO;
                break;
            }
            int64_t brush = sqlite3_last_insert_rowid(doc->db);
            for (int f = 0; f < mb->face_count; f++) {
                const al_map_face *mf = &mb->faces[f];
                int64_t material = cached_material(doc, &materials, mf->material);
                al_doc_face face;
                char flags[64];
                face_from_map(mf, &face, flags);
                if (material < 0 || !al_doc_insert_face(doc, brush, f, material, &face)) {
                    status = al_doc_sqlite_status(doc, sqlite3_errcode(doc->db),
                                                  "importing a face", diags);
                    break;
                }
            }
            if (status == AL_OK && !al_doc_update_bounds(doc, brush, NULL))
                al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_INVALID_BRUSH, e, mb->index, -1,
                            mb->line, -1,
                            "kept as written, though it is not a valid brush (the compiler "
                            "will report why)");
        }
    }
    free_cache(&materials);
    if (status == AL_OK) {
        /* Broken layer and group keys are kept as written; the warnings say what the
         * editor will make of them. */
        al_layer_source source = al_layer_source_of_map(map);
        al_layer_node *nodes = NULL;
        status = al_layer_tree_build(&source, &nodes, diags);
        free(nodes);
    }
    if (status == AL_OK && map->entity_count > 0) {
        const char *cls = al_map_entity_value(&map->entities[0], "classname");
        if (cls && strcmp(cls, "worldspawn") == 0)
            status = import_material_keys(doc, &map->entities[0], diags);
    }
    if (status == AL_OK && al_doc_exec(doc, "COMMIT") == SQLITE_OK) return AL_OK;
    al_doc_exec(doc, "ROLLBACK");
    return status == AL_OK ? AL_ERR_IO : status;
}

/* --- import into a new file ----------------------------------------------------------- */

#define IMPORTING ".importing-"

/* "PATH: WHAT" as an error (WHAT translated). */
static void file_error(al_diag_list *diags, const char *path, const char *what)
{
    al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1, "%s: %s", path,
                al_diag_translate(what));
}

/* Removes PATH with SQLite's side files: the log and its index, and the rollback journal
 * a new file has until it turns to a log. */
static void remove_with_side_files(const char *path)
{
    static const char *const sides[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        char side[4200];
        snprintf(side, sizeof side, "%.4000s%s", path, sides[i]);
        unlink(side);
    }
}

/* Whether NAME is the temporary file of an import (not one of its side files). */
static bool is_import_temp(const char *name)
{
    const char *mark = name[0] == '.' ? strstr(name, IMPORTING) : NULL;
    return mark && strlen(mark) == strlen(IMPORTING) + 6;
}

/* Removes the temporary files of killed imports from DIR. A running import holds the
 * writer's lock on its file from its creation to its rename (al_doc_create takes it right
 * after creating the file), so a file whose lock can be taken is abandoned. */
static void remove_abandoned_imports(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        if (!is_import_temp(entry->d_name)) continue;
        char path[4200];
        snprintf(path, sizeof path, "%.2000s/%.2000s", dir, entry->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) remove_with_side_files(path);
        close(fd);
    }
    closedir(d);
}

/* Renames FROM to TO unless TO exists (atomically where the file system can). */
static int rename_no_replace(const char *from, const char *to)
{
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
    /* A file system without that flag: a hard link fails on an existing name too. */
    if (link(from, to) != 0) return -1;
    unlink(from);
    return 0;
}

static void sync_folder(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    fsync(fd);
    close(fd);
}

/* Creates a new document under a free temporary name beside PATH (TEMP, room for SIZE). */
static al_status create_temp(const char *dir, const char *base, char *temp, size_t size,
                             al_doc **doc, al_diag_list *diags)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t seed = (uint64_t) now.tv_nsec * 6364136223846793005u ^ (uint64_t) getpid() << 32;
    al_status st = AL_ERR_EXISTS;
    for (int attempt = 0; attempt < 100 && st == AL_ERR_EXISTS; attempt++) {
        char tail[7];
        for (int i = 0; i < 6; i++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            tail[i] = letters[(seed >> 33) % (sizeof letters - 1)];
        }
        tail[6] = '\0';
        if ((size_t) snprintf(temp, size, "%s/.%s" IMPORTING "%s", dir, base, tail) >= size)
            return AL_ERR_INVALID_ARGUMENT;
        al_diag_list local = {0};
        st = al_doc_create(temp, doc, &local);
        if (st != AL_ERR_EXISTS) al_diag_append(diags, &local);
        al_diag_list_clear(&local);
    }
    return st;
}

al_status al_doc_import_new(const char *path, const al_map *map, al_diag_list *diags)
{
    struct stat st_path;
    if (lstat(path, &st_path) == 0) {
        file_error(diags, path, AL_N_("exists already; a new map is never written over a file"));
        return AL_ERR_EXISTS;
    }
    char dir[4096], base[1024], temp[4200];
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int) (slash - path), path);
    else
        snprintf(dir, sizeof dir, ".");
    if (!dir[0]) snprintf(dir, sizeof dir, "/");
    snprintf(base, sizeof base, "%s", slash ? slash + 1 : path);
    remove_abandoned_imports(dir);

    al_doc *doc = NULL;
    al_status st = create_temp(dir, base, temp, sizeof temp, &doc, diags);
    if (st != AL_OK) return st;
    st = al_doc_import_map(doc, map, diags);
    /* Everything into the file itself, so that it is complete without its -wal. */
    if (st == AL_OK && al_doc_exec(doc, "PRAGMA wal_checkpoint(TRUNCATE)") != SQLITE_OK)
        st = al_doc_sqlite_status(doc, sqlite3_errcode(doc->db), "finishing the import", diags);
    /* The lock outlives the connection until the rename, so that no other import takes the
     * finished file for an abandoned one. */
    int lock = doc->lock_fd;
    doc->lock_fd = -1;
    al_doc_close(doc);
    char wal[4300];
    snprintf(wal, sizeof wal, "%s-wal", temp);
    struct stat st_wal;
    if (st == AL_OK && stat(wal, &st_wal) == 0 && st_wal.st_size > 0) {
        file_error(diags, temp, AL_N_("could not be finished (its log was not written back)"));
        st = AL_ERR_IO;
    }
    if (st == AL_OK && rename_no_replace(temp, path) != 0) {
        int e = errno;
        if (e == EEXIST) {
            file_error(diags, path,
                       AL_N_("exists already; a new map is never written over a file"));
            st = AL_ERR_EXISTS;
        } else {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "%s: cannot be created: %s", path, strerror(e));
            st = AL_ERR_IO;
        }
    }
    if (st == AL_OK)
        sync_folder(dir);
    else
        remove_with_side_files(temp);
    if (lock >= 0) close(lock);
    return st;
}

/* --- export --------------------------------------------------------------------------- */

static bool add_property(al_map_entity *e, int *capacity, const char *key, const char *value)
{
    if (e->property_count == *capacity) {
        *capacity = *capacity ? *capacity * 2 : 8;
        al_map_property *p = realloc(e->properties, (size_t) *capacity * sizeof *p);
        if (!p) return false;
        e->properties = p;
    }
    char *k = strdup(key), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return false;
    }
    e->properties[e->property_count++] = (al_map_property){k, v};
    return true;
}

/* The light of DOC's materials that differ from a new material of their name (colour,
 * reflectance or emission) as world keys of WORLD (material-keys.h), in name order. False
 * if memory runs out. */
static bool export_material_keys(al_doc *doc, al_map_entity *world, int *capacity)
{
    al_doc_material *list = NULL;
    int count = 0;
    if (al_doc_list_materials(doc, &list, &count) != AL_OK) return false;
    bool ok = true;
    for (int i = 0; i < count && ok; i++) {
        const al_doc_material *m = &list[i];
        float rgb[3];
        al_material_default_colour(m->name, rgb);
        bool differs = m->reflectance >= 0;
        al_material_light ml = {.has_colour = true, .reflectance = m->reflectance};
        for (int k = 0; k < 3; k++) {
            differs |= m->colour[k] != (double) rgb[k] || m->emission[k] != 0;
            ml.colour[k] = m->colour[k];
            ml.emission[k] = m->emission[k];
        }
        char key[300], value[256];
        snprintf(key, sizeof key, "%s%s", AL_MATERIAL_KEY_PREFIX, m->name);
        /* A key the import kept (it was bad) stays as it was. */
        if (!differs || al_map_entity_value(world, key)) continue;
        al_material_key_format(&ml, value, sizeof value);
        ok = add_property(world, capacity, key, value);
    }
    al_doc_materials_free(list, count);
    return ok;
}

/* What a copy takes (NULL: the whole map): the brushes and entities selected, ascending;
 * the entities that some selected brush belongs to, ascending. */
typedef struct export_filter {
    const int64_t *brushes, *entities, *partial;
    int brush_count, entity_count, partial_count;
} export_filter;

static int compare_ids(const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

static bool has_id(const int64_t *ids, int count, int64_t id)
{
    return count > 0 && bsearch(&id, ids, (size_t) count, sizeof id, compare_ids) != NULL;
}

/* Whether the export takes entity ID: all of it (a whole entity selected; the world never
 * is) or some of its brushes. */
static bool takes_entity(const export_filter *f, int64_t id)
{
    return !f || (id != 0 && has_id(f->entities, f->entity_count, id)) ||
           has_id(f->partial, f->partial_count, id);
}

static bool takes_brush(const export_filter *f, int64_t brush, int64_t entity)
{
    return !f || (entity != 0 && has_id(f->entities, f->entity_count, entity)) ||
           has_id(f->brushes, f->brush_count, brush);
}

/* DOC, or the part FILTER takes, as a parsed map. The world of a part carries its class
 * alone: its keys and the map's settings are the map's, not the part's. */
static al_status export_rows(al_doc *doc, const export_filter *filter, al_map **out,
                             al_diag_list *diags)
{
    *out = NULL;
    al_map *map = calloc(1, sizeof *map);
    if (!map) return AL_ERR_NOMEM;
    if (al_doc_exec(doc, "BEGIN") != SQLITE_OK) {
        free(map);
        return AL_ERR_LOCKED;
    }
    al_status status = AL_OK;
    sqlite3_stmt *st = NULL;
    int entities = al_doc_count(doc, "entities");
    map->entities = calloc((size_t) (entities > 0 ? entities : 1), sizeof *map->entities);
    int64_t *ids = calloc((size_t) (entities > 0 ? entities : 1), sizeof *ids);
    if (!map->entities || !ids) {
        status = AL_ERR_NOMEM;
        goto done;
    }
    sqlite3_prepare_v2(doc->db,
                       "SELECT id, classname, properties FROM entities ORDER BY id != 0, position, id",
                       -1, &st, NULL);
    while (sqlite3_step(st) == SQLITE_ROW && map->entity_count < entities) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (!takes_entity(filter, id)) continue;
        al_map_entity *e = &map->entities[map->entity_count];
        ids[map->entity_count++] = id;
        int capacity = 0;
        if (!add_property(e, &capacity, "classname", (const char *) sqlite3_column_text(st, 1)))
            status = AL_ERR_NOMEM;
        if (filter && id == 0) continue;
        cJSON *root = cJSON_Parse((const char *) sqlite3_column_text(st, 2));
        for (cJSON *item = root ? root->child : NULL; item && status == AL_OK; item = item->next)
            if (cJSON_IsString(item) && !add_property(e, &capacity, item->string, item->valuestring))
                status = AL_ERR_NOMEM;
        cJSON_Delete(root);
        if (!filter && map->entity_count == 1 && status == AL_OK) {
            /* Settings that differ from the defaults travel as worldspawn keys. */
            al_doc_input in;
            if (al_doc_build_input(doc, &in, NULL) == AL_OK) {
                if (!is_default_hulls(in.input.hulls, in.input.hull_count)) {
                    char list[2048] = "";
                    size_t n = 0;
                    for (int h = 0; h < in.input.hull_count && n < sizeof list; h++) {
                        const al_hull_desc *d = &in.input.hulls[h];
                        n += (size_t) snprintf(list + n, sizeof list - n,
                                               "%s%s %.17g %.17g %.17g %.17g %.17g %.17g",
                                               h ? "; " : "", d->name, d->mins[0], d->mins[1],
                                               d->mins[2], d->maxs[0], d->maxs[1], d->maxs[2]);
                    }
                    add_property(e, &capacity, "allium_hulls", list);
                }
                if (in.input.block_size != 0 && in.input.block_size != AL_DEFAULT_BLOCK_SIZE) {
                    char v[64];
                    snprintf(v, sizeof v, "%.17g", in.input.block_size);
                    add_property(e, &capacity, "allium_block_size", v);
                }
                al_doc_input_free(&in);
            }
            if (!export_material_keys(doc, e, &capacity)) status = AL_ERR_NOMEM;
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    /* Brushes and faces in order. */
    sqlite3_prepare_v2(doc->db,
                       "SELECT b.id, b.entity, b.position, f.x0, f.y0, f.z0, f.x1, f.y1, f.z1, "
                       "f.x2, f.y2, f.z2, m.name, f.valve, f.ux, f.uy, f.uz, f.uoff, f.vx, f.vy, "
                       "f.vz, f.voff, f.offx, f.offy, f.rotation, f.scalex, f.scaley, f.surface, "
                       "f.points_text FROM brushes b JOIN entities e ON e.id = b.entity "
                       "JOIN faces f ON f.brush = b.id JOIN materials m ON m.id = f.material "
                       "ORDER BY e.id != 0, e.position, e.id, b.position, b.id, f.position",
                       -1, &st, NULL);
    int entity_index = 0;
    int64_t last_brush = -1;
    al_map_brush *brush = NULL;
    int brush_capacity = 0, face_capacity = 0;
    while (status == AL_OK && sqlite3_step(st) == SQLITE_ROW) {
        int64_t bid = sqlite3_column_int64(st, 0), eid = sqlite3_column_int64(st, 1);
        if (!takes_brush(filter, bid, eid)) continue;
        while (entity_index < map->entity_count && ids[entity_index] != eid) {
            entity_index++;
            brush_capacity = 0;
            last_brush = -1;
        }
        if (entity_index == map->entity_count) break;
        al_map_entity *e = &map->entities[entity_index];
        if (bid != last_brush) {
            if (e->brush_count == brush_capacity) {
                brush_capacity = brush_capacity ? brush_capacity * 2 : 8;
                al_map_brush *b = realloc(e->brushes, (size_t) brush_capacity * sizeof *b);
                if (!b) {
                    status = AL_ERR_NOMEM;
                    break;
                }
                e->brushes = b;
            }
            brush = &e->brushes[e->brush_count];
            memset(brush, 0, sizeof *brush);
            brush->index = e->brush_count++;
            brush->line = -1;
            face_capacity = 0;
            last_brush = bid;
        }
        if (brush->face_count == face_capacity) {
            face_capacity = face_capacity ? face_capacity * 2 : 8;
            al_map_face *f = realloc(brush->faces, (size_t) face_capacity * sizeof *f);
            if (!f) {
                status = AL_ERR_NOMEM;
                break;
            }
            brush->faces = f;
        }
        al_map_face *f = &brush->faces[brush->face_count++];
        memset(f, 0, sizeof *f);
        int c = 3;
        for (int i = 0; i < 9; i++) f->points[i / 3][i % 3] = sqlite3_column_double(st, c++);
        f->material = strdup((const char *) sqlite3_column_text(st, c++));
        f->valve = sqlite3_column_int(st, c++);
        for (int k = 0; k < 3; k++) f->u_axis[k] = sqlite3_column_double(st, c++);
        f->u_offset = sqlite3_column_double(st, c++);
        for (int k = 0; k < 3; k++) f->v_axis[k] = sqlite3_column_double(st, c++);
        f->v_offset = sqlite3_column_double(st, c++);
        f->offset[0] = sqlite3_column_double(st, c++);
        f->offset[1] = sqlite3_column_double(st, c++);
        f->rotation = sqlite3_column_double(st, c++);
        f->scale[0] = sqlite3_column_double(st, c++);
        f->scale[1] = sqlite3_column_double(st, c++);
        const char *surface = (const char *) sqlite3_column_text(st, c++);
        if (surface && sscanf(surface, "%d %d %d", &f->flags[0], &f->flags[1], &f->flags[2]) == 3)
            f->has_flags = true;
        const char *points_text = (const char *) sqlite3_column_text(st, c++);
        if (points_text && !(f->points_text = strdup(points_text))) status = AL_ERR_NOMEM;
        f->line = f->column = -1;
        if (!f->material) status = AL_ERR_NOMEM;
    }
done:
    if (st) sqlite3_finalize(st);
    al_doc_exec(doc, "COMMIT");
    free(ids);
    if (status != AL_OK) {
        al_map_destroy(map);
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_LIMIT, -1, -1, -1, -1, -1,
                    "exporting the map: %s", al_status_message(status));
        return status;
    }
    *out = map;
    return AL_OK;
}

al_status al_doc_export_map(al_doc *doc, al_map **out, al_diag_list *diags)
{
    return export_rows(doc, NULL, out, diags);
}

/* The sorted copy of COUNT IDS, into *OUT (malloc'd; NULL for none). */
static bool sorted_ids(const int64_t *ids, int count, int64_t **out)
{
    *out = NULL;
    if (count <= 0) return true;
    *out = malloc((size_t) count * sizeof **out);
    if (!*out) return false;
    memcpy(*out, ids, (size_t) count * sizeof **out);
    qsort(*out, (size_t) count, sizeof **out, compare_ids);
    return true;
}

al_status al_doc_export_selection(al_doc *doc, const int64_t *brushes, int brush_count,
                                  const int64_t *entities, int entity_count, al_map **out,
                                  al_diag_list *diags)
{
    static const char *owner_sql = "SELECT entity FROM brushes WHERE id = ?";
    *out = NULL;
    export_filter f = {.brush_count = brush_count, .entity_count = entity_count};
    int64_t *b = NULL, *e = NULL, *partial = NULL;
    al_status status = AL_OK;
    if (!sorted_ids(brushes, brush_count, &b) || !sorted_ids(entities, entity_count, &e) ||
        (brush_count > 0 && !(partial = malloc((size_t) brush_count * sizeof *partial)))) {
        status = AL_ERR_NOMEM;
        goto done;
    }
    for (int i = 0; i < brush_count; i++) {
        sqlite3_stmt *st = al_doc_prepare(doc, owner_sql);
        if (!st) {
            status = AL_ERR_IO;
            goto done;
        }
        sqlite3_bind_int64(st, 1, brushes[i]);
        bool found = sqlite3_step(st) == SQLITE_ROW;
        if (found) partial[f.partial_count++] = sqlite3_column_int64(st, 0);
        sqlite3_reset(st);
        if (!found) {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_INVALID_BRUSH, -1, -1, -1, -1, -1,
                        "brush %lld does not exist", (long long) brushes[i]);
            status = AL_ERR_NOT_FOUND;
            goto done;
        }
    }
    if (partial) qsort(partial, (size_t) f.partial_count, sizeof *partial, compare_ids);
    f.brushes = b, f.entities = e, f.partial = partial;
    status = export_rows(doc, &f, out, diags);
done:
    free(b);
    free(e);
    free(partial);
    return status;
}

/* --- paste ------------------------------------------------------------------------------ */

/* The grid step nearest to X (X itself for no grid). */
static double snap_to_grid(double x, double grid)
{
    return grid > 0 ? round(x / grid) * grid : x;
}

static bool read_origin(const al_map_entity *e, double origin[3])
{
    const char *text = al_map_entity_value(e, "origin");
    return text && sscanf(text, "%lf %lf %lf", &origin[0], &origin[1], &origin[2]) == 3 &&
           isfinite(origin[0]) && isfinite(origin[1]) && isfinite(origin[2]);
}

/* Adds the entities and brushes of MAP as they are, noting the new rows in R. */
static al_status paste_rows(al_doc *doc, const al_map *map, al_doc_paste_result *r,
                            int64_t *entity_rows, al_diag_list *diags)
{
    al_status st = AL_OK;
    for (int e = 0; e < map->entity_count && st == AL_OK; e++) {
        const al_map_entity *me = &map->entities[e];
        const char *cls = al_map_entity_value(me, "classname");
        int64_t entity = 0;
        entity_rows[e] = -1;
        if (!cls || !cls[0]) {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_ENTITY, e, -1, -1, me->line, -1,
                        "the entity has no \"classname\"");
            return AL_ERR_INVALID_ARGUMENT;
        }
        if (strcmp(cls, "worldspawn") != 0) {
            char *props = properties_json(me, false);
            if (!props) return AL_ERR_NOMEM;
            st = al_doc_add_entity(doc, cls, props, &entity, NULL, diags);
            free(props);
            if (st != AL_OK) {
                al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_ENTITY, e, -1, -1, me->line, -1,
                            "the entity of class \"%s\" cannot be added", cls);
                return st;
            }
            entity_rows[e] = entity;
            if (me->brush_count == 0) r->entities[r->entity_count++] = entity;
        }
        for (int b = 0; b < me->brush_count && st == AL_OK; b++) {
            const al_map_brush *mb = &me->brushes[b];
            al_doc_face *faces = calloc((size_t) mb->face_count, sizeof *faces);
            char (*flags)[64] = calloc((size_t) mb->face_count, sizeof *flags);
            if (!faces || !flags) {
                free(faces);
                free(flags);
                return AL_ERR_NOMEM;
            }
            for (int f = 0; f < mb->face_count; f++)
                face_from_map(&mb->faces[f], &faces[f], flags[f]);
            int64_t id = 0;
            st = al_doc_add_brush(doc, entity, faces, mb->face_count, &id, NULL, diags);
            free(faces);
            free(flags);
            if (st != AL_OK)
                al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_INVALID_BRUSH, e, mb->index, -1,
                            mb->line, -1, "the brush cannot be added");
            else
                r->brushes[r->brush_count++] = id;
        }
    }
    return st;
}

/* The centre of the bounds of what was pasted: the new brushes' stored bounds and the
 * entities' origins. False when nothing has a place. */
static bool pasted_centre(al_doc *doc, const al_map *map, const al_doc_paste_result *r,
                          double centre[3])
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < r->brush_count; i++) {
        double mins[3], maxs[3];
        if (!al_doc_brush_box(doc, r->brushes[i], mins, maxs)) continue;
        for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], mins[k]), hi[k] = fmax(hi[k], maxs[k]);
    }
    for (int e = 0; e < map->entity_count; e++) {
        double o[3];
        if (!read_origin(&map->entities[e], o)) continue;
        for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], o[k]), hi[k] = fmax(hi[k], o[k]);
    }
    if (!(lo[0] <= hi[0])) return false;
    for (int k = 0; k < 3; k++) centre[k] = (lo[k] + hi[k]) / 2;
    return true;
}

/* Moves what was pasted by DELTA: brushes with their textures, origins rewritten. */
static al_status move_pasted(al_doc *doc, const al_map *map, const al_doc_paste_result *r,
                             const int64_t *entity_rows, const double delta[3], al_diag_list *diags)
{
    double m[3][4] = {{1, 0, 0, delta[0]}, {0, 1, 0, delta[1]}, {0, 0, 1, delta[2]}};
    al_status st = AL_OK;
    if (r->brush_count > 0)
        st = al_doc_transform_brushes_locked(doc, r->brushes, r->brush_count,
                                             (const double (*)[4]) m, NULL, NULL);
    for (int e = 0; e < map->entity_count && st == AL_OK; e++) {
        double o[3];
        if (entity_rows[e] < 0 || !read_origin(&map->entities[e], o)) continue;
        char value[3 * 32 + 3], n[3][32];
        for (int k = 0; k < 3; k++) al_format_number(o[k] + delta[k], n[k]);
        snprintf(value, sizeof value, "%s %s %s", n[0], n[1], n[2]);
        st = al_doc_set_property(doc, entity_rows[e], "origin", value, NULL, diags);
    }
    return st;
}

al_status al_doc_paste_map(al_doc *doc, const al_map *map, const al_doc_paste_place *place,
                           al_doc_paste_result *result, al_doc_change *change, al_diag_list *diags)
{
    memset(result, 0, sizeof *result);
    if (doc->read_only) return AL_ERR_READ_ONLY;
    int brushes = 0;
    for (int e = 0; e < map->entity_count; e++) brushes += map->entities[e].brush_count;
    result->brushes = malloc((size_t) (brushes + 1) * sizeof *result->brushes);
    result->entities = malloc((size_t) (map->entity_count + 1) * sizeof *result->entities);
    int64_t *entity_rows = malloc((size_t) (map->entity_count + 1) * sizeof *entity_rows);
    if (!result->brushes || !result->entities || !entity_rows) {
        free(entity_rows);
        al_doc_paste_result_free(result);
        return AL_ERR_NOMEM;
    }
    al_status st = al_doc_begin_group(doc, "Paste");
    if (st == AL_OK) st = paste_rows(doc, map, result, entity_rows, diags);
    double centre[3];
    if (st == AL_OK && place && pasted_centre(doc, map, result, centre)) {
        double delta[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++)
            if (place->axes[k]) delta[k] = snap_to_grid(place->point[k] - centre[k], place->grid);
        for (int k = 0; k < 3; k++) result->delta[k] = delta[k];
        if (delta[0] != 0 || delta[1] != 0 || delta[2] != 0)
            st = move_pasted(doc, map, result, entity_rows, delta, diags);
    }
    free(entity_rows);
    if (st == AL_OK)
        st = al_doc_end_group(doc, change);
    else
        al_doc_cancel_group(doc);
    if (st != AL_OK) al_doc_paste_result_free(result);
    return st;
}

void al_doc_paste_result_free(al_doc_paste_result *result)
{
    if (!result) return;
    free(result->brushes);
    free(result->entities);
    memset(result, 0, sizeof *result);
}

al_status al_doc_copy_text(al_doc *doc, const int64_t *brushes, int brush_count,
                           const int64_t *entities, int entity_count, char **text, size_t *length,
                           al_diag_list *diags)
{
    *text = NULL;
    *length = 0;
    al_map *map = NULL;
    al_status st =
        al_doc_export_selection(doc, brushes, brush_count, entities, entity_count, &map, diags);
    if (st != AL_OK) return st;
    bool valve = false;
    for (int e = 0; e < map->entity_count && !valve; e++)
        for (int b = 0; b < map->entities[e].brush_count && !valve; b++)
            for (int f = 0; f < map->entities[e].brushes[b].face_count && !valve; f++)
                valve = map->entities[e].brushes[b].faces[f].valve;
    bool ok = al_map_write_fragment(map, valve, text, length);
    al_map_destroy(map);
    return ok ? AL_OK : AL_ERR_NOMEM;
}
