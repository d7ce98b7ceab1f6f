/* allium-compile: compile a map and print a report; import .map files into map documents
 * and export documents as .map files.
 *
 *   allium-compile [options] MAP            compile MAP (.map or .allium) and report
 *   allium-compile -o OUT.allium IN.map     import IN into a new document, then compile it
 *   allium-compile -o OUT.map [--format valve|standard] IN.allium    export
 *   allium-compile --bsp OUT.bsp [--bsp-format bsp29|bsp2] [--palette FILE] MAP
 *                                        compile, write a Quake BSP (WAD3 textures turned
 *                                        into the palette FILE: Quake's gfx/palette.lmp)
 *   allium-compile --runtime OUT.alw MAP   compile and light, write the runtime world (the
 *                                          portable format games load with liballium-runtime)
 *
 * Options: --hull NAME=minx,miny,minz,maxx,maxy,maxz (repeatable), --block-size N,
 * --threads N, --json, --no-cache; radiosity: --rad-residual EPS (default 0.01: shoot
 * until the unshot light is 1% of the emitted), --rad-time SECONDS (a budget; default
 * none), --luxel UNITS (the lightmap texel; default the map's, or 16), --extra N (N x N
 * direct light samples per luxel, 1 to 4; default the map's "allium_extra_samples", or
 * 1), --no-rad;
 * textures: --texture-path DIR (repeatable: folders where the worldspawn "wad" key's WADs
 * are looked for, after the map's own folder; the materials nobody gave a colour reflect
 * their textures' average colours); entities: --defs FILE (repeatable: FGD or
 * DEF entity definitions, read in order, later ones replacing classes of the same name;
 * default: the bundled Quake definitions, then the files the map's worldspawn names in
 * "_tb_def" "external:PATH" and "allium_defs" "PATH;PATH") against which the map's
 * entities are checked
 * (classes and keys no definition names, targets no entity names: warnings).
 *
 * A document's compile is stored in the document, keyed by a content hash of everything
 * the compiler reads; compiling an unchanged document again loads it (the report says
 * "taken from the map's cache" and how long that took). So is the radiosity state a run
 * ends in: the next run on the same input goes on from it (stages.rad.cache says "hit").
 *
 * Exit status: 0 when the map compiled (invalid brushes are reported, not fatal, and so
 * are definitions that could not be read), 1 when a file could not be read, written or
 * compiled, 2 for a usage error.
 */
