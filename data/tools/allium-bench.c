/* allium-bench: benchmarks and oracles on any map; each subcommand prints one JSON object.
 *
 *   allium-bench compile MAP [--runs 5] [options]
 *       the report of allium-compile --json, every stage's ms the median of the runs
 *   allium-bench trace MAP [--hull stand] [--length 64] [--count 1000000] [options]
 *       {median_ns, traces_per_s, oracle_checked, oracle_mismatches}: traces from random
 *       empty points in random directions, timed in batches of 1000 (median over batches);
 *       every 100th trace is also checked against the brute-force sweep; reference_ns is
 *       the same traces by Quake's hull check on the hull's own map tree, timed alike in
 *       the same run (compare the two, not either with a figure from another day);
 *       open_fraction is the share of traces the world's open cells answer without a
 *       descent, open_median_ns and descending_median_ns the two kinds timed apart (each
 *       batch's traces again, sorted by kind, so with warm caches); runtime_ns the same
 *       traces by the runtime library (liballium-runtime) on this world exported in memory,
 *       timed alike, and runtime_mismatches the traces whose answer differs from the world's
 *   allium-bench verify MAP [--points 1000000] [--traces N] [--segments 1000000] [options]
 *       ... and the PVS against sampled lines of sight (--segments)
 *       every oracle on every hull, mismatch counts per oracle
 *   allium-bench classify MAP --hull NAME [options]
 *       reads "x y z" lines on stdin, prints 0 (empty) or 1 (solid) per line
 *   allium-bench light MAP [--direct [--style N]] [--luxel 16] [--extra N]
 *                          [--rad-residual 0.01] [options]
 *       reads "x y z nx ny nz" lines on stdin (points on faces, with the faces' normals)
 *       and prints "r g b" per line on Quake's lightmap scale: a byte per channel, half a
 *       light level (Quake's light writes level x 0.5, its -range, and clamps at 255), so
 *       a light 300 at 100 units straight above a floor gives (300 - 100) / 2 = 100 there.
 *       With --direct: the direct light at the point as Quake's light computes it at its
 *       samples (falloff, angle and cone at the point, a ray to each light, then the
 *       minimum light), before any reflected light (al_rad_direct_at); with --style N only
 *       what Quake's light writes into the lightmap of style N (0: the steady lights and
 *       the minimum light; 32 up: lights a trigger switches). Without: what the
 *       lightmap shows at the point's luxel once the solver has run to --rad-residual
 *       (al_rad_shown_at), or "- - -" for a point on no lit face
 *   allium-bench slice MAP --z HEIGHT [--scale UNITS] -o FILE.png [options]
 *       a picture of the horizontal slice at HEIGHT: for each pixel, which hulls fit there
 *       (an agent of that hull with its origin at the point), coloured by the largest
 *   allium-bench document MAP [--runs 5] [--count 300] [--scratch DIR]
 *       map documents: import of MAP (a .map) into a new document, open + building the
 *       compiler input, single-brush edits (move, resize, material; each one transaction
 *       with its commit), undo and redo; medians in ms. Edits are timed with
 *       synchronous = FULL (the documents' setting) and again with NORMAL, to show what
 *       durability costs. Documents are written in DIR (default: $TMPDIR or /var/tmp).
 *   allium-bench rad MAP [--luxel 16] [--extra N] [--runs 3] [--count 1000000]
 *                        [--rad-residual 0.01] [options]
 *       radiosity: {first_frame_ms (patches built and every light shot),
 *       ms_to_residual_10pct, ms_to_residual_1pct (from the start, patches included),
 *       mrays_per_s_per_thread (about --count of the occlusion rays the last run cast,
 *       in runs of 1,024 one worker cast in a row, spread over the solve when --runs is
 *       2 or more, cast again on one thread), random_pair_*
 *       (--count rays between random luxels that may see each other, on one thread:
 *       longer and less alike than the solver's), patches, ...}; times are medians of
 *       the runs
 *   allium-bench edit MAP [--edits 200] [--tight-edits 3] [--luxel 16] [--extra N]
 *                         [--rad-residual 0.1] [--leaks] [--no-light] [options]
 *       (--extra N: N x N direct light samples per luxel, al_rad_options.extra_samples,
 *       for light, rad and edit; default the map's "allium_extra_samples", or 1)
 *       live compilation (al-live.h): random single-brush moves, resizes, deletes and
 *       copies, each submitted to the engine and waited for (an edit that opens a leak is
 *       taken back and not counted, unless --leaks); for each stage the time from
 *       the submission to the snapshot that includes the edit, {median, p95}: bsp_ms
 *       (collision), portals_ms (portals, leak and the coarse PVS, one publication, so
 *       pvs_ms is the same figure), pvs_tight_ms (the portal flow, over --tight-edits
 *       further edits), blocks_rebuilt and subcells_rebuilt (collision sub-cells built,
 *       the rest copied); and whether the final world equals a full compile tree by tree.
 *       With --no-light the engine runs no light stage and the rad_ figures are left out
 *       (a large map's collision and portals, without minutes of light solves).
 *       The engine's light stage at --luxel, lit to --rad-residual before the first edit
 *       and after each (al_rad_update carries the light across): rad_first_ms (from the
 *       edit to the light snapshot, the first corrected frame: the portals world with
 *       the direct light corrected; with --extra above 1 the luxels whose light changed
 *       are lit once in it), rad_refined_ms (with --extra above 1, until those luxels
 *       were lit with every sample, over the rad_refined_edits edits that lit any so),
 *       rad_update_ms (the light stage's own work for it),
 *       rad_corrected_ms (until the bounced light is corrected too), rad_settled_ms (until
 *       the residual is back to --rad-residual), rad_corrections (panels corrected, and
 *       with --extra above 1 luxels refined),
 *       rad_new_solver_ms (for comparison, on the first five edits: a new solver's patches
 *       and direct light, what relighting without the update costs); and the final light
 *       and a new solve of the final map, both run on to 1% (rad_difference_residual):
 *       rad_difference_from_full (mean difference over the luxels, relative)
 *   allium-bench agents MAP [--count 1000] [--steps 600]
 *       a crowd walking between the map's point entities, one thread: {step_ms_median,
 *       step_ms_p95, us_per_agent, pairs_per_step, contacts_per_step, ...} (cmd_agents)
 *   allium-bench bsp MAP.map [--runs 5] [options]
 *       Quake BSP export (export/bsp.h) of MAP compiled with the tight PVS, no textures:
 *       {bsp29_ms, bsp2_ms (al_bsp_build, medians of the runs; bsp29_ms null for a map
 *       past BSP29's limits, named on standard error), trees_ms, faces_ms, visibility_ms
 *       (its stages in the BSP29 runs, or the BSP2 ones), bytes, nodes, leafs, clipnodes,
 *       faces, visibility_bytes, ...}
 *   allium-bench spheretree [--count 10000] [--steps 300] [--margin 16] [--seed N]
 *       the agents' broadphase (al-spheretree.h), no map: COUNT spheres of radius 20-40
 *       moving at 100-320 units/s in a 8192 x 8192 x 1024 box at 60 Hz, bouncing off its
 *       walls; per step the medians of update_ms (every sphere moved in the tree),
 *       pairs_ms (al_sphere_tree_pairs) and step_ms (both; also its mean: re-insertions come
 *       in waves), against brute_ms (every pair tested, on every 10th step up to 30, whose
 *       pairs must equal the tree's: pairs_equal_brute)
 *   allium-bench defs FILE [--runs 5]
 *       entity definitions (FGD or DEF, with its includes) read --runs times into a new
 *       set: {classes, base_classes, files, errors, warnings, ms_median, ms_min}
 * [options] are --hull NAME=minx,miny,minz,maxx,maxy,maxz, --block-size N, --threads N.
 */
#include "al-clock.h"
#include "al-epsilon.h"
#include "al-vec3.h"
#include "load.h"
#include "al-parallel.h"
#include "al-png.h"
#include "quake-trace.h"
#include "al-rad.h"
#include "al-runtime.h"
#include "allium-runtime.h"
#include "report.h"
#include "store/map-doc.h"
#include "al-live.h"
#include "al-agents.h"
#include "al-spheretree.h"
#include "al-entity-keys.h"
#include "al-edits.h"
#include "al-oracle.h"
#include "al-world-trees.h"
#include "entdefs/entdefs.h"
#include "export/bsp.h"

#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct args {
    const char *command;
    const char *path;
    al_tool_options options;
    const char *hull;
    double length;
    long long count;
    long long points;
    long long segments; /* verify: PVS segments */
    long long traces;
    int runs;
    unsigned long long seed;
    double z, scale;
    bool has_z;
    double luxel;
    int extra; /* --extra: direct light samples per luxel side; 0: the map's */
    const char *out;
    const char *scratch;
    int edits, tight_edits;
    double rad_residual; /* edit: the light's residual before the edits and at the end */
    bool leaks;
    bool no_light; /* edit: the collision and portals alone */
    bool direct; /* light: the direct light, not the lightmap */
    int style;   /* light --direct: the lightmap style, or AL_RAD_ALL_STYLES */
    bool residual_given;
    bool count_given;
    int steps;     /* spheretree, agents */
    bool steps_given;
    double margin; /* spheretree; < 0: the default */
} args;

