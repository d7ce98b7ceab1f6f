/* libFuzzer target: WAD2 and WAD3 archives. Whatever reads is looked up and its pixels
 * summed, with a WAD2 texture's palette indices of all four mip levels (every byte of
 * every texture touched). Crashes, sanitizer reports and hangs are
 * bugs; a refusal must say why. */
#include "textures/wad.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    al_wad *wad = NULL;
    al_diag_list diags = {0};
    if (al_wad_read(data, size, "fuzz.wad", NULL, &wad, &diags) == AL_OK) {
        unsigned sum = 0;
        for (int i = 0; i < wad->count; i++) {
            const al_texture *t = &wad->textures[i];
            if (al_wad_find(wad, t->name) == NULL) abort();
            for (size_t p = 0; p < (size_t) t->width * (size_t) t->height * 4; p++)
                sum += t->rgba[p];
            if ((wad->version == 2) != (t->indices != NULL)) abort();
            for (size_t p = 0; t->indices && p < al_texture_mip_bytes(t->width, t->height); p++)
                sum += t->indices[p];
        }
        (void) sum;
        al_wad_free(wad);
    } else if (diags.count == 0) {
        abort();
    }
    al_diag_list_clear(&diags);
    return 0;
}
