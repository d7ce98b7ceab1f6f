/* The map's materials: setting a material's light and listing the materials with their
 * use (see document.h).
 *
 * A material row is made the first time a face names it (al_doc_material_id, edits.c),
 * with a colour and flags from its name; here the designer changes its colour,
 * reflectance and emission. A change is an undoable step like any other edit and reports
 * al_doc_change.materials, which tells the editor to refresh the compiled world's
 * material colours and its radiosity.
 *
 * Workload: listing lq-e3m4's materials counts its 22,180 faces in one grouped scan.
 */
#include "doc-internal.h"

#include "materials/material-defaults.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Refuses VALUE for FIELD of material NAME unless it is a number within LO..HI. */
static bool check_value(const char *name, const char *field, double value, double lo, double hi,
                        al_diag_list *diags)
{
    if (isfinite(value) && value >= lo && value <= hi) return true;
    if (isinf(hi))
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "material \"%.100s\": %s %g is not a finite number of at least %g", name, field,
                    value, lo);
    else
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "material \"%.100s\": %s %g is not a number within %g..%g", name, field, value,
                    lo, hi);
    return false;
}

static bool check_material(const al_doc_material *m, al_diag_list *diags)
{
    if (!m->name || !m->name[0] || strlen(m->name) > 255) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "material: the name is empty or longer than 255 bytes");
        return false;
    }
    static const char *const colour[3] = {"colour red", "colour green", "colour blue"};
    static const char *const emission[3] = {"emission red", "emission green", "emission blue"};
    for (int k = 0; k < 3; k++)
        if (!check_value(m->name, colour[k], m->colour[k], 0, 1, diags) ||
            !check_value(m->name, emission[k], m->emission[k], 0, INFINITY, diags))
            return false;
    /* Negative means unset, but NaN is no number at all. */
    return m->reflectance < 0 || check_value(m->name, "reflectance", m->reflectance, 0, 1, diags);
}

al_status al_doc_set_material(al_doc *doc, const al_doc_material *m, al_doc_change *change,
                              al_diag_list *diags)
{
    /* An update that would store the same values is skipped, so no step is recorded. */
    static const char *sql =
        "INSERT INTO materials(name, red, green, blue, reflectance, emit_red, emit_green, "
        "emit_blue, flags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
        "red = excluded.red, green = excluded.green, blue = excluded.blue, "
        "reflectance = excluded.reflectance, emit_red = excluded.emit_red, "
        "emit_green = excluded.emit_green, emit_blue = excluded.emit_blue "
        "WHERE red IS NOT excluded.red OR green IS NOT excluded.green "
        "OR blue IS NOT excluded.blue OR reflectance IS NOT excluded.reflectance "
        "OR emit_red IS NOT excluded.emit_red OR emit_green IS NOT excluded.emit_green "
        "OR emit_blue IS NOT excluded.emit_blue";
    if (!check_material(m, diags)) return AL_ERR_INVALID_ARGUMENT;
    al_status st = al_doc_edit_begin(doc, "Set material");
    if (st != AL_OK) return st;
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return al_doc_edit_end(doc, AL_ERR_IO, change);
    sqlite3_bind_text(s, 1, m->name, -1, SQLITE_TRANSIENT);
    for (int k = 0; k < 3; k++) {
        sqlite3_bind_double(s, 2 + k, m->colour[k]);
        sqlite3_bind_double(s, 6 + k, m->emission[k]);
    }
    if (m->reflectance < 0)
        sqlite3_bind_null(s, 5);
    else
        sqlite3_bind_double(s, 5, m->reflectance);
    sqlite3_bind_int64(s, 9, al_material_default_flags(m->name));
    if (sqlite3_step(s) != SQLITE_DONE)
        st = al_doc_sqlite_status(doc, sqlite3_errcode(doc->db), "setting a material", diags);
    else if (sqlite3_changes(doc->db) > 0)
        doc->pending.materials = true;
    return al_doc_edit_end(doc, st, change);
}