static int usage(void)
{
    fprintf(stderr,
            "usage: allium-bench compile MAP [--runs N]\n"
            "       allium-bench trace MAP [--hull NAME] [--length UNITS] [--count N]\n"
            "       allium-bench verify MAP [--points N] [--traces N] [--segments N]\n"
            "       allium-bench classify MAP --hull NAME < points\n"
            "       allium-bench light MAP [--direct [--style N]] [--luxel UNITS]\n"
            "                              [--extra N] [--rad-residual R]\n"
            "                              < points-and-normals\n"
            "       allium-bench slice MAP --z HEIGHT [--scale UNITS] -o FILE.png\n"
            "       allium-bench document MAP.map [--runs N] [--count EDITS] [--scratch DIR]\n"
            "       allium-bench rad MAP [--luxel UNITS] [--extra N] [--runs N] [--count RAYS]\n"
            "                            [--rad-residual R]\n"
            "       allium-bench edit MAP [--edits N] [--tight-edits N] [--luxel UNITS]\n"
            "                             [--extra N] [--rad-residual R] [--leaks] [--no-light]\n"
            "       allium-bench bsp MAP.map [--runs N]\n"
            "       allium-bench spheretree [--count N] [--steps N] [--margin UNITS]\n"
            "       allium-bench agents MAP [--count N] [--steps N]\n"
            "       allium-bench defs FILE.fgd|FILE.def [--runs N]\n"
            "options for all: --hull NAME=minx,miny,minz,maxx,maxy,maxz (compiled hulls),\n"
            "                 --block-size N, --threads N, --seed N\n");
    return 2;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    if (n == 0) return 0;
    qsort(v, (size_t) n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->length = 64;
    a->count = 1000000;
    a->points = 1000000;
    a->segments = 1000000;
    a->traces = -1;
    a->runs = 5;
    a->seed = 1;
    a->edits = 200;
    a->tight_edits = 3;
    a->rad_residual = 0.1;
    a->steps = 300;
    a->margin = -1;
    a->style = AL_RAD_ALL_STYLES;
    if (argc < 2) return -1;
    a->command = argv[1];
    for (int i = 2; i < argc;) {
        int used = al_tool_parse_option(argc, argv, &i, &a->options);
        if (used < 0) return -1;
        if (used) continue;
        const char *arg = argv[i];
        if (strcmp(arg, "--leaks") == 0) {
            a->leaks = true;
            i++;
            continue;
        }
        if (strcmp(arg, "--no-light") == 0) {
            a->no_light = true;
            i++;
            continue;
        }
        if (strcmp(arg, "--direct") == 0) {
            a->direct = true;
            i++;
            continue;
        }
        if (arg[0] == '-' && arg[1]) {
            if (i + 1 >= argc) {
                fprintf(stderr, "error: %s needs a value\n", arg);
                return -1;
            }
            const char *v = argv[i + 1];
            char *end;
            if (strcmp(arg, "--hull-name") == 0 || (strcmp(arg, "--hull") == 0)) {
                a->hull = v;
            } else if (strcmp(arg, "--length") == 0) {
                a->length = strtod(v, &end);
                if (*end || !(a->length > 0)) goto bad;
            } else if (strcmp(arg, "--count") == 0) {
                a->count = strtoll(v, &end, 10);
                if (*end || a->count < 1) goto bad;
                a->count_given = true;
            } else if (strcmp(arg, "--steps") == 0) {
                a->steps = (int) strtol(v, &end, 10);
                a->steps_given = true;
                if (*end || a->steps < 1 || a->steps > 10000000) goto bad;
            } else if (strcmp(arg, "--margin") == 0) {
                a->margin = strtod(v, &end);
                if (*end || !(a->margin >= 0 && a->margin <= 1e6)) goto bad;
            } else if (strcmp(arg, "--points") == 0) {
                a->points = strtoll(v, &end, 10);
                if (*end || a->points < 0) goto bad;
            } else if (strcmp(arg, "--segments") == 0) {
                a->segments = strtoll(v, &end, 10);
                if (*end || a->segments < 0) goto bad;
            } else if (strcmp(arg, "--traces") == 0) {
                a->traces = strtoll(v, &end, 10);
                if (*end || a->traces < 0) goto bad;
            } else if (strcmp(arg, "--runs") == 0) {
                a->runs = (int) strtol(v, &end, 10);
                if (*end || a->runs < 1 || a->runs > 1000) goto bad;
            } else if (strcmp(arg, "--z") == 0) {
                a->z = strtod(v, &end);
                a->has_z = true;
                if (*end || !isfinite(a->z)) goto bad;
            } else if (strcmp(arg, "--scale") == 0) {
                a->scale = strtod(v, &end);
                if (*end || !(a->scale >= 0.05 && a->scale <= 1024)) goto bad;
            } else if (strcmp(arg, "--luxel") == 0) {
                a->luxel = strtod(v, &end);
                if (*end || !(a->luxel >= 1 && a->luxel <= 1024)) goto bad;
            } else if (strcmp(arg, "--extra") == 0) {
                long extra = strtol(v, &end, 10);
                if (*end || extra < 1 || extra > 4) goto bad;
                a->extra = (int) extra;
            } else if (strcmp(arg, "--edits") == 0) {
                a->edits = (int) strtol(v, &end, 10);
                if (*end || a->edits < 1 || a->edits > 1000000) goto bad;
            } else if (strcmp(arg, "--rad-residual") == 0) {
                a->rad_residual = strtod(v, &end);
                a->residual_given = true;
                if (*end || !(a->rad_residual > 0 && a->rad_residual <= 1)) goto bad;
            } else if (strcmp(arg, "--style") == 0) {
                long style = strtol(v, &end, 10);
                if (*end || style < 0 || style > 255) goto bad;
                a->style = (int) style;
            } else if (strcmp(arg, "--tight-edits") == 0) {
                a->tight_edits = (int) strtol(v, &end, 10);
                if (*end || a->tight_edits < 0 || a->tight_edits > 1000) goto bad;
            } else if (strcmp(arg, "-o") == 0) {
                a->out = v;
            } else if (strcmp(arg, "--scratch") == 0) {
                a->scratch = v;
            } else if (strcmp(arg, "--seed") == 0) {
                a->seed = strtoull(v, &end, 10);
                if (*end) goto bad;
            } else {
                fprintf(stderr, "error: unknown option %s\n", arg);
                return -1;
            }
            i += 2;
            continue;
        bad:
            fprintf(stderr, "error: bad value for %s: %s\n", arg, v);
            return -1;
        }
        if (a->path) {
            fprintf(stderr, "error: only one map at a time\n");
            return -1;
        }
        a->path = arg;
        i++;
    }
    if (!a->path && strcmp(a->command, "spheretree") != 0) return -1;
    if (a->traces < 0) a->traces = a->points / 10;
    return 0;
}

/* --hull is both "compile this hull" (NAME=...) and "use this hull" (NAME): the tool option
 * parser took the first form; a bare name lands in a->hull. */
static int resolve_hull(const al_world *w, const char *name)
{
    if (!name) return al_world_find_hull(w, "stand") >= 0 ? al_world_find_hull(w, "stand") : 0;
    int h = al_world_find_hull(w, name);
    if (h < 0) fprintf(stderr, "error: the map has no hull named \"%s\"\n", name);
    return h;
}

static int cmd_compile(const args *a)
{
    al_tool_map m;
    if (!al_tool_load(a->path, &a->options, &m)) return 1;
    double *brushes = calloc((size_t) a->runs, sizeof(double));
    double *expand = calloc((size_t) a->runs, sizeof(double));
    double *blocks = calloc((size_t) a->runs, sizeof(double));
    double *total = calloc((size_t) a->runs, sizeof(double));
    double *bsp = calloc((size_t) a->runs, sizeof(double));
    double *cpu[3];
    for (int k = 0; k < 3; k++) cpu[k] = calloc((size_t) a->runs, sizeof(double));
    al_world *last = NULL;
    al_world_stats s;
    for (int r = 0; r < a->runs; r++) {
        al_world_destroy(last);
        last = al_tool_compile(&m, &a->options);
        if (!last) {
            al_tool_map_free(&m);
            return 1;
        }
        al_world_get_stats(last, &s);
        brushes[r] = s.ms_brushes;
        expand[r] = s.ms_expand;
        blocks[r] = s.ms_blocks;
        total[r] = s.ms_total;
        bsp[r] = s.ms_expand + s.ms_blocks;
        cpu[0][r] = s.ms_csg_cpu;
        cpu[1][r] = s.ms_map_trees_cpu;
        cpu[2][r] = s.ms_onion_cpu;
    }
    s.ms_brushes = median(brushes, a->runs);
    s.ms_expand = median(expand, a->runs);
    s.ms_blocks = median(bsp, a->runs) - s.ms_expand;
    s.ms_total = median(total, a->runs);
    s.ms_csg_cpu = median(cpu[0], a->runs);
    s.ms_map_trees_cpu = median(cpu[1], a->runs);
    s.ms_onion_cpu = median(cpu[2], a->runs);
    cJSON *report = al_report_json(&m, last, &s);
    if (report) {
        cJSON_AddNumberToObject(report, "runs", a->runs);
        cJSON_AddNumberToObject(report, "threads", a->options.threads);
    }
    bool ok = al_report_print(report, stdout);
    al_world_destroy(last);
    al_tool_map_free(&m);
    free(brushes), free(expand), free(blocks), free(total), free(bsp);
    for (int k = 0; k < 3; k++) free(cpu[k]);
    return ok ? 0 : 1;
}

static int cmd_trace(const args *a)
{
    al_tool_map m;
    if (!al_tool_load(a->path, &a->options, &m)) return 1;
    al_world *w = al_tool_compile(&m, &a->options);
    if (!w) return 1;
    int hull = resolve_hull(w, a->hull);
    if (hull < 0) return 1;
    al_oracle *oracle = al_oracle_create(w);
    if (!oracle) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    const al_hull_desc *h = al_world_hull(w, hull);
    /* The same world as a game loads it, exported in memory (no light). */
    alrt_world *rt = NULL;
    void *rt_bytes = NULL;
    size_t rt_size = 0;
    al_runtime_source rt_src = {w, &m.input, NULL, NULL};
    if (al_runtime_write(&rt_src, &rt_bytes, &rt_size) != AL_OK ||
        alrt_load(rt_bytes, rt_size, &rt, NULL, 0) != ALRT_OK) {
        fprintf(stderr, "error: the runtime world could not be made\n");
        return 1;
    }
    free(rt_bytes);
    enum { BATCH = 1000 };
    long long batches = (a->count + BATCH - 1) / BATCH;
    /* Segments are generated first so the timed loop does nothing but trace. */
    double (*seg)[2][3] = malloc(BATCH * sizeof *seg);
    double *batch_ns = malloc((size_t) batches * sizeof *batch_ns);
    double *ref_ns = malloc((size_t) batches * sizeof *ref_ns);
    double *rt_ns = malloc((size_t) batches * sizeof *rt_ns);
    long long rt_mismatches = 0;
    double *kind_ns[2] = {malloc((size_t) batches * sizeof(double)),
                          malloc((size_t) batches * sizeof(double))};
    int kind_batches[2] = {0, 0};
    int(*order)[BATCH] = malloc(2 * sizeof *order);
    long long answered_open = 0;
    if (!seg || !batch_ns || !ref_ns || !rt_ns || !kind_ns[0] || !kind_ns[1] || !order) return 1;
    al_rng rng = {a->seed};
    long long checked = 0, mismatches = 0, done = 0;
    double total_ns = 0, sink = 0;
    for (long long b = 0; b < batches; b++) {
        int n = (int) (a->count - done < BATCH ? a->count - done : BATCH);
        for (int i = 0; i < n; i++) {
            double p[3];
            int tries = 0;
            do {
                al_verify_random_point(w, &rng, p);
            } while (al_world_point_solid(w, hull, p) && ++tries < 1000);
            double d[3];
            for (;;) {
                for (int k = 0; k < 3; k++) d[k] = 2 * al_rng_uniform(&rng) - 1;
                double l = al_length(d);
                if (l > 0.1 && l <= 1) {
                    al_scale(d, a->length / l, d);
                    break;
                }
            }
            al_copy(p, seg[i][0]);
            al_add(p, d, seg[i][1]);
        }
        uint64_t t0 = al_clock_ns();
        for (int i = 0; i < n; i++) {
            al_trace t;
            al_world_trace(w, hull, seg[i][0], seg[i][1], &t);
            sink += t.fraction;
        }
        uint64_t t1 = al_clock_ns();
        for (int i = 0; i < n; i++) sink += al_quake_trace(w, hull, seg[i][0], seg[i][1]);
        uint64_t t2 = al_clock_ns();
        for (int i = 0; i < n; i++) {
            alrt_hit r;
            alrt_trace(rt, hull, seg[i][0], seg[i][1], &r);
            sink += r.fraction;
        }
        uint64_t t3 = al_clock_ns();
        batch_ns[b] = (double) (t1 - t0) / n;
        ref_ns[b] = (double) (t2 - t1) / n;
        rt_ns[b] = (double) (t3 - t2) / n;
        for (int i = 0; i < n; i++) { /* untimed: the runtime answers as the world */
            al_trace t;
            alrt_hit r;
            al_world_trace(w, hull, seg[i][0], seg[i][1], &t);
            alrt_trace(rt, hull, seg[i][0], seg[i][1], &r);
            if (t.hit != (r.hit != 0) || t.fraction != r.fraction) rt_mismatches++;
        }
        /* The same traces again, those the open cells answer apart from those that descend
         * (caches now warm for these segments). */
        int kinds[2] = {0, 0};
        for (int i = 0; i < n; i++) {
            double lo[3], hi[3];
            for (int k = 0; k < 3; k++) {
                lo[k] = fmin(seg[i][0][k], seg[i][1][k]) - 1e-6;
                hi[k] = fmax(seg[i][0][k], seg[i][1][k]) + 1e-6;
            }
            int open = al_world_box_open(w, hull, lo, hi);
            order[open][kinds[open]++] = i;
        }
        answered_open += kinds[1];
        for (int kind = 0; kind < 2; kind++) {
            if (kinds[kind] == 0) continue;
            uint64_t k0 = al_clock_ns();
            for (int j = 0; j < kinds[kind]; j++) {
                al_trace t;
                al_world_trace(w, hull, seg[order[kind][j]][0], seg[order[kind][j]][1], &t);
                sink += t.fraction;
            }
            kind_ns[kind][kind_batches[kind]++] = (double) (al_clock_ns() - k0) / kinds[kind];
        }
        total_ns += (double) (t1 - t0);
        done += n;
        /* Oracle check of every 100th trace whose start is clear of surfaces. */
        for (int i = 0; i < n; i += 100) {
            if (al_oracle_point_margin(oracle, h->mins, h->maxs, seg[i][0]) <= AL_SURFACE_EPSILON)
                continue;
            al_trace t;
            al_world_trace(w, hull, seg[i][0], seg[i][1], &t);
            al_oracle_hit o;
            al_oracle_sweep(oracle, h->mins, h->maxs, seg[i][0], seg[i][1], &o);
            checked++;
            double ft = t.hit ? t.fraction : 1, fo = o.hit ? o.fraction : 1;
            if (t.start_solid || fabs(ft - fo) * a->length > 1e-3) mismatches++;
        }
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "input", a->path);
    cJSON_AddStringToObject(r, "hull", h->name);
    cJSON_AddNumberToObject(r, "length", a->length);
    cJSON_AddNumberToObject(r, "count", (double) done);
    cJSON_AddNumberToObject(r, "median_ns", median(batch_ns, (int) batches));
    cJSON_AddNumberToObject(r, "mean_ns", total_ns / (double) done);
    cJSON_AddNumberToObject(r, "traces_per_s", (double) done / (total_ns / 1e9));
    cJSON_AddNumberToObject(r, "open_fraction", (double) answered_open / (double) done);
    cJSON_AddNumberToObject(r, "open_median_ns", median(kind_ns[1], kind_batches[1]));
    cJSON_AddNumberToObject(r, "descending_median_ns", median(kind_ns[0], kind_batches[0]));
    cJSON_AddNumberToObject(r, "reference_ns", median(ref_ns, (int) batches));
    cJSON_AddStringToObject(r, "reference", "Quake's hull check on this hull's map tree, same traces");
    cJSON_AddNumberToObject(r, "runtime_ns", median(rt_ns, (int) batches));
    cJSON_AddNumberToObject(r, "runtime_mismatches", (double) rt_mismatches);
    cJSON_AddNumberToObject(r, "runtime_bytes", (double) rt_size);
    cJSON_AddNumberToObject(r, "oracle_checked", (double) checked);
    cJSON_AddNumberToObject(r, "oracle_mismatches", (double) mismatches);
    cJSON_AddNumberToObject(r, "checksum", sink);
    al_report_print(r, stdout);
    free(seg);
    free(batch_ns);
    free(ref_ns);
    free(rt_ns);
    alrt_destroy(rt);
    free(kind_ns[0]);
    free(kind_ns[1]);
    free(order);
    al_oracle_destroy(oracle);
    al_world_destroy(w);
    al_tool_map_free(&m);
    return 0;
}

static cJSON *counts_json(const al_verify_counts *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "checked", (double) c->checked);
    cJSON_AddNumberToObject(o, "skipped_near_surface", (double) c->skipped);
    cJSON_AddNumberToObject(o, "mismatches", (double) c->mismatches);
    if (c->normal_mismatches) cJSON_AddNumberToObject(o, "normal_mismatches", (double) c->normal_mismatches);
    if (c->mismatches || c->normal_mismatches) {
        cJSON_AddNumberToObject(o, "worst", c->worst);
        cJSON_AddItemToObject(o, "example", cJSON_CreateDoubleArray(&c->example[0][0], 6));
    }
    return o;
}

