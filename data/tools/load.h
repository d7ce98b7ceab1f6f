/* Shared by the command-line tools: read a .map or open a map document (.allium), apply
 * hull and block options, compile (through the document's cache of compiled results). */
#ifndef AL_TOOLS_LOAD_H
#define AL_TOOLS_LOAD_H

#include "al-world.h"
#include "mapfile/map-input.h"
#include "store/document.h"

#include <stdio.h>

typedef struct al_tool_options {
    al_hull_desc hulls[AL_MAX_HULLS]; /* from --hull, replacing the map's list */
    int hull_count;
    double block_size; /* --block-size, 0: the map's or the default */
    int threads;       /* --threads, 0: all CPUs */
    int split_candidates; /* --split-candidates, 0: the compiler's default */
    double split_balance; /* --split-balance, 0: the compiler's default */
    al_pvs_level pvs;     /* --pvs tight|coarse|none */
    bool use_cache;       /* documents: take the compile from the cache, store it there */
} al_tool_options;

typedef struct al_tool_map {
    const char *path;
    al_map *map; /* read from a .map file, or NULL */
    al_map_input map_input;
    al_doc *doc; /* opened from a .allium file, or NULL */
    al_doc_input doc_input;
    al_input input;      /* what is compiled: the file's, with the options applied */
    int skipped_brushes; /* bad brushes the .map reader left out */
    al_diag_list diags;  /* reader and settings diagnostics */
    double ms_read;
    /* The cache of compiled results (documents only), filled by al_tool_compile. */
    const char *cache; /* "hit", "stored", or why it was not used: "read-only", ... */
    double ms_cache;   /* loading the stored compile (a hit) or storing it */
    size_t cache_bytes;
} al_tool_map;

/* Parses "--hull NAME=..." (adding to OPTIONS; the point hull is kept first), "--block-size
 * N" and "--threads N" at ARGV[*I]; advances *I past what it used. Returns 1 if it used an
 * option, 0 if ARGV[*I] is not one of these, -1 after printing an error. */
int al_tool_parse_option(int argc, char **argv, int *i, al_tool_options *options);

/* Whether PATH is a map document rather than a .map: it starts like an SQLite database, or
 * its name ends in ".allium". */
bool al_tool_is_document(const char *path);

/* Reads PATH (a .map, or a map document found by its content, whatever its name) into OUT
 * and applies OPTIONS to its input. A document open for writing elsewhere, or not
 * writable, is read without its cache being updated. Prints a clear error and returns false
 * if the file cannot be read. */
bool al_tool_load(const char *path, const al_tool_options *options, al_tool_map *out);

void al_tool_map_free(al_tool_map *m);

/* Compiles M, or for a document with OPTIONS->use_cache loads the compile stored for this
 * very input and stores a new one; prints errors. Returns NULL on failure. */
al_world *al_tool_compile(al_tool_map *m, const al_tool_options *options);

/* Prints every diagnostic of LIST as "path:line:column: severity: message". */
void al_tool_print_diags(const char *path, const al_diag_list *list, FILE *to);

/* Removes the document at PATH with its -wal and -shm files (one this program made). */
void al_tool_remove_document(const char *path);

/* Peak resident set size of this process in KiB. */
long al_tool_peak_rss_kb(void);

#endif
