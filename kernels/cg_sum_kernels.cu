// cg_sum_kernels: *sum += the sum of input[0..n) (n a multiple of 4, read as int4): sum_kernel_block reduces each block through extern __shared__ with a thread_group, sum_kernel_tile_shfl<tile_sz> each tile with shfl_down; one atomicAdd per block / tile
// from: NVIDIA Developer Blog, "Cooperative Groups: Flexible CUDA Thread Programming" (Mark Harris, Kyrylo Perelygin, 2017) (reduce_sum, thread_sum, sum_kernel_block, reduce_sum_tile_shfl, sum_kernel_tile_shfl, as written), 8- and 16-thread blocks, tiles of 4 and 2
// run: --grid 2 --block 16 --kernel sum_kernel_block --shared 64 --arg sum=[0] --arg input=[600,647,150,-207,-153,-759,208,691,875,-54,891,384,-645,-226,-363,-342,-617,-644,-645,-718,565,881,884,769,-536,-712,709,147,565,999,268,-492,-604,652,-784,-630,-874,677,146,236,887,320,-352,-829,187,-323,738,-185] --arg n=48
// run: --grid 2 --block 8 --kernel 'sum_kernel_tile_shfl<4>' --arg sum=[5] --arg input=[-279,-604,-562,-387,737,-279,516,-900,895,-200,-56,150,-93,688,953,-571,172,517,432,725,-899,-98,823,-387,178,801,-806,667,-126,-1000,965,84,-725,710,-541,78,-94,-445,-290,-306,-748,-496,606,-155,446,-889,283,-18,448,-128,185,-76,297,-20,105,-340,-386,-997,787,-193,898,-943,773,-184] --arg n=64
// run: --grid 3 --block 4 --kernel 'sum_kernel_tile_shfl<2>' --arg sum=[0] --arg input=[-337,-3,369,677,593,649,472,790,41,217,-251,819,767,-499,-168,479,458,-1000,-286,428,-988,-693,511,-75,979,-688,-71,705,286,397,-547,499,-604,-845,198,162,496,841,-996,-71] --arg n=40
#include <cooperative_groups.h>

using namespace cooperative_groups;

__device__ int reduce_sum(thread_group g, int *temp, int val)
{
    int lane = g.thread_rank();

    // Each iteration halves the number of active threads
    // Each thread adds its partial sum[i] to sum[lane+i]
    for (int i = g.size() / 2; i > 0; i /= 2)
    {
        temp[lane] = val;
        g.sync(); // wait for all threads to store
        if(lane<i) val += temp[lane + i];
        g.sync(); // wait for all threads to load
    }
    return val; // note: only thread 0 will return full sum
}

__device__ int thread_sum(int *input, int n)
{
    int sum = 0;

    for(int i = blockIdx.x * blockDim.x + threadIdx.x;
        i < n / 4;
        i += blockDim.x * gridDim.x)
    {
        int4 in = ((int4*)input)[i];
        sum += in.x + in.y + in.z + in.w;
    }
    return sum;
}

__global__ void sum_kernel_block(int *sum, int *input, int n)
{
    int my_sum = thread_sum(input, n);

    extern __shared__ int temp[];
    auto g = this_thread_block();
    int block_sum = reduce_sum(g, temp, my_sum);

    if (g.thread_rank() == 0) atomicAdd(sum, block_sum);
}

template <int tile_sz>
__device__ int reduce_sum_tile_shfl(thread_block_tile<tile_sz> g, int val)
{
    // Each iteration halves the number of active threads
    // Each thread adds its partial sum[i] to sum[lane+i]
    for (int i = g.size() / 2; i > 0; i /= 2) {
        val += g.shfl_down(val, i);
    }

    return val; // note: only thread 0 will return full sum
}

template<int tile_sz>
__global__ void sum_kernel_tile_shfl(int *sum, int *input, int n)
{
    int my_sum = thread_sum(input, n);

    auto tile = tiled_partition<tile_sz>(this_thread_block());
    int tile_sum = reduce_sum_tile_shfl<tile_sz>(tile, my_sum);

    if (tile.thread_rank() == 0) atomicAdd(sum, tile_sum);
}
