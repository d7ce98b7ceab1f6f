/* The GUI self-test's texture alignment step, on the box the editing steps drew: the box's
 * top face is selected, its scale and offset typed into the inspector's texture fields
 * (Enter commits), Fit pressed, the texture shifted by Alt+Left's action, the top's texture
 * copied and pasted on a side (then undone); the document is checked after each, and the
 * texture coordinates after the fit in closed form.
 */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "mapfile/texture.h"

#include <math.h>
#include <string.h>

/* Face F of the brush ROW as the document holds it now: its points from the snapshot (an
 * alignment does not move them), its texture from the document. */
static gboolean read_face(SelfTest *t, gint64 row, int f, al_map_face *out, char material[256])
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    int b = snap ? allium_snapshot_brush_index(snap, row) : -1;
    al_doc_texture tex;
    if (b < 0 || f >= snap->input.input.brushes[b].face_count ||
        al_doc_face_texture(allium_document_get_doc(doc), row, f, &tex) != AL_OK)
        return FALSE;
    memset(out, 0, sizeof *out);
    const al_face_desc *d = &snap->input.input.faces[snap->input.input.brushes[b].first_face + f];
    memcpy(out->points, d->points, sizeof out->points);
    out->valve = tex.valve;
    memcpy(out->u_axis, tex.u_axis, sizeof out->u_axis);
    memcpy(out->v_axis, tex.v_axis, sizeof out->v_axis);
    out->u_offset = tex.u_offset;
    out->v_offset = tex.v_offset;
    memcpy(out->offset, tex.offset, sizeof out->offset);
    out->rotation = tex.rotation;
    memcpy(out->scale, tex.scale, sizeof out->scale);
    if (material) memcpy(material, tex.material, 256);
    return TRUE;
}

/* The box's faces facing up and facing -X (a side), by their normals. */
static void find_faces(SelfTest *t, int *top, int *side)
{
    *top = *side = -1;
    for (int f = 0; f < 32; f++) {
        al_map_face face;
        if (!read_face(t, t->box_row, f, &face, NULL)) break;
        double n[3];
        al_texture_face_normal(&face, n);
        if (n[2] > 0.999) *top = f;
        if (n[0] < -0.999) *side = f;
    }
}

static void type_into(AlliumTextureEditor *editor, const char *field, const char *text)
{
    GtkWidget *entry = allium_texture_editor_get_widget(editor, field);
    gtk_editable_set_text(GTK_EDITABLE(entry), text);
    g_signal_emit_by_name(entry, "activate");
}