static int cmd_verify(const args *a)
{
    al_tool_map m;
    if (!al_tool_load(a->path, &a->options, &m)) return 1;
    uint64_t t0 = al_clock_ns();
    al_world *w = al_tool_compile(&m, &a->options);
    if (!w) return 1;
    al_oracle *oracle = al_oracle_create(w);
    al_oracle *world_oracle = al_oracle_create_world(w);
    if (!oracle || !world_oracle) return 1;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "input", a->path);
    cJSON_AddNumberToObject(r, "points", (double) a->points);
    cJSON_AddNumberToObject(r, "traces", (double) a->traces);
    cJSON *hulls = cJSON_AddArrayToObject(r, "hulls");
    long long total = 0;
    for (int h = 0; h < al_world_hull_count(w); h++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "hull", al_world_hull(w, h)->name);
        al_verify_counts c;
        uint64_t seed = a->seed * 1000003u + (uint64_t) h;
        al_verify_solidity(w, oracle, h, a->points, seed, &c);
        total += c.mismatches;
        cJSON_AddItemToObject(o, "solidity", counts_json(&c));
        al_verify_map_trees(w, oracle, h, a->points, seed + 17, &c);
        total += c.mismatches;
        cJSON_AddItemToObject(o, "map_tree", counts_json(&c));
        al_verify_traces(w, oracle, h, a->traces, 0, seed + 31, &c);
        total += c.mismatches + c.normal_mismatches;
        cJSON_AddItemToObject(o, "traces", counts_json(&c));
        al_verify_plane_shift(w, oracle, h, a->traces, 0, seed + 47, &c);
        total += c.mismatches + c.normal_mismatches;
        cJSON_AddItemToObject(o, "plane_shift", counts_json(&c));
        int64_t extra;
        al_verify_open_cells(w, world_oracle, h, a->points / 10, seed + 53, &c, &extra);
        total += c.mismatches;
        cJSON *oc = counts_json(&c);
        cJSON_AddNumberToObject(oc, "clear_but_closed", (double) extra);
        cJSON_AddItemToObject(o, "open_cells", oc);
        al_verify_open_traces(w, oracle, h, a->traces, 64, seed + 59, &c, &extra);
        total += c.mismatches;
        cJSON *ot = counts_json(&c);
        cJSON_AddNumberToObject(ot, "answered_open", (double) extra);
        cJSON_AddItemToObject(o, "open_traces", ot);
        cJSON_AddItemToArray(hulls, o);
    }
    al_oracle *sight = al_oracle_create_sight(w);
    if (!sight) return 1;
    al_verify_counts c;
    uint64_t t_pvs = al_clock_ns();
    al_verify_pvs(w, sight, a->segments, a->seed * 1000003u + 71, &c);
    total += c.mismatches;
    cJSON *pvs = counts_json(&c);
    cJSON_AddNumberToObject(pvs, "ms", al_clock_ms_since(t_pvs));
    al_vis_stats vs;
    al_world_vis_stats(w, &vs);
    cJSON_AddStringToObject(pvs, "pass", vs.level == AL_PVS_TIGHT    ? "tight"
                                         : vs.level == AL_PVS_COARSE ? "coarse"
                                                                     : "none");
    cJSON_AddNumberToObject(pvs, "vis_leaves", vs.vis_leaves);
    cJSON_AddNumberToObject(pvs, "avg_visible_coarse", vs.avg_visible_coarse);
    cJSON_AddNumberToObject(pvs, "avg_visible_tight", vs.avg_visible_tight);
    cJSON_AddItemToObject(r, "pvs", pvs);
    al_oracle_destroy(sight);
    cJSON_AddNumberToObject(r, "total_mismatches", (double) total);
    cJSON_AddNumberToObject(r, "ms", al_clock_ms_since(t0));
    al_report_print(r, stdout);
    al_oracle_destroy(oracle);
    al_oracle_destroy(world_oracle);
    al_world_destroy(w);
    al_tool_map_free(&m);
    return total == 0 ? 0 : 3;
}

