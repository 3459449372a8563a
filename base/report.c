#include "base/report.h"

#include <stdio.h>

void lg_reportv(const lg_reporter* reporter, const char* format, va_list args) {
  if (reporter != NULL && reporter->fn != NULL) {
    reporter->fn(reporter->user_data, format, args);
    return;
  }
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
}

void lg_report(const lg_reporter* reporter, const char* format, ...) {
  va_list args;
  va_start(args, format);
  lg_reportv(reporter, format, args);
  va_end(args);
}
