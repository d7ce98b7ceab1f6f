/* Loading maps for the command-line tools (see load.h). */
#include "load.h"

#include "al-clock.h"
#include "layers/layer-tree.h"
#include "settings/hull-spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int al_tool_parse_option(int argc, char **argv, int *i, al_tool_options *options)
{
    const char *arg = argv[*i];
    const char *value = NULL;
    size_t len = strcspn(arg, "=");
    bool inline_value = arg[len] == '=';
#define IS(name) (strncmp(arg, name, len) == 0 && strlen(name) == len)
    if (!IS("--hull") && !IS("--block-size") && !IS("--threads") && !IS("--split-candidates") &&
        !IS("--split-balance") && !IS("--pvs"))
        return 0;
    if (inline_value) {
        value = arg + len + 1;
    } else {
        if (*i + 1 >= argc) {
            fprintf(stderr, "error: %s needs a value\n", arg);
            return -1;
        }
        value = argv[*i + 1];
    }
    /* "--hull stand" (a bare name) selects a hull in allium-bench; only a definition with
     * numbers is ours. */
    if (IS("--hull") && !strpbrk(value, "=, \t")) return 0;
    *i += inline_value ? 1 : 2;
    if (IS("--hull")) {
        al_hull_desc h;
        char error[200];
        if (!al_hull_spec_parse(value, &h, error, sizeof error)) {
            fprintf(stderr, "error: --hull %s: %s\n", value, error);
            return -1;
        }
        bool is_point = h.mins[0] == 0 && h.mins[1] == 0 && h.mins[2] == 0 && h.maxs[0] == 0 &&
                        h.maxs[1] == 0 && h.maxs[2] == 0;
        if (options->hull_count == 0 && !is_point) {
            /* Hull 0 is always the point hull, which rendering and visibility use. */
            memset(&options->hulls[0], 0, sizeof options->hulls[0]);
            strcpy(options->hulls[0].name, "point");
            options->hull_count = 1;
        }
        if (options->hull_count == AL_MAX_HULLS) {
            fprintf(stderr, "error: at most %d hulls\n", AL_MAX_HULLS);
            return -1;
        }
        options->hulls[options->hull_count++] = h;
    } else if (IS("--block-size")) {
        char *end;
        options->block_size = strtod(value, &end);
        if (end == value || *end || !(options->block_size >= 64 && options->block_size <= 65536)) {
            fprintf(stderr, "error: --block-size %s: expected a number of units from 64 to 65536\n",
                    value);
            return -1;
        }
    } else if (IS("--pvs")) {
        if (strcmp(value, "tight") == 0)
            options->pvs = AL_PVS_TIGHT;
        else if (strcmp(value, "coarse") == 0)
            options->pvs = AL_PVS_COARSE;
        else if (strcmp(value, "none") == 0)
            options->pvs = AL_PVS_NONE;
        else {
            fprintf(stderr, "error: --pvs %s: expected tight, coarse or none\n", value);
            return -1;
        }
    } else if (IS("--split-balance")) {
        char *end;
        options->split_balance = strtod(value, &end);
        if (end == value || *end || !(options->split_balance > 0 && options->split_balance <= 1)) {
            fprintf(stderr, "error: --split-balance %s: expected a ratio in (0, 1]\n", value);
            return -1;
        }
    } else if (IS("--split-candidates")) {
        char *end;
        long t = strtol(value, &end, 10);
        if (end == value || *end || t < 1 || t > 1000000) {
            fprintf(stderr, "error: --split-candidates %s: expected a positive count\n", value);
            return -1;
        }
        options->split_candidates = (int) t;
    } else {
        char *end;
        long t = strtol(value, &end, 10);
        if (end == value || *end || t < 1 || t > 64) {
            fprintf(stderr, "error: --threads %s: expected 1 to 64\n", value);
            return -1;
        }
        options->threads = (int) t;
    }
#undef IS
    return 1;
}

