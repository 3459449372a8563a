/* benchmark_model --compare ... --plot=FILE.svg: the comparison as a chart.
 *
 * One band per backend, in table order. Left panel, "latency per Invoke"
 * on a logarithmic axis (backends can differ tenfold): a dot per
 * steady-state run (all of them up to MAX_DOTS, beyond that MAX_DOTS
 * evenly spaced order statistics), a box from p25 to p75, a line at the
 * median and whiskers from p5 to p95. Right panel, "speed-up over the CPU"
 * on a linear axis with a dashed line at 1x: a solid bar for the
 * steady-state ratio (CPU mean / backend mean) and a light one for the
 * paired ratio. A backend without a result gets its reason in its band.
 *
 * The SVG is self-contained (no script, no external font or style) and
 * carries its figures as data-* attributes of each band (data-backend,
 * data-runs, data-p5-ms ... data-p95-ms, data-mean-ms, data-speedup,
 * data-paired-speedup) and of each axis tick (data-ms, data-x), so that a
 * test or another tool can read the chart back.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tools/benchmark/benchmark.h"

#define WIDTH 960.0
#define LABEL_X 16.0 /* left edge of the band labels */
#define LAT_X0 200.0 /* latency panel */
#define LAT_X1 640.0
#define SPEED_X0 690.0 /* speed-up panel */
#define SPEED_X1 920.0
#define TOP 96.0  /* first band */
#define BAND 64.0 /* band height */
#define MAX_DOTS 1000

static const char* const kColors[][2] = {
    /* name, colour */
    {"cpu", "#4d4d4d"}, {"cl", "#1f77b4"},  {"vk", "#d62728"},
    {"gpu", "#2ca02c"}, {"svc", "#9467bd"}, {"burst", "#ff7f0e"},
};

static const char* color_of(const char* name) {
  for (size_t i = 0; i < sizeof(kColors) / sizeof(kColors[0]); ++i) {
    if (strcmp(kColors[i][0], name) == 0) return kColors[i][1];
  }
  return "#7f7f7f";
}

/* Text content or attribute value, XML-escaped. */
static void xml_text(FILE* out, const char* s) {
  for (; *s; ++s) {
    switch (*s) {
      case '&':
        fputs("&amp;", out);
        break;
      case '<':
        fputs("&lt;", out);
        break;
      case '>':
        fputs("&gt;", out);
        break;
      case '"':
        fputs("&quot;", out);
        break;
      default:
        /* XML 1.0 has no other control characters than tab and newline. */
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
    }
  }
}

/* The sorted run times' nearest-rank percentile p (0-100). */
static double sample_percentile(const lg_plot_row* row, double p) {
  return row->sorted_us[lg_bench_nearest_rank(row->kept, p)];
}

typedef struct log_axis {
  double lo, hi; /* microseconds, lo < hi */
} log_axis;

static double axis_x(const log_axis* a, double us) {
  double v = us < a->lo ? a->lo : (us > a->hi ? a->hi : us);
  return LAT_X0 + (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) *
                      (LAT_X1 - LAT_X0);
}

/* From the fastest to the slowest run shown, with a margin. */
static log_axis latency_axis(const lg_plot* plot) {
  double lo = INFINITY, hi = 0.0;
  for (int i = 0; i < plot->num_rows; ++i) {
    const lg_plot_row* row = &plot->rows[i];
    if (!row->ok || row->kept == 0) continue;
    lo = fmin(lo, row->sorted_us[0]);
    hi = fmax(hi, row->sorted_us[row->kept - 1]);
  }
  if (!(lo > 0.0) || !isfinite(hi)) return (log_axis){1.0, 10.0};
  lo /= 1.15;
  hi *= 1.15;
  if (hi / lo < 10.0) { /* a decade at least: ticks at 1, 2 and 5 */
    double mid = sqrt(lo * hi);
    lo = mid / sqrt(10.0);
    hi = mid * sqrt(10.0);
  }
  return (log_axis){lo, hi};
}

static void tick_label(char* buf, size_t size, double ms) {
  if (ms >= 1.0) {
    snprintf(buf, size, "%g", ms);
  } else {
    snprintf(buf, size, "%.3g", ms);
  }
}

/* Ticks at 1, 2 and 5 times each power of ten inside the axis. */
static void latency_ticks(FILE* out, const log_axis* a, double bottom) {
  for (int e = (int)floor(log10(a->lo)) - 1; e <= (int)ceil(log10(a->hi));
       ++e) {
    static const double kSteps[] = {1.0, 2.0, 5.0};
    for (int k = 0; k < 3; ++k) {
      double us = kSteps[k] * pow(10.0, e);
      if (us < a->lo || us > a->hi) continue;
      double x = axis_x(a, us);
      char label[32];
      tick_label(label, sizeof(label), us / 1e3);
      fprintf(out,
              "<g class=\"tick\" data-ms=\"%.9g\" data-x=\"%.2f\">"
              "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
              "stroke=\"#e0e0e0\"/><text x=\"%.2f\" y=\"%.1f\" "
              "text-anchor=\"middle\">%s</text></g>\n",
              us / 1e3, x, x, TOP - 8, x, bottom, x, bottom + 16, label);
    }
  }
}

