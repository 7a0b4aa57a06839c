/* The measured-against-predicted figure of validate --plot (overlay.h). */
#include "overlay.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"

int overlay_data_open(overlay_data *od, diag *d) {
  const char *tmp = getenv("TMPDIR");
  snprintf(od->path, sizeof od->path, "%s/tlbsim-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(od->path);
  od->f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (od->f) return 0;
  if (fd >= 0) {
    close(fd);
    unlink(od->path);
  }
  return diag_set(d, od->path, 0, "cannot write a temporary file");
}

/* s inside a single-quoted gnuplot string: '' stands for a quote. */
static void gnuplot_quote(const char *s, char *buf, size_t len) {
  size_t o = 0;
  for (; *s && o + 3 < len; s++) {
    if (*s == '\'') buf[o++] = '\'';
    buf[o++] = *s == '\n' ? ' ' : *s;
  }
  buf[o] = '\0';
}

static unsigned words(const char *s) {
  unsigned n = 0;
  for (const char *p = s; *p; p++) n += *p != ' ' && (p == s || p[-1] == ' ');
  return n;
}

/* The script, to gnuplot's stdin (no shell quoting): a grid of two columns;
 * colours evenly spaced in hue, so that none repeats; the key (colours, and
 * points against lines) in the first panel. */
static void write_script(FILE *gp, const overlay *o, const char *png, const char *data) {
  char q_csv[1024], q_title[256], q_colour[256];
  gnuplot_quote(o->input, q_csv, sizeof q_csv);
  gnuplot_quote(o->title, q_title, sizeof q_title);
  gnuplot_quote(o->colour_title, q_colour, sizeof q_colour);
  unsigned panels = words(o->panels), colours = words(o->colours), grid_rows = (panels + 1) / 2;
  fprintf(gp,
          "set terminal pngcairo noenhanced size 1400,%u font ',10'\n"
          "set output '%s'\n"
          "set multiplot layout %u,2 title '%s: measured (points) and predicted (lines), colour = %s; %s'\n"
          "set logscale x 2%s\n"
          "set xtics %s\n"
          "set xlabel 'footprint (bytes)'; set ylabel '%s'; set grid\n"
          "do for [c=1:%u] { set linetype c lc rgb hsv2rgb((c - 1.0) / %u * 0.85, 0.9, 0.8) }\n"
          "panels = '%s'; colours = '%s'\n"
          "do for [k=0:%u] {\n"
          "  set title word(panels, k + 1)\n"
          "  if (k == 0) { set key top left box opaque font ',8' } else { unset key }\n"
          "  plot '%s' index k using 1:3:2 with points pt 7 ps 0.6 lc variable notitle, \\\n"
          "       '' index k using 1:4:2 with lines lc variable notitle, \\\n"
          "       for [c=1:%u] NaN with linespoints lt c pt 7 title word(colours, c)\n"
          "}\n"
          "unset multiplot\n",
          250 + 375 * grid_rows, png, grid_rows, q_title, q_colour, q_csv, o->logy ? "; set logscale y 10" : "",
          o->xtics, o->ylabel, colours, colours, o->panels, o->colours, panels - 1, data, colours);
}

int overlay_plot(const overlay *o, overlay_data *od, diag *d) {
  fclose(od->f);
  od->f = NULL;
  const char *inputs[] = {o->input, NULL};
  cli_out out;
  FILE *gp = NULL;
  int rc = -1;
  if (!words(o->panels) || !words(o->colours)) {
    diag_set(d, o->png, 0, "no rows to plot");
  } else if (cli_out_open(&out, o->png, false, inputs, d) == 0) {
    char q_png[sizeof out.tmp * 2], q_data[sizeof od->path * 2];
    gnuplot_quote(out.tmp, q_png, sizeof q_png);
    gnuplot_quote(od->path, q_data, sizeof q_data);
    if (!(gp = popen("gnuplot", "w"))) {
      diag_set(d, o->png, 0, "cannot run gnuplot");
    } else {
      write_script(gp, o, q_png, q_data);
      if (pclose(gp) != 0) diag_set(d, o->png, 0, "gnuplot failed");
      else rc = 0;
    }
    if (rc) cli_out_discard(&out);
    else rc = cli_out_commit(&out, d);
  }
  unlink(od->path);
  return rc;
}
