/* Model specs: a small text language that describes a .tflite model
 * statement by statement, built with the model writer (model_writer.h).
 * tools/model_builder writes spec files to .tflite files; the GPU
 * conformance suite writes its random graphs and keeps their shrunk
 * failures as specs (tests/conformance/).
 *
 * The spec language: one statement per line, words separated by blanks;
 * blank lines and lines whose first non-blank character is '#' are ignored.
 * Names (tensors, subgraphs) are words without ',', ':', '=' or '@'; "-" is
 * not a name. Lists are comma-separated without blanks ("1,2,3"; an empty
 * list is written as nothing, e.g. "in=").
 *
 *   tensor NAME TYPE SHAPE [ATTR...]
 *       TYPE: a schema TensorType name (FLOAT32, INT32, UINT8, INT8, BOOL,
 *       INT64, INT16, FLOAT16, FLOAT64, STRING, ...). SHAPE: "-" for a
 *       scalar, else a list of dims >= 0 ("1,224,224,3", "0,3").
 *       Tensors of a subgraph are numbered 0, 1, ... in the order declared.
 *       ATTR:
 *         sig=LIST          shape_signature, one entry per dim, -1 = unknown
 *         variable          is_variable
 *         has_rank          has_rank
 *         quant=SCALE:ZP[,SCALE:ZP...][@AXIS]
 *                           quantization; several pairs are per-channel
 *                           along AXIS (default 0)
 *         data=PATH         constant data: the file's raw bytes (little
 *                           endian), PATH relative to the spec's directory
 *                           (the current directory for stdin)
 *         hex=HEX           constant data as hex bytes ("0000803f")
 *         values=LIST       constant data as numbers of TYPE (FLOAT32,
 *                           [U]INT8/16/32, INT64, BOOL; "nan", "inf",
 *                           "-inf", "true", "false" allowed)
 *       For types of a fixed element size the data must hold exactly the
 *       shape's element count.
 *
 *   op OPNAME VERSION in=LIST out=LIST [FIELD=VALUE...]
 *       OPNAME: a schema BuiltinOperator name (CONV_2D). in= lists tensor
 *       names, "-" for an omitted optional input; out= lists tensor names.
 *       FIELD: a field of the op's options table by schema name, as the
 *       builtin options descriptors know it (runtime/model/builtin_options.c);
 *       an op without a descriptor takes no fields. Values: ints, floats,
 *       bools (true/false/1/0), int lists (new_shape=1,-1), float lists
 *       (boundaries=-1.5,0,2.25), and enum names:
 *       padding SAME/VALID; fused_activation_function NONE/RELU/
 *       RELU_N1_TO_1/RELU6/TANH/SIGN_BIT; mode REFLECT/SYMMETRIC; tensor
 *       types by TYPE name; weights_format DEFAULT/SHUFFLED4x16INT8;
 *       kernel_type FULL/BASIC; combiner SUM/MEAN/SQRTN; algorithm
 *       DEFAULT/PHILOX/THREEFRY (an options table of builtin_options_2);
 *       LSH_PROJECTION's type UNKNOWN/SPARSE/DENSE.
 *       RandomOptions' seed and seed2 take 32-bit ints (TFLite's params),
 *       written as the schema's longs; other long fields (index_vector_dim)
 *       take 64-bit ints. String fields take a word,
 *       byte-vector fields hex:HEX (composite_attributes=hex:00ff), 64-bit
 *       integer arrays and vectors an int list (edge_padding_low=1,-2;
 *       offset_dims=1,3: a vector writes just the values given, an array
 *       its whole capacity, the default after the values given).
 *       Fields not given keep the schema default.
 *       VERSION "auto": the writer computes it from the op's tensors and
 *       fields (lg_model_writer_set_auto_versions), and then also writes the
 *       model's min_runtime_version unless a statement sets it.
 *
 *   custom NAME VERSION in=LIST out=LIST [options=hex:HEX|options=file:PATH]
 *       a CUSTOM operator named NAME with optional custom_options bytes.
 *
 *   inputs LIST                  the current subgraph's inputs
 *   outputs LIST                 the current subgraph's outputs
 *   subgraph [NAME]              starts the next subgraph (tensor names are
 *                                per subgraph); as the first statement it
 *                                names subgraph 0 instead
 *   min_runtime_version VERSION  e.g. 1.14.0
 *
 * Example:
 *   tensor x FLOAT32 1,8,8,3
 *   tensor w FLOAT32 4,3,3,3 data=w.bin
 *   tensor b FLOAT32 4 values=0.5,0,-1,2
 *   tensor y FLOAT32 1,4,4,4
 *   op CONV_2D 1 in=x,w,b out=y padding=SAME stride_w=2 stride_h=2
 *   inputs x
 *   outputs y
 *
 * Errors: every problem is reported through the reporter as
 * "SPEC:LINE: message" (SPEC is the name the caller gives) and the build
 * stops at the first one.
 */
#ifndef LITEGPU_RUNTIME_WRITER_MODEL_SPEC_H_
#define LITEGPU_RUNTIME_WRITER_MODEL_SPEC_H_

#include <stdio.h>

#include "base/report.h"
#include "runtime/writer/model_writer.h"

/* Reads a spec from `in` into a new writer and returns it (the caller
 * finishes or writes it, then destroys it), or NULL after reporting the
 * first problem. `spec_name` names the spec in messages; data= paths are
 * relative to `base_dir` (NULL: the current directory). */
lg_model_writer* lg_model_spec_read(FILE* in, const char* spec_name,
                                    const char* base_dir,
                                    const lg_reporter* reporter);

/* The same for spec text in memory (NUL-terminated). */
lg_model_writer* lg_model_spec_read_text(const char* text,
                                         const char* spec_name,
                                         const char* base_dir,
                                         const lg_reporter* reporter);

#endif /* LITEGPU_RUNTIME_WRITER_MODEL_SPEC_H_ */