void al_tool_print_diags(const char *path, const al_diag_list *list, FILE *to)
{
    for (size_t i = 0; i < list->count; i++) {
        const al_diag *d = &list->items[i];
        char where[64] = "";
        if (d->line > 0 && d->column > 0) snprintf(where, sizeof where, "%d:%d:", d->line, d->column);
        else if (d->line > 0) snprintf(where, sizeof where, "%d:", d->line);
        char who[96] = "";
        size_t n = 0;
        if (d->entity >= 0) n += (size_t) snprintf(who + n, sizeof who - n, "entity %d, ", d->entity);
        if (d->brush >= 0 && n < sizeof who)
            n += (size_t) snprintf(who + n, sizeof who - n, "brush %d, ", d->brush);
        if (d->face >= 0 && n < sizeof who)
            n += (size_t) snprintf(who + n, sizeof who - n, "face %d, ", d->face);
        if (n >= 2 && n < sizeof who) who[n - 2] = '\0';
        fprintf(to, "%s:%s %s: %s%s%s\n", path, where, al_severity_name(d->severity), who,
                who[0] ? ": " : "", d->message);
    }
}

bool al_tool_is_document(const char *path)
{
    /* By its name too, so that an empty or damaged document is reported as one rather
     * than read as an empty .map (the editor's rule, allium_path_is_document). */
    size_t n = strlen(path);
    if (n >= 7 && strcmp(path + n - 7, ".allium") == 0) return true;
    char head[16] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    return got == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

/* Opens a document for writing (its cache can then be updated) or, if another program has
 * it open for writing or it is read-only, for reading. */
static bool open_document(al_tool_map *out)
{
    al_status st = al_doc_open(out->path, AL_DOC_READ_WRITE, &out->doc, &out->diags);
    if (st == AL_ERR_LOCKED || st == AL_ERR_READ_ONLY) {
        al_diag_list_clear(&out->diags);
        out->cache = st == AL_ERR_LOCKED ? "not updated: the map is open for writing elsewhere"
                                         : "not updated: the map is read-only";
        st = al_doc_open(out->path, AL_DOC_READ_ONLY, &out->doc, &out->diags);
    }
    if (st != AL_OK) {
        al_tool_print_diags(out->path, &out->diags, stderr);
        return false;
    }
    st = al_doc_build_input(out->doc, &out->doc_input, &out->diags);
    if (st != AL_OK) {
        al_tool_print_diags(out->path, &out->diags, stderr);
        fprintf(stderr, "%s: %s\n", out->path, al_status_message(st));
        return false;
    }
    out->input = out->doc_input.input;
    return true;
}

bool al_tool_load(const char *path, const al_tool_options *options, al_tool_map *out)
{
    memset(out, 0, sizeof *out);
    out->path = path;
    uint64_t t0 = al_clock_ns();
    if (al_tool_is_document(path)) {
        if (!open_document(out)) {
            al_tool_map_free(out);
            return false;
        }
    } else {
        al_status st = al_map_read_file(path, &out->map, &out->diags);
        if (st != AL_OK) {
            al_tool_print_diags(path, &out->diags, stderr);
            if (st == AL_ERR_NOMEM) fprintf(stderr, "%s: out of memory\n", path);
            al_tool_map_free(out);
            return false;
        }
        /* Layers omitted from export are not compiled, as qbsp leaves them out. */
        st = al_map_omit_layers(out->map, NULL, &out->diags);
        if (st == AL_OK) st = al_map_input_build(out->map, &out->map_input, &out->diags);
        if (st != AL_OK) {
            fprintf(stderr, "%s: %s\n", path, al_status_message(st));
            al_tool_map_free(out);
            return false;
        }
        out->input = out->map_input.input;
        out->skipped_brushes = out->map->brushes_skipped;
    }
    if (options->hull_count > 0) {
        out->input.hulls = options->hulls;
        out->input.hull_count = options->hull_count;
    }
    if (options->block_size > 0) out->input.block_size = options->block_size;
    out->ms_read = al_clock_ms_since(t0);
    return true;
}

void al_tool_map_free(al_tool_map *m)
{
    if (!m) return;
    al_map_input_free(&m->map_input);
    al_map_destroy(m->map);
    al_doc_input_free(&m->doc_input);
    al_doc_close(m->doc);
    al_diag_list_clear(&m->diags);
    memset(m, 0, sizeof *m);
}

/* The compile stored for M's input, or NULL (M->cache then says why). */
static al_world *from_cache(al_tool_map *m, const char *key)
{
    uint64_t t0 = al_clock_ns();
    void *data = NULL;
    size_t size = 0;
    al_status st = al_doc_cache_get(m->doc, key, &data, &size);
    if (st != AL_OK) {
        if (!m->cache) m->cache = st == AL_ERR_NOT_FOUND ? "miss" : "unreadable";
        return NULL;
    }
    al_world *w = NULL;
    al_diag_list why = {0};
    st = al_world_load(data, size, &w, &why);
    free(data);
    if (st != AL_OK) {
        /* A damaged entry is compiled anew (and replaced), with a word about it. */
        al_tool_print_diags(m->path, &why, stderr);
        al_diag_list_clear(&why);
        if (!m->cache) m->cache = "damaged entry replaced";
        return NULL;
    }
    m->cache = "hit";
    m->cache_bytes = size;
    m->ms_cache = al_clock_ms_since(t0);
    return w;
}

static void to_cache(al_tool_map *m, const al_world *w, const char *key)
{
    if (al_doc_read_only(m->doc)) return; /* m->cache says why */
    uint64_t t0 = al_clock_ns();
    void *data = NULL;
    size_t size = 0;
    if (al_world_save(w, &data, &size) == AL_OK &&
        al_doc_cache_put(m->doc, key, "world", data, size) == AL_OK) {
        if (!m->cache || strcmp(m->cache, "miss") == 0) m->cache = "stored";
        m->cache_bytes = size;
    } else {
        m->cache = "not stored: writing the map failed";
    }
    free(data);
    m->ms_cache = al_clock_ms_since(t0);
}

al_world *al_tool_compile(al_tool_map *m, const al_tool_options *options)
{
    al_compile_options co = {.threads = options->threads,
                             .split_candidates = options->split_candidates,
                             .split_balance = options->split_balance,
                             .pvs = options->pvs};
    char key[33] = "";
    bool cached = m->doc && options->use_cache;
    if (cached) {
        /* The options that change the result; thread count does not. */
        char salt[64];
        snprintf(salt, sizeof salt, "split %d %.17g", co.split_candidates, co.split_balance);
        al_input_key(&m->input, salt, key);
        al_world *w = from_cache(m, key);
        /* The cache holds the trees; visibility is rebuilt from them (the PVS rows are not
         * cached yet). */
        if (w && al_world_build_vis(w, &m->input, co.pvs, co.threads) != AL_OK) {
            fprintf(stderr, "%s: out of memory building visibility\n", m->path);
            al_world_destroy(w);
            return NULL;
        }
        if (w) return w;
    }
    al_world *w = NULL;
    al_diag_list errors = {0};
    al_status st = al_world_compile(&m->input, &co, &w, &errors);
    if (st != AL_OK) {
        al_tool_print_diags(m->path, &errors, stderr);
        fprintf(stderr, "%s: compile failed: %s\n", m->path, al_status_message(st));
    }
    al_diag_list_clear(&errors);
    if (w && cached) to_cache(m, w, key);
    return w;
}

void al_tool_remove_document(const char *path)
{
    char side[4200];
    unlink(path);
    snprintf(side, sizeof side, "%.4000s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%.4000s-shm", path);
    unlink(side);
}

long al_tool_peak_rss_kb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    return ru.ru_maxrss;
}