static int cmd_classify(const args *a)
{
    al_tool_map m;
    if (!al_tool_load(a->path, &a->options, &m)) return 1;
    al_world *w = al_tool_compile(&m, &a->options);
    if (!w) return 1;
    if (!a->hull) {
        fprintf(stderr, "error: classify needs --hull NAME\n");
        return 2;
    }
    int hull = resolve_hull(w, a->hull);
    if (hull < 0) return 1;
    char line[512];
    long lineno = 0;
    int status = 0;
    while (fgets(line, sizeof line, stdin)) {
        lineno++;
        double p[3];
        char extra;
        int n = sscanf(line, "%lf %lf %lf %c", &p[0], &p[1], &p[2], &extra);
        if (n == -1 || (n == 0 && line[strspn(line, " \t\r\n")] == '\0')) continue;
        if (n != 3 || !al_is_finite3(p)) {
            fprintf(stderr, "stdin:%ld: expected three numbers \"x y z\"\n", lineno);
            status = 1;
            continue;
        }
        printf("%d\n", al_world_point_solid(w, hull, p) ? 1 : 0);
    }
    al_world_destroy(w);
    al_tool_map_free(&m);
    return status;
}

/* Quake's lightmap byte for light level V: half of it (Quake's light's -range 0.5), in
 * 0..255. */
static double lightmap_byte(double v)
{
    double b = v * 0.5;
    return b < 0 ? 0 : b > 255 ? 255 : b;
}

static int cmd_light(const args *a)
{
    al_tool_map m;
    if (!al_tool_load(a->path, &a->options, &m)) return 1;
    al_world *w = al_tool_compile(&m, &a->options);
    if (!w) return 1;
    al_rad *rad = NULL;
    al_diag_list diags = {0};
    al_rad_options o = {
        .luxel_size = a->luxel, .extra_samples = a->extra, .threads = a->options.threads};
    int status = 0;
    al_rad_lightmap map = {0};
    if (al_rad_create(w, &m.input, &o, &rad, &diags) != AL_OK) {
        al_tool_print_diags(a->path, &diags, stderr);
        status = 1;
        goto done;
    }
    al_tool_print_diags(a->path, &diags, stderr);
    if (!a->direct) {
        al_rad_run(rad, a->residual_given ? a->rad_residual : 0.01, 0, NULL, NULL);
        if (al_rad_snapshot(rad, &map) != AL_OK) {
            fprintf(stderr, "allium-bench: out of memory for the lightmap\n");
            status = 1;
            goto done;
        }
    }
    char line[512];
    long lineno = 0;
    while (fgets(line, sizeof line, stdin)) {
        lineno++;
        double p[3], n[3];
        char extra;
        int k = sscanf(line, "%lf %lf %lf %lf %lf %lf %c", &p[0], &p[1], &p[2], &n[0], &n[1], &n[2],
                       &extra);
        if (k == -1 || (k == 0 && line[strspn(line, " \t\r\n")] == '\0')) continue;
        if (k != 6 || !al_is_finite3(p) || !al_is_finite3(n) || !(al_length(n) > 0)) {
            fprintf(stderr, "stdin:%ld: expected \"x y z nx ny nz\" (a point, a normal)\n", lineno);
            status = 1;
            continue;
        }
        float v[3];
        if (a->direct) {
            al_rad_direct_at(rad, p, n, a->style, v);
        } else if (!al_rad_shown_at(rad, &map, p, n, v)) {
            printf("- - -\n");
            continue;
        }
        printf("%.1f %.1f %.1f\n", lightmap_byte(v[0]), lightmap_byte(v[1]), lightmap_byte(v[2]));
    }
done:
    al_rad_lightmap_free(&map);
    al_rad_destroy(rad);
    al_diag_list_clear(&diags);
    al_world_destroy(w);
    al_tool_map_free(&m);
    return status;
}

static int cmd_slice(const args *a)
{
    if (!a->has_z || !a->out) {
        fprintf(stderr, "error: slice needs --z HEIGHT and -o FILE.png\n");
        return 2;
    }
    al_tool_map m;
    if (!al_tool_load(a->path, &a->options, &m)) return 1;
    al_world *w = al_tool_compile(&m, &a->options);
    if (!w) return 1;
    double mins[3], maxs[3];
    al_world_bounds(w, mins, maxs);
    double scale = a->scale > 0 ? a->scale : 2;
    int width = (int) ((maxs[0] - mins[0]) / scale) + 1;
    int height = (int) ((maxs[1] - mins[1]) / scale) + 1;
    if (width > 8192 || height > 8192) {
        fprintf(stderr, "error: the picture would be %d x %d pixels; use a larger --scale\n",
                width, height);
        return 2;
    }
    /* Colours by the largest hull that fits; hull 0 solid is the brushes themselves. */
    static const uint8_t palette[8][3] = {{48, 52, 60},   {196, 72, 64},  {236, 150, 56},
                                          {236, 214, 96}, {120, 190, 110}, {96, 160, 220},
                                          {170, 120, 210}, {220, 220, 220}};
    /* Hulls from the smallest box to the largest (by volume); a pixel shows the largest
     * that fits, so the band along a wall where only small boxes fit, and a low tunnel where
     * only the crouch box fits, stand out. */
    int hulls = al_world_hull_count(w);
    int order[AL_MAX_HULLS];
    for (int h = 0; h < hulls; h++) order[h] = h;
    for (int i = 1; i < hulls; i++)
        for (int j = i; j > 0; j--) {
            const al_hull_desc *p = al_world_hull(w, order[j - 1]), *q = al_world_hull(w, order[j]);
            double vp = (p->maxs[0] - p->mins[0]) * (p->maxs[1] - p->mins[1]) * (p->maxs[2] - p->mins[2]);
            double vq = (q->maxs[0] - q->mins[0]) * (q->maxs[1] - q->mins[1]) * (q->maxs[2] - q->mins[2]);
            if (vq >= vp) break;
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    uint8_t *rgb = malloc((size_t) width * height * 3);
    if (!rgb) return 1;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            double p[3] = {mins[0] + (x + 0.5) * scale, maxs[1] - (y + 0.5) * scale, a->z};
            int fits = 0; /* 1 + rank of the largest hull that fits, 0: none */
            for (int i = 0; i < hulls; i++)
                if (!al_world_point_solid(w, order[i], p)) fits = i + 1;
            const uint8_t *c = palette[fits < 8 ? fits : 7];
            memcpy(rgb + ((size_t) y * width + x) * 3, c, 3);
        }
    bool ok = al_png_write(a->out, width, height, rgb);
    free(rgb);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "input", a->path);
    cJSON_AddStringToObject(r, "output", a->out);
    cJSON_AddNumberToObject(r, "width", width);
    cJSON_AddNumberToObject(r, "height", height);
    cJSON_AddNumberToObject(r, "z", a->z);
    cJSON *legend = cJSON_AddArrayToObject(r, "legend");
    for (int h = 0; h <= hulls && h < 8; h++) {
        char text[96];
        if (h == 0) snprintf(text, sizeof text, "no box fits (inside a brush)");
        else snprintf(text, sizeof text, "largest box that fits: %s",
                      al_world_hull(w, order[h - 1])->name);
        cJSON *item = cJSON_CreateObject();
        cJSON_AddItemToObject(item, "rgb", cJSON_CreateIntArray((const int[]){palette[h][0],
                                                                 palette[h][1], palette[h][2]}, 3));
        cJSON_AddStringToObject(item, "meaning", text);
        cJSON_AddItemToArray(legend, item);
    }
    al_report_print(r, stdout);
    al_world_destroy(w);
    al_tool_map_free(&m);
    if (!ok) fprintf(stderr, "error: cannot write %s\n", a->out);
    return ok ? 0 : 1;
}

/* --- documents ------------------------------------------------------------------------ */

static cJSON *timing(double *ms, int n)
{
    cJSON *o = cJSON_CreateObject();
    double max = 0;
    for (int i = 0; i < n; i++) max = ms[i] > max ? ms[i] : max;
    qsort(ms, (size_t) n, sizeof *ms, compare_double);
    cJSON_AddNumberToObject(o, "median", median(ms, n));
    cJSON_AddNumberToObject(o, "p90", ms[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1]);
    cJSON_AddNumberToObject(o, "max", max);
    cJSON_AddNumberToObject(o, "count", n);
    return o;
}

/* COUNT single-brush edits on random brushes: moves, resizes and material changes in
 * turn, each timed with its commit. Returns false if an edit failed. */
static bool time_edits(al_doc *doc, const int64_t *ids, int brushes, int count, al_rng *rng,
                       double *ms)
{
    static const char *materials[] = {"bench_a", "bench_b", "bench_c"};
    for (int i = 0; i < count; i++) {
        int64_t id = ids[(int) (al_rng_uniform(rng) * brushes)];
        double mins[3], maxs[3];
        while (!al_doc_brush_box(doc, id, mins, maxs)) id = ids[(int) (al_rng_uniform(rng) * brushes)];
        al_doc_change change = {0};
        uint64_t t0 = al_clock_ns();
        al_status st;
        if (i % 3 == 0) {
            const double move[3][4] = {{1, 0, 0, 16}, {0, 1, 0, -8}, {0, 0, 1, 0}};
            st = al_doc_transform_brushes(doc, &id, 1, move, &change);
        } else if (i % 3 == 1) {
            maxs[2] += 8;
            st = al_doc_resize_brush(doc, id, mins, maxs, &change, NULL);
        } else {
            st = al_doc_set_face_material(doc, id, NULL, 0, materials[i % 3], &change);
        }
        ms[i] = al_clock_ms_since(t0);
        al_doc_change_clear(&change);
        if (st != AL_OK) {
            fprintf(stderr, "error: edit %d of brush %lld failed: %s\n", i, (long long) id,
                    al_status_message(st));
            return false;
        }
    }
    return true;
}

static bool time_history(al_doc *doc, bool redo, int count, double *ms)
{
    for (int i = 0; i < count; i++) {
        al_doc_change change = {0};
        uint64_t t0 = al_clock_ns();
        al_status st = redo ? al_doc_redo(doc, &change) : al_doc_undo(doc, &change);
        ms[i] = al_clock_ms_since(t0);
        al_doc_change_clear(&change);
        if (st != AL_OK) {
            fprintf(stderr, "error: %s %d failed: %s\n", redo ? "redo" : "undo", i,
                    al_status_message(st));
            return false;
        }
    }
    return true;
}

