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

int main(int argc, char **argv)
{
    gint64 started_us = process_start_us();

    setlocale(LC_ALL, "");
    /* The test suite points this at the build tree's compiled translations (po/ in the
     * build folder); an installed editor finds them in LOCALEDIR. */
    const char *localedir = g_getenv("ALLIUM_LOCALEDIR");
    bindtextdomain(GETTEXT_PACKAGE, localedir && *localedir ? localedir : LOCALEDIR);
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    textdomain(GETTEXT_PACKAGE);
    al_diag_set_translator(translate_diag);

    AlliumApplication *app = allium_application_new(started_us);
    int status = g_application_run(G_APPLICATION(app), argc, argv);
    if (status == 0) status = allium_application_get_exit_status(app);
    g_object_unref(app);
    return status;
}