static double speed_max(const lg_plot* plot) {
  double m = 1.0;
  for (int i = 0; i < plot->num_rows; ++i) {
    const lg_plot_row* row = &plot->rows[i];
    if (!row->ok) continue;
    if (isfinite(row->speedup)) m = fmax(m, row->speedup);
    if (isfinite(row->paired_speedup)) m = fmax(m, row->paired_speedup);
  }
  return m * 1.25;
}

static double speed_x(double max, double s) {
  return SPEED_X0 + fmin(s, max) / max * (SPEED_X1 - SPEED_X0);
}

/* The dots of one band: every run, or MAX_DOTS evenly spaced order
 * statistics; spread vertically by a fixed hash so that the chart is the
 * same for the same times. */
static void band_dots(FILE* out, const log_axis* a, const lg_plot_row* row,
                      double mid, const char* color) {
  size_t n = row->kept < MAX_DOTS ? row->kept : MAX_DOTS;
  fprintf(out, "<g class=\"dots\" fill=\"%s\" fill-opacity=\"0.35\">", color);
  for (size_t i = 0; i < n; ++i) {
    size_t k = n == row->kept ? i : i * (row->kept - 1) / (n - 1);
    uint32_t h = (uint32_t)(i * 2654435761u);
    double dy = ((double)(h >> 8) / (double)(1u << 24) - 0.5) * BAND * 0.55;
    fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"1.6\"/>",
            axis_x(a, row->sorted_us[k]), mid + dy);
  }
  fputs("</g>\n", out);
}

static void band_box(FILE* out, const log_axis* a, const lg_plot_row* row,
                     double mid, const char* color) {
  double p5 = axis_x(a, sample_percentile(row, 5));
  double p25 = axis_x(a, sample_percentile(row, 25));
  double p50 = axis_x(a, row->p50_us);
  double p75 = axis_x(a, sample_percentile(row, 75));
  double p95 = axis_x(a, sample_percentile(row, 95));
  fprintf(out,
          "<line class=\"whisker\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
          "y2=\"%.2f\" stroke=\"%s\"/>\n"
          "<rect class=\"box\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
          "height=\"16\" fill=\"%s\" fill-opacity=\"0.25\" stroke=\"%s\"/>\n"
          "<line class=\"median\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
          "y2=\"%.2f\" stroke=\"%s\" stroke-width=\"3\"/>\n"
          "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\">p50 %.3f ms</text>\n",
          p5, mid, p95, mid, color, p25, mid - 8, fmax(p75 - p25, 1.0), color,
          color, p50, mid - 11, p50, mid + 11, color,
          fmin(p95, LAT_X1 - 80) + 6, mid - 12, row->p50_us / 1e3);
}

static void band_speed(FILE* out, double max, const lg_plot_row* row,
                       double mid, const char* color) {
  if (row->reference) {
    fprintf(out,
            "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\">reference "
            "(1x)</text>\n",
            SPEED_X0 + 4, mid + 4);
    return;
  }
  const double values[2] = {row->speedup, row->paired_speedup};
  const char* names[2] = {"", "paired "};
  for (int k = 0; k < 2; ++k) {
    double y = mid - 14 + 15 * k;
    if (!isfinite(values[k])) {
      fprintf(out,
              "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\">%sno "
              "figure</text>\n",
              SPEED_X0 + 4, y + 10, names[k]);
      continue;
    }
    double x1 = speed_x(max, values[k]);
    fprintf(out,
            "<rect class=\"speed%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.6f\" "
            "height=\"12\" fill=\"%s\" fill-opacity=\"%s\"/>"
            "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\">%s%.2fx</text>\n",
            k ? "-paired" : "", SPEED_X0, y, x1 - SPEED_X0, color,
            k ? "0.35" : "0.9", x1 + 4, y + 10, names[k], values[k]);
  }
}