static int cmd_document(const args *a)
{
    const char *dir = a->scratch ? a->scratch : getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
    char path[4200];
    snprintf(path, sizeof path, "%s/allium-bench-%d.allium", dir, (int) getpid());
    al_map *map = NULL;
    al_diag_list diags = {0};
    if (al_map_read_file(a->path, &map, &diags) != AL_OK) {
        al_tool_print_diags(a->path, &diags, stderr);
        return 1;
    }
    al_diag_list_clear(&diags);
    int runs = a->runs, count = a->count == 1000000 ? 300 : (int) a->count;
    double *import_ms = calloc((size_t) runs, sizeof(double));
    double *open_ms = calloc((size_t) runs, sizeof(double));
    double *input_ms = calloc((size_t) runs, sizeof(double));
    double *both_ms = calloc((size_t) runs, sizeof(double));
    double *edit_full = calloc((size_t) count, sizeof(double));
    double *edit_normal = calloc((size_t) count, sizeof(double));
    double *undo_ms = calloc((size_t) count, sizeof(double));
    double *redo_ms = calloc((size_t) count, sizeof(double));
    if (!import_ms || !open_ms || !input_ms || !both_ms || !edit_full || !edit_normal ||
        !undo_ms || !redo_ms)
        return 1;
    bool ok = true;
    for (int r = 0; r < runs && ok; r++) {
        al_tool_remove_document(path);
        al_doc *doc = NULL;
        uint64_t t0 = al_clock_ns();
        ok = al_doc_create(path, &doc, &diags) == AL_OK &&
             al_doc_import_map(doc, map, NULL) == AL_OK;
        al_doc_close(doc);
        import_ms[r] = al_clock_ms_since(t0);
        if (!ok) {
            al_tool_print_diags(path, &diags, stderr);
            break;
        }
        t0 = al_clock_ns();
        ok = al_doc_open(path, AL_DOC_READ_WRITE, &doc, &diags) == AL_OK;
        open_ms[r] = al_clock_ms_since(t0);
        uint64_t t1 = al_clock_ns();
        al_doc_input in;
        ok = ok && al_doc_build_input(doc, &in, NULL) == AL_OK;
        input_ms[r] = al_clock_ms_since(t1);
        both_ms[r] = al_clock_ms_since(t0);
        if (ok) al_doc_input_free(&in);
        al_doc_close(doc);
    }
    struct stat st;
    long long file_bytes = stat(path, &st) == 0 ? (long long) st.st_size : -1;

    /* Edits, undo and redo on the imported document. */
    al_doc *doc = NULL;
    int64_t *ids = NULL;
    int brushes = 0;
    al_rng rng = {a->seed};
    if (ok) ok = al_doc_open(path, AL_DOC_READ_WRITE, &doc, &diags) == AL_OK;
    if (ok) ok = al_doc_list_brushes(doc, -1, &ids, &brushes) == AL_OK && brushes > 0;
    if (ok) ok = time_edits(doc, ids, brushes, count, &rng, edit_full);
    if (ok) ok = time_history(doc, false, count, undo_ms);
    if (ok) ok = time_history(doc, true, count, redo_ms);
    if (ok) ok = al_doc_set_durable(doc, false) == AL_OK;
    if (ok) ok = time_edits(doc, ids, brushes, count, &rng, edit_normal);
    al_doc_close(doc);
    al_tool_print_diags(path, &diags, stderr);
    al_tool_remove_document(path);
    struct statfs fs;
    bool tmpfs = statfs(dir, &fs) == 0 && fs.f_type == 0x01021994; /* TMPFS_MAGIC */
    if (ok) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "input", a->path);
        cJSON_AddStringToObject(r, "scratch", dir);
        cJSON_AddBoolToObject(r, "scratch_in_memory", tmpfs);
        cJSON_AddNumberToObject(r, "brushes", brushes);
        cJSON_AddNumberToObject(r, "file_bytes", (double) file_bytes);
        cJSON_AddNumberToObject(r, "runs", runs);
        cJSON_AddItemToObject(r, "import_ms", timing(import_ms, runs));
        cJSON_AddItemToObject(r, "open_ms", timing(open_ms, runs));
        cJSON_AddItemToObject(r, "build_input_ms", timing(input_ms, runs));
        cJSON_AddItemToObject(r, "open_and_build_input_ms", timing(both_ms, runs));
        cJSON_AddItemToObject(r, "edit_ms", timing(edit_full, count));
        cJSON_AddItemToObject(r, "undo_ms", timing(undo_ms, count));
        cJSON_AddItemToObject(r, "redo_ms", timing(redo_ms, count));
        cJSON_AddItemToObject(r, "edit_ms_synchronous_normal", timing(edit_normal, count));
        ok = al_report_print(r, stdout);
    }
    free(import_ms), free(open_ms), free(input_ms), free(both_ms);
    free(edit_full), free(edit_normal), free(undo_ms), free(redo_ms);
    free(ids);
    al_diag_list_clear(&diags);
    al_map_destroy(map);
    return ok ? 0 : 1;
}

static int cmd_rad(const args *a)
{
    al_tool_map m;
    if (!al_tool_load(a->path, &a->options, &m)) return 1;
    al_world *w = al_tool_compile(&m, &a->options);
    if (!w) return 1;
    int runs = a->runs;
    double *create = calloc((size_t) runs, sizeof(double));
    double *first = calloc((size_t) runs, sizeof(double));
    double *to10 = calloc((size_t) runs, sizeof(double));
    double *to1 = calloc((size_t) runs, sizeof(double));
    double *shots1 = calloc((size_t) runs, sizeof(double));
    if (!create || !first || !to10 || !to1 || !shots1) return 1;
    al_rad_stats st = {0};
    al_rad *rad = NULL;
    al_diag_list diags = {0};
    al_rad_options o = {
        .luxel_size = a->luxel, .extra_samples = a->extra, .threads = a->options.threads};
    int atlas_w = 0, atlas_h = 0;
    bool ok = true;
    for (int r = 0; r < runs && ok; r++) {
        al_rad_destroy(rad);
        rad = NULL;
        al_diag_list_clear(&diags);
        uint64_t t0 = al_clock_ns();
        if (al_rad_create(w, &m.input, &o, &rad, &diags) != AL_OK) {
            al_tool_print_diags(a->path, &diags, stderr);
            ok = false;
            break;
        }
        create[r] = al_clock_ms_since(t0);
        /* The last run keeps a sample of its rays (costing it a copy per ray sampled),
         * spread over its solve by the count of the run before (the same solve). */
        if (r == runs - 1 && a->count > 0 && !al_rad_log_rays(rad, a->count, r > 0 ? st.rays : 0)) {
            fprintf(stderr, "allium-bench: out of memory for %lld logged rays\n",
                    (long long) a->count);
            ok = false;
            break;
        }
        al_rad_get_stats(rad, &st);
        al_rad_step(rad, st.lights);
        first[r] = al_clock_ms_since(t0);
        /* --rad-residual: where the run stops (default 1%). */
        double stop = a->residual_given ? a->rad_residual : 0.01;
        to10[r] = to1[r] = -1;
        for (;;) {
            al_rad_get_stats(rad, &st);
            if (to10[r] < 0 && st.residual <= 0.10) to10[r] = al_clock_ms_since(t0);
            if (st.residual <= stop || st.converged) break;
            if (al_rad_step(rad, 8) == 0) break;
        }
        to1[r] = al_clock_ms_since(t0);
        shots1[r] = (double) st.shots;
        al_rad_atlas_size(rad, &atlas_w, &atlas_h);
    }
    if (!ok) return 1;
    al_tool_print_diags(a->path, &diags, stderr);
    int64_t blocked = 0, logged = 0, logged_blocked = 0;
    long long count = a->count;
    double ns = al_rad_time_logged_rays(rad, &logged, &logged_blocked);
    double random_ns = al_rad_time_rays(rad, count, a->seed, &blocked);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "input", a->path);
    cJSON_AddNumberToObject(j, "runs", runs);
    cJSON_AddNumberToObject(j, "threads", a->options.threads > 0 ? a->options.threads
                                                                 : al_cpu_count());
    cJSON_AddNumberToObject(j, "patches", st.patches);
    cJSON_AddNumberToObject(j, "extra", o.extra_samples);
    cJSON_AddNumberToObject(j, "shooters", st.shooters);
    cJSON_AddNumberToObject(j, "lights", st.lights);
    cJSON_AddNumberToObject(j, "atlas_width", atlas_w);
    cJSON_AddNumberToObject(j, "atlas_height", atlas_h);
    cJSON_AddNumberToObject(j, "create_ms", median(create, runs));
    cJSON_AddNumberToObject(j, "first_frame_ms", median(first, runs));
    cJSON_AddNumberToObject(j, "ms_to_residual_10pct", median(to10, runs));
    cJSON_AddNumberToObject(j, "ms_to_residual_1pct", median(to1, runs));
    cJSON_AddNumberToObject(j, "shots_to_residual_1pct", median(shots1, runs));
    cJSON_AddNumberToObject(j, "residual", st.residual);
    cJSON_AddNumberToObject(j, "rays", (double) st.rays);
    cJSON_AddNumberToObject(j, "emitted", st.emitted);
    cJSON_AddNumberToObject(j, "absorbed", st.absorbed);
    cJSON_AddNumberToObject(j, "escaped", st.escaped);
    cJSON_AddNumberToObject(j, "rays_timed", (double) logged);
    cJSON_AddNumberToObject(j, "ray_ns", ns);
    cJSON_AddNumberToObject(j, "rays_blocked_fraction",
                            logged > 0 ? (double) logged_blocked / (double) logged : 0);
    cJSON_AddNumberToObject(j, "mrays_per_s_per_thread", ns > 0 ? 1e3 / ns : 0);
    cJSON_AddNumberToObject(j, "random_pair_ray_ns", random_ns);
    cJSON_AddNumberToObject(j, "random_pair_blocked_fraction",
                            count > 0 ? (double) blocked / (double) count : 0);
    cJSON_AddNumberToObject(j, "random_pair_mrays_per_s_per_thread",
                            random_ns > 0 ? 1e3 / random_ns : 0);
    ok = al_report_print(j, stdout);
    al_rad_destroy(rad);
    al_diag_list_clear(&diags);
    al_world_destroy(w);
    al_tool_map_free(&m);
    free(create), free(first), free(to10), free(to1), free(shots1);
    return ok ? 0 : 1;
}

/* {median, p95} of V[0..N) (sorted in place). */
static cJSON *percentiles(double *v, int n)
{
    cJSON *o = cJSON_CreateObject();
    if (n <= 0) return o;
    double p95 = 0;
    qsort(v, (size_t) n, sizeof *v, compare_double);
    int k = (int) ceil(0.95 * n) - 1;
    p95 = v[k < 0 ? 0 : k];
    cJSON_AddNumberToObject(o, "median", median(v, n));
    cJSON_AddNumberToObject(o, "p95", p95);
    cJSON_AddNumberToObject(o, "max", v[n - 1]);
    return o;
}

