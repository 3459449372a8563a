/* Error reporting shared by every module.
 *
 * An lg_reporter is the user's error callback (TFLite's ErrorReporter
 * signature) plus its user data. A NULL reporter, or one with a NULL
 * callback, writes to stderr. Messages end without a newline; the stderr
 * writer adds one.
 */
#ifndef LITEGPU_BASE_REPORT_H_
#define LITEGPU_BASE_REPORT_H_

#include <stdarg.h>

typedef void (*lg_report_fn)(void* user_data, const char* format, va_list args);

typedef struct lg_reporter {
  lg_report_fn fn;
  void* user_data;
} lg_reporter;

void lg_report(const lg_reporter* reporter, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
void lg_reportv(const lg_reporter* reporter, const char* format, va_list args);

#endif /* LITEGPU_BASE_REPORT_H_ */
