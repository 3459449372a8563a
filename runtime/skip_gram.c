/* SKIP_GRAM (builtin 30, version 1): the skip-grams of a sentence, as
 * TFLite's kernel computes them. An interpreter-level kernel (like
 * runtime/hashtable_lookup.c) because its STRING output is written with the
 * interpreter's string writer.
 *
 * Input: a STRING tensor whose first string is the sentence. Words are the
 * runs between whitespace bytes (space, \t, \n, \v, \f, \r), split exactly
 * as TFLite does, quirks included: byte 0 is never tested as a separator,
 * so a sentence that starts with whitespace loses its first run, and a
 * one-byte sentence is one word whatever the byte.
 *
 * Output: a dynamic STRING [count] of n-grams, each its words joined by one
 * space, in TFLite's order: a depth-first walk that picks word indices in
 * increasing order, each next word at most max_skip_size words after the
 * previous; every walk of ngram_size words gives a gram (include_all_ngrams:
 * every walk of 1..ngram_size words). Fewer words than ngram_size give no
 * grams. A negative ngram_size is rejected (TFLite cannot size its stack).
 *
 * Invoke allocates: the grams' count and size depend on the sentence (a
 * scratch kept per node, grown as needed, and the output's buffer).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/string_tensor.h"
#include "runtime/subgraph.h"
#include "tensorflow/lite/c/builtin_op_data.h"

#define LG_SG_OP "SKIP_GRAM"

/* A word of the sentence: its start offset and length. */
typedef struct lg_sg_word {
  size_t start, length;
} lg_sg_word;

typedef struct lg_sg_data {
  lg_sg_word* words;
  size_t word_capacity;
  int* stack; /* word index per depth, ngram_size + 1 */
  size_t stack_capacity;
  /* The grams: their text one after another, and pointers into it. */
  char* text;
  size_t text_capacity;
  const char** grams;
  size_t* gram_length;
  size_t gram_capacity; /* of both grams and gram_length */
} lg_sg_data;

static void* lg_sg_init(TfLiteContext* context, const char* buffer,
                        size_t length) {
  (void)context;
  (void)buffer;
  (void)length;
  return calloc(1, sizeof(lg_sg_data));
}

static void lg_sg_free(TfLiteContext* context, void* buffer) {
  (void)context;
  lg_sg_data* d = buffer;
  if (d == NULL) return;
  free(d->words);
  free(d->stack);
  free(d->text);
  free(d->grams);
  free(d->gram_length);
  free(d);
}

/* Grows *array (of *capacity elements of `size` bytes) to hold `n`. */
static bool lg_sg_reserve(void** array, size_t* capacity, size_t n,
                          size_t size) {
  if (n <= *capacity) return true;
  void* grown = realloc(*array, n * size);
  if (grown == NULL) return false;
  *array = grown;
  *capacity = n;
  return true;
}

