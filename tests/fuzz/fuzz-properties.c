/* libFuzzer target: entity properties as JSON, and single properties as key and value.
 *
 * The input is a properties object; a refused object must come with a diagnostic, and an
 * accepted one must normalize to a fixed point (checking the normalized text accepts it
 * and prints it unchanged). The input split at its first newline is also tried as one
 * key and value: checked, set into the normalized object, read back and removed again.
 * See tests/meson.build for running it. */
#include "store/properties.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *json = (const char *) data;
    al_diag_list diags = {0};
    char *normalized = NULL;
    al_status st = al_properties_check(json, size, &normalized, &diags);
    if (st != AL_OK && diags.count == 0) abort();
    if (st == AL_OK) {
        char *again = NULL;
        if (al_properties_check(normalized, strlen(normalized), &again, NULL) != AL_OK) abort();
        if (strcmp(again, normalized) != 0) abort();
        free(again);
    }

    /* KEY\nVALUE, as C strings (a NUL inside ends them early, as it would for a caller). */
    char *text = malloc(size + 1);
    if (!text) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char *newline = strchr(text, '\n');
    const char *key = text, *value = newline ? newline + 1 : "";
    if (newline) *newline = '\0';
    al_diag_list d2 = {0};
    al_status one = al_property_check(key, value, &d2);
    if (one != AL_OK && d2.count == 0) abort();
    char *set = NULL;
    const char *base = normalized ? normalized : "{}";
    al_status s2 = al_properties_set(base, key, value, &set, NULL);
    if (s2 == AL_OK) {
        /* What was set reads back as set, and removing it gives a valid object. */
        char *got = al_properties_get(set, key);
        if (one == AL_OK && (!got || strcmp(got, value) != 0)) abort();
        free(got);
        char *removed = NULL;
        if (al_properties_set(set, key, NULL, &removed, NULL) == AL_OK) {
            char *gone = al_properties_get(removed, key);
            if (gone) abort();
            free(removed);
        }
        free(set);
    }
    free(text);
    free(normalized);
    al_diag_list_clear(&diags);
    al_diag_list_clear(&d2);
    return 0;
}
