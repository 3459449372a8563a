/* Minimum runtime versions.
 *
 * Each (builtin op, version) pair first ran in some TFLite release; a model
 * needs the latest of those over its operators. TensorFlow's converter
 * stores that string in the model's "min_runtime_version" metadata (16
 * zero-filled bytes); litegpu's model writer does the same when it computes
 * versions (lg_model_writer_set_auto_versions), and tools/inspect shows it.
 *
 *   const char* v = lg_min_runtime_version(kTfLiteBuiltinConv2d, 6);  //
 * "2.9.0" if (lg_compare_runtime_version(v, "2.5.0") > 0) ...  // newer
 * than 2.5.0 const char* need = lg_model_min_runtime_version(model);
 *
 * Returned strings are static (never freed). Thread safe.
 */
#ifndef LITEGPU_VERSIONING_RUNTIME_VERSION_H_
#define LITEGPU_VERSIONING_RUNTIME_VERSION_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/model/model.h"

/* The TFLite release that first ran version `version` of builtin op
 * `builtin_code` ("1.5.0"), or "" when the pair is not in the table (as
 * TFLite's FindMinimumRuntimeVersionForOp answers for unknown pairs). The
 * table holds every pair TFLite lists for the ops litegpu's kernels cover. */
const char* lg_min_runtime_version(int32_t builtin_code, int version);

/* Compares dot-separated version strings part by part, numerically
 * ("1.10.0" > "1.9.0"): negative when a < b, 0 when equal, positive when
 * a > b. When one is a prefix of the other the shorter is smaller ("1.5" <
 * "1.5.0"). A part that is not a number on either side compares equal, as
 * TFLite's CompareRuntimeVersion skips it. "" has no parts, so it is
 * smaller than any other version (TFLite reads "" as one empty part, which
 * only differs against a one-part version). NULL reads as "". */
int lg_compare_runtime_version(const char* a, const char* b);

/* The largest of lg_min_runtime_version over every operator of every
 * subgraph (its opcode's code and version); pairs without an entry and
 * CUSTOM ops are skipped, as TFLite's UpdateMinimumRuntimeVersionForModel
 * does. "" for a model with no known pair (or NULL). */
const char* lg_model_min_runtime_version(const lg_model* model);

/* The number of (op, version) entries in the table, and entry `index` (for
 * tests and tools); false when index is out of range. */
size_t lg_runtime_version_table_size(void);
bool lg_runtime_version_table_entry(size_t index, int32_t* builtin_code,
                                    int* version, const char** runtime_version);

#endif /* LITEGPU_VERSIONING_RUNTIME_VERSION_H_ */