#include "al-rad.h"
#include "al-runtime.h"
#include "al-clock.h"
#include "load.h"
#include "mapfile/map-write.h"
#include "mapfile/texture.h"
#include "report.h"
#include "store/map-doc.h"
#include "textures/sources.h"
#include "al-entity-keys.h"
#include "entdefs/entdefs.h"
#include "export/bsp.h"
#include "layers/layer-tree.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage(FILE *to)
{
    fprintf(to, "usage: allium-compile [--hull NAME=minx,miny,minz,maxx,maxy,maxz ...] "
                "[--block-size N] [--threads N] [--json] [--no-cache]\n"
                "                      [--rad-residual EPS] [--rad-time SECONDS] [--luxel UNITS] "
                "[--no-rad] [--texture-path DIR ...]\n"
                "                      [--defs FILE ...]\n"
                "                      [--bsp OUT.bsp [--bsp-format bsp29|bsp2] [--palette FILE]] "
                "[--runtime OUT.alw] MAP\n"
                "       allium-compile -o OUT.allium IN.map     (import, then compile)\n"
                "       allium-compile -o OUT.map [--format valve|standard] IN.allium  (export)\n");
    return to == stdout ? 0 : 2;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* Imports the .map IN into a new document OUT (made complete beside OUT, then renamed:
 * a failed or killed import leaves no OUT). */
static bool import(const char *in, const char *out)
{
    uint64_t t0 = al_clock_ns();
    al_map *map = NULL;
    al_diag_list diags = {0};
    al_status st = al_map_read_file(in, &map, &diags);
    al_tool_print_diags(in, &diags, stderr);
    al_diag_list_clear(&diags);
    if (st != AL_OK) return false;
    st = al_doc_import_new(out, map, &diags);
    al_tool_print_diags(in, &diags, stderr); /* a problem with OUT names it */
    al_diag_list_clear(&diags);
    int brushes = 0;
    for (int e = 0; e < map->entity_count; e++) brushes += map->entities[e].brush_count;
    if (st == AL_OK)
        fprintf(stderr, "%s: imported %s: %d entities, %d brushes in %.0f ms\n", out, in,
                map->entity_count, brushes, al_clock_ms_since(t0));
    else
        fprintf(stderr, "%s: import failed: %s\n", out, al_status_message(st));
    al_map_destroy(map);
    return st == AL_OK;
}

/* Exports the document IN as the .map OUT (written to a temporary file, then renamed, so
 * that a failure leaves any older OUT untouched). */
static bool export(const char *in, const char *out, const char *format)
{
    al_diag_list diags = {0};
    al_doc *doc = NULL;
    al_status st = al_doc_open(in, AL_DOC_READ_ONLY, &doc, &diags);
    al_map *map = NULL;
    if (st == AL_OK) st = al_doc_export_map(doc, &map, &diags);
    al_tool_print_diags(in, &diags, stderr);
    al_diag_list_clear(&diags);
    al_doc_close(doc);
    if (st != AL_OK) return false;
    bool valve = false;
    if (format) {
        valve = strcmp(format, "valve") == 0;
    } else {
        /* The dialect the map's faces were written in (Valve 220 if any face was). */
        for (int e = 0; e < map->entity_count && !valve; e++)
            for (int b = 0; b < map->entities[e].brush_count && !valve; b++)
                valve = map->entities[e].brushes[b].face_count > 0 &&
                        map->entities[e].brushes[b].faces[0].valve;
    }
    if (!valve) {
        /* Standard parameters project on an axial plane; say what they cannot hold. */
        int approximated = 0;
        for (int e = 0; e < map->entity_count; e++)
            for (int b = 0; b < map->entities[e].brush_count; b++)
                for (int f = 0; f < map->entities[e].brushes[b].face_count; f++) {
                    const al_map_face *face = &map->entities[e].brushes[b].faces[f];
                    double off[2], rot, sc[2];
                    approximated += face->valve && !al_texture_to_standard(face, off, &rot, sc);
                }
        if (approximated)
            fprintf(stderr,
                    "%s: warning: %d faces have texture axes the standard format cannot "
                    "express; their textures are approximated (--format valve keeps them)\n",
                    out, approximated);
    }
    char *text = NULL;
    size_t length = 0;
    bool ok = al_map_write(map, valve, &text, &length);
    al_map_destroy(map);
    if (!ok) {
        fprintf(stderr, "%s: out of memory while writing\n", out);
        return false;
    }
    char temp[4200];
    snprintf(temp, sizeof temp, "%s.writing", out);
    FILE *f = fopen(temp, "wb");
    ok = f && fwrite(text, 1, length, f) == length;
    ok = f && fflush(f) == 0 && fsync(fileno(f)) == 0 && ok;
    if (f && fclose(f) != 0) ok = false;
    if (ok && rename(temp, out) != 0) ok = false;
    if (!ok) {
        perror(out);
        unlink(temp);
    }
    free(text);
    return ok;
}

typedef struct rad_args {
    bool off;
    double residual, seconds, luxel;
    int extra; /* al_rad_options.extra_samples: 0, the map's */
} rad_args;

typedef struct rad_result {
    bool ran;
    al_rad_stats stats;
    al_rad_stop stop;
    double ms;
    const char *cache;     /* documents: "hit", "miss", "refused", or NULL (not used) */
    int64_t cached_shots;  /* the shots the cached state had made */
    bool stored;           /* the state it ended in went into the cache */
} rad_result;

/* A document's cached radiosity state for M's input under OPTIONS and RA: put back into
 * RAD if there is one for these very patches. */
static void light_from_cache(al_tool_map *m, al_rad *rad, const char *key, rad_result *out)
{
    void *data = NULL;
    size_t size = 0;
    out->cache = "miss";
    if (al_doc_cache_get(m->doc, key, &data, &size) != AL_OK) return;
    if (al_rad_restore(rad, data, size) == AL_OK) {
        al_rad_stats st;
        al_rad_get_stats(rad, &st);
        out->cache = "hit";
        out->cached_shots = st.shots;
    } else {
        out->cache = "refused";
    }
    free(data);
}

/* Lights the compiled map; diagnostics about lights join the map's. With KEEP, the solver
 * is handed over there (the caller destroys it) rather than destroyed. A document's cache
 * gives the state the last run ended in (the editor's too, which uses the same key), and
 * keeps the state this one ends in. False if it could not (out of memory, a bad luxel
 * size). */
static bool light(al_tool_map *m, const al_world *w, const rad_args *ra,
                  const al_tool_options *options, rad_result *out, al_rad **keep)
{
    memset(out, 0, sizeof *out);
    if (ra->off) return true;
    uint64_t t0 = al_clock_ns();
    al_rad *rad = NULL;
    al_diag_list diags = {0};
    al_rad_options o = {
        .luxel_size = ra->luxel, .extra_samples = ra->extra, .threads = options->threads};
    al_status st = al_rad_create(w, &m->input, &o, &rad, &diags);
    al_diag_append(&m->diags, &diags);
    al_diag_list_clear(&diags);
    if (st != AL_OK) {
        fprintf(stderr, "%s: radiosity failed: %s\n", m->path, al_status_message(st));
        return false;
    }
    char key[33] = "";
    if (m->doc && options->use_cache) {
        char salt[128];
        int n = snprintf(salt, sizeof salt, "split %d %.17g light luxel %.17g",
                         options->split_candidates, options->split_balance, ra->luxel);
        /* Only a sampling the option sets is salted: the map key is in the input. */
        if (ra->extra > 0 && n > 0 && (size_t) n < sizeof salt)
            snprintf(salt + n, sizeof salt - (size_t) n, " extra %d", ra->extra);
        al_input_key(&m->input, salt, key);
        light_from_cache(m, rad, key, out);
    }
    out->stop = al_rad_run(rad, ra->residual, ra->seconds, NULL, NULL);
    al_rad_get_stats(rad, &out->stats);
    if (key[0] && !al_doc_read_only(m->doc) &&
        (strcmp(out->cache, "hit") != 0 || out->stats.shots != out->cached_shots)) {
        void *data = NULL;
        size_t size = 0;
        out->stored = al_rad_save(rad, &data, &size) == AL_OK &&
                      al_doc_cache_put(m->doc, key, "light", data, size) == AL_OK;
        free(data);
    }
    if (keep)
        *keep = rad;
    else
        al_rad_destroy(rad);
    out->ms = al_clock_ms_since(t0);
    out->ran = true;
    return true;
}

static void rad_json(cJSON *root, const rad_result *r)
{
    cJSON *stages = cJSON_GetObjectItem(root, "stages");
    if (!stages || !r->ran) return;
    cJSON *o = cJSON_AddObjectToObject(stages, "rad");
    cJSON_AddNumberToObject(o, "ms", r->ms);
    cJSON_AddNumberToObject(o, "shooting_ms", r->stats.ms);
    cJSON_AddNumberToObject(o, "patches", r->stats.patches);
    cJSON_AddNumberToObject(o, "shooters", r->stats.shooters);
    cJSON_AddNumberToObject(o, "lights", r->stats.lights);
    cJSON_AddNumberToObject(o, "shots", (double) r->stats.shots);
    cJSON_AddNumberToObject(o, "residual", r->stats.residual);
    cJSON_AddNumberToObject(o, "rays", (double) r->stats.rays);
    cJSON_AddStringToObject(o, "stopped", r->stop == AL_RAD_STOP_TIME ? "time" : "residual");
    if (r->cache) {
        cJSON_AddStringToObject(o, "cache", r->cache);
        cJSON_AddNumberToObject(o, "cached_shots", (double) r->cached_shots);
        cJSON_AddBoolToObject(o, "stored", r->stored);
    }
}

static bool parse_number(const char *flag, const char *v, double lo, double hi, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (*end || !isfinite(x) || x < lo || x > hi) {
        fprintf(stderr, "error: %s %s: expected a number from %g to %g\n", flag, v, lo, hi);
        return false;
    }
    *out = x;
    return true;
}

/* Opens the WADs of M's worldspawn "wad" key (beside the map, then in the SEARCH folders)
 * into OUT and gives the materials nobody chose a colour for their textures' average
 * colours (al_texture_sources_colour_materials), before the compile and the light. Missing
 * and damaged WADs are named on standard error. False if memory runs out. */
static bool open_textures(al_tool_map *m, const char *const *search, int search_count,
                          al_texture_sources *out)
{
    const char *key =
        m->input.entity_count > 0 ? al_entity_value(&m->input.entities[0], "wad") : NULL;
    char *folder = strdup(m->path);
    if (!folder) return false;
    char *slash = strrchr(folder, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(folder, ".");
    al_diag_list diags = {0};
    al_status st = al_texture_sources_open(out, key, folder, search, search_count, NULL, &diags);
    free(folder);
    al_tool_print_diags(m->path, &diags, stderr);
    al_diag_list_clear(&diags);
    if (st != AL_OK) return false;
    /* The input's materials are the tool's own copy (al_tool_load). */
    al_texture_sources_colour_materials(out, (al_material_desc *) m->input.materials,
                                        m->input.material_count);
    return true;
}

typedef struct bsp_args {
    const char *path; /* --bsp, or NULL */
    al_bsp_format format;
    const char *palette_path; /* --palette, or NULL */
    uint8_t palette[768];     /* read from it */
} bsp_args;

/* Reads Quake's palette (768 bytes: 256 RGB triples, gfx/palette.lmp) from BA's
 * --palette file into BA; false, with the file and why on stderr, when it cannot. */
static bool read_palette(bsp_args *ba)
{
    FILE *f = fopen(ba->palette_path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot be read: %s\n", ba->palette_path, strerror(errno));
        return false;
    }
    size_t n = fread(ba->palette, 1, sizeof ba->palette, f);
    bool longer = fgetc(f) != EOF;
    fclose(f);
    if (n != sizeof ba->palette || longer) {
        fprintf(stderr, "%s: not a palette: %s 768 bytes (256 RGB colours, as gfx/palette.lmp)\n",
                ba->palette_path, longer ? "more than" : "fewer than");
        return false;
    }
    return true;
}

/* Writes M (compiled into W, lit by RAD unless --no-rad) as the Quake BSP BA->path. The
 * exporter reads the texture axes from a parsed .map: a document is exported as one and
 * that is compiled and lit as RA says (its input is in the .map's order, which the exporter
 * needs). On success *COUNTS says what was written. Prints errors; false on failure. */
static bool export_bsp(al_tool_map *m, const al_world *w, al_rad *rad, const rad_args *ra,
                       const al_tool_options *options, const bsp_args *ba,
                       const char *const *search, int search_count, al_bsp_counts *counts)
{
    al_map *exported = NULL;
    al_map_input mi = {0};
    al_world *own = NULL;
    al_rad *own_rad = NULL;
    al_diag_list diags = {0};
    const al_map *map = m->map;
    const al_input *input = &m->input;
    al_status st = AL_OK;
    if (!map) {
        st = al_doc_export_map(m->doc, &exported, &diags);
        if (st == AL_OK) st = al_map_omit_layers(exported, NULL, &diags);
        if (st == AL_OK) st = al_map_input_build(exported, &mi, &diags);
        if (st == AL_OK) {
            if (options->hull_count > 0) {
                mi.input.hulls = options->hulls;
                mi.input.hull_count = options->hull_count;
            }
            if (options->block_size > 0) mi.input.block_size = options->block_size;
            al_compile_options co = {.threads = options->threads, .pvs = options->pvs};
            st = al_world_compile(&mi.input, &co, &own, NULL);
        }
        map = exported;
        input = &mi.input;
        w = own;
        /* The light of this compile, lit as the report's was. */
        rad = NULL;
        if (st == AL_OK && !ra->off) {
            al_rad_options ro = {
                .luxel_size = ra->luxel, .extra_samples = ra->extra, .threads = options->threads};
            st = al_rad_create(own, input, &ro, &own_rad, &diags);
            if (st == AL_OK) al_rad_run(own_rad, ra->residual, ra->seconds, NULL, NULL);
            rad = own_rad;
        }
    }
    al_rad_lightmap lightmap = {0};
    if (st == AL_OK && rad) st = al_rad_snapshot(rad, &lightmap);
    al_texture_sources sources = {0};
    bool have_textures = st == AL_OK && open_textures(m, search, search_count, &sources);
    if (st == AL_OK) {
        al_bsp_source src = {.map = map,
                             .input = input,
                             .world = w,
                             .textures = have_textures ? &sources : NULL,
                             .rad = rad,
                             .lightmap = rad ? &lightmap : NULL,
                             .palette = ba->palette_path ? ba->palette : NULL};
        st = al_bsp_write(&src, ba->format, ba->path, counts, &diags);
    }
    al_tool_print_diags(m->path, &diags, stderr);
    if (st != AL_OK) fprintf(stderr, "%s: no BSP written: %s\n", ba->path, al_status_message(st));
    al_diag_list_clear(&diags);
    if (have_textures) al_texture_sources_close(&sources);
    al_rad_lightmap_free(&lightmap);
    al_rad_destroy(own_rad);
    al_world_destroy(own);
    al_map_input_free(&mi);
    al_map_destroy(exported);
    return st == AL_OK;
}

/* Writes W (compiled from M's input, lit by RAD unless that is NULL) as the runtime world
 * PATH; its size into *BYTES. Prints errors; false on failure. */
static bool export_runtime(const al_tool_map *m, const al_world *w, al_rad *rad, const char *path,
                           size_t *bytes)
{
    al_rad_lightmap lightmap = {0};
    al_status st = rad ? al_rad_snapshot(rad, &lightmap) : AL_OK;
    al_runtime_source src = {w, &m->input, rad, rad ? &lightmap : NULL};
    if (st == AL_OK) st = al_runtime_write_file(&src, path);
    al_rad_lightmap_free(&lightmap);
    if (st != AL_OK) {
        fprintf(stderr, "%s: no runtime world written: %s\n", path, al_status_message(st));
        return false;
    }
    FILE *f = fopen(path, "rb");
    *bytes = 0;
    if (f && fseek(f, 0, SEEK_END) == 0) *bytes = (size_t) ftell(f);
    if (f) fclose(f);
    return true;
}

static cJSON *bsp_json(const bsp_args *ba, const al_bsp_counts *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "path", ba->path);
    cJSON_AddStringToObject(o, "format", al_bsp_format_name(c->format));
    cJSON_AddNumberToObject(o, "bytes", (double) c->file_bytes);
    cJSON_AddNumberToObject(o, "models", c->models);
    cJSON_AddNumberToObject(o, "planes", c->planes);
    cJSON_AddNumberToObject(o, "nodes", c->nodes);
    cJSON_AddNumberToObject(o, "leafs", c->leafs);
    cJSON_AddNumberToObject(o, "clipnodes", c->clipnodes);
    cJSON_AddNumberToObject(o, "faces", c->faces);
    cJSON_AddNumberToObject(o, "texinfo", c->texinfo);
    cJSON_AddNumberToObject(o, "vertexes", c->vertexes);
    cJSON_AddNumberToObject(o, "edges", c->edges);
    cJSON_AddNumberToObject(o, "surfedges", c->surfedges);
    cJSON_AddNumberToObject(o, "marksurfaces", c->marksurfaces);
    cJSON_AddNumberToObject(o, "miptex", c->miptex);
    cJSON_AddNumberToObject(o, "miptex_missing", c->miptex_missing);
    cJSON_AddNumberToObject(o, "entities_bytes", (double) c->entities_bytes);
    cJSON_AddNumberToObject(o, "visibility_bytes", (double) c->visibility_bytes);
    cJSON_AddNumberToObject(o, "lighting_bytes", (double) c->lighting_bytes);
    return o;
}

/* The "materials" part of the report: how many of the materials M's faces use were found
 * in SOURCES, which were not, and where the WADs are. NULL if memory runs out. */
static cJSON *textures_json(al_tool_map *m, const al_texture_sources *sources)
{
    bool *used = calloc((size_t) m->input.material_count + 1, sizeof *used);
    cJSON *out = cJSON_CreateObject(), *missing = cJSON_CreateArray(), *paths = cJSON_CreateArray();
    int found = 0, lost = 0;
    if (used && out && missing && paths) {
        for (int f = 0; f < m->input.face_count; f++) {
            int k = m->input.faces[f].material;
            if (k >= 0 && k < m->input.material_count) used[k] = true;
        }
        for (int k = 0; k < m->input.material_count; k++) {
            if (!used[k]) continue;
            if (al_texture_sources_find(sources, m->input.materials[k].name, NULL)) {
                found++;
            } else {
                lost++;
                cJSON_AddItemToArray(missing, cJSON_CreateString(m->input.materials[k].name));
            }
        }
        for (int i = 0; i < sources->count; i++)
            cJSON_AddItemToArray(paths, cJSON_CreateString(sources->paths[i]));
        cJSON_AddNumberToObject(out, "textures_found", found);
        cJSON_AddNumberToObject(out, "textures_missing", lost);
        cJSON_AddItemToObject(out, "missing", missing);
        cJSON_AddItemToObject(out, "sources", paths);
    } else {
        cJSON_Delete(out);
        cJSON_Delete(missing);
        cJSON_Delete(paths);
        out = NULL;
    }
    free(used);
    return out;
}

/* Prints the definitions' diagnostics DIAGS as "file:line:column: severity: message"
 * (their messages start with the file's name: one of SET's files, or of PATHS). */
static void print_defs_diags(const al_entdefs *set, const char *const *paths, int count,
                             const al_diag_list *diags, FILE *to)
{
    for (size_t i = 0; i < diags->count; i++) {
        const al_diag *d = &diags->items[i];
        const char *file = "", *text = d->message;
        for (int f = 0; f < set->file_count + count; f++) {
            const char *name = f < set->file_count ? set->files[f] : paths[f - set->file_count];
            size_t n = strlen(name);
            if (strncmp(d->message, name, n) == 0 && strncmp(d->message + n, ": ", 2) == 0) {
                file = name;
                text = d->message + n + 2;
            }
        }
        char where[48] = "";
        if (d->line > 0 && d->column > 0)
            snprintf(where, sizeof where, ":%d:%d", d->line, d->column);
        else if (d->line > 0)
            snprintf(where, sizeof where, ":%d", d->line);
        fprintf(to, "%s%s: %s: %s\n", file, where, al_severity_name(d->severity), text);
    }
}

/* Reads the entity definitions (PATHS; when there are none, the bundled file and the files
 * the map's worldspawn names) and checks M's entities against them: the warnings join M's
 * diagnostics. Returns the report's entity_definitions object, or NULL if a file could not
 * be read (named on standard error) or memory ran out. */
static cJSON *entity_definitions_json(al_tool_map *m, const char *const *given, int given_count)
{
    char *named[16];
    int named_count = 0;
    if (given_count == 0 && m->input.entity_count > 0) {
        char *folder = strdup(m->path);
        char *slash = folder ? strrchr(folder, '/') : NULL;
        if (slash) *slash = '\0';
        named_count =
            folder ? al_entdefs_map_files(&m->input.entities[0], slash ? folder : ".", named, 16)
                   : -1;
        free(folder);
        if (named_count < 0) {
            fprintf(stderr, "%s: out of memory while reading the entity definitions\n", m->path);
            return NULL;
        }
    }
    const char *const *paths = given_count ? given : (const char *const *) named;
    int count = given_count ? given_count : named_count;
    al_entdefs set = {0};
    al_diag_list diags = {0};
    al_status st = given_count ? AL_OK : al_entdefs_load_bundled(&set, &diags);
    for (int i = 0; i < count && st == AL_OK; i++) st = al_entdefs_load(&set, paths[i], &diags);
    print_defs_diags(&set, paths, count, &diags, stderr);
    size_t errors = al_diag_count(&diags, AL_SEVERITY_ERROR);
    al_diag_list_clear(&diags);
    al_entdefs_check check = {0};
    if (st == AL_OK) st = al_entdefs_check_input(&set, &m->input, &check, &m->diags);
    cJSON *out = st == AL_OK ? cJSON_CreateObject() : NULL;
    if (out) {
        cJSON *files = cJSON_AddArrayToObject(out, "files");
        for (int i = 0; i < set.file_count; i++)
            cJSON_AddItemToArray(files, cJSON_CreateString(set.files[i]));
        int classes = 0;
        for (int i = 0; i < set.class_count; i++) classes += set.classes[i].kind != AL_ENTDEF_BASE;
        cJSON_AddNumberToObject(out, "classes", classes);
        cJSON_AddNumberToObject(out, "base_classes", set.class_count - classes);
        cJSON_AddNumberToObject(out, "errors", (double) errors);
        cJSON *unknown = cJSON_AddArrayToObject(out, "unknown_classes");
        for (int i = 0; i < check.class_count; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "classname", check.classes[i].classname);
            cJSON_AddNumberToObject(o, "count", check.classes[i].count);
            cJSON_AddNumberToObject(o, "first_entity", check.classes[i].first_entity);
            cJSON_AddItemToArray(unknown, o);
        }
        cJSON *keys = cJSON_AddArrayToObject(out, "unknown_keys");
        for (int i = 0; i < check.key_count; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "classname", check.keys[i].classname);
            cJSON_AddStringToObject(o, "key", check.keys[i].key);
            cJSON_AddNumberToObject(o, "count", check.keys[i].count);
            cJSON_AddNumberToObject(o, "first_entity", check.keys[i].first_entity);
            cJSON_AddItemToArray(keys, o);
        }
        cJSON_AddNumberToObject(out, "missing_targets", check.missing_targets);
    } else if (st == AL_ERR_NOMEM) {
        fprintf(stderr, "%s: out of memory while reading the entity definitions\n", m->path);
    }
    al_entdefs_check_clear(&check);
    al_entdefs_clear(&set);
    for (int i = 0; i < named_count; i++) free(named[i]);
    return out;
}

