/* STRING tensors in TFLite's layout: an int32 count N, then N + 1 int32
 * offsets from the start of the buffer (offset N is the end of the last
 * string), then the bytes of the strings, one after another. Strings may
 * hold any bytes, NUL included.
 *
 * Reading checks the layout against the tensor's byte size first (a
 * constant in a model file, or a buffer a program wrote, may be malformed);
 * writing replaces a dynamic string tensor's buffer and shape.
 */
#ifndef LITEGPU_RUNTIME_STRING_TENSOR_H_
#define LITEGPU_RUNTIME_STRING_TENSOR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/interpreter.h"

/* The number of strings of a well-formed STRING tensor, or -1 when its
 * buffer is malformed or absent (*why, when not NULL, says how). A tensor
 * without bytes holds no strings (0). */
int32_t lg_string_count(const TfLiteTensor* tensor, const char** why);

/* String i of a tensor lg_string_count accepted (i < its count). */
void lg_string_at(const TfLiteTensor* tensor, int32_t i, const char** data,
                  size_t* length);

/* Replaces the buffer of STRING tensor `index` of subgraph `s` with
 * `count` strings (strings[k] of lengths[k] bytes) and its dims with
 * `dims` (taken, also on failure; NULL: [count]). The tensor becomes
 * dynamic. Fails (reported) on a non-string tensor, a shape whose element
 * count is not `count`, or too many bytes. */
TfLiteStatus lg_string_write(lg_subgraph* s, int index,
                             const char* const* strings, const size_t* lengths,
                             int32_t count, TfLiteIntArray* dims);

/* lg_string_write with int lengths (each >= 0, checked) and the shape
 * [count], as TfLiteOpaqueTensorWriteStrings writes. */
TfLiteStatus lg_string_write_vector(lg_subgraph* s, int index,
                                    const char* const* strings,
                                    const int* lengths, int32_t count);

/* Copies STRING tensor `src` (checked: well formed, one string per
 * element) into STRING tensor `index` of `s`, its shape included: how
 * values cross between subgraphs. */
TfLiteStatus lg_string_copy(lg_subgraph* s, int index, const TfLiteTensor* src);

/* Checks, for kernel `op`, that STRING tensor `what` is well formed and
 * holds one string per element ("OP: STRING input holds 2 strings for 3
 * elements"). */
TfLiteStatus lg_string_check_input(TfLiteContext* context, const char* op,
                                   const char* what,
                                   const TfLiteTensor* tensor);

/* Which input string output string k is (0 <= k < the output's count). */
typedef int64_t (*lg_string_map_fn)(const void* ctx, int64_t k);

/* Writes the STRING output of the kernel `op` running in `context` as the
 * strings of shape dims[0..rank) whose string k is input string
 * (dims may be the output's own: they are copied first)
 * map(ctx, k) (map NULL: string k), through the interpreter's string
 * writer. `input` passed lg_string_check_input and every map value is one
 * of its strings. Allocates only the output's buffer. */
TfLiteStatus lg_string_write_mapped(TfLiteContext* context, const char* op,
                                    TfLiteTensor* output,
                                    const TfLiteTensor* input, const int* dims,
                                    int rank, lg_string_map_fn map,
                                    const void* ctx);

/* The subgraph and index of `tensor` among the interpreter's tensors;
 * false when it is none of them. */
bool lg_string_find_tensor(const TfLiteInterpreter* interpreter,
                           const TfLiteTensor* tensor, lg_subgraph** s,
                           int* index);

#endif /* LITEGPU_RUNTIME_STRING_TENSOR_H_ */