static void band_attributes(FILE* out, const lg_plot_row* row) {
  fputs("<g class=\"band\" data-backend=\"", out);
  xml_text(out, row->name);
  fprintf(out, "\" data-ok=\"%s\"", row->ok ? "true" : "false");
  if (row->ok && row->kept > 0) {
    fprintf(out,
            " data-runs=\"%zu\" data-p5-ms=\"%.9g\" data-p25-ms=\"%.9g\" "
            "data-p50-ms=\"%.9g\" data-p75-ms=\"%.9g\" data-p95-ms=\"%.9g\" "
            "data-mean-ms=\"%.9g\" data-speedup=\"%.9g\" "
            "data-paired-speedup=\"%.9g\"",
            row->runs, sample_percentile(row, 5) / 1e3,
            sample_percentile(row, 25) / 1e3, row->p50_us / 1e3,
            sample_percentile(row, 75) / 1e3, sample_percentile(row, 95) / 1e3,
            row->mean_us / 1e3, row->speedup, row->paired_speedup);
  }
  fputs(">\n", out);
}

/* Alternating shades under the bands, drawn before the ticks' grid. */
static void band_backgrounds(FILE* out, int num_rows) {
  for (int i = 0; i < num_rows; ++i) {
    fprintf(out,
            "<rect x=\"0\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" "
            "fill=\"%s\"/>\n",
            TOP + BAND * i, WIDTH, BAND, i % 2 ? "#ffffff" : "#f4f4f4");
  }
}

static void band(FILE* out, const log_axis* a, double max,
                 const lg_plot_row* row, int index) {
  const double mid = TOP + BAND * index + BAND / 2;
  const char* color = color_of(row->name);
  band_attributes(out, row);
  fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" font-weight=\"bold\" fill=\"%s\">",
          LABEL_X, mid - 4, color);
  xml_text(out, row->name);
  fprintf(out, "</text><text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">", LABEL_X,
          mid + 12);
  xml_text(out, row->label);
  fputs("</text>\n", out);
  if (!row->ok || row->kept == 0) {
    fprintf(out,
            "<text class=\"reason\" x=\"%.0f\" y=\"%.1f\">no result: ", LAT_X0,
            mid + 4);
    xml_text(out, row->ok ? "no runs" : row->reason);
    fputs("</text></g>\n", out);
    return;
  }
  band_dots(out, a, row, mid, color);
  band_box(out, a, row, mid, color);
  band_speed(out, max, row, mid, color);
  fputs("</g>\n", out);
}

static void header(FILE* out, const lg_plot* plot, double height) {
  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
          "font-family=\"sans-serif\" font-size=\"12\">\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
          "<text x=\"%.0f\" y=\"26\" font-size=\"16\" "
          "font-weight=\"bold\">litegpu benchmark_model --compare: ",
          WIDTH, height, WIDTH, height, LABEL_X);
  const char* slash = strrchr(plot->model, '/');
  xml_text(out, slash ? slash + 1 : plot->model);
  char threads[48];
  if (plot->threads > 0) {
    snprintf(threads, sizeof(threads), "%d thread%s", plot->threads,
             plot->threads == 1 ? "" : "s");
  } else {
    snprintf(threads, sizeof(threads), "the default thread count");
  }
  fprintf(out,
          "</text>\n<text x=\"%.0f\" y=\"46\" font-size=\"11\">%s; "
          "%s on the CPU; the same seeded inputs for every backend</text>\n",
          LABEL_X, plot->runs_note, threads);
  fprintf(out,
          "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">Latency per "
          "Invoke, steady state (ms, log scale)</text>\n"
          "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">Speed-up over "
          "the CPU</text>\n",
          LAT_X0, TOP - 16, SPEED_X0, TOP - 16);
}

static void footer(FILE* out, double max, double bottom) {
  fprintf(out,
          "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
          "stroke=\"#555555\" stroke-dasharray=\"4 3\"/>\n"
          "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">1x</text>\n",
          speed_x(max, 1.0), TOP - 8, speed_x(max, 1.0), bottom,
          speed_x(max, 1.0), bottom + 16);
  fprintf(out,
          "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">Dots: each "
          "steady-state run (at most %d, evenly spaced by rank). Box: p25 to "
          "p75; thick line: median; whiskers: p5 to p95.</text>\n"
          "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">Speed-up: CPU mean "
          "over the backend's mean (solid), and over the paired runs, the "
          "backends taking turns (light: the steadier ratio on a shared "
          "machine).</text>\n</svg>\n",
          LABEL_X, bottom + 40, MAX_DOTS, LABEL_X, bottom + 56);
}

bool lg_bench_write_plot(FILE* out, const lg_plot* plot) {
  const double bottom = TOP + BAND * plot->num_rows;
  const log_axis axis = latency_axis(plot);
  const double max = speed_max(plot);
  header(out, plot, bottom + 72);
  band_backgrounds(out, plot->num_rows);
  latency_ticks(out, &axis, bottom);
  for (int i = 0; i < plot->num_rows; ++i) {
    band(out, &axis, max, &plot->rows[i], i);
  }
  footer(out, max, bottom);
  return !ferror(out);
}
