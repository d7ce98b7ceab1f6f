/* libFuzzer target: entity definition files, FGD and DEF. The first byte chooses the
 * format (even: FGD, odd: DEF), the rest is the text, read twice into one set as layered
 * files. Every class found is looked up by name and its properties walked; every
 * diagnostic must name a line within the text. Crashes, sanitizer reports and hangs are
 * bugs. The text comes from memory, so @include is refused and no file is opened. */
#include "entdefs/entdefs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    al_entdefs_format format = data[0] & 1 ? AL_ENTDEFS_DEF : AL_ENTDEFS_FGD;
    const char *text = (const char *) data + 1;
    size_t length = size - 1;
    int lines = 1;
    for (size_t i = 0; i < length; i++) lines += text[i] == '\n';
    al_entdefs set = {0};
    al_diag_list diags = {0};
    for (int pass = 0; pass < 2; pass++) {
        if (al_entdefs_read_buffer(&set, text, length, NULL, format, &diags) != AL_OK) abort();
    }
    for (size_t i = 0; i < diags.count; i++)
        if (diags.items[i].line > lines || diags.items[i].line == 0) abort();
    size_t sum = 0;
    for (int c = 0; c < set.class_count; c++) {
        const al_entdef_class *cls = &set.classes[c];
        if (al_entdefs_find(&set, cls->name) != cls) abort();
        if (cls->file < 0 || cls->file >= set.file_count) abort();
        sum += strlen(cls->description) + (cls->model ? strlen(cls->model) : 0);
        for (int b = 0; b < cls->base_count; b++) sum += strlen(cls->bases[b]);
        for (int p = 0; p < cls->property_count; p++) {
            const al_entdef_property *prop = &cls->properties[p];
            if (al_entdef_find_property(cls, prop->key) == NULL) abort();
            sum += strlen(prop->display) + strlen(prop->default_value) + strlen(prop->description);
            for (int k = 0; k < prop->choice_count; k++)
                sum += strlen(prop->choices[k].value) + strlen(prop->choices[k].label);
            for (int k = 0; k < prop->flag_count; k++)
                sum += strlen(prop->flags[k].label) + strlen(prop->flags[k].description);
        }
    }
    (void) sum;
    al_entdefs_clear(&set);
    al_diag_list_clear(&diags);
    return 0;
}
