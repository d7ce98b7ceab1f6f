/* The compile report as JSON (allium-compile --json, allium-bench compile). */
#ifndef AL_TOOLS_REPORT_H
#define AL_TOOLS_REPORT_H

#include "load.h"

#include <cjson/cJSON.h>

/* The report object for M compiled into W, with STATS (which may be medians of several
 * runs). Returns NULL if memory runs out. */
cJSON *al_report_json(const al_tool_map *m, const al_world *w, const al_world_stats *stats);

/* The human-readable report. */
void al_report_text(const al_tool_map *m, const al_world *w, FILE *to);

/* Prints OBJECT followed by a newline and frees it. Returns false if it was NULL. */
bool al_report_print(cJSON *object, FILE *to);

#endif
