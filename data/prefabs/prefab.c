/* Prefabs (prefab.h): the clipboard's fragment text in a file. */
#include "prefab.h"

#include "files/files.h"

#include <stdlib.h>
#include <string.h>

al_status al_prefab_save(al_doc *doc, const int64_t *brushes, int brush_count,
                         const int64_t *entities, int entity_count, const char *path,
                         al_diag_list *diags)
{
    char *text = NULL;
    size_t length = 0;
    al_status st =
        al_doc_copy_text(doc, brushes, brush_count, entities, entity_count, &text, &length, diags);
    if (st != AL_OK) return st;
    if (!al_file_write_atomic(path, text, length, diags)) st = AL_ERR_IO;
    free(text);
    return st;
}

al_status al_prefab_read(const char *path, al_map **out, al_diag_list *diags)
{
    *out = NULL;
    char *text = NULL;
    size_t size = 0;
    if (!al_file_read_all(path, AL_PREFAB_MAX_BYTES, &text, &size, diags)) return AL_ERR_IO;
    al_status st = al_map_read_fragment(text, size, out, diags);
    free(text);
    return st;
}

al_status al_prefab_insert(al_doc *doc, const char *path, const al_doc_paste_place *place,
                           al_doc_paste_result *result, al_doc_change *change, al_diag_list *diags)
{
    memset(result, 0, sizeof *result);
    al_map *map = NULL;
    al_status st = al_prefab_read(path, &map, diags);
    if (st != AL_OK) return st;
    st = al_doc_paste_map(doc, map, place, result, change, diags);
    al_map_destroy(map);
    return st;
}
