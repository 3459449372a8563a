/* Opening a GPU API's loader library at run time (the OpenCL and Vulkan
 * backends' opencl_api.c / vulkan_api.c), so that liblitegpu links neither
 * and loads on machines that lack one. */
#ifndef LITEGPU_DELEGATES_BACKEND_GPU_LIBRARY_H_
#define LITEGPU_DELEGATES_BACKEND_GPU_LIBRARY_H_

#include <stddef.h>

/* dlopens the first of `names` that opens, or only the path in the
 * environment variable `test_env` when that is set (a test hook), and keeps
 * it for the life of the process, as a linked library would be. NULL when
 * none opens, with "cannot load <what> (<dlopen's message for the first
 * name>); <hint>" in `why`: the first name's message is the one a user can
 * act on. */
void* lg_gpu_library_open(const char* test_env, const char* const* names,
                          int count, const char* what, const char* hint,
                          char* why, size_t why_size);

#endif /* LITEGPU_DELEGATES_BACKEND_GPU_LIBRARY_H_ */
