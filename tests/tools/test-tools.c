/* The command-line tools, run as a user runs them: report keys, exit status, errors.
 * Arguments: allium-compile allium-bench sample.map scratch-dir. */
#include "check.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *compile_tool, *bench_tool, *sample_map, *scratch;

/* Runs COMMAND, capturing stdout into OUT (malloc'd); returns the exit status. */
static int run(const char *command, char **out)
{
    FILE *p = popen(command, "r");
    if (!p) return -1;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (n + 1 >= cap) buf = realloc(buf, cap *= 2);
    }
    buf[n] = '\0';
    int status = pclose(p);
    if (out) *out = buf;
    else free(buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static cJSON *path(cJSON *o, const char *a, const char *b)
{
    cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

CHECK_TEST(compile_json, "/tools/allium-compile-json-has-the-report-keys")
{
    char cmd[4096], *out;
    snprintf(cmd, sizeof cmd, "'%s' --json '%s'", compile_tool, sample_map);
    REQUIRE(run(cmd, &out) == 0);
    cJSON *r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    CHECK(cJSON_IsString(path(r, "input", NULL)));
    CHECK(cJSON_IsNumber(path(r, "brushes", NULL)) && path(r, "brushes", NULL)->valuedouble > 10);
    CHECK(cJSON_IsNumber(path(r, "entities", NULL)));
    CHECK(cJSON_IsNumber(path(r, "invalid_brushes", NULL)));
    CHECK(path(r, "invalid_brushes", NULL)->valuedouble == 0);
    cJSON *hulls = path(r, "hulls", NULL);
    CHECK(cJSON_GetArraySize(hulls) == 4);
    cJSON *h1 = cJSON_GetArrayItem(hulls, 1);
    CHECK(strcmp(cJSON_GetObjectItem(h1, "name")->valuestring, "stand") == 0);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(h1, "mins")) == 3);
    cJSON *bsp = path(path(r, "stages", NULL), "bsp", NULL);
    for (const char *k = "ms\0nodes\0leaves\0blocks\0"; *k; k += strlen(k) + 1)
        CHECK_MSG(cJSON_IsNumber(cJSON_GetObjectItem(bsp, k)), "stages.bsp.%s missing", k);
    CHECK(cJSON_IsNumber(path(r, "peak_rss_kb", NULL)));
    CHECK(cJSON_IsArray(path(r, "diagnostics", NULL)));
    cJSON_Delete(r);
}

CHECK_TEST(compile_hulls, "/tools/allium-compile-hull-and-block-options")
{
    char cmd[4096], *out;
    snprintf(cmd, sizeof cmd,
             "'%s' --json --hull tiny=-4,-4,-4,4,4,4 --hull 'big=-40,-40,-40,40,40,40' "
             "--block-size 512 '%s'",
             compile_tool, sample_map);
    REQUIRE(run(cmd, &out) == 0);
    cJSON *r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    cJSON *hulls = path(r, "hulls", NULL);
    REQUIRE(cJSON_GetArraySize(hulls) == 3); /* point kept first */
    CHECK(strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(hulls, 0), "name")->valuestring,
                 "point") == 0);
    CHECK(strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(hulls, 2), "name")->valuestring,
                 "big") == 0);
    cJSON_Delete(r);
    snprintf(cmd, sizeof cmd, "'%s' --hull bad=1,2 '%s' 2>&1", compile_tool, sample_map);
    CHECK(run(cmd, &out) == 2);
    CHECK(strstr(out, "6 numbers") != NULL);
    free(out);
}

CHECK_TEST(compile_errors, "/tools/allium-compile-reports-bad-files-with-line-and-column")
{
    char file[4096], cmd[8192], *out;
    snprintf(file, sizeof file, "%s/broken.map", scratch);
    FILE *f = fopen(file, "w");
    REQUIRE(f);
    fputs("{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 1 0 0 )\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' '%s' 2>&1", compile_tool, file);
    CHECK(run(cmd, &out) == 1);
    /* The file ends where the third point should start. */
    CHECK_MSG(strstr(out, "broken.map:5:1: error") != NULL && strstr(out, "end of the file") &&
                  !strstr(out, "skipped"),
              "output: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' /nonexistent.map 2>&1", compile_tool);
    CHECK(run(cmd, &out) == 1);
    CHECK(strstr(out, "cannot open") != NULL);
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' 2>&1", compile_tool);
    CHECK(run(cmd, &out) == 2);
    CHECK(strstr(out, "usage") != NULL);
    free(out);
}

CHECK_TEST(bench_outputs, "/tools/allium-bench-subcommands-print-json")
{
    char cmd[4096], *out;
    snprintf(cmd, sizeof cmd, "'%s' trace '%s' --count 20000", bench_tool, sample_map);
    REQUIRE(run(cmd, &out) == 0);
    cJSON *r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    for (const char *k = "median_ns\0traces_per_s\0oracle_checked\0oracle_mismatches\0"; *k;
         k += strlen(k) + 1)
        CHECK_MSG(cJSON_IsNumber(cJSON_GetObjectItem(r, k)), "trace.%s missing", k);
    CHECK(cJSON_GetObjectItem(r, "oracle_checked")->valuedouble > 0);
    CHECK(cJSON_GetObjectItem(r, "oracle_mismatches")->valuedouble == 0);
    cJSON_Delete(r);

    snprintf(cmd, sizeof cmd, "'%s' verify '%s' --points 20000 --traces 2000", bench_tool,
             sample_map);
    REQUIRE(run(cmd, &out) == 0);
    r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    CHECK(cJSON_GetObjectItem(r, "total_mismatches")->valuedouble == 0);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(r, "hulls")) == 4);
    cJSON_Delete(r);

    snprintf(cmd, sizeof cmd, "'%s' compile '%s' --runs 3", bench_tool, sample_map);
    REQUIRE(run(cmd, &out) == 0);
    r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    CHECK(cJSON_IsNumber(path(path(r, "stages", NULL), "bsp", "ms")));
    CHECK(cJSON_GetObjectItem(r, "runs")->valuedouble == 3);
    cJSON_Delete(r);
}

CHECK_TEST(classify, "/tools/allium-bench-classify-answers-per-line")
{
    char cmd[4096], *out;
    /* The sample map's player start stands in empty space; far below the floor is void
     * (empty); just under the floor's top is solid for the stand hull. */
    snprintf(cmd, sizeof cmd,
             "printf '256 256 25\\n256 256 10\\n\\n0 0 -5000\\nbad line\\n' | '%s' classify '%s' "
             "--hull stand 2>/dev/null",
             bench_tool, sample_map);
    CHECK(run(cmd, &out) == 1); /* the bad line is reported */
    CHECK_MSG(strcmp(out, "0\n1\n0\n") == 0, "got: %s", out);
    free(out);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: test-tools allium-compile allium-bench MAP SCRATCH\n");
        return 2;
    }
    compile_tool = argv[1];
    bench_tool = argv[2];
    sample_map = argv[3];
    scratch = argv[4];
    return check_main(argc - 4, argv + 4);
}
