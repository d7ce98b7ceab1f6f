/* Entity property checks (see properties.h), with cJSON. */
#include "properties.h"

#include "al-epsilon.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEY 255
#define MAX_VALUE 4096

static al_status bad(al_diag_list *diags, const char *key, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static al_status bad(al_diag_list *diags, const char *key, const char *format, ...)
{
    char why[160];
    va_list args;
    va_start(args, format);
    vsnprintf(why, sizeof why, al_diag_translate(format), args);
    va_end(args);
    al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                "property \"%.40s\": %s", key ? key : "", why);
    return AL_ERR_INVALID_ARGUMENT;
}

/* Parses up to MAX numbers separated by spaces; returns how many, or -1 on junk. */
static int parse_numbers(const char *s, double *out, int max)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t') s++;
        if (!*s) return n;
        if (n == max) return -1;
        char *end;
        double v = strtod(s, &end);
        if (end == s || !isfinite(v) || (*end && *end != ' ' && *end != '\t')) return -1;
        out[n++] = v;
        s = end;
    }
}

static bool in_list(const char *key, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(key, *list) == 0) return true;
    return false;
}

al_status al_property_check(const char *key, const char *value, al_diag_list *diags)
{
    if (!key || !key[0]) return bad(diags, key, "the key is empty");
    if (strlen(key) > MAX_KEY) return bad(diags, key, "the key is longer than %d bytes", MAX_KEY);
    if (strpbrk(key, "\n\r\"")) return bad(diags, key, "the key holds a line break or a quote");
    if (!value) return AL_OK;
    if (strlen(value) > MAX_VALUE)
        return bad(diags, key, "the value is longer than %d bytes", MAX_VALUE);
    if (strpbrk(value, "\n\r")) return bad(diags, key, "the value holds a line break");
    static const char *const vectors[] = {"origin", "angles", "mangle", NULL};
    static const char *const numbers[] = {
        "angle",      "light",           "wait",       "delay",     "_cone",     "speed",
        "lip",        "health",          "dmg",        "count",     "_falloff",  "_anglescale",
        "_deviance",  "_samples",        "_softangle", "_minlight", "_sunlight", "_sunlight2",
        "_sunlight3", "_surface_offset", NULL};
    double v[4];
    if (in_list(key, vectors)) {
        if (parse_numbers(value, v, 3) != 3)
            return bad(diags, key, "expected three numbers, found \"%.40s\"", value);
        if (strcmp(key, "origin") == 0)
            for (int k = 0; k < 3; k++)
                if (fabs(v[k]) > AL_COORD_MAX)
                    return bad(diags, key, "%g is beyond the map's limit of +-%g", v[k],
                               AL_COORD_MAX);
    } else if (in_list(key, numbers)) {
        if (parse_numbers(value, v, 1) != 1)
            return bad(diags, key, "expected a number, found \"%.40s\"", value);
        if (fabs(v[0]) > 1e9) return bad(diags, key, "%g is out of range", v[0]);
    } else if (strcmp(key, "spawnflags") == 0) {
        if (parse_numbers(value, v, 1) != 1 || v[0] < 0 || v[0] > 2147483647.0 ||
            v[0] != floor(v[0]))
            return bad(diags, key, "expected a non-negative whole number, found \"%.40s\"",
                       value);
    } else if (strcmp(key, "_color") == 0) {
        if (parse_numbers(value, v, 3) != 3)
            return bad(diags, key, "expected three numbers (red green blue), found \"%.40s\"",
                       value);
        for (int k = 0; k < 3; k++)
            if (v[k] < 0 || v[k] > 255)
                return bad(diags, key, "%g is outside 0..255", v[k]);
    }
    return AL_OK;
}

al_status al_properties_check(const char *json, size_t size, char **normalized,
                              al_diag_list *diags)
{
    if (normalized) *normalized = NULL;
    cJSON *root = cJSON_ParseWithLength(json, size);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        long offset = at && at >= json && at <= json + size ? (long) (at - json) : -1;
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "properties: not valid JSON (near byte %ld)", offset);
        return AL_ERR_INVALID_ARGUMENT;
    }
    al_status st = AL_OK;
    if (!cJSON_IsObject(root)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "properties: expected a JSON object of \"key\": \"value\" pairs");
        st = AL_ERR_INVALID_ARGUMENT;
    }
    for (cJSON *item = root->child; item && st == AL_OK; item = item->next) {
        if (!cJSON_IsString(item) || !item->valuestring) {
            st = bad(diags, item->string, "the value must be a string");
            break;
        }
        /* A key twice would be ambiguous on export. */
        for (cJSON *other = root->child; other != item; other = other->next)
            if (other->string && item->string && strcmp(other->string, item->string) == 0) {
                st = bad(diags, item->string, "the key appears twice");
                break;
            }
        if (st == AL_OK) st = al_property_check(item->string, item->valuestring, diags);
    }
    if (st == AL_OK && normalized) {
        *normalized = cJSON_PrintUnformatted(root);
        if (!*normalized) st = AL_ERR_NOMEM;
    }
    cJSON_Delete(root);
    return st;
}

al_status al_properties_set(const char *json, const char *key, const char *value, char **out,
                            al_diag_list *diags)
{
    *out = NULL;
    al_status st = al_property_check(key, value, diags);
    if (st != AL_OK) return st;
    cJSON *root = cJSON_Parse(json ? json : "{}");
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return bad(diags, key, "the entity's stored properties are not a JSON object");
    }
    cJSON_DeleteItemFromObjectCaseSensitive(root, key);
    if (value && !cJSON_AddStringToObject(root, key, value)) {
        cJSON_Delete(root);
        return AL_ERR_NOMEM;
    }
    *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return *out ? AL_OK : AL_ERR_NOMEM;
}

char *al_properties_get(const char *json, const char *key)
{
    cJSON *root = cJSON_Parse(json ? json : "{}");
    cJSON *item = root ? cJSON_GetObjectItemCaseSensitive(root, key) : NULL;
    char *v = cJSON_IsString(item) && item->valuestring ? strdup(item->valuestring) : NULL;
    cJSON_Delete(root);
    return v;
}