int main(int argc, char **argv)
{
    al_tool_options options = {.use_cache = true};
    const char *texture_paths[64], *defs_paths[64];
    int texture_path_count = 0, defs_path_count = 0;
    rad_args ra = {.residual = 0.01};
    bool json = false;
    const char *path = NULL, *output = NULL, *format = NULL;
    bsp_args ba = {NULL, AL_BSP29, NULL, {0}};
    const char *runtime_path = NULL; /* --runtime */
    for (int i = 1; i < argc;) {
        int used = al_tool_parse_option(argc, argv, &i, &options);
        if (used < 0) return 2;
        if (used) continue;
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--texture-path") == 0 && i + 1 < argc) {
            if (texture_path_count == 64) {
                fprintf(stderr, "error: at most 64 --texture-path folders\n");
                return 2;
            }
            texture_paths[texture_path_count++] = argv[++i];
        } else if (strcmp(argv[i], "--defs") == 0 && i + 1 < argc) {
            if (defs_path_count == 64) {
                fprintf(stderr, "error: at most 64 --defs files\n");
                return 2;
            }
            defs_paths[defs_path_count++] = argv[++i];
        } else if (strcmp(argv[i], "--runtime") == 0 && i + 1 < argc) {
            runtime_path = argv[++i];
        } else if (strcmp(argv[i], "--bsp") == 0 && i + 1 < argc) {
            ba.path = argv[++i];
        } else if (strcmp(argv[i], "--bsp-format") == 0 && i + 1 < argc) {
            if (!al_bsp_format_parse(argv[++i], &ba.format)) {
                fprintf(stderr, "error: --bsp-format %s: expected bsp29 or bsp2\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--palette") == 0 && i + 1 < argc) {
            ba.palette_path = argv[++i];
        } else if (strcmp(argv[i], "--no-cache") == 0) {
            options.use_cache = false;
        } else if (strcmp(argv[i], "--no-rad") == 0) {
            ra.off = true;
        } else if (strcmp(argv[i], "--rad-residual") == 0 && i + 1 < argc) {
            if (!parse_number(argv[i], argv[i + 1], 0, 1, &ra.residual)) return 2;
            i++;
        } else if (strcmp(argv[i], "--rad-time") == 0 && i + 1 < argc) {
            if (!parse_number(argv[i], argv[i + 1], 0, 1e9, &ra.seconds)) return 2;
            i++;
        } else if (strcmp(argv[i], "--luxel") == 0 && i + 1 < argc) {
            if (!parse_number(argv[i], argv[i + 1], 1, 1024, &ra.luxel)) return 2;
            i++;
        } else if (strcmp(argv[i], "--extra") == 0 && i + 1 < argc) {
            double n;
            if (!parse_number(argv[i], argv[i + 1], 1, 4, &n)) return 2;
            if (n != floor(n)) {
                fprintf(stderr, "error: --extra %s: expected a whole number from 1 to 4\n",
                        argv[i + 1]);
                return 2;
            }
            ra.extra = (int) n;
            i++;
        } else if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--format") == 0) &&
                   i + 1 < argc) {
            if (argv[i][1] == 'o') output = argv[++i];
            else format = argv[++i];
            if (format && strcmp(format, "valve") != 0 && strcmp(format, "standard") != 0) {
                fprintf(stderr, "error: --format %s: expected valve or standard\n", format);
                return 2;
            }
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            return usage(stdout);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "error: unknown option %s\n", argv[i]);
            return usage(stderr);
        } else if (path) {
            fprintf(stderr, "error: only one map at a time\n");
            return usage(stderr);
        } else {
            path = argv[i];
        }
        i++;
    }
    if (!path) return usage(stderr);
    if (ba.palette_path && !read_palette(&ba)) return 1;
    if ((ba.path || runtime_path) && output) {
        fprintf(stderr, "error: --bsp and --runtime cannot be used with -o\n");
        return 2;
    }

    if (output) {
        bool document_in = al_tool_is_document(path);
        if (ends_with(output, ".map")) {
            if (!document_in) {
                fprintf(stderr, "error: %s is not a map document; -o OUT.map exports a .allium\n",
                        path);
                return 2;
            }
            return export(path, output, format) ? 0 : 1;
        }
        if (document_in) {
            fprintf(stderr, "error: %s is a map document already; -o OUT.allium imports a .map\n",
                    path);
            return 2;
        }
        if (!import(path, output)) return 1;
        path = output; /* and compile the new document, storing the result in it */
    }

    al_tool_map m;
    if (!al_tool_load(path, &options, &m)) return 1;
    al_texture_sources sources;
    if (!open_textures(&m, texture_paths, texture_path_count, &sources)) {
        fprintf(stderr, "error: out of memory opening the textures\n");
        al_tool_map_free(&m);
        return 1;
    }
    al_world *w = al_tool_compile(&m, &options);
    if (!w) {
        al_texture_sources_close(&sources);
        al_tool_map_free(&m);
        return 1;
    }
    rad_result rr;
    al_rad *rad = NULL; /* kept for a BSP of this very compile (a .map's) */
    bool keep_rad = (ba.path && m.map) || runtime_path;
    if (!light(&m, w, &ra, &options, &rr, keep_rad ? &rad : NULL)) {
        al_texture_sources_close(&sources);
        al_world_destroy(w);
        al_tool_map_free(&m);
        return 1;
    }
    al_bsp_counts bc;
    bool exported = !ba.path || export_bsp(&m, w, rad, &ra, &options, &ba, texture_paths,
                                           texture_path_count, &bc);
    size_t runtime_bytes = 0;
    if (exported && runtime_path)
        exported = export_runtime(&m, w, rad, runtime_path, &runtime_bytes);
    al_rad_destroy(rad);
    if (!exported) {
        al_texture_sources_close(&sources);
        al_world_destroy(w);
        al_tool_map_free(&m);
        return 1;
    }
    cJSON *textures = textures_json(&m, &sources);
    al_texture_sources_close(&sources);
    cJSON *defs = entity_definitions_json(&m, defs_paths, defs_path_count);
    if (!defs) {
        cJSON_Delete(textures);
        al_world_destroy(w);
        al_tool_map_free(&m);
        return 1;
    }
    if (json) {
        al_world_stats s;
        al_world_get_stats(w, &s);
        cJSON *report = al_report_json(&m, w, &s);
        if (report) rad_json(report, &rr);
        if (report && ba.path) cJSON_AddItemToObject(report, "bsp", bsp_json(&ba, &bc));
        cJSON *rt = report && runtime_path ? cJSON_AddObjectToObject(report, "runtime") : NULL;
        if (rt) {
            cJSON_AddStringToObject(rt, "path", runtime_path);
            cJSON_AddNumberToObject(rt, "bytes", (double) runtime_bytes);
        }
        if (report && textures)
            cJSON_AddItemToObject(report, "materials", textures);
        else
            cJSON_Delete(textures);
        if (report)
            cJSON_AddItemToObject(report, "entity_definitions", defs);
        else
            cJSON_Delete(defs);
        if (!al_report_print(report, stdout)) {
            fprintf(stderr, "error: out of memory while writing the report\n");
            al_world_destroy(w);
            al_tool_map_free(&m);
            return 1;
        }
    } else {
        al_report_text(&m, w, stdout);
        if (textures) {
            const cJSON *wads = cJSON_GetObjectItem(textures, "sources");
            printf("  textures: %d found, %d missing, in %d wads\n",
                   cJSON_GetObjectItem(textures, "textures_found")->valueint,
                   cJSON_GetObjectItem(textures, "textures_missing")->valueint,
                   cJSON_GetArraySize(wads));
            cJSON_Delete(textures);
        }
        printf("  entity definitions: %d classes from %d files; %d unknown classes, %d "
               "unknown keys, %d targets that no entity names\n",
               cJSON_GetObjectItem(defs, "classes")->valueint,
               cJSON_GetArraySize(cJSON_GetObjectItem(defs, "files")),
               cJSON_GetArraySize(cJSON_GetObjectItem(defs, "unknown_classes")),
               cJSON_GetArraySize(cJSON_GetObjectItem(defs, "unknown_keys")),
               cJSON_GetObjectItem(defs, "missing_targets")->valueint);
        cJSON_Delete(defs);
        if (rr.ran)
            printf("  radiosity: %d patches, %d lights, %lld shots, residual %.2f%% in %.0f ms%s\n",
                   rr.stats.patches, rr.stats.lights, (long long) rr.stats.shots,
                   rr.stats.residual * 100, rr.ms,
                   rr.stop == AL_RAD_STOP_TIME ? " (time budget reached)" : "");
        if (runtime_path) printf("  runtime world: %s, %zu bytes\n", runtime_path, runtime_bytes);
        if (ba.path)
            printf("  bsp: %s (%s), %zu bytes: %d models, %d nodes, %d leafs, %d clipnodes, "
                   "%d faces, %d textures (%d checkers), %zu bytes of visibility, %zu of "
                   "lighting\n",
                   ba.path, al_bsp_format_name(bc.format), bc.file_bytes, bc.models, bc.nodes,
                   bc.leafs, bc.clipnodes, bc.faces, bc.miptex, bc.miptex_missing,
                   bc.visibility_bytes, bc.lighting_bytes);
    }
    al_world_destroy(w);
    al_tool_map_free(&m);
    return 0;
}