gboolean step_align_texture(SelfTest *t)
{
    if (t->step_begun) return compiled_current(t->window);
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumSelection *sel = t->window->selection;
    int top, side;
    find_faces(t, &top, &side);
    check(t, top >= 0 && side >= 0, "the box's top and side faces found (%d, %d)", top, side);
    if (top < 0 || side < 0) return TRUE;
    gtk_stack_set_visible_child_name(t->window->sidebar_stack, "properties");
    allium_selection_select_face(sel, t->box_row, top, ALLIUM_SELECT_REPLACE);
    AlliumTextureEditor *editor = allium_inspector_get_texture_editor(t->window->inspector);
    check(t, gtk_widget_get_visible(GTK_WIDGET(editor)),
          "the inspector shows the texture fields for a selected face");

    al_map_face before, after;
    char material[256];
    read_face(t, t->box_row, top, &before, material);
    check(t, g_str_equal(allium_texture_editor_get_text(editor, "material"), material),
          "the name field shows the face's material (%s)", material);

    /* Scale U typed and Enter: that field alone changes. */
    type_into(editor, "scale-u", "0.5");
    read_face(t, t->box_row, top, &after, NULL);
    check(t,
          after.scale[0] == 0.5 && after.scale[1] == before.scale[1] &&
              al_texture_field_value(&after, AL_FIELD_OFFSET_U) ==
                  al_texture_field_value(&before, AL_FIELD_OFFSET_U) &&
              after.rotation == before.rotation,
          "typing 0.5 in Scale U sets only that (scale %g %g)", after.scale[0], after.scale[1]);
    type_into(editor, "offset-u", "12");
    read_face(t, t->box_row, top, &after, NULL);
    check(t, al_texture_field_value(&after, AL_FIELD_OFFSET_U) == 12 && after.scale[0] == 0.5,
          "typing 12 in Offset U sets it (%g)", al_texture_field_value(&after, AL_FIELD_OFFSET_U));
    check(t, g_str_equal(allium_texture_editor_get_text(editor, "offset-u"), "12"),
          "the field shows the stored value");
    type_into(editor, "scale-v", "0");
    check(t, *allium_texture_editor_get_message(editor) != '\0',
          "a scale of 0 is refused with a message (%s)", allium_texture_editor_get_message(editor));
    t->edits += 2;

    /* Fit once across the top: its corners' coordinates span the texture exactly. */
    /* A click (GtkButton's "activate" clicks only after its press animation). */
    g_signal_emit_by_name(allium_texture_editor_get_widget(editor, "fit"), "clicked");
    read_face(t, t->box_row, top, &after, NULL);
    double size[2];
    allium_document_texture_size(doc, material, size);
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, mins[3], maxs[3];
    check(t, row_bounds(t, t->box_row, mins, maxs), "the box's bounds");
    for (int c = 0; c < 4; c++) {
        double p[3] = {c & 1 ? maxs[0] : mins[0], c & 2 ? maxs[1] : mins[1], maxs[2]};
        double uv[2];
        al_texture_coords(&after, p, uv);
        for (int k = 0; k < 2; k++) {
            lo[k] = fmin(lo[k], uv[k]);
            hi[k] = fmax(hi[k], uv[k]);
        }
    }
    check(t,
          fabs(lo[0]) < 1e-9 && fabs(lo[1]) < 1e-9 && fabs(hi[0] - size[0]) < 1e-9 &&
              fabs(hi[1] - size[1]) < 1e-9,
          "Fit spans the %gx%g texture once across the top (u %g..%g, v %g..%g)%s", size[0],
          size[1], lo[0], hi[0], lo[1], hi[1], allium_texture_editor_get_message(editor));
    t->edits++;

    /* Alt+Left: a texel along U. */
    double u_before = al_texture_field_value(&after, AL_FIELD_OFFSET_U);
    check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.nudge-texture", "s", "left:1"),
          "win.nudge-texture activated");
    read_face(t, t->box_row, top, &after, NULL);
    check(t, fabs(al_texture_field_value(&after, AL_FIELD_OFFSET_U) - u_before - 1) < 1e-9,
          "Alt+Left shifts the texture a texel (offset %g to %g)", u_before,
          al_texture_field_value(&after, AL_FIELD_OFFSET_U));
    t->edits++;

    /* Copy the top's texture, paste it on the side, undo. */
    al_map_face side_before, side_after;
    read_face(t, t->box_row, side, &side_before, NULL);
    check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.copy-texture", NULL),
          "win.copy-texture activated");
    allium_selection_select_face(sel, t->box_row, side, ALLIUM_SELECT_REPLACE);
    check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.paste-texture", NULL),
          "win.paste-texture activated");
    read_face(t, t->box_row, side, &side_after, NULL);
    check(t,
          side_after.scale[0] == after.scale[0] && side_after.scale[1] == after.scale[1] &&
              al_texture_field_value(&side_after, AL_FIELD_OFFSET_U) ==
                  al_texture_field_value(&after, AL_FIELD_OFFSET_U),
          "the side took the top's scales and offsets (%g %g)", side_after.scale[0],
          side_after.scale[1]);
    GError *error = NULL;
    check(t, allium_document_undo(doc, &error), "undo the paste");
    g_clear_error(&error);
    read_face(t, t->box_row, side, &side_after, NULL);
    check(t,
          memcmp(side_after.offset, side_before.offset, sizeof side_before.offset) == 0 &&
              memcmp(side_after.scale, side_before.scale, sizeof side_before.scale) == 0 &&
              side_after.u_offset == side_before.u_offset &&
              side_after.rotation == side_before.rotation,
          "undo gives the side its texture back exactly");

    allium_selection_select_face(sel, t->box_row, top, ALLIUM_SELECT_REPLACE);
    GdkTexture *shot = screenshot(t, GTK_WIDGET(t->window), "texture-editor.png");
    g_clear_object(&shot);
    return FALSE;
}

/* The texture browser on the sample's WAD: its textures are listed under the WAD's name,
 * the search and "Used in map" filter them, and a double click gives one to the selected
 * face (one step, undone after) and makes it the new brushes' texture. */
