// dp4a: d[i] = __dp4a(a[i], b[i], c[i]) (the four signed byte products plus c, wrapping) and du[i] = __dp4a on the unsigned words: the int8 dot products of quantised kernels
// run: --grid 2 --block 4 --arg a=[16909060,-1,2139062143,-2139062144,-2147483648,305419896,65280,-16777216] --arg b=[84281096,-1,2139062143,2139062143,-2147483648,-559038737,65280,255] --arg c=[0,7,2147483647,-5,-2147483648,1,-1,100] --arg d=[0,0,0,0,0,0,0,0] --arg du=[0,0,0,0,0,0,0,0]
// run: --grid 2 --block 4 --arg a=[-2139062144,-2139062144,127,-128,16777215,0,1,-1] --arg b=[-2139062144,2139062143,-128,-128,-16777216,-1,1,1] --arg c=[2147483647,-2147483648,0,0,0,5,2147483647,-2147483648] --arg d=[0,0,0,0,0,0,0,0] --arg du=[0,0,0,0,0,0,0,0]
__global__ void dp4a(const int *a, const int *b, const int *c, int *d, unsigned *du) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  d[k] = __dp4a(a[k], b[k], c[k]);
  du[k] = __dp4a((unsigned)a[k], (unsigned)b[k], (unsigned)c[k]);
}
