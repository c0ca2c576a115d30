/* Stand-in for the CUDA runtime header: kernels that include it compile unchanged. */
#include "qgpu_cuda.h"
