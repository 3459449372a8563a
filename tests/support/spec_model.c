/* Test helpers for spec-built models (spec_model.h). */
#include "tests/support/spec_model.h"

#include <stdio.h>
#include <stdlib.h>

#include "runtime/writer/model_spec.h"

void lg_test_capture_report(void* user_data, const char* format, va_list args) {
  lg_test_capture* c = user_data;
  if (c->length >= sizeof(c->text) - 2) return;
  int n =
      vsnprintf(c->text + c->length, sizeof(c->text) - c->length, format, args);
  if (n > 0) c->length += (size_t)n;
  if (c->length > sizeof(c->text) - 2) c->length = sizeof(c->text) - 2;
  c->text[c->length++] = '\n';
  c->text[c->length] = '\0';
}

TfLiteModel* lg_test_model_from_writer(lg_model_writer* w, void** data) {
  *data = NULL;
  if (w == NULL) return NULL;
  size_t size = 0;
  const TfLiteStatus status = lg_model_writer_finish(w, data, &size);
  lg_model_writer_destroy(w);
  return status == kTfLiteOk ? TfLiteModelCreate(*data, size) : NULL;
}

TfLiteModel* lg_test_model_from_spec(const char* spec, void** data) {
  return lg_test_model_from_writer(
      lg_model_spec_read_text(spec, "spec", NULL, NULL), data);
}