/* Submits E's input to LIVE and waits for STAGE; the stage's time from submission, or -1.
 * Then waits until the engine is idle (the light shot on to the residual asked for), so
 * that the next edit is timed from an engine with nothing else to do. */
static double submit_and_wait(al_live *live, const al_input *in, al_stage stage)
{
    uint64_t g = al_live_submit(live, in);
    if (!g || !al_live_wait(live, g, stage, 600) || !al_live_wait_idle(live, 600)) return -1;
    al_stage_status st[AL_STAGE_COUNT];
    al_live_status(live, st);
    return st[stage].last_ms;
}

static int cmd_edit(const args *a)
{
    al_tool_map m;
    if (!al_tool_load(a->path, &a->options, &m)) return 1;
    al_edit_input e;
    if (!al_edit_input_init(&e, &m.input)) return 1;
    int n = a->edits;
    double *bsp = calloc((size_t) n, sizeof(double)), *portals = calloc((size_t) n, sizeof(double));
    double *rad_first = calloc((size_t) n, sizeof(double)), *blocks = calloc((size_t) n, sizeof(double));
    double *subcells = calloc((size_t) n, sizeof(double));
    double *tight = calloc((size_t) a->tight_edits + 1, sizeof(double));
    if (!bsp || !portals || !rad_first || !blocks || !tight) return 1;
    al_rad_options ro = {.luxel_size = a->luxel > 0 ? a->luxel : 16,
                         .extra_samples = a->extra,
                         .threads = a->options.threads};
    al_live_options lo = {.compile = {.threads = a->options.threads,
                                      .split_candidates = a->options.split_candidates,
                                      .split_balance = a->options.split_balance},
                          .pvs = AL_PVS_COARSE,
                          .light = !a->no_light,
                          .rad = ro,
                          .light_residual = a->rad_residual};
    al_live *live = al_live_create(&lo);
    if (!live) return 1;
    al_rng rng = {a->seed};
    al_stage last = a->no_light ? AL_STAGE_PORTALS : AL_STAGE_LIGHT;
    double first_ms = submit_and_wait(live, &e.input, last);
    if (first_ms < 0) {
        char why[256];
        al_live_last_error(live, why, sizeof why);
        fprintf(stderr, "error: the map did not compile: %s\n", why);
        return 1;
    }
    int kinds[4] = {0}, leaking = 0;
    bool ok = true;
    double *rad_update = calloc((size_t) n, sizeof(double)), *rad_fixed = calloc((size_t) n, sizeof(double));
    double *rad_fixes = calloc((size_t) n, sizeof(double)), *rad_new = calloc(5, sizeof(double));
    double *rad_settled = calloc((size_t) n, sizeof(double));
    double *rad_refined = calloc((size_t) n, sizeof(double));
    int new_count = 0, refined_count = 0;
    if (!rad_update || !rad_fixed || !rad_fixes || !rad_new || !rad_settled || !rad_refined)
        return 1;
    /* Edits that open a leak are taken back (not timed) unless --leaks: a designer's map is
     * sealed nearly all the time, and a leaking map gets no PVS at all. */
    int reverted = 0;
    al_edit_input saved = {0};
    for (int i = 0; i < n && ok; i++) {
        al_edit edit;
        al_edit_input_free(&saved);
        if (!al_edit_input_init(&saved, &e.input) || !al_edit_random(&e, &rng, 8, &edit)) {
            fprintf(stderr, "error: no brush to edit\n");
            ok = false;
            break;
        }
        portals[i] = submit_and_wait(live, &e.input, last);
        if (!a->leaks && portals[i] >= 0) {
            al_snapshot *s = al_live_current(live);
            al_leak_info leak;
            bool leaks = s && al_world_leak(al_snapshot_world(s), &leak);
            al_snapshot_release(s);
            if (leaks && reverted < 20 * n) {
                al_edit_input_free(&e);
                e = saved;
                memset(&saved, 0, sizeof saved);
                submit_and_wait(live, &e.input, last);
                reverted++;
                i--;
                continue;
            }
        }
        kinds[edit.kind]++;
        al_stage_status st[AL_STAGE_COUNT];
        al_live_status(live, st);
        bsp[i] = st[AL_STAGE_COLLISION].last_ms;
        portals[i] = st[AL_STAGE_PORTALS].last_ms;
        rad_first[i] = st[AL_STAGE_LIGHT].last_ms;
        rad_update[i] = st[AL_STAGE_LIGHT].last_work_ms;
        rad_fixed[i] = st[AL_STAGE_LIGHT].last_corrected_ms;
        if (st[AL_STAGE_LIGHT].last_refined_ms > 0)
            rad_refined[refined_count++] = st[AL_STAGE_LIGHT].last_refined_ms;
        rad_settled[i] = st[AL_STAGE_LIGHT].last_settled_ms;
        rad_fixes[i] = (double) st[AL_STAGE_LIGHT].corrections;
        al_snapshot *s = al_live_current(live);
        if (portals[i] < 0 || !s) {
            char why[256];
            al_live_last_error(live, why, sizeof why);
            fprintf(stderr, "error: edit %d did not compile: %s\n", i, why);
            al_snapshot_release(s);
            ok = false;
            break;
        }
        blocks[i] = st[AL_STAGE_COLLISION].blocks_built;
        subcells[i] = st[AL_STAGE_COLLISION].subcells_built;
        al_leak_info leak;
        leaking += al_world_leak(al_snapshot_world(s), &leak);
        if (new_count < 5 && !a->no_light) {
            /* What relighting from nothing would cost: patches and direct light. */
            uint64_t t0 = al_clock_ns();
            al_rad *fresh = NULL;
            if (al_rad_create(al_snapshot_world(s), al_snapshot_input(s), &ro, &fresh, NULL) == AL_OK) {
                al_rad_stats rs;
                al_rad_get_stats(fresh, &rs);
                al_rad_step(fresh, rs.lights);
            }
            rad_new[new_count++] = al_clock_ms_since(t0);
            al_rad_destroy(fresh);
        }
        al_snapshot_release(s);
    }
    /* The carried light against a new solve of the final map, both run to 1% (the engine is
     * done with the light: it may be stepped here). */
    double rad_difference = -1, final_residual = fmin(a->rad_residual, 0.01);
    al_snapshot *lit = ok ? al_live_current(live) : NULL;
    if (lit && al_snapshot_rad(lit)) {
        al_rad *fresh = NULL;
        /* The engine leaves the light alone from here. */
        al_live_light_pause(live);
        al_live_wait_idle(live, 600);
        al_rad_run(al_snapshot_rad(lit), final_residual, 0, NULL, NULL);
        if (al_rad_create(al_snapshot_world(lit), al_snapshot_input(lit), &ro, &fresh, NULL) == AL_OK) {
            al_rad_run(fresh, final_residual, 0, NULL, NULL);
            rad_difference = al_rad_light_difference(al_snapshot_rad(lit), fresh);
        }
        al_rad_destroy(fresh);
    }
    al_snapshot_release(lit);
    al_edit_input_free(&saved);
    /* Does the last world equal a full compile of the last input? */
    int differences = -1;
    char why[400] = "";
    if (ok) {
        al_snapshot *s = al_live_current(live);
        al_world *full = NULL;
        al_compile_options co = lo.compile;
        co.no_vis = false;
        co.pvs = AL_PVS_NONE; /* the trees and portals, as the portals stage has them */
        if (s && al_world_compile(&e.input, &co, &full, NULL) == AL_OK)
            differences = al_world_tree_differences(al_snapshot_world(s), full, why, sizeof why);
        al_world_destroy(full);
        al_snapshot_release(s);
    }
    al_live_destroy(live);
    /* The tight PVS, on an engine that runs it. */
    int tight_count = 0;
    if (ok && a->tight_edits > 0) {
        lo.pvs = AL_PVS_TIGHT;
        lo.light = false; /* the PVS alone */
        live = al_live_create(&lo);
        if (live && submit_and_wait(live, &e.input, AL_STAGE_PVS) >= 0)
            for (int i = 0; i < a->tight_edits; i++) {
                al_edit edit;
                if (!al_edit_input_init(&saved, &e.input) || !al_edit_random(&e, &rng, 8, &edit))
                    break;
                double ms = submit_and_wait(live, &e.input, AL_STAGE_PVS);
                if (ms < 0) break;
                al_snapshot *s = al_live_current(live);
                al_leak_info leak;
                bool leaks = s && al_world_leak(al_snapshot_world(s), &leak);
                al_snapshot_release(s);
                if (leaks && !a->leaks && reverted < 20 * n) {
                    al_edit_input_free(&e);
                    e = saved;
                    memset(&saved, 0, sizeof saved);
                    submit_and_wait(live, &e.input, AL_STAGE_PVS);
                    reverted++;
                    i--;
                    continue;
                }
                al_edit_input_free(&saved);
                tight[tight_count++] = ms;
            }
        al_live_destroy(live);
        al_edit_input_free(&saved);
    }
    if (!ok) return 1;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "input", a->path);
    cJSON_AddNumberToObject(j, "threads", a->options.threads > 0 ? a->options.threads : al_cpu_count());
    cJSON_AddNumberToObject(j, "edits", n);
    cJSON *k = cJSON_AddObjectToObject(j, "edit_kinds");
    for (int i = 0; i < 4; i++) cJSON_AddNumberToObject(k, al_edit_kind_name((al_edit_kind) i), kinds[i]);
    cJSON_AddNumberToObject(j, "first_compile_ms", first_ms);
    cJSON_AddNumberToObject(j, "edits_leaving_a_leak", leaking);
    cJSON_AddNumberToObject(j, "edits_taken_back_for_a_leak", reverted);
    cJSON_AddItemToObject(j, "bsp_ms", percentiles(bsp, n));
    cJSON_AddItemToObject(j, "portals_ms", percentiles(portals, n));
    cJSON_AddItemToObject(j, "pvs_ms", percentiles(portals, n));
    cJSON_AddStringToObject(j, "pvs_ms_is", "the coarse PVS, published with the portals");
    cJSON_AddItemToObject(j, "pvs_tight_ms", percentiles(tight, tight_count));
    cJSON_AddNumberToObject(j, "pvs_tight_edits", tight_count);
    if (!a->no_light) { /* (--no-light: no light stage) */
        cJSON_AddItemToObject(j, "rad_first_ms", percentiles(rad_first, n));
        cJSON_AddItemToObject(j, "rad_update_ms", percentiles(rad_update, n));
        cJSON_AddItemToObject(j, "rad_refined_ms", percentiles(rad_refined, refined_count));
        cJSON_AddNumberToObject(j, "rad_refined_edits", refined_count);
        cJSON_AddItemToObject(j, "rad_corrected_ms", percentiles(rad_fixed, n));
        cJSON_AddItemToObject(j, "rad_settled_ms", percentiles(rad_settled, n));
        cJSON_AddItemToObject(j, "rad_corrections", percentiles(rad_fixes, n));
        cJSON_AddItemToObject(j, "rad_new_solver_ms", percentiles(rad_new, new_count));
        cJSON_AddNumberToObject(j, "rad_residual", a->rad_residual);
        cJSON_AddNumberToObject(j, "rad_difference_from_full", rad_difference);
        cJSON_AddNumberToObject(j, "rad_difference_residual", final_residual);
        cJSON_AddNumberToObject(j, "rad_luxel", ro.luxel_size);
        cJSON_AddNumberToObject(j, "rad_extra", ro.extra_samples);
    }
    cJSON *b = percentiles(blocks, n);
    cJSON_AddItemToObject(j, "blocks_rebuilt", b);
    cJSON_AddItemToObject(j, "subcells_rebuilt", percentiles(subcells, n));
    cJSON_AddNumberToObject(j, "tree_differences_from_full_compile", differences);
    if (why[0]) cJSON_AddStringToObject(j, "first_difference", why);
    ok = al_report_print(j, stdout);
    al_edit_input_free(&e);
    al_tool_map_free(&m);
    free(bsp), free(portals), free(rad_first), free(blocks), free(subcells), free(tight);
    free(rad_update), free(rad_fixed), free(rad_fixes), free(rad_new), free(rad_settled);
    free(rad_refined);
    return ok && differences == 0 ? 0 : 1;
}

