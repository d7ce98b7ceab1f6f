/* allium: the GTK 4 level editor. See allium-application.h for the command line. */
#include "allium-config.h"

#include "allium-application.h"

#include "al-diag.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <string.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* g_get_monotonic_time() at the moment the process started: its age from /proc (start
 * time in clock ticks since boot) taken off now, so that the benchmark's "open" time
 * includes loading the libraries. Falls back to now when /proc is not there. */
static gint64 process_start_us(void)
{
    gint64 now = g_get_monotonic_time();
    g_autofree char *stat = NULL;
    if (!g_file_get_contents("/proc/self/stat", &stat, NULL, NULL)) return now;
    /* Field 22; the command name (field 2) may hold spaces, so count after its ')'. */
    const char *p = strrchr(stat, ')');
    unsigned long long start_ticks = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
                            "%*d %*d %llu", &start_ticks) != 1)
        return now;
    struct timespec boot;
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0) return now;
    gint64 since_boot_us = (gint64) boot.tv_sec * G_USEC_PER_SEC + boot.tv_nsec / 1000;
    gint64 age_us = since_boot_us - (gint64) (start_ticks * G_USEC_PER_SEC / (unsigned long long) hz);
    return age_us > 0 && age_us < 60 * G_USEC_PER_SEC ? now - age_us : now;
}

/* The compiler's and the document layer's messages in the designer's language. */
static const char *translate_diag(const char *format)
{
    return g_dgettext(GETTEXT_PACKAGE, format);
}

/* Where the translations are: ALLIUM_LOCALEDIR if set; for the editor run from its build
 * folder (BUILD/editor/allium, as the README says), the catalogues meson compiled there
 * (BUILD/po/LANG/LC_MESSAGES/allium.mo); for an installed one, LOCALEDIR. A build folder
 * is told by meson's own folder beside po/. Free with g_free. */
static char *find_localedir(void)
{
    const char *forced = g_getenv("ALLIUM_LOCALEDIR");
    if (forced && *forced) return g_strdup(forced);
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    g_autofree char *bin = exe ? g_path_get_dirname(exe) : NULL;
    g_autofree char *root = bin ? g_path_get_dirname(bin) : NULL;
    g_autofree char *meson = root ? g_build_filename(root, "meson-private", NULL) : NULL;
    char *po = root ? g_build_filename(root, "po", NULL) : NULL;
    if (po && g_file_test(meson, G_FILE_TEST_IS_DIR) && g_file_test(po, G_FILE_TEST_IS_DIR))
        return po;
    g_free(po);
    return g_strdup(LOCALEDIR);
}

int main(int argc, char **argv)
{
    gint64 started_us = process_start_us();

    setlocale(LC_ALL, "");
    g_autofree char *localedir = find_localedir();
    bindtextdomain(GETTEXT_PACKAGE, localedir);
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    textdomain(GETTEXT_PACKAGE);
    al_diag_set_translator(translate_diag);

    AlliumApplication *app = allium_application_new(started_us);
    int status = g_application_run(G_APPLICATION(app), argc, argv);
    if (status == 0) status = allium_application_get_exit_status(app);
    g_object_unref(app);
    return status;
}
