/* Resource variables: the interpreter's table of resource ids and values,
 * and the kernels that use it (VAR_HANDLE, ASSIGN_VARIABLE, READ_VARIABLE,
 * registered through the op manifest).
 *
 * TFLite's semantics: VAR_HANDLE writes the id of its (container,
 * shared_name) pair into its RESOURCE output, the same id in every subgraph
 * and every Invoke; ASSIGN_VARIABLE replaces the variable's value, shape and
 * type included; READ_VARIABLE copies the value into its output, which is
 * dynamic (its shape is the variable's). Variables live as long as the
 * interpreter.
 */
#ifndef LITEGPU_RUNTIME_RESOURCE_VARIABLES_H_
#define LITEGPU_RUNTIME_RESOURCE_VARIABLES_H_

#include "runtime/interpreter.h"

/* Frees every variable, hash table and id; the table is empty
 * afterwards. */
void lg_resources_release(lg_resources* resources);

/* The interpreter's resources for a kernel of op `op`, or NULL (reported)
 * outside the interpreter's graphs (lg_subgraph_of_kernel). */
lg_resources* lg_resources_of_kernel(TfLiteContext* context, const char* op);

/* Checks input 0 is a RESOURCE tensor (Prepare). */
TfLiteStatus lg_resource_check_input(TfLiteContext* context,
                                     const TfLiteNode* node, const char* op);

/* The resource id input 0 holds (Invoke); an error when it holds none. */
TfLiteStatus lg_resource_read_id(TfLiteContext* context, const TfLiteNode* node,
                                 const char* op, int32_t* id);

/* Frees the hash tables (runtime/hashtable.c). */
void lg_hashtables_release(lg_resources* resources);

#endif /* LITEGPU_RUNTIME_RESOURCE_VARIABLES_H_ */