/* --- the agents' broadphase ------------------------------------------------------------ */

/* The default fat margin of allium-bench spheretree, units (see cmd_spheretree). */
#define SPHERETREE_MARGIN 16.0

/* Brute force runs on every 10th step, at most this many times. */
#define SPHERETREE_BRUTE_STEPS 30

typedef struct sphere_pairs {
    int (*pairs)[2]; /* owned; (smaller user, larger user) */
    int count, capacity;
    bool failed; /* memory ran out: pairs are missing */
} sphere_pairs;

static void add_sphere_pair(void *ctx, int a, int b)
{
    sphere_pairs *l = ctx;
    if (l->count == l->capacity) {
        int capacity = l->capacity ? 2 * l->capacity : 4096;
        void *p = realloc(l->pairs, (size_t) capacity * sizeof *l->pairs);
        if (!p) {
            l->failed = true;
            return;
        }
        l->pairs = p;
        l->capacity = capacity;
    }
    l->pairs[l->count][0] = a < b ? a : b;
    l->pairs[l->count][1] = a < b ? b : a;
    l->count++;
}

static int compare_sphere_pairs(const void *x, const void *y)
{
    const int *a = x, *b = y;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* Every overlapping pair of S[0..N), sorted: al_spheres_overlap's test written out in the
 * loop, as a brute force would be, not a call per pair. */
static void brute_sphere_pairs(const al_sphere *s, int n, sphere_pairs *out)
{
    for (int i = 0; i < n; i++) {
        al_sphere a = s[i];
        for (int j = i + 1; j < n; j++) {
            double dx = a.center[0] - s[j].center[0], dy = a.center[1] - s[j].center[1];
            double dz = a.center[2] - s[j].center[2], sum = a.radius + s[j].radius;
            if (dx * dx + dy * dy + dz * dz < sum * sum) add_sphere_pair(out, i, j);
        }
    }
}

/* Moves sphere S by V for DT seconds, turning V around at the walls of [0, SIZE]. */
static void bounce_sphere(al_sphere *s, double v[3], const double size[3], double dt)
{
    for (int k = 0; k < 3; k++) {
        s->center[k] += v[k] * dt;
        if ((s->center[k] < s->radius && v[k] < 0) ||
            (s->center[k] > size[k] - s->radius && v[k] > 0))
            v[k] = -v[k];
    }
}

/* Agents' spheres in a level-sized box: the update and pairs of every 60 Hz step timed,
 * brute force on some of them for both the speed-up and the check. The margin default is
 * the fastest step of those tried for 10,000 spheres (0, 4, 8, 12, 16, 20, 24, 32 units;
 * 16 and 20 came out alike, 12 and 32 some 15% slower, 8 half again, 4 twice, 0 three
 * times as slow): about four steps' travel at these speeds. */
/* Times al_bsp_build on M's compile W in FORMAT over A->runs runs into MS (and its stages
 * into STAGES[3 * run ...]); the last run's counts into *COUNTS. False (with the error
 * printed) if the export fails. */
static bool time_bsp(const args *a, al_tool_map *m, const al_world *w, al_bsp_format format,
                     double *ms, double *stages, al_bsp_counts *counts)
{
    al_bsp_source src = {m->map, &m->input, w, NULL};
    for (int r = 0; r < a->runs; r++) {
        al_bsp_files files;
        al_diag_list d = {0};
        uint64_t t0 = al_clock_ns();
        al_status st = al_bsp_build(&src, format, &files, counts, &d);
        ms[r] = al_clock_ms_since(t0);
        stages[r] = counts->ms_trees;
        stages[a->runs + r] = counts->ms_faces;
        stages[2 * a->runs + r] = counts->ms_vis;
        al_bsp_files_free(&files);
        if (st != AL_OK) {
            al_tool_print_diags(m->path, &d, stderr);
            fprintf(stderr, "%s: export as %s failed: %s\n", m->path, al_bsp_format_name(format),
                    al_status_message(st));
            al_diag_list_clear(&d);
            return false;
        }
        al_diag_list_clear(&d);
    }
    return true;
}

static int cmd_bsp(const args *a)
{
    al_tool_map m;
    if (!al_tool_load(a->path, &a->options, &m)) return 1;
    if (!m.map) {
        fprintf(stderr, "error: allium-bench bsp takes a .map\n");
        al_tool_map_free(&m);
        return 2;
    }
    al_tool_options o = a->options;
    o.pvs = AL_PVS_TIGHT;
    o.use_cache = false;
    al_world *w = al_tool_compile(&m, &o);
    if (!w) {
        al_tool_map_free(&m);
        return 1;
    }
    double *ms29 = calloc((size_t) a->runs, sizeof(double));
    double *ms2 = calloc((size_t) a->runs, sizeof(double));
    double *stages = calloc(6 * (size_t) a->runs, sizeof(double));
    al_bsp_counts c29, c2;
    int status = 1;
    /* A map past BSP29's limits is timed in BSP2 alone (bsp29_ms null). */
    bool fits = ms29 && ms2 && stages && time_bsp(a, &m, w, AL_BSP29, ms29, stages, &c29);
    const double *st = fits ? stages : stages + 3 * a->runs;
    if (ms2 && stages && time_bsp(a, &m, w, AL_BSP2, ms2, stages + 3 * a->runs, &c2)) {
        const al_bsp_counts *c = fits ? &c29 : &c2;
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "map", a->path);
        cJSON_AddNumberToObject(j, "runs", a->runs);
        if (fits)
            cJSON_AddNumberToObject(j, "bsp29_ms", median(ms29, a->runs));
        else
            cJSON_AddNullToObject(j, "bsp29_ms");
        cJSON_AddNumberToObject(j, "bsp2_ms", median(ms2, a->runs));
        cJSON_AddNumberToObject(j, "trees_ms", median((double *) st, a->runs));
        cJSON_AddNumberToObject(j, "faces_ms", median((double *) st + a->runs, a->runs));
        cJSON_AddNumberToObject(j, "visibility_ms", median((double *) st + 2 * a->runs, a->runs));
        if (fits) cJSON_AddNumberToObject(j, "bytes", (double) c29.file_bytes);
        cJSON_AddNumberToObject(j, "bsp2_bytes", (double) c2.file_bytes);
        cJSON_AddNumberToObject(j, "models", c->models);
        cJSON_AddNumberToObject(j, "nodes", c->nodes);
        cJSON_AddNumberToObject(j, "leafs", c->leafs);
        cJSON_AddNumberToObject(j, "clipnodes", c->clipnodes);
        cJSON_AddNumberToObject(j, "faces", c->faces);
        cJSON_AddNumberToObject(j, "planes", c->planes);
        cJSON_AddNumberToObject(j, "marksurfaces", c->marksurfaces);
        cJSON_AddNumberToObject(j, "visibility_bytes", (double) c->visibility_bytes);
        status = al_report_print(j, stdout) ? 0 : 1;
    }
    free(ms29);
    free(ms2);
    free(stages);
    al_world_destroy(w);
    al_tool_map_free(&m);
    return status;
}