static TfLiteStatus lg_sg_prepare(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_SG_OP;
  const TfLiteSkipGramParams* params = node->builtin_data;
  if (node->user_data == NULL || params == NULL) {
    lg_kernel_log(context, op, "no %s",
                  params == NULL ? "params" : "kernel data");
    return kTfLiteError;
  }
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_STATUS(lg_kernel_check_io(context, node, op, 1, 1, 1));
  TF_LITE_ENSURE_STATUS(lg_kernel_input(context, node, op, 0, &input));
  TF_LITE_ENSURE_STATUS(lg_kernel_output(context, node, op, 0, &output));
  if (input->type != kTfLiteString || output->type != kTfLiteString) {
    lg_kernel_log(
        context, op, "input and output must be STRING; they are %s and %s",
        TfLiteTypeGetName(input->type), TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  if (params->ngram_size < 0) {
    lg_kernel_log(context, op, "ngram_size %d is negative", params->ngram_size);
    return kTfLiteError;
  }
  lg_kernel_set_dynamic(output);
  return kTfLiteOk;
}

static bool lg_sg_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

/* Splits text[0..len) into d's word arrays; the word count, or -1 when out
 * of memory. */
static int64_t lg_sg_words(lg_sg_data* d, const char* text, size_t len) {
  /* At most one word per two bytes, plus one. */
  if (!lg_sg_reserve((void**)&d->words, &d->word_capacity, len / 2 + 2,
                     sizeof(lg_sg_word))) {
    return -1;
  }
  int64_t n = 0;
  size_t begin = 0;
  for (size_t i = 1; i < len; ++i) {
    if (!lg_sg_space(text[i])) continue;
    if (i > begin && !lg_sg_space(text[begin])) {
      d->words[n++] = (lg_sg_word){begin, i - begin};
    }
    begin = i + 1;
  }
  if (len > begin) d->words[n++] = (lg_sg_word){begin, len - begin};
  return n;
}

/* Walks the grams of `words` words; with `text` NULL counts them and their
 * bytes into *count and *bytes, else writes them into d's gram arrays and
 * text. False when the count or size passes INT32_MAX. */
static bool lg_sg_walk(lg_sg_data* d, const TfLiteSkipGramParams* p, int words,
                       const char* text, int64_t* count, int64_t* bytes) {
  const int n = p->ngram_size;
  int* stack = d->stack;
  for (int i = 0; i <= n; ++i) stack[i] = 0;
  int64_t grams = 0, size = 0;
  int depth = 1;
  while (depth >= 0) {
    /* Extend the walk by the word after stack[depth], when there is one
     * within max_skip_size of the previous pick. */
    const bool step = depth < n && stack[depth] + 1 < words &&
                      (depth == 0 || (int64_t)stack[depth] - stack[depth - 1] <=
                                         p->max_skip_size);
    if (step) {
      stack[depth]++;
      depth++;
      if (depth < n) stack[depth] = stack[depth - 1];
      continue;
    }
    if (depth > 0 && (p->include_all_ngrams ? depth <= n : depth == n)) {
      int64_t length = depth - 1; /* the joining spaces */
      for (int k = 0; k < depth; ++k) length += d->words[stack[k]].length;
      if (text != NULL) {
        char* at = d->text + size;
        for (int k = 0; k < depth; ++k) {
          if (k > 0) *at++ = ' ';
          memcpy(at, text + d->words[stack[k]].start,
                 d->words[stack[k]].length);
          at += d->words[stack[k]].length;
        }
        d->grams[grams] = d->text + size;
        d->gram_length[grams] = (size_t)length;
      }
      grams++;
      size += length;
      if (grams > INT32_MAX || size > INT32_MAX) return false;
    }
    depth--;
  }
  *count = grams;
  *bytes = size;
  return true;
}

static TfLiteStatus lg_sg_invoke(TfLiteContext* context, TfLiteNode* node) {
  const char* op = LG_SG_OP;
  lg_sg_data* d = node->user_data;
  const TfLiteSkipGramParams* params = node->builtin_data;
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  const int out_index = node->outputs->data[0];
  lg_subgraph* s = lg_subgraph_of_kernel(context, op);
  if (s == NULL) return kTfLiteError;
  const char* why = NULL;
  const int32_t strings = lg_string_count(input, &why);
  if (strings < 1) {
    lg_kernel_log(context, op, "the input holds no sentence%s%s",
                  why ? ": " : "", why ? why : "");
    return kTfLiteError;
  }
  const char* sentence;
  size_t length;
  lg_string_at(input, 0, &sentence, &length);
  const int64_t words = lg_sg_words(d, sentence, length);
  if (words < 0) {
    lg_kernel_log(context, op, "out of memory");
    return kTfLiteError;
  }
  int64_t count = 0, bytes = 0;
  if (words >= params->ngram_size) {
    if (!lg_sg_reserve((void**)&d->stack, &d->stack_capacity,
                       (size_t)params->ngram_size + 1, sizeof(int))) {
      lg_kernel_log(context, op, "out of memory");
      return kTfLiteError;
    }
    if (!lg_sg_walk(d, params, (int)words, NULL, &count, &bytes)) {
      lg_kernel_log(context, op, "the n-grams are too many or too long");
      return kTfLiteError;
    }
    size_t grams_cap = d->gram_capacity, lengths_cap = d->gram_capacity;
    const bool ok = lg_sg_reserve((void**)&d->text, &d->text_capacity,
                                  (size_t)bytes + 1, 1) &&
                    lg_sg_reserve((void**)&d->grams, &grams_cap,
                                  (size_t)count + 1, sizeof(char*)) &&
                    lg_sg_reserve((void**)&d->gram_length, &lengths_cap,
                                  (size_t)count + 1, sizeof(size_t));
    /* Both arrays hold at least the smaller of the two capacities. */
    d->gram_capacity = grams_cap < lengths_cap ? grams_cap : lengths_cap;
    if (!ok) {
      lg_kernel_log(context, op, "out of memory");
      return kTfLiteError;
    }
    lg_sg_walk(d, params, (int)words, sentence, &count, &bytes);
  }
  return lg_string_write(s, out_index, d->grams, d->gram_length, (int32_t)count,
                         NULL);
}

LG_KERNEL_REGISTRATION(SKIP_GRAM, lg_sg_init, lg_sg_free, lg_sg_prepare,
                       lg_sg_invoke)
