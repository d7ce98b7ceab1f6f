/* allium-compile: compile a .map and print a report.
 *
 *   allium-compile [--hull NAME=minx,miny,minz,maxx,maxy,maxz ...] [--block-size N]
 *                  [--threads N] [--json] MAP
 *
 * Exit status: 0 when the map compiled (invalid brushes are reported, not fatal), 1 when
 * the file could not be read or compiled, 2 for a usage error.
 */
#include "load.h"
#include "report.h"

#include <stdio.h>
#include <string.h>

static int usage(FILE *to)
{
    fprintf(to, "usage: allium-compile [--hull NAME=minx,miny,minz,maxx,maxy,maxz ...] "
                "[--block-size N] [--threads N] [--json] MAP\n");
    return to == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    al_tool_options options = {0};
    bool json = false;
    const char *path = NULL;
    for (int i = 1; i < argc;) {
        int used = al_tool_parse_option(argc, argv, &i, &options);
        if (used < 0) return 2;
        if (used) continue;
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
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

    al_tool_map m;
    if (!al_tool_load(path, &options, &m)) return 1;
    al_world *w = al_tool_compile(&m, &options);
    if (!w) {
        al_tool_map_free(&m);
        return 1;
    }
    if (json) {
        al_world_stats s;
        al_world_get_stats(w, &s);
        if (!al_report_print(al_report_json(&m, w, &s), stdout)) {
            fprintf(stderr, "error: out of memory while writing the report\n");
            al_world_destroy(w);
            al_tool_map_free(&m);
            return 1;
        }
    } else {
        al_report_text(&m, w, stdout);
    }
    al_world_destroy(w);
    al_tool_map_free(&m);
    return 0;
}