al_status al_doc_set_texture_colours(al_doc *doc, const al_doc_texture_colour *colours, int count,
                                     al_doc_change *change, al_diag_list *diags)
{
    static const char *sql =
        "UPDATE materials SET texture_red = ?2, texture_green = ?3, texture_blue = ?4 "
        "WHERE name = ?1 AND (texture_red IS NOT ?2 OR texture_green IS NOT ?3 "
        "OR texture_blue IS NOT ?4)";
    static const char *const channel[3] = {"texture red", "texture green", "texture blue"};
    if (change) al_doc_change_clear(change);
    if (doc->read_only) return AL_ERR_READ_ONLY;
    if (doc->in_group || doc->step) return AL_ERR_INVALID_ARGUMENT; /* inside an edit */
    for (int i = 0; i < count; i++) {
        const char *name = colours[i].material ? colours[i].material : "";
        for (int k = 0; colours[i].found && k < 3; k++)
            if (!check_value(name, channel[k], colours[i].average[k], 0, 1, diags))
                return AL_ERR_INVALID_ARGUMENT;
    }
    if (al_doc_exec(doc, "BEGIN IMMEDIATE") != SQLITE_OK) return AL_ERR_LOCKED;
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    al_status st = s ? AL_OK : AL_ERR_IO;
    int changed = 0;
    for (int i = 0; st == AL_OK && i < count; i++) {
        if (!colours[i].material) continue;
        sqlite3_bind_text(s, 1, colours[i].material, -1, SQLITE_STATIC);
        for (int k = 0; k < 3; k++)
            if (colours[i].found)
                sqlite3_bind_double(s, 2 + k, colours[i].average[k]);
            else
                sqlite3_bind_null(s, 2 + k);
        if (sqlite3_step(s) != SQLITE_DONE)
            st = al_doc_sqlite_status(doc, sqlite3_errcode(doc->db), "storing texture colours",
                                      diags);
        else
            changed += sqlite3_changes(doc->db);
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
    }
    if (st == AL_OK && al_doc_exec(doc, "COMMIT") != SQLITE_OK) st = AL_ERR_IO;
    if (st != AL_OK) {
        al_doc_exec(doc, "ROLLBACK");
        return st;
    }
    if (change) change->materials = changed > 0;
    return AL_OK;
}

void al_doc_materials_free(al_doc_material *materials, int count)
{
    if (!materials) return;
    for (int i = 0; i < count; i++) free((char *) materials[i].name);
    free(materials);
}

al_status al_doc_list_materials(al_doc *doc, al_doc_material **out, int *count)
{
    static const char *sql =
        "SELECT m.name, m.red, m.green, m.blue, m.reflectance, m.emit_red, m.emit_green, "
        "m.emit_blue, m.flags, coalesce(u.n, 0) FROM materials m LEFT JOIN "
        "(SELECT material, count(*) AS n FROM faces GROUP BY material) u ON u.material = m.id "
        "ORDER BY m.name";
    *out = NULL;
    *count = 0;
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) return AL_ERR_IO;
    al_doc_material *list = NULL;
    int n = 0, capacity = 0, rc = SQLITE_DONE;
    al_status status = AL_OK;
    while (status == AL_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!al_doc_grow((void **) &list, &capacity, n, sizeof *list)) {
            status = AL_ERR_NOMEM;
            break;
        }
        al_doc_material *m = &list[n];
        memset(m, 0, sizeof *m);
        if (!(m->name = strdup((const char *) sqlite3_column_text(st, 0)))) {
            status = AL_ERR_NOMEM;
            break;
        }
        n++;
        for (int k = 0; k < 3; k++) {
            m->colour[k] = sqlite3_column_double(st, 1 + k);
            m->emission[k] = sqlite3_column_double(st, 5 + k);
        }
        m->reflectance =
            sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 4);
        m->flags = (uint32_t) sqlite3_column_int64(st, 8);
        m->uses = sqlite3_column_int(st, 9);
    }
    if (status == AL_OK && rc != SQLITE_DONE) status = AL_ERR_IO;
    sqlite3_reset(st);
    if (status != AL_OK) {
        al_doc_materials_free(list, n);
        return status;
    }
    *out = list;
    *count = n;
    return AL_OK;
}