static int cmd_spheretree(const args *a)
{
    int n = a->count_given ? (int) (a->count < 10000000 ? a->count : 10000000) : 10000;
    double margin = a->margin >= 0 ? a->margin : SPHERETREE_MARGIN;
    const double size[3] = {8192, 8192, 1024}, dt = 1.0 / 60;
    int steps = a->steps;
    al_sphere *spheres = malloc((size_t) n * sizeof *spheres);
    double (*velocity)[3] = malloc((size_t) n * sizeof *velocity);
    int *handles = malloc((size_t) n * sizeof *handles);
    double *update_ms = malloc((size_t) steps * sizeof(double));
    double *pairs_ms = malloc((size_t) steps * sizeof(double));
    double *step_ms = malloc((size_t) steps * sizeof(double));
    double brute_ms[SPHERETREE_BRUTE_STEPS];
    al_sphere_tree *tree = al_sphere_tree_create(margin);
    sphere_pairs got = {0}, want = {0};
    if (!spheres || !velocity || !handles || !update_ms || !pairs_ms || !step_ms || !tree) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    al_rng rng = {a->seed};
    for (int i = 0; i < n; i++) {
        al_sphere *s = &spheres[i];
        s->radius = 20 + 20 * al_rng_uniform(&rng);
        for (int k = 0; k < 3; k++)
            s->center[k] = s->radius + (size[k] - 2 * s->radius) * al_rng_uniform(&rng);
        /* Mostly level headings, as walkers have. */
        double heading = 2 * M_PI * al_rng_uniform(&rng), speed = 100 + 220 * al_rng_uniform(&rng);
        double d[3] = {cos(heading), sin(heading), 0.5 * al_rng_uniform(&rng) - 0.25};
        al_normalize(d, d);
        al_scale(d, speed, velocity[i]);
    }
    uint64_t t0 = al_clock_ns();
    for (int i = 0; i < n; i++) {
        handles[i] = al_sphere_tree_insert(tree, &spheres[i], i);
        if (handles[i] < 0) {
            fprintf(stderr, "error: out of memory\n");
            return 1;
        }
    }
    if (al_sphere_tree_rebuild(tree) != AL_OK) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    double build_ms = al_clock_ms_since(t0);
    long long reinserts = 0, pair_total = 0;
    int brute_steps = 0;
    bool equal = true, ok = true;
    for (int step = 0; step < steps && ok; step++) {
        for (int i = 0; i < n; i++) bounce_sphere(&spheres[i], velocity[i], size, dt);
        uint64_t t1 = al_clock_ns();
        for (int i = 0; i < n; i++) reinserts += al_sphere_tree_move(tree, handles[i], &spheres[i]);
        uint64_t t2 = al_clock_ns();
        got.count = 0;
        ok = al_sphere_tree_pairs(tree, add_sphere_pair, &got) == AL_OK;
        uint64_t t3 = al_clock_ns();
        update_ms[step] = (double) (t2 - t1) / 1e6;
        pairs_ms[step] = (double) (t3 - t2) / 1e6;
        step_ms[step] = (double) (t3 - t1) / 1e6;
        pair_total += got.count;
        if (step % 10 == 0 && brute_steps < SPHERETREE_BRUTE_STEPS) {
            want.count = 0;
            uint64_t t4 = al_clock_ns();
            brute_sphere_pairs(spheres, n, &want);
            brute_ms[brute_steps++] = al_clock_ms_since(t4);
            qsort(got.pairs, (size_t) got.count, sizeof *got.pairs, compare_sphere_pairs);
            equal = equal && got.count == want.count &&
                    (got.count == 0 ||
                     !memcmp(got.pairs, want.pairs, (size_t) got.count * sizeof *got.pairs));
        }
        ok = ok && !got.failed && !want.failed;
    }
    if (!ok) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    double step_mean = 0;
    for (int i = 0; i < steps; i++) step_mean += step_ms[i] / steps;
    double step_median = median(step_ms, steps), brute_median = median(brute_ms, brute_steps);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "count", n);
    cJSON_AddNumberToObject(j, "steps", steps);
    cJSON_AddNumberToObject(j, "margin", margin);
    cJSON_AddNumberToObject(j, "seed", (double) a->seed);
    cJSON_AddNumberToObject(j, "build_ms", build_ms);
    cJSON_AddNumberToObject(j, "update_ms_median", median(update_ms, steps));
    cJSON_AddNumberToObject(j, "pairs_ms_median", median(pairs_ms, steps));
    cJSON_AddNumberToObject(j, "step_ms_median", step_median);
    cJSON_AddNumberToObject(j, "step_ms_mean", step_mean);
    cJSON_AddNumberToObject(j, "brute_ms_median", brute_median);
    cJSON_AddNumberToObject(j, "brute_steps", brute_steps);
    cJSON_AddNumberToObject(j, "speedup", brute_median / step_median);
    cJSON_AddNumberToObject(j, "pairs_per_step", (double) pair_total / steps);
    cJSON_AddNumberToObject(j, "reinserts_per_step", (double) reinserts / steps);
    cJSON_AddBoolToObject(j, "pairs_equal_brute", equal);
    ok = al_report_print(j, stdout);
    al_sphere_tree_destroy(tree);
    free(spheres), free(velocity), free(handles), free(update_ms), free(pairs_ms), free(step_ms);
    free(got.pairs), free(want.pairs);
    return ok && equal ? 0 : 1;
}

/* A crowd of COUNT agents on MAP (default 1000) walking between the map's point entities
 * for --steps 60 Hz steps (default 600), one thread: the median and p95 of one step of
 * all of them, after the first second (spawning crowds stand in heaps). Agents start at
 * point entities and places around them where the stand hull is empty. */
static int cmd_agents(const args *a)
{
    al_tool_map m;
    if (!al_tool_load(a->path, &a->options, &m)) return 1;
    al_world *w = al_tool_compile(&m, &a->options);
    if (!w) return 1;
    int count = a->count_given ? (int) (a->count < 100000 ? a->count : 100000) : 1000;
    int steps = a->steps_given ? a->steps : 600;
    const al_input *in = &m.input;
    al_agents *crowd = al_agents_create(a->seed);
    double (*points)[3] = calloc((size_t) in->entity_count + 1, sizeof *points);
    double *step_ms = malloc((size_t) steps * sizeof(double));
    if (!crowd || !points || !step_ms) return 1;
    int point_count = 0;
    for (int e = 1; e < in->entity_count; e++) {
        const char *o = al_entity_value(&in->entities[e], "origin");
        if (o && al_read_numbers(o, points[point_count], 3) == 3 &&
            al_agents_add_waypoint(crowd, points[point_count], -1) >= 0)
            point_count++;
    }
    int stand = al_world_find_hull(w, "stand");
    if (point_count == 0 || stand < 0) {
        fprintf(stderr, "error: %s has no point entities (or no stand hull) to place agents at\n",
                a->path);
        return 1;
    }
    for (int k = 0; al_agents_count(crowd) < count && k < 200 * count; k++) {
        double p[3];
        memcpy(p, points[k % point_count], sizeof p);
        int ring = k / point_count;
        p[0] += 40.0 * (ring % 8) * ((k & 1) ? 1 : -1);
        p[1] += 40.0 * (ring / 8) * ((k & 2) ? 1 : -1);
        if (al_world_point_solid(w, stand, p)) continue;
        if (al_agents_add(crowd, w, "stand", p, 320) < 0) return 1;
    }
    if (al_agents_rebuild(crowd) != AL_OK) return 1;
    al_move_params params;
    al_move_default_params(&params);
    long long pairs = 0, contacts = 0, stuck = 0;
    int timed = 0;
    for (int s = 0; s < steps + 60; s++) {
        al_agents_step_stats st;
        uint64_t t0 = al_clock_ns();
        al_agents_step(crowd, w, &params, 1.0 / 60.0, &st);
        uint64_t t1 = al_clock_ns();
        if (s < 60) continue;
        step_ms[timed++] = (double) (t1 - t0) / 1e6;
        pairs += st.pairs;
        contacts += st.contacts;
        stuck += st.stuck;
    }
    int inside = 0;
    for (int i = 0; i < al_agents_count(crowd); i++) {
        const al_agent *g = al_agents_get(crowd, i);
        if (al_world_point_solid(w, al_mover_hull(&g->mover), g->mover.origin)) inside++;
    }
    double med = median(step_ms, timed);
    double p95 = step_ms[(int) (0.95 * (timed - 1))];
    printf("{\"map\": \"%s\", \"agents\": %d, \"steps\": %d, \"step_ms_median\": %.4f, "
           "\"step_ms_p95\": %.4f, \"us_per_agent\": %.3f, \"pairs_per_step\": %.1f, "
           "\"contacts_per_step\": %.1f, \"stuck_agent_steps\": %lld, \"inside_solid_at_end\": %d}\n",
           a->path, al_agents_count(crowd), timed, med, p95, med * 1000 / al_agents_count(crowd),
           (double) pairs / timed, (double) contacts / timed, stuck, inside);
    free(points);
    free(step_ms);
    al_agents_destroy(crowd);
    al_world_destroy(w);
    al_tool_map_free(&m);
    return 0;
}

/* Reading the entity definitions FILE, --runs times (default 20): the median and the
 * fastest, and what was read. */
static int cmd_defs(const args *a)
{
    int runs = a->runs;
    double *ms = malloc((size_t) runs * sizeof *ms);
    if (!ms) return 1;
    al_entdefs set = {0};
    al_diag_list diags = {0};
    al_status st = AL_OK;
    for (int r = 0; r < runs && st == AL_OK; r++) {
        al_entdefs_clear(&set);
        al_diag_list_clear(&diags);
        uint64_t t0 = al_clock_ns();
        st = al_entdefs_load(&set, a->path, &diags);
        ms[r] = al_clock_ms_since(t0);
    }
    if (st != AL_OK) {
        al_tool_print_diags(a->path, &diags, stderr);
        free(ms);
        al_entdefs_clear(&set);
        al_diag_list_clear(&diags);
        return 1;
    }
    int classes = 0;
    for (int i = 0; i < set.class_count; i++) classes += set.classes[i].kind != AL_ENTDEF_BASE;
    double fastest = ms[0];
    for (int r = 1; r < runs; r++) fastest = ms[r] < fastest ? ms[r] : fastest;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "file", a->path);
    cJSON_AddNumberToObject(j, "runs", runs);
    cJSON_AddNumberToObject(j, "classes", classes);
    cJSON_AddNumberToObject(j, "base_classes", set.class_count - classes);
    cJSON_AddNumberToObject(j, "files", set.file_count);
    cJSON_AddNumberToObject(j, "errors", (double) al_diag_count(&diags, AL_SEVERITY_ERROR));
    cJSON_AddNumberToObject(j, "warnings",
                            (double) (al_diag_count(&diags, AL_SEVERITY_WARNING) -
                                      al_diag_count(&diags, AL_SEVERITY_ERROR)));
    cJSON_AddNumberToObject(j, "ms_median", median(ms, runs));
    cJSON_AddNumberToObject(j, "ms_min", fastest);
    bool ok = al_report_print(j, stdout);
    free(ms);
    al_entdefs_clear(&set);
    al_diag_list_clear(&diags);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    args a;
    if (parse_args(argc, argv, &a) < 0) return usage();
    if (strcmp(a.command, "compile") == 0) return cmd_compile(&a);
    if (strcmp(a.command, "trace") == 0) return cmd_trace(&a);
    if (strcmp(a.command, "verify") == 0) return cmd_verify(&a);
    if (strcmp(a.command, "classify") == 0) return cmd_classify(&a);
    if (strcmp(a.command, "light") == 0) return cmd_light(&a);
    if (strcmp(a.command, "slice") == 0) return cmd_slice(&a);
    if (strcmp(a.command, "document") == 0) return cmd_document(&a);
    if (strcmp(a.command, "rad") == 0) return cmd_rad(&a);
    if (strcmp(a.command, "edit") == 0) return cmd_edit(&a);
    if (strcmp(a.command, "spheretree") == 0) return cmd_spheretree(&a);
    if (strcmp(a.command, "bsp") == 0) return cmd_bsp(&a);
    if (strcmp(a.command, "agents") == 0) return cmd_agents(&a);
    if (strcmp(a.command, "defs") == 0) return cmd_defs(&a);
    fprintf(stderr, "error: unknown command %s\n", a.command);
    return usage();
}