gboolean step_texture_browser(SelfTest *t)
{
    if (t->step_begun) return compiled_current(t->window);
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumTextureBrowser *browser = t->window->texture_browser;
    AlliumTextures *textures = allium_document_get_textures(doc);
    gtk_stack_set_visible_child_name(t->window->sidebar_stack, "textures");
    int top, side;
    find_faces(t, &top, &side);
    al_map_face face;
    char material[256] = "";
    check(t, top >= 0 && read_face(t, t->box_row, top, &face, material), "the box's top face");
    check(t, textures && textures->catalogue_count > 0, "the sample's WAD gives %d textures",
          textures ? textures->catalogue_count : 0);
    if (!textures || textures->catalogue_count == 0 || top < 0) return TRUE;
    allium_texture_browser_set_search(browser, "");
    allium_texture_browser_set_used_only(browser, FALSE);
    guint all = allium_texture_browser_get_shown(browser);
    check(t, all >= (guint) textures->catalogue_count, "the browser lists them all (%u)", all);
    const AlliumTextureEntry *pick = NULL;
    for (int i = 0; i < textures->catalogue_count && !pick; i++)
        if (g_ascii_strcasecmp(textures->catalogue[i].name, material) != 0)
            pick = &textures->catalogue[i];
    check(t, pick != NULL, "a texture other than the top's");
    if (!pick) return TRUE;
    const char *group = allium_texture_browser_get_group(browser, pick->name);
    check(t, group && g_str_equal(group, pick->source), "%s is listed under its WAD (%s)",
          pick->name, group ? group : "nothing");
    allium_texture_browser_set_search(browser, pick->name);
    guint found = allium_texture_browser_get_shown(browser);
    check(t, found >= 1 && found < all, "searching its name leaves %u of %u", found, all);
    allium_texture_browser_set_search(browser, "");
    allium_texture_browser_set_used_only(browser, TRUE);
    guint used = allium_texture_browser_get_shown(browser);
    check(t, used >= 1 && used <= all, "\"Used in map\" leaves %u", used);
    allium_texture_browser_set_used_only(browser, FALSE);

    allium_selection_select_face(t->window->selection, t->box_row, top, ALLIUM_SELECT_REPLACE);
    check(t, allium_texture_browser_activate(browser, pick->name), "double click on %s: %s",
          pick->name, allium_texture_browser_get_message(browser));
    char now[256] = "";
    read_face(t, t->box_row, top, &face, now);
    check(t, g_ascii_strcasecmp(now, pick->name) == 0, "the top face took %s (%s)", pick->name,
          now);
    const char *current = allium_document_get_current_material(doc);
    check(t, current && g_str_equal(current, pick->name), "%s is the texture new brushes get (%s)",
          pick->name, allium_view_get_new_material(view_3d(t)));
    GdkTexture *shot = screenshot(t, GTK_WIDGET(t->window), "texture-browser.png");
    g_clear_object(&shot);
    GError *error = NULL;
    check(t, allium_document_undo(doc, &error), "undo the texture");
    g_clear_error(&error);
    read_face(t, t->box_row, top, &face, now);
    check(t, g_str_equal(now, material), "undo gives the top face %s again (%s)", material, now);
    allium_document_set_current_material(doc, NULL);
    gtk_stack_set_visible_child_name(t->window->sidebar_stack, "properties");
    return FALSE;
}

/* Every face's material in the current snapshot, by input face index (names borrowed from
 * the snapshot's input). */
static GPtrArray *face_materials(SelfTest *t)
{
    AlliumSnapshot *snap = allium_document_get_snapshot(allium_window_get_document(t->window));
    const al_input *in = &snap->input.input;
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    for (int f = 0; f < in->face_count; f++)
        g_ptr_array_add(out, g_strdup(in->materials[in->faces[f].material].name));
    return out;
}

/* A texture dragged from the browser (the drop target's own call,
 * allium_view_apply_material): onto the box's top face, seen from just above it in the 3D
 * view, it goes to that face alone; in the top view onto a box that nothing rises above
 * (by the bounds of every brush over its middle), to all that box's faces; each one
 * undoable step, undone. */
static struct {
    char name[64];
    int brush; /* the top view's box, an input brush index */
} dropped_texture;

/* An input brush of six faces, not a tool, whose middle (x, y) no other brush's bounds
 * cover higher up; -1 if none. Its middle into P (at its top). */
static int topmost_box(const AlliumSnapshot *snap, double p[3])
{
    const al_input *in = &snap->input.input;
    const al_scene *scene = snap->scene;
    for (int b = 0; scene && b < in->brush_count; b++) {
        double lo[3], hi[3];
        if (in->brushes[b].face_count != 6 || in->brushes[b].entity != 0 ||
            !al_scene_brush_bounds(scene, b, lo, hi) || hi[0] - lo[0] < 16 || hi[1] - lo[1] < 16)
            continue;
        const al_face_desc *f = &in->faces[in->brushes[b].first_face];
        if (in->materials[f->material].flags &
            (AL_MATERIAL_CLIP | AL_MATERIAL_NODRAW | AL_MATERIAL_HINT | AL_MATERIAL_TRIGGER))
            continue;
        double c[3] = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2]};
        gboolean covered = FALSE;
        for (int o = 0; o < in->brush_count && !covered; o++) {
            double olo[3], ohi[3];
            covered = o != b && al_scene_brush_bounds(scene, o, olo, ohi) && olo[0] <= c[0] &&
                      c[0] <= ohi[0] && olo[1] <= c[1] && c[1] <= ohi[1] && ohi[2] >= hi[2];
        }
        if (!covered) {
            memcpy(p, c, sizeof c);
            return b;
        }
    }
    return -1;
}

