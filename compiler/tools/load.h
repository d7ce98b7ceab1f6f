/* Shared by the command-line tools: read a .map, apply hull and block options, compile. */
#ifndef AL_TOOLS_LOAD_H
#define AL_TOOLS_LOAD_H

#include "al-world.h"
#include "mapfile/map-input.h"

#include <stdio.h>

typedef struct al_tool_options {
    al_hull_desc hulls[AL_MAX_HULLS]; /* from --hull, replacing the map's list */
    int hull_count;
    double block_size; /* --block-size, 0: the map's or the default */
    int threads;       /* --threads, 0: all CPUs */
    int split_candidates; /* --split-candidates, 0: the compiler's default */
    double split_balance; /* --split-balance, 0: the compiler's default */
} al_tool_options;

typedef struct al_tool_map {
    const char *path;
    al_map *map;
    al_map_input input;
    al_diag_list diags; /* reader and settings diagnostics */
    double ms_read;
} al_tool_map;

/* Parses "--hull NAME=..." (adding to OPTIONS; the point hull is kept first), "--block-size
 * N" and "--threads N" at ARGV[*I]; advances *I past what it used. Returns 1 if it used an
 * option, 0 if ARGV[*I] is not one of these, -1 after printing an error. */
int al_tool_parse_option(int argc, char **argv, int *i, al_tool_options *options);

/* Reads PATH into OUT and applies OPTIONS to its input. Prints a clear error and returns
 * false if the file cannot be read. */
bool al_tool_load(const char *path, const al_tool_options *options, al_tool_map *out);

void al_tool_map_free(al_tool_map *m);

/* Compiles M; prints errors. Returns NULL on failure. */
al_world *al_tool_compile(al_tool_map *m, const al_tool_options *options);

/* Prints every diagnostic of LIST as "path:line:column: severity: message". */
void al_tool_print_diags(const char *path, const al_diag_list *list, FILE *to);

/* Peak resident set size of this process in KiB. */
long al_tool_peak_rss_kb(void);

#endif