gboolean step_texture_drop(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    const al_input *in = &snap->input.input;
    double mins[3], maxs[3], x, y;
    if (!t->step_begun) {
        AlliumTextures *textures = allium_document_get_textures(doc);
        int top, side;
        find_faces(t, &top, &side);
        al_map_face face;
        char material[256] = "";
        check(t,
              top >= 0 && read_face(t, t->box_row, top, &face, material) &&
                  row_bounds(t, t->box_row, mins, maxs) && textures &&
                  textures->catalogue_count > 0,
              "the box, its top face and the sample's textures");
        if (top < 0 || !textures || textures->catalogue_count == 0) return TRUE;
        dropped_texture.name[0] = '\0';
        for (int i = 0; i < textures->catalogue_count && !dropped_texture.name[0]; i++)
            if (g_ascii_strcasecmp(textures->catalogue[i].name, material) != 0)
                g_strlcpy(dropped_texture.name, textures->catalogue[i].name,
                          sizeof dropped_texture.name);
        allium_selection_clear(t->window->selection);
        AlliumView *view = view_of_kind(t, AL_VIEW_3D);
        if (!view) return TRUE;
        /* Looking down from just above the top face's middle. */
        const double p[3] = {(mins[0] + maxs[0]) / 2, (mins[1] + maxs[1]) / 2, maxs[2]};
        al_camera *camera = allium_view_get_camera(view);
        al_camera saved = *camera;
        camera->position[0] = p[0], camera->position[1] = p[1], camera->position[2] = p[2] + 8;
        camera->pitch = -89;
        check(t, to_widget(view, p, &x, &y), "the top face's middle is in the 3D view");
        g_autoptr(GPtrArray) before = face_materials(t);
        g_object_set_data_full(G_OBJECT(t->window), "allium-self-test-faces",
                               g_ptr_array_ref(before), (GDestroyNotify) g_ptr_array_unref);
        check(t, allium_view_apply_material(view, dropped_texture.name, x, y),
              "%s dropped on it in the 3D view", dropped_texture.name);
        *camera = saved;
        t->phase = 0;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    GPtrArray *before = g_object_get_data(G_OBJECT(t->window), "allium-self-test-faces");
    g_autoptr(GPtrArray) now = face_materials(t);
    int changed = 0, took = 0, box_took = 0;
    for (guint f = 0; before && f < now->len && f < before->len; f++)
        if (!g_str_equal(now->pdata[f], before->pdata[f])) {
            changed++;
            took += g_ascii_strcasecmp(now->pdata[f], dropped_texture.name) == 0;
        }
    int b = dropped_texture.brush;
    for (int f = 0; t->phase == 2 && b >= 0 && f < in->brushes[b].face_count; f++)
        box_took += g_ascii_strcasecmp(now->pdata[in->brushes[b].first_face + f],
                                       dropped_texture.name) == 0;
    switch (t->phase) {
    case 0: {
        int top, side;
        find_faces(t, &top, &side);
        char material[256] = "";
        al_map_face face;
        read_face(t, t->box_row, top, &face, material);
        check(t,
              changed == 1 && took == 1 && g_ascii_strcasecmp(material, dropped_texture.name) == 0,
              "the top face alone took it (%d faces changed, top: %s)", changed, material);
        const char *current = allium_document_get_current_material(doc);
        check(t, current && g_str_equal(current, dropped_texture.name),
              "and it is the texture new brushes get");
        check(t, allium_document_undo(doc, NULL), "undo");
        t->phase = 1;
        return FALSE;
    }
    case 1: {
        check(t, changed == 0, "one undo gives every face its texture back (%d differ)", changed);
        AlliumView *view = view_of_kind(t, AL_VIEW_TOP);
        double p[3];
        dropped_texture.brush = topmost_box(snap, p);
        check(t, dropped_texture.brush >= 0, "a box nothing rises above");
        check(t, view && dropped_texture.brush >= 0 && to_widget(view, p, &x, &y),
              "its middle is in the top view");
        if (!view || dropped_texture.brush < 0) return TRUE;
        check(t, allium_view_apply_material(view, dropped_texture.name, x, y),
              "%s dropped on it in the top view", dropped_texture.name);
        t->phase = 2;
        return FALSE;
    }
    case 2:
        check(t,
              b >= 0 && box_took == in->brushes[b].face_count && changed == took &&
                  changed == box_took,
              "all %d of the box's faces took it, no other face (%d changed)",
              b >= 0 ? in->brushes[b].face_count : 0, changed);
        check(t, allium_document_undo(doc, NULL), "undo");
        t->phase = 3;
        return FALSE;
    default:
        check(t, changed == 0, "one undo gives them back (%d differ)", changed);
        allium_document_set_current_material(doc, NULL);
        return TRUE;
    }
}
